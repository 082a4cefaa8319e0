"""The engine's one I/O seam: an HTTP request in, an HTTP response (or a mapped error) out.

Adapters build :class:`HttpRequest` values and parse :class:`HttpResponse` values as pure
functions; only a :class:`Transport` touches the network. :class:`AiohttpTransport` is the
real one. Tests that need a network use a real server on loopback, not a fake transport.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from urllib.parse import urlencode

import aiohttp
from yarl import URL

from verifier.errors import ConnectFailed, ConnectionLost, RequestTimeout, TransportError


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """A request against one source, relative to that source's base URL (a GET unless
    ``method`` says otherwise; ``body`` is sent as given, e.g. a JSON document for a POST).

    ``path`` is appended to the base URL as given (already percent-encoded where the
    service needs it); ``params`` become the query string in order. ``request_class``
    names the rate class the source's policy paces it under (e.g. ``"single"`` for a
    record lookup, ``"list"`` for a search). ``identity_params`` and ``headers`` carry
    identification (contact address, API keys) and are left out of the cache key.
    """

    path: str
    params: tuple[tuple[str, str], ...] = ()
    request_class: str = "list"
    headers: tuple[tuple[str, str], ...] = ()
    identity_params: tuple[tuple[str, str], ...] = ()
    cost: float = 1.0
    """What the request costs against a daily budget, in the service's own unit (OpenAlex
    credits: a record lookup 0, a list 1, a search 10); ignored where there is none."""
    method: str = "GET"
    body: bytes | None = None

    def url(self, base_url: str) -> str:
        query = urlencode(self.params + self.identity_params)
        url = base_url.rstrip("/") + self.path
        return f"{url}?{query}" if query else url

    def cache_key(self) -> str:
        """The request as the cache sees it: path and sorted parameters, no identity."""
        return self.path + "?" + urlencode(sorted(self.params))


@dataclass(frozen=True, slots=True)
class HttpResponse:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    """Header names are lower-cased."""

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class Transport(ABC):
    """Sends one request and returns the response, whatever its status.

    Contract:

    - ``send`` returns for every HTTP status; status handling is the caller's job.
    - It raises only :class:`~verifier.errors.TransportError` subclasses, mapped from the
      lower layer (``ConnectFailed``, ``ConnectionLost``, ``RequestTimeout`` for a
      timeout of the lower layer's own).
    - It sets no deadline of its own: the caller wraps ``send`` in a timeout scope and
      cancellation must leave the transport usable.
    - It is opened and closed inside the running event loop (``async with``).
    """

    @abstractmethod
    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        ...

    async def __aenter__(self) -> Transport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass


@contextmanager
def map_aiohttp_exceptions() -> Iterator[None]:
    """Map aiohttp's client exceptions onto our tree, most specific first."""
    try:
        yield
    except aiohttp.ServerTimeoutError as exc:
        raise RequestTimeout(f"no answer in time ({type(exc).__name__})") from exc
    except aiohttp.ClientConnectorError as exc:
        raise ConnectFailed(f"could not connect: {exc}") from exc
    except (
        aiohttp.ServerDisconnectedError,
        aiohttp.ClientPayloadError,
        aiohttp.ClientOSError,
        aiohttp.ClientResponseError,
        ConnectionResetError,
    ) as exc:
        raise ConnectionLost(f"connection lost: {type(exc).__name__}: {exc}") from exc
    except aiohttp.ClientError as exc:
        raise TransportError(f"transport error: {type(exc).__name__}: {exc}") from exc


class AiohttpTransport(Transport):
    """One ``aiohttp.ClientSession`` per engine, created inside the running loop.

    Connection-level concurrency is left to the per-source policy; the connector only caps
    the total so a huge run cannot exhaust file descriptors.
    """

    def __init__(self, user_agent: str, *, max_connections: int = 100) -> None:
        self._user_agent = user_agent
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> AiohttpTransport:
        asyncio.get_running_loop()  # fail loudly outside a loop
        connector = aiohttp.TCPConnector(limit=self._max_connections, ttl_dns_cache=300)
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers={"User-Agent": self._user_agent},
            auto_decompress=True,
        )
        return self

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        if self._session is None:
            raise RuntimeError("AiohttpTransport used outside 'async with'")
        with map_aiohttp_exceptions():
            # encoded=True: adapters percent-encode paths on purpose (e.g. ";" in a DOI,
            # which Crossref's server would otherwise cut the path at); yarl must not undo it.
            url = URL(request.url(base_url), encoded=True)
            async with self._session.request(
                request.method, url, headers=dict(request.headers), data=request.body,
                allow_redirects=True,
            ) as response:
                body = await response.read()
                headers = {k.lower(): v for k, v in response.headers.items()}
                return HttpResponse(status=response.status, body=body, headers=headers)
