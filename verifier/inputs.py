"""Reading the citations to check, one item at a time.

:func:`read_citations` streams the input (a file, or ``-`` for stdin) and yields, in input
order, a :class:`~verifier.models.CitationInput` per citation or, in its place, an
:class:`~verifier.errors.InputError` for an item that cannot be read; the batch goes on.
Every yielded element, item or error, takes the next ``index`` (from 0), so the position
of an element in the stream is its index.

Formats live in :data:`READERS`, a registry of name -> reader. Only ``text`` exists so
far: one citation per line. Adding BibTeX, RIS, CSV or JSONL is one reader function and
one registry entry each.
"""

from __future__ import annotations

import hashlib
import sys
import unicodedata
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .errors import InputError
from .models import CitationInput

STDIN = Path("-")
"""The path that names standard input."""

MAX_LINE_CHARS = 5000
"""Longest citation line accepted. Longer lines are input errors, not citations."""

# A line of more than this many bytes has more than MAX_LINE_CHARS characters whatever
# they are (UTF-8 uses at most 4 bytes per character), so it is rejected unread.
_MAX_LINE_BYTES = 4 * MAX_LINE_CHARS
_CHUNK = 1 << 16

InputItem = CitationInput | InputError
Reader = Callable[[BinaryIO], Iterator[InputItem]]


def read_citations(path: Path, fmt: str = "text") -> Generator[InputItem, None, None]:
    """Stream the citations in ``path`` (``-``: stdin) read as format ``fmt``.

    Raises ``OSError`` if the file cannot be opened and ``ValueError`` for an unknown
    format; problems with single items are yielded as ``InputError`` values instead.
    """
    reader = READERS.get(fmt)
    if reader is None:
        raise ValueError(f"unknown input format {fmt!r}; known: {', '.join(READERS)}")
    with _open_binary(path) as stream:
        yield from reader(stream)


def count_citations(path: Path) -> int:
    """How many items :func:`read_citations` will yield for a text file (a progress
    total: non-blank lines, read in bounded chunks so a huge line costs no memory)."""
    count = 0
    with path.open("rb") as stream:
        for lineno, raw in enumerate(_bounded_lines(stream), start=1):
            if raw is None or _line_text(lineno, raw.decode("utf-8", "replace")):
                count += 1
    return count


def read_text_lines(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``text`` format: one citation per line, UTF-8, blank lines skipped.

    Each item's ``id`` is ``L<line number>-<first 8 hex digits of sha1(text)>``: stable
    across runs (``--resume`` relies on it) and unique within the input.
    """
    index = 0
    for lineno, raw in enumerate(_bounded_lines(stream), start=1):
        item = _text_item(lineno, index, raw)
        if item is None:
            continue
        yield item
        index += 1


READERS: dict[str, Reader] = {"text": read_text_lines}
"""Input formats by name (the ``--format`` choices)."""


def citation_id(lineno: int, text: str) -> str:
    digest = hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()
    return f"L{lineno}-{digest[:8]}"


def _text_item(lineno: int, index: int, raw: bytes | None) -> InputItem | None:
    """One line as an item, an error, or None for a blank line."""
    where = f"line {lineno}"
    if raw is None:
        return InputError(where, f"longer than {MAX_LINE_CHARS:,} characters")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        return InputError(
            where,
            f"not valid UTF-8 (byte 0x{bad} at byte offset {exc.start})",
            raw.decode("utf-8", "replace").strip()[:200],
        )
    text = _line_text(lineno, text)
    if not text:
        return None
    if len(text) > MAX_LINE_CHARS:
        return InputError(
            where, f"{len(text):,} characters long (limit {MAX_LINE_CHARS:,})", text[:200]
        )
    if all(unicodedata.category(ch) in ("Cc", "Cf") or ch.isspace() for ch in text):
        return InputError(where, f"only control characters: {text[:40]!r}", text[:200])
    return CitationInput(id=citation_id(lineno, text), index=index, text=text)


def _line_text(lineno: int, decoded: str) -> str:
    """The citation text of a decoded line ("" for a blank one)."""
    if lineno == 1:
        decoded = decoded.removeprefix("\ufeff")  # a byte-order mark is not part of it
    return decoded.strip()


def _bounded_lines(stream: BinaryIO) -> Iterator[bytes | None]:
    """Lines of ``stream`` as bytes (newline included), or None for a line longer than
    ``_MAX_LINE_BYTES``, whose rest is skipped without being kept in memory."""
    while True:
        line = stream.readline(_MAX_LINE_BYTES + 1)
        if not line:
            return
        if line.endswith(b"\n") or len(line) <= _MAX_LINE_BYTES:
            yield line
            continue
        while not line.endswith(b"\n"):
            line = stream.readline(_CHUNK)
            if not line:
                break
        yield None


@contextmanager
def _open_binary(path: Path) -> Iterator[BinaryIO]:
    if path == STDIN:
        # Not closed: stdin belongs to the process, not to this reader.
        yield sys.stdin.buffer
        return
    with path.open("rb") as stream:
        yield stream
