"""One module per bibliographic source."""

from __future__ import annotations

from .arxiv import ArxivAdapter
from .base import Identity, RateHint, SourceAdapter
from .crossref import CrossrefAdapter
from .doaj import DoajAdapter
from .googlebooks import GoogleBooksAdapter
from .openalex import OpenAlexAdapter
from .openlibrary import OpenLibraryAdapter
from .pubmed import PubMedAdapter
from .semanticscholar import SemanticScholarAdapter

ADAPTERS: tuple[type[SourceAdapter], ...] = (
    CrossrefAdapter,
    OpenAlexAdapter,
    PubMedAdapter,
    SemanticScholarAdapter,
    OpenLibraryAdapter,
    GoogleBooksAdapter,
    DoajAdapter,
    ArxivAdapter,
)
"""Every source adapter, in the order sources are listed and reported."""


def adapter_for(name: str) -> SourceAdapter:
    """A new adapter for the source called ``name`` (case-insensitive)."""
    wanted = name.strip().lower()
    for adapter in ADAPTERS:
        if adapter.name == wanted:
            return adapter()
    known = ", ".join(adapter.name for adapter in ADAPTERS)
    raise ValueError(f"unknown source {name!r}; known sources: {known}")


__all__ = [
    "ADAPTERS",
    "ArxivAdapter",
    "CrossrefAdapter",
    "DoajAdapter",
    "GoogleBooksAdapter",
    "Identity",
    "OpenAlexAdapter",
    "OpenLibraryAdapter",
    "PubMedAdapter",
    "RateHint",
    "SemanticScholarAdapter",
    "SourceAdapter",
    "adapter_for",
]
