"""Run settings: who we are, where the sources live, which sources to ask, cache and time.

``Settings()`` is a plain value with the real services' base URLs and no identification.
``Settings.from_env()`` reads the environment once, at start-up (never at import):

=========================  ==========================================================
``VERIFIER_MAILTO``        contact address: polite pools and the User-Agent
``CROSSREF_PLUS_TOKEN``    Crossref Metadata Plus token
``OPENALEX_API_KEY``       OpenAlex key
``NCBI_API_KEY``           PubMed (E-utilities) key
``S2_API_KEY``             Semantic Scholar key
``GOOGLE_BOOKS_API_KEY``   Google Books key
``VERIFIER_CACHE_DIR``     disk cache folder (default: ``~/.cache/citation-verifier``)
``VERIFIER_INDEPENDENCE``  ``distinct`` (default) or ``lineage``
``VERIFIER_<SOURCE>_URL``  base URL of one source, SOURCE in ``CROSSREF``, ``OPENALEX``,
                           ``PUBMED``, ``SEMANTICSCHOLAR``, ``OPENLIBRARY``,
                           ``GOOGLEBOOKS``, ``DOAJ``, ``ARXIV``
=========================  ==========================================================
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from adapters import SERVICES

from .errors import ConfigError

SOURCE_NAMES: tuple[str, ...] = tuple(service.name for service in SERVICES)
DEFAULT_BASE_URLS: Mapping[str, str] = {service.name: service.base_url for service in SERVICES}
KEY_ENV_VARS: Mapping[str, str] = {
    service.name: service.key_env for service in SERVICES if service.key_env
}
"""All three derive from the sources' declarations (``SERVICE`` in each adapter module)."""

VERSION = "0.1.0"
_MAILTO = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citation-verifier"


@dataclass(frozen=True, slots=True)
class Settings:
    mailto: str | None = None
    api_keys: Mapping[str, str] = field(default_factory=dict)
    base_urls: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_BASE_URLS))
    sources: tuple[str, ...] = SOURCE_NAMES
    """Sources the engine may ask, in the user's order (the planner decides the real order)."""
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    """None disables the disk cache."""
    cache_read: bool = True
    """False with a cache is ``--refresh``: answers are fetched anew and stored."""
    positive_ttl_s: float = 30 * 86400
    negative_ttl_s: float = 1 * 86400
    deadline_s: float = 120.0
    """Per-citation deadline: past it, sources still out are reported ``timed_out``."""
    time_scale: float = 1.0
    """Divides every published rate interval (tests against a sped-up stand-in)."""
    independence: str = "distinct"
    """What makes two agreeing sources independent: ``distinct`` (any two databases) or
    ``lineage`` (Crossref and OpenAlex agreeing through the same DOI count as one; see
    ``verifier.verdict.LINEAGES``)."""

    def __post_init__(self) -> None:
        unknown = [s for s in self.sources if s not in SOURCE_NAMES]
        if unknown:
            raise ConfigError(
                f"unknown source(s) {', '.join(unknown)}; known: {', '.join(SOURCE_NAMES)}"
            )
        if not self.sources:
            raise ConfigError("no sources enabled")
        if self.independence not in ("distinct", "lineage"):
            raise ConfigError(
                f"independence must be 'distinct' or 'lineage', got {self.independence!r}"
            )
        if self.mailto is not None and not _MAILTO.match(self.mailto):
            raise ConfigError(f"VERIFIER_MAILTO {self.mailto!r} is not an e-mail address")
        for name, value in (
            ("deadline_s", self.deadline_s),
            ("positive_ttl_s", self.positive_ttl_s),
            ("negative_ttl_s", self.negative_ttl_s),
            ("time_scale", self.time_scale),
        ):
            if not value > 0:
                raise ConfigError(f"{name} must be positive, got {value!r}")
        for source, url in self.base_urls.items():
            if source not in SOURCE_NAMES:
                raise ConfigError(f"base URL given for unknown source {source!r}")
            if not url.startswith(("http://", "https://")):
                raise ConfigError(f"base URL for {source} must be http(s), got {url!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from the environment; keyword ``overrides`` win (CLI options)."""
        env = os.environ if environ is None else environ
        keys = {src: env[var] for src, var in KEY_ENV_VARS.items() if env.get(var)}
        urls = dict(DEFAULT_BASE_URLS)
        for source in SOURCE_NAMES:
            value = env.get(f"VERIFIER_{source.upper()}_URL")
            if value:
                urls[source] = value
        cache_dir = env.get("VERIFIER_CACHE_DIR")
        base = cls(
            mailto=env.get("VERIFIER_MAILTO") or None,
            api_keys=keys,
            base_urls=urls,
            cache_dir=Path(cache_dir) if cache_dir else default_cache_dir(),
            independence=env.get("VERIFIER_INDEPENDENCE") or "distinct",
        )
        return replace(base, **overrides)  # type: ignore[arg-type]

    def with_base_urls(self, pairs: Iterable[str]) -> Settings:
        """Apply ``SOURCE=URL`` pairs (the ``--base-url`` option)."""
        urls = dict(self.base_urls)
        for pair in pairs:
            source, sep, url = pair.partition("=")
            if not sep or not url:
                raise ConfigError(f"--base-url takes SOURCE=URL, got {pair!r}")
            urls[source.strip().lower()] = url.strip()
        return replace(self, base_urls=urls)

    def key(self, source: str) -> str | None:
        return self.api_keys.get(source)

    @property
    def user_agent(self) -> str:
        contact = f"; mailto:{self.mailto}" if self.mailto else ""
        return f"citation-verifier/{VERSION} (+https://github.com/citation-verifier{contact})"
