"""Characters that show nothing: one definition for every place that reads text.

Text copied from a PDF or a web page often carries characters a reader cannot see: a
zero-width space inside a word ("De\u200bep"), a byte-order mark or word joiner between
words, a left-to-right mark, a stray control byte. They split words the parser and the
title comparison should read whole, so a real reference would look like no known work.
:data:`INVISIBLE` matches them; they are removed, never read as spaces (a zero-width
space shows no space). The joiners that change how a script is drawn (U+200C, U+200D)
and the controls that are whitespace (tab, line feed, the information separators) are
not among them.
"""

from __future__ import annotations

import re

INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f"  # ASCII control characters that are not whitespace
    "\u00ad"  # soft hyphen
    "\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
"""One character that shows nothing (see the module docstring)."""


def without_invisibles(text: str) -> str:
    """``text`` without the characters :data:`INVISIBLE` matches."""
    return INVISIBLE.sub("", text)
