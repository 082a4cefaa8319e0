"""Reading the citations to check, one item at a time, from any of the input formats.

:func:`read_citations` reads the input (a file, or ``-`` for stdin) and yields, in input
order, a :class:`~verifier.models.CitationInput` per citation or, in its place, an
:class:`~verifier.errors.InputError` for an item that cannot be read; the batch goes on.
Every yielded element, item or error, takes the next ``index`` (from 0), so the position
of an element in the stream is its index.

=========  ==================================================  =========================
format     what                                                item id
=========  ==================================================  =========================
text       one citation per line, or a pasted reference list   ``L<line>-<hash>``
           (numbered, bulleted, blank-line separated, wrapped)
bibtex     .bib entries, structured fields                     citation key
ris        RIS records (TY ... ER), structured fields          ``ID``, else line-hash
csl-json   a JSON array of CSL items, structured fields        ``id``, else position
jsonl      one JSON object per line: text, BibTeX or CSL       ``id``, else line-hash
csv, tsv   a header row with a citation text column            ``id`` column, else row
=========  ==================================================  =========================

``auto`` (the default) picks the format from the file extension and, for stdin or an
unknown extension, from the first kilobyte, or what has arrived of a pipe
(:mod:`.detect`). Text, RIS, JSON lines and
tables are streamed; BibTeX and CSL-JSON are read whole, up to 200 MB, and so is text
in UTF-16 or UTF-32 (with a byte-order mark), read as UTF-8. Items from the
structured formats carry ``fields``, and their ``text`` is those fields on one line.

Each format's reader module (and the library it needs: bibtexparser, rispy, pylatexenc)
is imported on the first read of that format, not with this package: a run reading a CSV
file pays for the CSV reader only.
"""

from __future__ import annotations

import importlib
import io
import os
import sys
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from verifier.citations.models import CitationInput

from .detect import Replay, format_by_extension, read_arrived, read_head, sniff_format
from .items import MAX_LINE_CHARS, InputItem, Reader, citation_id
from .lines import as_utf8, utf8_bytes

__all__ = [
    "AUTO",
    "MAX_LINE_CHARS",
    "READERS",
    "STDIN",
    "InputItem",
    "Reader",
    "citation_id",
    "InputSurvey",
    "count_citations",
    "detect_format",
    "read_citations",
    "survey_input",
    "utf8_bytes",
]

STDIN = Path("-")
"""The path that names standard input."""

AUTO = "auto"
"""The format name that asks for detection (the ``--format`` default)."""

_HOMES: dict[str, tuple[str, str]] = {
    "text": (".text", "read_text"),
    "bibtex": (".bibtex", "read_bibtex"),
    "ris": (".ris", "read_ris"),
    "csl-json": (".csl", "read_csl_json"),
    "jsonl": (".jsonl", "read_jsonl"),
    "csv": (".table", "read_csv"),
    "tsv": (".table", "read_tsv"),
}
"""Where each format's reader lives: (module in this package, function)."""


def _imported(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module, __name__), name)


def _reader(fmt: str) -> Reader:
    """The reader of ``fmt``, importing its module on the first call."""
    module, name = _HOMES[fmt]

    def read(stream: BinaryIO) -> Iterator[InputItem]:
        items: Iterator[InputItem] = _imported(module, name)(stream)
        return items

    read.__name__ = read.__qualname__ = name
    read.__doc__ = f"``{module[1:]}.{name}``, imported on the first call."
    return read


READERS: dict[str, Reader] = {fmt: _reader(fmt) for fmt in _HOMES}
"""Input formats by name (with :data:`AUTO`, the ``--format`` choices)."""

_COUNTERS: dict[str, tuple[str, str]] = {"bibtex": (".bibtex", "count_bibtex")}
"""Formats with a cheaper way to count than reading every item."""


def read_citations(path: Path, fmt: str = AUTO) -> Generator[InputItem, None, None]:
    """Stream the citations in ``path`` (``-``: stdin) read as format ``fmt``.

    Raises ``OSError`` if the file cannot be opened, ``ValueError`` for an unknown format
    and ``ConfigError`` for a file too large for a format read whole; problems with single
    items are yielded as ``InputError`` values instead.
    """
    _check_format(fmt)
    with _open_binary(path) as raw, _resolved(path, raw, fmt) as (name, stream):
        yield from READERS[name](stream)


def count_citations(path: Path, fmt: str = AUTO) -> int:
    """How many elements :func:`read_citations` will yield for the file ``path`` (the
    progress total). Not for stdin, which can be read only once."""
    _check_format(fmt)
    if path == STDIN:
        raise ValueError("stdin cannot be counted before it is read")
    with path.open("rb") as raw, _resolved(path, raw, fmt) as (name, stream):
        if name in _COUNTERS:
            counted: int = _imported(*_COUNTERS[name])(stream)
            return counted
        return sum(1 for _ in READERS[name](stream))


@dataclass(frozen=True, slots=True)
class InputSurvey:
    """What an input file holds, counted before a run: the figures a run's summary
    compares with the lines it wrote (every entry gives exactly one output line)."""

    format: str
    """The format the file is read as."""
    entries: int
    """Elements :func:`read_citations` yields: citations and input errors."""
    citations: int
    errors: int
    uncertain: int
    """Citations that carry a notice: a pasted-list boundary decided on a guess (joined
    to the entry above or split from it) that the user should check."""


def survey_input(path: Path, fmt: str = AUTO) -> InputSurvey:
    """Read all of the file ``path`` as format ``fmt`` and count what it holds (see
    :class:`InputSurvey`). Not for stdin, which can be read only once. Raises as
    :func:`read_citations` does."""
    _check_format(fmt)
    if path == STDIN:
        raise ValueError("stdin cannot be surveyed before it is read")
    citations = errors = uncertain = 0
    with path.open("rb") as raw, _resolved(path, raw, fmt) as (name, stream):
        for item in READERS[name](stream):
            if isinstance(item, CitationInput):
                citations += 1
                uncertain += bool(item.notices)
            else:
                errors += 1
    return InputSurvey(name, citations + errors, citations, errors, uncertain)


def detect_format(path: Path) -> str:
    """The format :data:`AUTO` picks for the file ``path``."""
    with path.open("rb") as raw, _resolved(path, raw, AUTO) as (name, _):
        return name


def _check_format(fmt: str) -> None:
    if fmt != AUTO and fmt not in READERS:
        raise ValueError(f"unknown input format {fmt!r}; known: {AUTO}, {', '.join(READERS)}")


@contextmanager
def _resolved(path: Path, raw: BinaryIO, fmt: str) -> Iterator[tuple[str, BinaryIO]]:
    """The format to read ``raw`` as, and the stream to read: when the format had to be
    sniffed from a pipe, a stream that gives the sniffed bytes again. Text in UTF-16 or
    UTF-32 is read as UTF-8 (:func:`.lines.as_utf8`)."""
    raw = as_utf8(raw)
    if fmt != AUTO:
        yield fmt, raw
        return
    by_extension = format_by_extension(path) if path != STDIN else None
    if by_extension:
        yield by_extension, raw
        return
    if path != STDIN and raw.seekable():
        head = read_head(raw)
        raw.seek(0)
        yield sniff_format(head), raw
        return
    head = read_arrived(raw)
    with io.BufferedReader(Replay(head, raw)) as replay:
        yield sniff_format(head), replay


@contextmanager
def _open_binary(path: Path) -> Iterator[BinaryIO]:
    if path == STDIN:
        # Standard input is read through a reader of its own on a duplicate of the
        # descriptor, never through sys.stdin: the CLI reads it on a daemon thread, and a
        # daemon thread blocked in a read holds its reader's lock. At interpreter exit
        # (Ctrl-C while the input is still open) Python closes sys.stdin, could not take
        # that lock and aborted ("Fatal Python error: _enter_buffered_busy"). Its own
        # reader is left alone. Closing it closes the duplicate, not the process's stdin.
        try:
            descriptor = os.dup(sys.stdin.fileno())
        except (AttributeError, OSError, ValueError):  # no descriptor (a replaced stdin)
            yield sys.stdin.buffer
            return
        with os.fdopen(descriptor, "rb") as stream:
            yield stream
        return
    with path.open("rb") as stream:
        yield stream
