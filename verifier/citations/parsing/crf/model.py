"""The shipped CRF model: where it lives, loading it once, labelling tokens with it."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from functools import cache
from pathlib import Path

import pycrfsuite

from .features import featurize
from .tokens import Token

MODEL_PATH = Path(__file__).resolve().parent / "model" / "parser.crfsuite"
"""The trained model (written by ``bench/train_parser.py``; package data)."""


@cache
def tagger() -> pycrfsuite.Tagger:
    """The model, opened once per process. Raises ``OSError`` when the file is missing."""
    loaded = pycrfsuite.Tagger()
    loaded.open(str(MODEL_PATH))
    return loaded


# Opened when the parser is imported, not on its first use: the first use is on an event
# loop, where reading a 1.5 MB file would block it (the tests' detector says so). A missing
# file surfaces at the first parse instead, with the path in the error.
with suppress(OSError):
    tagger()


def label(tokens: Sequence[Token], author_end: int = 0) -> list[str]:
    """The label of each token (an empty list for no tokens); ``author_end`` as for
    :func:`~.features.featurize`."""
    if not tokens:
        return []
    return list(tagger().tag(featurize(tokens, author_end)))
