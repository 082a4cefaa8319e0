"""A query the cache answers only in part goes on from there: a cached first answer whose
follow-up is not cached is neither read nor counted again when the follow-up is fetched."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.base import Identity
from verifier.citations.candidates import Candidate, ready_candidates
from verifier.citations.models import WorkRecord
from verifier.citations.source_client import PendingQuery, QueryResult, SourceClient
from verifier.http.cache import ResponseCache
from verifier.http.client import CachePolicy, PacedClient
from verifier.http.gate import SourceGate
from verifier.http.mock import MockTransport
from verifier.http.policy import RateClass, RateHint, SourcePolicy
from verifier.http.stats import SourceStats
from verifier.http.transport import HttpRequest, HttpResponse

DAY = 86_400.0
ORIGIN = "http://ids.test"
READ = CachePolicy(read=True, positive_ttl_s=DAY, negative_ttl_s=DAY)
IDS = HttpRequest("/ids", params=(("q", "x"),))
RECORDS = HttpRequest("/records", params=(("id", "1"),))


class IdsThenRecords:
    """A source in PubMed's shape: a search answers ids, and a second request the records.
    Counts the answers it reads, by path."""

    name = "ids"

    def __init__(self) -> None:
        self.reads: dict[str, int] = {}

    def answer(self, request: HttpRequest,
               response: HttpResponse) -> tuple[list[WorkRecord], HttpRequest | None]:
        self.reads[request.path] = self.reads.get(request.path, 0) + 1
        if request.path == "/ids":
            return [], RECORDS
        return [WorkRecord("ids", "1", ORIGIN + "/1", response.body.decode())], None

    def candidates(self, request: HttpRequest,
                   response: HttpResponse) -> tuple[list[Candidate], HttpRequest | None]:
        records, follow_up = self.answer(request, response)
        return ready_candidates(records), follow_up

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        return None


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[ResponseCache]:
    response_cache = ResponseCache(tmp_path / "cache", lock_timeout_s=1.0)
    yield response_cache
    response_cache.close()


def source_client(cache: ResponseCache) -> tuple[SourceClient, IdsThenRecords, MockTransport]:
    transport = MockTransport(lambda _base, request: HttpResponse(200, b"A cited work"))
    policy = SourcePolicy(classes={"all": RateClass(100, 1.0, 100)}, max_concurrency=10)
    gate = SourceGate("ids", policy, SourceStats())
    paced = PacedClient("ids", base_url=ORIGIN, gate=gate, transport=transport, cache=cache,
                        cache_policy=READ, rng=random.Random(7))
    adapter = IdsThenRecords()
    return SourceClient(adapter, paced, Identity()), adapter, transport  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_cached_first_answer_is_not_read_again_for_its_follow_up(
    cache: ResponseCache,
) -> None:
    await cache.put("ids", IDS.cache_key(), HttpResponse(200, b"ids"), DAY, origin=ORIGIN)
    client, adapter, transport = source_client(cache)
    pending = client.query_now(IDS)
    assert isinstance(pending, PendingQuery) and pending.first is not None
    answer = await client.finish(pending, asyncio.get_running_loop().time() + 5)
    assert [c.title for c in answer.candidates] == ["A cited work"]
    assert (answer.requests, answer.cached) == (1, False)
    assert [s.request.path for s in transport.sent] == ["/records"]  # only the follow-up was sent
    assert adapter.reads == {"/ids": 1, "/records": 1}
    stats = client.client.gate.stats
    assert stats.cache_hits == 1  # the first answer, counted once
    assert (await cache.stats()).misses == 1  # the follow-up, counted once


@pytest.mark.asyncio
async def test_a_query_the_cache_cannot_start_is_fetched_whole(cache: ResponseCache) -> None:
    client, adapter, transport = source_client(cache)
    pending = client.query_now(IDS)
    assert pending == PendingQuery(IDS, None, missed=True)
    answer = await client.finish(pending, asyncio.get_running_loop().time() + 5)
    assert (answer.requests, answer.cached) == (2, False)
    assert [s.request.path for s in transport.sent] == ["/ids", "/records"]
    assert (await cache.stats()).misses == 2


@pytest.mark.asyncio
async def test_a_query_the_cache_holds_whole_is_answered_at_once(cache: ResponseCache) -> None:
    await cache.put("ids", IDS.cache_key(), HttpResponse(200, b"ids"), DAY, origin=ORIGIN)
    await cache.put("ids", RECORDS.cache_key(), HttpResponse(200, b"Kept"), DAY, origin=ORIGIN)
    client, _adapter, transport = source_client(cache)
    answer = client.query_now(IDS)
    assert isinstance(answer, QueryResult)
    assert ([c.title for c in answer.candidates], answer.requests, answer.cached) == (
        ["Kept"], 0, True)
    assert transport.sent == []


def disk_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys the cache looks up on the loop's thread, in order, from now on."""
    keys: list[str] = []
    original = ResponseCache._select_on_loop

    def counted(reader: object, key: str) -> object:
        keys.append(key)
        return original(reader, key)  # type: ignore[arg-type]

    monkeypatch.setattr(ResponseCache, "_select_on_loop", staticmethod(counted))
    return keys


@pytest.mark.asyncio
async def test_a_miss_is_looked_up_on_the_disk_once(
    cache: ResponseCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = disk_reads(monkeypatch)
    client, _adapter, transport = source_client(cache)
    pending = client.query_now(IDS)
    assert pending == PendingQuery(IDS, None, missed=True)
    await client.finish(pending, asyncio.get_running_loop().time() + 5)
    # The search: looked up at once, then fetched without a second look. Its follow-up:
    # looked up by the fetch (nothing had looked for it before).
    assert [key.endswith(IDS.cache_key()) for key in reads] == [True, False]
    assert reads[1].endswith(RECORDS.cache_key())
    assert [s.request.path for s in transport.sent] == ["/ids", "/records"]
    assert (await cache.stats()).misses == 2


@pytest.mark.asyncio
async def test_a_follow_up_missed_at_once_is_not_looked_up_again(
    cache: ResponseCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    await cache.put("ids", IDS.cache_key(), HttpResponse(200, b"ids"), DAY, origin=ORIGIN)
    reads = disk_reads(monkeypatch)
    client, _adapter, transport = source_client(cache)
    pending = client.query_now(IDS)
    assert isinstance(pending, PendingQuery) and pending.first is not None and pending.missed
    await client.finish(pending, asyncio.get_running_loop().time() + 5)
    assert len(reads) == 2  # the search (a hit) and its follow-up (a miss), once each
    assert [s.request.path for s in transport.sent] == ["/records"]
