"""OpenAI's Decisions format: ``POST /decisions`` (``shared/docs/models.md`` §4).

Request: ``{model, input, questions: [{type, name, instructions, ...}]}`` with

- ``predicate``: nothing more;
- ``choice``: ``choices: [{value, description?}]`` (values sent as strings: the option
  names; ``"true"`` is not ``true``);
- ``score``: ``levels: [{label, description?}]``, lowest first.

Answer: ``{model, answers: [...], usage}``, one answer per question in question order:
``{type: predicate, name, probability}``, ``{type: choice, name, choice, confidence,
probabilities: [{value, probability}]}``, ``{type: score, name, score, confidence,
probabilities: [{value: <level index>, label, probability}]}`` or ``{type: refusal,
name}`` (that question only). Answers are matched by ``name`` where the server sends
one, else by position. Usage counts ``input_tokens`` (with cached) and ``output_tokens``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.llm.types import Choice, Decision, DecisionResult, Predicate, Question, Score

from . import answers
from .failures import raise_for_status
from .tokens import estimate_decision_tokens
from .wire import json_object, model_of, parse_usage, post_json

PATH = "/decisions"
BACKEND = "decisions"
MAX_QUESTIONS = 400


def _question(name: str, question: Question) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "instructions": question.instructions}
    if isinstance(question, Predicate):
        entry["type"] = "predicate"
    elif isinstance(question, Choice):
        entry["type"] = "choice"
        entry["choices"] = [
            {"value": value, "description": text} if text else {"value": value}
            for value, text in question.options.items()
        ]
    else:
        entry["type"] = "score"
        entry["levels"] = [{"label": label} for label in question.levels]
    return {"type": entry.pop("type"), **entry}


def build_request(model: str, state: str, questions: Mapping[str, Question], *,
                  api_key: str | None = None) -> HttpRequest:
    """One request asking every question about ``state``. ``ValueError`` for 0 or more
    than 400 questions."""
    answers.check_questions(questions, MAX_QUESTIONS)
    payload = {"model": model, "input": state,
               "questions": [_question(name, q) for name, q in questions.items()]}
    estimate = estimate_decision_tokens(state, questions)
    return post_json(PATH, payload, api_key=api_key, request_class="decisions",
                     estimated_tokens=estimate)


def _choice_weights(items: Any, what: str) -> dict[str, float]:
    if not isinstance(items, list):
        raise MalformedResponse(f"{what}: probabilities is not a list")
    weights: dict[str, float] = {}
    for item in items:
        if not isinstance(item, dict) or "value" not in item:
            raise MalformedResponse(f"{what}: a probability entry has no value: {item!r}")
        key = str(item["value"])
        weights[key] = weights.get(key, 0.0) + answers.probability(
            item.get("probability"), f"{what} {key}")
    return weights


def _score_weights(question: Score, items: Any, what: str) -> dict[str, float]:
    if not isinstance(items, list):
        raise MalformedResponse(f"{what}: probabilities is not a list")
    weights: dict[str, float] = {}
    for item in items:
        if not isinstance(item, dict):
            raise MalformedResponse(f"{what}: a probability entry is not an object")
        index = item.get("value")
        if isinstance(index, bool) or not isinstance(index, int) or not (
                0 <= index < len(question.levels)):
            raise MalformedResponse(f"{what}: level index {index!r} out of range")
        label = question.levels[index]
        weights[label] = weights.get(label, 0.0) + answers.probability(
            item.get("probability"), f"{what} level {index}")
    return weights


def _confidence(answer: Mapping[str, Any], what: str) -> float | None:
    value = answer.get("confidence")
    return None if value is None else answers.probability(value, f"{what} confidence")


def read_answer(name: str, question: Question, answer: Any) -> Decision:
    """One answer of the list, checked against the question it answers."""
    what = f"answer {name!r}"
    if not isinstance(answer, dict):
        raise MalformedResponse(f"{what} is not an object")
    kind = answer.get("type")
    if kind == "refusal":
        return answers.refusal()
    if kind != answers.kind_of(question):
        raise MalformedResponse(f"{what} is a {kind!r}, the question a "
                                f"{answers.kind_of(question)}")
    if isinstance(question, Predicate):
        return answers.predicate(answers.probability(answer.get("probability"), what))
    confidence = _confidence(answer, what)
    if isinstance(question, Choice):
        chosen = answer.get("choice")
        if "probabilities" not in answer:
            raise MalformedResponse(f"{what} has no probabilities")
        return answers.distribution(question, _choice_weights(answer["probabilities"], what),
                                    what, confidence=confidence,
                                    chosen=None if chosen is None else str(chosen))
    if "probabilities" in answer:
        return answers.distribution(
            question, _score_weights(question, answer["probabilities"], what), what,
            confidence=confidence)
    score = answer.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise MalformedResponse(f"{what} has neither probabilities nor a score")
    return answers.score_from_mean(question, float(score), what, confidence)


def parse_response(questions: Mapping[str, Question], response: HttpResponse, *,
                   model: str) -> DecisionResult:
    """The answers by question name, with usage. Raises the classified error of an error
    answer (:func:`~adapters.llm.failures.raise_for_status`) and ``MalformedResponse``
    when an answer is missing, extra, of the wrong type or not a probability."""
    raise_for_status(response)
    document = json_object(response)
    items = document.get("answers")
    if not isinstance(items, list):
        raise MalformedResponse("reply has no answers list")
    if len(items) != len(questions):
        raise MalformedResponse(f"{len(items)} answers to {len(questions)} questions")
    names = list(questions)
    by_name = {item.get("name"): item for item in items if isinstance(item, dict)}
    named = all(isinstance(item, dict) and item.get("name") in questions for item in items)
    decided: dict[str, Decision] = {}
    for position, name in enumerate(names):
        item = by_name.get(name) if named else items[position]
        if named and item is None:
            raise MalformedResponse(f"no answer to question {name!r}")
        decided[name] = read_answer(name, questions[name], item)
    return DecisionResult(answers=decided, usage=parse_usage(document), backend=BACKEND,
                          model=model_of(document, model))
