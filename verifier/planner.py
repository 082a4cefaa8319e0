"""Which sources to ask about a citation, how, and in what order: a table, not code paths.

A plan has two stages. Identifier lookups come first (one cheap request that either
finds the cited work or not) and run together. Searches follow, cheapest and most
generous sources first; the engine runs only as many at once as it still needs matches,
and stops as soon as the agreement rule holds. Later sources and rules are rows in the
tables below, not new branches in the engine.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from .models import Citation, WorkType

IDENTIFIER_LOOKUPS: Mapping[str, tuple[str, ...]] = {
    # source: identifiers it resolves directly, in the order it prefers them
    "crossref": ("doi",),
    "openalex": ("doi", "pmid"),
}

SEARCH_ORDER: tuple[str, ...] = (
    # Most generous pace first: Crossref list calls are 3/s polite (1/s public), OpenAlex
    # searches are fast but billed from a daily budget, so Crossref leads.
    "crossref",
    "openalex",
)

SEARCH_TYPES: Mapping[str, frozenset[WorkType] | None] = {
    # source: the work types it indexes well enough to search (None: all)
    "crossref": None,
    "openalex": None,
}


@dataclass(frozen=True, slots=True)
class SourcePlan:
    lookups: tuple[str, ...]
    """Sources to ask by identifier, all at once."""
    searches: tuple[str, ...]
    """Sources to search, in order, as many at a time as matches are still needed."""
    not_applicable: tuple[str, ...]
    """Enabled sources with no way to look for this citation."""


def _has_identifier(citation: Citation, kind: str) -> bool:
    ids = citation.identifiers
    value: object = getattr(ids, kind, None)
    return bool(value)


def plan_sources(citation: Citation, enabled: Collection[str]) -> SourcePlan:
    """The plan for ``citation`` over the ``enabled`` sources."""
    lookups = tuple(
        source
        for source, kinds in IDENTIFIER_LOOKUPS.items()
        if source in enabled and any(_has_identifier(citation, k) for k in kinds)
    )
    searches = tuple(
        source
        for source in SEARCH_ORDER
        if source in enabled
        and citation.title
        and (SEARCH_TYPES.get(source) is None or citation.type in (SEARCH_TYPES[source] or ()))
    )
    planned = set(lookups) | set(searches)
    not_applicable = tuple(s for s in enabled if s not in planned)
    return SourcePlan(lookups, searches, not_applicable)
