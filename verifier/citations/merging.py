"""The best record completed from the other agreeing records: what a correction shows.

The best record (the most authoritative agreeing source) is completed field by field from
the other agreeing records (:func:`merge_records`): Crossref may lack pages OpenAlex has,
Open Library the DOI Crossref has. The formatters of :mod:`verifier.citations.corrections`
read the result as a :class:`MergedWork` (:func:`completed_work`), a compiled view that
spares building a merged record; :func:`work_kind` says which kind of work to format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, TypeVar

from .discrepancies import pages_agree, parse_pages
from .models import Author, Citation, Identifiers, WorkRecord, WorkType

# Enum members read through their class cost a descriptor call each (StrEnum, Python
# 3.11); the paths run per citation read these module constants instead.
_UNKNOWN, _OTHER = WorkType.UNKNOWN, WorkType.OTHER
_ARTICLE, _BOOK, _CHAPTER = WorkType.ARTICLE, WorkType.BOOK, WorkType.CHAPTER


def _fuller_pages(pages: str, others: Sequence[str]) -> str:
    """``pages`` or, when it gives only a first page, another record's range that starts
    on that page ("913" -> "913-918")."""
    own = parse_pages(pages)
    if own is None or own.last:
        return pages
    for other in others:
        theirs = parse_pages(other)
        if theirs is not None and theirs.last and pages_agree(theirs.first, own.first):
            return other
    return pages


_GIVEN_FIELDS = ("title", "authors", "container", "volume", "issue", "publisher", "editors")
"""The record fields a merge takes from another record when the record's is empty."""
_GIVEN_IDENTIFIERS = ("doi", "isbn", "issn", "arxiv", "pmid", "pmcid")
"""The identifiers a merge takes from another record when the record lacks them (never
the URL)."""
_get_given_fields = attrgetter(*_GIVEN_FIELDS)
_get_given_identifiers = attrgetter(*_GIVEN_IDENTIFIERS)


def merge_records(record: WorkRecord, others: Sequence[WorkRecord] = ()) -> WorkRecord:
    """``record`` with every field it lacks (empty text, no authors, no year, unknown
    type, missing identifier) taken from the first of ``others`` that has it; a lone
    first page is completed from a range another record gives. Nothing ``record`` gives
    is replaced."""
    changes = _merged_changes(record, others)
    return _replaced(record, changes) if changes else record


def _merged_changes(record: WorkRecord, others: Sequence[WorkRecord]) -> dict[str, Any]:
    """The fields :func:`merge_records` gives ``record`` that differ from its own (only
    those: a copy is made only when something changes)."""
    changes: dict[str, Any] = {}
    if not others:
        return changes
    # The fields read at once (attrgetter) and the others only for the ones missing.
    for name, value in zip(_GIVEN_FIELDS, _get_given_fields(record), strict=True):
        if not value:
            for other in others:
                given = getattr(other, name)
                if given:
                    changes[name] = given
                    break
    if record.year is None:
        for other in others:
            if other.year is not None:
                changes["year"] = other.year
                break
    if record.type is _UNKNOWN:
        for other in others:
            if other.type is not _UNKNOWN:
                changes["type"] = other.type
                break
    pages = record.pages
    if not pages:
        for other in others:
            if other.pages:
                pages = other.pages
                break
    own = parse_pages(pages)
    if own is not None and not own.last:  # only a first page: _fuller_pages may complete it
        pages = _fuller_pages(pages, [o.pages for o in others])
    if pages != record.pages:
        changes["pages"] = pages
    ids = record.identifiers
    found: dict[str, Any] = {}
    for name, value in zip(_GIVEN_IDENTIFIERS, _get_given_identifiers(ids), strict=True):
        if not value:
            for other in others:
                given = getattr(other.identifiers, name)
                if given:
                    found[name] = given
                    break
    if found:
        changes["identifiers"] = _replaced(ids, found)
    return changes


_Value = TypeVar("_Value", WorkRecord, Identifiers)


@dataclass(frozen=True, slots=True)
class _Shape:
    """A value class's fields as :func:`_replaced` reads and sets them."""

    positions: dict[str, int]
    read: attrgetter[Any]


_SHAPES = {
    kind: _Shape({f.name: i for i, f in enumerate(fields(kind))},
                 attrgetter(*(f.name for f in fields(kind))))
    for kind in (WorkRecord, Identifiers)
}


def _replaced(value: _Value, changes: Mapping[str, Any]) -> _Value:
    """``dataclasses.replace(value, **changes)`` without its per-field checks: every
    field of a :class:`WorkRecord` or :class:`Identifiers` is an ``__init__`` argument,
    in field order, so the value's fields with ``changes`` put in their places make the
    same value."""
    shape = _SHAPES[type(value)]
    values = list(shape.read(value))
    for name, given in changes.items():
        values[shape.positions[name]] = given
    return type(value)(*values)


def work_kind(record: WorkRecord, citation: Citation | None = None) -> WorkType:
    """The kind of work to format ``record`` as: the record's type, else the citation's,
    else a guess from the fields (a container with editors: a chapter; with a volume,
    issue or pages: an article; a publisher alone: a book)."""
    return _kind(record.type, citation, record.container, bool(record.editors),
                 record.publisher)


def _kind(given: WorkType, citation: Citation | None, container: str, has_editors: bool,
          publisher: str) -> WorkType:
    """:func:`work_kind`'s rule over the fields it reads."""
    if given is not _UNKNOWN:
        return given
    if citation is not None and citation.type is not _UNKNOWN:
        return citation.type
    if container and has_editors:
        return _CHAPTER
    if container:
        return _ARTICLE
    if publisher:
        return _BOOK
    return _OTHER


class MergedWork:
    """The fields of a record that the APA and BibTeX formatters read, each read once.

    A plain class: compiled, its attributes are read and set without a lookup by name
    (a :class:`WorkRecord`'s cost a generic attribute look-up each, and building one runs
    its ``__init__`` as Python), so a correction reads the records' fields once and
    formats from this."""

    __slots__ = ("title", "authors", "year", "container", "volume", "issue", "pages",
                 "page_range", "publisher", "editors", "type", "doi", "arxiv")

    def __init__(self, record: WorkRecord) -> None:
        self.title: str = record.title
        self.authors: tuple[Author, ...] = record.authors
        self.year: int | None = record.year
        self.container: str = record.container
        self.volume: str = record.volume
        self.issue: str = record.issue
        self.pages: str = record.pages
        self.page_range: tuple[str, str] | None = page_range(self.pages)
        """:func:`page_range` of ``pages`` (set with them: :meth:`set_pages`)."""
        self.publisher: str = record.publisher
        self.editors: tuple[Author, ...] = record.editors
        self.type: WorkType = record.type
        ids = record.identifiers
        self.doi: str | None = ids.doi
        self.arxiv: str | None = ids.arxiv

    def set_pages(self, pages: str) -> None:
        """``pages`` and their range in place of the record's."""
        self.pages = pages
        self.page_range = page_range(pages)

    def kind(self, citation: Citation | None = None) -> WorkType:
        """:func:`work_kind` of the record these fields are."""
        return _kind(self.type, citation, self.container, bool(self.editors),
                     self.publisher)


def completed_work(record: WorkRecord, others: Sequence[WorkRecord]) -> MergedWork:
    """The fields of :func:`merge_records` ``(record, others)`` that the formatters read,
    without building the merged record: each field ``record`` lacks is taken from the
    first of ``others`` that has it, by the same tests (property-tested against
    :func:`merge_records`); the title too, though a correction replaces it."""
    work = MergedWork(record)
    if not others:
        return work
    if not work.title:
        work.title = _first_text([o.title for o in others], work.title)
    if not work.authors:
        work.authors = _first_names([o.authors for o in others], work.authors)
    if not work.container:
        work.container = _first_text([o.container for o in others], work.container)
    if not work.volume:
        work.volume = _first_text([o.volume for o in others], work.volume)
    if not work.issue:
        work.issue = _first_text([o.issue for o in others], work.issue)
    if not work.publisher:
        work.publisher = _first_text([o.publisher for o in others], work.publisher)
    if not work.editors:
        work.editors = _first_names([o.editors for o in others], work.editors)
    if work.year is None:
        for other in others:
            if other.year is not None:
                work.year = other.year
                break
    if work.type is _UNKNOWN:
        for other in others:
            if other.type is not _UNKNOWN:
                work.type = other.type
                break
    if not work.pages:
        work.set_pages(_first_text([o.pages for o in others], work.pages))
    own = work.page_range
    if own is not None and not own[1]:  # only a first page: _fuller_pages may complete it
        pages = _fuller_pages(work.pages, [o.pages for o in others])
        if pages != work.pages:
            work.set_pages(pages)
    if not work.doi:
        work.doi = _first_identifier([o.identifiers.doi for o in others], work.doi)
    if not work.arxiv:
        work.arxiv = _first_identifier([o.identifiers.arxiv for o in others], work.arxiv)
    return work


def page_range(pages: str) -> tuple[str, str] | None:
    """:func:`parse_pages` ``(pages)`` as (first, last): ("45", "67") for "45-67" or
    "45-7", ("e24295", "") for "e24295", None for no page.

    The forms records give nearly always ("45-67", "45", "e24295": ASCII digits, one
    hyphen, an article number's "e") are read here without parse_pages's patterns and
    its memo (property-tested against parse_pages). Such a text has no markup, label,
    space, dot or other dash, and a last page that is all digits is written out in full
    by the first page's leading digits, as _full_last_page does; a last page equal to the
    first is no last page. Any other text is left to parse_pages."""
    if not pages:
        return None
    if pages.isascii():
        first, dash, last = pages.partition("-")
        if dash:
            if first.isdigit() and last.isdigit():
                if len(last) < len(first):
                    last = first[: len(first) - len(last)] + last
                return first, "" if last == first else last
        elif pages.isdigit() or (pages[:1] in _ARTICLE_NUMBER_LETTERS
                                 and pages[1:].isdigit()):
            return pages, ""
    parsed = parse_pages(pages)
    return None if parsed is None else (parsed.first, parsed.last)


_ARTICLE_NUMBER_LETTERS = ("e", "E")


def _first_text(texts: list[str], own: str) -> str:
    """The first non-empty text of ``texts``, else ``own``."""
    for text in texts:
        if text:
            return text
    return own


def _first_names(lists: list[tuple[Author, ...]], own: tuple[Author, ...]
                 ) -> tuple[Author, ...]:
    """The first non-empty list of names of ``lists``, else ``own``."""
    for names in lists:
        if names:
            return names
    return own


def _first_identifier(values: list[str | None], own: str | None) -> str | None:
    """The first given (non-empty) identifier of ``values``, else ``own``."""
    for value in values:
        if value:
            return value
    return own
