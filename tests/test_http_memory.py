"""The HTTP layer's primitives in memory: MockTransport and a controlled clock.

Pacing, weighted limits, pauses, backoff, the breaker, budgets and single flight are
checked at exact virtual instants (see ``tests/virtual_clock.py``); the wire itself is
tested against loopback servers elsewhere.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest
from virtual_clock import run_virtual

from verifier.errors import (
    BudgetSpent,
    CircuitOpen,
    DeadlineExceeded,
    FailureKind,
    RateLimited,
    ServerError,
    SourceError,
    UnexpectedStatus,
)
from verifier.http.client import CachePolicy, Fetched, PacedClient
from verifier.http.gate import SourceGate
from verifier.http.mock import MockTransport
from verifier.http.policy import RateClass, RateHint, SourcePolicy
from verifier.http.stats import SourceStats
from verifier.http.transport import HttpRequest, HttpResponse

NO_CACHE = CachePolicy(read=False, positive_ttl_s=1.0, negative_ttl_s=1.0)


class TextReader:
    """Reads a body as text; 404 is "not found" (an empty string)."""

    def read(self, request: HttpRequest, response: HttpResponse) -> str:
        if response.status == 404:
            return ""
        if response.status != 200:
            raise UnexpectedStatus(f"HTTP {response.status}", response.status)
        return response.body.decode()

    def positive(self, value: str) -> bool:
        return bool(value)

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        return None


def ok(_base: str, request: HttpRequest) -> HttpResponse:
    return HttpResponse(200, request.path.encode())


def policy(**changes: object) -> SourcePolicy:
    base: dict[str, object] = {
        "classes": {"all": RateClass(2, 1.0, 10)},
        "max_concurrency": 10,
        "backoff_base_s": 1.0,
        "backoff_cap_s": 8.0,
        "default_pause_s": 5.0,
        "source_budget_s": 60.0,
    }
    base.update(changes)
    return SourcePolicy(**base)  # type: ignore[arg-type]


class TextClient:
    """A paced client that reads every answer with TextReader."""

    def __init__(self, client: PacedClient) -> None:
        self.client = client
        self.gate = client.gate

    async def fetch(self, request: HttpRequest, deadline: float) -> Fetched[str]:
        return await self.client.fetch(request, deadline, TextReader())


def make_client(
    handler: Callable[[str, HttpRequest], HttpResponse], source_policy: SourcePolicy
) -> tuple[TextClient, MockTransport]:
    transport = MockTransport(handler)
    gate = SourceGate("svc", source_policy, SourceStats())
    client = PacedClient("svc", base_url="http://svc.test", gate=gate, transport=transport,
                         cache=None, cache_policy=NO_CACHE, rng=random.Random(7))
    return TextClient(client), transport


def test_requests_are_spaced_evenly_at_the_rate() -> None:
    async def main() -> list[float]:
        client, transport = make_client(ok, policy())
        await asyncio.gather(*(client.fetch(HttpRequest(f"/{i}"), 100.0) for i in range(6)))
        return [s.at for s in transport.sent]

    times = run_virtual(main())
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert gaps == pytest.approx([0.5] * 5)


def test_a_weighted_limit_paces_by_weight_not_by_count() -> None:
    # 600 tokens a minute: a full bucket lets six 100-token requests go at once, then one
    # every 10 s; the request rate (100/s) is not what binds.
    tpm = policy(classes={"all": RateClass(100, 1.0, 20)}, max_concurrency=20,
                 weighted=RateClass(600, 60.0))

    async def main() -> list[float]:
        client, transport = make_client(ok, tpm)
        await asyncio.gather(*(client.fetch(HttpRequest(f"/{i}", weight=100), 1000.0)
                               for i in range(9)))
        return sorted(s.at for s in transport.sent)

    times = run_virtual(main())
    assert times[5] < 1.0
    assert times[6] == pytest.approx(10.0, abs=0.05)
    assert times[8] == pytest.approx(30.0, abs=0.05)


def test_a_429_pauses_the_whole_service_for_its_retry_after() -> None:
    answered: set[str] = set()

    def handler(_base: str, request: HttpRequest) -> HttpResponse:
        if request.path == "/a" and "/a" not in answered:
            answered.add("/a")
            return HttpResponse(429, b"", {"retry-after": "3"})
        return HttpResponse(200, b"ok")

    async def main() -> tuple[list[tuple[str, float]], SourceStats]:
        client, transport = make_client(handler, policy())
        first = asyncio.create_task(client.fetch(HttpRequest("/a"), 100.0))
        await asyncio.sleep(0.1)  # /a is answered 429 at t=0
        await client.fetch(HttpRequest("/b"), 100.0)
        await first
        return [(s.request.path, s.at) for s in transport.sent], client.gate.stats

    sent, stats = run_virtual(main())
    assert sent[0][0] == "/a" and sent[0][1] == pytest.approx(0.0, abs=1e-6)
    later = [at for _path, at in sent[1:]]
    assert min(later) >= 3.0  # nothing, not even another path, went out during the pause
    assert stats.throttled == 1


def test_server_errors_are_retried_with_backoff_within_the_ceiling() -> None:
    statuses = iter([500, 503, 200])

    def handler(_base: str, _request: HttpRequest) -> HttpResponse:
        return HttpResponse(next(statuses), b"fine")

    async def main() -> tuple[str, list[float], int]:
        client, transport = make_client(handler, policy())
        fetched = await client.fetch(HttpRequest("/x"), 100.0)
        return fetched.value, [s.at for s in transport.sent], fetched.requests

    value, times, requests = run_virtual(main())
    assert value == "fine" and requests == 3
    assert 0 < times[1] - times[0] <= 1.0  # first backoff: full jitter below 1 s
    assert 0 < times[2] - times[1] <= 2.0  # second: below 2 s


def test_a_retry_that_would_cross_the_deadline_is_not_made() -> None:
    def handler(_base: str, _request: HttpRequest) -> HttpResponse:
        return HttpResponse(429, b"", {"retry-after": "30"})

    async def main() -> tuple[RateLimited, float, int]:
        client, transport = make_client(handler, policy())
        loop = asyncio.get_running_loop()
        with pytest.raises(RateLimited) as caught:
            await client.fetch(HttpRequest("/x"), 10.0)
        return caught.value, loop.time(), len(transport.sent)

    error, now, sent = run_virtual(main())
    assert sent == 1 and now < 10.0
    assert error.kind is FailureKind.RATE_LIMITED and error.retry_after == 30.0


def test_the_breaker_opens_after_repeated_failures_and_fails_fast() -> None:
    def handler(_base: str, _request: HttpRequest) -> HttpResponse:
        return HttpResponse(500, b"")

    down = policy(breaker_threshold=3, breaker_cooldown_s=100.0, max_attempts=1)

    async def main() -> tuple[int, BaseException]:
        client, transport = make_client(handler, down)
        for i in range(3):
            with pytest.raises(ServerError):
                await client.fetch(HttpRequest(f"/{i}"), 50.0)
        with pytest.raises(CircuitOpen) as caught:
            await client.fetch(HttpRequest("/next"), 50.0)
        return len(transport.sent), caught.value

    sent, error = run_virtual(main())
    assert isinstance(error, CircuitOpen)
    assert sent == 3  # the fourth was never sent
    assert error.kind is FailureKind.ERROR


def test_an_open_breaker_is_waited_out_when_its_cooldown_fits_the_deadline() -> None:
    calls = iter([500, 500, 200])

    def handler(_base: str, _request: HttpRequest) -> HttpResponse:
        return HttpResponse(next(calls), b"back")

    flaky = policy(breaker_threshold=2, breaker_cooldown_s=20.0, max_attempts=1)

    async def main() -> tuple[str, float]:
        client, _transport = make_client(handler, flaky)
        for i in range(2):
            with pytest.raises(ServerError):
                await client.fetch(HttpRequest(f"/{i}"), 100.0)
        fetched = await client.fetch(HttpRequest("/later"), 100.0)
        return fetched.value, asyncio.get_running_loop().time()

    value, now = run_virtual(main())
    assert value == "back" and now >= 20.0


def test_a_spent_budget_is_never_sent() -> None:
    budgeted = policy(daily_budget=2.0)

    async def main() -> int:
        client, transport = make_client(ok, budgeted)
        await client.fetch(HttpRequest("/1", cost=1), 100.0)
        await client.fetch(HttpRequest("/2", cost=1), 100.0)
        with pytest.raises(BudgetSpent) as caught:
            await client.fetch(HttpRequest("/3", cost=1), 100.0)
        assert caught.value.kind is FailureKind.SKIPPED
        return len(transport.sent)

    assert run_virtual(main()) == 2


def test_identical_requests_in_flight_are_sent_once() -> None:
    async def slow(_base: str, request: HttpRequest) -> HttpResponse:
        await asyncio.sleep(2.0)
        return HttpResponse(200, b"one")

    async def main() -> tuple[list[int], int]:
        client, transport = make_client(slow, policy())  # type: ignore[arg-type]
        answers = await asyncio.gather(*(client.fetch(HttpRequest("/same"), 100.0)
                                         for _ in range(5)))
        return [a.requests for a in answers], len(transport.sent)

    requests, sent = run_virtual(main())
    assert sent == 1
    assert sorted(requests) == [0, 0, 0, 0, 1]


def test_a_joined_waiter_is_bounded_by_its_own_deadline() -> None:
    async def slow(_base: str, request: HttpRequest) -> HttpResponse:
        await asyncio.sleep(10.0)
        return HttpResponse(200, b"late")

    async def main() -> tuple[float, str, int]:
        client, transport = make_client(slow, policy())  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        first = asyncio.create_task(client.fetch(HttpRequest("/same"), 100.0))
        await asyncio.sleep(0)
        with pytest.raises(DeadlineExceeded):
            await client.fetch(HttpRequest("/same"), 3.0)
        gave_up_at = loop.time()
        fetched = await first  # the first caller's request went on
        return gave_up_at, fetched.value, len(transport.sent)

    gave_up_at, value, sent = run_virtual(main())
    assert gave_up_at == pytest.approx(3.0)
    assert value == "late" and sent == 1


def test_a_joined_waiter_with_more_time_asks_again_when_the_flight_ran_out() -> None:
    async def slow(_base: str, request: HttpRequest) -> HttpResponse:
        await asyncio.sleep(4.0)
        return HttpResponse(200, b"answer")

    async def main() -> tuple[str, int]:
        client, transport = make_client(slow, policy())  # type: ignore[arg-type]
        first = asyncio.create_task(client.fetch(HttpRequest("/same"), 2.0))
        await asyncio.sleep(0)
        fetched = await client.fetch(HttpRequest("/same"), 100.0)
        with pytest.raises(SourceError) as caught:
            await first
        assert caught.value.kind is FailureKind.TIMED_OUT
        return fetched.value, len(transport.sent)

    value, sent = run_virtual(main())
    assert value == "answer"
    assert sent == 2  # the second caller's own request, after the first ran out of time


def test_post_bodies_are_part_of_the_cache_key_and_identity_is_not() -> None:
    a = HttpRequest("/v1/chat", method="POST", body=b'{"q": 1}')
    b = HttpRequest("/v1/chat", method="POST", body=b'{"q": 2}')
    keyed = HttpRequest("/v1/chat", method="POST", body=b'{"q": 1}',
                        headers=(("authorization", "Bearer sk-secret"),))
    assert a.cache_key() != b.cache_key()
    assert a.cache_key() == keyed.cache_key()
    assert "secret" not in keyed.cache_key()
    assert HttpRequest("/x", params=(("q", "1"),)).cache_key() == "/x?q=1"


class SlowToOpen(MockTransport):
    """Like AiohttpTransport: the first request (or ``prepare``) opens something slow (an
    import, a connection pool) for ``opening_s``; concurrent first requests wait for it."""

    def __init__(self, opening_s: float) -> None:
        super().__init__(ok)
        self.opening_s = opening_s
        self.opened = 0
        self._opening: asyncio.Lock | None = None
        self._ready = False

    async def prepare(self) -> None:
        if self._ready:
            return
        self._opening = self._opening or asyncio.Lock()
        async with self._opening:
            if not self._ready:
                await asyncio.sleep(self.opening_s)
                self.opened += 1
                self._ready = True

    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        await self.prepare()
        return await super().send(base_url, request)


def test_a_slow_first_opening_of_the_transport_does_not_bunch_paced_requests() -> None:
    async def main() -> tuple[list[float], int]:
        transport = SlowToOpen(opening_s=2.0)
        gate = SourceGate("svc", policy(), SourceStats())
        client = TextClient(PacedClient("svc", base_url="http://svc.test", gate=gate,
                                        transport=transport, cache=None,
                                        cache_policy=NO_CACHE, rng=random.Random(7)))
        await asyncio.gather(*(client.fetch(HttpRequest(f"/{i}"), 100.0) for i in range(6)))
        return [s.at for s in transport.sent], transport.opened

    times, opened = run_virtual(main())
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    # Paced after the opening, at the rate (2/s): not all sent at once when it ends.
    assert opened == 1
    assert times[0] == pytest.approx(2.0)
    assert gaps == pytest.approx([0.5] * 5)
