"""The simulated model endpoint, driven over real HTTP on loopback by the wire adapters.

Each adapter's request is sent with the real transport to the endpoint and its reply
parsed back; faults, limits, prefix caching and the server's own counters are checked
from what the client reads. No async fixtures: each test opens its server in its task.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest

from adapters.llm import chat, decisions, logprobs, models, systemone
from adapters.llm.failures import (
    EmptyReply,
    FailureClass,
    ModelRefused,
    NoLogprobs,
    RequestRejected,
    TruncatedReply,
    classify,
)
from adapters.llm.ratelimits import parse_rate_hint
from adapters.llm.tokens import estimate_request_tokens
from adapters.llm.wire import post_json
from verifier.errors import MalformedResponse, ServerError, SourceError
from verifier.http.transport import AiohttpTransport, HttpRequest
from verifier.llm.types import (
    AnswerKind,
    ChatMessage,
    Choice,
    Decision,
    Predicate,
    Question,
    Role,
    Score,
    Usage,
)
from verifier.world import Corpus, serve_world
from verifier.world.models import (
    FAULT_HEADER,
    NO_LATENCY,
    Latency,
    LexicalAnswerModel,
    ModelFaults,
    ModelLimits,
    ModelsHandle,
    ModelWorldOptions,
    serve_models,
)

UNLIMITED = ModelLimits(rpm=None, tpm=None, concurrency=None)
FAST = ModelWorldOptions(latency=NO_LATENCY, limits=UNLIMITED)

PAPER = ("We propose a sparse attention method. The method improves accuracy on ImageNet "
         "by two points. It does not reduce training time. ") * 60  # about 2,000 tokens
QUESTIONS: dict[str, Question] = {
    "accuracy": Predicate("Does the method improve accuracy on ImageNet?"),
    "speed": Predicate("Does the method reduce training time?"),
    "topic": Choice("What is the paper about?", {
        "attention": "a sparse attention method", "robots": "robot grasping",
        "proteins": "protein folding"}),
    "strength": Score("How strong is the evidence?", ("weak", "moderate", "strong")),
}
SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "claims": {"type": "array", "items": {"type": "object", "properties": {
        "text": {"type": "string"}, "page": {"type": "integer"}}, "required": ["text"]}}},
    "required": ["claims"]}


@asynccontextmanager
async def endpoint(options: ModelWorldOptions = FAST, **kwargs: Any
                   ) -> AsyncIterator[tuple[ModelsHandle, AiohttpTransport]]:
    """The endpoint answering with the lexical stand-in (exact, known answers for the wire
    tests) unless a test plugs in another model."""
    kwargs.setdefault("answer_model", LexicalAnswerModel())
    async with serve_models(options, **kwargs) as handle, AiohttpTransport("test") as transport:
        yield handle, transport


def forced(request: HttpRequest, fault: str) -> HttpRequest:
    return dataclasses.replace(request, headers=(*request.headers, (FAULT_HEADER, fault)))


def lexical(state: str, questions: Mapping[str, Question]) -> dict[str, Decision]:
    return LexicalAnswerModel().decide(state, questions)


class Fixed:
    """An answer model that says P(yes) = ``p`` to everything and ``{"claims": []}``."""

    def __init__(self, p: float) -> None:
        self.p = p

    def decide(self, state: str, questions: Mapping[str, Question]) -> dict[str, Decision]:
        return {name: Decision(AnswerKind.PREDICATE, self.p, {"yes": self.p, "no": 1 - self.p})
                for name in questions}

    def complete(self, messages: Sequence[ChatMessage],
                 schema: Mapping[str, Any] | None = None) -> str:
        return '{"claims": []}'


def chat_request(text: str = "List the claims of the paper as JSON. The sky is blue.",
                 **options: Any) -> HttpRequest:
    return chat.build_request("world-chat", [ChatMessage(Role.USER, text)], schema=SCHEMA,
                              **options)


# ----------------------------------------------------------------------------- round trips


@pytest.mark.asyncio
async def test_decisions_round_trip_answers_every_question_in_order() -> None:
    expected = lexical(PAPER, QUESTIONS)
    async with endpoint() as (handle, transport):
        response = await transport.send(
            handle.base_url, decisions.build_request("gpt-6-luna", PAPER, QUESTIONS))
    result = decisions.parse_response(QUESTIONS, response, model="gpt-6-luna")
    assert list(result.answers) == list(QUESTIONS)
    for name, decision in result.answers.items():
        assert decision.probability == pytest.approx(expected[name].probability, abs=1e-5)
    accuracy, speed = (result.answers[n].probability for n in ("accuracy", "speed"))
    assert accuracy is not None and speed is not None and accuracy > speed
    assert result.answers["topic"].choice == "attention"
    assert result.usage.completion_tokens == len(QUESTIONS) and result.usage.requests == 1


@pytest.mark.asyncio
async def test_systemone_round_trip_keys_answers_by_question_id() -> None:
    expected = lexical(PAPER, QUESTIONS)
    async with endpoint() as (handle, transport):
        response = await transport.send(
            handle.base_url, systemone.build_request("jev", PAPER, QUESTIONS))
    result = systemone.parse_response(QUESTIONS, response, model="jev")
    assert result.backend == "systemone"
    assert result.answers["strength"].probabilities == pytest.approx(
        dict(expected["strength"].probabilities), abs=1e-5)
    assert result.answers["topic"].choice == "attention"
    assert result.usage.cached_prompt_tokens == 0  # System One reports no cached tokens


@pytest.mark.asyncio
async def test_logprobs_recover_the_answer_models_probability() -> None:
    expected = lexical(PAPER, QUESTIONS)
    async with endpoint() as (handle, transport):
        for name in ("accuracy", "speed"):
            question = QUESTIONS[name]
            response = await transport.send(
                handle.base_url, logprobs.build_request("world-chat", PAPER, question))
            answer = logprobs.parse_response(question, response, model="world-chat")
            assert answer.decision.probability == pytest.approx(
                expected[name].probability, rel=1e-9)
            assert answer.estimate.bounded == frozenset()
            assert answer.estimate.mass == pytest.approx(0.92)


@pytest.mark.asyncio
async def test_a_choice_over_lettered_options_comes_back_as_the_option() -> None:
    question = QUESTIONS["topic"]
    assert isinstance(question, Choice)
    async with endpoint() as (handle, transport):
        response = await transport.send(
            handle.base_url, logprobs.build_request("world-chat", PAPER, question))
    answer = logprobs.parse_response(question, response, model="world-chat")
    assert answer.decision.choice == "attention"
    assert set(answer.decision.probabilities) == set(question.options)


@pytest.mark.asyncio
async def test_a_short_top_list_loses_one_side_and_the_answer_says_it_is_a_bound() -> None:
    question = QUESTIONS["accuracy"]
    # At P(yes) = 0.97 the two most probable tokens are "Yes" and " Yes": "No" is cut.
    async with endpoint(answer_model=Fixed(0.97)) as (handle, transport):
        response = await transport.send(handle.base_url, logprobs.build_request(
            "world-chat", PAPER, question, top_logprobs=2))
    answer = logprobs.parse_response(question, response, model="world-chat")
    assert answer.estimate.bounded == frozenset({"No"})
    assert answer.decision.probability is not None
    # "No" is given the smallest listed probability, " Yes" at 0.97 × 0.08: a lower bound.
    yes = 0.97 * (0.85 + 0.08)
    assert answer.decision.probability == pytest.approx(yes / (yes + 0.97 * 0.08))
    assert 0.5 < answer.decision.probability < 0.97


@pytest.mark.asyncio
async def test_structured_chat_returns_json_that_fits_the_schema() -> None:
    async with endpoint() as (handle, transport):
        response = await transport.send(handle.base_url, chat_request())
    result = chat.parse_response(response, model="world-chat")
    document = chat.parse_json_text(result.text)
    assert set(document) == {"claims"}
    assert set(document["claims"][0]) == {"text", "page"}
    assert result.usage.completion_tokens == math.ceil(len(result.text) / 4)


@pytest.mark.asyncio
async def test_the_model_list_names_the_models_served() -> None:
    options = dataclasses.replace(FAST, models=("a-model", "b-model"), max_context=32_000)
    async with endpoint(options) as (handle, transport):
        listed = models.parse_response(await transport.send(handle.base_url,
                                                            models.build_request()))
    assert [m.id for m in listed] == ["a-model", "b-model"]
    assert {m.max_model_len for m in listed} == {32_000}


@pytest.mark.asyncio
async def test_a_pluggable_answer_model_supplies_the_answers() -> None:
    question = {"q": Predicate("Anything?")}
    async with endpoint(answer_model=Fixed(0.3)) as (handle, transport):
        by_logprobs = logprobs.parse_response(question["q"], await transport.send(
            handle.base_url, logprobs.build_request("world-chat", "text", question["q"])),
            model="m")
        by_decisions = decisions.parse_response(question, await transport.send(
            handle.base_url, decisions.build_request("gpt-6-luna", "text", question)),
            model="m")
        text = chat.parse_response(await transport.send(handle.base_url, chat_request()),
                                   model="m").text
    assert by_logprobs.decision.probability == pytest.approx(0.3)
    assert by_decisions.answers["q"].probability == pytest.approx(0.3)
    assert text == '{"claims": []}'


# ----------------------------------------------------------------------------- refusals


def raw_chat(payload: dict[str, Any]) -> HttpRequest:
    return post_json("/chat/completions", {"model": "world-chat", **payload})


@pytest.mark.asyncio
@pytest.mark.parametrize(("payload", "param"), [
    ({"messages": [{"role": "user", "content": "List claims"}],
      "response_format": {"type": "json_schema", "json_schema": {
          "name": "x", "strict": True, "schema": SCHEMA}}}, "response_format"),
    ({"messages": [{"role": "user", "content": "List claims"}],
      "response_format": {"type": "json_object"}}, "messages"),
    ({"messages": [{"role": "user", "content": "x"}], "logprobs": True,
      "top_logprobs": 21}, "top_logprobs"),
    ({"messages": [{"role": "user", "content": "x"}], "top_logprobs": 5}, "top_logprobs"),
], ids=["non-strict-schema", "json-object-without-json", "top-21", "top-without-logprobs"])
async def test_requests_real_servers_refuse_are_refused(payload: dict[str, Any],
                                                        param: str) -> None:
    async with endpoint() as (handle, transport):
        response = await transport.send(handle.base_url, raw_chat(payload))
    failure = classify(response)
    assert failure is not None and failure.status == 400
    assert failure.kind is FailureClass.INVALID and not failure.retryable
    assert failure.param == param


@pytest.mark.asyncio
async def test_an_unknown_model_is_a_404_model_not_found() -> None:
    async with endpoint() as (handle, transport):
        response = await transport.send(
            handle.base_url, decisions.build_request("gpt-7", PAPER, QUESTIONS))
    with pytest.raises(RequestRejected) as caught:
        decisions.parse_response(QUESTIONS, response, model="gpt-7")
    assert caught.value.failure.code == "model_not_found"


@pytest.mark.asyncio
async def test_a_prompt_over_the_context_is_refused() -> None:
    options = dataclasses.replace(FAST, max_context=500)
    async with endpoint(options) as (handle, transport):
        response = await transport.send(
            handle.base_url, logprobs.build_request("world-chat", PAPER, QUESTIONS["speed"]))
    failure = classify(response)
    assert failure is not None and failure.code == "context_length_exceeded"


# ----------------------------------------------------------------------------- faults


@pytest.mark.asyncio
@pytest.mark.parametrize(("fault", "error"), [
    ("500", ServerError), ("503", ServerError), ("length", TruncatedReply),
    ("refusal", ModelRefused), ("empty", EmptyReply), ("quota", RequestRejected),
    ("truncated", MalformedResponse),
])
async def test_each_chat_fault_is_the_right_error(fault: str, error: type[Exception]) -> None:
    async with endpoint() as (handle, transport):
        response = await transport.send(handle.base_url, forced(chat_request(), fault))
    with pytest.raises(error) as caught:
        chat.parse_response(response, model="m")
    assert type(caught.value) is error  # not a sibling or a subclass
    if fault == "quota":
        assert isinstance(caught.value, RequestRejected)
        assert caught.value.failure.kind is FailureClass.QUOTA
    if fault.isdigit():
        failure = classify(response)
        assert failure is not None and failure.retryable


@pytest.mark.asyncio
async def test_a_reply_without_logprobs_is_no_logprobs_not_one_half() -> None:
    question = QUESTIONS["accuracy"]
    async with endpoint() as (handle, transport):
        response = await transport.send(handle.base_url, forced(
            logprobs.build_request("world-chat", PAPER, question), "no_logprobs"))
    assert response.status == 200
    with pytest.raises(NoLogprobs):
        logprobs.parse_response(question, response, model="m")


@pytest.mark.asyncio
async def test_a_refusal_fault_refuses_one_decision_question_only() -> None:
    async with endpoint() as (handle, transport):
        response = await transport.send(handle.base_url, forced(
            decisions.build_request("gpt-6-luna", PAPER, QUESTIONS), "refusal"))
    result = decisions.parse_response(QUESTIONS, response, model="m")
    assert result.answers["accuracy"].kind is AnswerKind.REFUSAL
    assert result.answers["accuracy"].probability is None
    assert result.answers["speed"].kind is AnswerKind.PREDICATE


@pytest.mark.asyncio
async def test_a_timeout_fault_holds_the_answer_past_the_clients_deadline() -> None:
    started = time.monotonic()
    async with endpoint() as (handle, transport):
        request = forced(decisions.build_request("gpt-6-luna", PAPER, QUESTIONS), "timeout")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(transport.send(handle.base_url, request), 0.3)
        assert handle.counters.faults["timeout"] == 1
    assert time.monotonic() - started < 5  # the held answer does not hold up shutdown


@pytest.mark.asyncio
async def test_fault_rates_are_drawn_from_a_seeded_generator() -> None:
    async def statuses(seed: int) -> list[int]:
        options = dataclasses.replace(FAST, faults=ModelFaults({"500": 0.5}, seed=seed))
        async with endpoint(options) as (handle, transport):
            out = [(await transport.send(handle.base_url, chat_request())).status
                   for _ in range(20)]
            assert handle.counters.faults["500"] == out.count(500)
            return out

    first, again = await statuses(7), await statuses(7)
    assert first == again
    assert 0 < first.count(500) < 20 and set(first) == {200, 500}


def test_fault_specs_parse_and_reject_unknown_names() -> None:
    assert ModelFaults.parse("500:0.1, timeout:0.05").rates == {"500": 0.1, "timeout": 0.05}
    assert ModelFaults.parse("length").rates == {"length": 1.0}
    with pytest.raises(ValueError):
        ModelFaults.parse("explode:0.1")
    with pytest.raises(ValueError):
        ModelFaults.parse("500:0.7,503:0.7")


# ----------------------------------------------------------------------------- limits


def limited(**limits: Any) -> ModelWorldOptions:
    return dataclasses.replace(FAST, limits=ModelLimits(**{
        "rpm": None, "tpm": None, "concurrency": None, **limits}))


@pytest.mark.asyncio
async def test_every_answer_carries_the_rate_headers_counting_down() -> None:
    async with endpoint(limited(rpm=10, tpm=100_000)) as (handle, transport):
        first = await transport.send(handle.base_url, chat_request())
        second = await transport.send(handle.base_url, chat_request())
    one, two = parse_rate_hint(first), parse_rate_hint(second)
    assert one is not None and two is not None
    assert (one.limit_requests, one.remaining_requests) == (10, 9)
    assert two.remaining_requests == 8
    charge = int(chat_request().cost)
    assert one.remaining_tokens == 100_000 - charge
    assert one.reset_requests_s == pytest.approx(6.0, abs=0.05)  # one request at 10/min


@pytest.mark.asyncio
async def test_an_rpm_429_is_rate_limited_with_the_wait_to_the_next_request() -> None:
    async with endpoint(limited(rpm=2)) as (handle, transport):
        replies = [await transport.send(handle.base_url, chat_request()) for _ in range(3)]
    assert [r.status for r in replies] == [200, 200, 429]
    failure = classify(replies[2])
    assert failure is not None and failure.kind is FailureClass.RATE_LIMITED
    assert failure.retryable and failure.type == "requests"
    assert failure.wait_s == pytest.approx(30.0, abs=0.1)  # 2 per minute: one per 30 s
    assert failure.rate is not None and failure.rate.remaining_requests == 0
    assert handle.counters.throttled["requests"] == 1


@pytest.mark.asyncio
async def test_a_tpm_429_waits_for_exactly_the_missing_tokens() -> None:
    request = logprobs.build_request("world-chat", PAPER, QUESTIONS["speed"])
    charge = estimate_request_tokens(logprobs.messages_for(PAPER, QUESTIONS["speed"]), 1)
    assert request.cost == charge
    tpm = charge + charge // 2
    async with endpoint(limited(tpm=tpm)) as (handle, transport):
        ok = await transport.send(handle.base_url, request)
        refused = await transport.send(handle.base_url, request)
        served = handle.counters.charged_tokens
    assert ok.status == 200 and refused.status == 429
    assert served == charge  # the client's estimate is the server's charge, exactly
    failure = classify(refused)
    assert failure is not None and failure.kind is FailureClass.RATE_LIMITED
    missing = charge - (tpm - charge)
    assert failure.wait_s == pytest.approx(missing / (tpm / 60), abs=0.1)
    assert f"Requested {charge}" in failure.message


@pytest.mark.asyncio
async def test_a_request_over_the_tpm_alone_is_too_large_and_never_retried() -> None:
    async with endpoint(limited(tpm=1000)) as (handle, transport):
        response = await transport.send(
            handle.base_url, logprobs.build_request("world-chat", PAPER, QUESTIONS["speed"]))
    failure = classify(response)
    assert failure is not None and failure.kind is FailureClass.TOO_LARGE
    assert not failure.retryable and failure.wait_s is None


@pytest.mark.asyncio
async def test_excess_concurrency_is_refused_with_the_time_to_a_free_slot() -> None:
    options = dataclasses.replace(limited(concurrency=1),
                                  latency=Latency(ttft_s=0.4, prefill_s_per_token=0,
                                                  per_token_s=0, jitter=0))
    async with endpoint(options) as (handle, transport):
        slow = asyncio.create_task(transport.send(handle.base_url, chat_request()))
        await asyncio.sleep(0.1)
        refused = await transport.send(handle.base_url, chat_request())
        assert (await slow).status == 200
    failure = classify(refused)
    assert failure is not None and failure.kind is FailureClass.RATE_LIMITED
    assert failure.wait_s is not None and 0.1 < failure.wait_s <= 0.35
    assert handle.counters.throttled["concurrency"] == 1


@pytest.mark.asyncio
async def test_waiting_the_announced_time_is_enough_on_a_scaled_clock() -> None:
    # 60/min at time scale 10 with one request of burst: one request per 0.1 s.
    options = limited(rpm=60, burst=1 / 60)
    async with endpoint(options, time_scale=10) as (handle, transport):
        assert (await transport.send(handle.base_url, chat_request())).status == 200
        refused = await transport.send(handle.base_url, chat_request())
        failure = classify(refused)
        assert failure is not None and failure.wait_s is not None
        assert 0.05 < failure.wait_s <= 0.1
        await asyncio.sleep(failure.wait_s + 0.01)
        assert (await transport.send(handle.base_url, chat_request())).status == 200


@pytest.mark.asyncio
async def test_latency_is_time_to_first_token_plus_per_token_scaled() -> None:
    options = dataclasses.replace(FAST, latency=Latency(ttft_s=0.4, prefill_s_per_token=0,
                                                        per_token_s=0.1, jitter=0))
    request = logprobs.build_request("world-chat", "short", QUESTIONS["speed"])
    async with endpoint(options, time_scale=2) as (handle, transport):
        started = time.monotonic()
        await transport.send(handle.base_url, request)
        elapsed = time.monotonic() - started
    assert 0.25 <= elapsed < 1.0  # (0.4 + 1 token × 0.1) / 2 = 0.25 s


def test_seeded_jitter_repeats() -> None:
    from verifier.world.limits import WorldClock
    from verifier.world.models import ModelWorld

    def draws(seed: int) -> list[float]:
        world = ModelWorld(dataclasses.replace(FAST, latency=Latency(seed=seed)), WorldClock())
        return [world.latency(1000, 10) for _ in range(5)]

    assert draws(1) == draws(1) != draws(2)
    assert all(0.8 * 0.55 <= d <= 1.2 * 0.55 for d in draws(1))  # 0.3 + 0.05 + 0.2 ± 20 %


# ----------------------------------------------------------------------------- prefix cache


@pytest.mark.asyncio
async def test_a_second_call_with_the_same_long_prefix_reports_cached_tokens() -> None:
    async with endpoint() as (handle, transport):
        usages = []
        for name in ("accuracy", "speed", "topic"):
            response = await transport.send(handle.base_url, logprobs.build_request(
                "world-chat", PAPER, QUESTIONS[name]))
            usages.append(logprobs.parse_response(QUESTIONS[name], response, model="m").usage)
    assert usages[0].cached_prompt_tokens == 0
    for usage in usages[1:]:
        assert usage.cached_prompt_tokens >= 1024
        assert usage.cached_prompt_tokens % 128 == 0
        assert usage.prompt_tokens - usage.cached_prompt_tokens < 128 + 40


@pytest.mark.asyncio
async def test_short_or_different_prefixes_are_not_cached() -> None:
    short = "A short abstract. " * 10
    async with endpoint() as (handle, transport):
        cached = []
        for state in (short, short, PAPER, "Another paper entirely. " * 400):
            response = await transport.send(handle.base_url, logprobs.build_request(
                "world-chat", state, QUESTIONS["speed"]))
            cached.append(logprobs.parse_response(QUESTIONS["speed"], response,
                                                  model="m").usage.cached_prompt_tokens)
    assert cached == [0, 0, 0, 0]


# ----------------------------------------------------------------------------- counters


@pytest.mark.asyncio
async def test_the_servers_counters_match_what_the_client_read_from_usage() -> None:
    client = Usage()
    async with endpoint(limited(rpm=6)) as (handle, transport):
        base = handle.base_url
        sends: list[tuple[HttpRequest, Any]] = [
            (decisions.build_request("gpt-6-luna", PAPER, QUESTIONS),
             lambda r: decisions.parse_response(QUESTIONS, r, model="m").usage),
            (systemone.build_request("jev", PAPER, QUESTIONS),
             lambda r: systemone.parse_response(QUESTIONS, r, model="m").usage),
            (logprobs.build_request("world-chat", PAPER, QUESTIONS["speed"]),
             lambda r: logprobs.parse_response(QUESTIONS["speed"], r, model="m").usage),
            (logprobs.build_request("world-chat", PAPER, QUESTIONS["accuracy"]),
             lambda r: logprobs.parse_response(QUESTIONS["accuracy"], r, model="m").usage),
            (forced(chat_request(), "truncated"),
             lambda r: chat.parse_response(r, model="m").usage),
            (chat_request(), lambda r: chat.parse_response(r, model="m").usage),
            (chat_request(), lambda r: chat.parse_response(r, model="m").usage),  # 429
        ]
        failures = 0
        for request, parse in sends:
            try:
                client = client + parse(await transport.send(base, request))
            except SourceError:
                failures += 1
        served = orjson.loads((await transport.send(
            handle.url, HttpRequest(path="/_world/usage"))).body)
    assert failures == 2  # the truncated body and the 429
    assert served["billed_replies"] == client.requests == 5
    assert served["prompt_tokens"] == client.prompt_tokens
    assert served["cached_tokens"] == client.cached_prompt_tokens > 0
    assert served["completion_tokens"] == client.completion_tokens
    assert served["requests"] == 7 and served["unreadable_replies"] == 1
    assert served["by_status"] == {"200": 6, "429": 1}
    assert served["throttled"] == {"requests": 1}


@pytest.mark.asyncio
async def test_the_model_list_is_counted_as_every_route_is() -> None:
    async with endpoint(limited(rpm=6)) as (handle, transport):
        listed = await transport.send(handle.url, HttpRequest(path="/v1/models"))
        await transport.send(handle.base_url, chat_request())
        served = orjson.loads((await transport.send(
            handle.url, HttpRequest(path="/_world/usage"))).body)
    assert listed.status == 200
    assert served["requests"] == 2 and served["by_status"] == {"200": 2}
    assert served["by_route"]["models"] == 1 and sum(served["by_route"].values()) == 2


# ----------------------------------------------------------------------------- the world


@pytest.mark.asyncio
async def test_the_world_serves_the_model_endpoint_beside_the_services() -> None:
    corpus = Corpus.from_lines([json.dumps({
        "id": "deep", "type": "article", "title": "Deep learning", "year": 2015,
        "doi": "10.1234/deep", "sources": {"crossref": {}}})])
    async with serve_world(corpus, services=["crossref"], models=FAST) as world, \
            AiohttpTransport("test") as transport:
        assert world.models_url == world.url + "/models/v1"
        response = await transport.send(
            world.models_url, decisions.build_request("gpt-6-luna", PAPER, QUESTIONS))
        result = decisions.parse_response(QUESTIONS, response, model="m")
        work = await transport.send(world.base_urls["crossref"],
                                    HttpRequest(path="/works/10.1234/deep"))
        assert world.models is not None and world.models.counters.billed_replies == 1
    assert result.answers["topic"].choice == "attention"
    assert work.status == 200
    assert [(r.source, r.status) for r in world.requests] == [(None, 200), ("crossref", 200)]


@pytest.mark.asyncio
async def test_the_world_serves_no_models_unless_asked() -> None:
    corpus = Corpus.from_lines([])
    async with serve_world(corpus, services=["crossref"]) as world, \
            AiohttpTransport("test") as transport:
        assert world.models_url is None
        response = await transport.send(world.url + "/models/v1", models.build_request())
    assert response.status == 404


def test_a_world_reset_duration_reads_back_as_the_same_seconds() -> None:
    from adapters.llm.ratelimits import parse_reset
    from verifier.world.models import format_duration

    for seconds in (0.012, 0.5, 1.0, 1.146, 59.9, 360.0, 3723.5):
        assert parse_reset(format_duration(seconds)) == pytest.approx(seconds, abs=0.001)
    assert format_duration(360.0) == "6m0s" and format_duration(0.012) == "12ms"


def test_the_world_command_refuses_an_unknown_model_fault(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    from verifier.world.server import main

    with pytest.raises(SystemExit) as exited:
        main(["--corpus", "unused.jsonl", "--model-faults", "explode:0.5"])
    assert exited.value.code == 2
    assert "unknown model faults ['explode']" in capsys.readouterr().err


@pytest.mark.asyncio
async def test_by_default_the_endpoint_answers_with_the_offline_model() -> None:
    from verifier.llm.offline import OfflineDecisionModel

    expected = OfflineDecisionModel().decide(PAPER, QUESTIONS).answers
    async with serve_models(FAST) as handle, AiohttpTransport("test") as transport:
        response = await transport.send(
            handle.base_url, decisions.build_request("gpt-6-luna", PAPER, QUESTIONS))
    result = decisions.parse_response(QUESTIONS, response, model="gpt-6-luna")
    for name, decision in result.answers.items():
        assert decision.probability == pytest.approx(expected[name].probability, abs=1e-5)
