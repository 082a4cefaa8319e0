"""Per-source pacing state: rate classes, concurrency, pauses and the circuit breaker.

One :class:`SourceGate` exists per source per engine, created inside the running loop
(its limiters are bound to that loop). Every request to the source passes through
:meth:`SourceGate.slot`, which waits, in order, for:

1. the end of any pause of the whole source (a 429, a spent budget), or the breaker;
2. a concurrency slot of the source and of the request's rate class;
3. the class's rate token (requests are spaced evenly: no bursts above the rate);
4. where the policy has a weighted limit (a model endpoint's tokens per minute), the
   request's ``weight`` from that bucket: the same leaky bucket as the rates, with a
   capacity of one period's worth. A weight above the capacity waits for a full bucket
   and empties it; what the service reports using beyond the estimate is charged after
   the answer (:meth:`SourceGate.charge`).

A wait that would cross the caller's deadline fails at once, so a citation never hangs
on a source that cannot serve it in time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from verifier.errors import BudgetSpent, CircuitOpen, DeadlineExceeded, FailureKind, SourceError

from .deadline import Deadline, as_deadline
from .imports import imported
from .policy import RateClass, RateHint, SourcePolicy
from .stats import SourceStats

if TYPE_CHECKING:
    from aiolimiter import AsyncLimiter


def _without_name(message: str, name: str) -> str:
    prefix = f"{name}: "
    return message[len(prefix):] if message.startswith(prefix) else message


class ConcurrencyLimit:
    """A semaphore whose limit can be lowered while in use (rate headers may ask for it)."""

    __slots__ = ("_limit", "_in_use", "_changed")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"concurrency limit must be >= 1, got {limit}")
        self._limit = limit
        self._in_use = 0
        self._changed = asyncio.Condition()

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def in_use(self) -> int:
        return self._in_use

    async def acquire(self) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self._in_use < self._limit)
            self._in_use += 1

    async def release(self) -> None:
        async with self._changed:
            self._in_use -= 1
            self._changed.notify_all()

    def lower_to(self, limit: int) -> None:
        self._limit = max(1, min(self._limit, limit))

    def __repr__(self) -> str:
        return f"<ConcurrencyLimit {self._in_use}/{self._limit}>"


def _spacing_limiter(rate_class: RateClass) -> AsyncLimiter:
    # One token per interval: even spacing, so no window of period_s ever sees more than
    # `rate` requests (a bucket of size `rate` would allow twice that across a boundary).
    from aiolimiter import AsyncLimiter  # imported (off the loop) by _limiter first

    return AsyncLimiter(1, rate_class.period_s / rate_class.rate)


class SourceGate:
    """Pacing and health of one source, shared by every citation of the run."""

    def __init__(
        self,
        name: str,
        policy: SourcePolicy,
        stats: SourceStats,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        """``notice`` is told, once per outage, that the source is down and why (the
        session passes :meth:`RunStats.notice <verifier.http.stats.RunStats.notice>`)."""
        self.name = name
        self.policy = policy
        self.stats = stats
        self._notice = notice
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._source_limit = ConcurrencyLimit(policy.max_concurrency)
        self._class_limits = {n: ConcurrencyLimit(c.concurrency) for n, c in policy.classes.items()}
        self._rates = dict(policy.classes)
        self._limiters: dict[str, AsyncLimiter] = {}
        """Each rate class's limiter, made when its first request is sent (a run the cache
        answers imports no limiter library), and made anew when its rate changes."""
        self._paused_until = 0.0
        self._pause_cause = FailureKind.RATE_LIMITED
        self._consecutive_failures = 0
        self._breaker_open_until = 0.0
        self._breaker_cause = FailureKind.ERROR
        self._first_cause = ""
        """The first failure of the current run of failures, in words: what a user needs
        to know about a down source (not "circuit open")."""
        self._openings = 0
        """Times the breaker opened since the last success: from the second on (a probe
        after a rest failed too), the source is down and requests fail at once."""
        self._budget_until = 0.0
        self._budget_message = ""
        self._spent = 0.0
        self._weighted_bucket: AsyncLimiter | None = None

    # -- waiting -------------------------------------------------------------------------

    @asynccontextmanager
    async def slot(
        self, request_class: str, deadline: float | Deadline, cost: float = 0.0,
        weight: float = 0.0,
    ) -> AsyncIterator[None]:
        """Hold a send slot for one request of ``request_class``; raises a SourceError
        (``CircuitOpen``, ``DeadlineExceeded``, ``BudgetSpent``) instead of waiting past
        ``deadline`` or spending past the daily budget.

        Waiting for our own limits (concurrency slots, rate tokens, the weighted bucket)
        stops the clock of a :class:`~verifier.http.deadline.Deadline` and is not bounded
        by it (its owner's scope still is); a fixed deadline (a loop time) bounds every
        wait. A pause or an open breaker is waited out only if it ends before the
        deadline."""
        name = self.class_of(request_class)
        due = as_deadline(deadline)
        self._charge(cost)
        await self._wait_for_pause(due)
        await self._own_wait(due, self._source_limit.acquire(), "no free slot")
        try:
            await self._own_wait(due, self._class_limits[name].acquire(), "no free slot")
            try:
                while True:
                    limiter = await self._limiter(name)
                    await self._own_wait(due, limiter.acquire(), "rate limit leaves no time")
                    # While we queued, a 429 may have paused the source, its breaker may
                    # have opened, or rate headers may have slowed it down: then queue
                    # again under the new terms.
                    if self._loop.time() < max(self._paused_until, self._breaker_open_until):
                        await self._wait_for_pause(due)
                    elif limiter is self._limiters.get(name):
                        break
                weighted = await self._weighted()
                if weighted is not None and weight > 0:
                    await self._own_wait(
                        due, weighted.acquire(min(weight, weighted.max_rate)),
                        "weighted limit leaves no time")
                yield
            finally:
                await self._class_limits[name].release()
        finally:
            await self._source_limit.release()

    async def _own_wait(self, deadline: Deadline, wait: Awaitable[object], what: str) -> None:
        """Wait for one of our own limits, the deadline's clock stopped meanwhile."""
        with deadline.queued():
            try:
                async with asyncio.timeout_at(deadline.when if deadline.is_fixed else None):
                    await wait
            except TimeoutError:
                raise DeadlineExceeded(f"{self.name}: {what} before the deadline") from None

    async def charge(self, weight: float) -> None:
        """Take ``weight`` more from the weighted bucket (a service reported using more
        than the estimate); waits while the bucket is empty, so the next requests do not
        overrun the limit."""
        weighted = await self._weighted()
        if weighted is None or weight <= 0:
            return
        while weight > 0:
            step = min(weight, weighted.max_rate)
            await weighted.acquire(step)
            weight -= step

    def _charge(self, cost: float) -> None:
        budget = self.policy.daily_budget
        if budget is None or cost <= 0:
            return
        if self._loop.time() < self._budget_until:
            self.stats.paused = True
            raise BudgetSpent(self._budget_message)
        if self._spent + cost > budget:
            hint = f"; {self.policy.budget_hint}" if self.policy.budget_hint else ""
            message = f"{self.name}: daily budget of {budget:g} spent in this run{hint}"
            self.stats.paused = True
            raise BudgetSpent(message)
        self._spent += cost

    async def _wait_for_pause(self, deadline: Deadline) -> None:
        """Wait out a pause of the whole source or an open breaker, if that fits the
        deadline; otherwise fail at once (``CircuitOpen``, or ``DeadlineExceeded`` with
        the pause's cause)."""
        waited = False
        while True:
            now = self._loop.time()
            until = max(self._paused_until, self._breaker_open_until)
            if now >= until:
                break
            breaker = self._breaker_open_until >= self._paused_until
            if breaker and (self._openings > 1 or until > deadline.when):
                # Down (a probe after a rest failed too), or resting past the deadline:
                # fail now, with the real cause, rather than make each citation wait.
                raise CircuitOpen(self._down_message(now), self._breaker_cause)
            if until > deadline.when:
                raise DeadlineExceeded(
                    f"{self.name}: paused for {self._paused_until - now:.1f}s, past the deadline",
                    self._pause_cause,
                )
            self.stats.paused = waited = True
            # Another 429 or failure may extend the wait while we sleep: check again.
            await asyncio.sleep(until - now)
        if waited:
            self.stats.paused = False

    # -- what answers teach us -------------------------------------------------------------

    def pause(self, seconds: float, cause: FailureKind = FailureKind.RATE_LIMITED) -> None:
        """Stop every request to the source for ``seconds`` (from now)."""
        until = self._loop.time() + max(0.0, seconds)
        if until > self._paused_until:
            self._paused_until = until
            self._pause_cause = cause

    def paused_for(self) -> float:
        return max(0.0, self._paused_until - self._loop.time())

    @property
    def breaker_open(self) -> bool:
        """True while the circuit breaker keeps the source closed (for metrics)."""
        return self._loop.time() < self._breaker_open_until

    def record_success(self) -> None:
        self._consecutive_failures = 0
        self._openings = 0
        self._first_cause = ""

    def record_failure(self, error: SourceError) -> None:
        """Count one failed request; the breaker opens after the policy's threshold in a
        row. The first failure of the run is kept as the cause every later failure of
        the source reports."""
        if self._consecutive_failures == 0 or not self._first_cause:
            self._first_cause = _without_name(str(error), self.name)
        self._consecutive_failures += 1
        if self._consecutive_failures < self.policy.breaker_threshold:
            return
        now = self._loop.time()
        if now >= self._breaker_open_until:  # not already open (concurrent failures)
            self._openings += 1
        self._breaker_open_until = now + self.policy.breaker_cooldown_s
        self._breaker_cause = error.kind
        # Half-open after the cooldown: the next failure re-opens it at once.
        self._consecutive_failures = self.policy.breaker_threshold - 1
        if self._notice is not None:
            self._notice(
                f"{self.name}: not answering: {self._first_cause}. It is rested and tried "
                f"again every {self.policy.breaker_cooldown_s:g}s; meanwhile its results "
                "are errors (never misses)"
            )

    def _down_message(self, now: float) -> str:
        return (
            f"{self.name}: {self._first_cause or 'failing'} (circuit open after "
            f"{self.policy.breaker_threshold} failures in a row; next try in "
            f"{max(0.0, self._breaker_open_until - now):.0f}s)"
        )

    def apply_hint(self, hint: RateHint) -> None:
        """Slow down to what the service says it allows; never speed up past the policy."""
        targets = [hint.request_class] if hint.request_class else list(self._rates)
        for name in targets:
            if name not in self._rates:
                continue
            current = self._rates[name]
            if hint.limit and hint.interval_s:
                advertised = hint.limit / hint.interval_s
                if advertised < current.per_second:
                    self._rates[name] = RateClass(hint.limit, hint.interval_s, current.concurrency)
                    self._limiters.pop(name, None)  # the next request makes it anew
            if hint.concurrency:
                self._class_limits[name].lower_to(hint.concurrency)
        if hint.remaining is not None and hint.remaining <= 0 and hint.reset_s:
            if self.policy.daily_budget is not None:
                self.budget_spent(hint.reset_s)
            else:
                self.pause(hint.reset_s)

    def budget_spent(self, reset_s: float) -> None:
        """The service says the daily budget is spent (by this run or an earlier process)
        for ``reset_s`` more seconds: requests that cost budget are not sent until then,
        each failing with one and the same :class:`BudgetSpent` text, "daily budget spent
        until <time> UTC"."""
        until = self._loop.time() + reset_s
        if until <= self._budget_until:
            return
        self._budget_until = until
        when = datetime.now(UTC) + timedelta(seconds=reset_s)
        hint = f"; {self.policy.budget_hint}" if self.policy.budget_hint else ""
        self._budget_message = (
            f"{self.name}: daily budget spent until {when:%Y-%m-%d %H:%M} UTC "
            f"(the service says so){hint}"
        )

    @property
    def budget_message(self) -> str | None:
        """Why budgeted requests are not sent now, or None while the budget lasts."""
        return self._budget_message if self._loop.time() < self._budget_until else None

    def class_of(self, request_class: str) -> str:
        """The policy class a request of ``request_class`` is paced under."""
        return request_class if request_class in self._rates else next(iter(self._rates))

    async def _limiter(self, name: str) -> AsyncLimiter:
        """The rate class ``name``'s limiter at its current rate (made on first use: the
        limiter library is imported on a worker thread, as an import reads files)."""
        limiter = self._limiters.get(name)
        if limiter is None:
            await imported("aiolimiter")
            # Another request may have made it meanwhile: there is one per class.
            limiter = self._limiters.get(name)
            if limiter is None:
                limiter = self._limiters[name] = _spacing_limiter(self._rates[name])
        return limiter

    async def _weighted(self) -> AsyncLimiter | None:
        """The weighted bucket (a model endpoint's tokens per minute), if the policy has
        one: the same leaky bucket as the rates, with one period's worth of capacity."""
        weighted = self.policy.weighted
        if weighted is None:
            return None
        if self._weighted_bucket is None:
            limiter_module = await imported("aiolimiter")
            if self._weighted_bucket is None:
                self._weighted_bucket = limiter_module.AsyncLimiter(
                    weighted.rate, weighted.period_s)
        return self._weighted_bucket

    def __repr__(self) -> str:
        return (
            f"<SourceGate {self.name} {self._source_limit!r} "
            f"paused_for={self.paused_for():.1f}s failures={self._consecutive_failures}>"
        )
