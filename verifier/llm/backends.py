"""Remote model backends: the wire adapters sent through the session's paced clients.

- :class:`DecisionsBackend` (OpenAI Decisions), :class:`SystemOneBackend` (System One) and
  :class:`LogprobsBackend` (first-token log-probabilities over any OpenAI-compatible chat
  endpoint, one request per question, the state first and identical for every question
  so the server's prefix cache hits) implement
  :class:`~verifier.llm.interfaces.DecisionModel`;
- :class:`ChatBackend` (chat completions with ``response_format``) implements
  :class:`~verifier.llm.interfaces.ChatModel`.

Every request goes through the endpoint's :class:`~verifier.http.client.PacedClient`
(cache → single flight → gate → retries), read by a :class:`ModelReader` that:

- **classifies** each network response before the client's default handling: a
  retryable 429 is *throttled* with the wait the server stated (``retry-after-ms``,
  ``retry-after``, "try again in 1.2s"), pausing the whole endpoint; 408/409/5xx are
  *server errors* (retried, counted by the breaker); "Request too large", quota, denied
  and invalid requests are *rejected* and never retried; so are 200s no retry can change
  (a refusal, a reply cut at ``finish_reason: "length"``, an empty reply, a reply without
  log-probabilities);
- records the ``usage`` of every reply read from the network in the run's
  :class:`~verifier.llm.usage.UsageLedger`, and charges the endpoint's token bucket what
  the server reports beyond the request's estimate (:meth:`SourceGate.charge`);
- turns ``x-ratelimit-*`` headers into rate hints (a lower advertised request limit
  slows the endpoint; a spent request or token budget rests it);
- lets the cache keep only deterministic answers: temperature 0 (the decision formats
  are deterministic by construction), no refusal anywhere in them. Errors are never
  kept (the client stores nothing that raised).

Requests carry ``weight`` = estimated prompt + maximum reply tokens, for the endpoint's
tokens-per-minute limit. At most four times the endpoint's concurrency of calls queue at its
gate at once; the others wait their turn in a FIFO semaphore per client (a judging run
fans out thousands of calls, and a waiter at the gate costs a wake-up per release).

**Context.** A state over the context is truncated by
:func:`adapters.llm.tokens.truncate_to_tokens` (first ``4 × budget`` characters, cut at a
word) to ``context − questions − reply − 64`` estimated tokens, counted in the ledger's
``truncated_states``; a chat prompt over the context is refused before sending with
:class:`PromptTooLong` (per item; nothing is cut from a conversation).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import orjson

from adapters.llm import answers, chat, decisions, logprobs, systemone
from adapters.llm.chat import JsonMode
from adapters.llm.failures import (
    EmptyReply,
    ModelRefused,
    NoLogprobs,
    TruncatedReply,
    error_for,
)
from adapters.llm.failures import classify as classify_failure
from adapters.llm.ratelimits import parse_rate_hint
from adapters.llm.tokens import (
    estimate_decision_tokens,
    estimate_request_tokens,
    estimate_text_tokens,
    truncate_to_tokens,
)
from adapters.llm.wire import model_of, parse_usage
from verifier.errors import (
    DeadlineExceeded,
    MalformedResponse,
    RateLimited,
    ServerError,
    SourceError,
)
from verifier.http.client import Classified, Outcome, PacedClient
from verifier.http.policy import RateHint
from verifier.http.transport import HttpRequest, HttpResponse

from .types import (
    AnswerKind,
    ChatMessage,
    ChatResult,
    DecisionResult,
    Question,
    Role,
    Usage,
)
from .usage import UsageLedger

T = TypeVar("T")

CONTEXT_MARGIN = 64
"""Tokens kept free below the context when a state is truncated (estimates err)."""

FINAL_REPLIES: tuple[type[MalformedResponse], ...] = (
    ModelRefused, TruncatedReply, EmptyReply, NoLogprobs)
"""200 replies that the same request would get again: rejected, never retried."""


class PromptTooLong(SourceError):
    """A prompt that does not fit the model's context: refused before sending."""


class ModelReader(Generic[T]):
    """Reads one call's responses (see the module docs). One per call: it keeps the
    usage of the replies it saw from the network for the backend to account."""

    __slots__ = ("_keep", "_parse", "_parsed", "_time_scale", "billed", "deterministic")

    def __init__(self, parse: Callable[[HttpResponse], T], *, deterministic: bool,
                 keep: Callable[[T], bool] | None = None, time_scale: float = 1.0) -> None:
        self._parse = parse
        self._keep = keep
        self._time_scale = time_scale
        self._parsed: tuple[HttpResponse, T] | None = None
        self.deterministic = deterministic
        self.billed: list[tuple[str, Usage]] = []
        """(model, usage) of each reply read whole from the network."""

    def classify(self, request: HttpRequest, response: HttpResponse) -> Classified | None:
        failure = classify_failure(response)
        if failure is not None:
            error = error_for(failure)
            if isinstance(error, RateLimited):
                return Classified(Outcome.THROTTLED, failure.message, wait_s=error.retry_after)
            if isinstance(error, ServerError):
                return Classified(Outcome.SERVER_ERROR, failure.message)
            return Classified(Outcome.REJECTED, failure.message, error=error)
        self._bill(request, response)
        try:
            value = self._parse(response)
        except FINAL_REPLIES as exc:
            return Classified(Outcome.REJECTED, str(exc), error=exc)
        except MalformedResponse:
            return None  # unreadable (often cut short in transit): read raises, retried
        self._parsed = (response, value)
        return Classified(Outcome.FINE)

    def _bill(self, request: HttpRequest, response: HttpResponse) -> None:
        try:
            document = orjson.loads(response.body)
        except orjson.JSONDecodeError:
            return  # a body cut short was not billed whole
        if not isinstance(document, dict):
            return
        try:
            usage = parse_usage(document)
        except MalformedResponse:
            return
        asked = _model_asked(request)
        self.billed.append((model_of(document, asked), usage))

    def read(self, request: HttpRequest, response: HttpResponse) -> T:
        parsed = self._parsed
        if parsed is not None and parsed[0] is response:
            return parsed[1]
        return self._parse(response)

    def positive(self, value: T) -> bool:
        """Worth keeping: deterministic, and (per format) no refusal in it."""
        return self.deterministic and (self._keep is None or self._keep(value))

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        hint = parse_rate_hint(response)
        if hint is None:
            return None
        # Limits are per minute of the server's clock: a sped-up stand-in's minute is
        # 60 / time_scale seconds here. Waits and resets are real seconds already.
        limit = hint.limit_requests
        rest = None
        if hint.remaining_requests == 0 or hint.remaining_tokens == 0:
            rest = hint.wait_s(1) or None
        if limit is None and rest is None:
            return None
        return RateHint(limit=limit, interval_s=60.0 / self._time_scale if limit else None,
                        remaining=0 if rest else None, reset_s=rest)


def _model_asked(request: HttpRequest) -> str:
    try:
        document = orjson.loads(request.body or b"{}")
    except orjson.JSONDecodeError:
        return ""
    model = document.get("model") if isinstance(document, dict) else None
    return model if isinstance(model, str) else ""


_ADMISSION: weakref.WeakKeyDictionary[PacedClient, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary())


def admission(client: PacedClient) -> asyncio.Semaphore:
    """The calls of every backend on ``client`` that may be at its gate at once."""
    semaphore = _ADMISSION.get(client)
    if semaphore is None:
        semaphore = asyncio.Semaphore(4 * client.gate.policy.max_concurrency)
        _ADMISSION[client] = semaphore
    return semaphore


class RemoteBackend:
    """What every remote backend shares: the endpoint's client, model, key, ledger."""

    backend = "remote"

    def __init__(self, client: PacedClient, *, model: str, api_key: str | None = None,
                 ledger: UsageLedger | None = None, context_tokens: int = 128_000,
                 call_budget_s: float = 600.0, time_scale: float = 1.0) -> None:
        self.client = client
        self.model = model
        self._api_key = api_key
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.context_tokens = context_tokens
        self.call_budget_s = call_budget_s
        """Deadline of a call given none (seconds from the call)."""
        self.time_scale = time_scale
        self._loop = asyncio.get_running_loop()

    def __repr__(self) -> str:  # never the key
        return f"<{type(self).__name__} {self.model} via {self.client.name}>"

    def _reader(self, parse: Callable[[HttpResponse], T], *, deterministic: bool = True,
                keep: Callable[[T], bool] | None = None) -> ModelReader[T]:
        return ModelReader(parse, deterministic=deterministic, keep=keep,
                           time_scale=self.time_scale)

    async def _fetch(self, request: HttpRequest, reader: ModelReader[T],
                     deadline: float | None) -> T:
        started = self._loop.time()
        if deadline is None:
            deadline = started + self.call_budget_s
        gate = admission(self.client)
        try:
            try:
                async with asyncio.timeout_at(deadline):
                    await gate.acquire()
            except TimeoutError:
                raise DeadlineExceeded(f"{self.client.name}: no turn before the deadline"
                                       ) from None
            try:
                fetched = await self.client.fetch(request, deadline, reader)
            finally:
                gate.release()
        except SourceError as exc:
            self._account(request, reader, started, sent=exc.requests > 0, cached=False,
                          ok=False)
            await self._charge(request, reader)
            raise
        except BaseException:
            self._account(request, reader, started, sent=True, cached=False, ok=False)
            raise
        self._account(request, reader, started, sent=fetched.requests > 0,
                      cached=fetched.cached, ok=True)
        await self._charge(request, reader)
        return fetched.value

    def _account(self, request: HttpRequest, reader: ModelReader[Any], started: float, *,
                 sent: bool, cached: bool, ok: bool) -> None:
        for model, usage in reader.billed:
            self.ledger.reply(self.client.name, model, usage)
        self.ledger.call(sent=sent or bool(reader.billed), cached=cached,
                         latency_s=self._loop.time() - started, ok=ok)

    async def _charge(self, request: HttpRequest, reader: ModelReader[Any]) -> None:
        """What the server reported beyond the estimate, taken from the token bucket."""
        extra = sum(u.total_tokens for _, u in reader.billed) - (
            request.weight * len(reader.billed))
        if extra > 0:
            await self.client.gate.charge(extra)

    def _fit_state(self, state: str, reserved: int) -> str:
        budget = self.context_tokens - reserved - CONTEXT_MARGIN
        if budget <= 0:
            raise PromptTooLong(f"{self.model}: the questions alone need {reserved} of "
                                f"{self.context_tokens} context tokens")
        cut, truncated = truncate_to_tokens(state, budget)
        if truncated:
            self.ledger.truncated_states += 1
        return cut


def _no_refusal(result: DecisionResult) -> bool:
    return not any(d.kind is AnswerKind.REFUSAL for d in result.answers.values())


class DecisionsBackend(RemoteBackend):
    """OpenAI Decisions (``POST /decisions``): every question in one request."""

    backend = decisions.BACKEND

    async def decide(self, state: str, questions: Mapping[str, Question], *,
                     deadline: float | None = None) -> DecisionResult:
        state = self._fit_state(state, estimate_decision_tokens("", questions))
        request = decisions.build_request(self.model, state, questions, api_key=self._api_key)
        reader = self._reader(
            lambda r: decisions.parse_response(questions, r, model=self.model),
            keep=_no_refusal)
        return await self._fetch(request, reader, deadline)


class SystemOneBackend(RemoteBackend):
    """System One (``POST /systemone``): every question in one request."""

    backend = systemone.BACKEND

    async def decide(self, state: str, questions: Mapping[str, Question], *,
                     deadline: float | None = None) -> DecisionResult:
        state = self._fit_state(state, estimate_decision_tokens("", questions))
        request = systemone.build_request(self.model, state, questions, api_key=self._api_key)
        reader = self._reader(
            lambda r: systemone.parse_response(questions, r, model=self.model),
            keep=_no_refusal)
        return await self._fetch(request, reader, deadline)


class LogprobsBackend(RemoteBackend):
    """Decisions from first-token log-probabilities: one chat request per question, all
    of one state's questions in flight together. A refusal of one question is that
    question's refusal; a reply without log-probabilities fails the call (never 0.5)."""

    backend = logprobs.BACKEND

    async def decide(self, state: str, questions: Mapping[str, Question], *,
                     deadline: float | None = None) -> DecisionResult:
        if not questions:
            raise ValueError("a decision request needs at least one question")
        longest = max(estimate_text_tokens(logprobs.question_text(q)) for q in questions.values())
        state = self._fit_state(state, longest + estimate_text_tokens(logprobs.SYSTEM_PROMPT)
                                + 3 * 4 + 2 + 1)
        names = list(questions)
        tasks = [asyncio.create_task(self._one(state, questions[name], deadline))
                 for name in names]
        try:
            done = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        answered = dict(zip(names, done, strict=True))
        usage = sum((a.usage for a in answered.values() if a is not None), Usage())
        decided = {name: (a.decision if a is not None else answers.refusal())
                   for name, a in answered.items()}
        served = next((a.model for a in answered.values() if a is not None), self.model)
        return DecisionResult(answers=decided, usage=usage, backend=self.backend, model=served)

    async def _one(self, state: str, question: Question, deadline: float | None
                   ) -> logprobs.LogprobsAnswer | None:
        request = logprobs.build_request(self.model, state, question, api_key=self._api_key)
        reader = self._reader(lambda r: logprobs.parse_response(question, r, model=self.model))
        try:
            return await self._fetch(request, reader, deadline)
        except ModelRefused:
            return None


class ChatBackend(RemoteBackend):
    """Chat completions for structured output (temperature 0).

    ``json_mode``: ``json_schema`` (strict schema in ``response_format``),
    ``json_schema_top_level`` (llama.cpp), ``json_object`` or ``text``; in the last two
    the schema is also given in a final system message, as the server cannot enforce it.
    """

    backend = chat.BACKEND

    def __init__(self, client: PacedClient, *, model: str, api_key: str | None = None,
                 ledger: UsageLedger | None = None, context_tokens: int = 128_000,
                 call_budget_s: float = 600.0, time_scale: float = 1.0,
                 json_mode: str = "json_schema", max_completion_tokens: int = 2048) -> None:
        super().__init__(client, model=model, api_key=api_key, ledger=ledger,
                         context_tokens=context_tokens, call_budget_s=call_budget_s,
                         time_scale=time_scale)
        self.json_mode = JsonMode(json_mode)
        self.max_completion_tokens = max_completion_tokens

    async def complete(self, messages: Sequence[ChatMessage], *,
                       schema: Mapping[str, Any] | None = None,
                       deadline: float | None = None) -> ChatResult:
        mode = self.json_mode if schema is not None else JsonMode.TEXT
        sent = list(messages)
        if schema is not None and mode in (JsonMode.OBJECT, JsonMode.TEXT):
            text = orjson.dumps(dict(schema)).decode()
            sent.append(ChatMessage(Role.SYSTEM, "Reply with one JSON value, and nothing "
                                    f"else, that follows this JSON schema: {text}"))
        needed = estimate_request_tokens(sent, self.max_completion_tokens)
        if needed > self.context_tokens:
            raise PromptTooLong(f"{self.model}: the prompt needs about {needed} tokens with "
                                f"its reply, over the context of {self.context_tokens}")
        request = chat.build_request(self.model, sent, mode=mode, schema=schema,
                                     max_completion_tokens=self.max_completion_tokens,
                                     api_key=self._api_key)
        reader = self._reader(lambda r: chat.parse_response(r, model=self.model))
        return await self._fetch(request, reader, deadline)
