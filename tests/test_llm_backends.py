"""The remote model backends through a session's paced client, against the simulated
endpoint on loopback: answers, faults, limits, caching, usage against the server's own
counters, and the per-item failures (a prompt over the context, an endpoint that is down).

Faults are forced per request with the world's ``x-world-fault`` header, added by a
transport wrapper for the first N sends only, so a retry sees a healthy endpoint.
"""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

from adapters.llm.failures import (
    FailureClass,
    ModelRefused,
    NoLogprobs,
    RequestRejected,
    TruncatedReply,
)
from verifier.errors import ConnectFailed, SourceError
from verifier.http.transport import AiohttpTransport, HttpRequest, HttpResponse, Transport
from verifier.llm.backends import PromptTooLong
from verifier.llm.interfaces import ChatModel, DecisionModel
from verifier.llm.select import ledger_of, open_models
from verifier.llm.structured import InvalidAnswer, complete_json
from verifier.llm.types import AnswerKind, ChatMessage, Choice, Predicate, Question, Role
from verifier.session import Session
from verifier.settings import ModelEndpointSettings, ModelSettings, Settings
from verifier.world.models import (
    FAULT_HEADER,
    NO_LATENCY,
    ModelLimits,
    ModelsHandle,
    ModelWorldOptions,
    ServedCounters,
    serve_models,
)

UNLIMITED = ModelLimits(rpm=None, tpm=None, concurrency=None)
FAST = ModelWorldOptions(latency=NO_LATENCY, limits=UNLIMITED)
PAPER = ("We propose a sparse attention method. The method improves accuracy on ImageNet "
         "by two points. It does not reduce training time. ") * 60
QUESTIONS: dict[str, Question] = {
    "accuracy": Predicate("Does the method improve accuracy on ImageNet?"),
    "speed": Predicate("Does the method reduce training time?"),
    "topic": Choice("What is the paper about?", {"attention": "a sparse attention method",
                                                 "robots": "robot grasping"}),
}
SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "claims": {"type": "array", "items": {"type": "string"}}}, "required": ["claims"]}
MODELS = {"logprobs": "world-chat", "decisions": "gpt-6-luna", "systemone": "jev"}


class FaultFirst(Transport):
    """The real transport, with ``x-world-fault: NAME`` on the first ``times`` sends."""

    def __init__(self, fault: str, times: int = 1) -> None:
        self.inner = AiohttpTransport("test")
        self.fault = fault
        self.times = times
        self.sent = 0
        self.requests: list[HttpRequest] = []

    async def __aenter__(self) -> FaultFirst:
        await self.inner.__aenter__()
        return self

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        self.sent += 1
        self.requests.append(request)
        if self.sent <= self.times:
            request = dataclasses.replace(
                request, headers=(*request.headers, (FAULT_HEADER, self.fault)))
        return await self.inner.send(base_url, request)


def settings_for(base_url: str, fmt: str = "logprobs", *, cache_dir: Path | None = None,
                 time_scale: float = 100.0, **models: Any) -> Settings:
    """Both interfaces on one endpoint; ``time_scale`` speeds the client's policy up."""
    ms = ModelSettings(
        llm=ModelEndpointSettings(base_url, "world-chat", api_key="sk-test-SENTINEL"),
        decision=ModelEndpointSettings(base_url, MODELS[fmt], api_key="sk-test-SENTINEL"),
        decision_format=fmt, **models)
    return Settings(cache_dir=cache_dir, models=ms, time_scale=time_scale)


@asynccontextmanager
async def opened(settings: Settings, transport: Transport | None = None
                 ) -> AsyncIterator[tuple[Session, DecisionModel, ChatModel]]:
    async with Session(settings, transport=transport) as session:
        decision, chat = open_models(session)
        yield session, decision, chat


def ask(text: str = "List the claims of the paper as JSON.") -> list[ChatMessage]:
    return [ChatMessage(Role.USER, text)]


def served(handle: ModelsHandle) -> tuple[int, int, int, int]:
    c = handle.counters
    return c.prompt_tokens, c.cached_tokens, c.completion_tokens, c.billed_replies


def accounted(session: Session) -> tuple[int, int, int, int]:
    s = ledger_of(session).snapshot()
    return s.prompt_tokens, s.cached_prompt_tokens, s.completion_tokens, s.requests


# ----------------------------------------------------------------------------- answers


@pytest.mark.asyncio
@pytest.mark.parametrize("fmt", ["logprobs", "decisions", "systemone"])
async def test_every_decision_backend_answers_through_the_paced_client(fmt: str) -> None:
    async with serve_models(FAST) as handle, opened(settings_for(handle.base_url, fmt)) as (
            session, decision, _):
        result = await decision.decide(PAPER, QUESTIONS)
        assert result.backend == fmt and decision.backend == fmt
        accuracy, speed = result.answers["accuracy"].probability, result.answers[
            "speed"].probability
        assert accuracy is not None and speed is not None and accuracy > speed
        assert result.answers["topic"].choice == "attention"
        expected_requests = len(QUESTIONS) if fmt == "logprobs" else 1
        assert handle.counters.requests == expected_requests
        assert session.stats.sources["llm"].requests == expected_requests
        assert accounted(session) == served(handle)


@pytest.mark.asyncio
async def test_the_logprobs_backend_puts_the_paper_first_so_the_prefix_cache_hits() -> None:
    async with serve_models(FAST) as handle, opened(settings_for(handle.base_url)) as (
            session, decision, _):
        await decision.decide(PAPER, {"a": QUESTIONS["accuracy"]})
        second = await decision.decide(PAPER, {"b": QUESTIONS["speed"]})
        assert second.usage.cached_prompt_tokens >= 1024
        assert ledger_of(session).snapshot().cached_prompt_tokens == handle.counters.cached_tokens


@pytest.mark.asyncio
async def test_chat_json_is_parsed_and_validated_with_the_schema_sent() -> None:
    async with serve_models(FAST) as handle, opened(settings_for(handle.base_url)) as (
            session, _, chat):
        answer = await complete_json(chat, ask(), SCHEMA)
        assert isinstance(answer.value["claims"], list) and answer.attempts == 1
        assert answer.backend == "chat"
        assert accounted(session) == served(handle)


@pytest.mark.asyncio
async def test_json_object_mode_puts_the_schema_in_the_prompt_and_off_schema_is_an_error(
) -> None:
    # The world answers json_object requests with {"answer": ...}: off this schema, twice.
    async with serve_models(FAST) as handle:
        transport = FaultFirst("none", times=0)
        settings = settings_for(handle.base_url, json_mode="json_object")
        async with opened(settings, transport) as (_, _, chat):
            with pytest.raises(InvalidAnswer) as caught:
                await complete_json(chat, ask("List the claims."), SCHEMA)
        assert "claims" in str(caught.value) and handle.counters.requests == 2
        body = orjson.loads(transport.requests[0].body or b"")
        assert body["response_format"] == {"type": "json_object"}
        assert '"claims"' in body["messages"][-1]["content"]
        retry = orjson.loads(transport.requests[1].body or b"")["messages"]
        assert retry[-3]["role"] == "assistant" and "claims" in retry[-2]["content"]


# ----------------------------------------------------------------------------- faults


@pytest.mark.asyncio
@pytest.mark.parametrize("fault", ["500", "503", "truncated", "timeout"])
async def test_transient_faults_are_retried_and_usage_still_matches(fault: str) -> None:
    options = dataclasses.replace(FAST, faults=None)
    async with serve_models(options) as handle:
        transport = FaultFirst(fault)
        async with opened(settings_for(handle.base_url, "decisions"), transport) as (
                session, decision, _):
            result = await decision.decide(PAPER, QUESTIONS)
            assert result.answers["accuracy"].probability is not None
            assert transport.sent == 2 and session.stats.sources["llm"].retries == 1
            assert accounted(session) == served(handle)


@pytest.mark.asyncio
async def test_a_reply_cut_at_length_is_an_error_never_retried_and_json_gets_a_second_try(
) -> None:
    async with serve_models(FAST) as handle:
        async with opened(settings_for(handle.base_url), FaultFirst("length")) as (
                session, _, chat):
            with pytest.raises(TruncatedReply):
                await chat.complete(ask(), schema=SCHEMA)
            assert handle.counters.requests == 1
            assert accounted(session) == served(handle)  # billed although unusable
        handle.world.counters = ServedCounters()
        transport = FaultFirst("length")
        async with opened(settings_for(handle.base_url), transport) as (session, _, chat):
            answer = await complete_json(chat, ask(), SCHEMA)
            assert answer.attempts == 2 and transport.sent == 2
            assert accounted(session) == served(handle)


@pytest.mark.asyncio
async def test_two_bad_answers_are_an_error_on_the_item_never_a_value() -> None:
    async with serve_models(FAST) as handle:
        async with opened(settings_for(handle.base_url), FaultFirst("empty", 2)) as (
                _, _, chat):
            with pytest.raises(InvalidAnswer) as caught:
                await complete_json(chat, ask(), SCHEMA)
        assert handle.counters.requests == 2
        assert "empty" in str(caught.value)


@pytest.mark.asyncio
async def test_a_reply_without_logprobs_is_an_error_not_a_half() -> None:
    async with serve_models(FAST) as handle, opened(
            settings_for(handle.base_url), FaultFirst("no_logprobs")) as (_, decision, _):
        with pytest.raises(NoLogprobs):
            await decision.decide(PAPER, {"a": QUESTIONS["accuracy"]})
        assert handle.counters.requests == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("fmt", ["logprobs", "decisions"])
async def test_a_refusal_is_an_answer_without_probability_and_is_not_cached(
        fmt: str, tmp_path: Path) -> None:
    question = {"a": QUESTIONS["accuracy"]}
    async with serve_models(FAST) as handle:
        settings = settings_for(handle.base_url, fmt, cache_dir=tmp_path)
        async with opened(settings, FaultFirst("refusal")) as (_, decision, _):
            refused = await decision.decide(PAPER, question)
            assert refused.answers["a"].kind is AnswerKind.REFUSAL
            assert refused.answers["a"].probability is None
            again = await decision.decide(PAPER, question)
            assert again.answers["a"].probability is not None
        assert handle.counters.requests == 2


@pytest.mark.asyncio
async def test_a_chat_refusal_is_an_error() -> None:
    async with serve_models(FAST) as handle, opened(
            settings_for(handle.base_url), FaultFirst("refusal")) as (_, _, chat):
        with pytest.raises(ModelRefused):
            await complete_json(chat, ask(), SCHEMA)
        assert handle.counters.requests == 1


@pytest.mark.asyncio
async def test_a_quota_429_is_never_retried() -> None:
    async with serve_models(FAST) as handle, opened(
            settings_for(handle.base_url, "decisions"), FaultFirst("quota", 5)) as (
            session, decision, _):
        with pytest.raises(RequestRejected) as caught:
            await decision.decide(PAPER, QUESTIONS)
        assert caught.value.failure.kind is FailureClass.QUOTA
        assert handle.counters.requests == 1
        assert session.stats.sources["llm"].throttled == 0


@pytest.mark.asyncio
async def test_a_request_too_large_for_the_tpm_is_never_retried() -> None:
    options = ModelWorldOptions(latency=NO_LATENCY, limits=ModelLimits(
        rpm=None, tpm=1000, concurrency=None))
    async with serve_models(options) as handle, opened(
            settings_for(handle.base_url, "decisions")) as (_, decision, _):
        with pytest.raises(RequestRejected) as caught:
            await decision.decide(PAPER, QUESTIONS)
        assert caught.value.failure.kind is FailureClass.TOO_LARGE
        assert handle.counters.requests == 1


@pytest.mark.asyncio
async def test_a_rate_limit_429_pauses_the_endpoint_for_the_stated_wait_then_succeeds(
) -> None:
    # The server allows 60 requests a minute, bucket of one: the client (600/min at this
    # time scale) is throttled and waits the stated ~1 s before its retry.
    options = ModelWorldOptions(latency=NO_LATENCY, limits=ModelLimits(
        rpm=60, tpm=None, concurrency=None, burst=1 / 60))
    async with serve_models(options) as handle, opened(
            settings_for(handle.base_url, "decisions", time_scale=1.0)) as (
            session, decision, _):
        await decision.decide(PAPER, {"a": QUESTIONS["accuracy"]})
        await decision.decide(PAPER, {"b": QUESTIONS["speed"]})
        stats = session.stats.sources["llm"]
        assert stats.throttled >= 1 and stats.failures == 0
        assert handle.counters.throttled["requests"] == stats.throttled
        assert accounted(session) == served(handle)


@pytest.mark.asyncio
async def test_an_endpoint_that_is_down_fails_the_item_with_a_source_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with opened(settings_for(f"http://127.0.0.1:{port}/v1", "decisions")) as (
            session, decision, _):
        with pytest.raises(ConnectFailed):
            await decision.decide(PAPER, QUESTIONS)
        assert session.stats.sources["llm"].failures == 1
    assert issubclass(ConnectFailed, SourceError)


# ----------------------------------------------------------------------------- context


@pytest.mark.asyncio
async def test_a_chat_prompt_over_the_context_is_refused_before_sending() -> None:
    async with serve_models(FAST) as handle, opened(settings_for(
            handle.base_url, context_tokens=3000, max_completion_tokens=100)) as (
            _, _, chat):
        with pytest.raises(PromptTooLong):
            await chat.complete(ask(PAPER * 2), schema=SCHEMA)
        assert handle.counters.requests == 0


@pytest.mark.asyncio
async def test_a_state_over_the_context_is_truncated_by_the_documented_rule() -> None:
    options = dataclasses.replace(FAST, max_context=1500)
    async with serve_models(options) as handle, opened(settings_for(
            handle.base_url, "decisions", context_tokens=1500)) as (session, decision, _):
        result = await decision.decide(PAPER, QUESTIONS)
        assert result.answers["accuracy"].probability is not None
        assert ledger_of(session).truncated_states == 1
        assert handle.counters.prompt_tokens <= 1500


# ----------------------------------------------------------------------------- caching


@pytest.mark.asyncio
async def test_a_second_identical_call_sends_nothing_and_gives_the_same_answers(
        tmp_path: Path) -> None:
    async with serve_models(FAST) as handle:
        settings = settings_for(handle.base_url, cache_dir=tmp_path)
        async with opened(settings) as (_, decision, chat):
            first = await decision.decide(PAPER, QUESTIONS)
            first_json = await complete_json(chat, ask(), SCHEMA)
        sent = handle.counters.requests
        async with opened(settings) as (session, decision, chat):
            second = await decision.decide(PAPER, QUESTIONS)
            second_json = await complete_json(chat, ask(), SCHEMA)
            snapshot = ledger_of(session).snapshot()
        assert handle.counters.requests == sent
        assert second.answers == first.answers and second_json.value == first_json.value
        assert snapshot.cache_hits == len(QUESTIONS) + 1 and snapshot.requests == 0
        refreshed = dataclasses.replace(settings, cache_read=False)
        async with opened(refreshed) as (_, decision, _):
            await decision.decide(PAPER, QUESTIONS)
        assert handle.counters.requests == sent + len(QUESTIONS)


@pytest.mark.asyncio
async def test_errors_are_never_cached(tmp_path: Path) -> None:
    async with serve_models(FAST) as handle:
        settings = settings_for(handle.base_url, cache_dir=tmp_path)
        async with opened(settings, FaultFirst("length")) as (_, _, chat):
            with pytest.raises(TruncatedReply):
                await chat.complete(ask(), schema=SCHEMA)
        async with opened(settings) as (_, _, chat):
            await chat.complete(ask(), schema=SCHEMA)
        assert handle.counters.requests == 2


@pytest.mark.asyncio
async def test_answers_are_cached_per_endpoint_url(tmp_path: Path) -> None:
    async with serve_models(FAST) as one, serve_models(FAST) as two:
        async with opened(settings_for(one.base_url, cache_dir=tmp_path)) as (_, d, _):
            await d.decide(PAPER, {"a": QUESTIONS["accuracy"]})
        async with opened(settings_for(two.base_url, cache_dir=tmp_path)) as (_, d, _):
            await d.decide(PAPER, {"a": QUESTIONS["accuracy"]})
        assert one.counters.requests == 1 and two.counters.requests == 1


# ----------------------------------------------------------------------------- keys


@pytest.mark.asyncio
async def test_the_key_is_sent_but_never_in_reprs_results_or_the_cache(tmp_path: Path) -> None:
    async with serve_models(FAST) as handle:
        settings = settings_for(handle.base_url, cache_dir=tmp_path)
        async with opened(settings) as (session, decision, chat):
            result = await decision.decide(PAPER, QUESTIONS)
            text = repr(settings) + repr(decision) + repr(chat) + repr(result) + repr(
                ledger_of(session).as_json())
        assert "SENTINEL" not in text
        assert b"SENTINEL" not in stored_bytes(tmp_path)


def stored_bytes(folder: Path) -> bytes:
    """Every byte of every file under ``folder`` (the cache's SQLite and value files)."""
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())



# ----------------------------------------------------------------------------- facade


@pytest.mark.asyncio
async def test_the_front_door_decides_and_completes_json_offline_by_default() -> None:
    from verifier.api import Verifier

    async with Verifier(Settings(cache_dir=None)) as verifier:
        decided = await verifier.decide(PAPER, {"a": QUESTIONS["accuracy"]})
        answer = await verifier.complete_json(
            [ChatMessage(Role.USER, f"task: extract_claims\n<paper>{PAPER}</paper>")],
            schema={"type": "object"})
    assert decided.backend == "offline" and decided.answers["a"].probability is not None
    assert answer.backend == "offline" and isinstance(answer.value, dict)


@pytest.mark.asyncio
async def test_the_front_door_uses_the_configured_endpoint() -> None:
    from verifier.api import Verifier

    async with serve_models(FAST) as handle:
        async with Verifier(settings_for(handle.base_url, "decisions")) as verifier:
            decided = await verifier.decide(PAPER, QUESTIONS)
            answer = await verifier.complete_json(ask(), schema=SCHEMA)
            spent = verifier.stats.meters["models"].as_json()
        assert decided.backend == "decisions" and answer.backend == "chat"
        assert spent["requests"] == handle.counters.billed_replies == 2
