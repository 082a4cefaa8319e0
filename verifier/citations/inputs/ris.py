"""The ``ris`` format: each RIS record (``TY  -`` ... ``ER  -``) as an item with
structured fields.

Records are found line by line (streamed) and each is read by ``rispy``. A record runs
from its ``TY`` line to its ``ER`` line, or to the next ``TY`` line or the end of the
input when its ``ER`` is missing. Text outside any record is an error in its place. An
item's id is the record's ``ID`` field, else ``L<TY line>-<sha1(record)[:8]>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

import rispy

from verifier.citations.models import Author, Citation, WorkType
from verifier.errors import InputError

from .fields import identifiers, inverted_name, one_line, page_range, tidy_structured, year_from
from .items import Entry, InputItem, citation_id, excerpt, numbered
from .lines import bounded_lines, decode_line, too_long
from .render import render

MAX_RECORD_BYTES = 4 * 1024 * 1024
"""Largest record accepted (abstracts included)."""
_MAX_RIS_LINE = 1024 * 1024

TYPES = {
    **dict.fromkeys(("JOUR", "JFULL", "EJOUR", "MGZN", "NEWS", "INPR"), WorkType.ARTICLE),
    **dict.fromkeys(("BOOK", "EBOOK", "EDBOOK"), WorkType.BOOK),
    **dict.fromkeys(("CHAP", "ECHAP"), WorkType.CHAPTER),
    **dict.fromkeys(("CONF", "CPAPER"), WorkType.PROCEEDINGS),
    "THES": WorkType.THESIS,
    "RPRT": WorkType.REPORT,
    **dict.fromkeys(("ELEC", "WEB", "BLOG"), WorkType.WEB),
}
"""Work types by RIS reference type (``TY``); any other type is OTHER."""

_MAPPING = {**rispy.TAG_KEY_MAPPING, "ED": "editors", "BT": "book_title"}
_LIST_TAGS = [*rispy.LIST_TYPE_TAGS, "ED"]


def read_ris(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``ris`` format (see the module docstring)."""
    return numbered(_entries(stream))


def ris_citation(record: Mapping[str, object]) -> Citation:
    """The citation a record read by ``rispy`` (tag names mapped to rispy's keys)
    describes."""
    def text(*keys: str) -> str:
        for key in keys:
            value = record.get(key)
            if isinstance(value, list):
                value = next((v for v in value if isinstance(v, str) and v.strip()), "")
            if isinstance(value, str) and value.strip():
                return one_line(value)
        return ""

    kind = TYPES.get(text("type_of_reference").upper(), WorkType.OTHER)
    title = text("title", "primary_title")
    if kind is WorkType.BOOK:
        title = title or text("book_title")
        container = ""  # a book's T2 is its series
    else:
        container = text("alternate_title3", "journal_name", "secondary_title", "book_title",
                         "alternate_title2", "alternate_title1")
    urls = [u for u in _strings(record.get("urls")) if u.strip()]
    doi_link = next((u for u in urls if "doi.org/" in u.lower()), "")
    link = next((u for u in urls if "doi.org/" not in u.lower()), "")
    sn = text("issn")
    return tidy_structured(Citation(
        authors=_people(record, "authors", "first_authors"),
        year=year_from(text("year")) or year_from(text("publication_year"))
        or year_from(text("date")),
        title=title,
        container=container,
        volume=text("volume"),
        issue=text("number"),
        pages=page_range(text("start_page"), text("end_page")),
        publisher=text("publisher"),
        editors=_people(record, "editors", "secondary_authors"),
        type=kind,
        identifiers=identifiers(doi=text("doi") or doi_link, isbn=sn, issn=sn, url=link),
        place=text("place_published"),
        edition=text("edition"),
    ))


# -- finding records ----------------------------------------------------------------------


@dataclass(slots=True)
class _Record:
    lineno: int
    lines: list[str] = field(default_factory=list)
    size: int = 0
    problem: InputError | None = None


def _entries(stream: BinaryIO) -> Iterator[Entry | InputError]:
    record: _Record | None = None
    stray: int = 0  # first line of a run of text outside any record
    for lineno, raw in enumerate(bounded_lines(stream, _MAX_RIS_LINE), start=1):
        where = f"line {lineno}"
        line = too_long(where, _MAX_RIS_LINE) if raw is None else decode_line(where, raw)
        tag = line[:6].rstrip() if isinstance(line, str) else ""
        if tag == "TY  -":
            if stray:
                yield _outside(stray, lineno - 1)
                stray = 0
            if record is not None:
                yield _read(record)
            record = _Record(lineno)
        if record is None:
            if isinstance(line, InputError) or line.strip():
                stray = stray or lineno
            elif stray:
                yield _outside(stray, lineno - 1)
                stray = 0
            continue
        if isinstance(line, InputError):
            record.problem = record.problem or InputError(
                f"line {record.lineno}", f"record has an unreadable line: {line}")
        else:
            record.size += len(line)
            if record.size <= MAX_RECORD_BYTES:
                record.lines.append(line.rstrip("\r\n"))
        if tag == "ER  -":
            yield _read(record)
            record = None
    if stray:
        yield _outside(stray, lineno)
    if record is not None:
        yield _read(record)


def _read(record: _Record) -> Entry | InputError:
    where = f"line {record.lineno}"
    source = "\n".join(record.lines)
    if record.problem is not None:
        return InputError(record.problem.item, record.problem.message, excerpt(source))
    if record.size > MAX_RECORD_BYTES:
        return InputError(where, f"record of more than {MAX_RECORD_BYTES:,} bytes",
                          excerpt(source))
    lines = record.lines if record.lines[-1].startswith("ER  -") else [*record.lines, "ER  - "]
    parsed = rispy.RisParser(mapping=_MAPPING, list_tags=_LIST_TAGS).parse_lines(iter(lines))
    if not parsed:
        return InputError(where, "not a RIS record", excerpt(source))
    fields: Mapping[str, object] = parsed[0]
    citation = ris_citation(fields)
    text = render(citation)
    if not text:
        return InputError(where, "record has no field to check", excerpt(source))
    given = fields.get("id")
    item_id = one_line(given) if isinstance(given, str) and given.strip() else \
        citation_id(record.lineno, source)
    return Entry(id=item_id, text=text, where=where, fields=citation)


def _outside(first: int, last: int) -> InputError:
    span = "" if first == last else f" (lines {first}-{last})"
    return InputError(f"line {first}", f"text outside a RIS record{span}; a record starts "
                                       "with 'TY  - ' and ends with 'ER  - '")


def _people(record: Mapping[str, object], *keys: str) -> tuple[Author, ...]:
    names: list[str] = []
    for key in keys:
        names += [n for n in _strings(record.get(key)) if n.strip() and n not in names]
    return tuple(inverted_name(name) for name in names)


def _strings(value: object) -> Sequence[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []
