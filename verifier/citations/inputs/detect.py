"""Which format an input is in: by its file extension, else by its first kilobyte (of a
pipe: by what has arrived once its first line has, see :func:`read_arrived`)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import BinaryIO

import orjson

SNIFF_BYTES = 1024
"""How much of an input is read to guess its format when the extension does not tell."""

TEXT_COLUMNS = ("citation_text", "citation", "text", "reference", "ref")
"""Names of the column that holds the citation in a CSV/TSV header, in order of
preference (compared without case)."""

EXTENSIONS = {
    ".bib": "bibtex", ".bibtex": "bibtex",
    ".ris": "ris",
    ".json": "csl-json",
    ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv", ".tab": "tsv",
    ".txt": "text", ".text": "text", ".md": "text",
}
"""Formats by file extension (lower-case)."""

_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]", re.M)
_RIS_TAG = re.compile(r"^TY  -", re.M)
_JSON_LIST = re.compile(r"^\[\s*(?:\{|\]|$)")


def format_by_extension(path: Path) -> str | None:
    """The format that ``path``'s extension names, or None."""
    return EXTENSIONS.get(path.suffix.lower())


def sniff_format(head: bytes) -> str:
    """The format of an input that starts with ``head`` (its first kilobyte or so):
    a BibTeX entry ("@article{") -> bibtex, a RIS tag ("TY  - ") -> ris, a JSON array ->
    csl-json, a JSON object per line -> jsonl (a JSON object across lines -> csl-json), a
    header row naming a citation column -> csv or tsv, anything else -> text."""
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
    start = text.lstrip()
    if _JSON_LIST.match(start):
        return "csl-json"
    if start.startswith("{"):
        return "jsonl" if _first_line_is_object(start) else "csl-json"
    if _BIBTEX_ENTRY.search(text):
        return "bibtex"
    if _RIS_TAG.search(text):
        return "ris"
    return table_format(text.splitlines()[0] if text.strip() else "") or "text"


def table_format(header: str) -> str | None:
    """"csv" or "tsv" when ``header`` is a header row with a citation text column."""
    delimiter = header_delimiter(header)
    if delimiter is None:
        return None
    return "tsv" if delimiter == "\t" else "csv"


def header_delimiter(header: str, delimiters: str = "\t,;") -> str | None:
    """The delimiter among ``delimiters`` that splits ``header`` into cells one of which
    is a citation text column, or None. A header of that one column alone takes the
    first delimiter."""
    for delimiter in delimiters:
        try:
            cells = next(csv.reader([header], delimiter=delimiter), [])
        except csv.Error:  # e.g. a stray carriage return: not a header
            continue
        if len(cells) > 1 and text_column(cells) is not None:
            return delimiter
    return delimiters[0] if text_column([header]) is not None else None


def text_column(header: list[str]) -> int | None:
    """The position of the citation text column in ``header``, or None."""
    names = [cell.strip().lower() for cell in header]
    for wanted in TEXT_COLUMNS:
        if wanted in names:
            return names.index(wanted)
    return None


def read_head(stream: BinaryIO, size: int = SNIFF_BYTES) -> bytes:
    """Up to ``size`` bytes from the start of ``stream`` (fewer only at its end)."""
    return stream.read(size)


def read_arrived(stream: BinaryIO, size: int = SNIFF_BYTES) -> bytes:
    """The first bytes of a pipe: what has arrived, up to ``size``, read on only until it
    holds a whole line that is neither blank nor a "%" comment (or the pipe ends). A slow
    writer (someone typing, a program producing citations one by one) is not waited for
    beyond its first line."""
    read1 = getattr(stream, "read1", stream.read)
    head: bytes = read1(size)
    while head and len(head) < size and not _has_significant_line(head):
        more: bytes = read1(size - len(head))
        if not more:
            break
        head += more
    return head


def _has_significant_line(head: bytes) -> bool:
    lines = head.split(b"\n")[:-1]  # the last piece is not yet a whole line
    return any(line.strip() and not line.lstrip().startswith(b"%") for line in lines)


def _first_line_is_object(text: str) -> bool:
    line = text.split("\n", 1)[0]
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        # A first line cut short by the sniff window still reads as one object per line.
        return "\n" not in text and len(line.strip()) > 1


class Replay(io.RawIOBase):
    """A stream that gives ``head`` again and then the rest of ``stream``: what was read
    to guess the format is not lost, and nothing needs seeking (stdin, pipes)."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        super().__init__()
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            size = min(len(buffer), len(self._head))
            buffer[:size] = self._head[:size]
            self._head = self._head[size:]
            return size
        read1 = getattr(self._stream, "read1", self._stream.read)
        data: bytes = read1(len(buffer))
        buffer[: len(data)] = data
        return len(data)
