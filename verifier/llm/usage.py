"""What language-model calls used and cost: per call, per run, by an editable price table.

**Prices** (:data:`PRICES`, ``shared/docs/models.md`` §5): USD per million tokens of
input, cached input and output, per model id, each row with the date it was checked and
its source. The cost of one reply is::

    ((prompt − cached) · input + cached · cached_input + completion · output) / 10⁶

with cached input billed at the input price where a row has no cached price. A model id
matches a row exactly, or as a dated snapshot of it (``gpt-4.1-2025-04-14`` is
``gpt-4.1``); nothing else (``gpt-5.4-nano`` is not ``gpt-5.4``). A model without a row
has **cost unknown** (``None``), never 0. Users add or replace rows in settings
(``VERIFIER_LLM_PRICES``, :func:`verifier.settings.parse_prices`). Batch, flex, data
residency and long-context surcharges are not modelled.

**The ledger** (:class:`UsageLedger`), one per run on the session's stats
(``stats.meters["models"]``): for every reply read from the network, the prompt,
cached-prompt and completion tokens the server reported (replies later rejected, such as
a refusal or a reply cut short, were billed and are counted); per call, whether it was
sent, answered from the cache or joined to an identical call in flight, and its latency
(seconds from the call to its answer, pacing waits and retries included; cache hits and
joined calls excluded). Totals per endpoint and model and for the run, with the median
and 95th percentile latency (nearest rank) and the cost.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .types import Usage


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens. ``cached_input`` None: cached input costs ``input``."""

    model: str
    input: float
    cached_input: float | None
    output: float
    checked: str
    """When the figure was checked (ISO date)."""
    source: str = ""

    def cost(self, usage: Usage) -> float:
        cached_rate = self.input if self.cached_input is None else self.cached_input
        uncached = usage.prompt_tokens - usage.cached_prompt_tokens
        return (uncached * self.input + usage.cached_prompt_tokens * cached_rate
                + usage.completion_tokens * self.output) / 1e6


_QUOTED = "OpenAI pricing as quoted by tokenmix.ai, 2026-06-04 (models.md §5)"
PRICES: tuple[Price, ...] = (
    Price("gpt-5.5", 5.00, 0.50, 30.00, "2026-12-01", _QUOTED),
    Price("gpt-5.4", 2.50, 0.25, 15.00, "2026-12-01", _QUOTED),
    Price("gpt-5.4-mini", 0.75, 0.075, 4.50, "2026-12-01", _QUOTED),
    Price("gpt-4.1", 2.00, 0.50, 8.00, "2026-12-01",
          "OpenAI cookbook (input, cached); output as quoted (models.md §5)"),
    Price("perplexity-decisions", 0.04, None, 0.0, "2026-12-01",
          "docs.perplexity.ai decisions quickstart (models.md §5); model id as named there"),
)
"""The shipped rows; ``checked`` is when they were copied from ``models.md`` §5."""

_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


class PriceTable:
    """The shipped rows plus the user's (which win)."""

    def __init__(self, extra: Mapping[str, tuple[float, float | None, float]] | None = None,
                 rows: tuple[Price, ...] = PRICES) -> None:
        self._rows = {row.model: row for row in rows}
        for model, (inp, cached, out) in (extra or {}).items():
            self._rows[model] = Price(model, inp, cached, out, "settings", "user settings")

    def lookup(self, model: str) -> Price | None:
        row = self._rows.get(model)
        if row is None:
            row = self._rows.get(_SNAPSHOT.sub("", model))
        return row

    def cost(self, model: str, usage: Usage) -> float | None:
        """USD, or None when the model has no row (cost unknown, never 0)."""
        row = self.lookup(model)
        return None if row is None else row.cost(usage)

    def __iter__(self) -> Any:
        return iter(self._rows.values())


def nearest_rank(ordered: list[float], q: float) -> float | None:
    """The ``q`` quantile of sorted values by nearest rank (None for no values)."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


@dataclass(slots=True)
class _Line:
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    priced: bool = True


@dataclass(frozen=True, slots=True)
class RunUsage:
    """A snapshot of the ledger."""

    prompt_tokens: int
    cached_prompt_tokens: int
    completion_tokens: int
    requests: int
    """Replies read from the network (billed)."""
    calls: int
    sent_calls: int
    cache_hits: int
    joined: int
    failures: int
    latency_p50_s: float | None
    latency_p95_s: float | None
    cost_usd: float | None
    """None when some model used has no price (cost unknown)."""
    unpriced: tuple[str, ...]
    by_model: Mapping[str, Mapping[str, Any]]
    truncated_states: int

    def as_json(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "requests": self.requests, "calls": self.calls, "sent_calls": self.sent_calls,
            "cache_hits": self.cache_hits, "joined": self.joined, "failures": self.failures,
            "latency_p50_s": self.latency_p50_s, "latency_p95_s": self.latency_p95_s,
            "cost_usd": self.cost_usd,
            "cost": "unknown" if self.cost_usd is None else f"${self.cost_usd:.4f}",
            "unpriced_models": list(self.unpriced), "by_model": dict(self.by_model),
            "truncated_states": self.truncated_states,
        }


class UsageLedger:
    """The run's model usage (module docs). Only the event loop's thread writes it;
    displays read :meth:`snapshot` from theirs (plain counters, at worst a moment old)."""

    def __init__(self, prices: PriceTable | None = None) -> None:
        self.prices = prices or PriceTable()
        self._lines: dict[tuple[str, str], _Line] = {}
        self._latencies: list[float] = []
        self.calls = 0
        self.sent_calls = 0
        self.cache_hits = 0
        self.joined = 0
        self.failures = 0
        self.truncated_states = 0

    def reply(self, endpoint: str, model: str, usage: Usage) -> None:
        """One reply read from the network, as the server reported its usage."""
        line = self._lines.setdefault((endpoint, model), _Line())
        line.usage = line.usage + usage
        cost = self.prices.cost(model, usage)
        if cost is None:
            line.priced = False
        else:
            line.cost += cost

    def call(self, *, sent: bool, cached: bool, latency_s: float | None, ok: bool) -> None:
        """One call through a backend: sent (or answered from the cache, or joined)."""
        self.calls += 1
        if cached:
            self.cache_hits += 1
        elif sent:
            self.sent_calls += 1
            if latency_s is not None:
                self._latencies.append(latency_s)
        elif ok:
            self.joined += 1
        if not ok:
            self.failures += 1

    def snapshot(self) -> RunUsage:
        total = sum((line.usage for line in list(self._lines.values())), Usage())
        unpriced = tuple(sorted({model for (_, model), line in self._lines.items()
                                 if not line.priced}))
        cost = None if unpriced else sum(line.cost for line in self._lines.values())
        ordered = sorted(self._latencies)
        by_model = {
            f"{endpoint}/{model}": {
                "prompt_tokens": line.usage.prompt_tokens,
                "cached_prompt_tokens": line.usage.cached_prompt_tokens,
                "completion_tokens": line.usage.completion_tokens,
                "requests": line.usage.requests,
                "cost_usd": line.cost if line.priced else None,
            }
            for (endpoint, model), line in self._lines.items()
        }
        return RunUsage(total.prompt_tokens, total.cached_prompt_tokens,
                        total.completion_tokens, total.requests, self.calls, self.sent_calls,
                        self.cache_hits, self.joined, self.failures,
                        nearest_rank(ordered, 0.5), nearest_rank(ordered, 0.95), cost,
                        unpriced, by_model, self.truncated_states)

    def line(self) -> str:
        """``models 40 calls (12 cached), 1.2M tokens (0.9M cached), $0.41``."""
        s = self.snapshot()
        cost = "cost unknown" if s.cost_usd is None else f"${s.cost_usd:.4f}"
        return (f"models {s.calls} calls ({s.cache_hits} cached), "
                f"{_tokens(s.prompt_tokens + s.completion_tokens)} tokens "
                f"({_tokens(s.cached_prompt_tokens)} prompt cached), {cost}")

    def as_json(self) -> dict[str, Any]:
        return self.snapshot().as_json()


def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 10_000:
        return f"{n / 1e3:.0f}k"
    return str(n)
