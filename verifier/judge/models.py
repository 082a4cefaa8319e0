"""The values the judge's steps produce and its metrics read."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Stance(StrEnum):
    SUPPORTIVE = "SUPPORTIVE"
    CRITICAL = "CRITICAL"
    NEUTRAL = "NEUTRAL"


STANCE_PRECEDENCE: tuple[Stance, ...] = (Stance.CRITICAL, Stance.SUPPORTIVE, Stance.NEUTRAL)
"""How ties between equally frequent stances are broken: the first wins."""


class CritiqueType(StrEnum):
    VALIDITY = "validity"
    SUFFICIENCY = "sufficiency"
    CONTRIBUTION = "contribution"
    CLARITY = "clarity"
    TRANSPARENCY = "transparency"


@dataclass(frozen=True, slots=True)
class ExtractedClaim:
    claim_id: str
    """``<paper_id>:claim-<i>``, i from 1, assigned by code (:func:`.validate.claim_id`)."""
    summary: str
    source_excerpt: str | None


@dataclass(frozen=True, slots=True)
class ParsedComment:
    """Comment parsing's fields; each is a text or None."""

    comment_index: int
    """1-based position in the batch sent to the model."""
    anchor: str | None
    specification: str | None
    justification: str | None
    remedy: str | None


@dataclass(frozen=True, slots=True)
class ClaimMapping:
    claim_id: str | None
    stance: Stance | None
    """None without a claim."""
    is_consequential: bool | None
    """None without a claim; otherwise a bool (missing → False)."""


@dataclass(frozen=True, slots=True)
class JudgedComment:
    """One assessed comment: what parsing, mapping and typing said about it."""

    anchor: str | None = None
    specification: str | None = None
    justification: str | None = None
    remedy: str | None = None
    claim_id: str | None = None
    stance: Stance | None = None
    is_consequential: bool | None = None
    critique_type: CritiqueType | None = None


@dataclass(frozen=True, slots=True)
class SourceJudgement:
    """Everything judged about one source's comments on one paper.

    ``claim_ids`` are the paper's extracted claims (the same for every source of the
    paper); ``comments`` the assessed comments; ``unjudged`` counts the source's comments
    that could not be judged (they count in ``comments_per_paper`` and nowhere else).
    """

    paper_id: str
    source: str
    claim_ids: tuple[str, ...]
    comments: tuple[JudgedComment, ...]
    unjudged: int = 0
