"""What each stand-in service module exports: its routes and its rules of engagement.

Every service module of the world (``crossref.py``, ``openalex.py``, ...) exports one
:class:`ServiceSpec` named ``SERVICE``. The server mounts ``SERVICE.create_app(corpus)``
under ``/<name>`` and wraps it in the shared machinery (request log, rate and
concurrency enforcement, scripted faults), which asks the spec the service-specific
questions:

- ``pool_of(request)``: which pool the request falls in, by its identification
  (``"public"``, ``"polite"``, ``"plus"``; ``"keyless"``, ``"keyed"`` ...);
- ``request_class(request)``: which rate class it counts against (``"single"`` for a
  record lookup, ``"list"`` for a search or list) where the service's limits differ;
- ``limits[pool][request_class]``: the published limits of that pool and class;
- ``throttled(retry_after)``: the service's own "too many requests" answer (a 429 with
  the body and headers the real service sends: HTML for Crossref, plain text for arXiv,
  JSON for PubMed ...), ``retry_after`` in seconds or None when the service sends none.

The limits are the published ones (``shared/docs/apis.md``); a world ``time_scale``
speeds every one of them up equally.

Each service's application also puts :func:`framing` outermost: the service's own answer
for a path none of its routes serves, its gateway's refusals, and its common headers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from .corpus import Corpus


@dataclass(frozen=True, slots=True)
class Limit:
    """``rate`` requests per ``period_s`` seconds; at most ``concurrency`` in flight
    (None: the service publishes no concurrency limit)."""

    rate: float
    period_s: float = 1.0
    concurrency: int | None = None

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.period_s <= 0:
            raise ValueError(f"impossible limit {self!r}")
        if self.concurrency is not None and self.concurrency < 1:
            raise ValueError(f"impossible concurrency in {self!r}")


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    name: str
    create_app: Callable[[Corpus], web.Application]
    pool_of: Callable[[web.Request], str]
    request_class: Callable[[web.Request], str]
    limits: Mapping[str, Mapping[str, Limit]]
    """pool -> request class -> limit. Every pool names every class its requests use."""
    throttled: Callable[[float | None], web.Response]

    def limit_for(self, request: web.Request) -> tuple[str, str, Limit]:
        """(pool, request class, limit) of one request."""
        pool = self.pool_of(request)
        classes = self.limits.get(pool) or next(iter(self.limits.values()))
        name = self.request_class(request)
        limit = classes.get(name) or next(iter(classes.values()))
        return pool, name, limit


def framing(
    unrouted: Callable[[web.Request, web.HTTPException], web.StreamResponse],
    *,
    catch: tuple[type[web.HTTPException], ...] = (web.HTTPNotFound,),
    headers: Mapping[str, str] | Callable[[web.Request], Mapping[str, str]] | None = None,
    refuse: Callable[[web.Request], web.StreamResponse | None] | None = None,
) -> Middleware:
    """A service application's outermost middleware.

    ``refuse(request)``: the service's refusal before any route runs (a blocked agent, a
    bad key), or None to serve the request. ``unrouted(request, exc)``: the service's own
    answer in place of aiohttp's for an ``exc`` of a type in ``catch`` (by default only
    ``HTTPNotFound``: a path no route serves). ``headers``: set on every answer (its
    values replace the handler's), or computed per request once the answer is ready.
    """

    @web.middleware
    async def frame(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = refuse(request) if refuse is not None else None
        if response is None:
            try:
                response = await handler(request)
            except catch as exc:
                response = unrouted(request, exc)
        if headers is not None:
            response.headers.update(headers(request) if callable(headers) else headers)
        return response

    return frame
