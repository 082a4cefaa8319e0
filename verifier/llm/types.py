"""The values language-model calls exchange: questions, decisions, chat messages, usage.

Two interfaces share these types:

- a *decision model* takes one ``state`` (a paper, a claim with its evidence) and several
  typed questions, and answers each with probabilities, never text
  (:class:`Predicate` → P(yes); :class:`Choice` → a distribution over its options;
  :class:`Score` → a distribution over its levels);
- a *chat model* takes :class:`ChatMessage` values and returns text, parsed and validated
  into JSON by the caller's schema.

Every backend (the offline model, OpenAI Decisions, System One, logprobs over a chat
endpoint) speaks these values; wire formats live in ``adapters/llm/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Predicate:
    """A yes/no question about the state. ``instructions`` is the question itself."""

    instructions: str


@dataclass(frozen=True, slots=True)
class Choice:
    """One of ``options`` (option → description, which may be empty)."""

    instructions: str
    options: Mapping[str, str]

    def __post_init__(self) -> None:
        if len(self.options) < 2:
            raise ValueError("a choice needs at least two options")


@dataclass(frozen=True, slots=True)
class Score:
    """A level on an ordered scale, lowest first (2 to 10 levels)."""

    instructions: str
    levels: tuple[str, ...]

    def __post_init__(self) -> None:
        if not 2 <= len(self.levels) <= 10:
            raise ValueError("a score needs 2 to 10 levels")


Question = Predicate | Choice | Score


class AnswerKind(StrEnum):
    PREDICATE = "predicate"
    CHOICE = "choice"
    SCORE = "score"
    REFUSAL = "refusal"


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision model's answer to one question.

    ``probability`` is P(yes) for a predicate, the chosen option's probability for a
    choice, and the probability-weighted mean level index (0 = lowest) scaled to 0–1 for a
    score. ``probabilities`` holds the whole distribution (option or level → probability)
    for choices and scores, and ``{"yes": p, "no": 1 - p}`` for predicates. A refusal has
    no probability (``None``): it is never read as 0.5.
    """

    kind: AnswerKind
    probability: float | None
    probabilities: Mapping[str, float] = field(default_factory=dict)
    choice: str | None = None
    """The most probable option (choice) or level label (score)."""
    confidence: float | None = None


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens one call (or a sum of calls) used, as the server reported them."""

    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    """Part of ``prompt_tokens`` served from the server's prefix cache."""
    completion_tokens: int = 0
    requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.cached_prompt_tokens + other.cached_prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.requests + other.requests,
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class DecisionResult:
    """Answers to one decision request, by question name, with what the call used."""

    answers: Mapping[str, Decision]
    usage: Usage
    backend: str
    """``offline``, ``decisions``, ``systemone`` or ``logprobs``."""
    model: str


@dataclass(frozen=True, slots=True)
class ChatResult:
    text: str
    usage: Usage
    backend: str
    model: str
    finish_reason: str = "stop"
