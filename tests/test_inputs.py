"""Reading plain text: one citation per line or a pasted reference list, streamed, bad
lines as errors in place."""

from __future__ import annotations

import hashlib
import io
import itertools
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.citations.inputs import (
    MAX_LINE_CHARS,
    READERS,
    STDIN,
    InputItem,
    count_citations,
    read_citations,
)
from verifier.citations.models import CitationInput
from verifier.errors import InputError


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
    assert set(READERS) == {"text", "bibtex", "ris", "csl-json", "jsonl", "csv", "tsv"}
    with pytest.raises(ValueError, match="'endnote'; known: auto, text, bibtex"):
        next(read_citations(write(tmp_path, b"x\n"), "endnote"))
    with pytest.raises(ValueError, match="'endnote'"):
        count_citations(write(tmp_path, b"x\n"), "endnote")


def test_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        next(read_citations(tmp_path / "nope.txt"))


# -- pasted reference lists -----------------------------------------------------------------


def texts(path: Path) -> list[tuple[str, str]]:
    """(id prefix "L<line>", text) of each item read."""
    return [(item.id.split("-")[0], item.text) for item in read_citations(path)
            if isinstance(item, CitationInput)]


@pytest.mark.parametrize(
    "pasted",
    [
        "[1] Smith, J. (2019). A title that\n    wraps. Journal, 3, 1-9.\n"
        "[2] Doe, A. (2020). Other.\n",
        "1. Smith, J. (2019). A title that\nwraps. Journal, 3, 1-9.\n2. Doe, A. (2020). Other.\n",
        "(1) Smith, J. (2019). A title that\nwraps. Journal, 3, 1-9.\n(2) Doe, A. (2020). Other.\n",
        "• Smith, J. (2019). A title that\n  wraps. Journal, 3, 1-9.\n• Doe, A. (2020). Other.\n",
        "- Smith, J. (2019). A title that\n  wraps. Journal, 3, 1-9.\n- Doe, A. (2020). Other.\n",
        "References\n\n[1]\nSmith, J. (2019). A title that\nwraps. Journal, 3, 1-9.\n"
        "[2]\nDoe, A. (2020). Other.\n",
    ],
    ids=["brackets", "dots", "parens", "bullets", "dashes", "heading-and-bare-markers"],
)
def test_marked_lists_join_wrapped_lines_and_drop_the_marker(tmp_path: Path, pasted: str) -> None:
    items = texts(write(tmp_path, pasted.encode()))
    assert [text for _, text in items] == [
        "Smith, J. (2019). A title that wraps. Journal, 3, 1-9.", "Doe, A. (2020). Other."]
    first_lines = [int(prefix[1:]) for prefix, _ in items]
    assert pasted.splitlines()[first_lines[0] - 1].strip().endswith(("that", "[1]"))


def test_ids_of_a_joined_entry_hash_its_joined_text(tmp_path: Path) -> None:
    path = write(tmp_path, b"1. Ab-\n  cd/\n  ef -\n g\n2. X\n")
    [first, second] = [i for i in read_citations(path) if isinstance(i, CitationInput)]
    # Cut right after "-" or "/" (a hyphenated word, a link): no space where the line broke.
    assert first.text == "Ab-cd/ef - g"
    assert first.id == f"L1-{sha8('Ab-cd/ef - g')}"
    assert (second.id, second.index) == (f"L5-{sha8('X')}", 1)


def test_blank_line_blocks_with_wrapped_lines(tmp_path: Path) -> None:
    pasted = (b"Smith, J. (2019). A title that wraps onto\nthe next line. Journal of Things,\n"
              b"3(2), 1-9.\n\n\nDoe, A. (2020). Another one that\nwraps. Publisher.\n")
    assert texts(write(tmp_path, pasted)) == [
        ("L1", "Smith, J. (2019). A title that wraps onto the next line. Journal of Things, "
               "3(2), 1-9."),
        ("L6", "Doe, A. (2020). Another one that wraps. Publisher.")]


def test_hanging_indent_continues_the_entry_above(tmp_path: Path) -> None:
    pasted = (b"Smith, J. (2019). A title that wraps onto\n    the next line. J.\n"
              b"Doe, A. (2020). B.\n")
    assert texts(write(tmp_path, pasted)) == [
        ("L1", "Smith, J. (2019). A title that wraps onto the next line. J."),
        ("L3", "Doe, A. (2020). B.")]


@pytest.mark.parametrize(
    "lines",
    [
        # Groups of whole citations with blank lines between: not wrapped blocks.
        "Smith, J. (2019). A.\nDoe, A. (2020). B.\n\nRoe, C. (2021). C.\nPoe, E. (1845). D.\n",
        # Citations ending in links, which end no sentence with a period.
        "Smith (2019). A. https://doi.org/10.1/a\nDoe (2020). B. doi:10.1/b\n\nRoe (2021). C.\n",
        # Years look like numbering, but a list is never numbered in the thousands.
        "2019. Smith. Title.\n2020. Doe. Title.\n",
        "(2019). Title one.\n(2020). Title two.\n",
    ],
)
def test_one_per_line_stays_the_default(tmp_path: Path, lines: str) -> None:
    expected = [line.strip() for line in lines.splitlines() if line.strip()]
    assert [text for _, text in texts(write(tmp_path, lines.encode()))] == expected


def test_an_unreadable_line_inside_an_entry_ends_it_and_stands_in_place(tmp_path: Path) -> None:
    pasted = b"[1] Smith, J. (2019).\n  A title.\n  bad \xff byte\n  more.\n[2] Doe. B.\n"
    items = list(read_citations(write(tmp_path, pasted)))
    assert [getattr(i, "text", None) for i in items] == [
        "Smith, J. (2019). A title.", "bad \ufffd byte", "more.", "Doe. B."]
    assert isinstance(items[1], InputError) and items[1].item == "line 3"
    assert [i.index for i in items if isinstance(i, CitationInput)] == [0, 2, 3]


def test_a_runaway_entry_is_an_error_without_holding_it_in_memory(tmp_path: Path) -> None:
    pasted = b"[1] First.\n[2] Start.\n" + b"  more words here\n" * 50_000 + b"[3] Next.\n"
    items = list(read_citations(write(tmp_path, pasted)))
    assert isinstance(items[0], CitationInput) and items[0].text == "First."
    assert isinstance(items[1], InputError) and items[1].item == "line 2"
    assert "limit 5,000" in items[1].message
    assert isinstance(items[2], CitationInput) and items[2].text == "Next."


def test_a_list_from_a_pipe_is_recognised_from_what_arrived(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(
        b"[1] Smith, J. (2019). A title\n    that wraps.\n[2] Doe, A. (2020). B.\n"))))
    items = list(read_citations(STDIN))
    assert [i.text for i in items if isinstance(i, CitationInput)] == [
        "Smith, J. (2019). A title that wraps.", "Doe, A. (2020). B."]


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(), st.binary(),
                 st.lists(st.sampled_from(["[1] ", "2. ", "- ", "• ", "  ", "\n", "\n\n", "\r\n",
                                           "Smith, J. (2019).", "title", "\x00", "é", "-", "/",
                                           "References"]), max_size=60).map("".join)))
def test_text_reader_never_raises_and_counts_what_it_reads(data: str | bytes) -> None:
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "refs.txt"
        path.write_bytes(raw)
        items = list(read_citations(path))
        assert count_citations(path) == len(items)
    for position, item in enumerate(items):
        if isinstance(item, CitationInput):
            assert item.index == position and item.text == item.text.strip() != ""
            assert item.id.startswith("L")
        else:
            assert isinstance(item, InputError) and item.item.startswith("line ")
