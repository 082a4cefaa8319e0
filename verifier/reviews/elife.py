"""The eLife sample (``../shared/data/elife/elife_sample.jsonl``): papers and review units.

A record's reviews file (``reviews_raw_markdown``) is read by our own rules:

1. **Blocks.** The file is cut at lines ``---`` (new-model reviewed preprints put the
   eLife assessment and each public review in its own block). Each block's header — the
   ``# Peer review`` title, the ``Editors:``/``Reviewers:`` lists, ``## Review text`` and
   the ``DOI:`` line — is removed.
2. **Labels.** With several blocks, the first is the ``eLife assessment`` when the
   reviewers are not individually listed, and the others are ``Reviewer #1``,
   ``Reviewer #2``… in order. A single block is the ``Decision letter``.
3. **Reviewer sections.** A block with at least two ``Reviewer #N …`` marker lines
   (:data:`REVIEWER_MARKER`, as in consolidated letters with per-reviewer
   recommendations) is cut there; each section is labelled by its marker line, and text
   before the first marker stays with the block's own label.

Without a ``reviews_raw_markdown``, the record's ``reviews`` list (``reviewer``, ``text``)
is used, step 3 applied to each. The comments are then split by
:func:`~.splitting.split_review` with :data:`BOILERPLATE` dropped (eLife's standard
paragraphs: the transparency notice, "Thank you for submitting…", "Your manuscript …
has been reviewed", "We discussed our comments…", "We are happy to tell you…"). Numbered
essential revisions ``1)``, ``2)`` … become one comment each, as do the prose paragraphs
of old letters and the points of public reviews.

Per-item failures are :class:`~.models.ItemError` values: a malformed line, a record
without ``paper_id`` or without manuscript text, a record with no review text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from .jsonl import records, text_field
from .models import Comment, ItemError, Paper, Review
from .splitting import comments_of

BLOCK_SEPARATOR = re.compile(r"\n-{3,}[ \t]*\n")
REVIEWER_MARKER = re.compile(
    r"^[ \t]*\**Reviewer[ \t]*#?[ \t]*(\d+)\b(?:[^\n]{0,80}:)?\**[ \t]*$", re.MULTILINE)
"""A line that is only ``Reviewer #N``, or ``Reviewer #N …:`` (at most 80 more characters
before the colon); a prose line that starts with "Reviewer 2 …" is not a marker."""
_HEADER_END = re.compile(r"^##\s+Review text\s*$", re.MULTILINE)
_DOI_LINE = re.compile(r"\A\s*DOI:[^\n]*\n?")
_NOT_LISTED = "(Reviewers not individually listed)"

BOILERPLATE: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"^eLife posts the editorial decision letter",
    r"^In the interests of transparency, eLife publishes",
    r"^Thank you for (?:submitting|choosing to send|sending|resubmitting) your",
    r"^Your (?:manuscript|article|work|paper)\b.{0,400}?\bhas been (?:reviewed|evaluated)",
    r"^We discussed our comments and concerns",
    r"^We are (?:happy|pleased|delighted) to (?:tell|inform) you",
))
"""eLife's standard paragraphs, never comments."""


def _strip_header(block: str) -> str:
    end = _HEADER_END.search(block)
    body = block[end.end():] if end else block
    return _DOI_LINE.sub("", body.lstrip("\n"), count=1).strip()


def reviewer_sections(label: str, text: str) -> list[Review]:
    """``text`` cut at ``Reviewer #N`` marker lines when there are at least two."""
    marks = list(REVIEWER_MARKER.finditer(text))
    if len(marks) < 2:
        return [Review(label, text)]
    sections: list[Review] = []
    head = text[:marks[0].start()].strip()
    if head:
        sections.append(Review(label, head))
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        end = following.start() if following else len(text)
        body = text[mark.end():end].strip()
        sections.append(Review(mark.group(0).strip().strip("*").rstrip(":").strip(), body))
    return sections


def review_units(raw_markdown: str) -> list[Review]:
    """The review units of one eLife reviews file (module docstring, steps 1–3)."""
    blocks = [b for b in BLOCK_SEPARATOR.split(raw_markdown.replace("\r\n", "\n")) if b.strip()]
    units: list[Review] = []
    if len(blocks) == 1:
        return reviewer_sections("Decision letter", _strip_header(blocks[0]))
    reviewer = 0
    for i, block in enumerate(blocks):
        body = _strip_header(block)
        if not body:
            continue
        if i == 0 and _NOT_LISTED in block:
            label = "eLife assessment"
        else:
            reviewer += 1
            label = f"Reviewer #{reviewer}"
        units.extend(reviewer_sections(label, body))
    return units


def _listed_reviews(value: object) -> list[Review]:
    if not isinstance(value, list):
        return []
    units: list[Review] = []
    for item in value:
        if isinstance(item, Mapping) and (text := text_field(item, "text")):
            label = text_field(item, "reviewer") or f"Reviewer #{len(units) + 1}"
            units.extend(reviewer_sections(label, text))
    return units


def paper_from_record(record: Mapping[str, object], where: str) -> Paper | ItemError:
    paper_id = text_field(record, "paper_id")
    if paper_id is None:
        return ItemError(where, "no paper_id")
    text = text_field(record, "manuscript_markdown") or text_field(record, "text")
    if text is None:
        return ItemError(paper_id, "no manuscript text")
    raw = text_field(record, "reviews_raw_markdown")
    units = review_units(raw) if raw else _listed_reviews(record.get("reviews"))
    units = [u for u in units if u.text.strip()]
    if not units:
        return ItemError(paper_id, "no review text")
    refs = text_field(record, "references_text")
    references = tuple(line.strip() for line in refs.splitlines() if line.strip()) if refs else ()
    return Paper(paper_id, text_field(record, "title") or "", text, references, tuple(units))


def read_elife(path: Path) -> Iterator[Paper | ItemError]:
    """Each record of an eLife JSON-lines file as a :class:`Paper`, or an error value."""
    for item in records(path):
        yield item if isinstance(item, ItemError) else paper_from_record(item[1], item[0])


def elife_comments(paper: Paper, source: str = "human") -> tuple[list[Comment], list[ItemError]]:
    """The paper's review units split into comments, eLife boilerplate dropped."""
    return comments_of(paper, source, drop=BOILERPLATE)
