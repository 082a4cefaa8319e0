"""The response cache: bytes on disk, versioned keys, misses that never raise."""

from __future__ import annotations

import asyncio
import math
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import diskcache
import orjson
import pytest

from verifier.errors import ConfigError
from verifier.http import entry
from verifier.http.cache import (
    CACHE_FORMAT_VERSION,
    ResponseCache,
    decode_response,
    encode_response,
)
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.value_memos import forget_all

DAY = 86_400.0
KEY = HttpRequest("/works/10.1000/xyz", (("mailto", "x"),)).cache_key()
BODY = b'{"message": {"title": ["A \\u00e9tude"]}}\x00\xff binary tail'
RESPONSE = HttpResponse(
    status=200,
    body=BODY,
    headers={"content-type": "application/json; charset=utf-8", "x-rate-limit": "50"},
)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[ResponseCache]:
    # Not bound to an event loop, so a plain fixture can open and close it.
    response_cache = ResponseCache(tmp_path / "cache")
    yield response_cache
    response_cache.close()


def raw_rows(directory: Path) -> list[tuple[str, int, int, str | None, bytes | None]]:
    """Rows of diskcache's table, read with plain sqlite3 (no diskcache decoding)."""
    con = sqlite3.connect(directory / "cache.db")
    try:
        rows = con.execute("SELECT key, raw, mode, filename, value FROM Cache").fetchall()
    finally:
        con.close()
    return [(k, raw, mode, filename, value) for k, raw, mode, filename, value in rows]


@pytest.mark.asyncio
async def test_round_trip_keeps_status_headers_and_body_exactly(cache: ResponseCache) -> None:
    await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)
    got = await cache.get("crossref", KEY)
    assert got == RESPONSE
    assert got is not None
    assert type(got.body) is bytes
    assert dict(got.headers) == dict(RESPONSE.headers)
    assert got.content_type == "application/json"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "response",
    [
        HttpResponse(status=404, body=b""),
        HttpResponse(status=200, body=bytes(range(256)) * 1024, headers={"a": ""}),  # file
        HttpResponse(status=200, body=b"x", headers={"k\u00e9y": "v\u00e4lue \u2603"}),
    ],
    ids=["empty-404", "large-binary", "unicode-headers"],
)
async def test_round_trip_edge_cases(cache: ResponseCache, response: HttpResponse) -> None:
    await cache.put("openalex", KEY, response, ttl_s=DAY)
    assert await cache.get("openalex", KEY) == response


@pytest.mark.asyncio
async def test_miss_returns_none(cache: ResponseCache) -> None:
    assert await cache.get("crossref", KEY) is None
    await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)
    assert await cache.get("crossref", KEY + "&rows=5") is None


@pytest.mark.asyncio
async def test_put_replaces_the_previous_entry(cache: ResponseCache) -> None:
    await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)
    newer = HttpResponse(status=404, body=b"gone")
    await cache.put("crossref", KEY, newer, ttl_s=DAY)
    assert await cache.get("crossref", KEY) == newer
    assert (await cache.stats()).entries == 1


@pytest.mark.asyncio
async def test_entry_expires_after_its_ttl(cache: ResponseCache) -> None:
    await cache.put("crossref", KEY, RESPONSE, ttl_s=0.05)
    await cache.put("crossref", "/long", RESPONSE, ttl_s=DAY)
    assert await cache.get("crossref", KEY) == RESPONSE
    await asyncio.sleep(0.1)
    assert await cache.get("crossref", KEY) is None
    assert await cache.get("crossref", "/long") == RESPONSE


@pytest.mark.asyncio
async def test_other_format_version_never_reads_old_entries(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    async with await ResponseCache.open(directory, format_version=1) as v1:
        await v1.put("crossref", KEY, RESPONSE, ttl_s=DAY)
    async with await ResponseCache.open(directory, format_version=2) as v2:
        assert v2.format_version == 2
        assert await v2.get("crossref", KEY) is None
        await v2.put("crossref", KEY, HttpResponse(status=204, body=b""), ttl_s=DAY)
    # The old entry was not wiped: version 1 still reads its own.
    async with await ResponseCache.open(directory, format_version=1) as v1_again:
        assert await v1_again.get("crossref", KEY) == RESPONSE
    assert sorted(row[0] for row in raw_rows(directory)) == [
        f"v1:crossref: {KEY}",
        f"v2:crossref: {KEY}",
    ]


def test_default_format_version_is_the_module_constant(cache: ResponseCache) -> None:
    assert cache.format_version == CACHE_FORMAT_VERSION == 2


@pytest.mark.asyncio
async def test_sources_are_kept_apart(cache: ResponseCache) -> None:
    other = HttpResponse(status=404, body=b"not here")
    await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)
    await cache.put("openalex", KEY, other, ttl_s=DAY)
    assert await cache.get("crossref", KEY) == RESPONSE
    assert await cache.get("openalex", KEY) == other
    assert await cache.get("datacite", KEY) is None


@pytest.mark.asyncio
async def test_values_are_bytes_in_sqlite_and_files_never_pickles(
    cache: ResponseCache,
) -> None:
    big = HttpResponse(status=200, body=b"B" * 100_000, headers={"etag": "1"})
    await cache.put("crossref", "/small", RESPONSE, ttl_s=DAY)
    await cache.put("crossref", "/big", big, ttl_s=DAY)
    rows = {row[0]: row for row in raw_rows(cache.directory)}

    _, raw, mode, filename, value = rows["v2:crossref: /small"]
    assert raw == 1  # the key is a plain string, not a pickle
    assert mode == diskcache.core.MODE_RAW
    assert filename is None
    assert value == encode_response(RESPONSE)
    header_length = int.from_bytes(value[:4], "big")
    assert value[4 : 4 + header_length].startswith(b'{"status":200')
    assert value[4 + header_length :] == BODY

    _, raw, mode, filename, value = rows["v2:crossref: /big"]
    assert mode == diskcache.core.MODE_BINARY  # a plain file beside the database
    assert value is None and filename is not None
    assert (cache.directory / filename).read_bytes() == encode_response(big)


def test_encoding_layout_is_length_prefix_header_body() -> None:
    encoded = encode_response(RESPONSE)
    length = int.from_bytes(encoded[:4], "big")
    assert encoded[4 + length :] == BODY
    assert decode_response(encoded) == RESPONSE


# What the real services send beside their answers (Crossref's, and a cookie as a
# service behind a load balancer sets one), and the headers the readers look at.
EXCHANGE_HEADERS = {
    "date": "Sun, 06 Dec 2026 20:11:14 GMT", "server": "Jetty(9.4.40.v20210413)",
    "content-length": "4551", "content-encoding": "gzip", "connection": "keep-alive",
    "access-control-allow-origin": "*", "access-control-expose-headers": "Link",
    "permissions-policy": "interest-cohort=()", "set-cookie": "AWSALB=secret-session; Path=/",
}
ANSWER_HEADERS = {
    "content-type": "application/json", "x-rate-limit-limit": "50",
    "x-rate-limit-interval": "1s", "x-api-pool": "polite", "x-ratelimit-remaining": "9",
    "retry-after": "3", "x-should-retry": "true", "etag": "W/1", "link": "<x>; rel=next",
}


@pytest.mark.asyncio
async def test_headers_about_the_exchange_are_not_stored(cache: ResponseCache) -> None:
    response = HttpResponse(status=200, body=BODY,
                            headers={**EXCHANGE_HEADERS, **ANSWER_HEADERS})
    await cache.put("crossref", KEY, response, ttl_s=DAY)
    got = await cache.get("crossref", KEY)
    assert got is not None
    assert dict(got.headers) == ANSWER_HEADERS
    assert got.body == BODY and got.status == 200
    # Nothing of the exchange (the session cookie above all) is on the disk.
    [(_, _, _, _, value)] = raw_rows(cache.directory)
    assert value is not None
    assert b"secret-session" not in value and b"Jetty" not in value


def test_entries_stored_with_every_header_still_read_whole() -> None:
    # Entries written before headers were left out hold them all, and read as stored.
    header = orjson.dumps({"status": 200, "headers": {**EXCHANGE_HEADERS, **ANSWER_HEADERS}})
    old = decode_response(_framed(header, BODY))
    assert dict(old.headers) == {**EXCHANGE_HEADERS, **ANSWER_HEADERS}


unpickled: list[str] = []


def _record_unpickling() -> str:
    unpickled.append("ran")
    return "payload"


class _Booby:
    def __reduce__(self) -> tuple[object, tuple[()]]:
        return (_record_unpickling, ())


def _framed(header: bytes, body: bytes = b"") -> bytes:
    return len(header).to_bytes(4, "big") + header + body


def _corrupt_values() -> list[object]:
    valid = encode_response(RESPONSE)
    return [
        b"",
        b"\x00\x00",
        b"\x00\x00\xff\xff{}",  # header length past the end
        _framed(b"{x}", b"body"),  # header not JSON
        _framed(b"[]"),  # header not an object
        _framed(b'{"status":1}'),  # no headers
        _framed(b'{"status":true,"headers":{}}'),  # a bool is not a status
        _framed(b'{"status":"200","headers":{}}'),  # nor is a string
        _framed(b'{"status":200,"headers":{"a":1}}'),  # non-string header value
        valid[:3],
        "a str, not bytes",
        12345,
        _Booby(),  # a pickle: must not be unpickled
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize("value", _corrupt_values(), ids=lambda v: type(v).__name__)
async def test_corrupt_entry_is_a_miss_and_is_deleted(cache: ResponseCache, value: object) -> None:
    key = f"v{CACHE_FORMAT_VERSION}:crossref: {KEY}"  # no origin given: ""
    with diskcache.Cache(str(cache.directory)) as raw_cache:  # another writer, default Disk
        raw_cache.set(key, value)
        assert key in raw_cache
    unpickled.clear()

    assert await cache.get("crossref", KEY) is None
    assert unpickled == []
    assert [row[0] for row in raw_rows(cache.directory)] == []
    stats = await cache.stats()
    assert (stats.corrupt, stats.misses, stats.hits) == (1, 1, 0)
    # The slot is usable again.
    await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)
    assert await cache.get("crossref", KEY) == RESPONSE


@pytest.mark.asyncio
async def test_many_tasks_put_and_get_concurrently(cache: ResponseCache) -> None:
    async def round_trip(i: int) -> HttpResponse | None:
        response = HttpResponse(status=200 + i % 3, body=f"body {i}".encode() * (i + 1))
        await cache.put(f"s{i % 4}", f"/item/{i}", response, ttl_s=DAY)
        got = await cache.get(f"s{i % 4}", f"/item/{i}")
        assert got == response
        return got

    results = await asyncio.gather(*(round_trip(i) for i in range(200)))
    assert len({r.body for r in results if r is not None}) == 200
    stats = await cache.stats()
    assert (stats.entries, stats.stores, stats.hits) == (200, 200, 200)


@pytest.mark.blocking_allowed("exercises the synchronous constructor and close")
@pytest.mark.asyncio
async def test_two_instances_share_one_directory(tmp_path: Path) -> None:
    directory = tmp_path / "shared"
    async with await ResponseCache.open(directory) as writer, ResponseCache(directory) as reader:
        await writer.put("crossref", KEY, RESPONSE, ttl_s=DAY)
        assert await reader.get("crossref", KEY) == RESPONSE
        await reader.put("openalex", KEY, RESPONSE, ttl_s=DAY)
        assert await writer.get("openalex", KEY) == RESPONSE
    # Persisted: a fresh instance after both closed still reads them.
    async with await ResponseCache.open(directory) as reopened:
        assert await reopened.get("crossref", KEY) == RESPONSE
        assert (await reopened.stats()).entries == 2


@pytest.mark.blocking_allowed("exercises the synchronous constructor and close")
@pytest.mark.asyncio
async def test_close_finishes_pending_writes(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    cache = ResponseCache(directory)
    tasks = [
        asyncio.create_task(cache.put("crossref", f"/w/{i}", RESPONSE, ttl_s=DAY))
        for i in range(20)
    ]
    await asyncio.sleep(0)  # every put has been handed to the worker thread
    cache.close()
    await asyncio.gather(*tasks)
    async with await ResponseCache.open(directory) as reopened:
        assert all([await reopened.get("crossref", f"/w/{i}") == RESPONSE for i in range(20)])


def test_directory_is_created(tmp_path: Path) -> None:
    directory = tmp_path / "a" / "b" / "cache"
    cache = ResponseCache(directory)
    try:
        assert (directory / "cache.db").is_file()
    finally:
        cache.close()


def test_directory_under_a_file_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    for where in (blocker / "cache", blocker):
        with pytest.raises(ConfigError, match="not-a-dir") as caught:
            ResponseCache(where)
        assert "a file stands where the cache folder should be" in str(caught.value)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions"
)
def test_unwritable_directory_is_a_config_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(ConfigError, match="locked"):
            ResponseCache(locked / "cache")
    finally:
        locked.chmod(0o700)


def test_bad_size_limit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="size_limit_bytes"):
        ResponseCache(tmp_path, size_limit_bytes=0)


@pytest.mark.asyncio
@pytest.mark.parametrize("ttl", [0.0, -1.0, math.nan, math.inf])
async def test_put_refuses_a_ttl_that_is_not_positive_and_finite(
    cache: ResponseCache, ttl: float
) -> None:
    with pytest.raises(ValueError, match="ttl_s"):
        await cache.put("crossref", KEY, RESPONSE, ttl_s=ttl)
    assert (await cache.stats()).entries == 0


@pytest.mark.asyncio
@pytest.mark.parametrize("source", ["", "cross:ref"])
async def test_source_names_that_would_blur_keys_are_refused(
    cache: ResponseCache, source: str
) -> None:
    with pytest.raises(ValueError, match="source"):
        await cache.put(source, KEY, RESPONSE, ttl_s=DAY)
    with pytest.raises(ValueError, match="source"):
        await cache.get(source, KEY)


@pytest.mark.blocking_allowed("exercises the synchronous constructor and close")
@pytest.mark.asyncio
async def test_use_after_close_is_a_bug(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.close()
    cache.close()  # idempotent
    assert "closed" in repr(cache)
    with pytest.raises(RuntimeError, match="after close"):
        await cache.get("crossref", KEY)
    with pytest.raises(RuntimeError, match="after close"):
        await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)


@pytest.mark.asyncio
async def test_async_with_closes(tmp_path: Path) -> None:
    async with await ResponseCache.open(tmp_path) as cache:
        assert "open" in repr(cache)
    assert "closed" in repr(cache)
    with pytest.raises(RuntimeError):
        await cache.get("crossref", KEY)


@pytest.mark.asyncio
async def test_clear_removes_every_version(tmp_path: Path) -> None:
    async with await ResponseCache.open(tmp_path, format_version=7) as old:
        await old.put("crossref", KEY, RESPONSE, ttl_s=DAY)
    async with await ResponseCache.open(tmp_path) as cache:
        await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)
        assert (await cache.stats()).entries == 2
        await cache.clear()
        assert (await cache.stats()).entries == 0
        assert await cache.get("crossref", KEY) is None


@pytest.mark.asyncio
async def test_storage_failure_reads_as_miss_and_drops_the_write(
    cache: ResponseCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)

    def locked(*args: object, **kwargs: object) -> object:
        raise diskcache.Timeout("database is locked")

    def broken(*args: object, **kwargs: object) -> object:
        raise sqlite3.OperationalError("disk I/O error")

    # The one place the test reaches inside: diskcache's own methods fail as SQLite would.
    monkeypatch.setattr(cache._cache, "set", locked)
    monkeypatch.setattr(cache._cache, "get", broken)
    await cache.put("crossref", "/other", RESPONSE, ttl_s=DAY)
    assert await cache.get("crossref", KEY) is None
    stats = await cache.stats()
    assert (stats.storage_errors, stats.stores, stats.misses) == (1, 1, 1)
    assert cache.failed is not None and "locked" in cache.failed
    # Given up after the first failure: the storage is not touched again, even once it
    # works (a locked cache costs one lock timeout, not one per request).
    monkeypatch.undo()
    assert await cache.get("crossref", KEY) is None
    await cache.put("crossref", "/other", RESPONSE, ttl_s=DAY)
    assert (await cache.stats()).stores == 1


@pytest.mark.asyncio
async def test_close_ends_the_worker_thread(tmp_path: Path) -> None:
    def workers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("response-cache")]

    before = set(workers())
    async with await ResponseCache.open(tmp_path) as cache:
        await cache.put("crossref", KEY, RESPONSE, ttl_s=DAY)
        assert await cache.get("crossref", KEY) == RESPONSE
        assert len(set(workers()) - before) == 1  # diskcache calls ran off the loop thread
    assert set(workers()) - before == set()


@pytest.mark.asyncio
async def test_opening_the_cache_on_the_loop_is_caught_by_the_blocking_detector(
    tmp_path: Path,
) -> None:
    from blockbuster import BlockingError

    with pytest.raises(BlockingError):
        ResponseCache(tmp_path / "cache")
    async with await ResponseCache.open(tmp_path / "cache") as cache:  # the way to do it
        assert cache.format_version >= 1


@pytest.mark.parametrize("headers", [
    b'{"a":"1","b":null}', b'{"a":["x"]}', b'{"a":{"b":"c"}}', b'{"a":"1","b":2.5}',
    b'{"a":true}',
])
def test_a_header_value_of_any_other_json_type_is_refused(headers: bytes) -> None:
    # decode_response checks the values' types in one pass: every type but str refuses.
    with pytest.raises(ValueError, match="must be strings"):
        decode_response(_framed(b'{"status":200,"headers":' + headers + b"}"))


def test_no_headers_and_string_headers_decode() -> None:
    assert decode_response(_framed(b'{"status":204,"headers":{}}', b"x")) == HttpResponse(
        204, b"x", {})
    assert decode_response(_framed(b'{"status":200,"headers":{"a":"1","b":""}}')).headers == {
        "a": "1", "b": ""}


def test_entries_with_the_same_header_share_its_decoding_not_its_dict() -> None:
    header = b'{"status":200,"headers":{"content-type":"application/json","x-n":"1"}}'
    entry._headers_seen.clear()
    first = decode_response(_framed(header, b"one"))
    second = decode_response(_framed(header, b"two"))
    assert (first.status, first.body, second.body) == (200, b"one", b"two")
    assert first.headers == second.headers == {"content-type": "application/json", "x-n": "1"}
    assert list(entry._headers_seen) == [header]  # decoded once, kept by its bytes
    # Each response holds its own dict: changing one changes no other, nor the memo.
    first.headers["x-n"] = "changed"  # type: ignore[index]
    assert decode_response(_framed(header, b"three")).headers["x-n"] == "1"
    assert second.headers["x-n"] == "1"
    # A header that does not decode is refused each time, never kept.
    bad = b'{"status":"200","headers":{}}'
    for _ in range(2):
        with pytest.raises(ValueError, match="integer status"):
            decode_response(_framed(bad))
    assert bad not in entry._headers_seen
    # The memo is a value memo: forget_all empties it.
    forget_all()
    assert not entry._headers_seen
