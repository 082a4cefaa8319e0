"""The ``csv`` and ``tsv`` formats: a header row, then one citation per row (streamed).

The citation is in the first column named (without case) one of
:data:`~.detect.TEXT_COLUMNS`; an ``id`` column, if any, gives the ids. Every other
column is ignored: labels in a benchmark file are never read. A ``csv`` file may be
separated by commas, semicolons or tabs (the header tells which). Rows are numbered as a
spreadsheet numbers them, the header being row 1; a row's derived id is
``R<row>-<sha1(text)[:8]>``.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import BinaryIO

from verifier.errors import InputError

from .detect import TEXT_COLUMNS, header_delimiter, text_column
from .fields import one_line
from .items import Entry, InputItem, derived_id, excerpt, item_error, numbered
from .lines import bounded_lines

MAX_ROW_LINE_BYTES = 1024 * 1024
"""Longest physical line accepted in a table (other columns may be long)."""


def read_csv(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``csv`` format (see the module docstring)."""
    return numbered(_rows(stream, ",;\t"))


def read_tsv(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``tsv`` format: tab-separated (see the module docstring)."""
    return numbered(_rows(stream, "\t"))


class _LineTooLong(Exception):
    pass


class _TextLines:
    """Lines of a binary stream as text for ``csv.reader``. Bytes that are not UTF-8 are
    kept as surrogates (the rows holding them fail alone); a line longer than
    :data:`MAX_ROW_LINE_BYTES` raises ``_LineTooLong``, after which reading goes on with
    the next line."""

    def __init__(self, stream: BinaryIO) -> None:
        self._lines = bounded_lines(stream, MAX_ROW_LINE_BYTES)
        self._pushed: list[str] = []

    def __iter__(self) -> _TextLines:
        return self

    def __next__(self) -> str:
        if self._pushed:
            return self._pushed.pop()
        raw = next(self._lines)
        if raw is None:
            raise _LineTooLong
        return raw.decode("utf-8", "surrogateescape")

    def push(self, line: str) -> None:
        self._pushed.append(line)


def _rows(stream: BinaryIO, delimiters: str) -> Iterator[Entry | InputError]:
    lines = _TextLines(stream)
    try:
        first = next(lines)
    except StopIteration:
        return
    except _LineTooLong:
        yield InputError("row 1", "header row too long")
        return
    lines.push(first)
    delimiter = header_delimiter(first, delimiters) or delimiters[0]
    reader = csv.reader(lines, delimiter=delimiter)
    try:
        header = next(reader)
    except (csv.Error, _LineTooLong) as exc:
        yield InputError("row 1", f"unreadable header row: {exc or 'a line too long'}")
        return
    column = text_column(header)
    if column is None:
        columns = ", ".join(repr(cell) for cell in header[:20])
        yield InputError("row 1", f"no citation column in the header (one of "
                                  f"{', '.join(TEXT_COLUMNS)} is needed); it has {columns}")
        return
    names = [cell.strip().lower() for cell in header]
    id_column = names.index("id") if "id" in names else None
    name = header[column].strip()
    row = 1
    while True:
        row += 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except _LineTooLong:
            yield InputError(f"row {row}", f"a line longer than {MAX_ROW_LINE_BYTES:,} bytes")
            continue
        except csv.Error as exc:
            yield InputError(f"row {row}", f"not valid CSV: {exc}")
            continue
        if any(cell.strip() for cell in cells):
            yield _row_entry(cells, row, column, id_column, name, len(header))


def _row_entry(cells: list[str], row: int, column: int, id_column: int | None, name: str,
               width: int) -> Entry | InputError:
    """One row as an entry, or an error named by the row's own id when it gives one (the
    id its output line carries, and ``--resume`` skips by), else by its row number."""
    where = f"row {row}"
    given = cells[id_column].strip() if id_column is not None and id_column < len(cells) else ""
    if column >= len(cells):
        return item_error(one_line(given), where, f"no {name} cell (the row has {len(cells)} "
                          f"of {width} columns)", excerpt(", ".join(cells)))
    text = cells[column].strip()
    if not text:
        return item_error(one_line(given), where, f"empty {name} cell")
    return Entry(given or derived_id("R", row, text), text, where)
