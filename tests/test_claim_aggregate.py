"""A comment's score from its premises: minimum, flagged premise, routing, field variants."""

from __future__ import annotations

import pytest

from verifier.claims.aggregate import (
    Aggregate,
    Field,
    Inconclusive,
    NeedsHolistic,
    Premise,
    PremiseKind,
    Route,
    Scored,
    combine_phrasings,
    decomposition_problem,
    holistic,
    invert_contradiction,
    route,
    score_comment,
    verified_premises,
)


def p(p_true: float | None, kind: PremiseKind | None = None, text: str = "x") -> Premise:
    return Premise(text=text, kind=kind, p_true=p_true)


@pytest.mark.parametrize(
    ("p_grounded", "routing", "expected"),
    [
        (0.5, True, Route.PAPER),  # the threshold is inclusive
        (0.4999, True, Route.KNOWLEDGE),
        (0.9, True, Route.PAPER),
        (0.0, True, Route.KNOWLEDGE),
        (0.0, False, Route.PAPER),  # the no-route ablation: everything to the paper
        (0.3, False, Route.PAPER),
    ],
)
def test_routing_at_one_half(p_grounded: float, routing: bool, expected: Route) -> None:
    assert route(p_grounded, routing=routing) is expected


def test_routing_rejects_a_non_probability() -> None:
    with pytest.raises(ValueError):
        route(1.5)


@pytest.mark.parametrize(
    ("scores", "aggregate", "score", "flagged"),
    [
        ([0.9, 0.2, 0.7], Aggregate.MIN, 0.2, 1),
        ([0.9, 0.2, 0.7], Aggregate.MEAN, 0.6, 1),  # the mean still flags the argmin
        ([0.4, 0.4, 0.8], Aggregate.MIN, 0.4, 0),  # ties flag the first
        ([0.55], Aggregate.MIN, 0.55, 0),
        ([0.55], Aggregate.MEAN, 0.55, 0),
    ],
)
def test_the_score_is_the_minimum_and_the_flag_the_argmin(
        scores: list[float], aggregate: Aggregate, score: float, flagged: int) -> None:
    got = score_comment([p(s) for s in scores], aggregate=aggregate)
    assert isinstance(got, Scored)
    assert got.score == pytest.approx(score)
    assert got.flagged == flagged
    assert not got.fallback


def test_no_premise_asks_for_the_holistic_fallback() -> None:
    assert isinstance(score_comment([]), NeedsHolistic)
    fallback = holistic(0.35)
    assert (fallback.score, fallback.flagged, fallback.fallback) == (0.35, None, True)


def test_a_premise_that_could_not_be_verified_makes_the_comment_inconclusive() -> None:
    got = score_comment([p(0.9), p(None), p(0.1)])
    assert isinstance(got, Inconclusive)
    assert got.premise == 1 and "premise 2" in got.reason


@pytest.mark.parametrize(
    ("kinds", "field", "verified"),
    [
        # Natural science: only paper premises, unless none is typed paper.
        ([PremiseKind.PAPER, PremiseKind.OPINION, PremiseKind.KNOWLEDGE],
         Field.NATURAL_SCIENCE, (0,)),
        ([PremiseKind.OPINION, PremiseKind.PAPER, PremiseKind.PAPER],
         Field.NATURAL_SCIENCE, (1, 2)),
        ([PremiseKind.OPINION, PremiseKind.KNOWLEDGE], Field.NATURAL_SCIENCE, (0, 1)),
        # Other fields verify every premise whatever its type.
        ([PremiseKind.PAPER, PremiseKind.OPINION], Field.MACHINE_LEARNING, (0, 1)),
        ([None, None], Field.GENERAL, (0, 1)),
    ],
)
def test_which_premises_are_verified(kinds: list[PremiseKind | None], field: Field,
                                     verified: tuple[int, ...]) -> None:
    assert verified_premises([p(0.5, k) for k in kinds], field) == verified


def test_natural_science_scores_only_paper_premises() -> None:
    premises = [p(0.05, PremiseKind.OPINION), p(0.7, PremiseKind.PAPER),
                p(0.9, PremiseKind.PAPER)]
    got = score_comment(premises, field=Field.NATURAL_SCIENCE)
    assert isinstance(got, Scored)
    assert (got.score, got.flagged, got.verified) == (0.7, 1, (1, 2))
    # The unverified opinion may even lack a score without making the comment inconclusive.
    premises[0] = p(None, PremiseKind.OPINION)
    assert isinstance(score_comment(premises, field=Field.NATURAL_SCIENCE), Scored)
    # The same premises under machine learning: the opinion counts and fails.
    assert isinstance(score_comment(premises, field=Field.MACHINE_LEARNING), Inconclusive)


def test_phrasings_are_averaged_and_the_contradiction_question_inverted() -> None:
    assert combine_phrasings([0.6, 0.8, 1.0]) == pytest.approx(0.8)
    assert combine_phrasings([0.1, 0.3], contradiction=True) == pytest.approx(0.8)
    assert invert_contradiction(0.25) == 0.75
    with pytest.raises(ValueError):
        combine_phrasings([])
    with pytest.raises(ValueError):
        combine_phrasings([0.5, -0.1])


@pytest.mark.parametrize(
    ("premises", "field", "problem"),
    [
        ([p(0.5)] * 4, Field.MACHINE_LEARNING, None),
        ([p(0.5)] * 5, Field.MACHINE_LEARNING, "5 premises"),
        ([p(0.5)] * 6, Field.GENERAL, None),
        ([p(0.5)] * 7, Field.GENERAL, "7 premises"),
        ([p(0.5, PremiseKind.KNOWLEDGE)] * 2, Field.MACHINE_LEARNING, "2 general-knowledge"),
        ([p(0.5, PremiseKind.KNOWLEDGE), p(0.5)], Field.MACHINE_LEARNING, None),
        ([p(0.5, PremiseKind.PAPER), p(0.5)], Field.NATURAL_SCIENCE, "must be typed"),
        ([], Field.MACHINE_LEARNING, None),
    ],
)
def test_field_limits_on_a_decomposition(premises: list[Premise], field: Field,
                                         problem: str | None) -> None:
    got = decomposition_problem(premises, field)
    if problem is None:
        assert got is None
    else:
        assert got is not None and problem in got


def test_routed_knowledge_premises_count_against_the_machine_learning_limit() -> None:
    routed = [Premise("a", route=Route.KNOWLEDGE), Premise("b", route=Route.KNOWLEDGE)]
    assert decomposition_problem(routed, Field.MACHINE_LEARNING) is not None
