"""Free-text citation parsing (kept as the stable import path): see :mod:`verifier.parsing`."""

from .parsing import MAX_PARSE_CHARS, parse_citation

__all__ = ["MAX_PARSE_CHARS", "parse_citation"]
