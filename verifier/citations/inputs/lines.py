"""Reading a binary stream line by line in bounded memory, or whole up to a limit; text in
UTF-16 or UTF-32 (with a byte-order mark) read as UTF-8."""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterator
from typing import BinaryIO

from verifier.errors import ConfigError, InputError

from .items import MAX_LINE_CHARS, excerpt

MAX_LINE_BYTES = 4 * MAX_LINE_CHARS
"""A line of more bytes has more than MAX_LINE_CHARS characters whatever they are (UTF-8
uses at most 4 bytes per character), so it can be rejected unread."""

MAX_WHOLE_BYTES = 200 * 1024 * 1024
"""Largest input of a format that is read whole (BibTeX, CSL-JSON)."""

_CHUNK = 1 << 16
_BOM = b"\xef\xbb\xbf"
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)
"""The byte-order marks of the wide Unicode encodings, UTF-32's first (its little-endian
mark starts with UTF-16's), each with the codec that reads past it."""


def bounded_lines(stream: BinaryIO, max_bytes: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """Lines of ``stream`` as bytes (newline included; a byte-order mark at the start
    removed), or None for a line longer than ``max_bytes``, whose rest is skipped without
    being kept in memory."""
    first = True
    while True:
        line = stream.readline(max_bytes + 1)
        if first:
            line, first = line.removeprefix(_BOM), False
        if not line:
            return
        if line.endswith(b"\n") or len(line) <= max_bytes:
            yield line
            continue
        while not line.endswith(b"\n"):
            line = stream.readline(_CHUNK)
            if not line:
                break
        yield None


def decode_line(where: str, raw: bytes) -> str | InputError:
    """``raw`` as UTF-8 text, or an error naming ``where`` and the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        return InputError(
            where,
            f"not valid UTF-8 (byte 0x{bad} at byte offset {exc.start})",
            excerpt(raw.decode("utf-8", "replace")),
        )


def too_long(where: str, max_bytes: int = MAX_LINE_BYTES) -> InputError:
    limit = f"{MAX_LINE_CHARS:,} characters" if max_bytes == MAX_LINE_BYTES else \
        f"{max_bytes:,} bytes"
    return InputError(where, f"longer than {limit}")


def read_whole(stream: BinaryIO, what: str) -> bytes:
    """All of ``stream`` (a byte-order mark removed). A format that must be read whole
    refuses more than :data:`MAX_WHOLE_BYTES` with a ``ConfigError``: that is a usage
    problem (split the file, or convert it to a streamed format), not a bad item."""
    limit = MAX_WHOLE_BYTES
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(
            f"{what} input is larger than {limit / (1024 * 1024):g} MB, the most read at "
            "once; split it into smaller files")
    return data.removeprefix(_BOM)


def wide_encoding(head: bytes) -> str | None:
    """The codec of text that starts with ``head`` (its first four bytes are enough) when
    it is UTF-16 or UTF-32 with a byte-order mark (text that Windows calls "Unicode":
    Notepad's and Excel's "Unicode Text" save it so), else None."""
    for mark, encoding in _WIDE_BOMS:
        if head.startswith(mark):
            return encoding
    return None


def utf8_bytes(data: bytes) -> bytes:
    """``data`` itself, or, when it is UTF-16 or UTF-32 text (:func:`wide_encoding`), that
    text in UTF-8; a sequence not valid in its encoding becomes U+FFFD."""
    encoding = wide_encoding(data[:4])
    return data if encoding is None else data.decode(encoding, "replace").encode("utf-8")


def as_utf8(stream: BinaryIO) -> BinaryIO:
    """``stream`` itself, or, when it holds UTF-16 or UTF-32 text (:func:`wide_encoding`),
    that text in UTF-8, so that every reader reads UTF-8. Such a stream is read whole
    (refused past :data:`MAX_WHOLE_BYTES`, as :func:`read_whole` refuses). Looks at the
    first bytes through ``peek``: a stream without it is given back as it is."""
    peek = getattr(stream, "peek", None)
    if peek is None:
        return stream
    encoding = wide_encoding(peek(4)[:4])
    if encoding is None:
        return stream
    return io.BytesIO(utf8_bytes(read_whole(stream, encoding.upper())))


def text_lines(stream: BinaryIO) -> Iterator[bytes]:
    """Every line of ``stream`` as UTF-8 bytes (newline included), however long: a
    byte-order mark at the start removed, UTF-16 or UTF-32 text re-encoded
    (:func:`as_utf8`). For records that may hold a whole paper; citation inputs are read
    by :func:`bounded_lines`."""
    for number, line in enumerate(as_utf8(stream)):
        yield line.removeprefix(_BOM) if number == 0 else line
