"""The judge's four model steps, each one chat call validated by :mod:`.validate`.

Every call (:func:`ask`) is made at temperature 0 (the :class:`ChatModel` contract) with
the paper as its shared first message (:func:`~.prompts.messages_for`) and a JSON
schema; its answer is read as JSON (almost-JSON repaired by
:func:`adapters.llm.chat.parse_json_text`), the task's list taken from its one key, and
the list validated. An answer that cannot be read, an empty list, a list with no valid
item, and a model or endpoint failure all count as a failed attempt; **at most two
attempts** are made, then the step is a :class:`StepFailure` value naming why (the
caller records a per-item error and goes on). Only bugs propagate.

=================  ===================  =====================================================
step               per                  validated by
=================  ===================  =====================================================
extract_claims     paper                :func:`.validate.validate_claims` (ids assigned)
parse_comments     source batch         :func:`.validate.validate_parsed` (1-based indices)
map_comments       source batch         per item :func:`.validate.validate_mapping`;
                                        indices outside the batch dropped
type_critiques     source batch         per item :func:`.validate.validate_type`
=================  ===================  =====================================================
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from adapters.llm.chat import parse_json_text
from verifier.errors import SourceError
from verifier.llm.interfaces import ChatModel
from verifier.llm.types import Usage

from .models import ClaimMapping, CritiqueType, ExtractedClaim
from .prompts import messages_for
from .validate import ParsedBatch, Rejected, validate_claims, validate_mapping, validate_parsed
from .validate import validate_type as _validate_type

T = TypeVar("T")
MAX_ATTEMPTS = 2

_NULLABLE_TEXT: dict[str, Any] = {"type": ["string", "null"]}
SCHEMAS: dict[str, dict[str, Any]] = {
    "extract_claims": {
        "type": "object", "additionalProperties": False, "required": ["claims"],
        "properties": {"claims": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["summary", "source_excerpt"],
            "properties": {"summary": {"type": "string"}, "source_excerpt": _NULLABLE_TEXT}}}},
    },
    "parse_comments": {
        "type": "object", "additionalProperties": False, "required": ["comments"],
        "properties": {"comments": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["comment_index", "anchor", "specification", "justification", "remedy"],
            "properties": {"comment_index": {"type": "integer"}, "anchor": _NULLABLE_TEXT,
                           "specification": _NULLABLE_TEXT, "justification": _NULLABLE_TEXT,
                           "remedy": _NULLABLE_TEXT}}}},
    },
    "map_comments": {
        "type": "object", "additionalProperties": False, "required": ["mappings"],
        "properties": {"mappings": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["comment_index", "claim_id", "stance", "is_consequential"],
            "properties": {"comment_index": {"type": "integer"}, "claim_id": _NULLABLE_TEXT,
                           "stance": {"type": ["string", "null"],
                                      "enum": ["SUPPORTIVE", "CRITICAL", "NEUTRAL", None]},
                           "is_consequential": {"type": ["boolean", "null"]}}}}},
    },
    "type_critiques": {
        "type": "object", "additionalProperties": False, "required": ["types"],
        "properties": {"types": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["comment_index", "type"],
            "properties": {"comment_index": {"type": "integer"},
                           "type": {"type": ["string", "null"],
                                    "enum": [*(t.value for t in CritiqueType), None]}}}}},
    },
}
"""The JSON schema sent with each step (strict-mode ready)."""
KEYS = {"extract_claims": "claims", "parse_comments": "comments", "map_comments": "mappings",
        "type_critiques": "types"}


@dataclass(frozen=True, slots=True)
class StepFailure:
    """A step that gave no usable answer in :data:`MAX_ATTEMPTS` attempts."""

    step: str
    reason: str
    """The last attempt's failure (the earlier ones are in ``attempts``)."""
    attempts: tuple[str, ...] = ()


@dataclass(slots=True)
class CallLog:
    """What the model calls of one unit of work cost: calls, failed attempts, usage."""

    calls: int = 0
    failed_attempts: int = 0
    usage: Usage = field(default_factory=Usage)

    def add(self, other: CallLog) -> None:
        self.calls += other.calls
        self.failed_attempts += other.failed_attempts
        self.usage = self.usage + other.usage


def answer_list(text: str, key: str | None) -> object:
    """The value under ``key`` of a JSON answer (a bare list is accepted too; ``key``
    None: the whole document); raises ValueError when the text is not JSON even after
    repair."""
    try:
        document = parse_json_text(text)
    except SourceError as exc:
        raise ValueError(str(exc)) from None
    if key is not None and isinstance(document, Mapping):
        return document.get(key)
    return document


async def ask(
    model: ChatModel,
    step: str,
    paper_text: str,
    sections: Mapping[str, str],
    validate: Callable[[object], T | Rejected],
    log: CallLog,
    *,
    deadline: float | None = None,
    schema: Mapping[str, Any] | None = None,
    key: str | None = None,
) -> T | StepFailure:
    """One step's call, retried once (module docstring). ``schema`` and ``key`` (the
    answer's list key; None: the whole document) default to the step's own."""
    messages = messages_for(paper_text, step, **sections)
    if schema is None:
        schema, key = SCHEMAS[step], KEYS[step]
    reasons: list[str] = []
    for _ in range(MAX_ATTEMPTS):
        log.calls += 1
        try:
            result = await model.complete(messages, schema=schema, deadline=deadline)
        except (SourceError, ValueError) as exc:  # endpoint failure, unanswerable request
            reasons.append(f"{type(exc).__name__}: {exc}")
            log.failed_attempts += 1
            continue
        log.usage = log.usage + result.usage
        try:
            value = validate(answer_list(result.text, key))
        except ValueError as exc:
            reasons.append(str(exc))
            log.failed_attempts += 1
            continue
        if isinstance(value, Rejected):
            reasons.append(value.reason)
            log.failed_attempts += 1
            continue
        return value
    return StepFailure(step, reasons[-1], tuple(reasons))


def numbered(comments: Sequence[str]) -> str:
    """The numbered batch as the prompts show it: ``1. text`` (inner lines indented)."""
    return "\n".join(f"{i}. " + " ".join(c.split()) for i, c in enumerate(comments, start=1))


# ----------------------------------------------------------------------------- the four


async def extract_claims(model: ChatModel, paper_id: str, paper_text: str, log: CallLog,
                         *, deadline: float | None = None
                         ) -> tuple[ExtractedClaim, ...] | StepFailure:
    return await ask(model, "extract_claims", paper_text, {},
                     lambda answer: validate_claims(answer, paper_id), log, deadline=deadline)


async def parse_comments(model: ChatModel, paper_text: str, comments: Sequence[str],
                         log: CallLog, *, deadline: float | None = None
                         ) -> ParsedBatch | StepFailure:
    return await ask(model, "parse_comments", paper_text, {"comments": numbered(comments)},
                     lambda answer: validate_parsed(answer, len(comments)), log,
                     deadline=deadline)


def _indexed(answer: object, size: int, what: str) -> dict[int, Mapping[str, object]] | Rejected:
    """Items of a list answer by their 1-based ``comment_index`` (first wins; items out of
    range dropped); Rejected when the list is missing, empty or has no usable item."""
    if not isinstance(answer, list):
        return Rejected(f"{what}: expected a JSON array, got {type(answer).__name__}")
    if not answer:
        return Rejected(f"{what}: the array is empty")
    found: dict[int, Mapping[str, object]] = {}
    for item in answer:
        if not isinstance(item, Mapping):
            continue
        index = item.get("comment_index")
        if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= size:
            continue
        found.setdefault(index, item)
    if not found:
        return Rejected(f"{what}: no item has a comment_index in 1..{size}")
    return found


def validate_mappings(answer: object, size: int, claim_ids: Sequence[str]
                      ) -> dict[int, ClaimMapping] | Rejected:
    items = _indexed(answer, size, "mappings")
    if isinstance(items, Rejected):
        return items
    return {i: validate_mapping(item, claim_ids) for i, item in items.items()}


def validate_types(answer: object, size: int) -> dict[int, CritiqueType | None] | Rejected:
    items = _indexed(answer, size, "types")
    if isinstance(items, Rejected):
        return items
    return {i: _validate_type(item.get("type")) for i, item in items.items()}


async def map_comments(model: ChatModel, paper_text: str, comments: Sequence[str],
                       claims: Sequence[ExtractedClaim], log: CallLog,
                       *, deadline: float | None = None
                       ) -> dict[int, ClaimMapping] | StepFailure:
    claims_json = json.dumps([{"claim_id": c.claim_id, "summary": c.summary} for c in claims],
                             ensure_ascii=False)
    ids = [c.claim_id for c in claims]
    return await ask(model, "map_comments", paper_text,
                     {"claims": claims_json, "comments": numbered(comments)},
                     lambda answer: validate_mappings(answer, len(comments), ids), log,
                     deadline=deadline)


async def type_critiques(model: ChatModel, paper_text: str, comments: Sequence[str],
                         log: CallLog, *, deadline: float | None = None
                         ) -> dict[int, CritiqueType | None] | StepFailure:
    return await ask(model, "type_critiques", paper_text, {"comments": numbered(comments)},
                     lambda answer: validate_types(answer, len(comments)), log,
                     deadline=deadline)
