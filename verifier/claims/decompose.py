"""Step 1 of PremiseCheck: a chat call rewrites a comment, without the paper, into premises.

The request is the field variant's prompt file (:mod:`.prompt_files`) as the system
message and the comment as ``<comment>…</comment>`` in the user message, with a JSON
schema: ``{"premises": [str]}`` (general, machine learning) or
``{"premises": [{"text", "kind"}]}`` (natural science, ``kind`` ∈ paper | knowledge |
opinion).

Reading the answer (:func:`read_premises`): JSON (almost-JSON repaired by
:func:`adapters.llm.chat.parse_json_text`); each item a string or an object with
``text`` (and ``kind``); items are stripped, empty ones dropped, repeats
(case-insensitive) kept once. A ``kind`` outside the three is an unreadable answer.

Checking it (:func:`~.aggregate.decomposition_problem`): at most the field's number of
premises, typed where the field types them. A broken answer gets **one** repair turn
(the answer and the rule it broke are sent back); when the second answer breaks a rule
too, the decomposition fails with that rule as the reason — premises are never cut or
typed by the pipeline on the model's behalf.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from adapters.llm.chat import parse_json_text
from verifier.errors import MalformedResponse
from verifier.llm.types import ChatMessage, Role, Usage

from .aggregate import FIELD_LIMITS, Field, Premise, PremiseKind, decomposition_problem
from .prompt_files import DECOMPOSE_PROMPTS

if TYPE_CHECKING:
    from verifier.llm.interfaces import ChatModel

REPAIR_TURNS = 1


def schema_for(field: Field) -> dict[str, Any]:
    """The JSON schema the chat model is asked to answer in."""
    limits = FIELD_LIMITS[field]
    item: dict[str, Any] = {"type": "string"}
    if limits.typed:
        item = {"type": "object",
                "properties": {"text": {"type": "string"},
                               "kind": {"type": "string",
                                        "enum": [k.value for k in PremiseKind]}},
                "required": ["text", "kind"], "additionalProperties": False}
    return {"type": "object",
            "properties": {"premises": {"type": "array", "items": item,
                                        "maxItems": limits.max_premises}},
            "required": ["premises"], "additionalProperties": False}


def messages_for(comment: str, field: Field) -> list[ChatMessage]:
    """The decomposition request: the prompt file, then the comment (never the paper)."""
    return [ChatMessage(Role.SYSTEM, DECOMPOSE_PROMPTS[field].text),
            ChatMessage(Role.USER, f"<comment>\n{comment}\n</comment>")]


def read_premises(text: str) -> list[Premise]:
    """The premises in a chat answer (module docstring); raises ``MalformedResponse``."""
    value = parse_json_text(text)
    items = value.get("premises") if isinstance(value, Mapping) else None
    if not isinstance(items, list):
        raise MalformedResponse("the answer has no 'premises' list")
    premises: list[Premise] = []
    seen: set[str] = set()
    for item in items:
        kind: PremiseKind | None = None
        if isinstance(item, str):
            text_value = item
        elif isinstance(item, Mapping) and isinstance(item.get("text"), str):
            text_value = item["text"]
            raw_kind = item.get("kind")
            if raw_kind is not None:
                try:
                    kind = PremiseKind(str(raw_kind).strip().lower())
                except ValueError:
                    raise MalformedResponse(f"unknown premise kind {raw_kind!r}") from None
        else:
            raise MalformedResponse(f"a premise must be a string or {{text, kind}}: {item!r}")
        cleaned = " ".join(text_value.split())
        if cleaned and cleaned.lower() not in seen:
            seen.add(cleaned.lower())
            premises.append(Premise(cleaned, kind=kind))
    return premises


@dataclass(frozen=True, slots=True)
class Decomposition:
    premises: tuple[Premise, ...]
    usage: Usage
    backend: str
    problem: str | None = None
    """Why the answer could not be used (after the repair turn), else None."""


async def decompose(chat: ChatModel, comment: str, field: Field, *,
                    deadline: float | None = None) -> Decomposition:
    """Ask ``chat`` for the comment's premises. ``SourceError`` (the call failed)
    propagates; an unusable answer is a :class:`Decomposition` with ``problem`` set."""
    messages = messages_for(comment, field)
    schema = schema_for(field)
    usage = Usage()
    backend = ""
    problem: str | None = None
    premises: list[Premise] = []
    for turn in range(REPAIR_TURNS + 1):
        result = await chat.complete(messages, schema=schema, deadline=deadline)
        usage += result.usage
        backend = result.backend
        try:
            premises = read_premises(result.text)
            problem = decomposition_problem(premises, field)
        except MalformedResponse as exc:
            problem = f"unreadable answer: {exc}"
        if problem is None:
            return Decomposition(tuple(premises), usage, backend)
        if turn < REPAIR_TURNS:
            messages = [*messages, ChatMessage(Role.ASSISTANT, result.text),
                        ChatMessage(Role.USER, _repair_message(problem))]
    return Decomposition((), usage, backend, problem)


def _repair_message(problem: str) -> str:
    return (f"Your answer breaks a rule: {problem}. Answer again, following every rule, "
            "with JSON only.")
