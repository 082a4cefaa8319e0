"""The ``text`` format: one citation per line, or a reference list pasted as it was.

The layout is decided once, on the first :data:`WINDOW` non-blank lines:

==========  ==========================================================================
lines       one citation per line (the default, whenever nothing below fits)
marked      a numbered ("[1]", "(1)", "1.", "1)") or bulleted ("-", "•", "*") list: a
            line with the list's marker starts an entry, a line without continues it;
            the marker is not part of the text
blocks      entries separated by blank lines; the wrapped lines of one entry are joined
hanging     a hanging indent: an indented line continues the entry above it
==========  ==========================================================================

In every layout a blank line (or a heading such as "References") ends an entry, and an
unreadable line (not UTF-8, too long, only control characters) is an error in its place
that ends the entry before it.

The layout says where entries surely start; every other line is decided on its own,
against the entry above it (:func:`_decide`):

=================================================  ===========================  ========
the line                                           is                           notice
=================================================  ===========================  ========
indented, in a marked or hanging list              the entry's continuation     no
after a break inside a sentence (lower case next,  the entry's continuation     no
or the line above ends no sentence)
starts like a citation (an author, a year) after   a new entry                  yes
an entry that is complete (a year, a closed end)
any other                                          the entry's continuation     yes
=================================================  ===========================  ========

A decision that is not certain is reported in the item's ``notices``, naming the line,
so that a list which starts numbered and goes on one per line, or a blank-line list that
ends with one-line citations, loses no citation without a word.
An item's id is ``L<first line>-<sha1(text)[:8]>`` (:func:`~.items.citation_id`).
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import chain, pairwise
from typing import BinaryIO

from verifier.errors import InputError

from .detect import Replay, read_arrived
from .items import (
    MAX_LINE_CHARS,
    Entry,
    InputItem,
    citation_id,
    excerpt,
    is_control_only,
    numbered,
)
from .lines import MAX_LINE_BYTES, bounded_lines, decode_line, too_long

WINDOW = 40
"""Non-blank lines read before the layout is chosen (and the first item yielded). From a
pipe, only the lines that have arrived with the first one are waited for."""

# A marker and the space after it. Numbers need a space after "1." / "1)" so that
# "3.5 million" does not count, and have at most three digits so that a year ("2019.",
# "(2019)") is never taken for one; bullets need a space so "-ing" does not count.
_MARKER = re.compile(
    r"(?:(?P<bracket>\[\s*\d{1,4}\s*\])|(?P<paren>\(\s*\d{1,3}\s*\))"
    r"|(?P<number>\d{1,3}[.)])(?=\s)|(?P<bullet>[-*•◦▪‣⁃●○■□–—·➢►])(?=\s))\s*"
)
# A list's heading is no citation.
_HEADING = re.compile(
    r"(?:references?|bibliography|works\s+cited|literature(?:\s+cited)?|sources)\s*:?", re.I
)
_CLOSERS = "\"'”’)]»"

# How a citation starts: an author ("Smith, J.", "van der Berg, Jan", "Smith JA,",
# "J. Smith") or an APA head ("World Health Organization. (2020)."). The family name's
# first letter must be a capital (checked apart: re has no class for it).
_WORD = r"[^\W\d_][^\W\d_'’\-]*(?:['’\-][^\W\d_]+)*"
_PARTICLES = r"(?:(?:van|von|der|den|de|del|della|di|da|du|la|le|dos|das|ter|ten|al|el)\s+)*"
_AUTHOR_START = re.compile(
    rf"^{_PARTICLES}(?P<a>{_WORD})(?:\s+{_WORD}){{0,2}},\s*(?:[A-Z][.\s\-]|[A-Z][a-z]+)"
    rf"|^(?P<b>{_WORD})\s+[A-Z]{{1,3}}(?:[,.]|\s+(?:et\s+al|and|&))"
    rf"|^(?:[A-Z]\.\s*(?:-?[A-Z]\.\s*)*)\s*(?P<c>{_WORD})"
    rf"|^(?P<d>[^\W\d_]).{{0,120}}?\(\s*(?:1[5-9]\d\d|20\d\d|n\.\s?d\.)[a-z]?\s*\)\."
)
_YEAR = re.compile(r"(?<!\d)(?:1[5-9]\d\d|20\d\d)(?!\d)|\bn\.\s?d\.")
_NOT_AUTHORS = frozenset(("in", "retrieved", "available", "accessed", "edited", "paper",
                          "presented", "proceedings", "journal", "vol", "volume", "pp",
                          "doi", "isbn", "see", "also", "reprinted", "translated", "cited"))
_OPEN_ENDS = (",", ";", ":", "&", "-", "/", "(", "[")


class Layout(Enum):
    LINES = "lines"
    MARKED = "marked"
    BLOCKS = "blocks"
    HANGING = "hanging"


@dataclass(frozen=True, slots=True)
class ListShape:
    """How the input's lines make entries: the layout and, for a marked list, the marker
    style that starts an entry."""

    layout: Layout
    style: str = ""

    def starts_entry(self, line: str) -> bool:
        """True when ``line`` (non-blank, as read) starts a new entry."""
        if self.layout is Layout.LINES:
            return True
        if self.layout is Layout.MARKED:
            return marker_style(line.strip()) == self.style
        if self.layout is Layout.HANGING:
            return not line[:1].isspace()
        return False

    def entry_text(self, stripped: str) -> str:
        """The text an entry-starting line gives (without its list marker)."""
        if self.layout is Layout.MARKED:
            match = _MARKER.match(stripped)
            if match and _style_of(match) == self.style:
                return stripped[match.end() :]
        return stripped


def read_text(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``text`` format (see the module docstring), UTF-8, streamed."""
    return numbered(_entries(stream), unique_ids=False)


def marker_style(stripped: str) -> str:
    """The list marker that starts ``stripped`` as a style ("[n]", "1.", "bullet -"), or
    "" when it starts with none."""
    match = _MARKER.match(stripped)
    return _style_of(match) if match else ""


def choose_shape(window: Sequence[str | None], *, complete: bool) -> ListShape:
    """The shape of an input whose first lines are ``window`` (as read, "" for a blank
    line, None for an unreadable one); ``complete`` when the window is the whole input."""
    content = [line for line in window
               if line is None or (line.strip() and not _HEADING.fullmatch(line.strip()))]
    style = _list_style(content, complete=complete)
    if style:
        return ListShape(Layout.MARKED, style)
    if _wrapped_blocks(window):
        return ListShape(Layout.BLOCKS)
    if _hanging_indent(content, window):
        return ListShape(Layout.HANGING)
    return ListShape(Layout.LINES)


# -- reading ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Pending:
    """The entry being assembled: its first line and its parts, kept up to the length
    limit (beyond it only the length is counted, so a runaway entry costs no memory)."""

    lineno: int = 0
    parts: list[str] = field(default_factory=list)
    chars: int = 0
    last: str = ""
    """The last line added, stripped (what the next line is judged against)."""
    has_year: bool = False
    notices: list[str] = field(default_factory=list)

    def start(self, lineno: int, text: str, notice: str = "") -> None:
        self.lineno, self.parts, self.chars, self.has_year = lineno, [], 0, False
        self.notices = [notice] if notice else []
        self.add(text)

    def add(self, text: str, notice: str = "") -> None:
        self.chars += len(text) + 1
        self.last = text
        self.has_year = self.has_year or _YEAR.search(text) is not None
        if notice:
            self.notices.append(notice)
        if self.chars <= MAX_LINE_CHARS + 1:
            self.parts.append(text)

    def complete(self) -> bool:
        """True when the entry reads as a whole citation: it has a year and its last
        line ends as a citation ends (not in a comma, a colon, "and" ...)."""
        last = self.last.rstrip()
        if not self.has_year or not last:
            return False
        word = last.split()[-1].lower()
        if "://" in word or word.startswith(("doi:", "10.")):
            return True  # a link ends a citation, whatever its last character
        return not last.endswith(_OPEN_ENDS) and word not in ("and", "in", "of", "the", "by",
                                                              "eds.", "ed.")

    def take(self) -> Iterator[Entry | InputError]:
        if not self.lineno:
            return
        lineno, parts, chars = self.lineno, self.parts, self.chars
        notices = tuple(self.notices)
        self.lineno, self.parts, self.chars, self.notices = 0, [], 0, []
        text = _join(parts)
        where = f"line {lineno}"
        if chars - 1 > MAX_LINE_CHARS:
            yield InputError(where, f"entry of {chars - 1:,}+ characters (limit "
                                    f"{MAX_LINE_CHARS:,})", excerpt(text))
            return
        yield Entry(citation_id(lineno, text), text, where, notices=notices)


def _entries(stream: BinaryIO) -> Iterator[Entry | InputError]:
    window_bytes: int | None = None
    if not stream.seekable():
        # A pipe: choose from the lines that have arrived, never wait for WINDOW lines.
        head = read_arrived(stream)
        window_bytes = head.rfind(b"\n") + 1
        stream = io.BufferedReader(Replay(head, stream))
    lines = _read_lines(stream)
    window, complete = _first_lines(lines, window_bytes)
    shape = choose_shape([t if isinstance(t, str) else None for _, t in window],
                         complete=complete)
    rest = ((lineno, text) for lineno, text, _ in lines)
    yield from _assemble(chain(window, rest), shape)


def _first_lines(lines: Iterator[tuple[int, str | InputError, int]], window_bytes: int | None,
                 ) -> tuple[list[tuple[int, str | InputError]], bool]:
    """The lines to choose the shape from (up to WINDOW non-blank ones, and no more than
    ``window_bytes``), and whether they are the whole input."""
    window: list[tuple[int, str | InputError]] = []
    content = read = 0
    while window_bytes is None or read < window_bytes:
        line = next(lines, None)
        if line is None:
            return window, True
        lineno, text, size = line
        window.append((lineno, text))
        read += size
        content += not isinstance(text, str) or bool(text.strip())
        if content >= WINDOW:
            break
    return window, False


def _assemble(lines: Iterator[tuple[int, str | InputError]], shape: ListShape,
              ) -> Iterator[Entry | InputError]:
    """Entries of ``lines`` put together as ``shape`` says, errors in their place."""
    pending = _Pending()
    for lineno, text in lines:
        if isinstance(text, InputError):
            yield from pending.take()
            yield text
            continue
        stripped = text.strip()
        if not stripped or _HEADING.fullmatch(stripped):
            yield from pending.take()
        elif is_control_only(stripped):
            yield from pending.take()
            yield InputError(f"line {lineno}", f"only control characters: {stripped[:40]!r}",
                             excerpt(stripped))
        elif not pending.lineno or shape.starts_entry(text):
            yield from pending.take()
            pending.start(lineno, shape.entry_text(stripped))
            if shape.layout is Layout.LINES:  # complete already: do not wait for the next line
                yield from pending.take()
        else:
            new_entry, notice = _decide(shape, pending, lineno, text)
            if new_entry:
                yield from pending.take()
                pending.start(lineno, stripped, notice)
            else:
                pending.add(stripped, notice)
    yield from pending.take()


def _decide(shape: ListShape, pending: _Pending, lineno: int, line: str) -> tuple[bool, str]:
    """Whether ``line`` (which the layout does not say starts an entry) starts a new
    entry after ``pending``, and the notice the decision needs ("" when it is certain);
    see the module docstring."""
    stripped = line.strip()
    if shape.layout in (Layout.MARKED, Layout.HANGING) and line[:1].isspace():
        return False, ""
    if pending.complete() and starts_like_citation(stripped):
        return True, (f"line {lineno} taken as a citation of its own: the entry above "
                      f"(line {pending.lineno}) was complete and this line starts like a "
                      "citation")
    if _soft_break(pending.last, stripped):
        return False, ""
    return False, (f"line {lineno} joined to the citation starting on line "
                   f"{pending.lineno}, though the line above ends a sentence: check that "
                   "it is not a citation of its own")


def starts_like_citation(stripped: str) -> bool:
    """True when ``stripped`` (a line) opens the way a citation does: with an author or
    an APA head, and with a year in its first 200 characters."""
    if not _YEAR.search(stripped[:200]):
        return False
    first = stripped.split(maxsplit=1)[0].strip(".,:;").lower() if stripped else ""
    if first in _NOT_AUTHORS:
        return False
    match = _AUTHOR_START.match(stripped)
    if match is None:
        return False
    name = next(group for group in match.groups() if group)
    return name[:1].isupper()


def _read_lines(stream: BinaryIO) -> Iterator[tuple[int, str | InputError, int]]:
    """Numbered lines, decoded or as errors, with their size in bytes (a line too long to
    be read counts as larger than any window)."""
    for lineno, raw in enumerate(bounded_lines(stream), start=1):
        where = f"line {lineno}"
        if raw is None:
            yield lineno, too_long(where), MAX_LINE_BYTES + 1
        else:
            yield lineno, _without_newline(decode_line(where, raw)), len(raw)


def _without_newline(text: str | InputError) -> str | InputError:
    return text.rstrip("\r\n") if isinstance(text, str) else text


def _join(parts: list[str]) -> str:
    """The parts of an entry as one line. A part ending in "-" or "/" was cut inside a
    word, a hyphenated name or a link: the next part follows without a space."""
    text = ""
    for part in parts:
        if not part:
            continue
        glued = text.endswith(("-", "/")) and not text.endswith((" -", " /"))
        text = f"{text}{part}" if glued or not text else f"{text} {part}"
    return text


# -- choosing the layout ------------------------------------------------------------------


def _style_of(match: re.Match[str]) -> str:
    if match.group("bracket"):
        return "[n]"
    if match.group("paren"):
        return "(n)"
    if match.group("number"):
        return "n" + match.group("number")[-1]
    return "bullet " + match.group("bullet")


def _list_style(content: Sequence[str | None], *, complete: bool) -> str:
    """The marker style of a marked list, or "": the commonest style when the first line
    has it and at least one more line does, or when at least half the lines have it. A
    single marked line makes a list only when the lines after it read as its wrapped
    continuation."""
    styles = [marker_style(line.strip()) if line is not None else "" for line in content]
    counts = Counter(style for style in styles if style)
    if not counts:
        return ""
    style, count = counts.most_common(1)[0]
    if count >= 2 and (styles[0] == style or 2 * count >= len(content)):
        return style
    if count == 1 and styles[0] == style and complete:
        texts = [line for line in content if line is not None]
        return style if len(texts) == 1 or _mostly_soft(list(pairwise(texts))) else ""
    return ""


def _wrapped_blocks(window: Sequence[str | None]) -> bool:
    """True when blank lines separate entries and the lines inside them read as wrapped
    (a list of one citation per line with blank lines between groups does not)."""
    blocks: list[list[str]] = [[]]
    for line in window:
        if line is not None and not line.strip():
            if blocks[-1]:
                blocks.append([])
        elif line is not None:
            blocks[-1].append(line)
    blocks = [block for block in blocks if block]
    breaks = [pair for block in blocks for pair in pairwise(block)]
    return len(blocks) >= 2 and bool(breaks) and _mostly_soft(breaks)


def _hanging_indent(content: Sequence[str | None], window: Sequence[str | None]) -> bool:
    """True when the first line is flush left and indented lines follow others directly,
    reading as their wrapped continuation."""
    if not content or content[0] is None or content[0][:1].isspace():
        return False
    breaks = [(above, line) for above, line in pairwise(window)
              if above is not None and above.strip() and line is not None
              and line.strip() and line[:1].isspace()]
    return bool(breaks) and _mostly_soft(breaks)


def _mostly_soft(breaks: Sequence[tuple[str, str]]) -> bool:
    return bool(breaks) and 2 * sum(_soft_break(a, b) for a, b in breaks) >= len(breaks)


def _soft_break(above: str, below: str) -> bool:
    """True when the break between two lines falls inside a sentence: the line below
    starts in lower case, or the line above does not end a sentence (a citation ends in
    "." or in a link)."""
    above, below = above.strip(), below.strip()
    if not above or not below:
        return False
    if below[0].islower():
        return True
    last = above.split()[-1].lower()
    if "://" in last or last.startswith(("doi:", "10.", "www.")):
        return False
    return not above.rstrip(_CLOSERS).endswith((".", "!", "?"))
