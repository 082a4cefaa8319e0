"""The tokens a reference string is labelled by: words, numbers, links and single
punctuation marks, each with its character offsets in the string."""

from __future__ import annotations

import re
from typing import NamedTuple

# A link or DOI is one token; otherwise a run of letters, a run of digits, or one other
# character. "Phys.Rev" -> "Phys" "." "Rev"; "(2004a)." -> "(" "2004" "a" ")" ".";
# "D87" -> "D" "87" (the labelled spans of the gold data part there).
_TOKEN = re.compile(
    r"(?:https?://|www\.)[^\s\"“”<>]+|10\.\d{4,9}/[^\s\"“”<>]+|[^\W\d_]+|\d+|\S",
    re.I,
)


class Token(NamedTuple):
    """One token: its text and ``text[start:end]`` offsets in the reference string.

    A named tuple rather than a frozen dataclass: a reference has dozens of tokens and a
    frozen dataclass is several times slower to create, which showed in the parser's
    speed."""

    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text`` in order; whitespace is never a token and every non-space
    character belongs to exactly one token."""
    # tuple.__new__ builds each Token in C; Token._make, the named tuple's own maker, is
    # a Python function, a frame per token (about a quarter of tokenising a reference).
    new = tuple.__new__
    return [new(Token, (m.group(), m.start(), m.end())) for m in _TOKEN.finditer(text)]
