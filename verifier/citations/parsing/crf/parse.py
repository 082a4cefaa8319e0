"""One reference string in, one citation out, by the trained model."""

from __future__ import annotations

from verifier.citations.identifiers import find_identifiers
from verifier.citations.models import Citation

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
    return build(prepared, tokens, label(tokens), find_identifiers(prepared))
