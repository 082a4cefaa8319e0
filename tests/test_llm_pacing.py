"""The model side of the paced client in memory, on the virtual clock: the classify hook
(throttled with a stated wait, server error, fine, rejected), the model reader's reading
of OpenAI-shaped 429s and rate headers, the token correction after an answer; the price
table, the usage ledger, the models settings and the endpoint declarations.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import orjson
import pytest
from virtual_clock import run_virtual

from adapters.llm import decisions
from adapters.llm.failures import ApiFailure, FailureClass, RequestRejected
from verifier.endpoints import endpoints, model_policy, summarize
from verifier.errors import ConfigError, ServerError, UnexpectedStatus
from verifier.http.client import CachePolicy, Classified, Outcome, PacedClient
from verifier.http.gate import SourceGate
from verifier.http.mock import MockTransport
from verifier.http.policy import RateClass, RateHint, SourcePolicy
from verifier.http.stats import SourceStats
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.llm.backends import DecisionsBackend
from verifier.llm.types import Predicate, Usage
from verifier.llm.usage import PriceTable, UsageLedger
from verifier.settings import ModelEndpointSettings, ModelSettings, Settings, parse_prices

NO_CACHE = CachePolicy(read=False, positive_ttl_s=1.0, negative_ttl_s=1.0)


def policy(**changes: Any) -> SourcePolicy:
    base: dict[str, Any] = {"classes": {"all": RateClass(100, 1.0, 10)}, "max_concurrency": 10,
                            "backoff_base_s": 1.0, "backoff_cap_s": 8.0,
                            "default_pause_s": 5.0, "source_budget_s": 60.0}
    base.update(changes)
    return SourcePolicy(**base)


class Scripted:
    """A reader whose classify returns the next scripted verdict for each response."""

    def __init__(self, verdicts: list[Classified | None]) -> None:
        self.verdicts = verdicts
        self.classified = 0

    def classify(self, request: HttpRequest, response: HttpResponse) -> Classified | None:
        self.classified += 1
        return self.verdicts.pop(0) if self.verdicts else None

    def read(self, request: HttpRequest, response: HttpResponse) -> str:
        if response.status != 200:
            raise UnexpectedStatus(f"HTTP {response.status}", response.status)
        return response.body.decode()

    def positive(self, value: str) -> bool:
        return True

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        return None


def client_for(transport: MockTransport, source_policy: SourcePolicy | None = None
               ) -> PacedClient:
    gate = SourceGate("llm", source_policy or policy(), SourceStats())
    return PacedClient("llm", base_url="http://llm.test/v1", gate=gate, transport=transport,
                       cache=None, cache_policy=NO_CACHE, rng=random.Random(3))


def test_a_throttled_verdict_pauses_the_whole_endpoint_for_the_stated_wait() -> None:
    def handler(_base: str, request: HttpRequest) -> HttpResponse:
        return HttpResponse(200, request.path.encode())

    async def main() -> tuple[list[tuple[str, float]], SourceStats]:
        transport = MockTransport(handler)
        client = client_for(transport)
        reader = Scripted([Classified(Outcome.THROTTLED, "try again", wait_s=3.0)])
        first = asyncio.create_task(client.fetch(HttpRequest("/a"), 100.0, reader))
        await asyncio.sleep(0.1)
        await client.fetch(HttpRequest("/b"), 100.0, Scripted([]))
        assert (await first).value == "/a"
        return [(s.request.path, s.at) for s in transport.sent], client.gate.stats

    sent, stats = run_virtual(main())
    assert sent[0][0] == "/a" and sent[0][1] == pytest.approx(0.0, abs=1e-6)
    assert min(at for _, at in sent[1:]) >= 3.0  # the 200 was throttling: all waited 3 s
    assert stats.throttled == 1 and stats.retries == 1


def test_a_rejected_verdict_is_raised_at_once_and_never_retried() -> None:
    async def main() -> tuple[int, BaseException]:
        transport = MockTransport(lambda _b, _r: HttpResponse(429, b"quota"))
        client = client_for(transport)
        error = RequestRejected(ApiFailure(429, FailureClass.QUOTA, "quota"))
        reader = Scripted([Classified(Outcome.REJECTED, "quota", error=error)])
        with pytest.raises(UnexpectedStatus) as caught:
            await client.fetch(HttpRequest("/a"), 100.0, reader)
        return len(transport.sent), caught.value

    sent, error = run_virtual(main())
    assert sent == 1 and isinstance(error, RequestRejected) and error.requests == 1


def test_a_rejected_200_is_not_retried_though_its_error_is_a_malformed_response() -> None:
    from adapters.llm.failures import TruncatedReply

    async def main() -> int:
        transport = MockTransport(lambda _b, _r: HttpResponse(200, b"cut"))
        client = client_for(transport)
        reader = Scripted([Classified(Outcome.REJECTED, error=TruncatedReply("length"))])
        with pytest.raises(TruncatedReply):
            await client.fetch(HttpRequest("/a"), 100.0, reader)
        return len(transport.sent)

    assert run_virtual(main()) == 1


def test_a_server_error_verdict_is_retried_with_backoff() -> None:
    async def main() -> tuple[list[float], str]:
        transport = MockTransport(lambda _b, _r: HttpResponse(200, b"ok"))
        client = client_for(transport)
        reader = Scripted([Classified(Outcome.SERVER_ERROR, "overloaded")] * 2)
        fetched = await client.fetch(HttpRequest("/a"), 100.0, reader)
        return [s.at for s in transport.sent], fetched.value

    times, value = run_virtual(main())
    assert len(times) == 3 and value == "ok" and times[1] > times[0]


def test_a_fine_verdict_skips_the_default_status_handling() -> None:
    async def main() -> tuple[int, BaseException | None]:
        transport = MockTransport(lambda _b, _r: HttpResponse(503, b"body"))
        client = client_for(transport)
        try:
            await client.fetch(HttpRequest("/a"), 100.0, Scripted([Classified(Outcome.FINE)]))
        except UnexpectedStatus as exc:  # read by the reader, not retried as a 5xx
            return len(transport.sent), exc
        return len(transport.sent), None

    sent, error = run_virtual(main())
    assert sent == 1 and isinstance(error, UnexpectedStatus) and not isinstance(
        error, ServerError)


# ----------------------------------------------------------------------------- the reader


QUESTIONS = {"a": Predicate("Is it true?")}


def answer(**headers: str) -> HttpResponse:
    body = orjson.dumps({"model": "gpt-6-luna", "answers": [
        {"type": "predicate", "name": "a", "probability": 0.7}],
        "usage": {"input_tokens": 500, "output_tokens": 1}})
    return HttpResponse(200, body, headers)


def rate_limited(wait: str = "2.5s") -> HttpResponse:
    return HttpResponse(429, orjson.dumps({"error": {
        "message": f"Rate limit reached for gpt-6-luna on tokens per min (TPM): Limit 100, "
                   f"Used 90, Requested 20. Please try again in {wait}.",
        "type": "tokens", "code": "rate_limit_exceeded", "param": None}}))


def too_large() -> HttpResponse:
    return HttpResponse(429, orjson.dumps({"error": {
        "message": "Request too large for gpt-6-luna on tokens per min (TPM): Limit 100, "
                   "Requested 2000.", "type": "tokens", "code": "rate_limit_exceeded"}}))


def backend_over(transport: MockTransport, source_policy: SourcePolicy | None = None
                 ) -> tuple[DecisionsBackend, PacedClient, UsageLedger]:
    client = client_for(transport, source_policy)
    ledger = UsageLedger()
    return DecisionsBackend(client, model="gpt-6-luna", ledger=ledger), client, ledger


def test_a_rate_limit_429_waits_the_time_in_its_message_then_answers() -> None:
    replies = [rate_limited("2.5s"), answer()]

    async def main() -> tuple[list[float], float | None]:
        transport = MockTransport(lambda _b, _r: replies.pop(0))
        backend, _, _ = backend_over(transport)
        result = await backend.decide("state", QUESTIONS)
        return [s.at for s in transport.sent], result.answers["a"].probability

    times, p = run_virtual(main())
    assert p == pytest.approx(0.7) and times[1] - times[0] == pytest.approx(2.5, abs=0.02)


def test_request_too_large_is_rejected_without_a_retry() -> None:
    async def main() -> tuple[int, FailureClass]:
        transport = MockTransport(lambda _b, _r: too_large())
        backend, _, ledger = backend_over(transport)
        with pytest.raises(RequestRejected) as caught:
            await backend.decide("state", QUESTIONS)
        assert ledger.snapshot().failures == 1
        return len(transport.sent), caught.value.failure.kind

    assert run_virtual(main()) == (1, FailureClass.TOO_LARGE)


def test_a_spent_request_budget_in_the_headers_rests_the_endpoint() -> None:
    async def main() -> list[float]:
        transport = MockTransport(lambda _b, _r: answer(**{
            "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "4s"}))
        backend, _, _ = backend_over(transport)
        await backend.decide("state one", QUESTIONS)
        await backend.decide("state two", QUESTIONS)
        return [s.at for s in transport.sent]

    times = run_virtual(main())
    # no request left, full in 4 s (no limit stated: the whole reset): the gate rests 4 s
    assert times[1] - times[0] == pytest.approx(4.0, abs=0.02)


def test_usage_beyond_the_estimate_is_charged_to_the_token_bucket() -> None:
    # TPM 1,200 a minute; the request estimates few tokens, the server reports 1,200:
    # the bucket is then empty, and the next request waits for its refill.
    tpm = policy(weighted=RateClass(1200, 60.0))

    async def main() -> tuple[list[float], Usage]:
        body = orjson.dumps({"answers": [{"type": "predicate", "name": "a",
                                          "probability": 0.5}],
                             "usage": {"input_tokens": 1199, "output_tokens": 1}})
        transport = MockTransport(lambda _b, _r: HttpResponse(200, body))
        backend, _, ledger = backend_over(transport, tpm)
        await backend.decide("x", QUESTIONS)
        await backend.decide("y", QUESTIONS)
        snap = ledger.snapshot()
        return [s.at for s in transport.sent], Usage(snap.prompt_tokens, 0,
                                                     snap.completion_tokens, snap.requests)

    times, usage = run_virtual(main())
    request = decisions.build_request("gpt-6-luna", "x", QUESTIONS)
    assert usage == Usage(2398, 0, 2, 2)
    # 1,200 - estimate tokens were charged; the second estimate waits for them at 20/s
    assert times[1] - times[0] == pytest.approx(request.weight / 20, abs=0.05)


# ----------------------------------------------------------------------------- prices


def test_a_known_model_is_priced_by_the_formula_and_an_unknown_one_is_unknown() -> None:
    table = PriceTable()
    usage = Usage(prompt_tokens=1_000_000, cached_prompt_tokens=400_000,
                  completion_tokens=100_000, requests=3)
    assert table.cost("gpt-5.4-mini", usage) == pytest.approx(
        0.6 * 0.75 + 0.4 * 0.075 + 0.1 * 4.50)
    assert table.cost("gpt-4.1-2025-04-14", usage) == table.cost("gpt-4.1", usage)
    assert table.cost("gpt-5.4-nano", usage) is None  # not gpt-5.4
    assert table.cost("world-chat", usage) is None
    ledger = UsageLedger(table)
    ledger.reply("llm", "gpt-5.4", usage)
    assert ledger.snapshot().cost_usd == pytest.approx(0.6 * 2.5 + 0.4 * 0.25 + 0.1 * 15)
    ledger.reply("llm", "world-chat", usage)
    snap = ledger.snapshot()
    assert snap.cost_usd is None and snap.unpriced == ("world-chat",)
    assert "cost unknown" in ledger.line()
    assert all(row.checked for row in table)


def test_prices_from_settings_extend_and_override_the_table() -> None:
    extra = parse_prices("world-chat=1/0.5/2, gpt-4.1=9/-/9")
    table = PriceTable(extra)
    usage = Usage(1_000_000, 1_000_000, 0, 1)
    assert table.cost("world-chat", usage) == pytest.approx(0.5)
    assert table.cost("gpt-4.1", usage) == pytest.approx(9.0)  # no cached price: input
    with pytest.raises(ConfigError):
        parse_prices("gpt=1/2")


def test_the_ledger_reports_latency_percentiles_of_sent_calls_only() -> None:
    ledger = UsageLedger()
    for i in range(1, 21):
        ledger.call(sent=True, cached=False, latency_s=float(i), ok=True)
    ledger.call(sent=False, cached=True, latency_s=0.0, ok=True)
    snap = ledger.snapshot()
    assert (snap.latency_p50_s, snap.latency_p95_s) == (10.0, 19.0)
    assert snap.calls == 21 and snap.cache_hits == 1 and snap.sent_calls == 20


# ----------------------------------------------------------------------------- settings


def test_no_model_variables_mean_the_offline_backends() -> None:
    settings = Settings.from_env({})
    assert not settings.models.configured and endpoints(settings) == {}
    assert [row.backend for row in summarize(settings)] == ["offline", "offline"]


def test_model_settings_are_read_from_the_environment() -> None:
    env = {"VERIFIER_LLM_URL": "https://api.openai.com/v1", "VERIFIER_LLM_MODEL": "gpt-5.4-mini",
           "OPENAI_API_KEY": "sk-FALLBACK", "VERIFIER_LLM_RPM": "60", "VERIFIER_LLM_TPM": "9000",
           "VERIFIER_LLM_CONCURRENCY": "4", "VERIFIER_DECISION_FORMAT": "logprobs"}
    settings = Settings.from_env(env)
    models = settings.models
    assert models.llm is not None and models.llm.api_key == "sk-FALLBACK"
    assert models.decision is not None and models.decision.model == "gpt-5.4-mini"
    assert "sk-FALLBACK" not in repr(settings)
    found = endpoints(settings)
    assert list(found) == ["llm"] and found["llm"].serves == ("chat", "decisions")
    llm_policy = found["llm"].policy
    assert llm_policy.max_concurrency == 4
    assert llm_policy.weighted is not None
    assert llm_policy.weighted.per_second == pytest.approx(9000 / 60)
    assert llm_policy.weighted.rate == pytest.approx(0.8 * 9000)  # the bucket: 80 %
    assert next(iter(llm_policy.classes.values())) == RateClass(60, 60.0, 4)
    explicit = Settings.from_env({**env, "VERIFIER_LLM_API_KEY": "sk-OWN"})
    assert explicit.models.llm is not None and explicit.models.llm.api_key == "sk-OWN"


def test_a_decision_endpoint_elsewhere_gets_its_own_limits() -> None:
    env = {"VERIFIER_LLM_URL": "http://localhost:8000/v1", "VERIFIER_LLM_MODEL": "qwen",
           "VERIFIER_DECISION_URL": "https://api.openai.com/v1",
           "VERIFIER_DECISION_MODEL": "gpt-6-luna", "VERIFIER_DECISION_FORMAT": "decisions",
           "VERIFIER_DECISION_RPM": "30"}
    found = endpoints(Settings.from_env(env))
    assert sorted(found) == ["decision", "llm"]
    assert next(iter(found["decision"].policy.classes.values())).rate == 30
    assert next(iter(found["llm"].policy.classes.values())).rate == 500
    assert found["decision"].cache_scope != found["llm"].cache_scope


@pytest.mark.parametrize("env", [
    {"VERIFIER_LLM_URL": "http://x/v1"},
    {"VERIFIER_LLM_MODEL": "m"},
    {"VERIFIER_LLM_URL": "http://x/v1", "VERIFIER_LLM_MODEL": "m",
     "VERIFIER_DECISION_FORMAT": "vibes"},
    {"VERIFIER_LLM_URL": "http://x/v1", "VERIFIER_LLM_MODEL": "m", "VERIFIER_LLM_RPM": "0"},
    {"VERIFIER_LLM_URL": "ftp://x/v1", "VERIFIER_LLM_MODEL": "m"},
    {"VERIFIER_LLM_URL": "http://x/v1", "VERIFIER_LLM_MODEL": "m",
     "VERIFIER_LLM_JSON_MODE": "yaml"},
])
def test_impossible_model_settings_are_config_errors(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        Settings.from_env(env)


def test_the_policy_scales_with_the_time_scale() -> None:
    endpoint = ModelEndpointSettings("http://x/v1", "m", rpm=600, tpm=60_000)
    fast = model_policy(endpoint, 10.0)
    assert next(iter(fast.classes.values())).per_second == pytest.approx(100.0)
    assert fast.weighted is not None and fast.weighted.per_second == pytest.approx(10_000)
    assert ModelSettings().configured is False
