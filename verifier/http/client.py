"""What every request to a service goes through: cache, single flight, gate, retries.

:class:`PacedClient` is the one way the engine talks to a service, bibliographic database
or language-model endpoint alike. For one request it:

1. answers from the cache when it can (no request sent): first from a bounded memo of
   decoded answers (:data:`MEMO_SIZE`, least recently used out; an answer read or stored
   in this client is served from it for the client's life), then from the disk cache,
   read on the loop's thread when that can be done at once and on its worker thread
   otherwise; entries are keyed on the service's base URL as well, so a stand-in's
   answers are never served as the real service's;
2. joins an identical request already in flight (a worker-thread cache read included)
   instead of sending another; each waiter
   is bounded by its own deadline, and a waiter whose deadline outlives a flight that ran
   out of time asks again;
3. otherwise sends through the service's :class:`~verifier.http.gate.SourceGate` (pause,
   breaker, concurrency, rate and weighted limits), retrying what the reader calls
   transient (429, 5xx, connection failures, unreadable bodies) with exponential backoff
   and full jitter. A 429 pauses the whole service for its ``Retry-After`` (seconds or
   HTTP-date) or the policy's default pause; a wait that does not fit the caller's
   deadline is not made, and the failure is returned at once;
4. reads the answer with the service's :class:`ResponseReader` and stores the raw
   response in the cache for the TTL the reader's verdict calls for (answers for the
   positive TTL, "not found" for the negative TTL, never when that TTL is 0; errors and
   throttling never).

A reader may also *classify* a response before the default status handling (an optional
``classify(request, response) -> Classified | None`` method, called once for every
response that arrives from the network and never for a cached one). Model endpoints use
it: their 429s are of three kinds (throttled with a stated wait, "Request too large",
quota) and only the first may be retried, and some 200s (a refusal, a reply cut at its
token limit) are final failures that retrying the same request cannot fix.

The client knows nothing of citations or premises: what a response means is the reader's
business (:class:`ResponseReader`), and failures are :class:`~verifier.errors.SourceError`
values with a neutral kind that each pipeline maps to its own status.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Generic, Protocol, TypeVar

from verifier.errors import (
    BudgetSpent,
    CircuitOpen,
    DeadlineExceeded,
    FailureKind,
    MalformedResponse,
    RateLimited,
    RequestTimeout,
    ServerError,
    SourceError,
    TransportError,
    UnexpectedStatus,
)

from .cache import UNDECIDED, ResponseCache
from .cached_answers import CachedAnswers
from .cached_answers import Fetched as Fetched  # the client's answer, made there (compiled)
from .cached_answers import flight_key as _flight_key
from .deadline import Deadline, as_deadline
from .gate import SourceGate
from .policy import RateHint
from .redact import redact
from .retry import backoff_delay, parse_retry_after
from .transport import HttpRequest, HttpResponse, Transport

T = TypeVar("T")


class _NotCached:
    """The type of :data:`NOT_CACHED`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_CACHED"


NOT_CACHED: Final = _NotCached()
""":meth:`PacedClient.fetch_now`'s answer when the cache was read and holds no answer it
can give: the :meth:`~PacedClient.fetch` that follows, told so (``cache_missed``), does
not read the disk again."""

MEMO_SIZE = 1024
"""Decoded answers each client keeps in memory in front of the disk cache (least recently
used first out). An entry is the raw response (0.5–3.5 KB on average per source on the
W&W run) and what the reader made of it, so a full memo is some megabytes per client;
1,024 holds every answer of a 636-citation run (at most 585 requests per source)."""


def _redact_error(exc: SourceError, secrets: tuple[str, ...]) -> None:
    """Redact ``exc``'s message in place (an adapter may quote a body that echoes a key)."""
    if exc.args and isinstance(exc.args[0], str):
        exc.args = (redact(exc.args[0], secrets), *exc.args[1:])


class ResponseReader(Protocol[T]):
    """What one service's answers mean: the only service-specific part of a client.

    ``read`` turns a response the client did not treat as throttling or a server error
    into a value, or raises ``MalformedResponse`` (retried: often a truncated body),
    ``UnexpectedStatus`` (not retried) or ``RateLimited`` (throttling inside a 200).
    ``cacheable`` says whether the value is an answer worth the positive TTL (``True``) or
    the service's "not found" (``False``: the negative TTL). ``rate_hint`` reads the
    service's rate-limit headers, if it sends any.
    """

    def read(self, request: HttpRequest, response: HttpResponse) -> T: ...

    def positive(self, value: T) -> bool: ...

    def rate_hint(self, response: HttpResponse) -> RateHint | None: ...


class Outcome(StrEnum):
    """What a reader's ``classify`` says one network response is."""

    THROTTLED = "throttled"
    """Too many requests: pause the whole service for ``wait_s`` (or the policy's default
    pause) and retry within the deadline."""
    SERVER_ERROR = "server_error"
    """The service is unwell: retry with backoff; counts towards the breaker."""
    FINE = "fine"
    """Read it with ``read``, skipping the default 429/5xx handling."""
    REJECTED = "rejected"
    """A final answer that retrying cannot change: raise ``error``, never retry."""


@dataclass(frozen=True, slots=True)
class Classified:
    """A reader's classification of one response (see :class:`Outcome`)."""

    outcome: Outcome
    message: str = ""
    wait_s: float | None = None
    """THROTTLED: the wait the service stated, in seconds (None: the default pause)."""
    error: SourceError | None = None
    """REJECTED: the error to raise (default: ``UnexpectedStatus`` with the message)."""


class _Final(Exception):
    """Carries a rejected response's error past the retry loop."""

    def __init__(self, error: SourceError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True, slots=True)
class CachePolicy:
    read: bool
    positive_ttl_s: float
    negative_ttl_s: float


class _Flight(Generic[T]):
    """One request in flight, shared by every caller that asked for the same thing."""

    __slots__ = ("deadline", "task", "waiters")

    def __init__(self, task: asyncio.Task[Fetched[T]], deadline: Deadline) -> None:
        self.task = task
        self.waiters = 0
        self.deadline = deadline


class PacedClient:
    """One service's client. Created inside the running loop; shared by every pipeline of
    a session, so they all stay within the service's one set of limits. Each call names
    the reader of its answer (a service may serve several formats through one set of
    limits: a model endpoint's chat and decisions)."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str,
        gate: SourceGate,
        transport: Transport,
        cache: ResponseCache | None,
        cache_policy: CachePolicy,
        rng: random.Random | None = None,
        cache_scope: str | None = None,
    ) -> None:
        """``cache_scope`` names the cache namespace (default ``name``): a model endpoint
        scopes its answers by its base URL, so two endpoints serving a model of the same
        name never share answers."""
        self.name = name
        self.cache_scope = cache_scope or name
        self.base_url = base_url
        self.gate = gate
        self._transport = transport
        self._cache = cache
        self._cache_policy = cache_policy
        self._rng = rng
        self._flights: dict[str, _Flight[Any]] = {}
        self._answers = CachedAnswers(cache, scope=self.cache_scope, origin=base_url,
                                      gate=gate, memo_size=MEMO_SIZE)
        """The memo and the disk read on this thread (step 1 of the module docstring)."""
        self._loop = asyncio.get_running_loop()

    async def fetch(
        self, request: HttpRequest, deadline: float | Deadline, reader: ResponseReader[T],
        *, cache_missed: bool = False,
    ) -> Fetched[T]:
        """``reader``'s value for ``request``; raises SourceError, whose text never holds
        a credential (:func:`~verifier.http.redact.redact`, with the request's keys).

        ``deadline`` is a loop time, or a :class:`~verifier.http.deadline.Deadline` whose
        clock stops while the request only queues for our own limits. ``cache_missed``
        says :meth:`fetch_now` has just answered :data:`NOT_CACHED` for this request: the
        disk cache is not read again (the memo of answers still is, and a flight in the
        air is still joined), as if this read were that one."""
        due = as_deadline(deadline)
        try:
            with due.request():
                return await self._fetch_shared(request, due, reader, cache_missed)
        except SourceError as exc:
            _redact_error(exc, request.secrets())
            raise

    def fetch_now(
        self, request: HttpRequest, reader: ResponseReader[T]
    ) -> Fetched[T] | _NotCached | None:
        """``reader``'s value for ``request`` when the cache can give it at once (the
        decoded answers in memory, or the disk cache read on this thread);
        :data:`NOT_CACHED` when the cache was read and cannot give it (a miss, counted,
        or an entry the reader refuses); None when it could not be read at once or is not
        to be read. After either, :meth:`fetch` it (with ``cache_missed=True`` after
        :data:`NOT_CACHED`). Never waits, never sends, never raises; a hit is counted as
        :meth:`fetch` counts it. For callers that would otherwise start a task only to
        read the cache."""
        if self._cache is None or not self._cache_policy.read:
            return None
        key = request.cache_key()
        found = self._answers.now(request, key, _flight_key(reader, key), reader, True)
        if found is None:
            return NOT_CACHED
        return None if found is UNDECIDED else found

    async def _fetch_shared(
        self, request: HttpRequest, deadline: Deadline, reader: ResponseReader[T],
        cache_missed: bool,
    ) -> Fetched[T]:
        key = request.cache_key()
        flight = _flight_key(reader, key)
        cached: Fetched[T] | None | Any = None
        if self._cache is not None and self._cache_policy.read:
            cached = (self._answers.remembered(flight) if cache_missed
                      else self._answers.now(request, key, flight, reader, True))
        if cached is not None and cached is not UNDECIDED:
            return cached
        read_disk = cached is UNDECIDED  # read on the worker, inside the flight
        while True:
            shared: _Flight[T] | None = self._flights.get(flight)
            joined = shared is not None
            if shared is None:
                shared = _Flight(
                    asyncio.create_task(
                        self._fetch_or_read(request, key, flight, deadline, reader,
                                            read_disk)),
                    deadline,
                )
                self._flights[flight] = shared
                shared.task.add_done_callback(self._forget(flight))
            try:
                answer = await self._wait(shared, deadline)
            except SourceError as exc:
                if (joined and exc.kind is FailureKind.TIMED_OUT
                        and shared.deadline.when < deadline.when
                        and self._loop.time() < deadline.when):
                    continue  # the flight ran out of its first caller's time, not ours
                raise
            if joined:
                return Fetched(answer.value, answer.response, 0, answer.cached)
            return answer

    def _forget(self, key: str) -> Callable[[asyncio.Task[Any]], None]:
        def forget(_task: asyncio.Task[Any]) -> None:
            self._flights.pop(key, None)

        return forget

    async def _wait(self, flight: _Flight[T], deadline: Deadline) -> Fetched[T]:
        flight.waiters += 1
        try:
            if deadline.when < flight.deadline.when:
                try:
                    async with asyncio.timeout_at(deadline.when):
                        return await asyncio.shield(flight.task)
                except TimeoutError:
                    raise DeadlineExceeded(
                        f"{self.name}: no answer before the deadline"
                    ) from None
            return await asyncio.shield(flight.task)
        finally:
            flight.waiters -= 1
            if flight.waiters == 0 and not flight.task.done():
                # Nobody wants the answer any more: do not leave the request running.
                flight.task.cancel()
                await asyncio.gather(flight.task, return_exceptions=True)

    async def _fetch_or_read(
        self, request: HttpRequest, key: str, flight_key: str, deadline: Deadline,
        reader: ResponseReader[T], read_disk: bool,
    ) -> Fetched[T]:
        """One flight: the disk cache on its worker thread when the loop could not read
        it at once, then the network."""
        if read_disk and self._cache is not None:
            response = await self._cache.get(self.cache_scope, key, origin=self.base_url)
            if response is not None:
                cached = self._answers.read(request, response, reader, flight_key)
                if cached is not None:
                    return cached
        return await self._fetch(request, key, deadline, reader, flight_key)

    async def _fetch(
        self, request: HttpRequest, key: str, deadline: Deadline, reader: ResponseReader[T],
        flight_key: str,
    ) -> Fetched[T]:
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
                value = self._read(request, response, reader)
            except (TransportError, RateLimited, ServerError, MalformedResponse) as exc:
                failure = exc
                if isinstance(exc, TransportError):
                    sent += 1
            except _Final as final:
                # An answer retrying cannot change (a refusal, a reply cut short, a quota).
                stats.failures += 1
                final.error.requests = sent
                raise final.error from None
            except (UnexpectedStatus, DeadlineExceeded, CircuitOpen, BudgetSpent) as exc:
                # None is helped by trying again now. Only a refusal (401, 403: a bad key,
                # a block) says the service will not serve us: that counts to the breaker.
                if isinstance(exc, UnexpectedStatus) and exc.http_status in (401, 403):
                    self.gate.record_failure(exc)
                stats.failures += 1
                exc.requests = sent
                raise
            else:
                self.gate.record_success()
                if await self._store(key, response, positive=reader.positive(value)):
                    self._answers.remember(flight_key, value, response)
                return Fetched(value, response, sent, False)
            if not isinstance(failure, RateLimited):
                # Throttling pauses the service (above); the breaker is for a service that
                # is down or broken.
                self.gate.record_failure(failure)
            if attempt == 1:
                # Retries get the service's budget, counted from the first failure: the
                # time spent queueing for our own rate limit before it does not count.
                # From here on the deadline is fixed: queueing for a retry counts.
                deadline = Deadline.fixed(
                    min(deadline.when, self._loop.time() + policy.source_budget_s))
            delay = backoff_delay(policy, attempt, failure, self.gate.paused_for(), self._rng)
            if attempt >= policy.max_attempts or self._loop.time() + delay >= deadline.when:
                stats.failures += 1
                failure.requests = sent
                raise failure
            stats.retries += 1
            await asyncio.sleep(delay)

    async def _send(self, request: HttpRequest, deadline: Deadline) -> HttpResponse:
        # Before the rate slot: a transport's first opening (aiohttp's import) must not
        # bunch the paced requests behind it, nor count against the request's timeout.
        await self._transport.prepare()
        async with self.gate.slot(request.request_class, deadline, request.cost,
                                  request.weight):
            remaining = deadline.when - self._loop.time()
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

    def _read(
        self, request: HttpRequest, response: HttpResponse, reader: ResponseReader[T]
    ) -> T:
        """Read one response: throttling and server errors raise, the rest is the reader's."""
        hint = reader.rate_hint(response)
        if hint is not None:
            self.gate.apply_hint(hint)
        classify = getattr(reader, "classify", None)
        verdict: Classified | None = classify(request, response) if classify else None
        if verdict is None:
            if response.status == 429:
                spent = self.gate.budget_message
                if spent is not None:
                    raise BudgetSpent(spent)  # not throttling: no retry, no pause, no miss
                self._throttled(response)
            if response.status >= 500:
                raise ServerError(f"{self.name}: HTTP {response.status}", response.status)
        elif verdict.outcome is Outcome.THROTTLED:
            self._throttled(response, verdict.wait_s, verdict.message)
        elif verdict.outcome is Outcome.SERVER_ERROR:
            raise ServerError(f"{self.name}: {verdict.message or response.status}",
                              response.status)
        elif verdict.outcome is Outcome.REJECTED:
            raise _Final(verdict.error or UnexpectedStatus(
                f"{self.name}: {verdict.message or response.status}", response.status))
        try:
            return reader.read(request, response)
        except RateLimited as exc:
            # Throttling reported inside a 200 body (PubMed does this).
            self.gate.stats.throttled += 1
            self.gate.pause(exc.retry_after or self.gate.policy.default_pause_s)
            raise

    def _throttled(self, response: HttpResponse, stated: float | None = None,
                   message: str = "") -> None:
        self.gate.stats.throttled += 1
        retry_after = stated if stated is not None else parse_retry_after(
            response.header("retry-after"))
        self.gate.pause(self.gate.policy.default_pause_s if retry_after is None else retry_after)
        detail = f" (Retry-After {retry_after:.1f}s)" if retry_after is not None else ""
        why = f": {message}" if message else ""
        raise RateLimited(f"{self.name}: HTTP {response.status}{detail}{why}", retry_after)

    async def _store(self, key: str, response: HttpResponse, *, positive: bool) -> bool:
        """Store the response; whether it was kept (and so may be memoised)."""
        if self._cache is None:
            return False
        ttl = self._cache_policy.positive_ttl_s if positive else self._cache_policy.negative_ttl_s
        if ttl <= 0:
            return False  # a client whose "not positive" answers are never kept
        await self._cache.put(self.cache_scope, key, response, ttl, origin=self.base_url)
        return self._cache_policy.read

    def __repr__(self) -> str:
        return f"<PacedClient {self.name} {self.base_url} flights={len(self._flights)}>"
