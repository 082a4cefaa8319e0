"""AiohttpTransport opens its aiohttp session on the first request, not on entry: a run
answered wholly from the cache opens no connection pool (and, in a new process, imports
no aiohttp; tests/test_import_rules.py checks that). The lifecycle contract stays: send
outside ``async with`` raises, concurrent first requests share one session, closing closes
it. Against a real server on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import web

from verifier.http.transport import AiohttpTransport, HttpRequest

PING = HttpRequest("/ping")


@asynccontextmanager
async def serve() -> AsyncIterator[tuple[str, list[str]]]:
    agents: list[str] = []

    async def handle(request: web.Request) -> web.Response:
        agents.append(request.headers.get("User-Agent", ""))
        await asyncio.sleep(0.01)
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_get("/ping", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        yield f"http://127.0.0.1:{runner.addresses[0][1]}", agents
    finally:
        await runner.cleanup()


@pytest.mark.asyncio
async def test_entering_and_closing_without_a_request_opens_no_session() -> None:
    transport = AiohttpTransport("tests")
    async with transport:
        assert transport._session is None
    assert transport._session is None


@pytest.mark.asyncio
async def test_concurrent_first_requests_share_one_session_which_closing_closes() -> None:
    async with serve() as (base, agents):
        transport = AiohttpTransport("tests/1.0")
        async with transport:
            responses = await asyncio.gather(*(transport.send(base, PING) for _ in range(8)))
            session = transport._session
            assert session is not None
            assert all(r.status == 200 for r in responses)
            again = await transport.send(base, PING)
            assert transport._session is session  # one session for the transport's life
            assert again.status == 200
        assert transport._session is None
        assert session._session.closed  # the aiohttp session itself, closed
    assert agents == ["tests/1.0"] * 9


@pytest.mark.asyncio
async def test_sending_before_entry_or_after_close_raises() -> None:
    async with serve() as (base, _):
        transport = AiohttpTransport("tests")
        with pytest.raises(RuntimeError, match="outside 'async with'"):
            await transport.send(base, PING)
        async with transport:
            assert (await transport.send(base, PING)).status == 200
        with pytest.raises(RuntimeError, match="outside 'async with'"):
            await transport.send(base, PING)
