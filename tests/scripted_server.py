"""A real HTTP server on loopback that plays scripted replies and logs what it received.

Each route (a path prefix) has a script: a list of replies served in order, the last one
repeating. A reply can be slow, reset the connection, or carry any status, headers and
body. The log records every request's path, arrival and departure times (server clock)
and how many requests were in flight when it arrived, so tests can check pacing from
the server's side.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = b""
    """bytes, str, or anything JSON-serialisable (sent as application/json)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    reset: bool = False
    """Close the connection without answering."""
    content_type: str | None = None


@dataclass
class Hit:
    path: str
    query: str
    arrived: float
    left: float = 0.0
    in_flight: int = 0
    headers: Mapping[str, str] = field(default_factory=dict)


class ScriptedServer:
    def __init__(self, scripts: Mapping[str, list[Reply]] | None = None) -> None:
        self.scripts: dict[str, list[Reply]] = {k: list(v) for k, v in (scripts or {}).items()}
        self.hits: list[Hit] = []
        self._served: dict[str, int] = {}
        self._in_flight = 0
        self.base_url = ""

    def script(self, prefix: str, *replies: Reply) -> None:
        self.scripts[prefix] = list(replies)
        self._served[prefix] = 0

    def hits_for(self, prefix: str) -> list[Hit]:
        return [h for h in self.hits if h.path.startswith(prefix)]

    def _route(self, path: str) -> str | None:
        matches = [p for p in self.scripts if path.startswith(p)]
        return max(matches, key=len) if matches else None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        hit = Hit(
            request.path,
            request.query_string,
            time.monotonic(),
            in_flight=self._in_flight + 1,
            headers=dict(request.headers),
        )
        self.hits.append(hit)
        self._in_flight += 1
        try:
            prefix = self._route(request.path)
            if prefix is None:
                return web.Response(status=404, text="no script for this path")
            served = self._served.get(prefix, 0)
            script = self.scripts[prefix]
            reply = script[min(served, len(script) - 1)]
            self._served[prefix] = served + 1
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.reset:
                assert request.transport is not None
                request.transport.abort()
                raise ConnectionResetError("scripted reset")
            body = reply.body
            content_type = reply.content_type
            if isinstance(body, bytes):
                data = body
            elif isinstance(body, str):
                data = body.encode()
                content_type = content_type or "text/plain"
            else:
                data = orjson.dumps(body)
                content_type = content_type or "application/json"
            response = web.Response(status=reply.status, body=data, headers=dict(reply.headers))
            if content_type:
                response.content_type = content_type
            return response
        finally:
            self._in_flight -= 1
            hit.left = time.monotonic()


@asynccontextmanager
async def scripted_server(
    scripts: Mapping[str, list[Reply]] | None = None,
) -> AsyncIterator[ScriptedServer]:
    server = ScriptedServer(scripts)
    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", server._handle)
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=0.2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    sockets = getattr(site._server, "sockets", None) or []
    port = sockets[0].getsockname()[1]
    server.base_url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        await runner.cleanup()


def max_in_window(times: list[float], window: float) -> int:
    """The most events in any half-open interval of length ``window``."""
    times = sorted(times)
    best = 0
    start = 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best
