"""Decision values built from the probabilities a server sent, checked and renormalised.

Every decision format ends here, so every backend's answers obey one contract
(:class:`~verifier.llm.types.Decision`): probabilities are finite, within [0, 1] (a
rounding slack of 0.01 is tolerated and clipped), and a distribution is renormalised to
sum to 1 (hosts round to two decimals). An answer that breaks this is
``MalformedResponse``, never a guessed value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from verifier.errors import MalformedResponse
from verifier.llm.types import AnswerKind, Choice, Decision, Predicate, Question, Score

SLACK = 0.01


def probability(value: Any, what: str) -> float:
    """``value`` as a probability (clipped within the rounding slack), else an error."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedResponse(f"{what} is not a number: {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < -SLACK or number > 1 + SLACK:
        raise MalformedResponse(f"{what} is not a probability: {value!r}")
    return min(1.0, max(0.0, number))


def predicate(p_yes: float) -> Decision:
    return Decision(kind=AnswerKind.PREDICATE, probability=p_yes,
                    probabilities={"yes": p_yes, "no": 1.0 - p_yes})


def refusal() -> Decision:
    return Decision(kind=AnswerKind.REFUSAL, probability=None)


def normalise(weights: Mapping[str, float], labels: Sequence[str], what: str) -> dict[str, float]:
    """``weights`` over exactly ``labels`` (absent labels 0), scaled to sum to 1."""
    unknown = set(weights) - set(labels)
    if unknown:
        raise MalformedResponse(f"{what}: unknown options {sorted(unknown)!r}")
    total = sum(weights.values())
    if not total > 0:
        raise MalformedResponse(f"{what}: the probabilities sum to {total}")
    return {label: weights.get(label, 0.0) / total for label in labels}


def distribution(
    question: Choice | Score,
    weights: Mapping[str, float],
    what: str,
    *,
    confidence: float | None = None,
    chosen: str | None = None,
) -> Decision:
    """A choice or score decision from weights keyed by option or level label.

    A choice's ``probability`` is its chosen option's probability (``chosen`` as the
    server named it, else the most probable); a score's is the probability-weighted mean
    level index scaled to 0–1, and its ``choice`` the most probable level.
    """
    labels = list(question.options) if isinstance(question, Choice) else list(question.levels)
    probs = normalise(weights, labels, what)
    best = max(labels, key=lambda label: probs[label])
    if isinstance(question, Choice):
        if chosen is not None and chosen not in probs:
            raise MalformedResponse(f"{what}: chose an unknown option {chosen!r}")
        pick = chosen if chosen is not None else best
        return Decision(kind=AnswerKind.CHOICE, probability=probs[pick], probabilities=probs,
                        choice=pick, confidence=confidence)
    mean = sum(index * probs[label] for index, label in enumerate(labels))
    return Decision(kind=AnswerKind.SCORE, probability=mean / (len(labels) - 1),
                    probabilities=probs, choice=best, confidence=confidence)


def score_from_mean(question: Score, mean_index: float, what: str,
                    confidence: float | None = None) -> Decision:
    """A score decision from the mean level index alone (no distribution was sent)."""
    top = len(question.levels) - 1
    if not math.isfinite(mean_index) or not -SLACK <= mean_index <= top + SLACK:
        raise MalformedResponse(f"{what}: score {mean_index!r} is outside 0..{top}")
    mean = min(float(top), max(0.0, mean_index))
    return Decision(kind=AnswerKind.SCORE, probability=mean / top,
                    choice=question.levels[round(mean)], confidence=confidence)


def kind_of(question: Question) -> AnswerKind:
    if isinstance(question, Predicate):
        return AnswerKind.PREDICATE
    if isinstance(question, Choice):
        return AnswerKind.CHOICE
    return AnswerKind.SCORE


def check_questions(questions: Mapping[str, Question], at_most: int) -> None:
    """One to ``at_most`` questions with non-empty names, or ``ValueError``."""
    if not 1 <= len(questions) <= at_most:
        raise ValueError(f"a decision request takes 1 to {at_most} questions, "
                         f"got {len(questions)}")
    for name in questions:
        if not name:
            raise ValueError("a question needs a non-empty name")
