"""What follows a delimited title (quoted, or cut at a sentence end): a journal with its
numeric tail, "In" and a book, or an imprint; and the quoted titles themselves."""

from __future__ import annotations

import re

from .imprint import (
    apply_imprint,
    is_translation_note,
    publisher_word,
    read_part_of,
    strong_imprint,
    take_paren_imprint,
    take_year,
)
from .parsed import Parsed
from .tail import apply_tail, peel_tail
from .text import (
    OPEN_QUOTES,
    YEAR_TOKEN,
    ascii_folded,
    folded_search,
)

_IN_BOOK = re.compile(
    r"^(?:(?:to\s+appear|forthcoming|accepted)\s+in|in|In|IN)\s?:?\s+(?P<inner>.+)$"
)
_PRESENTED_AT = re.compile(r"^(?:Paper|Poster|Talk)\s+(?:presented|given)\s+at\b", re.I)
_LEADING_NAME = re.compile(r"^(?P<name>[^,.;:(]{2,80}?)(?=\s*(?:[,.;(]|$)|\s\d)")
_NEW_PART = re.compile(r"^(?:$|\s*[.,:;]|[?!]?\s+(?:[^\sa-z]|in\s|pp?\.|vol\.|\d))")


def read_source(text: str, known_year: int | None = None, *, after_quote: bool = False) -> Parsed:
    """The text after a title that was delimited (quoted, or cut at a sentence end): a
    journal with its numeric tail, "In" and a book, or an imprint. After a quoted title
    (the title of a part, in MLA and Chicago) a leading name is the container."""
    text = text.strip(" .,;:")
    in_match = _IN_BOOK.match(text)
    if in_match:
        return read_part_of(in_match.group("inner"))
    tail = peel_tail(text, known_year)
    if tail.journal:
        parsed = Parsed(journal=True)
        parsed.container = tail.pre.strip(" ,;:")
        apply_tail(parsed, tail)
        return parsed
    if _PROCEEDINGS_START.match(text):
        return read_part_of(text)
    if _PRESENTED_AT.match(text):
        parsed = read_part_of(text)
        parsed.container = text if not parsed.container else parsed.container
        return parsed
    parsed = Parsed()
    rest = take_paren_imprint(text, parsed)
    if (
        ":" not in rest
        and folded_search(_JOURNAL_NAME, _JOURNAL_NAME_FOLDED, rest)
        and not publisher_word(rest)
    ):
        parsed.container = take_year(rest, parsed)
        return parsed
    venue = _venue_first(rest) if after_quote else None
    if venue is not None:
        parsed.container = venue[0]
        rest = venue[1]
    apply_imprint(rest, parsed)
    return parsed


def _venue_first(text: str) -> tuple[str, str] | None:
    """(container, rest) for the text after a quoted title when it starts with a name
    that is not an imprint: "Observer, 3 December 2006" / "Newsweek 27 May 2002"; None
    for "Penguin Classics, 2003" or "London: Routledge"."""
    match = _LEADING_NAME.match(text)
    if match is None:
        return None
    name = match.group("name").strip()
    if strong_imprint(name) or is_translation_note(name) or not name[:1].isupper():
        return None
    if text[match.end() :].lstrip().startswith(":") or YEAR_TOKEN.fullmatch(name):
        return None
    return name, text[match.end() :]


_PROCEEDINGS_START = re.compile(
    r"^(?:Proc(?:eedings)?\b|(?:[\w'’&/.-]+\s+){0,6}"
    r"(?:Conference|Symposium|Workshop|Congress|Meeting|Colloquium)\b)"
)
_JOURNAL_NAME = re.compile(
    r"\b(?:journal|review|quarterly|bulletin|annals|letters|transactions|magazine|gazette|"
    r"acta|archives|revue|zeitschrift|rivista|revista|plos|lancet|jama|bmj|nature|science|"
    r"newspaper|times|post|daily|weekly|monthly|news)\b|\bJ\.|^[A-Z]{2,6}$",
    re.I,
)
_JOURNAL_NAME_FOLDED = ascii_folded(_JOURNAL_NAME)


def leading_quoted(rest: str) -> tuple[str, str] | None:
    """(title, remainder) when ``rest`` starts with a quoted title that is the whole title:
    the closing quote is followed by the end or a new part. "“Going home” or ..." is a
    title that starts with a quotation, not a quoted title."""
    if not rest or rest[0] not in OPEN_QUOTES:
        return None
    closers = OPEN_QUOTES[rest[0]]
    close = _closing_quote(rest, closers)
    if close <= 1:
        return None
    after = rest[close + 1 :]
    # The quote closes the title when a comma or period precedes it ("structures,"Phys.",
    # "chip , "Nucl.") or follows it, or a new part starts after it.
    closed = rest[close - 1] in ",." or rest[close - 2 : close] in (", ", ". ")
    if not closed and not _NEW_PART.match(after):
        return None
    return rest[1:close], after.strip(" .,;:")


def _closing_quote(text: str, closers: str) -> int:
    """Index of the quote that closes the one at 0; for a single quote, one that is not an
    apostrophe (not between two letters)."""
    for index in range(1, len(text)):
        if text[index] not in closers:
            continue
        before, after = text[index - 1], text[index + 1 : index + 2]
        if text[0] in "'‘" and before.isalpha() and after.isalpha():
            continue
        return index
    return -1


def find_quoted_title(text: str) -> tuple[int, int, str] | None:
    """(start, end, title) of the first double-quoted string that holds a letter."""
    for index, char in enumerate(text):
        if char not in '"“„«”' or (char == "”" and index > 0):
            continue
        if index > 0 and text[index - 1].isalnum():
            continue
        close = _closing_quote(text[index:], OPEN_QUOTES[char])
        if close < 0:
            return None
        title = text[index + 1 : index + close].strip()
        if any(c.isalpha() for c in title):
            return index, index + close + 1, title
        return None
    return None
