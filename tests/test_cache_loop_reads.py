"""Cache reads on the loop's thread: bounded, never frozen by another process, with the
worker as fall-back; the client's memo and single flight in front of the disk."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from verifier.errors import UnexpectedStatus
from verifier.http import cache as cache_module
from verifier.http import client as client_module
from verifier.http.cache import READER_MMAP_BYTES, UNDECIDED, ResponseCache
from verifier.http.client import NOT_CACHED, CachePolicy, Fetched, PacedClient
from verifier.http.gate import SourceGate
from verifier.http.mock import MockTransport
from verifier.http.policy import RateClass, RateHint, SourcePolicy
from verifier.http.stats import SourceStats
from verifier.http.transport import HttpRequest, HttpResponse

DAY = 86_400.0
RESPONSE = HttpResponse(200, b"an answer", {"content-type": "text/plain"})
READ = CachePolicy(read=True, positive_ttl_s=DAY, negative_ttl_s=DAY)

# A second process that takes SQLite's write lock on the cache and holds it, with a write
# pending, until it is killed.
HOLD_WRITE_LOCK = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
con.execute("BEGIN IMMEDIATE")
con.execute("UPDATE Settings SET value = value WHERE key = 'count'")
print("locked", flush=True)
time.sleep(60)
"""


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[ResponseCache]:
    response_cache = ResponseCache(tmp_path / "cache", lock_timeout_s=1.0)
    yield response_cache
    response_cache.close()


class CountingReader:
    """Reads bodies as text and counts how often it was asked to."""

    def __init__(self) -> None:
        self.reads = 0

    def read(self, request: HttpRequest, response: HttpResponse) -> str:
        self.reads += 1
        if response.status != 200:
            raise UnexpectedStatus(f"HTTP {response.status}", response.status)
        return response.body.decode()

    def positive(self, value: str) -> bool:
        return bool(value)

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        return None


def make_client(cache: ResponseCache) -> tuple[PacedClient, MockTransport]:
    transport = MockTransport(lambda _base, request: HttpResponse(200, request.path.encode()))
    policy = SourcePolicy(classes={"all": RateClass(100, 1.0, 100)}, max_concurrency=10)
    gate = SourceGate("svc", policy, SourceStats())
    client = PacedClient("svc", base_url="http://svc.test", gate=gate, transport=transport,
                         cache=cache, cache_policy=READ, rng=random.Random(7))
    return client, transport


@pytest.mark.asyncio
async def test_a_hit_is_read_at_once_on_the_calling_thread(cache: ResponseCache) -> None:
    await cache.put("svc", "/k", RESPONSE, DAY)
    assert cache.get_now("svc", "/k") == RESPONSE
    assert cache.get_now("svc", "/absent") is None
    assert cache.get_now("other", "/k") is None  # sources stay apart on this path too
    stats = await cache.stats()
    assert (stats.hits, stats.misses) == (1, 2)


@pytest.mark.asyncio
async def test_an_expired_entry_is_a_miss_on_the_loop_path(cache: ResponseCache) -> None:
    await cache.put("svc", "/k", RESPONSE, 0.05)
    await asyncio.sleep(0.1)
    assert cache.get_now("svc", "/k") is None


@pytest.mark.asyncio
async def test_a_busy_database_leaves_the_read_to_the_worker(
    cache: ResponseCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    await cache.put("svc", "/k", RESPONSE, DAY)

    def busy(*_args: object) -> list[object]:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(ResponseCache, "_select_on_loop", staticmethod(busy))
    assert cache.get_now("svc", "/k") is UNDECIDED
    assert await cache.get("svc", "/k") == RESPONSE  # the worker reads it
    assert cache.failed is None


@pytest.mark.asyncio
async def test_an_entry_stored_in_a_file_is_read_by_the_worker(cache: ResponseCache) -> None:
    big = HttpResponse(200, b"x" * 100_000)  # diskcache keeps large values in files
    await cache.put("svc", "/big", big, DAY)
    assert cache.get_now("svc", "/big") is UNDECIDED
    assert await cache.get("svc", "/big") == big


@pytest.mark.asyncio
async def test_a_writer_in_another_process_never_freezes_the_loop(
    cache: ResponseCache,
) -> None:
    await cache.put("svc", "/k", RESPONSE, DAY)
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD_WRITE_LOCK, str(cache.directory / "cache.db"),
        stdout=asyncio.subprocess.PIPE)
    try:
        assert holder.stdout is not None
        assert (await holder.stdout.readline()).strip() == b"locked"
        gaps: list[float] = []

        async def tick() -> None:
            last = time.perf_counter()
            while True:
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        ticker = asyncio.create_task(tick())
        slowest = 0.0
        for _ in range(50):
            started = time.perf_counter()
            assert cache.get_now("svc", "/k") == RESPONSE  # WAL: readers pass the writer
            slowest = max(slowest, time.perf_counter() - started)
            await asyncio.sleep(0)
        # A write waits for the lock on the worker (and gives up after lock_timeout_s);
        # the loop keeps turning meanwhile.
        await cache.put("svc", "/new", RESPONSE, DAY)
        ticker.cancel()
        await asyncio.gather(ticker, return_exceptions=True)
    finally:
        holder.kill()
        await holder.wait()
    assert slowest < cache_module.READ_BUSY_TIMEOUT_S + 0.05
    assert cache.failed is not None and "locked" in cache.failed
    assert max(gaps) < 0.25, f"the loop froze for {max(gaps):.2f}s"


@pytest.mark.asyncio
async def test_the_memo_serves_repeats_without_reading_disk_or_decoding_again(
    cache: ResponseCache,
) -> None:
    client, transport = make_client(cache)
    reader = CountingReader()
    request = HttpRequest("/works/1")
    first = await client.fetch(request, asyncio.get_running_loop().time() + 5, reader)
    for _ in range(3):
        again = await client.fetch(request, asyncio.get_running_loop().time() + 5, reader)
        assert (again.value, again.cached, again.requests) == ("/works/1", True, 0)
    assert (first.requests, len(transport.sent), reader.reads) == (1, 1, 1)
    assert (await cache.stats()).hits == 0  # never went to disk


@pytest.mark.asyncio
async def test_the_memo_is_bounded_least_recently_used_out(
    cache: ResponseCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_module, "MEMO_SIZE", 2)
    client, _transport = make_client(cache)
    reader = CountingReader()
    due = asyncio.get_running_loop().time() + 5
    for path in ("/a", "/b", "/a", "/c"):  # /b is the least recently used when /c comes
        await client.fetch(HttpRequest(path), due, reader)
    assert reader.reads == 3
    assert len(client._answers) == 2
    await client.fetch(HttpRequest("/a"), due, reader)  # still in memory
    assert (reader.reads, (await cache.stats()).hits) == (3, 0)
    await client.fetch(HttpRequest("/b"), due, reader)  # dropped: read from disk again
    assert (reader.reads, (await cache.stats()).hits) == (4, 1)


@pytest.mark.asyncio
async def test_identical_requests_share_one_worker_cache_read(
    cache: ResponseCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = HttpRequest("/works/1").cache_key()
    await cache.put("svc", key, RESPONSE, DAY, origin="http://svc.test")
    monkeypatch.setattr(ResponseCache, "get_now", lambda *_a, **_k: UNDECIDED)
    worker_reads = 0
    original = ResponseCache.get

    async def counted(self: ResponseCache, *args: object, **kwargs: object) -> object:
        nonlocal worker_reads
        worker_reads += 1
        return await original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ResponseCache, "get", counted)
    client, transport = make_client(cache)
    reader = CountingReader()
    due = asyncio.get_running_loop().time() + 5
    answers = await asyncio.gather(
        *(client.fetch(HttpRequest("/works/1"), due, reader) for _ in range(5)))
    assert {a.value for a in answers} == {"an answer"}
    assert all(a.cached and a.requests == 0 for a in answers)
    assert (worker_reads, reader.reads, len(transport.sent)) == (1, 1, 0)


@pytest.mark.asyncio
async def test_fetch_now_answers_from_the_cache_or_says_not_cached_without_sending(
    cache: ResponseCache,
) -> None:
    client, transport = make_client(cache)
    reader = CountingReader()
    assert client.fetch_now(HttpRequest("/works/1"), reader) is NOT_CACHED  # nothing sent
    assert transport.sent == []
    await cache.put("svc", HttpRequest("/works/2").cache_key(), RESPONSE, DAY,
                    origin="http://svc.test")
    on_disk = client.fetch_now(HttpRequest("/works/2"), reader)
    assert isinstance(on_disk, Fetched)
    assert (on_disk.value, on_disk.cached, on_disk.requests) == ("an answer", True, 0)
    remembered = client.fetch_now(HttpRequest("/works/2"), reader)
    assert isinstance(remembered, Fetched) and remembered.value == "an answer"
    assert reader.reads == 1  # the second came from the memo
    assert client.gate.stats.cache_hits == 2 and transport.sent == []


@pytest.mark.asyncio
async def test_fetch_now_leaves_to_fetch_what_only_the_worker_can_read(
    cache: ResponseCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    await cache.put("svc", HttpRequest("/works/1").cache_key(), RESPONSE, DAY,
                    origin="http://svc.test")
    monkeypatch.setattr(ResponseCache, "get_now", lambda *_a, **_k: UNDECIDED)
    client, transport = make_client(cache)
    reader = CountingReader()
    assert client.fetch_now(HttpRequest("/works/1"), reader) is None
    fetched = await client.fetch(HttpRequest("/works/1"),
                                 asyncio.get_running_loop().time() + 5, reader)
    assert (fetched.value, fetched.cached, len(transport.sent)) == ("an answer", True, 0)


@pytest.mark.asyncio
async def test_fetch_now_reads_nothing_when_the_cache_is_not_to_be_read(
    cache: ResponseCache,
) -> None:
    await cache.put("svc", HttpRequest("/works/1").cache_key(), RESPONSE, DAY,
                    origin="http://svc.test")
    client, _transport = make_client(cache)
    client._cache_policy = CachePolicy(read=False, positive_ttl_s=DAY, negative_ttl_s=DAY)
    assert client.fetch_now(HttpRequest("/works/1"), CountingReader()) is None


@pytest.mark.asyncio
async def test_a_miss_tried_at_once_then_fetched_is_counted_once(cache: ResponseCache) -> None:
    client, transport = make_client(cache)
    reader = CountingReader()
    assert client.fetch_now(HttpRequest("/works/1"), reader) is NOT_CACHED
    await client.fetch(HttpRequest("/works/1"), asyncio.get_running_loop().time() + 5, reader,
                       cache_missed=True)
    stats = await cache.stats()
    assert (stats.misses, stats.hits, len(transport.sent)) == (1, 0, 1)


@pytest.mark.asyncio
async def test_a_fetch_told_of_a_miss_still_takes_what_was_remembered_since(
    cache: ResponseCache,
) -> None:
    client, transport = make_client(cache)
    reader = CountingReader()
    request = HttpRequest("/works/1")
    due = asyncio.get_running_loop().time() + 5
    assert client.fetch_now(request, reader) is NOT_CACHED
    await client.fetch(request, due, reader)  # another caller fetched and stored it meanwhile
    again = await client.fetch(request, due, reader, cache_missed=True)
    # The memo's answer (the mock answers with the path), not a second request.
    assert (again.value, again.cached, again.requests) == ("/works/1", True, 0)
    assert len(transport.sent) == 1 and reader.reads == 1


@pytest.mark.asyncio
async def test_remembered_key_prefixes_keep_sources_and_origins_apart(
    cache: ResponseCache,
) -> None:
    other = HttpResponse(200, b"another answer", {"content-type": "text/plain"})
    await cache.put("svc", "/k", RESPONSE, DAY, origin="https://A.example/")
    await cache.put("svc", "/k", other, DAY, origin="https://b.example")
    await cache.put("svc2", "/k", other, DAY, origin="https://a.example")
    for _ in range(2):  # the second round reads through the remembered prefixes
        assert cache.get_now("svc", "/k", origin="https://a.example") == RESPONSE
        assert cache.get_now("svc", "/k", origin="https://b.example/") == other
        assert cache.get_now("svc2", "/k", origin="https://a.example") == other
        assert cache.get_now("svc2", "/k", origin="https://b.example") is None
    for _ in range(2):  # a bad source name is refused every time, never remembered
        with pytest.raises(ValueError, match="free of ':'"):
            cache.get_now("a:b", "/k")


def test_the_loop_select_reads_one_row_or_none(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "t.db")
    db.execute("CREATE TABLE Cache (key TEXT, raw INTEGER, mode INTEGER, value BLOB,"
               " expire_time REAL)")
    db.execute("INSERT INTO Cache VALUES ('k', 1, 1, x'00', NULL)")
    db.execute("INSERT INTO Cache VALUES ('old', 1, 1, x'00', 1.0)")
    assert ResponseCache._select_on_loop(db, "k") == (1, b"\x00")
    assert ResponseCache._select_on_loop(db, "old") is None  # expired
    assert ResponseCache._select_on_loop(db, "absent") is None
    db.close()


def test_the_loop_reader_maps_a_file_of_the_size_limit_whole(cache: ResponseCache,
                                                             tmp_path: Path) -> None:
    reader = cache._reader
    assert reader is not None
    (mapped,) = reader.execute("PRAGMA mmap_size").fetchone()
    # As much as this SQLite maps at most (it lowers a larger figure to its ceiling):
    ceiling = sqlite3.connect(tmp_path / "ceiling.db")
    (most,) = ceiling.execute(f"PRAGMA mmap_size = {READER_MMAP_BYTES}").fetchone()
    ceiling.close()
    assert mapped == most >= cache._cache.size_limit  # diskcache's own default: 64 MB


# Reads in one turn of the loop share one read transaction (a snapshot).


def _write_now(directory: Path, key: str, response: HttpResponse) -> None:
    """Store ``response`` at once from another instance (a second process's write, made
    without letting the loop turn)."""
    other = ResponseCache(directory)
    try:
        other._put_blocking(other._key("svc", "", key), cache_module.encode_response(response),
                            DAY)
    finally:
        other.close()


@pytest.mark.asyncio
async def test_reads_in_one_turn_of_the_loop_share_one_read_transaction(
    cache: ResponseCache,
) -> None:
    await cache.put("svc", "/k", RESPONSE, DAY)
    reader = cache._reader
    assert reader is not None and not reader.in_transaction
    assert cache.get_now("svc", "/k") == RESPONSE
    assert reader.in_transaction  # the turn's first read began it ...
    assert cache.get_now("svc", "/absent") is None
    assert reader.in_transaction  # ... the turn's other reads use it ...
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert not reader.in_transaction  # ... and the loop ended it at its next turn


@pytest.mark.asyncio
@pytest.mark.blocking_allowed("another instance writes inside one turn of the loop")
async def test_a_write_made_during_a_turn_is_seen_from_the_next_turn(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    cache = ResponseCache(directory)
    try:
        assert cache.get_now("svc", "/new") is None  # the snapshot of this turn
        _write_now(directory, "/new", RESPONSE)
        assert cache.get_now("svc", "/new") is None  # as if read a moment earlier
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert cache.get_now("svc", "/new") == RESPONSE
    finally:
        cache.close()


@pytest.mark.blocking_allowed("reads with no event loop running, then writes between them")
def test_without_a_running_loop_each_read_sees_the_latest_entries(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    cache = ResponseCache(directory)
    try:
        assert cache.get_now("svc", "/new") is None
        assert cache._reader is not None and not cache._reader.in_transaction
        _write_now(directory, "/new", RESPONSE)
        assert cache.get_now("svc", "/new") == RESPONSE
    finally:
        cache.close()


@pytest.mark.blocking_allowed("runs two event loops in turn and writes between them")
def test_a_snapshot_a_stopped_loop_left_open_is_ended_by_the_next_read(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    cache = ResponseCache(directory)

    async def read(key: str) -> object:
        return cache.get_now("svc", key)

    async def read_and_stop(key: str) -> object:
        found = cache.get_now("svc", key)
        # The loop stops after this turn: its callback that would end the snapshot at
        # the next turn never runs.
        asyncio.get_running_loop().stop()
        return found

    try:
        first = asyncio.new_event_loop()
        assert first.run_until_complete(read_and_stop("/new")) is None
        first.close()
        assert cache._reader is not None and cache._reader.in_transaction
        _write_now(directory, "/new", RESPONSE)
        assert asyncio.run(read("/new")) == RESPONSE  # another loop: a new snapshot
        assert cache.get_now("svc", "/new") == RESPONSE  # no loop: no snapshot at all
        assert not cache._reader.in_transaction
    finally:
        cache.close()


@pytest.mark.asyncio
async def test_closing_the_cache_during_a_turn_ends_its_snapshot_quietly(
    cache: ResponseCache,
) -> None:
    assert cache.get_now("svc", "/k") is None
    await asyncio.to_thread(cache.close)
    await asyncio.sleep(0)  # the loop's callback finds the connection closed
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="after close"):
        cache.get_now("svc", "/k")


@pytest.mark.asyncio
@pytest.mark.blocking_allowed("another instance writes inside one turn of the loop")
async def test_a_snapshot_whose_end_failed_is_ended_before_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "cache"
    cache = ResponseCache(directory)
    try:
        def fails(_reader: sqlite3.Connection) -> None:
            raise sqlite3.OperationalError("disk I/O error")

        assert cache.get_now("svc", "/new") is None
        with monkeypatch.context() as patch:
            patch.setattr(ResponseCache, "_end_read_on_loop", staticmethod(fails))
            await asyncio.sleep(0)
            await asyncio.sleep(0)  # the loop's callback could not end it
        assert cache._reader is not None and cache._reader.in_transaction
        _write_now(directory, "/new", RESPONSE)
        assert cache.get_now("svc", "/new") == RESPONSE  # ended, then a new snapshot
    finally:
        cache.close()
