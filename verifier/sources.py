"""The bibliographic sources as one run configures them: policies and summaries.

The published limits live in each source's declaration (``SERVICE`` in ``adapters/*.py``);
this module applies the run's identification (contact address, keys) and time scale to
them, and says what ``verifier sources`` shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from adapters import SERVICES
from verifier.http.policy import RateClass, SourcePolicy
from verifier.http.service import Identification

from .settings import Settings

_BY_NAME = {service.name: service for service in SERVICES}


def default_policy(source: str, settings: Settings) -> SourcePolicy:
    """The published limits for ``source`` in the pool the settings' identification buys."""
    service = _BY_NAME.get(source)
    if service is None:
        raise ValueError(f"no policy for unknown source {source!r}")
    return service.policy(Identification(mailto=settings.mailto, api_key=settings.key(source)))


@dataclass(frozen=True, slots=True)
class PolicyTable:
    """The policy of every source for one run (defaults, scaled, then overridden)."""

    policies: Mapping[str, SourcePolicy] = field(default_factory=dict)

    @classmethod
    def for_settings(
        cls, settings: Settings, overrides: Mapping[str, SourcePolicy] | None = None
    ) -> PolicyTable:
        from verifier.settings import SOURCE_NAMES

        policies = {s: default_policy(s, settings).scaled(settings.time_scale)
                    for s in SOURCE_NAMES}
        policies.update(overrides or {})
        return cls(policies)

    def __getitem__(self, source: str) -> SourcePolicy:
        return self.policies[source]


@dataclass(frozen=True, slots=True)
class SourceSummary:
    """One row of ``verifier sources``: a source as this run would treat it."""

    name: str
    pool: str
    keyed: bool
    enabled: bool
    limits: str
    """The rate classes in force, e.g. "single 10/s, list 3/s; 3 at a time"."""
    note: str
    base_url: str


def _rate_text(rate_class: RateClass) -> str:
    if rate_class.per_second >= 1:
        return f"{rate_class.per_second:g}/s"
    return f"1 per {1 / rate_class.per_second:g} s"


def summarize(settings: Settings, sources: tuple[str, ...] | None = None) -> list[SourceSummary]:
    """What each source's pool, limits and state are for these settings."""
    from verifier.settings import SOURCE_NAMES

    table = PolicyTable.for_settings(settings)
    rows = []
    for name in sources or SOURCE_NAMES:
        policy = table[name]
        classes = {n: _rate_text(c) for n, c in policy.classes.items()}
        if len(set(classes.values())) == 1:
            limits = next(iter(classes.values()))
        else:
            limits = ", ".join(f"{n} {t}" for n, t in classes.items())
        limits += f"; {policy.max_concurrency} at a time"
        if policy.daily_budget is not None:
            limits += f"; {policy.daily_budget:,.0f} credits a day"
        note = policy.disabled_reason or ""
        if policy.enabled and name not in settings.sources:
            note = "not in --sources"
        rows.append(SourceSummary(
            name=name,
            pool=policy.pool,
            keyed=settings.key(name) is not None,
            enabled=policy.enabled and name in settings.sources,
            limits=limits,
            note=note,
            base_url=settings.base_urls[name],
        ))
    return rows
