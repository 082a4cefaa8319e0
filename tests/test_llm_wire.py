"""The model endpoints' shared wire: token estimates, usage, error bodies and their
classification, rate-limit headers. Pure functions on crafted bytes."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import orjson
import pytest

from adapters.llm import failures, ratelimits, tokens, wire
from adapters.llm.failures import FailureClass
from verifier.errors import MalformedResponse, RateLimited, ServerError
from verifier.http.transport import HttpResponse
from verifier.llm.types import ChatMessage, Role, Usage


def reply(status: int, body: object, **headers: str) -> HttpResponse:
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    return HttpResponse(status=status, body=raw,
                        headers={k.replace("_", "-").lower(): v for k, v in headers.items()})


# ----------------------------------------------------------------------------- tokens


def test_a_text_is_a_quarter_of_its_characters_rounded_up() -> None:
    assert tokens.estimate_text_tokens("") == 0
    assert tokens.estimate_text_tokens("abcd") == 1
    assert tokens.estimate_text_tokens("abcde") == 2


def test_a_chat_prompt_adds_four_per_message_and_two_for_the_reply() -> None:
    messages = [ChatMessage(Role.SYSTEM, "a" * 40), ChatMessage(Role.USER, "b" * 41)]
    assert tokens.estimate_prompt_tokens(messages) == (10 + 4) + (11 + 4) + 2
    assert tokens.estimate_request_tokens(messages, 100, n=2) == 31 + 200


# ----------------------------------------------------------------------------- usage


def test_chat_usage_reads_cached_prompt_tokens() -> None:
    usage = wire.parse_usage({"usage": {
        "prompt_tokens": 1412, "completion_tokens": 1, "total_tokens": 1413,
        "prompt_tokens_details": {"cached_tokens": 1280}}})
    assert usage == Usage(prompt_tokens=1412, cached_prompt_tokens=1280,
                          completion_tokens=1, requests=1)


def test_decision_usage_reads_input_and_output_tokens() -> None:
    usage = wire.parse_usage({"usage": {"input_tokens": 300, "output_tokens": 2,
                                        "input_tokens_details": {"cached_tokens": 128}}})
    assert (usage.prompt_tokens, usage.cached_prompt_tokens, usage.completion_tokens) == (
        300, 128, 2)


def test_a_reply_without_usage_counts_one_request_and_no_tokens() -> None:
    assert wire.parse_usage({}) == Usage(requests=1)


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": -1, "completion_tokens": 0},
    {"prompt_tokens": "12", "completion_tokens": 0},
    {"prompt_tokens": 10, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 11}},
])
def test_impossible_usage_is_malformed(usage: dict[str, object]) -> None:
    with pytest.raises(MalformedResponse):
        wire.parse_usage({"usage": usage})


def test_a_truncated_body_is_malformed() -> None:
    with pytest.raises(MalformedResponse, match="not JSON"):
        wire.json_object(reply(200, b'{"choices":[{"index":0,"mess'))


# ----------------------------------------------------------------------------- errors

RATE_429 = {"error": {
    "message": "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): "
               "Limit 30000, Used 29000, Requested 2000. Please try again in 1.146s.",
    "type": "tokens", "param": None, "code": "rate_limit_exceeded"}}
TOO_LARGE_429 = {"error": {
    "message": "Request too large for gpt-4 in organization org-x on tokens per min (TPM): "
               "Limit 10000, Requested 19089. The input or output tokens must be reduced.",
    "type": "tokens", "param": None, "code": "rate_limit_exceeded"}}
QUOTA_429 = {"error": {"message": "You exceeded your current quota, please check your plan.",
                       "type": "insufficient_quota", "param": None,
                       "code": "insufficient_quota"}}


def test_a_rate_limit_429_is_retryable_after_the_wait_its_message_states() -> None:
    failure = failures.classify(reply(429, RATE_429))
    assert failure is not None
    assert failure.kind is FailureClass.RATE_LIMITED and failure.retryable
    assert failure.wait_s == pytest.approx(1.146)
    error = failures.error_for(failure)
    assert isinstance(error, RateLimited) and error.retry_after == pytest.approx(1.146)


def test_retry_after_ms_wins_over_the_message() -> None:
    failure = failures.classify(reply(429, RATE_429, retry_after_ms="250", retry_after="3"))
    assert failure is not None and failure.wait_s == pytest.approx(0.25)


def test_request_too_large_is_a_429_that_is_never_retried() -> None:
    failure = failures.classify(reply(429, TOO_LARGE_429, x_should_retry="true"))
    assert failure is not None
    assert failure.kind is FailureClass.TOO_LARGE and not failure.retryable
    assert isinstance(failures.error_for(failure), failures.RequestRejected)


@pytest.mark.parametrize("code", ["insufficient_quota", "credit_balance_exhausted"])
def test_a_spent_quota_is_never_retried(code: str) -> None:
    body = {"error": {**QUOTA_429["error"], "code": code}}
    failure = failures.classify(reply(429, body))
    assert failure is not None and failure.kind is FailureClass.QUOTA and not failure.retryable


def test_the_old_vllm_flat_error_body_is_read() -> None:
    body = {"object": "error", "message": "Requested sample logprobs of 30, which is greater "
            "than max allowed: 20", "type": "BadRequestError", "param": None, "code": 400}
    failure = failures.classify(reply(400, body))
    assert failure is not None
    assert failure.kind is FailureClass.INVALID and failure.code == "400"
    assert failure.message.startswith("Requested sample logprobs of 30")


def test_server_errors_are_retryable_and_x_should_retry_overrides() -> None:
    failure = failures.classify(reply(503, b"<html>Service Unavailable</html>"))
    assert failure is not None and failure.kind is FailureClass.SERVER and failure.retryable
    assert isinstance(failures.error_for(failure), ServerError)
    assert "Service Unavailable" in failure.message
    failure = failures.classify(reply(503, b"", x_should_retry="false"))
    assert failure is not None and not failure.retryable


def test_a_logprobs_refusal_403_is_denied() -> None:
    body = {"error": {"message": "You are not allowed to request logprobs from this model",
                      "type": "invalid_request_error", "param": None, "code": None}}
    failure = failures.classify(reply(403, body))
    assert failure is not None and failure.kind is FailureClass.DENIED and not failure.retryable


def test_a_2xx_is_no_failure() -> None:
    assert failures.classify(reply(200, {})) is None
    failures.raise_for_status(reply(200, {}))


# ----------------------------------------------------------------------------- rate headers


@pytest.mark.parametrize(("text", "seconds"), [
    ("1s", 1.0), ("6m0s", 360.0), ("12ms", 0.012), ("1h2m3.5s", 3723.5), ("0.5", 0.5),
    ("20ms", 0.02),
])
def test_reset_durations_sum_their_parts(text: str, seconds: float) -> None:
    assert ratelimits.parse_reset(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5 s", "3x", "-1"])
def test_what_is_not_a_duration_is_none(text: str) -> None:
    assert ratelimits.parse_reset(text) is None


def test_rate_headers_become_one_hint() -> None:
    hint = ratelimits.parse_rate_hint(reply(
        200, {}, x_ratelimit_limit_requests="60", x_ratelimit_remaining_requests="59",
        x_ratelimit_reset_requests="1s", x_ratelimit_limit_tokens="150000",
        x_ratelimit_remaining_tokens="149984", x_ratelimit_reset_tokens="6m0s"))
    assert hint == ratelimits.ModelRateHint(60, 59, 1.0, 150000, 149984, 360.0, None)
    assert not hint.exhausted and hint.wait_s(100) == 0


def test_a_spent_token_budget_waits_for_the_missing_tokens_to_refill() -> None:
    # 1000 of 60000 left, full in 59 s: 1000 tokens refill per second.
    hint = ratelimits.ModelRateHint(limit_tokens=60000, remaining_tokens=1000,
                                    reset_tokens_s=59.0)
    assert hint.wait_s(3000) == pytest.approx(2.0)
    assert hint.wait_s(500) == 0


def test_a_spent_request_budget_waits_for_one_request() -> None:
    hint = ratelimits.ModelRateHint(limit_requests=60, remaining_requests=0,
                                    reset_requests_s=60.0)
    assert hint.exhausted and hint.wait_s() == pytest.approx(1.0)


def test_azure_minus_one_limits_are_ignored() -> None:
    hint = ratelimits.parse_rate_hint(reply(
        200, {}, x_ratelimit_limit_requests="-1", x_ratelimit_remaining_requests="0",
        x_ratelimit_limit_tokens="0", x_ratelimit_remaining_tokens="0"))
    assert hint is None


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC)
    response = reply(429, {}, retry_after="Tue, 01 Dec 2026 10:00:07 GMT")
    assert ratelimits.parse_retry_after(response, now) == pytest.approx(7.0)


def test_no_rate_headers_no_hint() -> None:
    assert ratelimits.parse_rate_hint(reply(200, {})) is None
    assert math.isclose(ratelimits.ModelRateHint(retry_after_s=2.5).wait_s(), 2.5)


def test_the_request_side_becomes_a_source_gate_hint() -> None:
    hint = ratelimits.ModelRateHint(limit_requests=120, remaining_requests=0,
                                    reset_requests_s=60.0)
    source = hint.as_source_hint()
    assert source is not None
    assert (source.limit, source.interval_s, source.remaining) == (120, 60.0, 0)
    assert source.reset_s == pytest.approx(0.5)  # one request of 120/min, not the full reset
    assert ratelimits.ModelRateHint(limit_tokens=5).as_source_hint() is None


def test_truncation_keeps_whole_words_within_the_budget() -> None:
    text = "alpha beta gamma delta epsilon " * 10
    cut, was_cut = tokens.truncate_to_tokens(text, 10)
    assert was_cut and len(cut) <= 40 and tokens.estimate_text_tokens(cut) <= 10
    assert text.startswith(cut) and text[len(cut)] == " "
    assert tokens.truncate_to_tokens("short", 10) == ("short", False)
    assert tokens.truncate_to_tokens("x" * 100, 10) == ("x" * 40, True)  # no space to cut at
