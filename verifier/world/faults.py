"""Scripted faults: a scenario of windows in which a service misbehaves on purpose.

A scenario is a JSON file (format in ``fixtures/world/README.md``)::

    {"description": "OpenAlex throttles, then Semantic Scholar is down for 30 s",
     "windows": [
       {"source": "openalex", "from_request": 50, "count": 30, "fault": "429",
        "retry_after": 2},
       {"source": "semanticscholar", "from_s": 60, "duration_s": 30, "fault": "down"}]}

Each window covers a span of one service's requests, either by **request count** (the
service's requests are numbered from 1 in arrival order, whatever became of them:
``from_request`` .. ``from_request + count - 1``) or by **world time** (``from_s`` ..
``from_s + duration_s`` world seconds after the world started; a ``time_scale`` speeds
it up like every period). Without ``count``/``duration_s`` a window lasts to the end.
``every: N`` faults only every N-th request the window covers (1st, N+1th, ...). When
windows overlap, the first one listed wins.

Faults (injected before the rate limits and the service handler see the request):

- ``"429"``: the service's own throttling answer (``ServiceSpec.throttled``), with
  ``Retry-After: retry_after`` world seconds when given and no Retry-After when not;
- ``"500"``, ``"502"``, ``"503"``, ``"504"``: an HTML error page with that status (a
  5xx burst); ``retry_after`` adds a Retry-After;
- ``"slow"``: wait ``delay`` world seconds, then serve normally (a delay longer than
  the client's timeout scripts a timeout);
- ``"reset"``: close the connection with a TCP reset instead of answering;
- ``"down"``: the same for every covered request (the service unreachable);
- ``"malformed"``: serve normally, but cut the body in half (a truncated answer);
- ``"error_in_200"``: a 200 whose body is the service's error-inside-200 shape (PubMed's
  ``ERROR`` JSON / XML, an arXiv feed announcing results but holding none); for a
  service without such a shape, its normal answer truncated, with status 200;
- ``"redirect_loop"``: a 302 back to the same URL (query, keys included, kept) marked
  with ``world_redirect_loop=1``; a request so marked is always redirected again, so
  the client meets an endless loop whatever the window;
- ``"redirect_host"``: a 302 to the same path and query (keys included, as a careless
  server would send them) on the other loopback name: ``127.0.0.1`` <-> ``localhost``,
  another host to the client; the redirected request is served normally.

Faulted requests are logged with ``fault`` set; a reset has status 0 (no response).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from .limits import WorldClock, retry_after_header
from .service import ServiceSpec

FAULTS: frozenset[str] = frozenset(
    {"429", "500", "502", "503", "504", "slow", "reset", "down", "malformed", "error_in_200",
     "redirect_loop", "redirect_host"}
)
LOOP_MARK = "world_redirect_loop"
"""The query parameter that marks a request caught in a ``redirect_loop``."""
_RESETS = frozenset({"reset", "down"})

FAULT = web.RequestKey("world_fault", str)
"""The fault injected into a request (read by the request log)."""
RESET = web.RequestKey("world_reset", bool)
"""Set when the request's connection was reset instead of answered."""


_WINDOW_KEYS = frozenset({"source", "fault", "from_request", "count", "from_s", "duration_s",
                          "retry_after", "delay", "every", "note"})
_REASONS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
            504: "Gateway Time-out"}
_DETAILS = {500: "The server encountered an internal error.",
            502: "The server returned an invalid or incomplete response.",
            503: "No server is available to handle this request.",
            504: "The server didn't respond in time."}


class ScenarioError(ValueError):
    """A scenario that cannot be used; the message names the file and the window."""


@dataclass(frozen=True, slots=True)
class FaultWindow:
    """One window of a scenario (see the module docstring for each key)."""

    source: str
    """A service name, or ``"*"`` for every service."""
    fault: str
    from_request: int | None = None
    count: int | None = None
    from_s: float | None = None
    duration_s: float | None = None
    retry_after: float | None = None
    """World seconds; for ``429`` and the 5xx faults."""
    delay: float | None = None
    """World seconds; for ``slow``."""
    every: int = 1
    note: str | None = None

    def spans(self, number: int, world_s: float) -> bool:
        """Whether the ``number``-th request of its service, arriving ``world_s`` world
        seconds after the start, falls in this window."""
        if self.from_request is not None:
            end = math.inf if self.count is None else self.from_request + self.count
            return self.from_request <= number < end
        start = self.from_s or 0.0
        end = math.inf if self.duration_s is None else start + self.duration_s
        return start <= world_s < end


@dataclass(frozen=True, slots=True)
class Scenario:
    """A list of fault windows (read with :meth:`load` or :meth:`from_json`)."""

    windows: tuple[FaultWindow, ...]
    description: str = ""
    origin: str = "<scenario>"

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read a scenario file. Raises :class:`ScenarioError` (or OSError)."""
        path = Path(path)
        try:
            data = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise ScenarioError(f"{path}: not valid JSON: {exc}") from exc
        return cls.from_json(data, origin=str(path))

    @classmethod
    def from_json(cls, data: Any, *, origin: str = "<scenario>") -> Scenario:
        """A scenario from its parsed JSON. Raises :class:`ScenarioError`."""
        if not isinstance(data, dict):
            raise ScenarioError(f"{origin}: a scenario is a JSON object with \"windows\"")
        unknown = set(data) - {"description", "windows"}
        if unknown:
            raise ScenarioError(f"{origin}: unknown keys {sorted(unknown)}")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise ScenarioError(f"{origin}: \"description\" must be a string")
        windows = data.get("windows")
        if not isinstance(windows, list):
            raise ScenarioError(f"{origin}: \"windows\" must be a list")
        parsed = tuple(_window(w, f"{origin}: windows[{i}]") for i, w in enumerate(windows))
        return cls(parsed, description, origin)

    @property
    def sources(self) -> frozenset[str]:
        """The services the scenario names (``"*"`` included as is)."""
        return frozenset(w.source for w in self.windows)

    def check_sources(self, served: Iterable[str]) -> None:
        """Raise :class:`ScenarioError` if a window names a service the world does not
        serve (a typo would otherwise script nothing)."""
        names = set(served)
        for i, window in enumerate(self.windows):
            if window.source != "*" and window.source not in names:
                raise ScenarioError(f"{self.origin}: windows[{i}]: source {window.source!r} "
                                    f"is not served here (served: {', '.join(sorted(names))})")


def _number(raw: Mapping[str, Any], key: str, where: str, *, integer: bool = False,
            minimum: float = 0.0, strict: bool = False) -> Any:
    value = raw.get(key)
    if value is None:
        return None
    number_like = isinstance(value, int) or (isinstance(value, float) and not integer)
    if isinstance(value, bool) or not number_like or not math.isfinite(float(value)):
        kind = "an integer" if integer else "a number"
        raise ScenarioError(f"{where}: {key!r} must be {kind}, got {value!r}")
    if float(value) < minimum or (strict and float(value) == minimum):
        relation = ">" if strict else ">="
        raise ScenarioError(f"{where}: {key!r} must be {relation} {minimum:g}, got {value!r}")
    return value


def _window(raw: Any, where: str) -> FaultWindow:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: a window must be an object, got {raw!r}")
    unknown = set(raw) - _WINDOW_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)} "
                            f"(known: {', '.join(sorted(_WINDOW_KEYS))})")
    source, fault = raw.get("source"), raw.get("fault")
    if not isinstance(source, str) or not source:
        raise ScenarioError(f"{where}: \"source\" must name a service (or \"*\")")
    if isinstance(fault, int) and not isinstance(fault, bool):
        fault = str(fault)  # 503 and "503" mean the same
    if fault not in FAULTS:
        raise ScenarioError(f"{where}: \"fault\" must be one of {sorted(FAULTS)}, got {fault!r}")
    by_count, by_time = "from_request" in raw, "from_s" in raw
    if by_count == by_time:
        raise ScenarioError(f"{where}: give either \"from_request\" (a window by request "
                            "count) or \"from_s\" (by world time)")
    if by_count and "duration_s" in raw or by_time and "count" in raw:
        raise ScenarioError(f"{where}: \"count\" goes with \"from_request\", \"duration_s\" "
                            "with \"from_s\"")
    delay = _number(raw, "delay", where, strict=True)
    if (fault == "slow") != (delay is not None):
        raise ScenarioError(f"{where}: \"delay\" (world seconds) goes with fault \"slow\", "
                            "and only with it")
    retry_after = _number(raw, "retry_after", where)
    if retry_after is not None and not (fault == "429" or fault.startswith("5")):
        raise ScenarioError(f"{where}: \"retry_after\" goes with faults 429 and 5xx only")
    note = raw.get("note")
    if note is not None and not isinstance(note, str):
        raise ScenarioError(f"{where}: \"note\" must be a string")
    return FaultWindow(
        source=source,
        fault=fault,
        from_request=_number(raw, "from_request", where, integer=True, minimum=1),
        count=_number(raw, "count", where, integer=True, minimum=1),
        from_s=_number(raw, "from_s", where),
        duration_s=_number(raw, "duration_s", where, strict=True),
        retry_after=retry_after,
        delay=delay,
        every=_number(raw, "every", where, integer=True, minimum=1) or 1,
        note=note,
    )


class FaultInjector:
    """A scenario running on a world clock: numbers each service's requests and says
    which fault, if any, the next one gets. Plain counters, read and written from the
    event loop's one thread."""

    __slots__ = ("_covered", "_numbers", "clock", "scenario")

    def __init__(self, scenario: Scenario, clock: WorldClock) -> None:
        self.scenario = scenario
        self.clock = clock
        self._numbers: dict[str, int] = {}
        self._covered = [0] * len(scenario.windows)

    def __repr__(self) -> str:
        return f"<FaultInjector {len(self.scenario.windows)} windows from {self.scenario.origin}>"

    def next_fault(self, source: str, now: float) -> FaultWindow | None:
        """Count one request of ``source`` arriving at ``now``; its fault window or None."""
        number = self._numbers[source] = self._numbers.get(source, 0) + 1
        world_s = self.clock.elapsed(now)
        for i, window in enumerate(self.scenario.windows):
            if window.source in (source, "*") and window.spans(number, world_s):
                self._covered[i] += 1
                if (self._covered[i] - 1) % window.every == 0:
                    return window
                return None
        return None

    def requests_seen(self, source: str) -> int:
        """How many requests of ``source`` have arrived."""
        return self._numbers.get(source, 0)


# ----------------------------------------------------------------------------- answers


def _with_retry_after(response: web.Response, seconds: float | None) -> web.Response:
    if seconds is None:
        response.headers.popall("Retry-After", None)
    else:
        response.headers["Retry-After"] = retry_after_header(seconds)
    return response


def error_page(status: int) -> web.Response:
    """A load balancer's HTML error page (what a 5xx burst looks like from outside)."""
    reason = _REASONS.get(status, "Error")
    body = (f"<html><body><h1>{status} {reason}</h1>\n{_DETAILS.get(status, reason)}\n"
            "</body></html>\n")
    return web.Response(status=status, body=body.encode(),
                        headers={"Content-Type": "text/html", "Cache-Control": "no-cache"})


def reset_connection(request: web.Request) -> web.Response:
    """Close the request's connection with a TCP reset (SO_LINGER 0). The returned
    response is never sent; the client sees "connection reset by peer"."""
    request[RESET] = True
    transport = request.transport
    if transport is not None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
    return web.Response(status=500)


def truncated(response: web.StreamResponse, status: int | None = None) -> web.StreamResponse:
    """The response with its body cut in half (headers kept, length corrected)."""
    if not isinstance(response, web.Response) or not isinstance(response.body, bytes):
        return response
    body = response.body
    response.body = body[: len(body) // 2]
    if status is not None:
        response.set_status(status)
    return response


def _redirect(location: str) -> web.Response:
    return web.Response(status=302, headers={"Location": location, "Content-Type": "text/html"},
                        body=b"<html><body>Moved</body></html>\n")


def redirect_loop(request: web.Request) -> web.Response:
    """A 302 back to the request's own URL, marked so it loops for ever."""
    if LOOP_MARK in request.query:
        return _redirect(request.path_qs)
    joiner = "&" if request.query_string else "?"
    return _redirect(f"{request.path_qs}{joiner}{LOOP_MARK}=1")


def redirect_host(request: web.Request) -> web.Response:
    """A 302 to the same path and query on the other loopback name."""
    host, _, port = request.host.rpartition(":")
    if not host:
        host, port = request.host, ""
    other = "localhost" if host == "127.0.0.1" else "127.0.0.1"
    netloc = f"{other}:{port}" if port else other
    return _redirect(f"{request.scheme}://{netloc}{request.path_qs}")


def _pubmed_error(request: web.Request) -> web.Response:
    json_mode = request.query.get("retmode", "").lower() == "json"
    if "esearch" in request.path:
        if json_mode:
            body: bytes = orjson.dumps({
                "header": {"type": "esearch", "version": "0.3"},
                "esearchresult": {"ERROR": "Search Backend failed: Exception:\n"
                                           "The server is temporarily unavailable"}})
            # As recorded in the wild: a raw newline inside the string, so not valid JSON.
            body = body.replace(b"\\n", b"\n")
            return web.Response(body=body, headers={"Content-Type": "application/json"})
        return web.Response(
            body=b'<?xml version="1.0" encoding="UTF-8" ?>\n<eSearchResult><ERROR>Search '
                 b"Backend failed: the server is temporarily unavailable</ERROR></eSearchResult>\n",
            headers={"Content-Type": "text/xml; charset=UTF-8"})
    if json_mode or "esummary" in request.path:
        # The rate-limit body, which clients report arriving with a 2xx status.
        return web.Response(body=b'{"error":"API rate limit exceeded","count":"11"}',
                            headers={"Content-Type": "application/json"})
    return web.Response(
        body=b'<?xml version="1.0" encoding="UTF-8" ?>\n<eFetchResult>\n\t<ERROR>Unable to '
             b"obtain query #1</ERROR>\n</eFetchResult>\n",
        headers={"Content-Type": "text/xml; charset=UTF-8"})


def _arxiv_error(request: web.Request) -> web.Response:
    # The known intermittent empty feed: results announced, no <entry> delivered.
    query = request.query_string.replace("&", "&amp;")
    body = (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
        "  <id>https://arxiv.org/api/world-empty-feed</id>\n"
        f"  <title>arXiv Query: {query}</title>\n"
        "  <updated>2026-06-01T00:00:00Z</updated>\n"
        f'  <link href="https://arxiv.org/api/query?{query}" type="application/atom+xml"/>\n'
        "  <opensearch:itemsPerPage>10</opensearch:itemsPerPage>\n"
        "  <opensearch:totalResults>7</opensearch:totalResults>\n"
        "  <opensearch:startIndex>0</opensearch:startIndex>\n"
        "</feed>\n"
    )
    return web.Response(body=body.encode(),
                        headers={"Content-Type": "application/atom+xml; charset=utf-8"})


ERROR_IN_200: Mapping[str, Callable[[web.Request], web.Response]] = {
    "pubmed": _pubmed_error,
    "arxiv": _arxiv_error,
}
"""Services whose real error-inside-200 shape the ``error_in_200`` fault sends."""


# ----------------------------------------------------------------------------- middleware


def faults_middleware(
    service_of: Callable[[web.Request], ServiceSpec | None], injector: FaultInjector
) -> Middleware:
    """Root middleware injecting the scenario's faults (outside the rate limits)."""
    clock = injector.clock

    @web.middleware
    async def inject_faults(request: web.Request, handler: Handler) -> web.StreamResponse:
        spec = service_of(request)
        if spec is None:
            return await handler(request)
        if LOOP_MARK in request.query:
            request[FAULT] = "redirect_loop"
            return redirect_loop(request)
        window = injector.next_fault(spec.name, clock.now())
        if window is None:
            return await handler(request)
        fault = window.fault
        request[FAULT] = fault
        retry_after = None if window.retry_after is None else clock.real(window.retry_after)
        if fault == "429":
            return _with_retry_after(spec.throttled(retry_after), retry_after)
        if fault.isdigit():
            return _with_retry_after(error_page(int(fault)), retry_after)
        if fault in _RESETS:
            return reset_connection(request)
        if fault == "redirect_loop":
            return redirect_loop(request)
        if fault == "redirect_host":
            return redirect_host(request)
        if fault == "slow":
            await asyncio.sleep(clock.real(window.delay or 0.0))
            if request.transport is None or request.transport.is_closing():
                return reset_connection(request)  # the client gave up: nothing to serve
            return await handler(request)
        if fault == "error_in_200":
            shape = ERROR_IN_200.get(spec.name)
            if shape is not None:
                return shape(request)
            return truncated(await handler(request), status=200)
        return truncated(await handler(request))  # malformed

    return inject_faults
