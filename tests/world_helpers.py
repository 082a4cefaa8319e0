"""What the world's tests share: a stand-in (or the whole world) served on loopback, a small
client that reads each answer whole, the demo corpus put in one source, and an engine
adapter's round trip through a stand-in.

No async fixtures: each test opens the server and its session inside its own task.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import aiohttp
import orjson
from aiohttp import web
from yarl import URL

from adapters.base import Identity, SourceAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord
from verifier.http.transport import AiohttpTransport, HttpRequest, Transport
from verifier.world import Corpus, WorldHandle, serve_world
from verifier.world.service import ServiceSpec

DEMO_DIR = Path(__file__).resolve().parents[1] / "verifier" / "world" / "demo"
DEMO_CORPUS = DEMO_DIR / "corpus.jsonl"


# ----------------------------------------------------------------------------- serving


@asynccontextmanager
async def serve_app(name: str, app: web.Application) -> AsyncIterator[str]:
    """``app`` mounted under ``/<name>`` as the world mounts a service, on a free loopback
    port; yields its base URL (``http://127.0.0.1:PORT/<name>``)."""
    root = web.Application()
    root.add_subapp(f"/{name}", app)
    runner = web.AppRunner(root, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/{name}"
    finally:
        await runner.cleanup()


def serve_service(spec: ServiceSpec, corpus: Corpus) -> AbstractAsyncContextManager[str]:
    """One stand-in over ``corpus``, without the world's log, limits or faults."""
    return serve_app(spec.name, spec.create_app(corpus))


# ----------------------------------------------------------------------------- clients


@dataclass
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def json(self) -> Any:
        return orjson.loads(self.body)

    def xml(self) -> ET.Element:
        return ET.fromstring(self.body)


class Client:
    """Requests below one base URL, each answer read whole into a :class:`Reply`."""

    encoded = False
    """True: each path goes out exactly as written (yarl would turn ``%3B`` into ``;``)."""

    def __init__(self, base: str, session: aiohttp.ClientSession) -> None:
        self.base = base
        self.session = session

    async def send(self, method: str, path: str, **options: Any) -> Reply:
        """``options`` are aiohttp's (``params``, ``headers``, ``data``, ``json`` ...)."""
        url = URL(self.base + path, encoded=True) if self.encoded else self.base + path
        async with self.session.request(method, url, **options) as response:
            return Reply(response.status, response.headers, await response.read())

    async def get(self, path: str, params: Mapping[str, str] | None = None,
                  headers: Mapping[str, str] | None = None) -> Reply:
        return await self.send("GET", path, params=params, headers=headers)


class EncodedClient(Client):
    encoded = True


C = TypeVar("C", bound=Client)


@asynccontextmanager
async def connect(server: AbstractAsyncContextManager[str],
                  client_type: Callable[[str, aiohttp.ClientSession], C]) -> AsyncIterator[C]:
    """A client of the server (a context manager yielding a base URL, as
    :func:`serve_service` is) for the duration of the block."""
    async with server as base, aiohttp.ClientSession() as session:
        yield client_type(base, session)


class StandIn(Generic[C]):
    """One stand-in as a test file serves it: over the file's corpus unless given another,
    with the file's client type. ``app_options`` go to the service's ``create_app``."""

    def __init__(self, spec: ServiceSpec, corpus: Corpus,
                 client_type: Callable[[str, aiohttp.ClientSession], C]) -> None:
        self.name = spec.name
        self.create_app: Callable[..., web.Application] = spec.create_app
        self.corpus = corpus
        self.client_type = client_type

    def serve(self, corpus: Corpus | None = None, **app_options: Any
              ) -> AbstractAsyncContextManager[str]:
        """The stand-in mounted as the world mounts it, on a free loopback port; yields its
        base URL."""
        app = self.create_app(self.corpus if corpus is None else corpus, **app_options)
        return serve_app(self.name, app)

    def client(self, corpus: Corpus | None = None, **app_options: Any
               ) -> AbstractAsyncContextManager[C]:
        return connect(self.serve(corpus, **app_options), self.client_type)


class WorldClient:
    """Requests to the services of a running world, by source name."""

    def __init__(self, world: WorldHandle, session: aiohttp.ClientSession,
                 client_type: type[Client] = Client) -> None:
        self.world = world
        self.session = session
        self.client_type = client_type

    def at(self, source: str) -> Client:
        return self.client_type(self.world.base_urls[source], self.session)

    async def get(self, source: str, path: str, params: Mapping[str, str] | None = None,
                  headers: Mapping[str, str] | None = None) -> Reply:
        return await self.at(source).get(path, params, headers)

    async def statuses(self, source: str, path: str, count: int) -> list[int]:
        return [(await self.get(source, path)).status for _ in range(count)]


@asynccontextmanager
async def connect_world(*args: Any, client_type: type[Client] = Client,
                        force_close: bool = False, **options: Any) -> AsyncIterator[WorldClient]:
    """:func:`serve_world` with ``args`` and ``options``, and a client of it.
    ``force_close``: a fresh connection per request."""
    connector = aiohttp.TCPConnector(force_close=True) if force_close else None
    async with (serve_world(*args, **options) as world,
                aiohttp.ClientSession(connector=connector) as session):
        yield WorldClient(world, session, client_type)


# ----------------------------------------------------------------------------- corpora


def demo_in(source: str) -> Corpus:
    """The demo corpus with every work also in ``source`` (rendered as-is)."""
    lines = []
    for line in DEMO_CORPUS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            work = json.loads(line)
            work["sources"] = {**work.get("sources", {}), source: {}}
            lines.append(json.dumps(work))
    return Corpus.from_lines(lines)


# ----------------------------------------------------------------------------- adapters


async def round_trip(adapter: SourceAdapter, transport: Transport, base: str,
                     request: HttpRequest | None, *, follow: bool = True
                     ) -> tuple[HttpRequest, list[WorkRecord]]:
    """The adapter's request (it must have built one) sent, then, as the engine does, the
    follow-up its answer calls for, if any (none when not ``follow``): the request answered
    last, and the records the adapter parses from that answer. An answer that calls for a
    follow-up must parse to no records of its own."""
    assert request is not None
    response = await transport.send(base, request)
    follow_up = adapter.follow_up(request, response) if follow else None
    if follow_up is not None:
        assert adapter.parse(request, response) == []
        request, response = follow_up, await transport.send(base, follow_up)
    return request, adapter.parse(request, response)


async def records_of(adapter: SourceAdapter, transport: Transport, base: str,
                     request: HttpRequest | None, *, follow: bool = True) -> list[WorkRecord]:
    """The records of :func:`round_trip`."""
    _, records = await round_trip(adapter, transport, base, request, follow=follow)
    return records


async def demo_works_missed(spec: ServiceSpec, adapter: SourceAdapter
                            ) -> list[tuple[str, str]]:
    """Every demo work put in ``spec``'s source, searched for by the adapter from its own
    title, authors and year and looked up by its DOI: (work id, request path) of each
    request whose answer, as the adapter parses it, does not hold the work."""
    corpus = demo_in(spec.name)
    missed = []
    async with serve_service(spec, corpus) as base, \
            AiohttpTransport("citation-verifier/test") as transport:
        for work in corpus:
            authors = tuple(Author(family=p.family or "", given=p.given or "",
                                   literal=p.literal or "") for p in work.authors)
            cited = Citation(title=work.full_title, authors=authors, year=work.year)
            by_doi = Citation(identifiers=Identifiers(doi=work.doi))
            for request in (adapter.search_request(cited, Identity()),
                            adapter.lookup_request(by_doi, Identity())):
                if request is None:
                    continue
                answered, records = await round_trip(adapter, transport, base, request)
                if work.full_title.casefold() not in {r.title.casefold() for r in records}:
                    missed.append((work.id, answered.path))
    return missed
