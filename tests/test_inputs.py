"""Reading citations: one per line, streamed, bad lines as errors in place."""

from __future__ import annotations

import hashlib
import io
import itertools
import sys
from pathlib import Path

import pytest

from verifier.errors import InputError
from verifier.inputs import (
    MAX_LINE_CHARS,
    READERS,
    STDIN,
    InputItem,
    count_citations,
    read_citations,
)
from verifier.models import CitationInput


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "refs.txt"
    path.write_bytes(data)
    return path


def sha8(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def test_lines_become_items_numbered_from_zero_with_stable_ids(tmp_path: Path) -> None:
    path = write(tmp_path, b"  Smith, J. (2019). A title.  \n\n   \nDoe, A. (2020). Other.\r\n")
    items = list(read_citations(path))
    assert items == [
        CitationInput(id=f"L1-{sha8('Smith, J. (2019). A title.')}", index=0,
                      text="Smith, J. (2019). A title."),
        CitationInput(id=f"L4-{sha8('Doe, A. (2020). Other.')}", index=1,
                      text="Doe, A. (2020). Other."),
    ]
    assert list(read_citations(path)) == items  # same input, same ids


def test_same_text_on_two_lines_gets_two_ids(tmp_path: Path) -> None:
    items = list(read_citations(write(tmp_path, b"Same.\nSame.\n")))
    ids = [item.id for item in items if isinstance(item, CitationInput)]
    assert len(set(ids)) == 2


def test_last_line_without_newline_and_byte_order_mark(tmp_path: Path) -> None:
    items = list(read_citations(write(tmp_path, "\ufeffÉtude, A. (2001).\nLast".encode())))
    assert [i.text for i in items if isinstance(i, CitationInput)] == ["Étude, A. (2001).", "Last"]


def test_unicode_whitespace_only_line_is_skipped(tmp_path: Path) -> None:
    items = list(read_citations(write(tmp_path, "\u3000\u00a0\nReal.\n".encode())))
    assert [(i.index, i.text) for i in items if isinstance(i, CitationInput)] == [(0, "Real.")]


def test_invalid_utf8_is_an_error_in_place_and_the_batch_goes_on(tmp_path: Path) -> None:
    items = list(read_citations(write(tmp_path, b"First.\nBad \xff byte.\nThird.\n")))
    assert isinstance(items[1], InputError)
    assert items[1].item == "line 2"
    assert "UTF-8" in items[1].message and "0xff" in items[1].message
    third = items[2]
    assert isinstance(third, CitationInput)
    assert (third.index, third.text, third.id[:3]) == (2, "Third.", "L3-")


def test_control_characters_only_is_an_error(tmp_path: Path) -> None:
    items = list(read_citations(write(tmp_path, b"\x00\x01 \x02\nOk.\n")))
    assert isinstance(items[0], InputError) and items[0].item == "line 1"
    assert "control" in items[0].message
    assert isinstance(items[1], CitationInput) and items[1].index == 1


def test_length_limit_is_in_characters(tmp_path: Path) -> None:
    at_limit = "é" * MAX_LINE_CHARS  # 2 bytes each: the limit counts characters
    over = "a" * (MAX_LINE_CHARS + 1)
    items = list(read_citations(write(tmp_path, f"{at_limit}\n{over}\nok\n".encode())))
    assert isinstance(items[0], CitationInput) and items[0].text == at_limit
    assert isinstance(items[1], InputError) and items[1].item == "line 2"
    assert "5,001" in items[1].message
    assert isinstance(items[2], CitationInput) and items[2].id.startswith("L3-")


def test_huge_line_is_skipped_unread_and_line_numbers_stay_right(tmp_path: Path) -> None:
    huge = b"x" * 3_000_000
    items = list(read_citations(write(tmp_path, b"one\n" + huge + b"\nthree\n" + huge)))
    assert [type(i).__name__ for i in items] == ["CitationInput", "InputError",
                                                 "CitationInput", "InputError"]
    assert [i.item for i in items if isinstance(i, InputError)] == ["line 2", "line 4"]
    assert isinstance(items[2], CitationInput) and items[2].id.startswith("L3-")


def test_count_matches_what_is_read(tmp_path: Path) -> None:
    data = ("\ufeff\na\n\n  \nb\n\u3000\x1c\n".encode() + b"\xff\n" + b"y" * 30_000
            + b"\n\x01\nc")
    path = write(tmp_path, data)
    items = list(read_citations(path))
    assert count_citations(path) == len(items) == 6


def test_stdin_is_read_with_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"From stdin.\n\nTwo.\n")))
    items = list(read_citations(STDIN))
    assert [(i.id[:3], i.text) for i in items if isinstance(i, CitationInput)] == [
        ("L1-", "From stdin."), ("L3-", "Two.")]


class EndlessLines(io.RawIOBase):
    """A stream that never ends: reading it whole would never return."""

    def __init__(self) -> None:
        self.lines = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        self.lines += 1
        data = f"Author {self.lines}. Title.\n".encode()
        buffer[: len(data)] = data
        return len(data)


def test_reading_is_streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    source = EndlessLines()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(source)))
    first: list[InputItem] = list(itertools.islice(read_citations(STDIN), 3))
    assert [i.text for i in first if isinstance(i, CitationInput)] == [
        "Author 1. Title.", "Author 2. Title.", "Author 3. Title."]
    assert source.lines < 10_000


def test_format_registry(tmp_path: Path) -> None:
    assert "text" in READERS
    with pytest.raises(ValueError, match="bibtex"):
        next(read_citations(write(tmp_path, b"x\n"), "bibtex"))


def test_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        next(read_citations(tmp_path / "nope.txt"))
