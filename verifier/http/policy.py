"""Per-source pacing and failure policy: the one place where limits and retries are set.

The defaults are the services' published limits (see ``shared/docs/apis.md``), chosen by
the identification the settings carry: a contact address moves Crossref and Open Library
to their polite pools, a key moves a keyed service to its keyed pool.

=================  ==============================  ==============================
source             unidentified                    identified
=================  ==============================  ==============================
crossref           single 5/s, list 1/s, conc 1     mailto: single 10/s, list 3/s,
                                                   conc 3; Plus token: 150/s
openalex           100/s, 1,000 credits a day      key: 100/s, 10,000 credits a day
pubmed             3/s                             key: 10/s
semanticscholar    1/s (shared pool, 429-prone)    key: 1/s
openlibrary        1/s                             mailto in User-Agent: 3/s
googlebooks        none (keyless calls get 429)    key: 1/s
doaj               2/s, bursts of 5                same
arxiv              1 per 3 s, one connection       same
=================  ==============================  ==============================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from verifier.settings import Settings


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


SHARED_CLASS = "all"
"""The one rate class of a source whose limit covers every endpoint alike."""


def _one(rate: float, period_s: float = 1.0, concurrency: int = 1) -> dict[str, RateClass]:
    # One class, so lookups and searches share one limiter: two classes of the same
    # figures would let the source see twice its limit.
    return {SHARED_CLASS: RateClass(rate, period_s, concurrency)}


def default_policy(source: str, settings: Settings) -> SourcePolicy:
    """The published limits for ``source`` in the pool the settings' identification buys."""
    key = settings.key(source)
    polite = settings.mailto is not None
    if source == "crossref":
        if key:
            return SourcePolicy(_one(150, concurrency=10), max_concurrency=10, pool="plus")
        if polite:
            classes = {"single": RateClass(10, 1, 3), "list": RateClass(3, 1, 3)}
            return SourcePolicy(classes, max_concurrency=3, pool="polite")
        classes = {"single": RateClass(5, 1, 1), "list": RateClass(1, 1, 1)}
        return SourcePolicy(classes, max_concurrency=1, pool="public")
    if source == "openalex":
        # Credits: a record lookup is free, a list 1, a search 10. Keyless: $0.10/day
        # (1,000 credits, about 100 searches); a free key: $1/day (10,000 credits).
        if key:
            return SourcePolicy(_one(100, concurrency=10), max_concurrency=10, pool="keyed",
                                daily_budget=10_000)
        return SourcePolicy(_one(100, concurrency=10), max_concurrency=10, pool="keyless",
                            daily_budget=1_000, budget_hint="set OPENALEX_API_KEY")
    if source == "pubmed":
        if key:
            return SourcePolicy(_one(10, concurrency=10), max_concurrency=10, pool="keyed")
        return SourcePolicy(_one(3, concurrency=3), max_concurrency=3, pool="keyless")
    if source == "semanticscholar":
        return SourcePolicy(_one(1, concurrency=1), max_concurrency=1,
                            pool="keyed" if key else "shared")
    if source == "openlibrary":
        if polite:
            return SourcePolicy(_one(3, concurrency=3), max_concurrency=3, pool="identified")
        return SourcePolicy(_one(1, concurrency=1), max_concurrency=1, pool="anonymous")
    if source == "googlebooks":
        if key:
            return SourcePolicy(_one(1, concurrency=1), max_concurrency=1, pool="keyed")
        return SourcePolicy(_one(1, concurrency=1), max_concurrency=1, pool="keyless",
                            enabled=False,
                            disabled_reason="Google Books needs GOOGLE_BOOKS_API_KEY")
    if source == "doaj":
        return SourcePolicy(_one(2, concurrency=5), max_concurrency=5, pool="public")
    if source == "arxiv":
        return SourcePolicy(_one(1, period_s=3.0, concurrency=1), max_concurrency=1,
                            pool="public", request_timeout_s=30.0)
    raise ValueError(f"no policy for unknown source {source!r}")


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
