"""The cache never mixes where answers came from, and never stops a run.

- An answer is keyed on the base URL it came from: the offline world's answers are never
  served as the real service's (issue 9, item 2).
- A corrupt, locked or unusable cache is one notice with the reason and the fix, and
  the run goes on without it (issue 9, item 7).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_http_memory import TextReader

from verifier.http.cache import CACHE_FORMAT_VERSION, ResponseCache
from verifier.http.mock import MockTransport
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.session import Session
from verifier.settings import Settings

DAY = 86_400.0


def settings(cache_dir: Path, url: str) -> Settings:
    return Settings(sources=("crossref",), base_urls={"crossref": url}, cache_dir=cache_dir)


def answering(text: str) -> MockTransport:
    return MockTransport(lambda _base, _request: HttpResponse(200, text.encode()))


async def fetch_once(cache_dir: Path, url: str, transport: MockTransport) -> tuple[str, bool]:
    async with Session(settings(cache_dir, url), transport=transport) as session:
        loop_time = session.client("crossref")._loop.time()
        got = await session.client("crossref").fetch(
            HttpRequest("/works/10.1/x"), loop_time + 30.0, TextReader())
        return got.value, got.cached


@pytest.mark.blocking_allowed("the session opens a real disk cache")
@pytest.mark.asyncio
async def test_an_answer_from_one_base_url_is_never_served_for_another(tmp_path: Path) -> None:
    world = answering("from the world")
    assert await fetch_once(tmp_path, "http://127.0.0.1:8080/crossref", world) == (
        "from the world", False)
    real = answering("from the real service")
    # Same source name, same request, another base URL: a miss, asked again.
    assert await fetch_once(tmp_path, "https://api.crossref.org", real) == (
        "from the real service", False)
    assert len(real.sent) == 1
    # Each origin's answer is still there for its own base URL (a trailing slash does
    # not make another origin).
    again = answering("unused")
    assert await fetch_once(tmp_path, "http://127.0.0.1:8080/crossref/", again) == (
        "from the world", True)
    assert await fetch_once(tmp_path, "https://api.crossref.org", again) == (
        "from the real service", True)
    assert again.sent == []


def test_the_format_version_was_bumped_for_the_origin_in_the_key() -> None:
    assert CACHE_FORMAT_VERSION >= 2


@pytest.mark.asyncio
async def test_the_origin_keeps_entries_apart_in_the_cache_itself(tmp_path: Path) -> None:
    async with await ResponseCache.open(tmp_path) as cache:
        await cache.put("crossref", "/works", HttpResponse(200, b"w"), DAY,
                        origin="http://127.0.0.1:9/crossref")
        assert await cache.get("crossref", "/works", origin="https://api.crossref.org") is None
        assert (await cache.get("crossref", "/works", origin="http://127.0.0.1:9/crossref")
                == HttpResponse(200, b"w"))


# ----------------------------------------------------------------------------- broken caches


async def run_without_cache_problems(cache_dir: Path) -> tuple[list[str], int]:
    transport = answering("answer")
    async with Session(settings(cache_dir, "http://svc.test"), transport=transport) as session:
        client = session.client("crossref")
        first = await client.fetch(HttpRequest("/a"), client._loop.time() + 30, TextReader())
        second = await client.fetch(HttpRequest("/a"), client._loop.time() + 30, TextReader())
        assert first.value == second.value == "answer"
        notices = list(session.stats.notices)
    return notices, len(transport.sent)


def assert_one_cache_notice(notices: list[str], reason: str) -> None:
    about_cache = [n for n in notices if n.startswith("cache:")]
    assert len(about_cache) == 1, notices
    notice = about_cache[0]
    assert reason in notice
    assert "--no-cache" in notice and "--cache-dir" in notice  # the fix


@pytest.mark.blocking_allowed("the session opens a real disk cache")
@pytest.mark.asyncio
async def test_a_corrupt_cache_file_is_one_notice_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "cache.db").write_bytes(b"this is not a database, " * 400)
    notices, sent = await run_without_cache_problems(tmp_path)
    assert_one_cache_notice(notices, "corrupt")
    assert sent == 2  # no cache: both asked


@pytest.mark.blocking_allowed("the session opens a real disk cache")
@pytest.mark.asyncio
async def test_a_cache_folder_that_cannot_be_created_is_one_notice(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")  # read-only as far as a folder inside it goes
    notices, sent = await run_without_cache_problems(blocker / "cache")
    assert_one_cache_notice(notices, "a-file")
    assert sent == 2


@pytest.mark.blocking_allowed("the session opens a real disk cache; sqlite holds a lock")
@pytest.mark.asyncio
async def test_a_cache_locked_by_another_process_is_one_notice(tmp_path: Path) -> None:
    ResponseCache(tmp_path).close()  # a valid cache ...
    holder = sqlite3.connect(tmp_path / "cache.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # ... that another program holds locked
    try:
        notices, sent = await run_without_cache_problems(tmp_path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert_one_cache_notice(notices, "locked")
    assert sent == 2


@pytest.mark.blocking_allowed("the session opens a real disk cache; sqlite holds a lock")
@pytest.mark.asyncio
async def test_a_cache_that_fails_in_use_is_given_up_after_one_notice(tmp_path: Path) -> None:
    transport = answering("answer")
    async with Session(settings(tmp_path, "http://svc.test"), transport=transport) as session:
        client = session.client("crossref")
        holder = sqlite3.connect(tmp_path / "cache.db", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # locked after it was opened
        try:
            for path in ("/a", "/b", "/c"):
                got = await client.fetch(HttpRequest(path), client._loop.time() + 30,
                                         TextReader())
                assert got.value == "answer"
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert session.cache is not None and session.cache.failed is not None
        notices = list(session.stats.notices)
    assert_one_cache_notice(notices, "locked")
    assert len(transport.sent) == 3


def test_the_demo_and_the_benchmarks_never_use_the_users_default_cache(tmp_path: Path) -> None:
    """The world's answers stay out of the user's cache: the demo and the benchmarks
    name their own folders (the origin in the key is the second line of defence)."""

    from walters_wilder import engine_settings

    from verifier.cli.main import demo_settings
    from verifier.settings import default_cache_dir

    demo = demo_settings({"crossref": "http://127.0.0.1:9/crossref"}, tmp_path / "demo")
    bench = engine_settings({}, keyless=False, time_scale=1.0, cache_dir=tmp_path / "b",
                            independence="distinct")
    assert demo.cache_dir == tmp_path / "demo" and bench.cache_dir == tmp_path / "b"
    assert default_cache_dir() not in (demo.cache_dir, bench.cache_dir)
