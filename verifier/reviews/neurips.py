"""The NeurIPS 2025 OpenReview sample (``../shared/data/reviews/neurips2025_openreview/``).

Each record holds the paper (``text``, ``references`` as a list of strings), its decision
and 3–5 official reviews, one text per reviewer with ``SUMMARY:``, ``STRENGTHS AND
WEAKNESSES:``, ``QUESTIONS:`` and ``LIMITATIONS:`` sections. A review is split into
comments by :func:`~.splitting.split_review` like any other: section names are headings,
each numbered or bulleted point and each paragraph is one comment (the weaknesses and
the questions alike). Ratings and confidences are kept on the :class:`~.models.Review`
for the rubric evaluation's rating errors.

Per-item failures are :class:`~.models.ItemError` values: a malformed line, a record
without ``paper_id`` or ``text``, references that are not a list of strings, a record
with no review text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from .jsonl import records, text_field
from .models import Comment, ItemError, Paper, Review
from .splitting import comments_of


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def paper_fields(record: Mapping[str, object], where: str
                 ) -> tuple[str, str, tuple[str, ...]] | ItemError:
    """A paper record's id, text and references (``None`` or absent: none), or the error
    naming it; shared by every reader of paper records."""
    paper_id = text_field(record, "paper_id")
    if paper_id is None:
        return ItemError(where, "no paper_id")
    text = text_field(record, "text")
    if text is None:
        return ItemError(paper_id, "no paper text")
    refs = record.get("references") or []
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        return ItemError(paper_id, "references must be a list of strings")
    return paper_id, text, tuple(r.strip() for r in refs if r.strip())


def paper_from_record(record: Mapping[str, object], where: str) -> Paper | ItemError:
    fields = paper_fields(record, where)
    if isinstance(fields, ItemError):
        return fields
    paper_id, text, refs = fields
    raw_reviews = record.get("reviews")
    reviews = tuple(
        Review(text_field(r, "reviewer") or f"Reviewer {i}", body,
               _int(r.get("rating")), _int(r.get("confidence")))
        for i, r in enumerate(raw_reviews if isinstance(raw_reviews, list) else [], start=1)
        if isinstance(r, Mapping) and (body := text_field(r, "text"))
    )
    if not reviews:
        return ItemError(paper_id, "no review text")
    return Paper(paper_id, text_field(record, "title") or "", text, refs, reviews,
                 text_field(record, "decision"))


def read_neurips(path: Path) -> Iterator[Paper | ItemError]:
    """Each record of the NeurIPS JSON-lines file as a :class:`Paper`, or an error value."""
    for item in records(path):
        yield item if isinstance(item, ItemError) else paper_from_record(item[1], item[0])


def neurips_comments(paper: Paper, source: str = "human") -> tuple[list[Comment], list[ItemError]]:
    return comments_of(paper, source)
