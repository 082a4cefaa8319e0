"""The documented train/validation split of the labelled references.

A reference is in the validation split when the SHA-1 of its split key, read as a
number, is 8 or 9 modulo 10 (about 20 %); otherwise it is a training reference. The key
is the text lower-cased with every run of characters that are not letters or digits
made one space (the key ``parsing_gold`` itself splits by), so strings that differ only
in case, punctuation or spacing (the same reference in both corpora) fall on the same
side. The split depends on the text alone: it is stable across runs, machines and
row order. ``bench/train_parser.py`` trains on the training side only and
``bench/parsing.py`` measures on the validation side only.
"""

from __future__ import annotations

import hashlib
import re

VALIDATION_BUCKETS = frozenset({8, 9})
"""SHA-1 modulo 10 values of the validation split."""

_NOT_ALNUM = re.compile(r"[\W_]+")


def split_key(text: str) -> str:
    """``text`` lower-cased, every run of non-alphanumeric characters one space."""
    return " ".join(_NOT_ALNUM.sub(" ", text.lower()).split())


def bucket(text: str) -> int:
    """SHA-1 of the split key (UTF-8) modulo 10."""
    digest = hashlib.sha1(split_key(text).encode("utf-8")).hexdigest()
    return int(digest, 16) % 10


def is_validation(text: str) -> bool:
    """True when ``text`` belongs to the validation split."""
    return bucket(text) in VALIDATION_BUCKETS
