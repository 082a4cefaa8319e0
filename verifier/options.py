"""Per-call options of the citation checker: which sources, how long, what counts.

The settings give the defaults; a call may narrow them. Options never change the
session's resources: two calls with different options still share each service's limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .errors import ConfigError
from .settings import Settings


class Strategy(StrEnum):
    PLANNED = "planned"
    """The planner's cheapest schedule: asks sources in cost order, as many at a time as
    matches are still needed, and stops when two independent sources agree."""
    ALL_AT_ONCE = "all_at_once"
    """Every enabled source is asked for a lookup and a search at once, and the first match
    is enough (the naive baseline the benchmarks compare against)."""


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """None means "as the settings say"."""

    sources: tuple[str, ...] | None = None
    """Ask only these of the session's sources."""
    deadline_s: float | None = None
    """Per-citation deadline; sources still out then are reported ``timed_out``."""
    independence: str | None = None
    """``distinct`` or ``lineage`` (see ``verifier.citations.verdict``)."""
    strategy: Strategy = Strategy.PLANNED

    def resolve(self, settings: Settings) -> ResolvedOptions:
        sources = self.sources if self.sources is not None else settings.sources
        if isinstance(sources, str):
            sources = (sources,)  # one name, not its letters
        if not sources:
            raise ConfigError("sources is empty: name at least one of "
                              f"{', '.join(settings.sources)} (None: all of them)")
        unknown = [s for s in sources if s not in settings.sources]
        if unknown:
            raise ConfigError(f"source(s) {', '.join(unknown)} not enabled in this session "
                              f"(enabled: {', '.join(settings.sources)})")
        deadline = self.deadline_s if self.deadline_s is not None else settings.deadline_s
        if isinstance(deadline, bool) or not isinstance(deadline, int | float):
            raise ConfigError(f"deadline must be a number of seconds, got {deadline!r}")
        if not deadline > 0:
            raise ConfigError(f"deadline must be positive, got {deadline!r}")
        independence = self.independence or settings.independence
        if independence not in ("distinct", "lineage"):
            raise ConfigError(f"independence must be 'distinct' or 'lineage', "
                              f"got {independence!r}")
        return ResolvedOptions(tuple(sources), deadline, independence, self.strategy)


@dataclass(frozen=True, slots=True)
class ResolvedOptions:
    sources: tuple[str, ...]
    deadline_s: float
    independence: str
    strategy: Strategy
