"""The System One format (TypeSafe Jev): ``POST /systemone`` (``shared/docs/models.md`` §4).

Request: ``{model, state, questions: {<id>: {type, instructions, criteria?}}}`` with

- ``noul`` (yes/no): no criteria;
- ``choice``: ``criteria`` maps each option to its description or null (at most 255);
- ``score``: ``criteria`` lists 2–10 levels, lowest first.

Answer: ``{model, answers: {<id>: ...}, usage: {input_tokens, output_tokens}}`` keyed by
question id: ``{type: noul, noul: P(true)}``, ``{type: choice, choice, probabilities:
{option: p}, confidence}``, ``{type: score, score: <mean level index>, legend,
probabilities, confidence}``; a ``{type: refusal}`` is read as a refusal of that question.
A score's ``probabilities`` may be keyed by level label or by level index (``"0"``);
``legend`` (a list of labels, or index → label) resolves indices when present.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.llm.types import Choice, Decision, DecisionResult, Predicate, Question, Score

from . import answers
from .failures import raise_for_status
from .tokens import estimate_decision_tokens
from .wire import json_object, model_of, parse_usage, post_json

PATH = "/systemone"
BACKEND = "systemone"
MAX_QUESTIONS = 400
MAX_OPTIONS = 255


def _question(question: Question) -> dict[str, Any]:
    entry: dict[str, Any] = {"instructions": question.instructions}
    if isinstance(question, Predicate):
        return {"type": "noul", **entry}
    if isinstance(question, Choice):
        if len(question.options) > MAX_OPTIONS:
            raise ValueError(f"System One takes at most {MAX_OPTIONS} options")
        criteria = {option: (text or None) for option, text in question.options.items()}
        return {"type": "choice", **entry, "criteria": criteria}
    return {"type": "score", **entry, "criteria": list(question.levels)}


def build_request(model: str, state: str | Mapping[str, Any],
                  questions: Mapping[str, Question], *,
                  api_key: str | None = None) -> HttpRequest:
    """One request asking every question about ``state`` (a string, or an object such
    as ``{"claim": ..., "abstract": ...}``)."""
    answers.check_questions(questions, MAX_QUESTIONS)
    payload = {"model": model, "state": state if isinstance(state, str) else dict(state),
               "questions": {name: _question(q) for name, q in questions.items()}}
    text = state if isinstance(state, str) else orjson.dumps(dict(state)).decode()
    estimate = estimate_decision_tokens(text, questions)
    return post_json(PATH, payload, api_key=api_key, request_class="decisions",
                     estimated_tokens=estimate)


def _weights(items: Any, what: str) -> dict[str, float]:
    if not isinstance(items, dict):
        raise MalformedResponse(f"{what}: probabilities is not an object")
    return {str(key): answers.probability(value, f"{what} {key}")
            for key, value in items.items()}


def _level_names(question: Score, legend: Any) -> dict[str, str]:
    """Key → level label: labels themselves, index strings, and the legend's keys."""
    names = {label: label for label in question.levels}
    names.update({str(i): label for i, label in enumerate(question.levels)})
    if isinstance(legend, list):
        for i, label in enumerate(legend):
            if i < len(question.levels) and label != question.levels[i]:
                raise MalformedResponse(f"legend {legend!r} does not match the levels")
    elif isinstance(legend, dict):
        for key, label in legend.items():
            if label not in question.levels:
                raise MalformedResponse(f"legend names an unknown level {label!r}")
            names[str(key)] = label
    return names


def read_answer(name: str, question: Question, answer: Any) -> Decision:
    what = f"answer {name!r}"
    if not isinstance(answer, dict):
        raise MalformedResponse(f"{what} is missing or not an object")
    kind = answer.get("type")
    if kind == "refusal":
        return answers.refusal()
    expected = {Predicate: "noul", Choice: "choice", Score: "score"}[type(question)]
    if kind is not None and kind != expected:
        raise MalformedResponse(f"{what} is a {kind!r}, the question a {expected!r}")
    if isinstance(question, Predicate):
        return answers.predicate(answers.probability(answer.get("noul"), what))
    confidence = answer.get("confidence")
    confidence = None if confidence is None else answers.probability(confidence, what)
    if isinstance(question, Choice):
        chosen = answer.get("choice")
        return answers.distribution(question, _weights(answer.get("probabilities"), what),
                                    what, confidence=confidence,
                                    chosen=None if chosen is None else str(chosen))
    if answer.get("probabilities") is not None:
        names = _level_names(question, answer.get("legend"))
        weights: dict[str, float] = {}
        for key, value in _weights(answer["probabilities"], what).items():
            if key not in names:
                raise MalformedResponse(f"{what}: unknown level {key!r}")
            weights[names[key]] = weights.get(names[key], 0.0) + value
        return answers.distribution(question, weights, what, confidence=confidence)
    score = answer.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise MalformedResponse(f"{what} has neither probabilities nor a score")
    return answers.score_from_mean(question, float(score), what, confidence)


def parse_response(questions: Mapping[str, Question], response: HttpResponse, *,
                   model: str) -> DecisionResult:
    """The answers by question id, with usage; a missing answer is ``MalformedResponse``."""
    raise_for_status(response)
    document = json_object(response)
    items = document.get("answers")
    if not isinstance(items, dict):
        raise MalformedResponse("reply has no answers object")
    extra = set(items) - set(questions)
    if extra:
        raise MalformedResponse(f"answers to questions not asked: {sorted(extra)!r}")
    decided = {name: read_answer(name, q, items.get(name)) for name, q in questions.items()}
    return DecisionResult(answers=decided, usage=parse_usage(document), backend=BACKEND,
                          model=model_of(document, model))
