"""The ``csl-json`` format: a JSON array of CSL items, as Zotero, Mendeley, pandoc and
citeproc write them, each as an item with structured fields.

The document is read whole (up to :data:`~.lines.MAX_WHOLE_BYTES`). An item that is not
a JSON object is an error in its place; a document that is not JSON is one error. An
item's id is its ``id``, else ``I<position>-<sha1(item)[:8]>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import BinaryIO

import orjson

from verifier.citations.matching import looks_like_a_person
from verifier.citations.models import Author, Citation, WorkType
from verifier.citations.normalize import strip_markup
from verifier.errors import InputError

from .fields import clean_pages, identifiers, one_line, tidy_structured, year_from
from .items import Entry, InputItem, derived_id, excerpt, item_error, numbered
from .lines import read_whole
from .render import render

TYPES = {
    **dict.fromkeys(("article-journal", "article-magazine", "article-newspaper", "review",
                     "review-book"), WorkType.ARTICLE),
    "article": WorkType.PREPRINT,  # CSL's "article" is a preprint or working paper
    **dict.fromkeys(("book", "classic"), WorkType.BOOK),
    **dict.fromkeys(("chapter", "entry", "entry-dictionary", "entry-encyclopedia"),
                    WorkType.CHAPTER),
    "paper-conference": WorkType.PROCEEDINGS,
    "thesis": WorkType.THESIS,
    "report": WorkType.REPORT,
    **dict.fromkeys(("webpage", "post", "post-weblog"), WorkType.WEB),
}
"""Work types by CSL type; any other type is OTHER, a missing one UNKNOWN."""

CSL_KEYS = frozenset(("title", "author", "editor", "container-title", "issued", "DOI", "ISBN",
                      "URL", "type"))
"""Keys that make a JSON object a CSL item."""


def read_csl_json(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``csl-json`` format (see the module docstring)."""
    return numbered(_entries(read_whole(stream, "CSL-JSON")))


_TEXT = (str,)
_NUMBER = (str, int)
_FIELD_TYPES: dict[str, tuple[tuple[type, ...], bool, str]] = {
    **dict.fromkeys(("title", "publisher", "publisher-place", "DOI", "URL", "type",
                     "archive"), (_TEXT, False, "text")),
    **dict.fromkeys(("container-title", "ISBN", "ISSN"), (_TEXT, True, "text or a list of "
                                                                       "texts")),
    **dict.fromkeys(("volume", "issue", "page", "edition", "number", "PMID", "PMCID", "year"),
                    (_NUMBER, False, "text or a number")),
    **dict.fromkeys(("author", "editor"), ((list,), False, "a list of name objects")),
    "issued": ((dict, str, int), False, "a date object"),
}
"""The type each field the reader uses must have: the types allowed, whether a list of
them is allowed too, and the expectation in words. ``null`` is "not given" anywhere."""

_NAME_PARTS = ("family", "given", "literal", "non-dropping-particle", "dropping-particle",
               "suffix")


def csl_entry(item: Mapping[str, object], where: str, fallback_id: str) -> Entry | InputError:
    """One CSL item as an entry named ``where``; its id is the item's ``id`` if it has one,
    else ``fallback_id``. A field of the wrong type (``"title": 42``, ``"author":
    "Smith"``) is an error naming the item (its ``id``, else ``where``) and the field."""
    wrong = wrong_field(item)
    if wrong is not None:
        field, problem = wrong
        return item_error(given_id(item, "id"), where, f"field {field!r} {problem}",
                          excerpt(_dump(item)), field=field)
    citation = csl_citation(item)
    text = render(citation)
    if not text:
        return item_error(given_id(item, "id"), where, "CSL item with no field to check",
                          excerpt(_dump(item)))
    return Entry(given_id(item, "id") or fallback_id, text, where, citation,
                 key=given_id(item, "id"))


def wrong_field(item: Mapping[str, object]) -> tuple[str, str] | None:
    """The first field of ``item`` whose value has a type CSL does not allow there (see
    :data:`_FIELD_TYPES`), with what is wrong in words; None when every field is fine."""
    for field, (types, listed, expected) in _FIELD_TYPES.items():
        value = item.get(field)
        if value is None:
            continue
        if not _of_type(value, types, listed=listed):
            return field, f"is {_kind(value)}, expected {expected}"
        if field in ("author", "editor"):
            problem = _wrong_person(value)
            if problem:
                return field, problem
        if field == "issued" and isinstance(value, dict):
            parts = value.get("date-parts")
            if parts is not None and not (isinstance(parts, list) and all(
                    isinstance(p, list) for p in parts)):
                return field, "has 'date-parts' that is not a list of lists"
    return None


def _of_type(value: object, types: tuple[type, ...], *, listed: bool) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, types):
        return True
    return listed and isinstance(value, list) and all(
        isinstance(v, types) and not isinstance(v, bool) for v in value)


def _wrong_person(people: object) -> str:
    for position, person in enumerate(people if isinstance(people, list) else [], start=1):
        if not isinstance(person, dict):
            return f"has {_kind(person)} as name {position}, expected a name object"
        for part in _NAME_PARTS:
            value = person.get(part)
            if value is not None and not isinstance(value, str):
                return f"has {_kind(value)} as {part!r} of name {position}, expected text"
    return ""


def csl_citation(item: Mapping[str, object]) -> Citation:
    """The citation a CSL item describes (unknown keys and odd value types ignored)."""
    def text(*keys: str) -> str:
        for key in keys:
            value = item.get(key)
            if isinstance(value, list):  # some exporters give container-title as a list
                value = next((v for v in value if isinstance(v, str | int)), None)
            if isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            if isinstance(value, str) and value.strip():
                return one_line(strip_markup(value))
        return ""

    kind = text("type")
    archive = text("archive", "publisher").lower()
    return tidy_structured(Citation(
        authors=_people(item.get("author")),
        year=_year(item.get("issued")) or year_from(text("year")),
        title=text("title"),
        container=text("container-title"),
        volume=text("volume"),
        issue=text("issue"),
        pages=clean_pages(text("page")),
        publisher=text("publisher"),
        editors=_people(item.get("editor")),
        type=TYPES.get(kind, WorkType.OTHER) if kind else WorkType.UNKNOWN,
        identifiers=identifiers(
            doi=text("DOI"), isbn=text("ISBN"), issn=text("ISSN"), url=text("URL"),
            arxiv=text("number") if archive == "arxiv" else "",
            pmid=text("PMID"), pmcid=text("PMCID")),
        place=text("publisher-place"),
        edition=text("edition"),
    ))


def given_id(item: Mapping[str, object], key: str) -> str:
    """The id an object gives under ``key`` (a string or a whole number), or ""."""
    value = item.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return one_line(value) if isinstance(value, str) else ""


def _entries(data: bytes) -> Iterator[Entry | InputError]:
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        hint = " (one JSON object per line is --format jsonl)" \
            if "after document" in exc.msg and exc.colno == 1 else ""
        yield InputError(f"line {exc.lineno}", f"not valid JSON: {exc.msg}, column "
                                              f"{exc.colno}{hint}")
        return
    items = document if isinstance(document, list) else [document]
    for position, item in enumerate(items, start=1):
        where = f"item {position}"
        if isinstance(item, dict):
            yield csl_entry(item, where, derived_id("I", position, _dump(item)))
        else:
            yield InputError(where, f"not a CSL item (a JSON object) but {_kind(item)}",
                             excerpt(_dump(item)))


def _literal_name(literal: str) -> Author:
    """A CSL ``literal`` name: kept whole (an organisation, as the specification means
    it), unless it is a person written inverted in the one field, "LeCun, Y." (what a
    reference manager's single-field name gives): then a family and a given name, as the
    sources hold them. "World Health Organization", "Department of Health, UK" and
    "UNESCO, Paris" stay whole (an acronym, or what
    :func:`~verifier.citations.matching.looks_like_a_person` does not take for a person)."""
    family, comma, given = literal.partition(",")
    family, given = family.strip(), given.strip()
    if comma and "," not in given and family and given and not family.isupper() and \
            looks_like_a_person(f"{given} {family}"):
        return Author(family=family, given=given)
    return Author(literal=literal)


def _people(value: object) -> tuple[Author, ...]:
    people: list[Author] = []
    for person in value if isinstance(value, list) else []:
        if not isinstance(person, dict):
            continue
        part = {k: one_line(v) for k, v in person.items() if isinstance(v, str)}
        if part.get("literal"):
            people.append(_literal_name(part["literal"]))
            continue
        family = " ".join(p for p in (part.get("non-dropping-particle", ""),
                                      part.get("family", "")) if p)
        given = " ".join(p for p in (part.get("given", ""),
                                     part.get("dropping-particle", "")) if p)
        if family or given:
            people.append(Author(family=family or given, given=given if family else ""))
    return tuple(people)


def _year(issued: object) -> int | None:
    """The year of a CSL date: {"date-parts": [[2019, 3]]}, {"raw": "2019-03"},
    {"literal": "Spring 2019"} or, off the standard, a bare string or number."""
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return year_from(parts[0][0])
        return year_from(issued.get("raw")) or year_from(issued.get("literal"))
    return year_from(issued)


def _kind(value: object) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            dict: "an object"}.get(type(value), "a number")


def _dump(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
