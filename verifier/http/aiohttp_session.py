"""The wire work of :class:`~verifier.http.transport.AiohttpTransport`: one
``aiohttp.ClientSession``, redirects followed by hand, aiohttp's errors mapped onto ours.

Imported only when a request really goes out (the transport imports it on its first
``send``, off the loop): importing aiohttp costs a new process about a tenth of a second.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import aiohttp
from yarl import URL

from verifier.errors import ConnectFailed, ConnectionLost, RequestTimeout, TransportError

from .redact import redact, strip_credentials
from .transport import MAX_REDIRECTS, HttpRequest, HttpResponse

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


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


class AiohttpSession:
    """One ``aiohttp.ClientSession``; create it inside the running loop, close it once.

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
        connector = aiohttp.TCPConnector(limit=max_connections, ttl_dns_cache=300)
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers={"User-Agent": user_agent},
            auto_decompress=True,
        )

    async def close(self) -> None:
        await self._session.close()

    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        """The response to ``request`` (see the class docstring and ``Transport.send``)."""
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
