"""Decisions from first-token log-probabilities over any OpenAI-compatible chat endpoint.

One question per request (``shared/docs/models.md`` §2). The request asks for a bare
label at temperature 0 with ``logprobs: true``, ``top_logprobs: 20`` and a small
``max_completion_tokens``; the prompt layout (shared by every question about one state,
so the server's prefix cache can hit) is:

1. ``system``: :data:`SYSTEM_PROMPT` (fixed);
2. ``user``: the state, verbatim;
3. ``user``: ``Question: <instructions>``, the options (choice and score: one line per
   option, lettered ``A``, ``B``, ...) and ``Answer with exactly one of: Yes, No.``

Labels are single tokens on every tokenizer: ``Yes``/``No`` for a predicate, letters for
a choice or a score (so multi-word options work too). Reading the answer
(:func:`label_probabilities`):

- the first ``content[]`` position whose candidates (``top_logprobs`` and the sampled
  token) include a label is read;
- each candidate is normalised (whitespace, quotes, ``*``, ``.``, ``,``, ``:``, ``!``,
  brackets and tokenizer space markers ``Ġ``/``▁`` stripped; casefolded) and matched as a
  whole token: ``Not``, ``None``, ``Now`` are not ``No``;
- same-label candidates are summed; a logprob of ``-9999`` counts as probability 0;
- a label missing from the list gets the smallest listed probability (an upper bound on
  every unlisted token), so P(yes) with "No" missing is the lower bound
  ``p_yes / (p_yes + p_k)``; the answer says it is a bound;
- the result is renormalised over the labels; the label mass before renormalising is
  reported (a low mass means the model mostly wanted to say something else);
- a reply without log-probabilities, or with no label at any position, is
  :class:`~adapters.llm.failures.NoLogprobs`: never 0.5.
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.llm.types import (
    ChatMessage,
    Choice,
    Decision,
    DecisionResult,
    Predicate,
    Question,
    Role,
    Usage,
)

from . import answers
from .failures import ModelRefused, NoLogprobs, raise_for_status
from .tokens import estimate_request_tokens
from .wire import json_object, model_of, parse_usage, post_json

PATH = "/chat/completions"
BACKEND = "logprobs"
TOP_LOGPROBS = 20
ABSENT = -9999.0
"""OpenAI's logprob for a token outside the top 20."""

SYSTEM_PROMPT = (
    "You answer questions about the document the user gives. Reply with exactly one of "
    "the allowed answers, as written, and nothing else."
)
QUESTION_PREFIX = "Question: "
ANSWER_PREFIX = "Answer with exactly one of: "
YES, NO = "Yes", "No"
LETTERS = string.ascii_uppercase

_STRIP = " \t\r\n\"'`*.,:;!?()[]{}<>\u201c\u201d\u2018\u2019"
_MARKERS = ("\u0120", "\u2581")  # GPT-2 BPE "Ġ", SentencePiece "▁": a leading space


def normalise_token(token: str) -> str:
    """A candidate token as compared with labels: markers, punctuation and case gone."""
    text = token.strip()
    for marker in _MARKERS:
        text = text.replace(marker, " ")
    return text.strip(_STRIP).casefold()


def labels_of(question: Question) -> dict[str, str]:
    """Label → what it stands for: ``Yes``/``No`` → ``yes``/``no`` for a predicate, a
    letter → the option (choice) or level (score). ``ValueError`` past 26 options."""
    if isinstance(question, Predicate):
        return {YES: "yes", NO: "no"}
    names = list(question.options) if isinstance(question, Choice) else list(question.levels)
    if len(names) > len(LETTERS):
        raise ValueError(f"the logprobs backend takes at most {len(LETTERS)} options")
    return dict(zip(LETTERS, names, strict=False))


def question_text(question: Question) -> str:
    """The last message: the question, its lettered options, and the allowed labels."""
    labels = labels_of(question)
    lines = [QUESTION_PREFIX + question.instructions]
    if isinstance(question, Choice):
        for letter, option in labels.items():
            text = question.options[option]
            lines.append(f"{letter}. {option}" + (f": {text}" if text else ""))
    elif not isinstance(question, Predicate):
        lines.extend(f"{letter}. {level}" for letter, level in labels.items())
    lines.append(ANSWER_PREFIX + ", ".join(labels) + ".")
    return "\n".join(lines)


def messages_for(state: str, question: Question) -> list[ChatMessage]:
    """The three messages of one question; the first two are the same for every question
    about ``state``."""
    return [ChatMessage(Role.SYSTEM, SYSTEM_PROMPT), ChatMessage(Role.USER, state),
            ChatMessage(Role.USER, question_text(question))]


def build_request(model: str, state: str, question: Question, *, api_key: str | None = None,
                  max_completion_tokens: int = 1,
                  top_logprobs: int = TOP_LOGPROBS) -> HttpRequest:
    """One chat request for one question (temperature 0, ``logprobs``)."""
    if not 0 < top_logprobs <= TOP_LOGPROBS:
        raise ValueError("top_logprobs must be 1 to 20")
    messages = messages_for(state, question)
    payload = {
        "model": model,
        "messages": [{"role": m.role.value, "content": m.content} for m in messages],
        "temperature": 0,
        "max_completion_tokens": max_completion_tokens,
        "logprobs": True,
        "top_logprobs": top_logprobs,
    }
    return post_json(PATH, payload, api_key=api_key, request_class="logprobs",
                     estimated_tokens=estimate_request_tokens(messages, max_completion_tokens))


@dataclass(frozen=True, slots=True)
class LabelEstimate:
    """Label probabilities read at one position of the reply's log-probabilities."""

    probabilities: Mapping[str, float]
    """Label → probability, renormalised over the labels (sums to 1)."""
    mass: float
    """Total probability the labels had before renormalising (0–1)."""
    bounded: frozenset[str]
    """Labels that were not listed and were given the smallest listed probability: the
    estimate is a bound, not a value (for a predicate missing "No", a lower bound)."""
    position: int
    """Index in ``logprobs.content`` that was read."""


def _logprob(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedResponse(f"{what}: logprob is not a number: {value!r}")
    number = float(value)
    if math.isnan(number) or number > 1e-6:
        raise MalformedResponse(f"{what}: impossible logprob {value!r}")
    return 0.0 if number <= ABSENT else math.exp(min(number, 0.0))


def _candidates(entry: Any, position: int) -> list[tuple[str, float]]:
    """(token, probability) at one position: the top list, plus the sampled token when
    the list does not already hold it."""
    if not isinstance(entry, dict):
        raise MalformedResponse(f"logprobs.content[{position}] is not an object")
    top = entry.get("top_logprobs") or []
    if not isinstance(top, list):
        raise MalformedResponse(f"logprobs.content[{position}].top_logprobs is not a list")
    found: list[tuple[str, float]] = []
    for item in top:
        if not isinstance(item, dict) or not isinstance(item.get("token"), str):
            raise MalformedResponse(f"logprobs.content[{position}]: bad candidate {item!r}")
        found.append((item["token"], _logprob(item.get("logprob"), f"position {position}")))
    sampled = entry.get("token")
    if isinstance(sampled, str) and sampled not in {token for token, _ in found}:
        found.append((sampled, _logprob(entry.get("logprob"), f"position {position}")))
    return found


def label_probabilities(content: Any, labels: Sequence[str]) -> LabelEstimate:
    """P(label) at the first position that lists any of ``labels`` (module docs)."""
    if not isinstance(content, list) or not content:
        raise NoLogprobs("the reply carries no log-probabilities")
    wanted = {normalise_token(label): label for label in labels}
    for position, entry in enumerate(content):
        candidates = _candidates(entry, position)
        sums: dict[str, float] = {}
        for token, p in candidates:
            label = wanted.get(normalise_token(token))
            if label is not None:
                sums[label] = sums.get(label, 0.0) + p
        mass = sum(sums.values())
        if not mass > 0:
            continue
        listed = [p for _, p in candidates if p > 0]
        floor = min(listed)
        bounded = frozenset(label for label in labels if label not in sums)
        weights = {label: sums.get(label, floor) for label in labels}
        total = sum(weights.values())
        return LabelEstimate({label: w / total for label, w in weights.items()},
                             min(1.0, mass), bounded, position)
    raise NoLogprobs(f"none of {list(labels)!r} among the reply's log-probabilities")


@dataclass(frozen=True, slots=True)
class LogprobsAnswer:
    """One question's decision, with what the reading rests on and what it used."""

    decision: Decision
    estimate: LabelEstimate
    usage: Usage
    model: str


def decision_from(question: Question, estimate: LabelEstimate) -> Decision:
    labels = labels_of(question)
    if isinstance(question, Predicate):
        return answers.predicate(estimate.probabilities[YES])
    weights = {labels[label]: p for label, p in estimate.probabilities.items()}
    return answers.distribution(question, weights, "logprobs")


def parse_response(question: Question, response: HttpResponse, *, model: str
                   ) -> LogprobsAnswer:
    """Read one reply. Raises the classified error of an error answer,
    :class:`ModelRefused` for a refusal, :class:`NoLogprobs` for a reply without usable
    log-probabilities. ``finish_reason: "length"`` is expected here (one token asked)."""
    raise_for_status(response)
    document = json_object(response)
    choices = document.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedResponse("reply has no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    if isinstance(message, dict) and message.get("refusal"):
        raise ModelRefused(f"the model refused: {message['refusal']}")
    logprobs = choice.get("logprobs")
    if not isinstance(logprobs, dict):
        raise NoLogprobs("the reply carries no log-probabilities")
    estimate = label_probabilities(logprobs.get("content"), list(labels_of(question)))
    return LogprobsAnswer(decision_from(question, estimate), estimate,
                          parse_usage(document), model_of(document, model))


def merge(answered: Mapping[str, LogprobsAnswer], *, model: str) -> DecisionResult:
    """The per-question answers of one state as one result (usage summed)."""
    usage = sum((a.usage for a in answered.values()), Usage())
    served = next((a.model for a in answered.values()), model)
    return DecisionResult(answers={name: a.decision for name, a in answered.items()},
                          usage=usage, backend=BACKEND, model=served)
