"""ReviewGrounder's rubric evaluation: item scores, the total, rating and decision errors.

A generated review is scored against eight paper-specific rubric items (:data:`ITEMS`):
seven scored 0, 1 or 2 and the pitfall "False or Contradictory Claims" scored 0, −1 or
−2, so the total lies in −2…14. :func:`score_rubric` validates a judge's answer (every
item present, each an integer in its range, no unknown item) and raises ValueError naming
the offending item; the caller turns that into a per-item error.

When the input carries them (the NeurIPS set has reviewers' ratings and the decisions):
:func:`rating_errors` gives MSE and MAE of predicted against reference ratings (pairs
with a missing value are skipped and counted), and :func:`decision_scores` accuracy and
F1 of predicted against actual decisions, *accept* being the positive class
(:func:`accepts` reads a decision text such as ``"Accept (poster)"``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

PITFALL = "False or Contradictory Claims"
ITEMS: dict[str, tuple[int, ...]] = {
    "Core Contribution Accuracy": (0, 1, 2),
    "Results Interpretation": (0, 1, 2),
    "Comparative Analysis": (0, 1, 2),
    "Evidence-Based Critique": (0, 1, 2),
    "Critique Clarity": (0, 1, 2),
    "Completeness Coverage": (0, 1, 2),
    "Constructive Tone": (0, 1, 2),
    PITFALL: (0, -1, -2),
}
"""Item → allowed scores."""
TOTAL_RANGE = (-2, 14)


@dataclass(frozen=True, slots=True)
class RubricScore:
    items: Mapping[str, int]

    @property
    def total(self) -> int:
        return sum(self.items.values())


def score_rubric(answer: Mapping[str, object]) -> RubricScore:
    """The validated rubric scores (module docstring)."""
    unknown = sorted(set(answer) - set(ITEMS))
    if unknown:
        raise ValueError(f"unknown rubric item(s): {', '.join(unknown)}")
    items: dict[str, int] = {}
    for name, allowed in ITEMS.items():
        if name not in answer:
            raise ValueError(f"rubric item missing: {name}")
        value = answer[name]
        if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
            raise ValueError(f"rubric item {name}: {value!r} is not one of {allowed}")
        items[name] = value
    return RubricScore(items)


@dataclass(frozen=True, slots=True)
class RatingErrors:
    mse: float
    mae: float
    n: int
    skipped: int


def rating_errors(predicted: Sequence[float | None],
                  reference: Sequence[float | None]) -> RatingErrors:
    if len(predicted) != len(reference):
        raise ValueError("one reference rating per prediction is needed")
    pairs = [(p, r) for p, r in zip(predicted, reference, strict=True)
             if p is not None and r is not None]
    skipped = len(predicted) - len(pairs)
    if not pairs:
        return RatingErrors(math.nan, math.nan, 0, skipped)
    errors = [p - r for p, r in pairs]
    return RatingErrors(sum(e * e for e in errors) / len(errors),
                        sum(abs(e) for e in errors) / len(errors), len(errors), skipped)


def accepts(decision: str) -> bool | None:
    """True for an accept decision (``"Accept (oral)"``…), False for a reject, else None."""
    word = decision.strip().lower()
    if word.startswith("accept"):
        return True
    if word.startswith("reject"):
        return False
    return None


@dataclass(frozen=True, slots=True)
class DecisionScores:
    accuracy: float
    f1: float
    """F1 of the accept class; NaN when there is no true or predicted accept."""
    n: int


def decision_scores(predicted: Sequence[bool], actual: Sequence[bool]) -> DecisionScores:
    if len(predicted) != len(actual):
        raise ValueError("one actual decision per prediction is needed")
    n = len(actual)
    if n == 0:
        return DecisionScores(math.nan, math.nan, 0)
    tp = sum(p and a for p, a in zip(predicted, actual, strict=True))
    fp = sum(p and not a for p, a in zip(predicted, actual, strict=True))
    fn = sum(a and not p for p, a in zip(predicted, actual, strict=True))
    correct = sum(p == a for p, a in zip(predicted, actual, strict=True))
    f1 = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else math.nan
    return DecisionScores(correct / n, f1, n)
