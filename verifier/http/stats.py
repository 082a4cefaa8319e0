"""Live counters of one engine run, for progress display and summaries.

The engine only increments; readers (the progress bar, benchmarks) take snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from .redact import redact


class RunMeter(Protocol):
    """A run-level accumulator another layer keeps on the stats (the language models'
    token and cost ledger), shown by the progress line and summaries without this layer
    knowing what it counts."""

    def line(self) -> str:
        """A short progress text, e.g. "llm 120 calls, 1.2M tokens, $0.41"."""
        ...

    def as_json(self) -> dict[str, Any]:
        ...


@dataclass(slots=True)
class SourceStats:
    requests: int = 0
    """Requests sent to the network (every attempt counts)."""
    by_class: dict[str, int] = field(default_factory=dict)
    """The same requests by the rate class they were paced under."""
    cache_hits: int = 0
    throttled: int = 0
    """Answers that said "too many requests" (429 or the service's equivalent)."""
    retries: int = 0
    failures: int = 0
    """Requests that ended in an error after their retries."""
    paused: bool = False
    """The source is resting now (after a 429, a spent budget or an open breaker)."""


@dataclass(slots=True)
class RunStats:
    sources: dict[str, SourceStats] = field(default_factory=dict)
    started: int = 0
    finished: int = 0
    meters: dict[str, RunMeter] = field(default_factory=dict)
    """Run-level accumulators by name (``models``: :class:`verifier.llm.usage.UsageLedger`)."""
    notices: list[str] = field(default_factory=list)
    """Things the user should know once per run (a source skipped for want of a key, a
    budget spent), in the order they happened. Never holds a credential."""
    secrets: tuple[str, ...] = ()
    """The run's configured key values (set by the session): redacted from notices, and
    by pipelines from what they report."""

    def notice(self, message: str) -> None:
        message = self.redact(message)
        if message not in self.notices:
            self.notices.append(message)

    def redact(self, text: str) -> str:
        """``text`` without any credential (the last line of defence before output).
        Memoised: the same few reasons and errors recur for every citation."""
        return _redact_memo(text, self.secrets)

    def source(self, name: str) -> SourceStats:
        stats = self.sources.get(name)
        if stats is None:
            stats = self.sources[name] = SourceStats()
        return stats

    @property
    def requests(self) -> int:
        return sum(s.requests for s in self.sources.values())


@lru_cache(maxsize=4096)
def _redact_memo(text: str, secrets: tuple[str, ...]) -> str:
    return redact(text, secrets)
