"""BibTeX field values as plain text: LaTeX accents and escapes decoded, braces gone."""

from __future__ import annotations

import re
from functools import cache

from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexwalker import LatexWalkerError

from verifier.value_memos import value_memo

MAX_BRACE_DEPTH = 50
"""Deeper nesting is refused: the LaTeX decoder recurses once per level."""

_UNESCAPED_PERCENT = re.compile(r"(?<!\\)%")
_ESCAPED_PUNCTUATION = re.compile(r"\\([_%&#$~])")
_URL_MACRO = re.compile(r"\\(?:url|href)\s*")
_SINGLE_QUOTED = re.compile(r"`([^`']*)'")


class LatexError(ValueError):
    """A field value that cannot be read as LaTeX."""


def latex_to_text(value: str) -> str:
    """``value`` (a BibTeX field, LaTeX markup) as one line of plain text: ``{\\"o}`` -> ö,
    ``\\&`` -> &, ``--`` -> –, ``~`` -> space, braces removed. Raises ``LatexError`` for
    markup the decoder cannot read."""
    depth = _brace_depth(value)
    if depth > MAX_BRACE_DEPTH:
        raise LatexError(f"braces nested {depth} deep (limit {MAX_BRACE_DEPTH})")
    if "\\" in value or "$" in value:
        # In BibTeX "%" is text, in LaTeX it starts a comment that would swallow the rest.
        text = _decode(_UNESCAPED_PERCENT.sub(r"\\%", value))
    else:  # nothing to decode (most values): skip the decoder, which is slow
        text = value.replace("{", "").replace("}", "").replace("---", "—").replace("--", "–")
    return " ".join(_quotes(text).replace("~", " ").split())


def _quotes(text: str) -> str:
    """LaTeX quotes as typographic ones: two backticks and two apostrophes around a
    phrase -> “a”, one of each -> ‘a’ (the decoder leaves them as typed)."""
    if "`" not in text and "''" not in text:
        return text
    text = text.replace("``", "\u201c").replace("''", "\u201d")
    return _SINGLE_QUOTED.sub("\u2018\\1\u2019", text)


def unescape(value: str) -> str:
    """A verbatim field (url, doi, eprint): braces removed and ``\\_`` read as ``_``, but
    nothing else decoded ("%" in a link is a percent-escape, not a comment)."""
    value = _URL_MACRO.sub("", value).replace("{", "").replace("}", "")
    return _ESCAPED_PUNCTUATION.sub(r"\1", value).strip()


def _brace_depth(value: str) -> int:
    depth = deepest = 0
    for char in value:
        if char == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "}":
            depth = max(depth - 1, 0)
    return deepest


@value_memo(4096)  # names recur across a bibliography, and decoding is slow
def _decode(latex: str) -> str:
    try:
        text: str = _decoder().latex_to_text(latex)
    except LatexWalkerError as exc:
        raise LatexError(str(exc)) from exc
    return text


@cache
def _decoder() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text")
