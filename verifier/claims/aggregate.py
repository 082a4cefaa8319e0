"""A review comment's score from its premises (PremiseCheck's routing and aggregation).

The pipeline (built elsewhere) decomposes a comment into premises, asks a decision model
for P(grounded in the paper) and P(true) of each, and calls these pure functions:

- :func:`route`: P(grounded) ≥ :data:`ROUTE_THRESHOLD` (0.5) → ``paper``, else
  ``knowledge``; ``routing=False`` (the no-route ablation) sends every premise to the paper.
- :func:`combine_phrasings`: P(true) of one premise = the mean over its K phrasings; in
  the natural-science variant each phrasing's answer is P(contradicted), inverted first.
- :func:`verified_premises`: which premises count. Machine learning (and the general
  case): all of them. Natural science: only those typed ``paper``, unless none is, then all.
- :func:`score_comment`: the comment's score is the **minimum** over the verified
  premises' P(true) (``mean`` as the ablation). The flagged premise is the argmin (the
  first one on ties), under either aggregate, because it is what a person checks.
  No premise → :class:`NeedsHolistic` (the caller asks the holistic question and builds
  the result with :func:`holistic`); a verified premise without P(true) (its calls failed)
  → :class:`Inconclusive` naming it: a failed premise never gets an invented score.

:func:`decomposition_problem` states the field variants' limits on a decomposition
(:data:`FIELD_LIMITS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

ROUTE_THRESHOLD = 0.5


class Route(StrEnum):
    PAPER = "paper"
    KNOWLEDGE = "knowledge"


class PremiseKind(StrEnum):
    """The natural-science variant's typing; other fields leave premises untyped."""

    PAPER = "paper"
    KNOWLEDGE = "knowledge"
    OPINION = "opinion"


class Field(StrEnum):
    GENERAL = "general"
    MACHINE_LEARNING = "machine_learning"
    NATURAL_SCIENCE = "natural_science"


class Aggregate(StrEnum):
    MIN = "min"
    MEAN = "mean"


@dataclass(frozen=True, slots=True)
class FieldLimits:
    min_premises: int
    max_premises: int
    max_knowledge: int | None
    """At most this many premises typed or routed ``knowledge`` (None: no limit)."""
    typed: bool
    """Premises carry a :class:`PremiseKind`."""


FIELD_LIMITS: dict[Field, FieldLimits] = {
    Field.GENERAL: FieldLimits(1, 6, None, typed=False),
    Field.MACHINE_LEARNING: FieldLimits(1, 4, 1, typed=False),
    Field.NATURAL_SCIENCE: FieldLimits(1, 6, None, typed=True),
}


@dataclass(frozen=True, slots=True)
class Premise:
    """One premise with what the decision model said about it.

    ``phrasings`` holds P(true) per phrasing (already inverted where the question was the
    contradiction question); ``p_true`` is their mean, or None when no phrasing was answered.
    """

    text: str
    kind: PremiseKind | None = None
    p_grounded: float | None = None
    route: Route = Route.PAPER
    p_true: float | None = None
    phrasings: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Scored:
    score: float
    flagged: int | None
    """Index (into the comment's premises) of the premise with the lowest P(true);
    None for a holistic score."""
    verified: tuple[int, ...]
    """Indices of the premises that entered the score."""
    fallback: bool = False


@dataclass(frozen=True, slots=True)
class NeedsHolistic:
    """No premise came back: ask the holistic question on the whole comment."""


@dataclass(frozen=True, slots=True)
class Inconclusive:
    reason: str
    premise: int | None = None


CommentScore = Scored | NeedsHolistic | Inconclusive


def _probability(p: float, what: str) -> float:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{what} must be a probability in [0, 1], got {p}")
    return p


def route(p_grounded: float, *, routing: bool = True) -> Route:
    """``paper`` at P(grounded) ≥ 0.5 (or always, without routing), else ``knowledge``."""
    _probability(p_grounded, "p_grounded")
    if not routing or p_grounded >= ROUTE_THRESHOLD:
        return Route.PAPER
    return Route.KNOWLEDGE


def invert_contradiction(p_contradicted: float) -> float:
    """P(true) from the answer to "does the paper contradict this premise?"."""
    return 1.0 - _probability(p_contradicted, "p_contradicted")


def combine_phrasings(answers: Sequence[float], *, contradiction: bool = False) -> float:
    """The mean over K ≥ 1 phrasings of P(true); each answer is P(contradicted) and is
    inverted first when ``contradiction`` (the natural-science question)."""
    if not answers:
        raise ValueError("at least one phrasing is needed")
    values = [invert_contradiction(a) if contradiction else _probability(a, "p_true")
              for a in answers]
    return sum(values) / len(values)


def verified_premises(premises: Sequence[Premise], field: Field = Field.GENERAL) -> tuple[int, ...]:
    """Indices of the premises that count. Natural science: those typed ``paper``, or all
    when none is; every other field: all."""
    everything = tuple(range(len(premises)))
    if field is not Field.NATURAL_SCIENCE:
        return everything
    paper = tuple(i for i, p in enumerate(premises) if p.kind is PremiseKind.PAPER)
    return paper or everything


def score_comment(
    premises: Sequence[Premise],
    *,
    field: Field = Field.GENERAL,
    aggregate: Aggregate = Aggregate.MIN,
) -> CommentScore:
    """The comment's score from its premises (see the module docstring)."""
    if not premises:
        return NeedsHolistic()
    chosen = verified_premises(premises, field)
    scores: list[float] = []
    for i in chosen:
        p = premises[i].p_true
        if p is None:
            return Inconclusive(f"premise {i + 1} could not be verified", premise=i)
        scores.append(_probability(p, "p_true"))
    lowest = min(scores)
    flagged = chosen[scores.index(lowest)]
    value = lowest if aggregate is Aggregate.MIN else sum(scores) / len(scores)
    return Scored(value, flagged, chosen)


def holistic(p_true: float) -> Scored:
    """The fallback result: the holistic P(the comment is right) on the whole comment."""
    return Scored(_probability(p_true, "holistic p_true"), None, (), fallback=True)


def decomposition_problem(premises: Sequence[Premise], field: Field = Field.GENERAL) -> str | None:
    """Why a decomposition breaks its field's limits (:data:`FIELD_LIMITS`), or None.

    Zero premises is not a problem here: it is the holistic fallback's case."""
    limits = FIELD_LIMITS[field]
    if not premises:
        return None
    if len(premises) > limits.max_premises:
        return f"{len(premises)} premises, at most {limits.max_premises} allowed for {field}"
    if limits.typed and any(p.kind is None for p in premises):
        return f"every premise must be typed paper, knowledge or opinion for {field}"
    knowledge = sum(p.kind is PremiseKind.KNOWLEDGE or p.route is Route.KNOWLEDGE
                    for p in premises)
    if limits.max_knowledge is not None and knowledge > limits.max_knowledge:
        return (f"{knowledge} general-knowledge premises, at most {limits.max_knowledge} "
                f"allowed for {field}")
    return None
