"""Token counts estimated before a call, without a tokenizer.

The documented approximation (OpenAI's cookbook rule, ``shared/docs/models.md`` §6):

- a text is ``ceil(characters / 4)`` tokens;
- a chat prompt is the sum over its messages of ``text + 4`` tokens, plus 2 for the
  reply's priming;
- a JSON schema sent in ``response_format`` is prompt too: one more message of its
  compact JSON text, keys sorted;
- a request reserves its prompt plus ``n × max_completion_tokens``;
- a decision request (Decisions, System One) is a prompt of segments too: the state,
  then one segment per question (``name: instructions`` and its options or levels), plus
  2, and reserves one reply token per question.

English prose runs close to 4 characters per token on GPT tokenizers; code, numbers and
non-Latin scripts run denser, so the estimate is a budget, corrected afterwards from the
``usage`` the server reports. Nothing here downloads or loads a tokenizer.

**Truncation** (:func:`truncate_to_tokens`): a text over a budget keeps its first
``4 × budget`` characters, cut back to the last whitespace when one falls in the last
fifth (no word split in half), and says it was cut.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from verifier.llm.types import ChatMessage, Choice, Question, Score

CHARS_PER_TOKEN = 4
PER_MESSAGE = 4
PRIMING = 2


def estimate_text_tokens(text: str) -> int:
    """``ceil(len(text) / 4)``: 0 for an empty text."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_prompt_tokens(messages: Iterable[ChatMessage]) -> int:
    """Estimated prompt tokens of a chat request: ``Σ (text + 4) + 2``."""
    return sum(estimate_text_tokens(m.content) + PER_MESSAGE for m in messages) + PRIMING


def estimate_request_tokens(
    messages: Iterable[ChatMessage], max_completion_tokens: int, n: int = 1
) -> int:
    """Tokens a chat request reserves against a TPM budget: prompt + n·max completion."""
    if max_completion_tokens < 0 or n < 1:
        raise ValueError("max_completion_tokens must be >= 0 and n >= 1")
    return estimate_prompt_tokens(messages) + n * max_completion_tokens


def truncate_to_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """``text`` cut to at most ``max_tokens`` estimated tokens, and whether it was cut."""
    if max_tokens < 0:
        raise ValueError("max_tokens must be >= 0")
    limit = max_tokens * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= limit * 4 // 5:
        cut = cut[:space]
    return cut.rstrip(), True


def question_text(name: str, question: Question) -> str:
    """The text a decision question is counted by: ``name: instructions`` and its options
    (``option description`` pairs) or levels, space-separated."""
    extra = ""
    if isinstance(question, Choice):
        extra = " " + " ".join(f"{k} {v}" for k, v in question.options.items())
    elif isinstance(question, Score):
        extra = " " + " ".join(question.levels)
    return f"{name}: {question.instructions}{extra}"


def estimate_decision_tokens(state: str, questions: Mapping[str, Question]) -> int:
    """Tokens a decision request reserves: ``(state + 4) + Σ (question + 4) + 2`` prompt
    and one reply token per question."""
    prompt = estimate_text_tokens(state) + PER_MESSAGE + PRIMING + sum(
        estimate_text_tokens(question_text(name, q)) + PER_MESSAGE
        for name, q in questions.items())
    return prompt + len(questions)
