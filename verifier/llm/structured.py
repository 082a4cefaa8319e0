"""``complete_json``: a chat model's answer as validated JSON, or a per-item error.

Works over any :class:`~verifier.llm.interfaces.ChatModel` (the remote chat backend, the
offline chat model), so every pipeline gets the same contract:

1. ask ``model.complete(messages, schema=schema)`` (temperature 0; the backend sends the
   schema as ``response_format`` where the server supports it, ``json_object`` or a
   prompt otherwise);
2. read the text as JSON, repairing almost-JSON (a Markdown fence, prose around the
   value, trailing commas: :func:`adapters.llm.chat.repair_json`);
3. validate it against ``schema`` (:mod:`adapters.llm.schema`; a ``null`` for a property
   the schema does not require counts as absent, as strict mode makes optional
   properties nullable) and with ``validate`` (the caller's own check: a list of
   problems, empty when fine);
4. at most **two attempts**: when the first answer is empty, cut short, not JSON or off
   the schema, the second attempt repeats the conversation with the first answer and the
   problems appended. An error after two attempts raises :class:`InvalidAnswer` (a
   :class:`~verifier.errors.MalformedResponse`: the item is an error, never an invented
   value). Transport, throttling and rejection errors are not retried here (the paced
   client already did) and propagate at once, as does a refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.llm.chat import parse_json_text
from adapters.llm.failures import EmptyReply, TruncatedReply
from adapters.llm.schema import problems
from verifier.errors import MalformedResponse

from .interfaces import ChatModel
from .types import ChatMessage, Role, Usage

MAX_ATTEMPTS = 2
Validate = Callable[[Any], Sequence[str]]


class InvalidAnswer(MalformedResponse):
    """The model gave no valid JSON answer in two attempts; ``problems`` says why."""

    def __init__(self, message: str, problems: Sequence[str]) -> None:
        super().__init__(message)
        self.problems = list(problems)


@dataclass(frozen=True, slots=True)
class JsonAnswer:
    """A validated JSON answer, with what it took."""

    value: Any
    usage: Usage
    """Summed over the attempts."""
    backend: str
    model: str
    attempts: int


def _drop_optional_nulls(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` without ``null`` properties that ``schema`` does not require."""
    if isinstance(value, dict) and isinstance(schema.get("properties"), Mapping):
        required = set(schema.get("required") or ())
        properties = schema["properties"]
        return {
            key: (_drop_optional_nulls(item, properties[key]) if key in properties else item)
            for key, item in value.items()
            if not (item is None and key not in required and key in properties)
        }
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [_drop_optional_nulls(item, schema["items"]) for item in value]
    return value


def check(text: str, schema: Mapping[str, Any],
          validate: Validate | None = None) -> tuple[Any, list[str]]:
    """(value, problems) of one answer's text; problems empty when it is valid."""
    try:
        value = parse_json_text(text)
    except MalformedResponse as exc:
        return None, [str(exc)]
    value = _drop_optional_nulls(value, schema)
    found = problems(value, schema)
    if not found and validate is not None:
        found = list(validate(value))
    return value, found


def retry_message(problems_found: Sequence[str]) -> ChatMessage:
    listed = "\n".join(f"- {p}" for p in problems_found[:20])
    return ChatMessage(Role.USER, "Your answer was not valid JSON for the schema:\n"
                       f"{listed}\nReply again with only the corrected JSON.")


async def complete_json(
    model: ChatModel,
    messages: Sequence[ChatMessage],
    schema: Mapping[str, Any],
    validate: Validate | None = None,
    *,
    deadline: float | None = None,
) -> JsonAnswer:
    """The model's answer to ``messages`` as JSON valid under ``schema`` (module docs)."""
    conversation = list(messages)
    usage = Usage()
    found: list[str] = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            result = await model.complete(conversation, schema=schema, deadline=deadline)
        except (EmptyReply, TruncatedReply) as exc:
            found = [str(exc)]
            text = ""
        else:
            usage = usage + result.usage
            text = result.text
            value, found = check(text, schema, validate)
            if not found:
                return JsonAnswer(value, usage, result.backend, result.model, attempt)
        if attempt < MAX_ATTEMPTS:
            conversation = [*messages]
            if text:
                conversation.append(ChatMessage(Role.ASSISTANT, text))
            conversation.append(retry_message(found))
    raise InvalidAnswer(f"no valid JSON answer in {MAX_ATTEMPTS} attempts: "
                        f"{'; '.join(found[:3])}", found)
