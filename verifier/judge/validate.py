"""The judge spec's post-validation: what a model answer may say, and what it becomes.

Every step's parsed JSON goes through one of these before anything else reads it:

- **Claims** (:func:`validate_claims`): a non-empty list of ``{summary, source_excerpt}``;
  items without a summary are dropped; at most :data:`MAX_CLAIMS` are kept (in order);
  ids are assigned here, ``<paper_id>:claim-<i>`` with i from 1.
- **Parsed comments** (:func:`validate_parsed`): a non-empty list of
  ``{comment_index, anchor, specification, justification, remedy}``. An index must be an
  integer in 1…n (the batch size); items with another index, and repeats of an index, are
  dropped and named. Each field is a text or None: a non-string or blank value is None.
- **Mapping** (:func:`validate_mapping`): an unknown claim id → None; an invalid stance →
  None (stances are compared after stripping and upper-casing); without a claim the
  stance and ``is_consequential`` are None; with a claim ``is_consequential`` is the
  boolean given (true/false also accepted as strings) and False when missing or invalid.
- **Critique type** (:func:`validate_type`): one of the five types (compared lower-cased),
  otherwise None.

A list answer that is not a list, is empty, or keeps no valid item is a
:class:`Rejected` value (the caller retries once, then records a per-item error).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from .models import ClaimMapping, CritiqueType, ExtractedClaim, ParsedComment, Stance

MAX_CLAIMS = 7
PARSED_FIELDS = ("anchor", "specification", "justification", "remedy")


@dataclass(frozen=True, slots=True)
class Rejected:
    reason: str


@dataclass(frozen=True, slots=True)
class ParsedBatch:
    comments: tuple[ParsedComment, ...]
    """Sorted by ``comment_index``."""
    dropped: tuple[str, ...]
    """Why each dropped item was dropped."""
    missing: tuple[int, ...]
    """Indices in 1…n that no valid item answered."""


def claim_id(paper_id: str, i: int) -> str:
    return f"{paper_id}:claim-{i}"


def text_or_none(value: object) -> str | None:
    """A non-blank string, stripped; anything else is None."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _items(answer: object, what: str) -> list[Mapping[str, object]] | Rejected:
    if not isinstance(answer, list):
        return Rejected(f"{what}: expected a JSON array, got {type(answer).__name__}")
    if not answer:
        return Rejected(f"{what}: the array is empty")
    return [item for item in answer if isinstance(item, Mapping)]


def validate_claims(answer: object, paper_id: str) -> tuple[ExtractedClaim, ...] | Rejected:
    items = _items(answer, "claims")
    if isinstance(items, Rejected):
        return items
    kept = [(s, text_or_none(item.get("source_excerpt")))
            for item in items if (s := text_or_none(item.get("summary")))][:MAX_CLAIMS]
    if not kept:
        return Rejected("claims: no item has a summary")
    return tuple(ExtractedClaim(claim_id(paper_id, i), summary, excerpt)
                 for i, (summary, excerpt) in enumerate(kept, start=1))


def validate_parsed(answer: object, batch_size: int) -> ParsedBatch | Rejected:
    items = _items(answer, "parsed comments")
    if isinstance(items, Rejected):
        return items
    seen: dict[int, ParsedComment] = {}
    dropped: list[str] = []
    for n, item in enumerate(items, start=1):
        index = item.get("comment_index")
        if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= batch_size:
            dropped.append(f"item {n}: comment_index {index!r} is not in 1..{batch_size}")
            continue
        if index in seen:
            dropped.append(f"item {n}: comment_index {index} repeated")
            continue
        fields = {name: text_or_none(item.get(name)) for name in PARSED_FIELDS}
        seen[index] = ParsedComment(index, **fields)
    if not seen:
        return Rejected("parsed comments: no valid item")
    missing = tuple(i for i in range(1, batch_size + 1) if i not in seen)
    return ParsedBatch(tuple(seen[i] for i in sorted(seen)), tuple(dropped), missing)


def _stance(value: object) -> Stance | None:
    if isinstance(value, str):
        try:
            return Stance(value.strip().upper())
        except ValueError:
            return None
    return None


def _consequential(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return False


def validate_mapping(answer: Mapping[str, object], claim_ids: Collection[str]) -> ClaimMapping:
    raw = answer.get("claim_id")
    mapped = raw if isinstance(raw, str) and raw in claim_ids else None
    if mapped is None:
        return ClaimMapping(None, None, None)
    return ClaimMapping(mapped, _stance(answer.get("stance")),
                        _consequential(answer.get("is_consequential")))


def validate_type(value: object) -> CritiqueType | None:
    if isinstance(value, str):
        try:
            return CritiqueType(value.strip().lower())
        except ValueError:
            return None
    return None
