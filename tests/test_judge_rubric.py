"""ReviewGrounder's rubric scores, and rating and decision errors against scikit-learn."""

from __future__ import annotations

import math

import pytest
from sklearn.metrics import accuracy_score, f1_score, mean_absolute_error, mean_squared_error

from verifier.judge.rubric import (
    ITEMS,
    PITFALL,
    TOTAL_RANGE,
    accepts,
    decision_scores,
    rating_errors,
    score_rubric,
)

BEST = {name: (0 if name == PITFALL else 2) for name in ITEMS}
WORST = {name: (-2 if name == PITFALL else 0) for name in ITEMS}


def test_eight_items_and_a_total_from_minus_two_to_fourteen() -> None:
    assert len(ITEMS) == 8
    assert score_rubric(BEST).total == TOTAL_RANGE[1] == 14
    assert score_rubric(WORST).total == TOTAL_RANGE[0] == -2
    mixed = dict(BEST, **{"Comparative Analysis": 1, PITFALL: -1})
    assert score_rubric(mixed).total == 12


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({PITFALL: 1}, PITFALL),  # the pitfall only subtracts
        ({"Critique Clarity": -1}, "Critique Clarity"),
        ({"Critique Clarity": 3}, "Critique Clarity"),
        ({"Critique Clarity": True}, "Critique Clarity"),
        ({"Critique Clarity": "2"}, "Critique Clarity"),
        ({"Novelty": 2}, "Novelty"),
    ],
)
def test_an_invalid_rubric_answer_names_the_item(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_rubric({**BEST, **change})


def test_a_missing_item_is_an_error() -> None:
    partial = dict(BEST)
    del partial["Constructive Tone"]
    with pytest.raises(ValueError, match="Constructive Tone"):
        score_rubric(partial)


def test_rating_errors_equal_scikit_learn_and_skip_missing_pairs() -> None:
    predicted: list[float | None] = [4, 5, 3, None, 6, 2]
    reference: list[float | None] = [4, 3, 4, 5, 5, None]
    got = rating_errors(predicted, reference)
    kept_p, kept_r = [4, 5, 3, 6], [4, 3, 4, 5]
    assert got.mse == pytest.approx(mean_squared_error(kept_r, kept_p))
    assert got.mae == pytest.approx(mean_absolute_error(kept_r, kept_p))
    assert (got.n, got.skipped) == (4, 2)
    assert math.isnan(rating_errors([None], [3]).mse)


def test_decision_accuracy_and_f1_equal_scikit_learn() -> None:
    predicted = [True, True, False, True, False, False, True]
    actual = [True, False, False, True, True, False, True]
    got = decision_scores(predicted, actual)
    assert got.accuracy == pytest.approx(accuracy_score(actual, predicted))
    assert got.f1 == pytest.approx(f1_score(actual, predicted))
    assert math.isnan(decision_scores([False], [False]).f1)


@pytest.mark.parametrize(
    ("text", "accepted"),
    [("Accept (poster)", True), ("Accept (oral)", True), ("Reject", False),
     (" reject ", False), ("Withdrawn", None)],
)
def test_decision_texts(text: str, accepted: bool | None) -> None:
    assert accepts(text) is accepted
