"""The world server: every stand-in service in one aiohttp application on loopback.

Each service is mounted under its source name, so the engine's base URL for a source is
``http://127.0.0.1:PORT/<source>`` (``/crossref``, ``/openalex``) and requests keep the
real paths below it (``/crossref/works/10.1038/171737a0``). Every request is recorded in
a :class:`RequestLogEntry` list that tests and benchmarks read.

Use :func:`serve_world` in a running event loop::

    async with serve_world(Path("fixtures/demo/corpus.jsonl")) as world:
        settings = Settings(base_urls=world.base_urls)
        ...
        assert world.requests[0].source == "crossref"

or run it standalone: ``python -m verifier.world.server --corpus fixtures/demo/corpus.jsonl``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from . import crossref, openalex
from .corpus import Corpus

SERVICES: Mapping[str, Callable[[Corpus], web.Application]] = {
    crossref.NAME: crossref.create_app,
    openalex.NAME: openalex.create_app,
}
"""The stand-in services by source name (each module's ``create_app``)."""


@dataclass(frozen=True, slots=True)
class RequestLogEntry:
    """One request the world answered."""

    source: str | None
    """The service (``crossref``, ``openalex``), or None for a path outside every service."""
    method: str
    path: str
    """Path below the service's prefix, decoded (``/works/10.1038/171737a0``)."""
    query: str
    """The query string (percent-decoded)."""
    endpoint: str | None
    """The route's name (``works``, ``work``, ``agency``; ``v1.works`` on ``/v1``), or None
    when no route matched."""
    status: int
    time: float
    """``time.monotonic()`` when the request arrived."""
    finished: float
    """``time.monotonic()`` when its response was ready."""


REQUEST_LOG = web.AppKey("request_log", list[RequestLogEntry])
"""Where :func:`create_app` keeps its request log on the root application."""
CORPUS = web.AppKey("corpus", Corpus)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def _log_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
    started = time.monotonic()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:
        status = exc.status
        raise
    finally:
        head, _, rest = request.path.lstrip("/").partition("/")
        source = head if head in SERVICES else None
        route = request.match_info.route
        request.app[REQUEST_LOG].append(RequestLogEntry(
            source=source,
            method=request.method,
            path=f"/{rest}" if source else request.path,
            query=request.query_string,
            endpoint=route.name if route is not None else None,
            status=status,
            time=started,
            finished=time.monotonic(),
        ))


def create_app(corpus: Corpus) -> web.Application:
    """The world as one aiohttp application: each service of :data:`SERVICES` mounted
    under ``/<source>``, and the request log in ``app[REQUEST_LOG]``."""
    app = web.Application(middlewares=[_log_requests])
    app[REQUEST_LOG] = []
    app[CORPUS] = corpus
    for name, make in SERVICES.items():
        app.add_subapp(f"/{name}", make(corpus))
    return app


@dataclass(slots=True)
class WorldHandle:
    """A running world: where each service listens, and what it was asked."""

    url: str
    """Root URL, ``http://127.0.0.1:PORT``."""
    base_urls: dict[str, str]
    """Base URL of each service by source name (what ``Settings.base_urls`` takes)."""
    requests: list[RequestLogEntry]
    """Every request answered so far, in arrival order (clear it freely)."""
    corpus: Corpus
    port: int

    def requests_for(self, source: str) -> list[RequestLogEntry]:
        """The requests one service answered."""
        return [r for r in self.requests if r.source == source]


@contextlib.asynccontextmanager
async def serve_world(
    corpus: Path | str | Corpus, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[WorldHandle]:
    """Serve the world in the running event loop for the duration of the block.

    ``corpus`` is a :class:`Corpus` or the path of a JSON Lines corpus. ``port=0`` picks a
    free port (reported in the handle). Binds loopback unless told otherwise.
    """
    if not isinstance(corpus, Corpus):
        corpus = Corpus.load(corpus)
    app = create_app(corpus)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1]
        netloc = f"[{host}]:{bound}" if ":" in host else f"{host}:{bound}"
        root = f"http://{netloc}"
        yield WorldHandle(
            url=root,
            base_urls={name: f"{root}/{name}" for name in SERVICES},
            requests=app[REQUEST_LOG],
            corpus=corpus,
            port=bound,
        )
    finally:
        await runner.cleanup()


async def _serve_forever(corpus_path: Path, host: str, port: int) -> None:
    async with serve_world(corpus_path, host, port) as world:
        for name, url in world.base_urls.items():
            print(f"{name:10} {url}", flush=True)
        print(f"{len(world.corpus)} works; Ctrl-C to stop", flush=True)
        await asyncio.Event().wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the world until interrupted (prints each service's base URL)."""
    parser = argparse.ArgumentParser(prog="python -m verifier.world.server",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--corpus", type=Path, required=True, help="JSON Lines corpus")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve_forever(args.corpus, args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
