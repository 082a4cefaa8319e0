"""The simulated model endpoint's parts, in memory: buckets, prefix cache, prompt reading,
log-probability lists, the lexical stand-in."""

from __future__ import annotations

import math
from typing import Any

import pytest

from adapters.llm import chat, logprobs
from verifier.llm.types import ChatMessage, Choice, Predicate, Role, Score
from verifier.world.limits import WorldClock
from verifier.world.models.answer import LexicalAnswerModel
from verifier.world.models.app import _strict_problem, decision_prompt, logprobs_content
from verifier.world.models.limits import Bucket, ModelLimiter, ModelLimits, Refusal
from verifier.world.models.prefix import PrefixCache, prompt_tokens, shared_tokens

# ----------------------------------------------------------------------------- buckets


def test_a_bucket_refills_at_its_limit_per_world_minute() -> None:
    bucket = Bucket(60, WorldClock(time_scale=2))  # 1/s world, 2/s real
    t0 = bucket._at
    bucket.take(60, t0)
    assert bucket.wait(1, t0) == pytest.approx(0.5)
    assert bucket.level(t0 + 1.0) == pytest.approx(2.0)
    assert bucket.reset(t0 + 1.0) == pytest.approx(29.0)
    assert bucket.wait(61, t0) == math.inf


def test_the_limiter_refuses_in_order_too_large_concurrency_requests_tokens() -> None:
    clock = WorldClock()
    limiter = ModelLimiter(ModelLimits(rpm=2, tpm=100, concurrency=1), clock)
    now = clock.now()
    too_large = limiter.admit(101, now)
    assert isinstance(too_large, Refusal) and too_large.reason == "too_large"
    first = limiter.admit(60, now)
    assert isinstance(first, int)
    busy = limiter.admit(1, now)
    assert isinstance(busy, Refusal) and busy.reason == "concurrency"
    limiter.release(first)
    tokens = limiter.admit(60, now)
    assert isinstance(tokens, Refusal) and tokens.reason == "tokens"
    assert tokens.wait_s == pytest.approx(20 / (100 / 60))
    assert isinstance(limiter.admit(10, now), int)
    limiter.release(2)
    requests = limiter.admit(1, now)
    assert isinstance(requests, Refusal) and requests.reason == "requests"
    headers = limiter.headers(now)
    assert headers["x-ratelimit-remaining-requests"] == "0"
    assert headers["x-ratelimit-remaining-tokens"] == "30"


def test_impossible_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        ModelLimits(rpm=0)
    with pytest.raises(ValueError):
        ModelLimits(burst=0)


# ----------------------------------------------------------------------------- prefix cache

LONG = "x" * 8000  # 2000 tokens


def test_an_identical_long_prefix_hits_in_128_token_steps() -> None:
    cache = PrefixCache()
    first = [("system", "s"), ("user", LONG), ("user", "question one")]
    second = [("system", "s"), ("user", LONG), ("user", "question two, longer")]
    assert cache.cached_tokens(first, 0.0) == 0
    shared = shared_tokens(first, second)
    assert shared == (1 + 4) + (2000 + 4) + 4 + len("question ") // 4
    assert cache.cached_tokens(second, 1.0) == shared // 128 * 128 == 1920


def test_below_1024_shared_tokens_nothing_is_cached() -> None:
    cache = PrefixCache()
    prompt = [("user", "y" * 3000)]  # 750 tokens
    cache.cached_tokens(prompt, 0.0)
    assert cache.cached_tokens(prompt, 1.0) == 0


def test_a_prefix_expires_after_its_ttl_and_roles_must_match() -> None:
    cache = PrefixCache(ttl_s=60.0)
    cache.cached_tokens([("user", LONG)], 0.0)
    assert cache.cached_tokens([("system", LONG)], 1.0) == 0
    assert cache.cached_tokens([("user", LONG)], 30.0) > 0
    assert cache.cached_tokens([("user", LONG)], 100.0) == 0  # last seen at 30 s


def test_a_whole_repeated_prompt_caches_at_most_its_own_tokens() -> None:
    cache = PrefixCache()
    prompt = [("user", LONG)]
    cache.cached_tokens(prompt, 0.0)
    cached = cache.cached_tokens(prompt, 1.0)
    assert cached <= prompt_tokens(prompt) and cached % 128 == 0 and cached >= 1024


# ----------------------------------------------------------------------------- prompts


def test_the_world_reads_the_logprobs_prompt_layout() -> None:
    choice = Choice("Which topic?", {"vision": "images", "speech": ""})
    state, question, labels = decision_prompt(logprobs.messages_for("THE PAPER", choice))
    assert state == "THE PAPER" and labels == ["A", "B"]
    assert isinstance(question, Choice) and question.instructions == "Which topic?"
    assert dict(question.options) == {"A": "vision: images", "B": "speech"}
    state, question, labels = decision_prompt(
        logprobs.messages_for("THE PAPER", Predicate("Is it?")))
    assert isinstance(question, Predicate) and labels == ["Yes", "No"]
    score = Score("How good?", ("bad", "good"))
    assert decision_prompt(logprobs.messages_for("P", score))[2] == ["A", "B"]


def test_any_other_prompt_is_a_yes_no_question_over_the_conversation() -> None:
    messages = [ChatMessage(Role.USER, "Is the sky blue? Say yes or no.")]
    state, question, labels = decision_prompt(messages)
    assert isinstance(question, Predicate) and labels == ["Yes", "No"]
    assert state == messages[0].content


def test_the_logprob_list_sums_back_to_the_label_probabilities() -> None:
    content = logprobs_content({"Yes": 0.7, "No": 0.3}, 20)
    estimate = logprobs.label_probabilities(content, ["Yes", "No"])
    assert estimate.probabilities["Yes"] == pytest.approx(0.7)
    assert content[0]["token"] == "Yes"
    assert len(content[0]["top_logprobs"]) == 15  # 8 label variants + 7 distractors
    assert len(logprobs_content({"Yes": 0.7, "No": 0.3}, 3)[0]["top_logprobs"]) == 3
    assert logprobs_content({"Yes": 0.7, "No": 0.3}, 0)[0]["top_logprobs"] == []


# ----------------------------------------------------------------------------- strict mode

SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "a": {"type": "string"}}}}}}


def test_the_world_checks_strict_schemas_as_the_adapter_writes_them() -> None:
    assert _strict_problem(SCHEMA) is not None
    nested = {**SCHEMA, "additionalProperties": False, "required": ["items"]}
    problem = _strict_problem(nested)
    assert problem is not None and "'properties', 'items', 'items'" in problem
    assert _strict_problem(chat.strict_schema(SCHEMA)) is None


# ----------------------------------------------------------------------------- the stand-in


def test_the_stand_in_follows_overlap_and_negation() -> None:
    model = LexicalAnswerModel()
    state = "The drug lowers blood pressure in adults. It does not affect heart rate."
    answers = model.decide(state, {
        "lowers": Predicate("Does the drug lower blood pressure in adults?"),
        "heart": Predicate("Does the drug affect heart rate?"),
        "unrelated": Predicate("Is the telescope calibrated for infrared?"),
    })
    assert answers["lowers"].probability is not None and answers["lowers"].probability > 0.5
    assert answers["heart"].probability is not None and answers["heart"].probability < 0.5
    assert answers["unrelated"].probability is not None
    assert answers["unrelated"].probability < 0.5
    assert model.decide(state, {"q": Predicate("heart rate?")}) == model.decide(
        state, {"q": Predicate("heart rate?")})


def test_the_stand_ins_json_fits_the_strict_schema() -> None:
    text = LexicalAnswerModel().complete([ChatMessage(Role.USER, "Find claims. More.")],
                                         chat.strict_schema(SCHEMA))
    document = chat.parse_json_text(text)
    assert document == {"items": [{"a": "Find claims."}]}
