"""Reading a ``/v1/citations/check`` body or a job's query into items and options.

A body is a JSON object with exactly one of:

- ``citation``: one citation, text or an object (text keys, BibTeX ``fields`` or CSL-JSON,
  as a JSON lines input line) -> one report;
- ``citations``: a list of such -> a report per element;
- ``document``: a whole input file as text (a pasted reference list, .bib, .ris, CSL-JSON,
  JSON lines, CSV/TSV), with ``format`` (default ``auto``) and ``filename`` (its extension
  helps ``auto``) -> a report per entry;

and optionally ``options``: ``{"sources": [...], "deadline_s": s, "independence":
"distinct"|"lineage"}``. Problems of the request itself are :class:`Problem` (400 for
bytes that are not UTF-8 JSON, 413 for too many citations, 422 for wrong types, unknown
sources, a field or option the body may not carry, a single citation that cannot be read,
or a document that holds no citation); an unreadable element of a list is an input-error
line in its place, as in the CLI's output. Pure and synchronous: the service runs it in a
worker thread.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import orjson

from verifier.citations.inputs import AUTO, READERS, InputItem
from verifier.citations.inputs.detect import format_by_extension, sniff_format
from verifier.citations.inputs.jsonl import read_jsonl
from verifier.errors import InputError
from verifier.options import CheckOptions
from verifier.settings import SOURCE_NAMES

from .fields import json_object, refuse_unknown
from .problems import Problem

MAX_DEADLINE_S = 600.0


@dataclass(frozen=True, slots=True)
class CheckRequest:
    single: bool
    """One citation given: the answer is one report, not a list."""
    items: list[InputItem]
    options: CheckOptions


def parse_check_body(body: bytes, enabled: tuple[str, ...], max_batch: int) -> CheckRequest:
    """The request in ``body`` (see the module docstring); raises :class:`Problem`."""
    value = json_object(body, "a JSON object with 'citation', 'citations' or 'document'")
    given = [key for key in ("citation", "citations", "document") if key in value]
    if len(given) != 1:
        raise Problem(422, "wrong-shape", "give exactly one of 'citation', 'citations', "
                      f"'document' (got {', '.join(given) or 'none'})")
    key = given[0]
    refuse_unknown(value, BODY_FIELDS[key], "the body")
    options = parse_options(value.get("options"), enabled)
    if key == "citation":
        items = _elements([value["citation"]], ["'citation'"])
        item = items[0]
        if isinstance(item, InputError):
            raise Problem(422, "unreadable-citation", item.message, item=value["citation"])
        return CheckRequest(True, items, options)
    if key == "citations":
        elements = value["citations"]
        if not isinstance(elements, list):
            raise Problem(422, "wrong-type", "'citations' must be a list", item="citations")
        _check_size(len(elements), max_batch)
        names = [f"citations[{position}]" for position in range(len(elements))]
        return CheckRequest(False, _elements(elements, names), options)
    items = read_document(value["document"], value.get("format", AUTO), value.get("filename"))
    _check_size(len(items), max_batch)
    return CheckRequest(False, items, options)


BODY_FIELDS: Mapping[str, frozenset[str]] = {
    "citation": frozenset({"citation", "options"}),
    "citations": frozenset({"citations", "options"}),
    "document": frozenset({"document", "format", "filename", "options"}),
}
"""The fields a body may carry beside each of its three forms."""
OPTION_FIELDS = frozenset({"sources", "deadline_s", "independence"})
JOB_QUERY = frozenset({"format", "filename", *OPTION_FIELDS})
"""The query parameters of ``POST /v1/jobs``."""


def _check_size(count: int, max_batch: int) -> None:
    if count > max_batch:
        raise Problem(413, "batch-too-large", f"{count} citations in one request; at most "
                      f"{max_batch} (submit a job for more)")


def _elements(elements: list[Any], names: list[str]) -> list[InputItem]:
    """The items of ``elements`` (``names``: each one's name in a problem)."""
    lines = []
    for position, element in enumerate(elements):
        if isinstance(element, str):
            element = {"text": element}
        if not isinstance(element, dict):
            raise Problem(422, "wrong-type", f"{names[position]} must be a string or an "
                          "object", item=position)
        lines.append(orjson.dumps(element))
    return list(read_jsonl(io.BytesIO(b"\n".join(lines) + b"\n")))


def read_document(text: Any, fmt: Any, filename: Any = None) -> list[InputItem]:
    """The items of a whole input file given as text (``fmt`` one of the CLI's formats)."""
    if not isinstance(text, str):
        raise Problem(422, "wrong-type", "'document' must be a string", item="document")
    return read_document_bytes(text.encode("utf-8", "surrogatepass"), fmt, filename)


def read_document_bytes(data: bytes, fmt: Any, filename: Any = None) -> list[InputItem]:
    """The items of a document; 422 for one that holds none (the CLI's exit 6: a document
    read in the wrong format, or holding no reference, is a mistake to name, not an
    empty answer)."""
    fmt = resolve_format(data, fmt, filename)
    items = list(iter_document(data, fmt))
    if not items:
        raise Problem(422, "no-citations", f"the document holds no citation (read as "
                      f"{fmt})", item=fmt)
    return items


def resolve_format(data: bytes, fmt: Any, filename: Any) -> str:
    if not isinstance(fmt, str) or (fmt != AUTO and fmt not in READERS):
        raise Problem(422, "unknown-format", f"unknown format {fmt!r}; known: {AUTO}, "
                      f"{', '.join(READERS)}", item=fmt if isinstance(fmt, str) else None)
    if fmt != AUTO:
        return fmt
    if filename is not None and not isinstance(filename, str):
        raise Problem(422, "wrong-type", "'filename' must be a string", item="filename")
    by_name = format_by_extension(PurePath(filename)) if filename else None  # type: ignore[arg-type]
    return by_name or sniff_format(data[:4096])


def iter_document(data: bytes, fmt: str) -> Iterator[InputItem]:
    try:
        yield from READERS[fmt](io.BytesIO(data))
    except (ValueError, UnicodeDecodeError) as exc:
        raise Problem(422, "unreadable-document", f"the document cannot be read as {fmt}: "
                      f"{exc}") from None


def parse_options(value: Any, enabled: tuple[str, ...]) -> CheckOptions:
    """``options`` of a body (or a job's query, as a mapping) as :class:`CheckOptions`."""
    if value is None:
        return CheckOptions()
    if not isinstance(value, Mapping):
        raise Problem(422, "wrong-type", "'options' must be an object", item="options")
    refuse_unknown(value, OPTION_FIELDS, "'options'", kind="unknown-option")
    sources = value.get("sources")
    if sources is not None:
        if isinstance(sources, str):
            sources = [s for s in sources.split(",") if s.strip()]
        if not isinstance(sources, list) or not sources or \
                not all(isinstance(s, str) for s in sources):
            raise Problem(422, "wrong-type", "'sources' must be a non-empty list of names",
                          item="sources")
        sources = tuple(dict.fromkeys(s.strip().lower() for s in sources))
        for name in sources:
            if name not in SOURCE_NAMES:
                raise Problem(422, "unknown-source", f"unknown source {name!r}; known: "
                              f"{', '.join(SOURCE_NAMES)}", item=name)
            if name not in enabled:
                raise Problem(422, "source-not-enabled", f"source {name!r} is not enabled in "
                              f"this service (enabled: {', '.join(enabled)})", item=name)
    deadline = value.get("deadline_s")
    if deadline is not None:
        if isinstance(deadline, str):
            try:
                deadline = float(deadline)
            except ValueError:
                deadline = None if not deadline else deadline
        if isinstance(deadline, bool) or not isinstance(deadline, int | float) or \
                not (math.isfinite(deadline) and 0 < deadline <= MAX_DEADLINE_S):
            raise Problem(422, "wrong-type", f"'deadline_s' must be a number of seconds in "
                          f"(0, {MAX_DEADLINE_S:g}]", item="deadline_s")
        deadline = float(deadline)
    independence = value.get("independence")
    if independence is not None and independence not in ("distinct", "lineage"):
        raise Problem(422, "wrong-type", "'independence' must be 'distinct' or 'lineage'",
                      item="independence")
    return CheckOptions(sources=sources, deadline_s=deadline, independence=independence)


def options_record(options: CheckOptions) -> dict[str, object]:
    """Options as stored with a job (read back with :func:`parse_options`)."""
    record: dict[str, object] = {}
    if options.sources is not None:
        record["sources"] = list(options.sources)
    if options.deadline_s is not None:
        record["deadline_s"] = options.deadline_s
    if options.independence is not None:
        record["independence"] = options.independence
    return record
