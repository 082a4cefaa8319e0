"""The engine's one I/O seam: an HTTP request in, an HTTP response (or a mapped error) out.

Adapters build :class:`HttpRequest` values and parse :class:`HttpResponse` values as pure
functions; only a :class:`Transport` touches the network. :class:`AiohttpTransport` is the
real one; :class:`~verifier.http.mock.MockTransport` is the in-memory double for tests of
the layers above (wire behaviour is tested against real servers on loopback).
"""

from __future__ import annotations

import asyncio
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from urllib.parse import quote_plus

import aiohttp
from yarl import URL

from verifier.errors import ConnectFailed, ConnectionLost, RequestTimeout, TransportError

from .redact import redact, request_secrets, strip_credentials

MAX_REDIRECTS = 10
"""Redirects one request may follow before it fails (a loop is a ``TransportError``)."""

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """A request against one service, relative to that service's base URL.

    ``method`` is ``GET`` unless a ``body`` is sent (``POST`` with JSON for model
    endpoints). ``path`` is appended to the base URL as given (already percent-encoded where the
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
    """The request body as sent (JSON for model endpoints); part of the cache key."""
    weight: float = 0.0
    """What the request is estimated to use of a weighted limit (a model endpoint's tokens
    per minute); 0 where the service has none."""

    def url(self, base_url: str) -> str:
        query = query_string(self.params + self.identity_params)
        url = base_url.rstrip("/") + self.path
        return f"{url}?{query}" if query else url

    def secrets(self) -> tuple[str, ...]:
        """The credential values this request carries (keys in headers or parameters):
        what no error text may show and no other host may receive."""
        return request_secrets(self.headers, self.identity_params + self.params)

    def cache_key(self) -> str:
        """The request as the cache sees it: method, path, sorted parameters and a hash of
        the body; never identity (keys, contact address)."""
        key = self.path + "?" + query_string(sorted(self.params))
        if self.method != "GET":
            key = f"{self.method} {key}"
        if self.body is not None:
            key += "#" + hashlib.sha256(self.body).hexdigest()
        return key


_ALWAYS_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_QUOTED_BYTES = {b: chr(b) if b in _ALWAYS_SAFE else "+" if b == 0x20 else f"%{b:02X}"
                 for b in range(256)}
"""What ``quote_plus`` writes for each byte of a UTF-8 encoded value: safe characters as
they are, a space as "+", anything else as "%XX" (upper-case hex)."""


def _quote_plus(value: object) -> str:
    """``quote_plus(str(value))``, the same string, by one ``str.translate`` over the
    value's UTF-8 bytes (read as Latin-1, one character per byte)."""
    text = value if isinstance(value, str) else str(value)
    if text.isascii():
        return text.translate(_QUOTED_BYTES)
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        return quote_plus(text)  # a lone surrogate: quote_plus raises as it always did
    return raw.decode("latin-1").translate(_QUOTED_BYTES)


def query_string(params: Sequence[tuple[object, object]]) -> str:
    """``urllib.parse.urlencode(params)``, the same string, with a fast path for names and
    values that need no quoting (most of them)."""
    return "&".join(f"{_quote_plus(k)}={_quote_plus(v)}" for k, v in params)


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
def map_aiohttp_exceptions(secrets: tuple[str, ...] = ()) -> Iterator[None]:
    """Map aiohttp's client exceptions onto our tree, most specific first. aiohttp's
    texts can hold the URL (keys in its query): every message is redacted, with
    ``secrets`` (the request's credential values) besides the patterns."""
    try:
        yield
    except aiohttp.ServerTimeoutError as exc:
        raise RequestTimeout(f"no answer in time ({type(exc).__name__})") from exc
    except aiohttp.ClientConnectorError as exc:
        raise ConnectFailed(redact(f"could not connect: {exc}", secrets)) from exc
    except (
        aiohttp.ServerDisconnectedError,
        aiohttp.ClientPayloadError,
        aiohttp.ClientOSError,
        aiohttp.ClientResponseError,
        ConnectionResetError,
    ) as exc:
        raise ConnectionLost(
            redact(f"connection lost: {type(exc).__name__}: {exc}", secrets)) from exc
    except aiohttp.ClientError as exc:
        raise TransportError(
            redact(f"transport error: {type(exc).__name__}: {exc}", secrets)) from exc


def _origin(url: URL) -> tuple[str, str, int | None]:
    return (url.scheme.lower(), (url.host or "").lower(), url.port)


class AiohttpTransport(Transport):
    """One ``aiohttp.ClientSession`` per engine, created inside the running loop.

    Connection-level concurrency is left to the per-source policy; the connector only caps
    the total so a huge run cannot exhaust file descriptors.

    Redirects are followed here, not by aiohttp, at most :data:`MAX_REDIRECTS` of them:
    to the same origin (scheme, host, port) with the request as it was; to any other
    origin without a credential (the credential headers and query parameters of
    :mod:`verifier.http.redact`, and any parameter carrying one of the request's key
    values), and never with one again for the rest of that request. 303, and 301/302
    after a POST, continue as a GET without a body; 307 and 308 keep method and body.
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
        secrets = request.secrets()
        # encoded=True: adapters percent-encode paths on purpose (e.g. ";" in a DOI,
        # which Crossref's server would otherwise cut the path at); yarl must not undo it.
        url = URL(request.url(base_url), encoded=True)
        origin = _origin(url)
        method, data = request.method, request.body
        headers = dict(request.headers)
        with map_aiohttp_exceptions(secrets):
            for _hop in range(MAX_REDIRECTS + 1):
                async with self._session.request(
                    method, url, headers=headers, data=data, allow_redirects=False,
                ) as response:
                    location = response.headers.get("Location")
                    if response.status not in _REDIRECTS or not location:
                        body = await response.read()
                        found = {k.lower(): v for k, v in response.headers.items()}
                        return HttpResponse(status=response.status, body=body, headers=found)
                    status = response.status
                url = url.join(URL(location))
                if _origin(url) != origin:
                    url, headers = strip_credentials(url, headers, secrets)
                if status == 303 or (status in (301, 302) and method == "POST"):
                    method, data = "GET", None
        where = redact(f"{url.scheme}://{url.host}:{url.port}{url.path}", secrets)
        raise TransportError(f"more than {MAX_REDIRECTS} redirects (a redirect loop?), "
                             f"the last to {where}")
