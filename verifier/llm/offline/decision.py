"""The offline decision backend: typed questions about a state, answered lexically.

Convention: the state is the evidence, the question carries the statement
-------------------------------------------------------------------------

``state`` is what the statement is judged against (a paper, an abstract, an evidence
excerpt). A :class:`Predicate`'s ``instructions`` hold the question *and* the statement
to judge, read by :func:`read_predicate`:

1. after the last marker ``Premise:``, ``Claim:``, ``Statement:``, ``Hypothesis:`` or
   ``Sentence:`` (any case) comes the statement; the question is what precedes it;
2. otherwise, when the instructions hold a ``?`` followed by more text, the question is
   the text up to the first ``?`` and the statement the rest
   (``"Is this true according to the paper? The model beats BERT."``);
3. otherwise the whole instructions are the statement and the question is "is it true?".

If that leaves no content words, a marker line in the *state* is tried instead (a state
of the form ``"Claim: …\\n\\nEvidence …"``): the marked line is the statement and the
rest of the state the evidence.

What the question asks is read from the question part by cue words, in this order:
*grounded* ("can … be decided", "grounded", "enough information", "relevant",
"address", "mention", "discuss") → P(the state bears on the statement), the
``grounded`` model; *contradicted* ("contradict", "refute", "false", "inaccurate",
"incorrect", "inconsistent") → 1 − P(supported); anything else → P(supported), the
``true`` model.

Choice and score questions
--------------------------

The model has no way to understand arbitrary options, so it applies documented rules:

- :class:`Choice`: each option (its key and description) is scored by the share of its
  content terms found in the three state passages BM25 ranks highest for the question's
  and the option's terms together; the shares (0–1) are softmaxed at temperature 1/5.
  An option that shares no word with the state cannot be told apart from another such
  option, so they get equal probability. When no option shares any word with the
  state, the answer is a refusal.
- :class:`Score`: the instructions are read like a predicate's (same statement and
  intent rules) and the resulting probability ``p`` is placed on the scale: level ``i``
  of ``L`` gets weight ``exp(-(i - p·(L-1))² / 2)``, normalised. It suits "how strongly
  does the paper support …" scales, not scales about style or quality.

A question about an empty state, or with a statement that has no content words beyond
question words ("Is it true?"), is a refusal (``probability=None``), never a default value.

Usage is estimated, not counted: prompt tokens = characters / 4 (rounded up) of the
state and every question's text, options and levels; one completion token per question;
one request; no cached tokens.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from enum import StrEnum

from verifier.llm.offline.features import IndexedState, features, index_state
from verifier.llm.offline.text import estimate_tokens, terms
from verifier.llm.offline.weights import OfflineWeights, load_weights
from verifier.llm.types import (
    AnswerKind,
    Choice,
    Decision,
    DecisionResult,
    Predicate,
    Question,
    Score,
    Usage,
)

BACKEND = "offline"
MODEL = "offline-lexical-1"
CHOICE_SHARPNESS = 5.0
SCORE_WIDTH = 1.0

_MARKER = re.compile(r"(?i)(?:^|(?<=\s))(?:premise|claim|statement|hypothesis|sentence)\s*:")
_STATE_MARKER = re.compile(
    r"(?im)^\s*(?:premise|claim|statement|hypothesis|sentence)\s*:\s*(.+)$")


class Intent(StrEnum):
    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    GROUNDED = "grounded"


_INTENT_CUES: tuple[tuple[Intent, tuple[str, ...]], ...] = (
    (Intent.GROUNDED, ("be decided", "decidable", "decide from", "grounded",
                       "enough information", "relevant", "address", "mention", "discuss",
                       "bear on", "verifiable", "can be checked")),
    (Intent.CONTRADICTED, ("contradict", "refute", "false", "inaccurate", "incorrect",
                           "inconsistent", "wrong")),
)
"""Question cues → intent, checked in order; no cue means :attr:`Intent.SUPPORTED`."""

_QUESTION_TERMS = frozenset(terms(
    "true false correct incorrect paper premise claim statement according support "
    "supported decide decided grounded answer yes"))
"""Words of a question, not of a statement: a statement made only of these is empty."""


def has_content(statement: str) -> bool:
    """Whether ``statement`` says anything beyond question words ("Is it true?")."""
    return bool(set(terms(statement)) - _QUESTION_TERMS)


def read_predicate(instructions: str) -> tuple[Intent, str]:
    """What a predicate asks and the statement it asks it about (see the module doc)."""
    markers = list(_MARKER.finditer(instructions))
    if markers:
        question = instructions[: markers[-1].start()]
        statement = instructions[markers[-1].end():]
    else:
        head, mark, tail = instructions.partition("?")
        if mark and tail.strip():
            question, statement = head + mark, tail
        else:
            question, statement = "", instructions
    lowered = question.lower()
    intent = next((intent for intent, cues in _INTENT_CUES
                   if any(cue in lowered for cue in cues)), Intent.SUPPORTED)
    return intent, statement.strip()


class OfflineDecisionModel:
    """A decision model that runs in-process on lexical features (a baseline).

    Deterministic: the same state and questions give the same answers. Thread-safe and
    free of I/O once its weights are loaded (at construction, from the package)."""

    __slots__ = ("_weights",)

    def __init__(self, weights: OfflineWeights | None = None) -> None:
        self._weights = weights if weights is not None else load_weights()

    @property
    def weights(self) -> OfflineWeights:
        return self._weights

    def __repr__(self) -> str:
        return f"OfflineDecisionModel(model={MODEL!r}, trained_on={self._weights.trained_on})"

    def decide(self, state: str, questions: Mapping[str, Question]) -> DecisionResult:
        """Answer every question about ``state``; answers keep the questions' names."""
        indexed = index_state(state)
        answers = {name: self._answer(state, indexed, question)
                   for name, question in questions.items()}
        return DecisionResult(answers, _usage(state, questions), BACKEND, MODEL)

    def probability_supported(self, statement: str, state: str | IndexedState) -> float | None:
        """P(``statement`` is supported by ``state``), or ``None`` when there is nothing
        to judge (no content words, or no passages)."""
        indexed = index_state(state) if isinstance(state, str) else state
        if not has_content(statement) or not indexed.passages:
            return None
        return self._weights.true.probability(features(statement, indexed))

    def _answer(self, state: str, indexed: IndexedState, question: Question) -> Decision:
        if isinstance(question, Predicate):
            return self._predicate(state, indexed, question)
        if isinstance(question, Choice):
            return _choice(indexed, question)
        return self._score(state, indexed, question)

    def _judge(self, state: str, indexed: IndexedState, instructions: str
               ) -> tuple[Intent, float] | None:
        intent, statement = read_predicate(instructions)
        if not has_content(statement):
            found = _STATE_MARKER.search(state)
            if found is None:
                return None
            statement = found.group(1)
            indexed = index_state(state[: found.start()] + state[found.end():])
        if not has_content(statement) or not indexed.passages:
            return None
        values = features(statement, indexed)
        if intent is Intent.GROUNDED:
            return intent, self._weights.grounded.probability(values)
        supported = self._weights.true.probability(values)
        return intent, (1.0 - supported if intent is Intent.CONTRADICTED else supported)

    def _predicate(self, state: str, indexed: IndexedState, question: Predicate) -> Decision:
        judged = self._judge(state, indexed, question.instructions)
        if judged is None:
            return _refusal()
        p = judged[1]
        return Decision(AnswerKind.PREDICATE, p, {"yes": p, "no": 1.0 - p})

    def _score(self, state: str, indexed: IndexedState, question: Score) -> Decision:
        judged = self._judge(state, indexed, question.instructions)
        if judged is None:
            return _refusal()
        last = len(question.levels) - 1
        centre = judged[1] * last
        weights = [math.exp(-((i - centre) ** 2) / (2 * SCORE_WIDTH ** 2))
                   for i in range(len(question.levels))]
        total = sum(weights)
        distribution = {level: w / total for level, w in zip(question.levels, weights,
                                                             strict=True)}
        mean = sum(i * p for i, p in enumerate(distribution.values())) / last
        return Decision(AnswerKind.SCORE, mean, distribution, _most_probable(distribution),
                        max(distribution.values()))


def _choice(indexed: IndexedState, question: Choice) -> Decision:
    question_terms = terms(question.instructions)
    shares: dict[str, float] = {}
    for option, description in question.options.items():
        option_terms = list(dict.fromkeys(terms(f"{option} {description}")))
        best = indexed.best([*question_terms, *option_terms])
        found = {term for i in best for term in indexed.passage_terms[i]}
        shares[option] = (sum(1 for term in option_terms if term in found) / len(option_terms)
                          if option_terms else 0.0)
    if not any(shares.values()):
        return _refusal()
    top = max(shares.values())
    exps = {option: math.exp(CHOICE_SHARPNESS * (share - top)) for option, share in shares.items()}
    total = sum(exps.values())
    distribution = {option: value / total for option, value in exps.items()}
    chosen = _most_probable(distribution)
    return Decision(AnswerKind.CHOICE, distribution[chosen], distribution, chosen,
                    distribution[chosen])


def _most_probable(distribution: Mapping[str, float]) -> str:
    """The most probable key; ties go to the first in order."""
    return max(distribution, key=lambda key: distribution[key])


def _refusal() -> Decision:
    return Decision(AnswerKind.REFUSAL, None)


def _usage(state: str, questions: Mapping[str, Question]) -> Usage:
    prompt = estimate_tokens(state)
    for name, question in questions.items():
        prompt += estimate_tokens(name) + estimate_tokens(question.instructions)
        if isinstance(question, Choice):
            prompt += sum(estimate_tokens(f"{k} {v}") for k, v in question.options.items())
        elif isinstance(question, Score):
            prompt += sum(estimate_tokens(level) for level in question.levels)
    return Usage(prompt_tokens=prompt, completion_tokens=len(questions), requests=1)
