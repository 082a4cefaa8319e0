"""What every request to a source goes through: cache, single flight, pacing and retries.

:meth:`SourceClient.query` is the only way the engine talks to a source. For one
adapter-built request it:

1. answers from the disk cache when it can (no request sent);
2. joins an identical request already in flight instead of sending another;
3. otherwise sends through the source's :class:`~verifier.pacing.SourceGate`, retrying
   429, 5xx, connection failures and unreadable bodies with exponential backoff and full
   jitter. A 429 pauses the whole source for its ``Retry-After`` (seconds or HTTP-date),
   or for the policy's default pause; a wait that does not fit the caller's deadline is
   not made, and the failure is returned at once;
4. parses with the adapter and stores the raw response in the cache: answers with
   records for the positive TTL, the service's "not found" for the negative TTL; errors
   and throttling never.

Failures surface as :class:`~verifier.errors.SourceError` subclasses; the caller turns
them into values.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
from dataclasses import dataclass
from datetime import UTC, datetime

from adapters.base import Identity, SourceAdapter
from verifier.errors import (
    BudgetSpent,
    CircuitOpen,
    DeadlineExceeded,
    MalformedResponse,
    RateLimited,
    RequestTimeout,
    ServerError,
    SourceError,
    TransportError,
    UnexpectedStatus,
)
from verifier.http.cache import ResponseCache
from verifier.http.gate import SourceGate
from verifier.http.transport import HttpRequest, HttpResponse, Transport

from .models import WorkRecord


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP-date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@dataclass(frozen=True, slots=True)
class QueryResult:
    records: list[WorkRecord]
    requests: int
    """Requests this call sent to the network (0 for a cache hit or a joined flight)."""
    cached: bool


@dataclass(frozen=True, slots=True)
class CachePolicy:
    read: bool
    positive_ttl_s: float
    negative_ttl_s: float


@dataclass(frozen=True, slots=True)
class _Answer:
    """One request's answer: its records, the follow-up it calls for, what it cost."""

    records: list[WorkRecord]
    follow_up: HttpRequest | None
    requests: int
    cached: bool


class _Flight:
    """One request in flight, shared by every caller that asked for the same thing."""

    __slots__ = ("task", "waiters")

    def __init__(self, task: asyncio.Task[_Answer]) -> None:
        self.task = task
        self.waiters = 0


class SourceClient:
    """One source's client for the engine. Created inside the running loop."""

    def __init__(
        self,
        adapter: SourceAdapter,
        *,
        base_url: str,
        identity: Identity,
        gate: SourceGate,
        transport: Transport,
        cache: ResponseCache | None,
        cache_policy: CachePolicy,
    ) -> None:
        self.adapter = adapter
        self.name = adapter.name
        self.base_url = base_url
        self.identity = identity
        self.gate = gate
        self._transport = transport
        self._cache = cache
        self._cache_policy = cache_policy
        self._flights: dict[str, _Flight] = {}
        self._loop = asyncio.get_running_loop()

    async def query(self, request: HttpRequest, deadline: float) -> QueryResult:
        """Records for ``request`` (best first, ``[]`` for "not found"); raises SourceError.

        When the adapter asks for a follow-up (PubMed: ids first, records second), it is
        made here, through the same cache and pacing, and its records are the answer."""
        first = await self._answer(request, deadline)
        if first.follow_up is None:
            return QueryResult(first.records, first.requests, first.cached)
        try:
            second = await self._answer(first.follow_up, deadline)
        except SourceError as exc:
            exc.requests += first.requests
            raise
        return QueryResult(
            second.records, first.requests + second.requests, first.cached and second.cached
        )

    async def _answer(self, request: HttpRequest, deadline: float) -> _Answer:
        key = request.cache_key()
        if self._cache is not None and self._cache_policy.read:
            cached = await self._cache.get(self.name, key)
            if cached is not None:
                try:
                    records = self.adapter.parse(request, cached)
                except SourceError:
                    pass  # an entry the current parser cannot read is a miss
                else:
                    self.gate.stats.cache_hits += 1
                    follow_up = self.adapter.follow_up(request, cached)
                    return _Answer(records, follow_up, 0, True)
        flight = self._flights.get(key)
        joined = flight is not None
        if flight is None:
            flight = _Flight(asyncio.create_task(self._fetch(request, key, deadline)))
            self._flights[key] = flight
            flight.task.add_done_callback(lambda _t: self._flights.pop(key, None))
        flight.waiters += 1
        try:
            answer = await asyncio.shield(flight.task)
        except asyncio.CancelledError:
            flight.waiters -= 1
            if flight.waiters == 0 and not flight.task.done():
                # Nobody wants the answer any more: do not leave the request running.
                flight.task.cancel()
                await asyncio.gather(flight.task, return_exceptions=True)
            raise
        flight.waiters -= 1
        if joined:
            return _Answer(answer.records, answer.follow_up, 0, False)
        return answer

    async def _fetch(self, request: HttpRequest, key: str, deadline: float) -> _Answer:
        policy = self.gate.policy
        stats = self.gate.stats
        sent = 0
        attempt = 0
        while True:
            attempt += 1
            failure: SourceError
            try:
                response = await self._send(request, deadline)
                sent += 1
                records = self._read(request, response)
            except (TransportError, RateLimited, ServerError, MalformedResponse) as exc:
                failure = exc
                if isinstance(exc, TransportError):
                    sent += 1
            except (UnexpectedStatus, DeadlineExceeded, CircuitOpen, BudgetSpent) as exc:
                # None is helped by trying again now, and none says the source is unwell.
                stats.failures += 1
                exc.requests = sent
                raise
            else:
                self.gate.record_success()
                follow_up = self.adapter.follow_up(request, response)
                await self._store(key, response, positive=bool(records) or follow_up is not None)
                return _Answer(records, follow_up, sent, False)
            if not isinstance(failure, RateLimited):
                # Throttling pauses the source (above); the breaker is for a source that
                # is down or broken.
                self.gate.record_failure(failure)
            if attempt == 1:
                # Retries get the source's budget, counted from the first failure: the
                # time spent queueing for our own rate limit before it does not count.
                deadline = min(deadline, self._loop.time() + policy.source_budget_s)
            delay = self._backoff(attempt, failure)
            if attempt >= policy.max_attempts or self._loop.time() + delay >= deadline:
                stats.failures += 1
                failure.requests = sent
                raise failure
            stats.retries += 1
            await asyncio.sleep(delay)

    async def _send(self, request: HttpRequest, deadline: float) -> HttpResponse:
        async with self.gate.slot(request.request_class, deadline, request.cost):
            remaining = deadline - self._loop.time()
            if remaining <= 0:
                raise DeadlineExceeded(f"{self.name}: deadline reached before sending")
            stats = self.gate.stats
            stats.requests += 1
            paced_as = self.gate.class_of(request.request_class)
            stats.by_class[paced_as] = stats.by_class.get(paced_as, 0) + 1
            timeout = min(self.gate.policy.request_timeout_s, remaining)
            try:
                async with asyncio.timeout(timeout):
                    return await self._transport.send(self.base_url, request)
            except TimeoutError:
                raise RequestTimeout(f"{self.name}: no answer within {timeout:.1f}s") from None

    def _read(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        """Read one response: throttling and server errors raise, the rest is parsed."""
        hint = self.adapter.rate_hint(response)
        if hint is not None:
            self.gate.apply_hint(hint)
        if response.status == 429:
            return self._throttled(response)
        if response.status >= 500:
            raise ServerError(f"{self.name}: HTTP {response.status}", response.status)
        try:
            return self.adapter.parse(request, response)
        except RateLimited as exc:
            # Throttling reported inside a 200 body (PubMed does this).
            self.gate.stats.throttled += 1
            self.gate.pause(exc.retry_after or self.gate.policy.default_pause_s)
            raise

    def _throttled(self, response: HttpResponse) -> list[WorkRecord]:
        self.gate.stats.throttled += 1
        retry_after = parse_retry_after(response.header("retry-after"))
        self.gate.pause(self.gate.policy.default_pause_s if retry_after is None else retry_after)
        detail = f" (Retry-After {retry_after:.1f}s)" if retry_after is not None else ""
        raise RateLimited(f"{self.name}: HTTP 429{detail}", retry_after)

    def _backoff(self, attempt: int, failure: SourceError) -> float:
        """Full jitter; after a 429 the source pause is the real wait, so the sleep only
        has to reach it."""
        policy = self.gate.policy
        ceiling = min(policy.backoff_cap_s, policy.backoff_base_s * 2 ** (attempt - 1))
        delay = random.uniform(0, ceiling)
        if isinstance(failure, RateLimited):
            delay = max(delay, self.gate.paused_for())
        return delay

    async def _store(self, key: str, response: HttpResponse, *, positive: bool) -> None:
        if self._cache is None:
            return
        ttl = self._cache_policy.positive_ttl_s if positive else self._cache_policy.negative_ttl_s
        await self._cache.put(self.name, key, response, ttl)
