"""What a reader yields: items numbered in input order, each checked the same way.

A format's reader finds :class:`Entry` values (or :class:`~verifier.errors.InputError`
values for what it cannot read) and hands them to :func:`numbered`, which checks each
entry's text, refuses a repeated id and gives every element, item or error, the next
index.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

from verifier.citations.invisibles import INVISIBLE, without_invisibles
from verifier.citations.models import Author, Citation, CitationInput
from verifier.errors import InputError

MAX_LINE_CHARS = 5000
"""Longest citation text accepted. Longer texts are input errors, not citations."""

_SURROGATE = re.compile("[\ud800-\udfff]")

InputItem = CitationInput | InputError
Reader = Callable[[BinaryIO], Iterator[InputItem]]
"""A format: a binary stream in, the items (and errors in their place) out, in order."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One citation a reader found, before it is checked and numbered."""

    id: str
    text: str
    where: str
    """Where the entry is ("line 12", "row 3"): names it when its id cannot."""
    fields: Citation | None = None
    notices: tuple[str, ...] = ()
    """Doubts about the entry that did not stop it (see ``CitationInput.notices``)."""
    key: str = ""
    """The citation key the input gave (see ``CitationInput.key``)."""


def citation_id(lineno: int, text: str) -> str:
    """The id of a text found at line ``lineno``: ``L<line>-<first 8 hex of sha1(text)>``,
    stable across runs (``--resume`` relies on it) and unique within the input."""
    return derived_id("L", lineno, text)


def derived_id(prefix: str, number: int, text: str) -> str:
    """An id for an item that has none: ``<prefix><number>-<first 8 hex of sha1(text)>``."""
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False)
    return f"{prefix}{number}-{digest.hexdigest()[:8]}"


def check_text(where: str, text: str) -> InputError | None:
    """Why ``text`` cannot be checked as a citation, as an error naming ``where``; None
    when it can."""
    if not text:
        return InputError(where, "nothing to check (no text)")
    if len(text) > MAX_LINE_CHARS:
        return InputError(
            where, f"{len(text):,} characters long (limit {MAX_LINE_CHARS:,})", excerpt(text)
        )
    if is_control_only(text):
        return InputError(where, f"only control characters: {text[:40]!r}", excerpt(text))
    if has_undecodable(text):
        return InputError(where, "not valid UTF-8", excerpt(text))
    return None


def numbered(
    found: Iterable[Entry | InputError], *, unique_ids: bool = True
) -> Iterator[InputItem]:
    """``found`` as items: each entry checked (:func:`check_text`), each element given the
    next index. With ``unique_ids``, an entry whose id an earlier entry took is an error
    (ids name output lines and ``--resume`` skips by id)."""
    seen: set[str] = set()
    for index, element in enumerate(found):
        if isinstance(element, InputError):
            yield writable(element)
            continue
        problem = check_text(element.where, element.text)
        if problem is None and has_undecodable(element.id):
            problem = InputError(element.where, "id is not valid UTF-8", excerpt(element.text))
        if problem is None and unique_ids:
            if element.id in seen:
                problem = InputError(
                    element.where, f"id {element.id!r} is already used by an earlier item",
                    excerpt(element.text))
            seen.add(element.id)
        yield problem or CitationInput(element.id, index, element.text,
                                       visible_fields(element.fields), element.notices,
                                       element.key)


_TEXT_FIELDS = ("title", "container", "volume", "issue", "pages", "publisher", "place",
                "edition")
"""The string fields of a :class:`Citation` (its authors and editors are read apart)."""


def visible_fields(fields: Citation | None) -> Citation | None:
    """A structured entry's fields without the characters that show nothing
    (:mod:`verifier.citations.invisibles`), which a free text loses when it is parsed: a
    BibTeX title holding a zero-width space inside a word would otherwise be searched
    for and compared split there. ``fields`` itself when none holds one."""
    if fields is None:
        return None
    people = (*fields.authors, *fields.editors)
    if not any(INVISIBLE.search(getattr(fields, name)) for name in _TEXT_FIELDS) and \
            not any(INVISIBLE.search(p.family + p.given + p.literal) for p in people):
        return fields

    def visible(authors: tuple[Author, ...]) -> tuple[Author, ...]:
        return tuple(Author(without_invisibles(a.family), without_invisibles(a.given),
                            without_invisibles(a.literal)) for a in authors)

    changed: dict[str, Any] = {name: without_invisibles(getattr(fields, name))
                               for name in _TEXT_FIELDS}
    return replace(fields, authors=visible(fields.authors), editors=visible(fields.editors),
                   **changed)


def writable(error: InputError) -> InputError:
    """``error`` with any byte that was not UTF-8 in its item name, message or text shown
    as U+FFFD (a BibTeX key or a parser's message may quote such bytes), so that it can
    always be written out; ``error`` itself when it can be already."""
    if not (has_undecodable(error.item) or has_undecodable(error.message)
            or has_undecodable(error.text)):
        return error
    def clean(text: str) -> str:
        return _SURROGATE.sub("\ufffd", text)

    return InputError(clean(error.item), clean(error.message), clean(error.text),
                      field=clean(error.field))


def is_control_only(text: str) -> bool:
    """True when ``text`` has nothing but control, format and space characters."""
    return all(unicodedata.category(ch) in ("Cc", "Cf") or ch.isspace() for ch in text)


def has_undecodable(text: str) -> bool:
    """True when ``text`` holds bytes that were not UTF-8 (kept by "surrogateescape") or
    another lone surrogate: text that cannot be written out as UTF-8."""
    return _SURROGATE.search(text) is not None


def item_error(given_id: str, where: str, message: str, text: str = "",
               field: str = "") -> InputError:
    """An unreadable item's error, named by the id the item gives (the id its output
    line carries, and ``--resume`` skips by), the message then saying where it is; an
    item giving no id is named by where it is."""
    if not given_id:
        return InputError(where, message, text, field=field)
    return InputError(given_id, f"{message} on {where}", text, field=field)


def excerpt(text: str, limit: int = 200) -> str:
    """The start of ``text`` as an error shows it: undecodable bytes as U+FFFD, so that it
    can always be written out."""
    return _SURROGATE.sub("\ufffd", text[:limit]).strip()
