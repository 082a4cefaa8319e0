"""The offline chat backend: structured outputs for the pipelines' tasks, by heuristics.

A baseline, not a language model: it answers only the tasks below, each by the
deterministic rules of its module, and always with valid JSON in the shape given here.

How a request names its task and carries its inputs
---------------------------------------------------

Some message (system or user) holds a line ``task: NAME``; the first such line in message
order counts. Inputs are read from tagged sections anywhere in the messages (the last
occurrence of a tag wins); when a task's main tag is missing, the last user message with
the task line removed is used in its place.

=================  ======================  ============================================
task               inputs                  JSON answer
=================  ======================  ============================================
``decompose``      ``<comment>``           ``{"premises": [str, …]}`` (1–6)
``extract_claims`` ``<paper>``             ``{"claims": [{"summary", "source_excerpt"}]}``
                                           (3–7; fewer only for a very short text)
``parse_comments`` ``<comments>``          ``{"comments": [{"comment_index", "anchor",
                                           "specification", "justification",
                                           "remedy"}]}``
``map_comments``   ``<comments>``,         ``{"mappings": [{"comment_index", "claim_id",
                   ``<claims>``            "stance", "is_consequential"}]}``
``type_critiques`` ``<comments>``          ``{"types": [{"comment_index", "type"}]}``
=================  ======================  ============================================

``<comments>`` is a JSON array of strings or a numbered list (``1. …``, ``2) …``,
``[3] …``; unnumbered lines continue the previous item). ``<claims>`` is a JSON array of
objects with ``claim_id`` (or ``id``) and ``summary`` (or ``text`` / ``claim``).

A request with no task line, an unknown task, or unreadable ``<claims>`` raises
:class:`UnsupportedTask` (a ``ValueError``): the caller sent something this baseline
cannot answer, and inventing an answer would hide that.

Usage is estimated (characters / 4, rounded up, of every message and of the answer).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from verifier.llm.offline.claims import extract_claims
from verifier.llm.offline.comments import map_comments, parse_comments, type_critiques
from verifier.llm.offline.premises import decompose
from verifier.llm.offline.text import estimate_tokens
from verifier.llm.types import ChatMessage, ChatResult, Role, Usage

BACKEND = "offline"
MODEL = "offline-heuristic-1"

_TASK_LINE = re.compile(r"(?im)^\s*task:\s*([a-z_]+)\s*$")
_NUMBERED = re.compile(r"^\s*(?:\[(\d+)\]|(\d+)[.):])\s+(.*)$")


class UnsupportedTask(ValueError):
    """The request names no task this baseline answers, or its inputs are unreadable."""


class Request:
    """A chat request read for the offline tasks: its task name and tagged sections."""

    __slots__ = ("_fallback", "_messages", "task")

    def __init__(self, messages: Sequence[ChatMessage]) -> None:
        self._messages = messages
        task = next((found.group(1) for message in messages
                     if (found := _TASK_LINE.search(message.content))), None)
        if task is None:
            raise UnsupportedTask("no 'task: NAME' line in the messages; the offline chat "
                                  f"model answers only {', '.join(TASKS)}")
        self.task = task
        last_user = next((m.content for m in reversed(messages) if m.role is Role.USER), "")
        self._fallback = _TASK_LINE.sub("", last_user).strip()

    def section(self, tag: str, required: bool = True) -> str | None:
        """The text inside the last ``<tag>…</tag>``; the fallback text when absent and
        ``required``, else ``None``."""
        pattern = re.compile(rf"(?is)<{tag}>(.*?)</{tag}>")
        found = [m.group(1) for message in self._messages
                 for m in pattern.finditer(message.content)]
        if found:
            return found[-1].strip()
        return self._fallback if required else None


def read_list(text: str) -> list[str]:
    """Items of a JSON array of strings, or of a numbered list (see module doc)."""
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except json.JSONDecodeError:
            items = None
        if isinstance(items, list) and all(isinstance(item, str) for item in items):
            return [item.strip() for item in items]
    result: list[str] = []
    for line in stripped.splitlines():
        numbered = _NUMBERED.match(line)
        if numbered:
            result.append(numbered.group(3).strip())
        elif line.strip() and result:
            result[-1] = f"{result[-1]} {line.strip()}"
        elif line.strip():
            result.append(line.strip())
    return result


def read_claims(text: str) -> dict[str, str]:
    """``claim_id → summary`` from a JSON array of claim objects."""
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UnsupportedTask(f"<claims> is not JSON: {exc}") from exc
    if not isinstance(items, list):
        raise UnsupportedTask("<claims> must be a JSON array of objects")
    claims: dict[str, str] = {}
    for item in items:
        if not isinstance(item, Mapping):
            raise UnsupportedTask("<claims> must be a JSON array of objects")
        claim_id = item.get("claim_id", item.get("id"))
        summary = item.get("summary", item.get("text", item.get("claim")))
        if claim_id is None or not isinstance(summary, str):
            raise UnsupportedTask("each claim needs claim_id (or id) and summary")
        claims[str(claim_id)] = summary
    return claims


def _decompose(request: Request) -> dict[str, Any]:
    return {"premises": decompose(request.section("comment") or "")}


def _extract_claims(request: Request) -> dict[str, Any]:
    return {"claims": extract_claims(request.section("paper") or "")}


def _parse_comments(request: Request) -> dict[str, Any]:
    return {"comments": parse_comments(read_list(request.section("comments") or ""))}


def _map_comments(request: Request) -> dict[str, Any]:
    claims_text = request.section("claims", required=False)
    if claims_text is None:
        raise UnsupportedTask("map_comments needs a <claims> section")
    return {"mappings": map_comments(read_list(request.section("comments") or ""),
                                     read_claims(claims_text))}


def _type_critiques(request: Request) -> dict[str, Any]:
    return {"types": type_critiques(read_list(request.section("comments") or ""))}


TASKS: dict[str, Callable[[Request], dict[str, Any]]] = {
    "decompose": _decompose,
    "extract_claims": _extract_claims,
    "parse_comments": _parse_comments,
    "map_comments": _map_comments,
    "type_critiques": _type_critiques,
}


def task_message(task: str, **sections: str) -> str:
    """A user message in the form this backend reads: the task line, then each section
    as ``<name>…</name>`` (a convenience for callers and tests)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}")
    body = "\n".join(f"<{name}>\n{text}\n</{name}>" for name, text in sections.items())
    return f"task: {task}\n{body}"


class OfflineChatModel:
    """A chat model that runs in-process and answers the pipelines' tasks by rules."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"OfflineChatModel(model={MODEL!r}, tasks={sorted(TASKS)})"

    def complete(self, messages: Sequence[ChatMessage]) -> ChatResult:
        """The task's JSON answer as text (see the module doc for tasks and shapes)."""
        request = Request(messages)
        handler = TASKS.get(request.task)
        if handler is None:
            raise UnsupportedTask(f"unknown task {request.task!r}; the offline chat model "
                                  f"answers only {', '.join(TASKS)}")
        text = json.dumps(handler(request), ensure_ascii=False)
        usage = Usage(prompt_tokens=sum(estimate_tokens(m.content) for m in messages),
                      completion_tokens=estimate_tokens(text), requests=1)
        return ChatResult(text, usage, BACKEND, MODEL)
