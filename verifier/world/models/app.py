"""The simulated model endpoint: an aiohttp application speaking the real wire shapes.

Routes (below a base URL ``…/v1``, as OpenAI's and vLLM's are written):

- ``POST /v1/chat/completions``: chat, with ``response_format`` (``json_schema`` checked
  as OpenAI's strict mode checks it, ``json_object`` only when the messages say "JSON")
  and first-token ``logprobs``/``top_logprobs`` (at most 20; ``top_logprobs`` needs
  ``logprobs``);
- ``POST /v1/decisions``: OpenAI Decisions (answers in question order);
- ``POST /v1/systemone``: System One (answers keyed by question id);
- ``GET /v1/models``: the models served (with vLLM's ``max_model_len``);
- ``GET /_world/usage``: the endpoint's own exact counters (:class:`ServedCounters`);
  ``DELETE`` resets them.

Every model request goes through the same steps: parse and validate (a 400 in OpenAI's
shape otherwise; an unknown model is a 404 ``model_not_found``; prompt plus reply over
``max_context`` a 400 ``context_length_exceeded``), admission by the limits
(:mod:`~verifier.world.models.limits`: a 429 in OpenAI's shape, with ``retry-after``,
``retry-after-ms`` and the ``x-ratelimit-*`` headers, which every answer carries), a
fault drawn (:mod:`~verifier.world.models.options`), the answer asked of the answer model
(:mod:`~verifier.world.models.answer`), the prefix cache consulted
(:mod:`~verifier.world.models.prefix`), the latency waited, the answer sent.

**Log-probabilities.** A chat request with ``logprobs`` is answered as a decision. The
world reads the prompt layout of the logprobs backend (a last user message with a
``Question:`` line, lettered option lines ``A. …`` and ``Answer with exactly one of:
…``; the earlier user messages are the state); any other prompt is a yes/no question
whose state is the whole conversation. The labels' probabilities are spread over
spelling variants (``Yes``, `` Yes``, ``yes``, `` yes``) in fixed shares, beside
distractor tokens (``The``, ``Not``, ``None`` ...) holding 8 % of the mass, so that
summing the variants and renormalising recovers the answer model's probability exactly;
the list is cut to ``top_logprobs`` entries (a short list may lose one side).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import random
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from verifier.llm.types import ChatMessage, Choice, Predicate, Question, Role, Score

from ..limits import WorldClock, retry_after_header
from .answer import AnswerModel, OfflineAnswerModel, decisions_of
from .limits import DEFAULT_COMPLETION, ModelLimiter, Refusal, format_duration
from .options import FAULT_HEADER, FAULT_NAMES, ModelWorldOptions
from .prefix import PrefixCache, Segment, completion_tokens, prompt_tokens

ORGANIZATION = "org-world"
_SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


# ----------------------------------------------------------------------------- counters


@dataclass(slots=True)
class ServedCounters:
    """What the endpoint served, counted exactly.

    ``prompt_tokens``, ``cached_tokens`` and ``completion_tokens`` sum the ``usage`` of
    every reply whose body was sent whole (``billed_replies`` of them): what a client
    that reads every reply's ``usage`` must also sum. A body cut by the ``truncated``
    fault counts in ``unreadable_replies`` instead. ``busy_s`` sums the time admitted
    requests were in flight (for concurrency utilisation); ``charged_tokens`` what the
    token bucket was debited.
    """

    requests: int = 0
    by_route: Counter[str] = field(default_factory=Counter)
    by_status: Counter[int] = field(default_factory=Counter)
    throttled: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    billed_replies: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    unreadable_replies: int = 0
    charged_tokens: int = 0
    busy_s: float = 0.0
    max_in_flight: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "by_route": dict(self.by_route),
            "by_status": {str(k): v for k, v in self.by_status.items()},
            "throttled": dict(self.throttled),
            "faults": dict(self.faults),
            "billed_replies": self.billed_replies,
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "completion_tokens": self.completion_tokens,
            "unreadable_replies": self.unreadable_replies,
            "charged_tokens": self.charged_tokens,
            "busy_s": self.busy_s,
            "max_in_flight": self.max_in_flight,
        }


# ----------------------------------------------------------------------------- answers


class BadRequest(Exception):
    """A request the endpoint refuses with a 4xx in OpenAI's shape."""

    def __init__(self, message: str, *, param: str | None = None,
                 code: str | None = None, status: int = 400,
                 type_: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.message, self.param, self.code, self.status, self.type = (
            message, param, code, status, type_)


@dataclass(slots=True)
class Job:
    """One validated request: what it asks of the model, and how to answer it."""

    model: str
    segments: list[Segment]
    max_completion: int
    answer: Callable[[str | None], tuple[dict[str, Any], int]]
    """fault → (reply document without usage, completion tokens)."""
    usage_style: str
    """``chat``, ``decisions`` or ``systemone``: how usage is written."""


def error_body(message: str, type_: str, code: str | None = None,
               param: str | None = None) -> bytes:
    return orjson.dumps({"error": {"message": message, "type": type_, "param": param,
                                   "code": code}})


class ModelWorld:
    """The state of one simulated endpoint: limits, cache, counters, answer model."""

    def __init__(self, options: ModelWorldOptions, clock: WorldClock) -> None:
        self.options = options
        self.clock = clock
        self.limiter = ModelLimiter(options.limits, clock)
        self.cache = PrefixCache(options.cache_ttl_s)
        self.answer_model: AnswerModel = options.answer_model or OfflineAnswerModel()
        self.counters = ServedCounters()
        self.closing = asyncio.Event()
        self._latency_rng = random.Random(options.latency.seed)
        self._fault_rng = random.Random(options.faults.seed if options.faults else 0)

    # -- steps ------------------------------------------------------------------------

    def draw_fault(self, request: web.Request) -> str | None:
        forced = request.headers.get(FAULT_HEADER)
        if forced:
            if forced not in FAULT_NAMES:
                raise BadRequest(f"unknown world fault {forced!r}", param=FAULT_HEADER)
            return forced
        faults = self.options.faults
        if faults is None or not faults.rates:
            return None
        u, total = self._fault_rng.random(), 0.0
        for name in sorted(faults.rates):
            total += faults.rates[name]
            if u < total:
                return name
        return None

    def latency(self, uncached: int, completion: int) -> float:
        """Real seconds the reply takes (options docs)."""
        lat = self.options.latency
        base = lat.ttft_s + lat.prefill_s_per_token * uncached + lat.per_token_s * completion
        factor = 1.0 + lat.jitter * self._latency_rng.uniform(-1.0, 1.0)
        return self.clock.real(base * factor)

    def throttled(self, refusal: Refusal, job: Job, charge: int,
                  headers: dict[str, str]) -> web.Response:
        limits = self.options.limits
        model = job.model
        if refusal.reason == "too_large":
            message = (f"Request too large for {model} in organization {ORGANIZATION} on "
                       f"tokens per min (TPM): Limit {limits.tpm}, Requested {charge}. "
                       "The input or output tokens must be reduced in order to run "
                       "successfully.")
            return web.Response(status=429, body=error_body(
                message, "tokens", "rate_limit_exceeded"), headers=headers,
                content_type="application/json")
        wait = refusal.wait_s or 0.0
        if refusal.reason == "concurrency":
            message = (f"Too many concurrent requests for {model} in organization "
                       f"{ORGANIZATION}: Limit {limits.concurrency}, Used {refusal.used}. "
                       f"Please try again in {format_duration(wait)}.")
            kind = "requests"
        elif refusal.reason == "requests":
            message = (f"Rate limit reached for {model} in organization {ORGANIZATION} on "
                       f"requests per min (RPM): Limit {limits.rpm}, Used {refusal.used}, "
                       f"Requested 1. Please try again in {format_duration(wait)}.")
            kind = "requests"
        else:
            message = (f"Rate limit reached for {model} in organization {ORGANIZATION} on "
                       f"tokens per min (TPM): Limit {limits.tpm}, Used {refusal.used}, "
                       f"Requested {charge}. Please try again in {format_duration(wait)}.")
            kind = "tokens"
        millis = max(1, math.ceil(wait * 1000))
        headers = {**headers, "retry-after": retry_after_header(millis / 1000),
                   "retry-after-ms": str(millis)}
        return web.Response(status=429, body=error_body(message, kind, "rate_limit_exceeded"),
                            headers=headers, content_type="application/json")

    def usage(self, job: Job, prompt: int, cached: int, completion: int) -> dict[str, Any]:
        if job.usage_style == "chat":
            return {"prompt_tokens": prompt, "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                    "prompt_tokens_details": {"cached_tokens": cached},
                    "completion_tokens_details": {"reasoning_tokens": 0}}
        if job.usage_style == "decisions":
            return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": cached},
                    "output_tokens": completion,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": prompt + completion}
        return {"input_tokens": prompt, "output_tokens": completion}

    async def serve(self, request: web.Request, route: str,
                    prepare: Callable[[ModelWorld, dict[str, Any]], Job]) -> web.Response:
        return await self.counted(route, self._serve(request, prepare))

    async def counted(self, route: str, answer: Awaitable[web.Response]) -> web.Response:
        """``answer``, counted: one request on ``route`` when it arrives, and its status
        once answered (every route's counting, in this one place)."""
        counters = self.counters
        counters.requests += 1
        counters.by_route[route] += 1
        response = await answer
        counters.by_status[response.status] += 1
        return response

    async def _serve(self, request: web.Request,
                     prepare: Callable[[ModelWorld, dict[str, Any]], Job]) -> web.Response:
        now = self.clock.now()
        headers = self.limiter.headers(now)
        try:
            try:
                document = orjson.loads(await request.read())
            except orjson.JSONDecodeError:
                raise BadRequest("We could not parse the JSON body of your request.") from None
            if not isinstance(document, dict):
                raise BadRequest("The request body must be a JSON object.")
            job = prepare(self, document)
            if job.model not in self.options.models:
                raise BadRequest(f"The model `{job.model}` does not exist or you do not "
                                 "have access to it.", code="model_not_found", status=404)
            prompt = prompt_tokens(job.segments)
            if prompt + job.max_completion > self.options.max_context:
                raise BadRequest(
                    f"This model's maximum context length is {self.options.max_context} "
                    f"tokens. However, you requested {prompt + job.max_completion} tokens.",
                    param="messages", code="context_length_exceeded")
            fault = self.draw_fault(request)
        except BadRequest as exc:
            return web.Response(status=exc.status, headers=headers,
                                content_type="application/json",
                                body=error_body(exc.message, exc.type, exc.code, exc.param))
        charge = prompt + job.max_completion
        ticket = self.limiter.admit(charge, now)
        if isinstance(ticket, Refusal):
            self.counters.throttled[ticket.reason] += 1
            return self.throttled(ticket, job, charge, headers)
        self.counters.charged_tokens += charge
        self.counters.max_in_flight = max(self.counters.max_in_flight,
                                          len(self.limiter.in_flight))
        headers = self.limiter.headers(now)
        try:
            return await self._answer(job, fault, prompt, ticket, now, headers)
        finally:
            self.limiter.release(ticket)
            self.counters.busy_s += self.clock.now() - now

    async def _answer(self, job: Job, fault: str | None, prompt: int, ticket: int,
                      now: float, headers: dict[str, str]) -> web.Response:
        if fault is not None:
            self.counters.faults[fault] += 1
        if fault == "timeout":
            hold = self.clock.real(self.options.faults.timeout_hold_s
                                   if self.options.faults else 120.0)
            self.limiter.expect(ticket, now + hold)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.closing.wait(), hold)
            return web.Response(status=504, headers=headers, content_type="application/json",
                                body=error_body("The server timed out.", "server_error"))
        if fault in ("500", "502", "503"):
            return web.Response(status=int(fault), headers=headers,
                                content_type="application/json", body=error_body(
                                    "The server had an error while processing your request. "
                                    "Sorry about that!", "server_error"))
        if fault == "quota":
            return web.Response(status=429, headers=headers, content_type="application/json",
                                body=error_body(
                                    "You exceeded your current quota, please check your plan "
                                    "and billing details.", "insufficient_quota",
                                    "insufficient_quota"))
        document, completion = job.answer(fault)
        world_now = self.clock.elapsed(now)
        cached = self.cache.cached_tokens(job.segments, world_now)
        if job.usage_style == "systemone":
            cached_reported = 0  # System One's usage has no cached-token field
        else:
            cached_reported = cached
        delay = self.latency(prompt - cached, completion)
        self.limiter.expect(ticket, now + delay)
        await asyncio.sleep(delay)
        document = {**document, "usage": self.usage(job, prompt, cached_reported, completion)}
        body = orjson.dumps(document)
        if fault == "truncated":
            self.counters.unreadable_replies += 1
            body = body[: len(body) // 2]
        else:
            counters = self.counters
            counters.billed_replies += 1
            counters.prompt_tokens += prompt
            counters.cached_tokens += cached_reported
            counters.completion_tokens += completion
        return web.Response(status=200, body=body, headers=headers,
                            content_type="application/json")


# ----------------------------------------------------------------------------- chat


def _text_of(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                raise BadRequest(f"Invalid content part in {where}.", param=where)
        return "".join(parts)
    if content is None:
        return ""
    raise BadRequest(f"Invalid type for '{where}'.", param=where)


def _messages(document: Mapping[str, Any]) -> list[ChatMessage]:
    raw = document.get("messages")
    if not isinstance(raw, list) or not raw:
        raise BadRequest("'messages' must be a non-empty array.", param="messages")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise BadRequest(f"Invalid type for 'messages[{i}]'.", param=f"messages[{i}]")
        role = item.get("role")
        role = "system" if role == "developer" else role
        try:
            parsed = Role(str(role))
        except ValueError:
            raise BadRequest(f"Invalid value for 'messages[{i}].role': {role!r}.",
                             param=f"messages[{i}].role") from None
        out.append(ChatMessage(parsed, _text_of(item.get("content"), f"messages[{i}].content")))
    return out


def _strict_problem(schema: Any, context: tuple[str, ...] = ()) -> str | None:
    """Where ``schema`` breaks OpenAI's strict-mode rules, or None."""
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            found = _strict_problem(item, (*context, str(i)))
            if found:
                return found
        return None
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or (
            "properties" in schema):
        if schema.get("additionalProperties") is not False:
            return (f"In context={context}, 'additionalProperties' is required to be "
                    "supplied and to be false.")
        properties = schema.get("properties") or {}
        missing = [name for name in properties if name not in (schema.get("required") or [])]
        if missing:
            return (f"In context={context}, 'required' is required to be supplied and to be "
                    f"an array including every key in properties. Missing '{missing[0]}'.")
    for key, value in schema.items():
        if isinstance(value, (dict, list)):
            found = _strict_problem(value, (*context, key))
            if found:
                return found
    return None


def _schema_of(document: Mapping[str, Any], messages: Sequence[ChatMessage]
               ) -> tuple[dict[str, Any] | None, bool]:
    """(schema to answer to, whether the request sent it) from ``response_format``,
    validated."""
    form = document.get("response_format")
    if form is None:
        return None, False
    if not isinstance(form, dict):
        raise BadRequest("Invalid type for 'response_format'.", param="response_format")
    kind = form.get("type")
    if kind == "text":
        return None, False
    if kind == "json_object":
        if not any("json" in m.content.lower() for m in messages):
            raise BadRequest("'messages' must contain the word 'json' in some form, to use "
                             "'response_format' of type 'json_object'.", param="messages")
        return {"type": "object", "properties": {"answer": {"type": "string"}}}, False
    if kind != "json_schema":
        raise BadRequest(f"Invalid value for 'response_format.type': {kind!r}.",
                         param="response_format.type")
    if isinstance(form.get("schema"), dict):  # llama.cpp's top-level form
        return form["schema"], True
    spec = form.get("json_schema")
    if not isinstance(spec, dict) or not isinstance(spec.get("schema"), dict):
        raise BadRequest("Missing required parameter: 'response_format.json_schema'.",
                         param="response_format.json_schema")
    name = spec.get("name")
    if not isinstance(name, str) or not _SCHEMA_NAME.fullmatch(name):
        raise BadRequest("Invalid 'response_format.json_schema.name': must be 1-64 "
                         "characters of a-z, A-Z, 0-9, '_' and '-'.",
                         param="response_format.json_schema.name")
    if spec.get("strict"):
        problem = _strict_problem(spec["schema"])
        if problem:
            raise BadRequest(f"Invalid schema for response_format '{name}': {problem}",
                             param="response_format", code="invalid_json_schema")
    return spec["schema"], True


_ANSWER_LINE = re.compile(r"^Answer with exactly one of: (.+?)\.?\s*$", re.MULTILINE)
_QUESTION_LINE = re.compile(r"^Question: (.*)$", re.MULTILINE)
_OPTION_LINE = re.compile(r"^([A-Z])\. (.*)$", re.MULTILINE)
_VARIANTS = (("{L}", 0.85), (" {L}", 0.08), ("{l}", 0.04), (" {l}", 0.03))
LABEL_MASS = 0.92
_DISTRACTORS = (("The", 0.3), ("Based", 0.2), ("I", 0.15), ("It", 0.1), ("Not", 0.1),
                ("None", 0.08), ("**", 0.07))


def decision_prompt(messages: Sequence[ChatMessage]) -> tuple[str, Question, list[str]]:
    """(state, question, labels) a logprobs prompt asks (module docs)."""
    users = [m.content for m in messages if m.role is Role.USER]
    last = users[-1] if users else messages[-1].content
    answer = _ANSWER_LINE.search(last)
    question_line = _QUESTION_LINE.search(last)
    instructions = question_line.group(1) if question_line else last
    state = "\n\n".join(users[:-1]) if len(users) > 1 else "\n\n".join(
        m.content for m in messages)
    labels = [x.strip() for x in answer.group(1).split(",")] if answer else ["Yes", "No"]
    if [x.casefold() for x in labels] == ["yes", "no"] or len(labels) < 2:
        return state, Predicate(instructions), ["Yes", "No"]
    options = dict(_OPTION_LINE.findall(last))
    return state, Choice(instructions, {label: options.get(label, label) for label in labels}
                         ), labels


def _entry(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": list(token.encode())}


def logprobs_content(probabilities: Mapping[str, float], top: int) -> list[dict[str, Any]]:
    """One content position: the most probable label sampled, ``top`` candidates."""
    candidates: list[tuple[str, float]] = []
    for label, p in probabilities.items():
        for form, share in _VARIANTS:
            weight = p * share * LABEL_MASS
            if weight > 0:
                candidates.append((form.format(L=label, l=label.lower()), math.log(weight)))
    candidates += [(token, math.log(share * (1 - LABEL_MASS))) for token, share in _DISTRACTORS]
    candidates.sort(key=lambda c: -c[1])
    best = max(probabilities, key=lambda label: probabilities[label])
    sampled = next(c for c in candidates if c[0] == best)
    return [{**_entry(*sampled), "top_logprobs": [_entry(*c) for c in candidates[:top]]}]


def prepare_chat(world: ModelWorld, document: dict[str, Any]) -> Job:
    model = str(document.get("model") or "")
    messages = _messages(document)
    limit = document.get("max_completion_tokens", document.get("max_tokens"))
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise BadRequest("Invalid 'max_completion_tokens': must be a positive integer.",
                         param="max_completion_tokens")
    n = document.get("n", 1)
    if n != 1:
        raise BadRequest("The world serves n=1 only.", param="n")
    wants_logprobs = document.get("logprobs") is True
    top = document.get("top_logprobs")
    if top is not None:
        if not wants_logprobs:
            raise BadRequest("'top_logprobs' requires 'logprobs' to be true.",
                             param="top_logprobs")
        if isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= 20:
            raise BadRequest("Invalid 'top_logprobs': must be between 0 and 20.",
                             param="top_logprobs")
    schema, sent = _schema_of(document, messages)
    segments = [(m.role.value, m.content) for m in messages]
    if sent:  # a schema sent is prompt, after the messages: compact JSON, keys sorted
        segments.append(("schema", orjson.dumps(schema, option=orjson.OPT_SORT_KEYS).decode()))
    reply_limit = limit if limit is not None else DEFAULT_COMPLETION

    def answer(fault: str | None) -> tuple[dict[str, Any], int]:
        logprobs: Any = None
        if wants_logprobs:
            state, question, labels = decision_prompt(messages)
            decided = decisions_of(world.answer_model, state, {"q": question})["q"]
            if isinstance(question, Predicate):
                p = decided.probability if decided.probability is not None else 0.5
                probs = {labels[0]: p, labels[1]: 1.0 - p}
            else:
                probs = {label: decided.probabilities.get(label, 0.0) for label in labels}
            content_lp = logprobs_content(probs, top or 0)
            text: str | None = content_lp[0]["token"]
            logprobs = {"content": content_lp, "refusal": None}
        else:
            text = world.answer_model.complete(messages, schema)
        finish = "stop"
        tokens = completion_tokens(text or "")
        if tokens > reply_limit:
            text, tokens, finish = (text or "")[: reply_limit * 4], reply_limit, "length"
        refusal = None
        if fault == "length":
            text, tokens, finish = (text or "")[:8], min(tokens, 2), "length"
        elif fault == "refusal":
            text, refusal, logprobs = None, "I'm sorry, but I can't help with that.", None
        elif fault == "empty":
            text, tokens, logprobs = "", 1, None
        if fault == "no_logprobs":
            logprobs = None
        return {
            "id": f"chatcmpl-world-{world.counters.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_world",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                                                 "refusal": refusal},
                         "logprobs": logprobs, "finish_reason": finish}],
        }, tokens

    return Job(model, segments, reply_limit, answer, "chat")


# ----------------------------------------------------------------------------- decisions


def _decision_questions(raw: Any) -> dict[str, Question]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= 400:
        raise BadRequest("'questions' must be an array of 1 to 400 questions.",
                         param="questions")
    out: dict[str, Question] = {}
    for i, item in enumerate(raw):
        where = f"questions[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("instructions"), str):
            raise BadRequest(f"Missing required parameter: '{where}.instructions'.",
                             param=where)
        name = str(item.get("name") or f"question_{i}")
        if name in out:
            raise BadRequest(f"Duplicate question name {name!r}.", param=where)
        kind = item.get("type")
        try:
            if kind == "predicate":
                out[name] = Predicate(item["instructions"])
            elif kind == "choice":
                choices = item.get("choices")
                if not isinstance(choices, list):
                    raise ValueError("choices must be an array")
                out[name] = Choice(item["instructions"], {
                    str(c["value"]): str(c.get("description") or "") for c in choices})
            elif kind == "score":
                levels = item.get("levels")
                if not isinstance(levels, list):
                    raise ValueError("levels must be an array")
                out[name] = Score(item["instructions"], tuple(str(lv["label"])
                                                              for lv in levels))
            else:
                raise ValueError(f"unknown question type {kind!r}")
        except (ValueError, KeyError, TypeError) as exc:
            raise BadRequest(f"Invalid '{where}': {exc}", param=where) from None
    return out


def _input_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        texts = []
        for message in raw:
            content = message.get("content") if isinstance(message, dict) else None
            texts.append(_text_of(content, "input"))
        return "\n\n".join(texts)
    raise BadRequest("'input' must be a string or an array of messages.", param="input")


def _question_segments(questions: Mapping[str, Question]) -> list[Segment]:
    segments: list[Segment] = []
    for name, q in questions.items():
        extra = ""
        if isinstance(q, Choice):
            extra = " " + " ".join(f"{k} {v}" for k, v in q.options.items())
        elif isinstance(q, Score):
            extra = " " + " ".join(q.levels)
        segments.append(("question", f"{name}: {q.instructions}{extra}"))
    return segments


def _rounded(p: float) -> float:
    return round(p, 6)


def prepare_decisions(world: ModelWorld, document: dict[str, Any]) -> Job:
    model = str(document.get("model") or "")
    state = _input_text(document.get("input"))
    questions = _decision_questions(document.get("questions"))

    def answer(fault: str | None) -> tuple[dict[str, Any], int]:
        decided = decisions_of(world.answer_model, state, questions)
        items: list[dict[str, Any]] = []
        for i, (name, question) in enumerate(questions.items()):
            d = decided[name]
            if (fault == "refusal" and i == 0) or d.probability is None:
                items.append({"type": "refusal", "name": name})
            elif isinstance(question, Predicate):
                items.append({"type": "predicate", "name": name,
                              "probability": _rounded(d.probability)})
            elif isinstance(question, Choice):
                items.append({"type": "choice", "name": name, "choice": d.choice,
                              "confidence": _rounded(d.confidence or 0.0),
                              "probabilities": [
                                  {"value": o, "probability": _rounded(d.probabilities[o])}
                                  for o in question.options]})
            else:
                mean = sum(j * d.probabilities[lv] for j, lv in enumerate(question.levels))
                items.append({"type": "score", "name": name, "score": _rounded(mean),
                              "confidence": _rounded(d.confidence or 0.0),
                              "probabilities": [
                                  {"value": j, "label": lv,
                                   "probability": _rounded(d.probabilities[lv])}
                                  for j, lv in enumerate(question.levels)]})
        return {"id": f"decision-world-{world.counters.requests}", "object": "decision",
                "model": model, "answers": items}, len(questions)

    return Job(model, [("input", state), *_question_segments(questions)], len(questions),
               answer, "decisions")


def _systemone_questions(raw: Any) -> dict[str, Question]:
    if not isinstance(raw, dict) or not 1 <= len(raw) <= 400:
        raise BadRequest("'questions' must be an object of 1 to 400 questions.",
                         param="questions")
    out: dict[str, Question] = {}
    for name, item in raw.items():
        where = f"questions.{name}"
        if not isinstance(item, dict) or not isinstance(item.get("instructions"), str):
            raise BadRequest(f"Missing required parameter: '{where}.instructions'.",
                             param=where)
        kind, criteria = item.get("type"), item.get("criteria")
        try:
            if kind == "noul":
                out[name] = Predicate(item["instructions"])
            elif kind == "choice":
                if not isinstance(criteria, dict) or len(criteria) > 255:
                    raise ValueError("criteria must map up to 255 options to descriptions")
                out[name] = Choice(item["instructions"], {
                    str(k): str(v or "") for k, v in criteria.items()})
            elif kind == "score":
                if not isinstance(criteria, list):
                    raise ValueError("criteria must list the levels")
                out[name] = Score(item["instructions"], tuple(str(c) for c in criteria))
            else:
                raise ValueError(f"unknown question type {kind!r}")
        except ValueError as exc:
            raise BadRequest(f"Invalid '{where}': {exc}", param=where) from None
    return out


def prepare_systemone(world: ModelWorld, document: dict[str, Any]) -> Job:
    model = str(document.get("model") or "")
    raw_state = document.get("state")
    if isinstance(raw_state, str):
        state = raw_state
    elif isinstance(raw_state, (dict, list)):
        state = orjson.dumps(raw_state).decode()
    else:
        raise BadRequest("'state' must be a string, an object or an array.", param="state")
    questions = _systemone_questions(document.get("questions"))

    def answer(fault: str | None) -> tuple[dict[str, Any], int]:
        decided = decisions_of(world.answer_model, state, questions)
        items: dict[str, Any] = {}
        for i, (name, question) in enumerate(questions.items()):
            d = decided[name]
            if (fault == "refusal" and i == 0) or d.probability is None:
                items[name] = {"type": "refusal"}
            elif isinstance(question, Predicate):
                items[name] = {"type": "noul", "noul": _rounded(d.probability)}
            elif isinstance(question, Choice):
                items[name] = {"type": "choice", "choice": d.choice,
                               "probabilities": {o: _rounded(d.probabilities[o])
                                                 for o in question.options},
                               "confidence": _rounded(d.confidence or 0.0)}
            else:
                mean = sum(j * d.probabilities[lv] for j, lv in enumerate(question.levels))
                items[name] = {"type": "score", "score": _rounded(mean),
                               "legend": list(question.levels),
                               "probabilities": {lv: _rounded(d.probabilities[lv])
                                                 for lv in question.levels},
                               "confidence": _rounded(d.confidence or 0.0)}
        return {"model": model, "answers": items}, len(questions)

    return Job(model, [("state", state), *_question_segments(questions)], len(questions),
               answer, "systemone")


# ----------------------------------------------------------------------------- the app

MODEL_WORLD = web.AppKey("model_world", ModelWorld)


def _route(name: str, prepare: Callable[[ModelWorld, dict[str, Any]], Job]
           ) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        return await request.app[MODEL_WORLD].serve(request, name, prepare)
    return handle


async def _models(request: web.Request) -> web.Response:
    world = request.app[MODEL_WORLD]
    return await world.counted("models", _model_list(world))


async def _model_list(world: ModelWorld) -> web.Response:
    data = [{"id": model, "object": "model", "created": 1_790_000_000, "owned_by": "world",
             "max_model_len": world.options.max_context} for model in world.options.models]
    return web.json_response({"object": "list", "data": data},
                             headers=world.limiter.headers(world.clock.now()))


async def _usage(request: web.Request) -> web.Response:
    world = request.app[MODEL_WORLD]
    if request.method == "DELETE":
        world.counters = ServedCounters()
    return web.json_response(world.counters.as_json())


async def _not_found(request: web.Request) -> web.Response:
    return web.Response(status=404, content_type="application/json", body=error_body(
        f"Invalid URL ({request.method} {request.path})", "invalid_request_error"))


def create_models_app(options: ModelWorldOptions | None = None,
                      clock: WorldClock | None = None) -> web.Application:
    """The endpoint as an aiohttp application (its state in ``app[MODEL_WORLD]``)."""
    world = ModelWorld(options or ModelWorldOptions(), clock or WorldClock())
    app = web.Application()
    app[MODEL_WORLD] = world

    async def closing(_: web.Application) -> None:
        world.closing.set()

    app.on_shutdown.append(closing)
    app.router.add_post("/v1/chat/completions", _route("chat", prepare_chat), name="chat")
    app.router.add_post("/v1/decisions", _route("decisions", prepare_decisions),
                        name="decisions")
    app.router.add_post("/v1/systemone", _route("systemone", prepare_systemone),
                        name="systemone")
    app.router.add_get("/v1/models", _models, name="models")
    app.router.add_route("GET", "/_world/usage", _usage, name="usage")
    app.router.add_route("DELETE", "/_world/usage", _usage)
    app.router.add_route("*", "/{tail:.*}", _not_found)
    return app


MODELS_PREFIX = "/models"
"""Where :func:`mount_models` mounts the endpoint in the bibliographic world."""


def mount_models(root: web.Application, options: ModelWorldOptions | None = None,
                 clock: WorldClock | None = None) -> ModelWorld:
    """Mount the endpoint under ``/models`` of the world's root application (its base
    URL is then ``<world>/models/v1``) and return its state."""
    app = create_models_app(options, clock)
    root.add_subapp(MODELS_PREFIX, app)
    return app[MODEL_WORLD]


@dataclass(slots=True)
class ModelsHandle:
    """A running endpoint: ``base_url`` ends in ``/v1`` (what a client's base URL is)."""

    url: str
    base_url: str
    world: ModelWorld

    @property
    def counters(self) -> ServedCounters:
        return self.world.counters


@contextlib.asynccontextmanager
async def serve_models(
    options: ModelWorldOptions | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    time_scale: float = 1.0,
    answer_model: AnswerModel | None = None,
) -> AsyncIterator[ModelsHandle]:
    """Serve the simulated endpoint alone on loopback (``port=0``: a free port) for the
    duration of the block. ``answer_model`` (e.g. the project's offline model) replaces
    the options' one; the default is :class:`~.answer.OfflineAnswerModel`."""
    options = options or ModelWorldOptions()
    if answer_model is not None:
        options = dataclasses.replace(options, answer_model=answer_model)
    # Built on a worker thread: the default answer model reads its weights file.
    app = await asyncio.to_thread(create_models_app, options, WorldClock(time_scale))
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1]
        root = f"http://{host}:{bound}"
        yield ModelsHandle(url=root, base_url=f"{root}/v1", world=app[MODEL_WORLD])
    finally:
        await runner.cleanup()
