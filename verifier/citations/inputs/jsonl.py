"""The ``jsonl`` format: one JSON object per line (streamed).

An object is read as, in this order:

* a text item, from its ``text``, ``citation``, ``citation_text`` or ``reference`` key;
* a BibTeX entry, from a ``fields`` object of BibTeX fields and a ``bibtex_type``,
  ``ENTRYTYPE`` or ``type`` (as HALLMARK-style benchmark files give them);
* plain fields, as people write them: ``authors`` (a list of names, or one string of
  names separated by ``;`` or ``and``), ``year``, ``journal`` / ``container`` /
  ``venue``, ``doi``, ``pages`` and the like (:data:`PLAIN_FIELDS`), read as the
  BibTeX fields they name (``author`` too, as a string of names), when the object has
  one of :data:`PLAIN_MARKERS` and no CSL ``author`` list, ``issued`` or
  ``container-title``; without one, an ``author`` string is a CSL item's error;
* a CSL item (any of ``title``, ``author``, ``DOI``, ``container-title`` ...).

Every other key is ignored (labels in a benchmark file are never read). A line that is
not a JSON object is an error naming the line. An item's id is its ``id`` (or, for a
BibTeX entry, ``bibtex_key`` / ``ID``), else ``L<line>-<sha1(text)[:8]>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import BinaryIO

import orjson

from verifier.errors import InputError

from .bibtex import ENTRY_TYPES, bibtex_citation
from .csl import CSL_KEYS, csl_entry, given_id
from .items import Entry, InputItem, citation_id, excerpt, item_error, numbered
from .latex import LatexError
from .lines import bounded_lines, too_long
from .render import render

TEXT_KEYS = ("text", "citation", "citation_text", "reference")
"""Keys that hold a citation as text, in order of preference."""

MAX_JSON_LINE_BYTES = 1024 * 1024
"""Longest line accepted (a CSL item may carry an abstract)."""


def read_jsonl(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``jsonl`` format (see the module docstring)."""
    return numbered(_entries(stream))


def object_entry(value: Mapping[str, object], lineno: int) -> Entry | InputError:
    """One JSON object found at line ``lineno`` as an entry (see the module docstring)."""
    where = f"line {lineno}"
    for key in TEXT_KEYS:
        if key in value:
            text = value[key]
            if not isinstance(text, str):
                return item_error(given_id(value, "id"), where, f"{key!r} is not a string",
                                  excerpt(_dump(value)))
            text = text.strip()
            return Entry(given_id(value, "id") or citation_id(lineno, text), text, where)
    fields = value.get("fields")
    kind = next((value[k] for k in ("bibtex_type", "ENTRYTYPE", "type") if k in value), None)
    if isinstance(fields, dict) and isinstance(kind, str):
        return _bibtex_entry(value, kind, fields, lineno)
    if _is_plain(value):
        return _plain_entry(value, lineno)
    if CSL_KEYS & value.keys():
        return csl_entry(value, where, citation_id(lineno, _dump(value)))
    return item_error(given_id(value, "id"), where, "no citation: expected a "
                      f"{', '.join(TEXT_KEYS)} key, BibTeX fields or CSL-JSON fields",
                      excerpt(_dump(value)))


def _entries(stream: BinaryIO) -> Iterator[Entry | InputError]:
    for lineno, raw in enumerate(bounded_lines(stream, MAX_JSON_LINE_BYTES), start=1):
        where = f"line {lineno}"
        if raw is None:
            yield too_long(where, MAX_JSON_LINE_BYTES)
            continue
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            yield InputError(where, f"not valid JSON: {exc.msg}, column {exc.colno}",
                             excerpt(raw.decode("utf-8", "replace")))
            continue
        if isinstance(value, dict):
            yield object_entry(value, lineno)
        else:
            yield InputError(where, "not a JSON object", excerpt(raw.decode("utf-8", "replace")))


def _bibtex_entry(value: Mapping[str, object], kind: str, fields: Mapping[str, object],
                  lineno: int) -> Entry | InputError:
    where = f"line {lineno}"
    item_id = given_id(value, "id") or given_id(value, "bibtex_key") or given_id(value, "ID")
    strings: dict[str, str] = {}
    for name, field in fields.items():
        if field is None:  # null: not given
            continue
        if isinstance(field, int) and not isinstance(field, bool):
            field = str(field)  # "year": 2019 is a number, as BibTeX's bare years are
        if not isinstance(field, str):
            return InputError(item_id or where, f"BibTeX field {name!r} is {_kind(field)}, "
                              "expected text or a number", excerpt(_dump(value)), field=name)
        strings[name] = field
    try:
        citation = bibtex_citation(kind, strings)
    except LatexError as exc:
        return InputError(where, f"BibTeX fields: {exc}", excerpt(_dump(value)))
    text = render(citation)
    return Entry(item_id or citation_id(lineno, text), text, where, citation,
                 key=given_id(value, "bibtex_key") or given_id(value, "ID"))


PLAIN_FIELDS: Mapping[str, str] = {
    # A plain key of a JSON line -> the BibTeX field it is read as.
    "title": "title", "author": "author", "authors": "author", "editor": "editor",
    "editors": "editor", "year": "year", "journal": "journal", "container": "journal",
    "venue": "journal", "booktitle": "booktitle", "volume": "volume", "issue": "number",
    "number": "number", "pages": "pages", "page": "pages", "publisher": "publisher",
    "doi": "doi", "isbn": "isbn", "issn": "issn", "url": "url", "arxiv": "eprint",
    "pmid": "pmid",
}
PLAIN_MARKERS = frozenset({"authors", "editors", "year", "journal", "container", "venue",
                           "doi"})
"""Keys no CSL item has (CSL writes ``author``, ``issued``, ``container-title``,
``DOI``): one of them makes an object plain fields."""


def _is_plain(value: Mapping[str, object]) -> bool:
    if isinstance(value.get("author"), list) or "issued" in value or \
            "container-title" in value:
        return False  # CSL
    return bool(PLAIN_MARKERS & value.keys())


def _plain_entry(value: Mapping[str, object], lineno: int) -> Entry | InputError:
    """Plain fields (:data:`PLAIN_FIELDS`) read as the BibTeX entry they describe."""
    fields: dict[str, str] = {}
    for key, name in PLAIN_FIELDS.items():
        given = value.get(key)
        if given is None or name in fields:
            continue
        text = _plain_text(given, people=name in ("author", "editor"))
        if text is None:
            return item_error(given_id(value, "id"), f"line {lineno}",
                              f"field {key!r} is {_kind(given)}, expected text"
                              + (" or a list of names" if name in ("author", "editor")
                                 else " or a number"),
                              excerpt(_dump(value)))
        fields[name] = text
    kind = value.get("type")
    if not (isinstance(kind, str) and kind.lower() in ENTRY_TYPES):
        kind = "article" if "journal" in fields else \
            "book" if "publisher" in fields or "isbn" in fields else "misc"
    return _bibtex_entry(value, kind, fields, lineno)


def _plain_text(value: object, *, people: bool) -> str | None:
    """A plain field's value as BibTeX text (names joined by " and "), None if it has no
    reading."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return None if people else str(value)
    if isinstance(value, str):
        return " and ".join(n.strip() for n in value.split(";") if n.strip()) if people \
            else value
    if people and isinstance(value, list):
        names = []
        for name in value:
            if isinstance(name, str):
                names.append(name.strip())
            elif isinstance(name, dict) and isinstance(name.get("family"), str):
                given = name.get("given")
                names.append(f"{name['family']}, {given}" if isinstance(given, str) and given
                             else name["family"])
            else:
                return None
        return " and ".join(n for n in names if n)
    return None


def _kind(value: object) -> str:
    return {list: "an array", dict: "an object", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def _dump(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
