"""Where the simulated model endpoint's answers come from: an *answer model*.

The endpoint (:mod:`~verifier.world.models.app`) speaks the wire formats; what it says is
asked of an object with two methods (:class:`AnswerModel`):

- ``decide(state, questions)``: one decision per question (``Predicate`` → P(yes),
  ``Choice``/``Score`` → a distribution), as :class:`~verifier.llm.types.Decision`
  values by question name (a :class:`~verifier.llm.types.DecisionResult` is accepted
  too: its ``answers`` are used);
- ``complete(messages, schema)``: the text of a chat reply; with a JSON schema, a JSON
  document that satisfies it.

By default the endpoint answers with the project's offline model
(:class:`OfflineAnswerModel` over ``verifier/llm/offline/``: a model, not a pipeline),
so its answers are valid and meaningful; prompts the offline chat model has no task for
get the reply of :class:`LexicalAnswerModel`, a small deterministic stand-in defined here
(a fixture, not a baseline). ``serve_models(answer_model=...)`` plugs in any other.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import orjson

from verifier.llm.types import (
    AnswerKind,
    ChatMessage,
    Choice,
    Decision,
    Predicate,
    Question,
    Role,
)


class AnswerModel(Protocol):
    def decide(self, state: str, questions: Mapping[str, Question]) -> Any:
        """Decisions by question name (a mapping, or an object with ``answers``)."""

    def complete(self, messages: Sequence[ChatMessage],
                 schema: Mapping[str, Any] | None = None) -> str:
        """A chat reply's text (JSON satisfying ``schema`` when one is given)."""


def decisions_of(model: AnswerModel, state: str,
                 questions: Mapping[str, Question]) -> Mapping[str, Decision]:
    """``model.decide`` read as decisions by name, checked to answer every question."""
    result = model.decide(state, questions)
    answers = getattr(result, "answers", result)
    if not isinstance(answers, Mapping) or set(answers) != set(questions):
        raise ValueError("the answer model did not answer exactly the questions asked")
    return answers


_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_STOP = frozenset("""a an the of in on at to for and or but is are was were be been being it
its this that these those with by as from into than then there their they we our you your
does do did can could would should will may might has have had not no yes which what who
whom whose how why when where premise true false according paper comment claim question
answer document about""".split())
_NEGATIONS = frozenset({"not", "no", "never", "none", "without", "cannot", "fails", "fail",
                        "neither", "nor", "lack", "lacks", "unlike", "absent"})


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _content(words: Sequence[str]) -> set[str]:
    return {w for w in words if w not in _STOP and len(w) > 1}


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


class LexicalAnswerModel:
    """A deterministic stand-in: word overlap between a question and the state's best
    matching sentence, with negation agreement.

    - Predicate: ``coverage`` = share of the question's content words found in the best
      sentence; P(yes) = sigmoid(8·(coverage − 0.5)), mirrored when exactly one of the
      question and that sentence is negated; clipped to [0.02, 0.98].
    - Choice: each option (name and description) scored by its coverage; a softmax with
      temperature 0.15.
    - Score: the question's coverage placed on the scale, a softmax over the distance.
    - Chat: the first sentence of the last user message, as text, or as every string of
      a JSON document built to the schema (first enum value, 0, false, one array item).
    """

    def _best_sentence(self, state: str, words: set[str]) -> tuple[float, bool]:
        best, negated = 0.0, False
        if not words:
            return 0.0, False
        for sentence in _SENTENCE.split(state) or [state]:
            tokens = _words(sentence)
            found = len(words & set(tokens)) / len(words)
            if found > best:
                best, negated = found, bool(_NEGATIONS & set(tokens))
        return best, negated

    def _p_true(self, state: str, instructions: str) -> float:
        words = _words(instructions)
        coverage, negated = self._best_sentence(state, _content(words))
        p = _sigmoid(8.0 * (coverage - 0.5))
        if negated != bool(_NEGATIONS & set(words)):
            p = 1.0 - p
        return min(0.98, max(0.02, p))

    def _softmax(self, scores: Mapping[str, float], temperature: float) -> dict[str, float]:
        top = max(scores.values())
        weights = {k: math.exp((v - top) / temperature) for k, v in scores.items()}
        total = sum(weights.values())
        return {k: w / total for k, w in weights.items()}

    def decide(self, state: str, questions: Mapping[str, Question]) -> dict[str, Decision]:
        out: dict[str, Decision] = {}
        for name, question in questions.items():
            if isinstance(question, Predicate):
                p = self._p_true(state, question.instructions)
                out[name] = Decision(AnswerKind.PREDICATE, p, {"yes": p, "no": 1.0 - p})
            elif isinstance(question, Choice):
                scores = {}
                for option, text in question.options.items():
                    words = _content(_words(f"{option} {text}"))
                    scores[option] = self._best_sentence(state, words)[0]
                probs = self._softmax(scores, 0.15)
                pick = max(probs, key=lambda k: probs[k])
                out[name] = Decision(AnswerKind.CHOICE, probs[pick], probs, pick,
                                     confidence=max(probs.values()) - min(probs.values()))
            else:
                levels = question.levels
                target = self._p_true(state, question.instructions) * (len(levels) - 1)
                probs = self._softmax({level: -abs(i - target)
                                       for i, level in enumerate(levels)}, 0.5)
                mean = sum(i * probs[level] for i, level in enumerate(levels))
                pick = max(probs, key=lambda k: probs[k])
                out[name] = Decision(AnswerKind.SCORE, mean / (len(levels) - 1), probs, pick,
                                     confidence=max(probs.values()))
        return out

    def complete(self, messages: Sequence[ChatMessage],
                 schema: Mapping[str, Any] | None = None) -> str:
        last = next((m.content for m in reversed(messages) if m.role is Role.USER),
                    messages[-1].content if messages else "")
        sentence = next((s.strip() for s in _SENTENCE.split(last) if s.strip()), "")
        if schema is None:
            return sentence or "I have nothing to add."
        return orjson.dumps(_instance(schema, sentence)).decode()


def _instance(schema: Any, text: str) -> Any:
    """A value satisfying the (strict-mode subset of) JSON schema ``schema``."""
    if not isinstance(schema, Mapping):
        return None
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [s for s in schema[key] if not (isinstance(s, Mapping)
                                                      and s.get("type") == "null")]
            return _instance(options[0] if options else {"type": "null"}, text)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        return {name: _instance(sub, text)
                for name, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        return [_instance(schema.get("items") or {}, text) for _ in range(count)]
    if kind == "string":
        return text
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


class OfflineAnswerModel:
    """The project's offline baseline behind the simulated endpoint (its default): the
    offline decision model answers decisions; the offline chat model answers the
    pipelines' task prompts, and any other prompt gets the lexical stand-in's reply."""

    def __init__(self) -> None:
        from verifier.llm.offline import OfflineChatModel, OfflineDecisionModel

        self._decisions = OfflineDecisionModel()
        self._chat = OfflineChatModel()
        self._fallback = LexicalAnswerModel()

    def decide(self, state: str, questions: Mapping[str, Question]) -> Any:
        return self._decisions.decide(state, questions)

    def complete(self, messages: Sequence[ChatMessage],
                 schema: Mapping[str, Any] | None = None) -> str:
        from verifier.llm.offline import UnsupportedTask

        try:
            text = self._chat.complete(messages).text
        except UnsupportedTask:
            return self._fallback.complete(messages, schema)
        if schema is not None and not _has_required(text, schema):
            return self._fallback.complete(messages, schema)  # not the shape asked for
        return text


def _has_required(text: str, schema: Mapping[str, Any]) -> bool:
    """Whether the JSON ``text`` is an object with every top-level key ``schema`` requires."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    required = schema.get("required", [])
    return isinstance(value, dict) and all(key in value for key in required)
