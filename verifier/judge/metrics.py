"""ReviewBench's metrics, per paper and source, then averaged over papers.

For one source on one paper (a :class:`~.models.SourceJudgement`), with *assessed* = the
comments that were judged:

========================== ===================================================================
``comments_per_paper``     assessed + unjudged comments
``mapped_rate``            comments with a claim / assessed ("points to a claim")
``consequential_rate``     mapped comments that are consequential / mapped ("could overturn it")
``specification_rate``     comments with a specification / assessed
``justification_rate``     comments with a justification / assessed ("says why it matters")
``remedy_rate``            comments with a remedy / assessed ("proposes a fix")
``anchor_rate``            comments with an anchor / assessed ("anchored in the text")
``claim_coverage``         distinct extracted claims hit / claims extracted
``overlap_with_humans``    |claims hit ∩ claims the humans hit| / |claims the humans hit|
``stance_matched_overlap`` human-hit claims with a dominant human stance whose dominant stance
                           from this source is the same / human-hit claims with a dominant
                           human stance
========================== ===================================================================

Rates are ratios in 0…1. A zero denominator gives NaN. The two overlap metrics are NaN for
the human source itself and for a paper without human comments. The *dominant stance* of a
claim is the most frequent non-null stance among the source's comments mapped to it; ties
go to CRITICAL, then SUPPORTIVE, then NEUTRAL. A source that did not hit a human claim has
no stance on it, which never matches.

Averaging (:func:`average`) takes the mean over the papers where the metric is defined and
reports how many (n). Comparisons use paired vectors (:func:`paired`): only papers where
both sources' values are defined.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .models import STANCE_PRECEDENCE, JudgedComment, SourceJudgement, Stance

HUMAN = "human"
"""The source whose comments the overlap metrics compare with."""

METRICS: tuple[str, ...] = (
    "comments_per_paper",
    "mapped_rate",
    "consequential_rate",
    "claim_coverage",
    "overlap_with_humans",
    "stance_matched_overlap",
    "justification_rate",
    "remedy_rate",
    "anchor_rate",
    "specification_rate",
)

NAN = math.nan

PerPaper = dict[str, dict[str, dict[str, float]]]
"""source → paper_id → metric → value (NaN where undefined)."""


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else NAN


def dominant_stance(stances: Iterable[Stance | None]) -> Stance | None:
    """The most frequent stance (None values ignored); ties CRITICAL > SUPPORTIVE > NEUTRAL."""
    counts = Counter(s for s in stances if s is not None)
    if not counts:
        return None
    return max(STANCE_PRECEDENCE, key=lambda s: (counts[s], -STANCE_PRECEDENCE.index(s)))


def dominant_stances(comments: Iterable[JudgedComment]) -> dict[str, Stance]:
    """Claim id → dominant stance, for the claims that have one."""
    by_claim: dict[str, list[Stance | None]] = {}
    for c in comments:
        if c.claim_id is not None:
            by_claim.setdefault(c.claim_id, []).append(c.stance)
    return {claim: s for claim, stances in by_claim.items()
            if (s := dominant_stance(stances)) is not None}


def claims_hit(comments: Iterable[JudgedComment]) -> set[str]:
    return {c.claim_id for c in comments if c.claim_id is not None}


def paper_metrics(judgement: SourceJudgement, human: SourceJudgement | None,
                  *, human_source: str = HUMAN) -> dict[str, float]:
    """Every metric of :data:`METRICS` for one source on one paper (see the module table).

    ``human`` is the human source's judgement of the same paper, or None."""
    comments = judgement.comments
    assessed = len(comments)
    mapped = [c for c in comments if c.claim_id is not None]
    extracted = set(judgement.claim_ids)
    hit = claims_hit(comments)
    values = {
        "comments_per_paper": float(assessed + judgement.unjudged),
        "mapped_rate": _ratio(len(mapped), assessed),
        "consequential_rate": _ratio(sum(c.is_consequential is True for c in mapped),
                                     len(mapped)),
        "claim_coverage": _ratio(len(hit & extracted), len(extracted)),
        "justification_rate": _ratio(sum(c.justification is not None for c in comments),
                                     assessed),
        "remedy_rate": _ratio(sum(c.remedy is not None for c in comments), assessed),
        "anchor_rate": _ratio(sum(c.anchor is not None for c in comments), assessed),
        "specification_rate": _ratio(sum(c.specification is not None for c in comments),
                                     assessed),
        "overlap_with_humans": NAN,
        "stance_matched_overlap": NAN,
    }
    if human is not None and judgement.source != human_source:
        human_hit = claims_hit(human.comments)
        values["overlap_with_humans"] = _ratio(len(hit & human_hit), len(human_hit))
        theirs = dominant_stances(human.comments)
        ours = dominant_stances(comments)
        values["stance_matched_overlap"] = _ratio(
            sum(ours.get(claim) is stance for claim, stance in theirs.items()), len(theirs))
    return values


def per_paper(judgements: Iterable[SourceJudgement], *, human_source: str = HUMAN) -> PerPaper:
    """All metrics for every (source, paper). Raises ValueError on a repeated pair."""
    items = list(judgements)
    humans = {j.paper_id: j for j in items if j.source == human_source}
    result: PerPaper = {}
    for j in items:
        papers = result.setdefault(j.source, {})
        if j.paper_id in papers:
            raise ValueError(f"{j.source} on {j.paper_id} is judged twice")
        papers[j.paper_id] = paper_metrics(j, humans.get(j.paper_id), human_source=human_source)
    return result


@dataclass(frozen=True, slots=True)
class Averaged:
    mean: float
    n: int
    """Papers where the metric is defined."""


def defined(values: Iterable[float]) -> list[float]:
    return [v for v in values if not math.isnan(v)]


def average(values: Iterable[float]) -> Averaged:
    """Mean over the defined (non-NaN) values; NaN with n = 0 when there are none."""
    kept = defined(values)
    return Averaged(sum(kept) / len(kept) if kept else NAN, len(kept))


def metric_vector(table: PerPaper, source: str, metric: str) -> dict[str, float]:
    """paper_id → value of one metric for one source (NaN included)."""
    return {paper: values[metric] for paper, values in table.get(source, {}).items()}


@dataclass(frozen=True, slots=True)
class Paired:
    papers: tuple[str, ...]
    a: tuple[float, ...]
    b: tuple[float, ...]


def paired(table: PerPaper, metric: str, source_a: str, source_b: str) -> Paired:
    """The per-paper values of both sources on the papers where both are defined, in
    paper-id order."""
    va = metric_vector(table, source_a, metric)
    vb = metric_vector(table, source_b, metric)
    papers = sorted(p for p in va.keys() & vb.keys()
                    if not math.isnan(va[p]) and not math.isnan(vb[p]))
    return Paired(tuple(papers), tuple(va[p] for p in papers), tuple(vb[p] for p in papers))


def critical_pairs(human: Sequence[SourceJudgement], other: Sequence[SourceJudgement]
                   ) -> tuple[list[bool], list[bool]]:
    """For Cohen's kappa: over the (paper, claim) units that both sources addressed with a
    dominant stance, whether each source's dominant stance is CRITICAL (human, other)."""
    theirs: Mapping[str, SourceJudgement] = {j.paper_id: j for j in other}
    xs: list[bool] = []
    ys: list[bool] = []
    for h in sorted(human, key=lambda j: j.paper_id):
        o = theirs.get(h.paper_id)
        if o is None:
            continue
        hs, os_ = dominant_stances(h.comments), dominant_stances(o.comments)
        for claim in sorted(hs.keys() & os_.keys()):
            xs.append(hs[claim] is Stance.CRITICAL)
            ys.append(os_[claim] is Stance.CRITICAL)
    return xs, ys
