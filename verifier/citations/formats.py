"""Output formats beside JSON lines: CSV, corrected BibTeX, and a Markdown or HTML run report.

Pure functions over output records (the JSON objects of :mod:`verifier.citations.report`,
as :func:`~verifier.citations.report.report_record` gives them or as read back from a
JSON lines file), so the CLI and the service write the same bytes.

=========  ============================================================================
format     what
=========  ============================================================================
jsonl      the output lines themselves (the contract)
csv        a header row, then one row per citation: :data:`CSV_COLUMNS`
bibtex     the corrected entry of every citation a source matched, under the key the
           input gave; a ``%`` comment line for a citation without a correction
markdown   a run report: counts per status, then the problems first (input errors,
html       no trace, inconclusive, unconfirmed, discrepancies), then the verified
=========  ============================================================================

A :class:`Formatter` streams: :meth:`~Formatter.begin` once, :meth:`~Formatter.item` per
record as it is decided, :meth:`~Formatter.end` once. CSV and BibTeX write each record at
once; the reports need every record, so they write everything at the end.
"""

from __future__ import annotations

import csv
import html
import io
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

Record = Mapping[str, Any]

FORMATS: tuple[str, ...] = ("jsonl", "csv", "bibtex", "markdown", "html")

CSV_COLUMNS: tuple[str, ...] = (
    "id", "index", "status", "retraction", "input_error", "title", "authors", "year",
    "container", "doi", "agreeing_sources", "discrepancies", "corrected_apa", "error", "input",
)

STATUS_ORDER: tuple[str, ...] = ("no_trace", "inconclusive", "unconfirmed", "verified")
"""Statuses in the order a report shows them: the problems first."""

_INPUT_ERROR = "input_error"


_STATUSES = frozenset(STATUS_ORDER)
_TEXT = (str,)
_TEXT_OR_NULL = (str, type(None))
_OBJECT_OR_NULL = (dict, type(None))
_LINE_FIELDS: Mapping[str, tuple[type, ...]] = {
    # The type of each key the formats read, as the line contract writes it.
    "id": _TEXT, "input": _TEXT, "retraction": _TEXT, "error": _TEXT_OR_NULL,
    "index": (int, type(None)), "elapsed_s": (int, float, type(None)),
    "flags": (list,), "agreeing_sources": (list,), "discrepancies": (list,),
    "citation": _OBJECT_OR_NULL, "correction": _OBJECT_OR_NULL,
    "corrected": _OBJECT_OR_NULL, "sources": (dict,), "book": _OBJECT_OR_NULL,
}
_CITATION_FIELDS: Mapping[str, tuple[type, ...]] = {
    "title": _TEXT, "container": _TEXT, "year": (int, type(None)), "authors": (list,),
    "identifiers": (dict,),
}
_JSON_TYPES = {str: "a string", int: "a number", float: "a number", list: "a list",
              dict: "an object", type(None): "null"}


def line_error(record: object) -> str | None:
    """Why ``record`` is not an output line the formats can read (None: it is one).

    For lines another program hands back (the service's ``/v1/render``): ``status`` is
    one of the four, and every key the formats read has its contract's JSON type
    (``flags`` and ``agreeing_sources`` lists of strings, ``discrepancies`` and the
    citation's ``authors`` lists of objects). Keys may be missing (older lines lack
    some); extra keys are kept as they are."""
    if not isinstance(record, dict):
        return "not a JSON object"
    status = record.get("status")
    if not isinstance(status, str) or status not in _STATUSES:
        return f"'status' must be one of {', '.join(STATUS_ORDER)}"
    wrong = _wrong_type(record, _LINE_FIELDS, "")
    if wrong:
        return wrong
    for key, kind, kinds in (("flags", str, "strings"), ("agreeing_sources", str, "strings"),
                             ("discrepancies", dict, "objects")):
        if not all(isinstance(item, kind) for item in record.get(key) or ()):
            return f"'{key}' must be a list of {kinds}"
    for key in ("apa", "bibtex"):
        if not isinstance((record.get("correction") or {}).get(key, ""), str):
            return f"'correction.{key}' must be a string"
    cited = record.get("citation")
    if isinstance(cited, dict):
        wrong = _wrong_type(cited, _CITATION_FIELDS, "citation.")
        if wrong:
            return wrong
        if not all(isinstance(author, dict) for author in cited.get("authors") or ()):
            return "'citation.authors' must be a list of objects"
        if any(not isinstance(value, str) for author in cited.get("authors") or ()
               for value in author.values()):
            return "'citation.authors' must hold names as strings"
    return None


def _wrong_type(value: Mapping[str, Any], fields: Mapping[str, tuple[type, ...]],
                prefix: str) -> str | None:
    for key, types in fields.items():
        if key in value and (isinstance(value[key], bool) or
                             not isinstance(value[key], types)):
            shown = " or ".join(dict.fromkeys(_JSON_TYPES[kind] for kind in types))
            return f"'{prefix}{key}' must be {shown}"
    return None


def is_input_error(record: Record) -> bool:
    return _INPUT_ERROR in (record.get("flags") or ())


def _citation(record: Record) -> Mapping[str, Any]:
    value = record.get("citation")
    return value if isinstance(value, Mapping) else {}


def _author_names(authors: Iterable[Mapping[str, Any]]) -> str:
    names = []
    for author in authors:
        name = author.get("literal") or author.get("family") or ""
        if author.get("given") and not author.get("literal"):
            name = f"{name}, {author['given']}"
        if name:
            names.append(name)
    return "; ".join(names)


def discrepancy_text(record: Record) -> str:
    """The record's discrepancies in words: ``year: cited 2018, found 2019``, ``; ``-joined."""
    parts = []
    for item in record.get("discrepancies") or ():
        parts.append(f"{item.get('field')}: cited {item.get('cited')!s}, "
                     f"found {item.get('found')!s}")
    return "; ".join(parts)


def corrected_apa(record: Record) -> str:
    correction = record.get("correction")
    return str(correction.get("apa", "")) if isinstance(correction, Mapping) else ""


def csv_row(record: Record) -> dict[str, str]:
    """The CSV cells of one record (the cited fields, the verdict, the correction)."""
    cited = _citation(record)
    identifiers = cited.get("identifiers") or {}
    year = cited.get("year")
    return {
        "id": str(record.get("id", "")),
        "index": str(record.get("index", "")),
        "status": str(record.get("status", "")),
        "retraction": str(record.get("retraction", "")),
        "input_error": "yes" if is_input_error(record) else "",
        "title": str(cited.get("title", "")),
        "authors": _author_names(cited.get("authors") or ()),
        "year": "" if year is None else str(year),
        "container": str(cited.get("container", "")),
        "doi": str(identifiers.get("doi") or ""),
        "agreeing_sources": ";".join(record.get("agreeing_sources") or ()),
        "discrepancies": discrepancy_text(record),
        "corrected_apa": corrected_apa(record),
        "error": str(record.get("error") or ""),
        "input": str(record.get("input", "")),
    }


def _csv_line(values: Sequence[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(values)
    return buffer.getvalue()


def csv_header() -> str:
    return _csv_line(CSV_COLUMNS)


def csv_line(record: Record) -> str:
    row = csv_row(record)
    return _csv_line([row[column] for column in CSV_COLUMNS])


def _comment(text: str) -> str:
    return " ".join(text.split())


def bibtex_text(record: Record) -> str:
    """The corrected BibTeX entry of a record (its key is the input's key, which the
    checker already put in ``correction.bibtex``), or a ``%`` comment saying why none."""
    correction = record.get("correction")
    if isinstance(correction, Mapping) and correction.get("bibtex"):
        entry = str(correction["bibtex"]).rstrip("\n")
        return f"{entry}\n\n"
    reason = str(record.get("error") or "") if is_input_error(record) else \
        f"status {record.get('status')}, no source matched"
    return (f"% {_comment(str(record.get('id', '')))}: no corrected entry ({_comment(reason)}): "
            f"{_comment(str(record.get('input', '')))[:300]}\n\n")


@dataclass(frozen=True, slots=True)
class RunCounts:
    total: int
    statuses: dict[str, int]
    input_errors: int
    with_discrepancies: int
    retracted: int


def run_counts(records: Sequence[Record]) -> RunCounts:
    statuses: Counter[str] = Counter()
    input_errors = discrepant = retracted = 0
    for record in records:
        if is_input_error(record):
            input_errors += 1
            continue
        statuses[str(record.get("status"))] += 1
        discrepant += bool(record.get("discrepancies"))
        retracted += record.get("retraction") == "retracted"
    ordered = {status: statuses.get(status, 0) for status in STATUS_ORDER}
    return RunCounts(len(records), ordered, input_errors, discrepant, retracted)


def problem_rank(record: Record) -> tuple[int, int]:
    """Sort key: input errors, retracted, then statuses in :data:`STATUS_ORDER`, verified
    with discrepancies before verified without; input order within each."""
    index = record.get("index")
    position = index if isinstance(index, int) else 0
    if is_input_error(record):
        return (0, position)
    if record.get("retraction") == "retracted":
        return (1, position)
    status = str(record.get("status"))
    rank = 2 + (STATUS_ORDER.index(status) if status in STATUS_ORDER else 0) * 2
    return (rank + (0 if record.get("discrepancies") else 1), position)


def _summary_lines(counts: RunCounts) -> list[tuple[str, int]]:
    rows = [(status, n) for status, n in counts.statuses.items()]
    rows.append(("input errors", counts.input_errors))
    rows.append(("with discrepancies", counts.with_discrepancies))
    rows.append(("retracted", counts.retracted))
    return rows


def _what(record: Record) -> str:
    if is_input_error(record):
        return f"input error: {record.get('error')}"
    parts = [str(record.get("status"))]
    if record.get("retraction") == "retracted":
        parts.append("retracted")
    text = discrepancy_text(record)
    if text:
        parts.append(text)
    return "; ".join(parts)


def markdown_report(records: Sequence[Record]) -> str:
    """A Markdown report of a run: counts per status, then every citation, problems first."""
    counts = run_counts(records)
    out = ["# Citation check report", "", f"{counts.total} citations checked.", "",
           "| status | citations |", "| --- | ---: |"]
    out += [f"| {name} | {n} |" for name, n in _summary_lines(counts)]
    out += ["", "## Citations (problems first)", ""]
    for record in sorted(records, key=problem_rank):
        cited = _md(_comment(str(record.get("input", ""))))
        out.append(f"- **{_md(_what(record))}** — {cited}")
        apa = corrected_apa(record)
        if apa and (record.get("discrepancies") or record.get("status") != "verified"):
            out.append(f"  - corrected: {_md(apa)}")
    return "\n".join(out) + "\n"


_MD_ESCAPES = str.maketrans({
    "\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "[": "\\[", "]": "\\]",
    "&": "&amp;", "<": "&lt;", ">": "&gt;",
})
"""Markdown's markup in cited text, made literal: table pipes, emphasis, code spans and
links by backslash; HTML by entities (a report of untrusted references must not carry
raw HTML into a page that renders it)."""


def _md(text: str) -> str:
    return text.translate(_MD_ESCAPES)


def html_report(records: Sequence[Record]) -> str:
    """The same report as :func:`markdown_report`, as one self-contained HTML page."""
    counts = run_counts(records)
    esc = html.escape
    rows = "".join(f"<tr><td>{esc(name)}</td><td>{n}</td></tr>"
                   for name, n in _summary_lines(counts))
    items = []
    for record in sorted(records, key=problem_rank):
        status = "input-error" if is_input_error(record) else str(record.get("status"))
        apa = corrected_apa(record)
        corrected = f"<div class=corrected>corrected: {esc(apa)}</div>" if apa and (
            record.get("discrepancies") or record.get("status") != "verified") else ""
        items.append(f'<li class="{esc(status)}"><strong>{esc(_what(record))}</strong> — '
                     f"{esc(_comment(str(record.get('input', ''))))}{corrected}</li>")
    return ("<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
            "<title>Citation check report</title></head><body>"
            f"<h1>Citation check report</h1><p>{counts.total} citations checked.</p>"
            f"<table><thead><tr><th>status</th><th>citations</th></tr></thead>"
            f"<tbody>{rows}</tbody></table><h2>Citations (problems first)</h2>"
            f"<ol>{''.join(items)}</ol></body></html>\n")


@dataclass(slots=True)
class Formatter:
    """Streams records as one of :data:`FORMATS` (see the module docstring)."""

    name: str
    _records: list[Record] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.name not in FORMATS:
            raise ValueError(f"unknown output format {self.name!r}; known: {', '.join(FORMATS)}")

    def begin(self) -> bytes:
        return csv_header().encode() if self.name == "csv" else b""

    def item(self, record: Record) -> bytes:
        if self.name == "jsonl":
            return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
        if self.name == "csv":
            return csv_line(record).encode()
        if self.name == "bibtex":
            return bibtex_text(record).encode()
        self._records.append(record)
        return b""

    def end(self) -> bytes:
        if self.name == "markdown":
            return markdown_report(self._records).encode()
        if self.name == "html":
            return html_report(self._records).encode()
        return b""


def format_records(name: str, records: Iterable[Record]) -> bytes:
    """Every record at once in format ``name``."""
    formatter = Formatter(name)
    return formatter.begin() + b"".join(formatter.item(r) for r in records) + formatter.end()


__all__ = ["CSV_COLUMNS", "FORMATS", "Formatter", "bibtex_text", "csv_line", "format_records",
           "html_report", "line_error", "markdown_report", "run_counts"]
