"""Chat completions for structured output: ``POST /chat/completions`` with a
``response_format`` (``shared/docs/models.md`` §1, §3 and Pitfalls).

Request: ``model``, ``messages``, ``temperature: 0``, ``max_completion_tokens``, and a
``response_format`` by :class:`JsonMode`:

- ``SCHEMA`` (OpenAI, vLLM): ``{"type": "json_schema", "json_schema": {"name", "schema",
  "strict": true}}``. Strict mode needs every object (nested too) to set
  ``additionalProperties: false`` and list every property in ``required``;
  :func:`strict_schema` rewrites a schema that way (optional properties become nullable);
- ``SCHEMA_TOP_LEVEL`` (llama.cpp server): ``{"type": "json_schema", "schema": ...}``;
- ``OBJECT``: ``{"type": "json_object"}``; the messages must ask for JSON in words
  (OpenAI refuses the request otherwise), checked here;
- ``TEXT``: no ``response_format``.

Reply (:func:`parse_response`): ``choices[0].message``. A refusal
(:class:`~adapters.llm.failures.ModelRefused`), ``finish_reason`` ``length`` or
``content_filter`` (:class:`~adapters.llm.failures.TruncatedReply`) and an empty text
(:class:`~adapters.llm.failures.EmptyReply`) are errors, never an answer.
:func:`parse_json_text` reads the text as JSON, repairing almost-JSON with
:func:`repair_json`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

import orjson

from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.llm.types import ChatMessage, ChatResult, Role

from .failures import EmptyReply, ModelRefused, TruncatedReply, raise_for_status
from .tokens import estimate_request_tokens
from .wire import json_object, model_of, parse_usage, post_json

PATH = "/chat/completions"
BACKEND = "chat"
SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class JsonMode(StrEnum):
    SCHEMA = "json_schema"
    SCHEMA_TOP_LEVEL = "json_schema_top_level"
    OBJECT = "json_object"
    TEXT = "text"


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` as OpenAI's strict mode accepts it, recursively: every object gets
    ``additionalProperties: false`` and every property in ``required``; a property that
    was not required becomes nullable (``"type": [t, "null"]``, or ``anyOf`` with null
    where it has no simple type). ``ValueError`` for an object that allows additional
    properties on purpose (strict mode cannot say that)."""
    strict = _strict(schema)
    assert isinstance(strict, dict)
    return strict


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]} if kind != "null" else schema
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    out = {key: _strict(value) for key, value in node.items()}
    kind = out.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind) or (
        "properties" in out)
    if is_object:
        extra = out.get("additionalProperties", False)
        if extra not in (False, None):
            raise ValueError("strict mode cannot allow additional properties")
        properties = dict(out.get("properties") or {})
        required = set(out.get("required") or ())
        out["properties"] = {
            name: (prop if name in required else _nullable(prop))
            for name, prop in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def _asks_for_json(messages: Sequence[ChatMessage]) -> bool:
    return any("json" in m.content.lower() for m in messages)


def response_format(mode: JsonMode, schema: Mapping[str, Any] | None,
                    name: str = "answer") -> dict[str, Any] | None:
    """The ``response_format`` field for ``mode`` (None for ``TEXT``)."""
    if mode is JsonMode.TEXT:
        return None
    if mode is JsonMode.OBJECT:
        return {"type": "json_object"}
    if schema is None:
        raise ValueError(f"{mode} needs a schema")
    if mode is JsonMode.SCHEMA_TOP_LEVEL:
        return {"type": "json_schema", "schema": dict(schema)}
    if not SCHEMA_NAME.fullmatch(name):
        raise ValueError(f"schema name {name!r}: 1-64 characters of [A-Za-z0-9_-]")
    return {"type": "json_schema",
            "json_schema": {"name": name, "schema": strict_schema(schema), "strict": True}}


def build_request(
    model: str,
    messages: Sequence[ChatMessage],
    *,
    mode: JsonMode = JsonMode.SCHEMA,
    schema: Mapping[str, Any] | None = None,
    schema_name: str = "answer",
    max_completion_tokens: int = 1024,
    seed: int | None = None,
    api_key: str | None = None,
) -> HttpRequest:
    """One chat request at temperature 0. ``ValueError`` for no messages, a JSON-object
    request whose messages never say "JSON", or a schema mode without a schema."""
    if not messages:
        raise ValueError("a chat request needs at least one message")
    if mode is JsonMode.OBJECT and not _asks_for_json(messages):
        raise ValueError("json_object mode needs the word 'JSON' in the messages")
    payload: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role.value, "content": m.content} for m in messages],
        "temperature": 0,
        "max_completion_tokens": max_completion_tokens,
    }
    form = response_format(mode, schema, schema_name)
    if form is not None:
        payload["response_format"] = form
    if seed is not None:
        payload["seed"] = seed
    counted = list(messages)
    if form is not None:
        sent = form.get("json_schema", {}).get("schema", form.get("schema"))
        if sent is not None:  # the schema is prompt too: one more message of compact JSON
            text = orjson.dumps(sent, option=orjson.OPT_SORT_KEYS).decode()
            counted.append(ChatMessage(Role.SYSTEM, text))
    return post_json(PATH, payload, api_key=api_key, request_class="chat",
                     estimated_tokens=estimate_request_tokens(counted, max_completion_tokens))


def parse_response(response: HttpResponse, *, model: str) -> ChatResult:
    """The reply's text and usage; errors as the module docs list them."""
    raise_for_status(response)
    document = json_object(response)
    choices = document.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedResponse("reply has no choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise MalformedResponse("reply has no message")
    refusal = message.get("refusal")
    if refusal:
        raise ModelRefused(f"the model refused: {refusal}")
    finish = choice.get("finish_reason") or "stop"
    if finish == "length":
        raise TruncatedReply("the reply was cut at max_completion_tokens")
    if finish == "content_filter":
        raise TruncatedReply("the reply was withheld by the content filter")
    text = message.get("content")
    if text is not None and not isinstance(text, str):
        raise MalformedResponse(f"message content is not text: {type(text).__name__}")
    if not text or not text.strip():
        raise EmptyReply("the reply is empty")
    return ChatResult(text=text, usage=parse_usage(document), backend=BACKEND,
                      model=model_of(document, model), finish_reason=str(finish))


# ----------------------------------------------------------------------------- repair

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket that closes ``text[start]``, skipping strings."""
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _drop_trailing_commas(text: str) -> str:
    """Commas directly before ``}`` or ``]`` (whitespace between), outside strings."""
    out: list[str] = []
    in_string, escaped = False, False
    for i, ch in enumerate(text):
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch == ",":
            rest = text[i + 1:].lstrip()
            if rest[:1] in ("}", "]"):
                continue
        out.append(ch)
    return "".join(out)


def repair_json(text: str) -> str | None:
    """Almost-JSON made JSON, or None when no JSON value can be found.

    Repairs, in order: a Markdown code fence around the value (the first fenced block);
    prose before the first ``{``/``[`` and after its closing bracket; commas before a
    closing bracket. Nothing else is guessed: unbalanced brackets, single quotes or
    unquoted keys give None. The result parses with a strict JSON parser.
    """
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = _balanced_end(body, start)
    if end is None:
        return None
    candidate = _drop_trailing_commas(body[start:end])
    try:
        orjson.loads(candidate)
    except orjson.JSONDecodeError:
        return None
    return candidate


def parse_json_text(text: str) -> Any:
    """``text`` as JSON: as is when it parses, else :func:`repair_json`'s repair, else
    ``MalformedResponse``."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    repaired = repair_json(text)
    if repaired is None:
        raise MalformedResponse(f"reply is not JSON and cannot be repaired: {text[:80]!r}")
    return orjson.loads(repaired)
