"""Per-service pacing and failure policy: the values the gate and the paced client obey.

A service's published limits are declared once, beside its adapter (``SERVICE`` in each
``adapters/*.py`` module, a :class:`~verifier.http.service.ServiceDeclaration`);
:mod:`verifier.sources` builds the run's table from those declarations and the settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class RateClass:
    """``rate`` requests per ``period_s`` seconds, at most ``concurrency`` in flight."""

    rate: float
    period_s: float = 1.0
    concurrency: int = 1

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.period_s <= 0 or self.concurrency < 1:
            raise ValueError(f"impossible rate class {self!r}")

    @property
    def per_second(self) -> float:
        return self.rate / self.period_s


@dataclass(frozen=True, slots=True)
class SourcePolicy:
    """How the engine treats one source. Times are in seconds."""

    classes: Mapping[str, RateClass]
    """Rate classes by name; requests name theirs (``"single"``, ``"list"``). A request
    whose class the policy does not name counts against the first class."""
    max_concurrency: int
    """In flight at once across all classes of the source."""
    request_timeout_s: float = 20.0
    source_budget_s: float = 60.0
    """Most time one request's retries may take, counted from its first failure (the
    time spent queueing for the source's rate limit before it does not count)."""
    max_attempts: int = 4
    backoff_base_s: float = 0.5
    backoff_cap_s: float = 8.0
    default_pause_s: float = 2.0
    """How long a 429 without Retry-After pauses the source."""
    breaker_threshold: int = 5
    """Consecutive failed requests that open the circuit breaker."""
    breaker_cooldown_s: float = 30.0
    pool: str = "public"
    enabled: bool = True
    disabled_reason: str | None = None
    daily_budget: float | None = None
    """Most a run may spend in the service's cost unit (``HttpRequest.cost``); None: no
    budget. The service's own remaining-budget headers are read as well."""
    budget_hint: str = ""
    """What buys a bigger budget, for the notice when it is spent."""
    weighted: RateClass | None = None
    """A limit on a quantity each request carries as its ``weight`` (a model endpoint's
    tokens per minute): ``rate`` units per ``period_s``, applied to every request on top of
    its rate class. None: the service has none."""

    def rate_class(self, name: str) -> RateClass:
        return self.classes.get(name) or next(iter(self.classes.values()))

    def scaled(self, factor: float) -> SourcePolicy:
        """Every limit sped up by ``factor`` (tests against a sped-up stand-in)."""
        if factor == 1.0:
            return self
        classes = {
            n: replace(c, period_s=c.period_s / factor) for n, c in self.classes.items()
        }
        return replace(
            self,
            classes=classes,
            request_timeout_s=self.request_timeout_s / factor,
            source_budget_s=self.source_budget_s / factor,
            backoff_base_s=self.backoff_base_s / factor,
            backoff_cap_s=self.backoff_cap_s / factor,
            default_pause_s=self.default_pause_s / factor,
            breaker_cooldown_s=self.breaker_cooldown_s / factor,
            weighted=None if self.weighted is None else replace(
                self.weighted, period_s=self.weighted.period_s / factor),
        )


@dataclass(frozen=True, slots=True)
class RateHint:
    """Rate information a service sent back in its headers (read by its adapter).

    ``limit`` requests per ``interval_s`` seconds and ``concurrency`` apply to the request
    class ``request_class`` (None: every class). ``remaining == 0`` with ``reset_s`` means
    a spent budget: the source should rest for ``reset_s`` seconds.
    """

    request_class: str | None = None
    limit: float | None = None
    interval_s: float | None = None
    concurrency: int | None = None
    remaining: float | None = None
    reset_s: float | None = None
    pool: str | None = None
