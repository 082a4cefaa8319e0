"""One reference string in, one citation out, by the trained model."""

from __future__ import annotations

import re

from verifier.citations.identifiers import find_identifiers
from verifier.citations.models import Citation

from ..names import scan_authors
from ..text import prepare
from .assemble import build
from .model import label
from .tokens import tokenize


def parse_trained(text: str) -> Citation:
    """Parse ``text`` with the CRF: clean it as the rule parser does (:func:`~..text.
    prepare`), label its tokens, and assemble the labelled runs; identifiers are read by
    rules. Never raises on text (raises ``OSError`` only when the model file is
    missing)."""
    prepared = prepare(text)
    tokens = tokenize(prepared)
    labels = label(tokens, author_end(prepared))
    return build(prepared, tokens, labels, find_identifiers(prepared))


_LIST_NUMBER = re.compile(r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|\d{1,3}[.)]?)\s+")


def author_end(text: str) -> int:
    """Where the rule parser's author list at the start of ``text`` (after a list number
    such as "[12]" or "33") ends; 0 when there is none."""
    number = _LIST_NUMBER.match(text)
    scan = scan_authors(text, number.end() if number else 0)
    return 0 if scan is None else scan.end
