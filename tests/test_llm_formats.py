"""The decision and chat wire formats: requests built and replies parsed, on crafted bytes."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pytest

from adapters.llm import chat, decisions, logprobs, systemone
from adapters.llm.failures import (
    EmptyReply,
    ModelRefused,
    NoLogprobs,
    RequestRejected,
    TruncatedReply,
)
from adapters.llm.schema import problems as schema_problems
from adapters.llm.wire import payload_of
from verifier.errors import MalformedResponse, RateLimited
from verifier.http.transport import HttpResponse
from verifier.llm.types import (
    AnswerKind,
    ChatMessage,
    Choice,
    Predicate,
    Question,
    Role,
    Score,
)

QUESTIONS: dict[str, Question] = {
    "true": Predicate("Is the premise true according to the paper?"),
    "stance": Choice("What is the comment's stance?",
                     {"agree": "", "disagree": "says the paper is wrong", "neutral": ""}),
    "quality": Score("How well is it argued?", ("poor", "fair", "good")),
}


def ok(body: Any) -> HttpResponse:
    return HttpResponse(status=200, body=orjson.dumps(body),
                        headers={"content-type": "application/json"})


# ----------------------------------------------------------------------------- decisions


def test_a_decisions_request_lists_questions_in_order_with_their_typed_fields() -> None:
    request = decisions.build_request("gpt-6-luna", "The paper.", QUESTIONS, api_key="sk-1")
    body = payload_of(request)
    assert request.method == "POST" and request.path == "/decisions"
    assert ("Authorization", "Bearer sk-1") in request.headers
    assert "sk-1" not in request.body.decode()  # type: ignore[union-attr]
    assert body["input"] == "The paper."
    assert [q["name"] for q in body["questions"]] == ["true", "stance", "quality"]
    assert body["questions"][0] == {"type": "predicate", "name": "true",
                                    "instructions": QUESTIONS["true"].instructions}
    assert body["questions"][1]["choices"] == [
        {"value": "agree"}, {"value": "disagree", "description": "says the paper is wrong"},
        {"value": "neutral"}]
    assert body["questions"][2]["levels"] == [{"label": "poor"}, {"label": "fair"},
                                              {"label": "good"}]


def test_no_questions_or_too_many_is_refused_before_sending() -> None:
    with pytest.raises(ValueError):
        decisions.build_request("m", "s", {})
    with pytest.raises(ValueError):
        decisions.build_request("m", "s", {f"q{i}": Predicate("?") for i in range(401)})


DECISIONS_REPLY: dict[str, Any] = {
    "model": "gpt-6-luna-2026",
    "answers": [
        {"type": "predicate", "name": "true", "probability": 0.83},
        {"type": "choice", "name": "stance", "choice": "disagree", "confidence": 0.4,
         "probabilities": [{"value": "agree", "probability": 0.2},
                           {"value": "disagree", "probability": 0.7},
                           {"value": "neutral", "probability": 0.11}]},
        {"type": "score", "name": "quality", "score": 1.5, "confidence": 0.3,
         "probabilities": [{"value": 0, "label": "poor", "probability": 0.1},
                           {"value": 1, "label": "fair", "probability": 0.3},
                           {"value": 2, "label": "good", "probability": 0.6}]},
    ],
    "usage": {"input_tokens": 120, "output_tokens": 3,
              "input_tokens_details": {"cached_tokens": 0}},
}


def test_decisions_answers_are_read_by_name_and_renormalised() -> None:
    result = decisions.parse_response(QUESTIONS, ok(DECISIONS_REPLY), model="gpt-6-luna")
    assert result.model == "gpt-6-luna-2026" and result.backend == "decisions"
    assert result.answers["true"].probability == pytest.approx(0.83)
    stance = result.answers["stance"]
    assert stance.choice == "disagree"
    assert math.isclose(sum(stance.probabilities.values()), 1.0)  # 1.01 as sent
    assert stance.probability == pytest.approx(0.7 / 1.01)
    quality = result.answers["quality"]
    assert quality.kind is AnswerKind.SCORE and quality.choice == "good"
    assert quality.probability == pytest.approx((0.3 + 2 * 0.6) / 2)
    assert result.usage.prompt_tokens == 120 and result.usage.completion_tokens == 3


def test_decisions_answers_in_another_order_still_match_their_questions() -> None:
    shuffled = {**DECISIONS_REPLY, "answers": DECISIONS_REPLY["answers"][::-1]}
    result = decisions.parse_response(QUESTIONS, ok(shuffled), model="m")
    assert result.answers["true"].probability == pytest.approx(0.83)


def test_a_refusal_covers_only_its_question() -> None:
    answers = [{"type": "refusal", "name": "true"}, *DECISIONS_REPLY["answers"][1:]]
    result = decisions.parse_response(QUESTIONS, ok({**DECISIONS_REPLY, "answers": answers}),
                                      model="m")
    assert result.answers["true"].kind is AnswerKind.REFUSAL
    assert result.answers["true"].probability is None
    assert result.answers["stance"].choice == "disagree"


@pytest.mark.parametrize("answers", [
    DECISIONS_REPLY["answers"][:2],
    [{"type": "predicate", "name": "true", "probability": 1.3}, *DECISIONS_REPLY["answers"][1:]],
    [{"type": "choice", "name": "true", "choice": "a"}, *DECISIONS_REPLY["answers"][1:]],
    [DECISIONS_REPLY["answers"][0],
     {"type": "choice", "name": "stance", "probabilities": [{"value": "maybe",
                                                              "probability": 1.0}]},
     DECISIONS_REPLY["answers"][2]],
], ids=["missing", "not-a-probability", "wrong-type", "unknown-option"])
def test_a_broken_decisions_answer_is_malformed_never_invented(answers: Any) -> None:
    with pytest.raises(MalformedResponse):
        decisions.parse_response(QUESTIONS, ok({**DECISIONS_REPLY, "answers": answers}),
                                 model="m")


def test_a_decisions_429_raises_rate_limited() -> None:
    body = {"error": {"message": "Rate limit reached. Please try again in 20ms.",
                      "type": "requests", "code": "rate_limit_exceeded"}}
    with pytest.raises(RateLimited) as caught:
        decisions.parse_response(QUESTIONS, HttpResponse(429, orjson.dumps(body)), model="m")
    assert caught.value.retry_after == pytest.approx(0.02)


# ----------------------------------------------------------------------------- systemone


def test_a_systemone_request_keys_questions_by_id_with_criteria() -> None:
    state = {"claim": "c", "abstract": "a"}
    body = payload_of(systemone.build_request("jev", state, QUESTIONS))
    assert body["state"] == state
    assert body["questions"]["true"] == {"type": "noul",
                                         "instructions": QUESTIONS["true"].instructions}
    assert body["questions"]["stance"]["criteria"] == {
        "agree": None, "disagree": "says the paper is wrong", "neutral": None}
    assert body["questions"]["quality"]["criteria"] == ["poor", "fair", "good"]


SYSTEMONE_REPLY: dict[str, Any] = {
    "model": "jev-1.13.0",
    "answers": {
        "true": {"type": "noul", "noul": 0.91},
        "stance": {"type": "choice", "choice": "agree", "confidence": 0.5,
                   "probabilities": {"agree": 0.6, "disagree": 0.3, "neutral": 0.1}},
        "quality": {"type": "score", "score": 0.4, "legend": ["poor", "fair", "good"],
                    "probabilities": {"0": 0.7, "1": 0.2, "2": 0.1}, "confidence": 0.2},
    },
    "usage": {"input_tokens": 90, "output_tokens": 0},
}


def test_systemone_answers_are_read_from_the_map() -> None:
    result = systemone.parse_response(QUESTIONS, ok(SYSTEMONE_REPLY), model="jev")
    assert result.backend == "systemone" and result.model == "jev-1.13.0"
    assert result.answers["true"].probabilities == {"yes": 0.91, "no": pytest.approx(0.09)}
    assert result.answers["stance"].choice == "agree"
    assert result.answers["quality"].probabilities["poor"] == pytest.approx(0.7)
    assert result.answers["quality"].probability == pytest.approx((0.2 + 0.2) / 2)
    assert result.usage.completion_tokens == 0 and result.usage.requests == 1


def test_a_systemone_score_with_only_its_mean_is_read() -> None:
    reply = {"answers": {"q": {"type": "score", "score": 1.0}}}
    result = systemone.parse_response({"q": QUESTIONS["quality"]}, ok(reply), model="jev")
    assert result.answers["q"].probability == pytest.approx(0.5)
    assert result.answers["q"].choice == "fair"


@pytest.mark.parametrize("answers", [
    {"true": {"type": "noul", "noul": 0.5}},
    {**SYSTEMONE_REPLY["answers"], "extra": {"type": "noul", "noul": 0.5}},
    {**SYSTEMONE_REPLY["answers"], "true": {"type": "noul"}},
], ids=["missing", "extra", "no-probability"])
def test_a_broken_systemone_answer_is_malformed(answers: Any) -> None:
    with pytest.raises(MalformedResponse):
        systemone.parse_response(QUESTIONS, ok({"answers": answers}), model="jev")


# ----------------------------------------------------------------------------- logprobs


def logprob_reply(*positions: list[tuple[str, float]], sampled: str | None = None,
                  **choice: Any) -> HttpResponse:
    content = [{"token": sampled or top[0][0], "logprob": top[0][1],
                "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}
               for top in positions]
    body = {"model": "m", "choices": [{"index": 0, "finish_reason": "length",
                                       "message": {"role": "assistant", "content": "Yes"},
                                       "logprobs": {"content": content}, **choice}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 1}}
    return ok(body)


def test_a_logprobs_request_asks_for_a_bare_label_with_top_20() -> None:
    request = logprobs.build_request("m", "THE PAPER", QUESTIONS["true"])
    body = payload_of(request)
    assert body["logprobs"] is True and body["top_logprobs"] == 20
    assert body["temperature"] == 0 and body["max_completion_tokens"] == 1
    assert [m["role"] for m in body["messages"]] == ["system", "user", "user"]
    assert body["messages"][1]["content"] == "THE PAPER"
    assert body["messages"][2]["content"].endswith("Answer with exactly one of: Yes, No.")
    assert request.cost > 0


def test_questions_about_one_state_share_their_leading_messages() -> None:
    a = payload_of(logprobs.build_request("m", "THE PAPER", QUESTIONS["true"]))
    b = payload_of(logprobs.build_request("m", "THE PAPER", QUESTIONS["stance"]))
    assert a["messages"][:2] == b["messages"][:2]
    assert "B. disagree: says the paper is wrong" in b["messages"][2]["content"]


def test_p_yes_sums_the_variants_of_each_label_and_renormalises() -> None:
    top = [("Yes", math.log(0.5)), (" yes", math.log(0.1)), ("\"YES\"", math.log(0.1)),
           ("No", math.log(0.1)), (" no.", math.log(0.05)), ("Not", math.log(0.1)),
           ("None", math.log(0.04)), ("Now", math.log(0.01))]
    answer = logprobs.parse_response(QUESTIONS["true"], logprob_reply(top), model="m")
    assert answer.decision.probability == pytest.approx(0.7 / 0.85)
    assert answer.estimate.mass == pytest.approx(0.85)
    assert answer.estimate.bounded == frozenset()
    assert answer.usage.prompt_tokens == 50


def test_minus_9999_counts_as_zero() -> None:
    top = [("Yes", math.log(0.6)), ("No", -9999.0), (" no", math.log(0.2))]
    answer = logprobs.parse_response(QUESTIONS["true"], logprob_reply(top), model="m")
    assert answer.decision.probability == pytest.approx(0.75)


def test_a_missing_side_gives_the_documented_bound() -> None:
    top = [("Yes", math.log(0.9)), ("The", math.log(0.05)), ("I", math.log(0.01))]
    answer = logprobs.parse_response(QUESTIONS["true"], logprob_reply(top), model="m")
    # "No" is not listed: it is at most the smallest listed probability, 0.01.
    assert answer.decision.probability == pytest.approx(0.9 / 0.91)
    assert answer.estimate.bounded == frozenset({"No"})


def test_the_first_position_that_lists_a_label_is_read() -> None:
    preamble = [("The", math.log(0.9)), ("Answer", math.log(0.1))]
    label = [("No", math.log(0.8)), ("Yes", math.log(0.2))]
    answer = logprobs.parse_response(QUESTIONS["true"], logprob_reply(preamble, label),
                                     model="m")
    assert answer.estimate.position == 1
    assert answer.decision.probability == pytest.approx(0.2)


def test_the_sampled_token_counts_when_the_list_lacks_it() -> None:
    top = [("Yes", math.log(0.5)), ("The", math.log(0.3))]
    response = logprob_reply(top, sampled="No")
    body = orjson.loads(response.body)
    body["choices"][0]["logprobs"]["content"][0]["logprob"] = math.log(0.2)
    answer = logprobs.parse_response(QUESTIONS["true"], ok(body), model="m")
    assert answer.decision.probability == pytest.approx(0.5 / 0.7)
    assert answer.estimate.bounded == frozenset()


def test_a_reply_without_logprobs_is_an_error_never_one_half() -> None:
    body = {"choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": "Yes"}}]}
    with pytest.raises(NoLogprobs):
        logprobs.parse_response(QUESTIONS["true"], ok(body), model="m")


def test_neither_label_listed_is_an_error() -> None:
    top = [("Not", math.log(0.5)), ("None", math.log(0.3)), ("Now", math.log(0.2))]
    with pytest.raises(NoLogprobs):
        logprobs.parse_response(QUESTIONS["true"], logprob_reply(top), model="m")


def test_a_choice_is_read_over_its_letters() -> None:
    top = [("B", math.log(0.6)), (" A", math.log(0.2)), ("C.", math.log(0.1)),
           ("a", math.log(0.1))]
    answer = logprobs.parse_response(QUESTIONS["stance"], logprob_reply(top), model="m")
    assert answer.decision.choice == "disagree"
    assert answer.decision.probabilities == {"agree": pytest.approx(0.3),
                                             "disagree": pytest.approx(0.6),
                                             "neutral": pytest.approx(0.1)}


def test_a_logprobs_refusal_is_an_error() -> None:
    body = {"choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": None,
                                     "refusal": "I can't help with that."}}]}
    with pytest.raises(ModelRefused):
        logprobs.parse_response(QUESTIONS["true"], ok(body), model="m")


def test_per_question_answers_merge_into_one_result() -> None:
    yes = logprobs.parse_response(QUESTIONS["true"], logprob_reply([("Yes", 0.0)]), model="m")
    result = logprobs.merge({"a": yes, "b": yes}, model="m")
    assert result.backend == "logprobs" and set(result.answers) == {"a", "b"}
    assert result.usage.requests == 2 and result.usage.prompt_tokens == 100


# ----------------------------------------------------------------------------- chat


SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "claims": {"type": "array", "items": {"type": "object", "properties": {
        "text": {"type": "string"}, "page": {"type": "integer"}}, "required": ["text"]}},
    "note": {"type": "string"}}, "required": ["claims"]}


def test_a_strict_schema_closes_every_object_and_requires_every_property() -> None:
    strict = chat.strict_schema(SCHEMA)
    assert strict["additionalProperties"] is False
    assert strict["required"] == ["claims", "note"]
    assert strict["properties"]["note"]["type"] == ["string", "null"]
    item = strict["properties"]["claims"]["items"]
    assert item["additionalProperties"] is False and item["required"] == ["text", "page"]
    assert item["properties"]["page"]["type"] == ["integer", "null"]
    assert item["properties"]["text"]["type"] == "string"


def test_strict_mode_cannot_allow_additional_properties() -> None:
    with pytest.raises(ValueError):
        chat.strict_schema({"type": "object", "properties": {}, "additionalProperties": True})


def test_a_chat_request_carries_the_strict_schema_at_temperature_0() -> None:
    messages = [ChatMessage(Role.USER, "List the claims.")]
    body = payload_of(chat.build_request("gpt-5.4-mini", messages, schema=SCHEMA,
                                         schema_name="claims"))
    form = body["response_format"]
    assert form["type"] == "json_schema" and form["json_schema"]["strict"] is True
    assert form["json_schema"]["name"] == "claims"
    assert form["json_schema"]["schema"]["additionalProperties"] is False
    assert body["temperature"] == 0


def test_a_chat_request_reserves_its_schema_as_prompt_tokens() -> None:
    messages = [ChatMessage(Role.USER, "List the claims.")]
    plain = chat.build_request("m", messages, mode=chat.JsonMode.TEXT,
                               max_completion_tokens=100)
    shaped = chat.build_request("m", messages, schema=SCHEMA, max_completion_tokens=100)
    sent = payload_of(shaped)["response_format"]["json_schema"]["schema"]
    text = orjson.dumps(sent, option=orjson.OPT_SORT_KEYS).decode()
    assert plain.cost == (math.ceil(len("List the claims.") / 4) + 4) + 2 + 100
    assert shaped.cost == plain.cost + math.ceil(len(text) / 4) + 4


def test_llama_cpp_takes_the_schema_at_the_top_level() -> None:
    body = payload_of(chat.build_request("m", [ChatMessage(Role.USER, "x")], schema=SCHEMA,
                                         mode=chat.JsonMode.SCHEMA_TOP_LEVEL))
    assert body["response_format"] == {"type": "json_schema", "schema": SCHEMA}


def test_json_object_mode_needs_the_word_json_in_the_prompt() -> None:
    with pytest.raises(ValueError, match="JSON"):
        chat.build_request("m", [ChatMessage(Role.USER, "List claims")],
                           mode=chat.JsonMode.OBJECT)
    body = payload_of(chat.build_request("m", [ChatMessage(Role.USER, "List claims as json")],
                                         mode=chat.JsonMode.OBJECT))
    assert body["response_format"] == {"type": "json_object"}


def test_bad_schema_names_are_refused() -> None:
    with pytest.raises(ValueError):
        chat.build_request("m", [ChatMessage(Role.USER, "x")], schema=SCHEMA,
                           schema_name="claim list")


def chat_reply(content: str | None, finish: str = "stop", **message: Any) -> HttpResponse:
    return ok({"model": "m-1", "choices": [{"index": 0, "finish_reason": finish, "message": {
        "role": "assistant", "content": content, "refusal": None, **message}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                  "prompt_tokens_details": {"cached_tokens": 0}}})


def test_a_chat_reply_gives_its_text_and_usage() -> None:
    result = chat.parse_response(chat_reply('{"claims": []}'), model="m")
    assert result.text == '{"claims": []}' and result.model == "m-1"
    assert result.usage.completion_tokens == 5


@pytest.mark.parametrize(("response", "error"), [
    (chat_reply('{"claims": [', finish="length"), TruncatedReply),
    (chat_reply(None, finish="content_filter"), TruncatedReply),
    (chat_reply(None, refusal="I can't."), ModelRefused),
    (chat_reply(""), EmptyReply),
    (chat_reply("   "), EmptyReply),
    (HttpResponse(429, orjson.dumps({"error": {"message": "quota",
                                               "type": "insufficient_quota"}})),
     RequestRejected),
], ids=["length", "content-filter", "refusal", "empty", "blank", "quota"])
def test_unusable_chat_replies_are_errors(response: HttpResponse,
                                          error: type[Exception]) -> None:
    with pytest.raises(error):
        chat.parse_response(response, model="m")


@pytest.mark.parametrize(("text", "value"), [
    ('```json\n{"a": 1}\n```', {"a": 1}),
    ('```\n[1, 2]\n```', [1, 2]),
    ('Here is the JSON you asked for: {"a": [1, 2,], "b": {"c": "x",},} Hope it helps.',
     {"a": [1, 2], "b": {"c": "x"}}),
    ('{"a": "text with } and , ] inside",}', {"a": "text with } and , ] inside"}),
    ('{"a": "quote \\" then ,}"}', {"a": 'quote " then ,}'}),
])
def test_almost_json_is_repaired(text: str, value: Any) -> None:
    repaired = chat.repair_json(text)
    assert repaired is not None and orjson.loads(repaired) == value
    assert chat.parse_json_text(text) == value


@pytest.mark.parametrize("text", [
    "no json here", '{"a": 1', "{'a': 1}", '{a: 1}', "```json\n{\"a\": [1}\n```",
])
def test_what_is_not_almost_json_is_not_guessed(text: str) -> None:
    assert chat.repair_json(text) is None
    with pytest.raises(MalformedResponse):
        chat.parse_json_text(text)


# ----------------------------------------------------------------------------- validation


def test_a_fitting_answer_has_no_problems() -> None:
    strict = chat.strict_schema(SCHEMA)
    value = {"claims": [{"text": "x", "page": None}], "note": None}
    assert schema_problems(value, strict) == []


@pytest.mark.parametrize(("value", "where"), [
    ({"claims": [{"text": None, "page": 1}], "note": None}, "$.claims[0].text"),
    ({"claims": [{"text": "x", "page": 1.5}], "note": None}, "$.claims[0].page"),
    ({"claims": [{"text": "x", "page": True}], "note": None}, "$.claims[0].page"),
    ({"note": None}, "missing required property 'claims'"),
    ({"claims": [], "note": None, "extra": 1}, "unexpected property 'extra'"),
    ({"claims": "none", "note": None}, "$.claims: expected array"),
])
def test_off_schema_answers_name_where_they_break(value: Any, where: str) -> None:
    found = schema_problems(value, chat.strict_schema(SCHEMA))
    assert found and where in found[0]


def test_enums_bounds_and_any_of_are_checked() -> None:
    schema = {"type": "object", "properties": {
        "stance": {"enum": ["agree", "disagree"]},
        "p": {"type": "number", "minimum": 0, "maximum": 1},
        "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}
    assert schema_problems({"stance": "agree", "p": 0.5, "id": 3}, schema) == []
    assert len(schema_problems({"stance": "maybe", "p": 1.5, "id": [1]}, schema)) == 3
