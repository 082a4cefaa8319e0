"""The paper as a decision model's state: whole when it fits, else cut by a fixed rule.

Tokens are estimated, not counted: one per four characters, rounded up (no tokenizer is
loaded; :func:`estimate_tokens`).

**Whole.** A paper of at most ``budget`` tokens is the state as is, so every call about
that paper (every premise of every comment) sends the same state first: the prefix a
server caches.

**Cut** (a longer paper), for the premises of one comment:

1. The paper is split into *sections* at Markdown headings (``#`` … ``######``) or, in
   plain text, at short numbered heading lines (``3 Results``, ``2.1. Data``); each
   section into *passages* at blank lines. The text before the first heading is the
   ``front`` section (title, authors).
2. Passages are chosen, in this priority, until the budget is used:

   a. the **title line** (the first non-blank line);
   b. **sections the premises name**: a premise names a section when it contains its
      heading's title (case-insensitive, numbering removed, at least 4 characters:
      "Methods", "Materials and methods", "Results") or "section N" where the heading is
      numbered N; and it names a passage when it says "Table N", "Figure N" or "Fig. N"
      and the passage contains that label. A named section's passages are taken in
      order (its heading first);
   c. the **abstract**: the section whose heading is "Abstract", or else the first
      passage of at least 40 words;
   d. the **nearest passages**: every other passage ranked by the summed IDF (over the
      paper's passages) of the premises' words it contains, best first, ties in
      document order.

   A passage that does not fit in what is left is skipped (a smaller one later may fit).
   A passage is taken together with its section's heading (both count against the
   budget).
3. The chosen passages are given in document order, with ``[…]`` where passages were
   left out (the markers are not counted: a few tokens). So the title and,
   when chosen, the abstract open every cut state of one paper.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_BUDGET = 16_000
"""Tokens of paper a decision call carries by default (about 64,000 characters)."""
GAP = "[…]"

_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
_NUMBERED_HEADING = re.compile(r"^((?:\d{1,2}\.)*\d{1,2})\.?\s+([A-Z][^\n]{0,80})$")
_NUMBERING = re.compile(r"^(?:\d{1,2}\.)*\d{1,2}\.?\s+")
_SECTION_REF = re.compile(r"(?i)\bsections?\s+((?:\d{1,2}\.)*\d{1,2})")
_LABEL_REF = re.compile(r"(?i)\b(table|figure|fig\.?)\s*(\d{1,3})\b")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("""a an the of and or in on at to for from by with as is are was were be been
this that these those it its their they we our not no than then there which who whom
what when where how why can could should would may might will does did do has have had
paper authors study""".split())
MIN_TITLE_CHARS = 4
ABSTRACT_MIN_WORDS = 40


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: one per four characters, rounded up."""
    return (len(text) + 3) // 4


@dataclass(frozen=True, slots=True)
class Passage:
    section: int
    text: str
    heading: bool = False
    """The section's heading line itself."""


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    """The heading without ``#`` marks (``""`` for the front matter)."""
    number: str
    """The heading's numbering (``3.1``) or ``""``."""


@dataclass(frozen=True, slots=True)
class PaperLayout:
    """A paper split into sections and passages (in document order)."""

    sections: tuple[Section, ...]
    passages: tuple[Passage, ...]


def layout(paper: str) -> PaperLayout:
    """Sections and passages of ``paper`` (rule 1 of the module docstring)."""
    sections = [Section("", "")]
    passages: list[Passage] = []
    block: list[str] = []

    def flush() -> None:
        text = "\n".join(block).strip()
        if text:
            passages.append(Passage(len(sections) - 1, text))
        block.clear()

    for line in paper.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        md = _MD_HEADING.match(stripped)
        numbered = None if md else _NUMBERED_HEADING.match(stripped)
        if md or (numbered and not block):
            flush()
            title = md.group(1) if md else stripped
            number_match = re.match(r"^((?:\d{1,2}\.)*\d{1,2})", title)
            sections.append(Section(_NUMBERING.sub("", title).strip(),
                                    number_match.group(1) if number_match else ""))
            passages.append(Passage(len(sections) - 1, stripped, heading=True))
        elif not stripped:
            flush()
        else:
            block.append(line)
    flush()
    return PaperLayout(tuple(sections), tuple(passages))


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1]


def paper_state(paper: str, premises: Sequence[str], budget: int = DEFAULT_BUDGET) -> str:
    """The state for deciding ``premises`` about ``paper`` within ``budget`` tokens
    (the module docstring's rule)."""
    if budget < 1:
        raise ValueError("the token budget must be positive")
    if estimate_tokens(paper) <= budget:
        return paper
    shape = layout(paper)
    passages = shape.passages
    if not passages:
        return paper[: budget * 4]
    headings = {p.section: i for i, p in enumerate(passages) if p.heading}
    chosen: set[int] = set()
    used = 0

    def take(index: int) -> None:
        # A passage comes with its section's heading: both fit, or neither is taken.
        nonlocal used
        wanted = [index]
        heading = headings.get(passages[index].section)
        if heading is not None and heading not in chosen and heading != index:
            wanted.insert(0, heading)
        wanted = [i for i in wanted if i not in chosen]
        cost = sum(estimate_tokens(passages[i].text) + 1 for i in wanted)
        if wanted and used + cost <= budget:
            chosen.update(wanted)
            used += cost

    take(0)  # the title line (or the first passage)
    for index in _named(shape, premises):
        take(index)
    for index in _abstract(shape):
        take(index)
    for index in _nearest(shape, premises):
        take(index)
    return _render(shape, chosen)


def _named(shape: PaperLayout, premises: Sequence[str]) -> list[int]:
    text = " ".join(premises).lower()
    numbers = {m.group(1) for m in _SECTION_REF.finditer(text)}
    labels = {(m.group(1)[:3], m.group(2)) for m in _LABEL_REF.finditer(text)}
    named_sections = {
        i for i, s in enumerate(shape.sections)
        if (len(s.title) >= MIN_TITLE_CHARS and s.title.lower() in text)
        or (s.number and s.number in numbers)
    }
    found: list[int] = []
    for i, passage in enumerate(shape.passages):
        if passage.section in named_sections:
            found.append(i)
        elif labels and not passage.heading:
            present = {(m.group(1).lower()[:3], m.group(2))
                       for m in _LABEL_REF.finditer(passage.text)}
            if present & labels:
                found.append(i)
    return found


def _abstract(shape: PaperLayout) -> list[int]:
    for number, section in enumerate(shape.sections):
        if section.title.lower().strip(" :.") == "abstract":
            return [i for i, p in enumerate(shape.passages) if p.section == number]
    for i, passage in enumerate(shape.passages):
        if not passage.heading and len(passage.text.split()) >= ABSTRACT_MIN_WORDS:
            return [i]
    return []


def _nearest(shape: PaperLayout, premises: Sequence[str]) -> list[int]:
    bags = [set(_words(p.text)) for p in shape.passages]
    frequency: Counter[str] = Counter()
    for bag in bags:
        frequency.update(bag)
    n = len(bags)
    query = set(_words(" ".join(premises)))
    scores = [sum(math.log(1 + (n - frequency[w] + 0.5) / (frequency[w] + 0.5))
                  for w in query & bag) for bag in bags]
    order = sorted(range(n), key=lambda i: (-scores[i], i))
    return [i for i in order if scores[i] > 0 and not shape.passages[i].heading]


def _render(shape: PaperLayout, chosen: set[int]) -> str:
    parts: list[str] = []
    previous = -1
    for i in sorted(chosen):
        if i != previous + 1 and parts:
            parts.append(GAP)
        parts.append(shape.passages[i].text)
        previous = i
    if previous != len(shape.passages) - 1:
        parts.append(GAP)
    return "\n\n".join(parts)
