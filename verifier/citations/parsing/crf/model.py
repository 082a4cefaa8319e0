"""The shipped CRF model: where it lives, loading it once, labelling tokens with it."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Protocol

from . import model_file
from .features import featurize
from .tokens import Token

MODEL_PATH = Path(__file__).parent / "model" / "parser.crfsuite"
"""The trained model (written by ``bench/train_parser.py``; package data)."""


class Tagging(Protocol):
    """What labels a reference: ``tag`` as ``pycrfsuite.Tagger.tag``, and ``label`` as
    ``tag(featurize(tokens, author_end))``."""

    def tag(self, xseq: list[list[str]]) -> list[str]: ...

    def label(self, tokens: Sequence[Token], author_end: int = 0) -> list[str]: ...


class LibraryTagger:
    """python-crfsuite's tagger over the model file, for an install without the C
    decoder."""

    def __init__(self, path: Path) -> None:
        import pycrfsuite

        self._tagger = pycrfsuite.Tagger()
        self._tagger.open(str(path))

    def tag(self, xseq: list[list[str]]) -> list[str]:
        return list(self._tagger.tag(xseq))

    def label(self, tokens: Sequence[Token], author_end: int = 0) -> list[str]:
        return self.tag(featurize(tokens, author_end)) if tokens else []


@cache
def tagger() -> Tagging:
    """The model, opened once per process (on first use, if :func:`warm_up` has not
    opened it): its tables with the C decoder (:mod:`.decode`), or, in an install
    without compiled extensions, python-crfsuite's tagger, which labels alike. Raises
    ``OSError`` when the file is missing. The CRF library is imported here, not with the
    parser: a run whose parses all come from the parse store never loads it."""
    try:
        from .decode import TableTagger
    except ImportError:  # no _decode: a pure-Python install
        return LibraryTagger(MODEL_PATH)
    return TableTagger(model_file.read_model(MODEL_PATH))


def is_loaded() -> bool:
    """Whether the model is open in this process."""
    return tagger.cache_info().currsize > 0


def warm_up() -> None:
    """Open the model now: reading the 1.5 MB file blocks, so code on an event loop calls
    this on a worker thread before it parses (the citation checker does, before its first
    parse), not at import (importing the parser must not read it: an import may run on
    a loop too). A missing file surfaces at the first parse instead, with the path in
    the error."""
    with suppress(OSError):
        tagger()


def label(tokens: Sequence[Token], author_end: int = 0) -> list[str]:
    """The label of each token (an empty list for no tokens); ``author_end`` as for
    :func:`~.features.featurize`."""
    return tagger().label(tokens, author_end)
