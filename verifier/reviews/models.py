"""The values review readers produce."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Review:
    """One reviewer's (or the editors') text on a paper."""

    reviewer: str
    """As the source labels it: ``Reviewer #2``, ``eLife assessment``, ``Decision letter``…"""
    text: str
    rating: int | None = None
    confidence: int | None = None


@dataclass(frozen=True, slots=True)
class Paper:
    paper_id: str
    title: str
    text: str
    references: tuple[str, ...]
    reviews: tuple[Review, ...]
    decision: str | None = None
    """The venue's decision text when the data has one (``"Accept (poster)"``)."""


@dataclass(frozen=True, slots=True)
class Comment:
    paper_id: str
    comment_id: str
    """``<paper_id>:<source>:<review>.<point>``, both 1-based."""
    source: str
    text: str
    reviewer: str = ""


@dataclass(frozen=True, slots=True)
class ItemError:
    """An input item that could not be used, and why; the run goes on without it."""

    item: str
    """What failed: ``<file>:<line>``, a paper id, or ``<paper_id>/<reviewer>``."""
    reason: str
