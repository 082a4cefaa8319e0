"""One module per bibliographic source."""

from __future__ import annotations

from .base import Identity, RateHint, SourceAdapter
from .crossref import CrossrefAdapter
from .openalex import OpenAlexAdapter

ADAPTERS: tuple[type[SourceAdapter], ...] = (CrossrefAdapter, OpenAlexAdapter)
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
    "CrossrefAdapter",
    "Identity",
    "OpenAlexAdapter",
    "RateHint",
    "SourceAdapter",
    "adapter_for",
]
