"""The agreement rule and everything else the report concludes from the sources' answers.

- ``verified``: at least :data:`AGREEMENT` independent sources match title and authorship;
  what counts as independent is the run's ``independence`` setting (:func:`independent_groups`);
- ``unconfirmed``: exactly one does;
- ``no_trace``: no source matches and every applicable source answered;
- ``inconclusive``: no source matches and at least one applicable source could not answer
  (throttled, timed out, down, unreadable), or no source could be asked at all. A failed
  source is never read as a miss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .models import (
    Retraction,
    SourceResult,
    SourceStatus,
    Status,
    WorkRecord,
)

AGREEMENT = 2
"""Independent matching sources needed to call a citation verified."""

AUTHORITY: tuple[str, ...] = ("crossref", "pubmed", "openalex", "semanticscholar",
                              "doaj", "arxiv", "openlibrary", "googlebooks")
"""Whose record is shown as the corrected citation when several match."""


@dataclass(frozen=True, slots=True)
class Verdict:
    status: Status
    agreeing: tuple[str, ...]

    def __init__(
        self, status: Status, agreeing: tuple[str, ...],
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "agreeing", agreeing)


# Enum members read through their class cost a descriptor call each (StrEnum, Python
# 3.11); the paths run per citation read these module constants instead.
_MATCH = SourceStatus.MATCH
_VERIFIED, _UNCONFIRMED = Status.VERIFIED, Status.UNCONFIRMED
_INCONCLUSIVE, _NO_TRACE = Status.INCONCLUSIVE, Status.NO_TRACE
_RETRACTED, _CLEAN, _UNKNOWN = Retraction.RETRACTED, Retraction.CLEAN, Retraction.UNKNOWN


LINEAGES: tuple[tuple[str, str, str], ...] = (
    # (copy, origin, identifier): when both match through the same value of that
    # identifier, the copy's record may be the origin's, ingested: it is no witness of
    # its own. OpenAlex ingests Crossref and PubMed; Semantic Scholar ingests PubMed.
    ("openalex", "crossref", "doi"),
    ("openalex", "pubmed", "pmid"),
    ("semanticscholar", "pubmed", "pmid"),
)

INDEPENDENCE_RULES = ("distinct", "lineage")
"""``distinct``: any two different databases are independent. ``lineage``: a database
that agrees with the database it ingests through the same identifier (:data:`LINEAGES`)
counts as that one. Two origins (Crossref and PubMed) stay two witnesses even when one
aggregator copied both."""


def matching_sources(results: Mapping[str, SourceResult]) -> tuple[str, ...]:
    return tuple([s for s, r in results.items() if r.status is _MATCH])


def _same_identifier(a: SourceResult, b: SourceResult, kind: str) -> bool:
    if a.record is None or b.record is None:
        return False
    left: object = getattr(a.record.identifiers, kind)
    right: object = getattr(b.record.identifiers, kind)
    return bool(left) and isinstance(left, str) and isinstance(right, str) and (
        left.lower() == right.lower()
    )


def independent_groups(
    results: Mapping[str, SourceResult], independence: str = "distinct"
) -> list[tuple[str, ...]]:
    """The matching sources, grouped so that each group is one independent witness:
    under ``lineage`` a copy joins the group of the first matching origin it shares the
    identifier with (copies of copies follow the chain to its origin)."""
    matched = list(matching_sources(results))
    copied_from = {s: s for s in matched}
    if independence == "lineage":
        for copy, origin, kind in LINEAGES:
            if (copy in copied_from and origin in copied_from and copied_from[copy] == copy
                    and _same_identifier(results[copy], results[origin], kind)):
                copied_from[copy] = origin

    def root(s: str) -> str:
        seen = {s}
        while copied_from[s] != s and copied_from[s] not in seen:
            s = copied_from[s]
            seen.add(s)
        return s

    groups: dict[str, list[str]] = {}
    for s in matched:
        groups.setdefault(root(s), []).append(s)
    return [tuple(g) for g in groups.values()]


def decide(results: Mapping[str, SourceResult], independence: str = "distinct") -> Verdict:
    agreeing = matching_sources(results)
    # Under "distinct" every matching source is a witness of its own (a group each).
    witnesses = len(agreeing) if independence == "distinct" else \
        len(independent_groups(results, independence))
    if witnesses >= AGREEMENT:
        return Verdict(_VERIFIED, agreeing)
    if agreeing:
        return Verdict(_UNCONFIRMED, agreeing)
    if any(r.status.failed for r in results.values()):
        return Verdict(_INCONCLUSIVE, ())
    if not any(r.status.answered for r in results.values()):
        # Nobody was asked (every source skipped or not applicable): nothing was checked.
        return Verdict(_INCONCLUSIVE, ())
    return Verdict(_NO_TRACE, ())


def retraction_status(results: Mapping[str, SourceResult], agreeing: tuple[str, ...]) -> Retraction:
    """``retracted`` if any matching source says so; ``clean`` only when a matching source
    that carries retraction data says not; ``unknown`` otherwise."""
    return retraction_of([r for s in agreeing if (r := results[s].record) is not None])


def retraction_of(records: Sequence[WorkRecord]) -> Retraction:
    """:func:`retraction_status` given the agreeing sources' records (in any order)."""
    clean = False
    for record in records:
        said = record.retracted
        if said is True:
            return _RETRACTED  # any record saying so decides
        if said is False:
            clean = True
    return _CLEAN if clean else _UNKNOWN


def agreeing_records(
    results: Mapping[str, SourceResult], agreeing: Sequence[str]
) -> list[tuple[str, WorkRecord]]:
    """(source, record) of each agreeing source that has a record, most authoritative
    (:data:`AUTHORITY`) first."""
    present = [(s, r) for s in agreeing if s in results and (r := results[s].record)]
    if len(present) > 1:  # sorted in place (stable), by the ranks read without a call
        ranks, unknown = _RANKS, len(AUTHORITY)
        present.sort(key=lambda pair: ranks.get(pair[0], unknown))
    return present


def authority_rank(source: str) -> int:
    """Position of ``source`` in :data:`AUTHORITY` (unknown sources last)."""
    return _RANKS.get(source, len(AUTHORITY))


_RANKS = {source: position for position, source in enumerate(AUTHORITY)}
""":data:`AUTHORITY` as positions (one lookup instead of a search and an index)."""


def corrected_record(
    results: Mapping[str, SourceResult], agreeing: tuple[str, ...]
) -> WorkRecord | None:
    """The most authoritative agreeing source's record, or None."""
    sourced = agreeing_records(results, agreeing)
    return sourced[0][1] if sourced else None
