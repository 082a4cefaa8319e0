"""Enforcement of each service's published rate and concurrency limits, on the world clock.

Every request to a service is counted against its service, pool and request class
(``ServiceSpec.limit_for``): ``(crossref, polite, list)`` is one counter,
``(crossref, public, list)`` another. Two checks, concurrency first:

- **concurrency**: a request arriving while ``Limit.concurrency`` requests of the same
  counter are in flight is refused;
- **rate**: a sliding-window log. A request is refused when ``rate`` requests of the same
  counter were admitted within the last *window*; refused requests are not counted.

A refused request gets the service's own "too many requests" answer,
``spec.throttled(retry_after)`` (a 429: Crossref's HTML page, OpenAlex's JSON ...), and
the request log records it with status 429 and ``throttled="rate"`` or
``"concurrency"``. ``retry_after`` is the time until the window admits again, rounded up
to whole world seconds (at least one), as real services round.

**The world clock.** Time is ``time.monotonic()`` on the server. A world ``time_scale``
divides every period (limits, Retry-After, scripted fault windows, OpenAlex's day), so a
world at ``time_scale=20`` allows 20 times the published rates and every published
figure keeps its meaning relative to the others.

**Jitter tolerance.** The window is the scaled period minus ``jitter_s`` (default
:data:`JITTER_S`, 10 ms of real time), but never less than half the scaled period. A
client pacing exactly at the limit sees its requests arrive a little early or late
(network, event-loop scheduling); the tolerance absorbs that. A client that really
exceeds the limit is still caught: at one request per second a client must space its
requests less than 990 ms apart to pass as compliant, so 1 % too fast is the most it can
get away with — and any burst above the rate is refused at once. At high time scales the
fixed real-time tolerance is a larger share of a shrunken period (hence the floor).

Non-integer rates (``Limit(0.5)``) are enforced as ``max(1, floor(rate))`` requests per
``period × that / rate`` — the same long-run rate.

Services with daily allowances (OpenAlex's credits) keep them in a :class:`DailyBudget`,
counted in world days, and mark their refusals ``request[THROTTLED] = "budget"``.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from .service import Limit, ServiceSpec

JITTER_S = 0.010
"""Default real-time tolerance subtracted from every rate window (see module docs)."""

THROTTLED = web.RequestKey("world_throttled", str)
"""Why the world refused a request: ``"rate"``, ``"concurrency"`` (here) or ``"budget"``
(OpenAlex's daily credits). Read by the request log."""



@dataclass(frozen=True, slots=True)
class WorldClock:
    """The world's time: real monotonic seconds, and world seconds ``time_scale`` times
    faster, counted from ``started``."""

    time_scale: float = 1.0
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if not self.time_scale > 0 or math.isinf(self.time_scale):
            raise ValueError(f"time_scale must be a positive number, got {self.time_scale!r}")

    @staticmethod
    def now() -> float:
        """Real monotonic time (what request log entries carry)."""
        return time.monotonic()

    def elapsed(self, now: float | None = None) -> float:
        """World seconds since the world started."""
        return ((self.now() if now is None else now) - self.started) * self.time_scale

    def real(self, world_seconds: float) -> float:
        """Real seconds that ``world_seconds`` of world time take."""
        return world_seconds / self.time_scale


CLOCK = web.AppKey("world_clock", WorldClock)
BUDGETS_ENFORCED = web.AppKey("world_budgets_enforced", bool)
"""False when the world serves without daily budgets (OpenAlex credits, Google Books'
queries per day): a cache warm-up, not a test of budgets."""
"""The world clock on the root application (services read it via ``config_dict``)."""


def clock_of(request: web.Request) -> WorldClock:
    """The clock of the world serving ``request`` (an unscaled clock when a service app
    runs on its own, outside the world)."""
    clock = request.config_dict.get(CLOCK)
    return clock if clock is not None else _STANDALONE


_STANDALONE = WorldClock()


def retry_after_header(seconds: float) -> str:
    """A ``Retry-After`` value for ``seconds`` of real time: an integer when whole (as
    HTTP has it), else a decimal — a scaled world's liberty, which the engine parses."""
    if seconds == int(seconds):
        return str(int(seconds))
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


def whole_world_seconds(clock: WorldClock, real_seconds: float) -> float:
    """``real_seconds`` rounded up to whole world seconds (at least 1), back in real
    seconds: how a service rounds the Retry-After it announces."""
    world = max(1, math.ceil(real_seconds * clock.time_scale - 1e-9))
    return clock.real(world)


class SlidingWindow:
    """At most ``capacity`` admissions within any ``span`` seconds (a log of admissions)."""

    __slots__ = ("_admitted", "capacity", "span")

    def __init__(self, limit: Limit, clock: WorldClock, jitter_s: float) -> None:
        self.capacity = max(1, math.floor(limit.rate))
        period = clock.real(limit.period_s * self.capacity / limit.rate)
        self.span = max(period - jitter_s, period / 2)
        self._admitted: deque[float] = deque()

    def __repr__(self) -> str:
        return f"<SlidingWindow {len(self._admitted)}/{self.capacity} in {self.span:.3f}s>"

    def admit(self, now: float) -> float | None:
        """Admit a request arriving at ``now`` (None), or refuse it: the seconds until
        the window would admit one."""
        while self._admitted and now - self._admitted[0] >= self.span:
            self._admitted.popleft()
        if len(self._admitted) < self.capacity:
            self._admitted.append(now)
            return None
        return self._admitted[0] + self.span - now


Key = tuple[str, str, str]
"""(service, pool, request class)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why and for how long a request was refused."""

    reason: str
    """``"rate"`` or ``"concurrency"``."""
    retry_after: float
    """Real seconds, rounded up to whole world seconds."""


class Limiter:
    """The rate windows and in-flight counts of every (service, pool, class) of a world.

    Not bound to an event loop (no asyncio objects): plain counters read and written
    from the loop's one thread.
    """

    __slots__ = ("_in_flight", "_windows", "clock", "jitter_s")

    def __init__(self, clock: WorldClock, jitter_s: float = JITTER_S) -> None:
        if jitter_s < 0:
            raise ValueError(f"jitter_s must be >= 0, got {jitter_s!r}")
        self.clock = clock
        self.jitter_s = jitter_s
        self._windows: dict[Key, SlidingWindow] = {}
        self._in_flight: dict[Key, int] = {}

    def __repr__(self) -> str:
        return f"<Limiter time_scale={self.clock.time_scale:g} {len(self._windows)} counters>"

    def in_flight(self, key: Key) -> int:
        return self._in_flight.get(key, 0)

    def acquire(self, key: Key, limit: Limit, now: float) -> Refusal | None:
        """Admit one request (None: the caller must :meth:`release` it when answered) or
        refuse it."""
        in_flight = self._in_flight.get(key, 0)
        if limit.concurrency is not None and in_flight >= limit.concurrency:
            interval = self.clock.real(limit.period_s / limit.rate)
            return Refusal("concurrency", whole_world_seconds(self.clock, interval))
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = SlidingWindow(limit, self.clock, self.jitter_s)
        wait = window.admit(now)
        if wait is not None:
            return Refusal("rate", whole_world_seconds(self.clock, wait))
        self._in_flight[key] = in_flight + 1
        return None

    def release(self, key: Key) -> None:
        self._in_flight[key] -= 1


def limits_middleware(
    service_of: Callable[[web.Request], ServiceSpec | None], limiter: Limiter
) -> Middleware:
    """Root middleware enforcing each service's limits (``service_of`` finds the
    service a request is for; requests outside every service pass untouched)."""

    @web.middleware
    async def enforce_limits(request: web.Request, handler: Handler) -> web.StreamResponse:
        spec = service_of(request)
        if spec is None:
            return await handler(request)
        pool, request_class, limit = spec.limit_for(request)
        key = (spec.name, pool, request_class)
        refusal = limiter.acquire(key, limit, limiter.clock.now())
        if refusal is not None:
            request[THROTTLED] = refusal.reason
            return spec.throttled(refusal.retry_after)
        try:
            return await handler(request)
        finally:
            limiter.release(key)

    return enforce_limits


WORLD_DAY_S = 86_400.0
"""A world day, in world seconds (daily budgets reset at its end)."""


@dataclass(frozen=True, slots=True)
class BudgetCharge:
    """The outcome of charging a daily budget."""

    accepted: bool
    remaining: float
    """What is left of the day's allowance after the charge (before it, if refused)."""
    reset_after: float
    """Real seconds until the world day ends and the allowance is whole again."""


class DailyBudget:
    """Daily allowances per identity (an API key, or a shared keyless identity), counted
    in world days: day 0 starts with the world, each lasts :data:`WORLD_DAY_S` world
    seconds (so ``time_scale`` shortens it too)."""

    __slots__ = ("_used", "day_s")

    def __init__(self, day_s: float = WORLD_DAY_S) -> None:
        if day_s <= 0:
            raise ValueError(f"day_s must be > 0, got {day_s!r}")
        self.day_s = day_s
        self._used: dict[str, tuple[int, float]] = {}

    def __repr__(self) -> str:
        return f"<DailyBudget {len(self._used)} identities>"

    def charge(self, clock: WorldClock, identity: str, allowance: float, cost: float,
               now: float | None = None) -> BudgetCharge:
        """Spend ``cost`` of ``identity``'s ``allowance`` for today, unless it would
        overspend (then nothing is spent)."""
        elapsed = clock.elapsed(now)
        day = int(elapsed // self.day_s)
        used_day, used = self._used.get(identity, (day, 0.0))
        if used_day != day:
            used = 0.0
        remaining = allowance - used
        reset_after = clock.real(self.day_s - elapsed % self.day_s)
        if cost > remaining:
            return BudgetCharge(False, remaining, reset_after)
        self._used[identity] = (day, used + cost)
        return BudgetCharge(True, remaining - cost, reset_after)
