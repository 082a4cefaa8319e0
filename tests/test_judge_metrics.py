"""ReviewBench's per-paper metrics on a worked example, dominant stances and NaN handling."""

from __future__ import annotations

import math

import pytest

from verifier.judge.metrics import (
    METRICS,
    average,
    critical_pairs,
    dominant_stance,
    paired,
    paper_metrics,
    per_paper,
)
from verifier.judge.models import JudgedComment, SourceJudgement, Stance

C, S, N = Stance.CRITICAL, Stance.SUPPORTIVE, Stance.NEUTRAL
CLAIMS = ("p:claim-1", "p:claim-2", "p:claim-3", "p:claim-4")
C1, C2, C3, _ = CLAIMS


def jc(claim: str | None = None, stance: Stance | None = None, consequential: bool | None = None,
       *, anchor: str | None = None, spec: str | None = None, why: str | None = None,
       fix: str | None = None) -> JudgedComment:
    return JudgedComment(anchor=anchor, specification=spec, justification=why, remedy=fix,
                         claim_id=claim, stance=stance, is_consequential=consequential)


HUMAN = SourceJudgement("p", "human", CLAIMS, (
    jc(C1, C, True, anchor="Fig 2", spec="x", why="y"),
    jc(C1, S, False, spec="x"),
    jc(C2, N, True),
    jc(spec="x", fix="z"),  # editorial: no claim
), unjudged=1)
AI = SourceJudgement("p", "ai", CLAIMS, (
    jc(C1, S, True, spec="x", why="y", fix="z", anchor="Table 1"),
    jc(C1, C, True, spec="x", why="y", fix="z"),
    jc(C1, S, False, spec="x", why="y"),
    jc(C3, C, True, spec="x"),
    jc(C2, N, True, spec="x"),
    jc(C2, N, None, spec="x"),
))


def test_the_human_source_on_a_worked_example() -> None:
    got = paper_metrics(HUMAN, HUMAN)
    assert got["comments_per_paper"] == 5  # 4 assessed + 1 unjudged
    assert got["mapped_rate"] == 3 / 4
    assert got["consequential_rate"] == 2 / 3
    assert got["claim_coverage"] == 2 / 4
    assert (got["anchor_rate"], got["specification_rate"]) == (1 / 4, 3 / 4)
    assert (got["justification_rate"], got["remedy_rate"]) == (1 / 4, 1 / 4)
    # The overlaps compare with the humans: undefined for the humans themselves.
    assert math.isnan(got["overlap_with_humans"]) and math.isnan(got["stance_matched_overlap"])


def test_an_ai_source_on_the_worked_example() -> None:
    got = paper_metrics(AI, HUMAN)
    assert got["comments_per_paper"] == 6
    assert got["mapped_rate"] == 1.0
    assert got["consequential_rate"] == 4 / 6  # None counts as not consequential
    assert got["claim_coverage"] == 3 / 4
    assert got["overlap_with_humans"] == 2 / 2  # {c1, c2, c3} ∩ {c1, c2}
    # Human dominant: c1 CRITICAL (1:1 tie broken to CRITICAL), c2 NEUTRAL.
    # AI dominant: c1 SUPPORTIVE (2:1), c2 NEUTRAL. One of two matches.
    assert got["stance_matched_overlap"] == 1 / 2
    assert set(got) == set(METRICS)


def test_overlaps_are_undefined_without_human_comments_on_the_paper() -> None:
    got = paper_metrics(AI, None)
    assert math.isnan(got["overlap_with_humans"])
    nobody = SourceJudgement("p", "human", CLAIMS, (jc(spec="editorial"),))
    assert math.isnan(paper_metrics(AI, nobody)["overlap_with_humans"])


@pytest.mark.parametrize(
    ("stances", "dominant"),
    [
        ([C, S], C), ([S, N], S), ([C, N], C), ([C, S, N], C),  # ties by precedence
        ([N, N, S], N), ([C, S, S], S), ([S, N, N], N),  # the most frequent wins
        ([None, N], N), ([None], None), ([], None),
    ],
)
def test_dominant_stance(stances: list[Stance | None], dominant: Stance | None) -> None:
    assert dominant_stance(stances) is dominant


def test_a_zero_denominator_is_nan_and_dropped_pairwise() -> None:
    p2_human = SourceJudgement("q", "human", ("q:claim-1",), (jc("q:claim-1", C, True),))
    # The AI's only comment on q could not be judged: every rate is undefined there.
    p2_ai = SourceJudgement("q", "ai", ("q:claim-1",), (), unjudged=1)
    table = per_paper([HUMAN, AI, p2_human, p2_ai])
    assert math.isnan(table["ai"]["q"]["mapped_rate"])
    assert table["ai"]["q"]["comments_per_paper"] == 1
    both = paired(table, "mapped_rate", "human", "ai")
    assert both.papers == ("p",) and both.a == (0.75,) and both.b == (1.0,)
    assert average(v["mapped_rate"] for v in table["ai"].values()).n == 1
    counts = paired(table, "comments_per_paper", "human", "ai")
    assert counts.papers == ("p", "q")


def test_a_paper_judged_twice_for_one_source_is_an_error() -> None:
    with pytest.raises(ValueError):
        per_paper([AI, AI])


def test_kappa_units_are_claims_both_sources_addressed() -> None:
    xs, ys = critical_pairs([HUMAN], [AI])
    # Shared claims with a dominant stance: c1 (human C, AI S) and c2 (N, N).
    assert (xs, ys) == ([True, False], [False, False])


def test_average_is_over_defined_values_only() -> None:
    got = average([0.5, math.nan, 1.0])
    assert (got.mean, got.n) == (0.75, 2)
    none = average([math.nan])
    assert math.isnan(none.mean) and none.n == 0
