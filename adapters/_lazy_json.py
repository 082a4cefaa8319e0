"""A JSON answer's works read lazily: what a candidate needs now, the rest when asked.

A search answer holds several works and the matching builds the records of few of them
(most are refused on their titles: in the throughput bench's distinct pass, a quarter of
Crossref's works). Decoding a whole body with ``orjson.loads`` makes every work's
objects, and freeing them costs half as much again: 29.5 µs of CPU for one of the
bench's Crossref search answers (five works, 3.2 KB), of which little serves the titles.
msgspec decodes declared fields only and passes over the rest without making objects,
so :func:`crossref_works` reads each work's DOI, title and subtitle and keeps the work
itself as :class:`msgspec.Raw` (its bytes within the body, not a copy): 9.1 µs for the
same answers. A work's record is built from :func:`work_item`, which decodes those bytes
as ``orjson.loads`` decodes them, when the matching asks for the record.

Only a well-formed answer is read here: for any other :func:`crossref_works` returns None
and the adapter reads the body whole, as it always has, raising the error it always has.
The one body both read differently is one holding a number JSON allows and a double
cannot (such as ``1e400``) in a field no candidate reads: ``orjson`` refuses the whole
body, msgspec passes over the number. :func:`work_item` then decodes that work with the
number as infinity and says so, so that no memo keeps the record (its key, the item's
``orjson`` text, would write infinity as ``null``).

Not compiled (``native-modules.txt``): the structures subclass msgspec's ``Struct``, an
interpreted library's class, which mypyc does not compile.
"""

from __future__ import annotations

from typing import Any

import msgspec
import orjson

__all__ = ["CrossrefHead", "crossref_works", "work_item"]


class CrossrefHead(msgspec.Struct):
    """The fields of one Crossref work a candidate reads (any JSON type, as decoded)."""

    DOI: Any = None
    title: Any = None
    subtitle: Any = None


class _CrossrefWorkList(msgspec.Struct):
    items: list[msgspec.Raw] | None = None


class _CrossrefSearchAnswer(msgspec.Struct):
    """A ``work-list`` answer, read in one pass: its works as their bytes."""

    status: Any = None
    message_type: Any = msgspec.field(default=None, name="message-type")
    message: _CrossrefWorkList | None = None


class _CrossrefAnswer(msgspec.Struct):
    """Any answer, its message as its bytes (for a ``work``, the message is the work)."""

    status: Any = None
    message_type: Any = msgspec.field(default=None, name="message-type")
    message: msgspec.Raw = msgspec.Raw(b"null")


_SEARCH_ANSWER = msgspec.json.Decoder(_CrossrefSearchAnswer)
_ANSWER = msgspec.json.Decoder(_CrossrefAnswer)
_HEAD = msgspec.json.Decoder(CrossrefHead)
_OUT_OF_RANGE = msgspec.json.Decoder(float_hook=float)
_UNREADABLE = (msgspec.DecodeError, RecursionError)
"""What msgspec raises for a body it cannot read here (``ValidationError``, a JSON value
of another type than declared, is a ``DecodeError``; nesting deeper than Python's
recursion limit is a ``RecursionError``)."""


def crossref_works(body: bytes) -> list[tuple[CrossrefHead, msgspec.Raw]] | None:
    """Each work of a Crossref ``ok`` answer (a ``work`` or a ``work-list``) with its own
    bytes, in order; None for anything else, including any body ``orjson`` would refuse
    for its text (invalid UTF-8 is checked here, as msgspec checks only the strings it
    decodes) and any work that is not a JSON object."""
    if not _utf8(body):
        return None
    try:
        works = _crossref_work_bytes(body)
        if works is None:
            return None
        head = _HEAD.decode
        return [(head(work), work) for work in works]
    except _UNREADABLE:
        return None


def _crossref_work_bytes(body: bytes) -> list[msgspec.Raw] | None:
    """The works of an ``ok`` answer as their bytes, else None; raises what msgspec
    raises for a body it cannot read. Read first as the common answer, a search's work
    list, in one pass; any other (a DOI lookup's single work, whose message is no work
    list) again with its message as its bytes."""
    try:
        search: _CrossrefSearchAnswer | None = _SEARCH_ANSWER.decode(body)
    except msgspec.ValidationError:
        search = None  # a message that is no work list: perhaps a single work
    if search is not None and search.message_type == "work-list":
        if search.status != "ok" or search.message is None:
            return None
        return search.message.items
    answer = _ANSWER.decode(body)
    if answer.status != "ok" or answer.message_type != "work":
        return None
    return [answer.message]


def _utf8(body: bytes) -> bool:
    """Whether ``body`` is valid UTF-8 (msgspec checks only the strings it decodes)."""
    if body.isascii():
        return True
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def work_item(work: msgspec.Raw) -> tuple[dict[str, Any], bool]:
    """The work's JSON object as ``orjson.loads`` decodes it, and True; or, for the one
    work ``orjson`` refuses and msgspec passed over (see the module docstring), as
    msgspec decodes it with Python's ``float`` for its floats (a number beyond a double's
    range becomes infinity), and False: a record built from it is not to be memoised.
    Never raises: a work neither can decode is read as ``{}`` (its record then holds what
    its candidate read, the DOI and the title)."""
    try:
        return orjson.loads(memoryview(work)), True
    except orjson.JSONDecodeError:
        pass
    try:
        item = _OUT_OF_RANGE.decode(work)
    except _UNREADABLE:
        return {}, False
    return (item if isinstance(item, dict) else {}), False
