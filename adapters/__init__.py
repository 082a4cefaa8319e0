"""One module per bibliographic source: its adapter and its one service declaration.

:data:`SOURCES` pairs each source's declaration (``SERVICE``: name, base URL, key
variable, published limits) with its adapter class, in the order sources are listed and
reported. Settings, the policy table and ``verifier sources`` derive from it; adding a
source is one module and one line here.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.http.service import ServiceDeclaration

from . import arxiv, crossref, doaj, googlebooks, openalex, openlibrary, pubmed, semanticscholar
from .arxiv import ArxivAdapter
from .base import Identity, RateHint, SourceAdapter
from .crossref import CrossrefAdapter
from .doaj import DoajAdapter
from .googlebooks import GoogleBooksAdapter
from .openalex import OpenAlexAdapter
from .openlibrary import OpenLibraryAdapter
from .pubmed import PubMedAdapter
from .semanticscholar import SemanticScholarAdapter


@dataclass(frozen=True, slots=True)
class Source:
    service: ServiceDeclaration
    adapter: type[SourceAdapter]


SOURCES: tuple[Source, ...] = (
    Source(crossref.SERVICE, CrossrefAdapter),
    Source(openalex.SERVICE, OpenAlexAdapter),
    Source(pubmed.SERVICE, PubMedAdapter),
    Source(semanticscholar.SERVICE, SemanticScholarAdapter),
    Source(openlibrary.SERVICE, OpenLibraryAdapter),
    Source(googlebooks.SERVICE, GoogleBooksAdapter),
    Source(doaj.SERVICE, DoajAdapter),
    Source(arxiv.SERVICE, ArxivAdapter),
)
"""Every source, in the order sources are listed and reported."""

ADAPTERS: tuple[type[SourceAdapter], ...] = tuple(s.adapter for s in SOURCES)
SERVICES: tuple[ServiceDeclaration, ...] = tuple(s.service for s in SOURCES)


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
    "SERVICES",
    "SOURCES",
    "SemanticScholarAdapter",
    "Source",
    "SourceAdapter",
    "adapter_for",
]
