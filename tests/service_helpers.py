"""What the service's tests share: the service on an open session, served on loopback,
against the offline world in the same loop (the world is the stand-in, not under test)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aiohttp import web
from world_helpers import DEMO_CORPUS, DEMO_DIR

from verifier.service import ServiceConfig, create_app
from verifier.session import Session
from verifier.settings import DEFAULT_BASE_URLS, SOURCE_NAMES, Settings
from verifier.world import serve_world

DEMO_REFS = DEMO_DIR / "refs.txt"
KEY = "test-key-0123456789"
OTHER_KEY = "other-key-9876543210"


def demo_refs() -> list[str]:
    return [line.strip() for line in DEMO_REFS.read_text().splitlines() if line.strip()]


@dataclass
class Running:
    url: str
    app: web.Application
    session: Session
    world_urls: dict[str, str]

    def headers(self, key: str | None = KEY, **extra: str) -> dict[str, str]:
        headers = dict(extra)
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        return headers


def world_settings(base_urls: dict[str, str], cache_dir: Path | None) -> Settings:
    served = tuple(name for name in SOURCE_NAMES if name in base_urls)
    return Settings(mailto="tests@example.org", base_urls={**DEFAULT_BASE_URLS, **base_urls},
                    sources=served, cache_dir=cache_dir, time_scale=20.0)


@asynccontextmanager
async def running_service(tmp_path: Path, *, world_urls: dict[str, str] | None = None,
                          send_buffer: int | None = None, **config: Any
                          ) -> AsyncIterator[Running]:
    """The service on loopback against ``world_urls`` (or a fresh world of the demo
    corpus at 20x speed), keys ``KEY`` and ``OTHER_KEY`` unless ``config`` says else.
    ``send_buffer`` fixes the kernel's send buffer of every connection (a slow network:
    the kernel cannot soak up megabytes that the server should not have produced)."""
    if world_urls is None:
        async with serve_world(DEMO_CORPUS, time_scale=20.0) as world:
            async with running_service(tmp_path, world_urls=world.base_urls,
                                       send_buffer=send_buffer, **config) as running:
                yield running
        return
    base = ServiceConfig(data_dir=tmp_path / "data", keys=(KEY, OTHER_KEY))
    service_config = replace(base, **config)
    async with Session(world_settings(world_urls, tmp_path / "cache")) as session:
        app = create_app(service_config, session)
        runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=2.0)
        await runner.setup()
        try:
            listener = socket.socket()
            if send_buffer is not None:  # inherited by every accepted connection
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
            listener.bind(("127.0.0.1", 0))
            site = web.SockSite(runner, listener)
            await site.start()
            port = runner.addresses[0][1]
            yield Running(f"http://127.0.0.1:{port}", app, session, world_urls)
        finally:
            await runner.cleanup()
