"""The two model interfaces every pipeline uses, and the offline default behind them.

- :class:`DecisionModel`: ``await decide(state, questions)`` → a
  :class:`~verifier.llm.types.DecisionResult` (probabilities, never text).
- :class:`ChatModel`: ``await complete(messages, schema=...)`` → a
  :class:`~verifier.llm.types.ChatResult` whose text is the model's answer (JSON when a
  schema is given).

Backends (the offline models here; OpenAI Decisions, System One, logprobs over a chat
endpoint and chat completions through the session's paced clients elsewhere) all satisfy
these protocols, so the premise checks and the review judge never know which one runs.

Prompt convention, so the offline chat model can answer the pipelines' prompts: the user
message carries a ``task: NAME`` line (``decompose``, ``extract_claims``,
``parse_comments``, ``map_comments``, ``type_critiques``) and its inputs in tagged
sections (``<comment>…</comment>``, ``<paper>…</paper>``, ``<comments>…</comments>``,
``<claims>…</claims>``); see :func:`verifier.llm.offline.task_message`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .offline import OfflineChatModel, OfflineDecisionModel
from .types import ChatMessage, ChatResult, DecisionResult, Question


@runtime_checkable
class DecisionModel(Protocol):
    backend: str
    """``offline``, ``decisions``, ``systemone`` or ``logprobs``."""

    async def decide(
        self, state: str, questions: Mapping[str, Question], *, deadline: float | None = None
    ) -> DecisionResult:
        """Answers to every question about ``state``. Raises
        :class:`~verifier.errors.SourceError` when the endpoint could not answer (the
        caller reports the item ``inconclusive``); a refusal is an answer without a
        probability, never 0.5."""
        ...


@runtime_checkable
class ChatModel(Protocol):
    backend: str

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> ChatResult:
        """The model's answer to ``messages`` (temperature 0). With ``schema``, the text is
        JSON meant to match it; validating and repairing it is the caller's job
        (:mod:`adapters.llm.chat` has the pure helpers)."""
        ...


class OfflineDecisions:
    """The offline decision model behind the async interface (a baseline)."""

    backend = "offline"

    def __init__(self, model: OfflineDecisionModel | None = None) -> None:
        self._model = model

    async def decide(
        self, state: str, questions: Mapping[str, Question], *, deadline: float | None = None
    ) -> DecisionResult:
        # Pure CPU work of a few milliseconds on a long paper (and the weights file read
        # once): a worker thread keeps the loop free for the lookups running beside it.
        return await asyncio.to_thread(self._decide, state, questions)

    def _decide(self, state: str, questions: Mapping[str, Question]) -> DecisionResult:
        if self._model is None:
            self._model = OfflineDecisionModel()
        return self._model.decide(state, questions)


class OfflineChat:
    """The offline chat model behind the async interface (a baseline)."""

    backend = "offline"

    def __init__(self, model: OfflineChatModel | None = None) -> None:
        self._model = model or OfflineChatModel()

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> ChatResult:
        return await asyncio.to_thread(self._model.complete, messages)
