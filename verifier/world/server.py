"""The world server: every stand-in service in one aiohttp application on loopback.

Each service is mounted under its source name, so the engine's base URL for a source is
``http://127.0.0.1:PORT/<source>`` (``/crossref``, ``/openalex``) and requests keep the
real paths below it (``/crossref/works/10.1038/171737a0``). Around the services, in this
order, the world:

1. records every request in a :class:`RequestLogEntry` list that tests and benchmarks read;
2. injects the faults of a scenario, if it has one (:mod:`~verifier.world.faults`);
3. enforces each service's published rate and concurrency limits per pool and request
   class (:mod:`~verifier.world.limits`), answering excess with the service's own 429.

Use :func:`serve_world` in a running event loop::

    async with serve_world(corpus_path, time_scale=20) as world:
        settings = Settings(base_urls=world.base_urls)
        ...
        assert world.requests[0].source == "crossref"

or run it standalone::

    verifier-world serve --demo --port 8765 --time-scale 1 \\
        --scenario fixtures/world/scenarios/faults.json

(also ``python -m verifier.world serve`` and ``verifier world serve``: :mod:`.cli`).
The stats of the request log are also served, outside every service and not logged, at
``GET /_world/stats`` (:func:`stats_of`), for a parent that runs the world in its own
process (:mod:`verifier.world.process`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from . import arxiv, crossref, doaj, googlebooks, openalex, openlibrary, pubmed, semanticscholar
from .corpus import Corpus
from .faults import FAULT, RESET, FaultInjector, Scenario, faults_middleware
from .limits import (
    BUDGETS_ENFORCED,
    CLOCK,
    JITTER_S,
    THROTTLED,
    Limiter,
    WorldClock,
    limits_middleware,
)
from .models import MODELS_PREFIX, ModelWorld, ModelWorldOptions, mount_models
from .service import ServiceSpec

SERVICES: Mapping[str, ServiceSpec] = {
    spec.name: spec
    for spec in (
        crossref.SERVICE,
        openalex.SERVICE,
        pubmed.SERVICE,
        semanticscholar.SERVICE,
        openlibrary.SERVICE,
        googlebooks.SERVICE,
        doaj.SERVICE,
        arxiv.SERVICE,
    )
}
"""The stand-in services by source name (each module's ``SERVICE``)."""


@dataclass(frozen=True, slots=True)
class RequestLogEntry:
    """One request the world answered (or refused, or faulted)."""

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
    """The status sent; 0 when the connection was reset instead (faults ``reset``,
    ``down``, or a ``slow`` request whose client had gone)."""
    time: float
    """``time.monotonic()`` when the request arrived."""
    finished: float
    """``time.monotonic()`` when its response was ready."""
    pool: str | None = None
    """The service's pool for the caller's identification (``public``, ``keyed`` ...)."""
    request_class: str | None = None
    """The rate class the request counted against (``single``, ``list`` ...)."""
    fault: str | None = None
    """The scripted fault injected (``"429"``, ``"slow"``, ``"reset"`` ...), if any."""
    throttled: str | None = None
    """Why the world refused it with a 429 on its own account: ``"rate"``,
    ``"concurrency"`` or ``"budget"`` (None for a scripted 429: see ``fault``)."""


REQUEST_LOG = web.AppKey("request_log", list[RequestLogEntry])
"""Where :func:`create_app` keeps its request log on the root application."""
CORPUS = web.AppKey("corpus", Corpus)
SPECS = web.AppKey("services", Mapping[str, ServiceSpec])
"""The services this world serves, by name."""
MODELS = web.AppKey("models", ModelWorld)
"""The simulated model endpoint's state, when the world serves one."""


CONTROL_PREFIX = "/_world/"
"""Paths of the world's own endpoints (``/_world/stats``): outside every service, never
logged, faulted or limited."""


def _service_of(request: web.Request) -> ServiceSpec | None:
    head = request.path.lstrip("/").partition("/")[0]
    return request.app[SPECS].get(head)


@web.middleware
async def _log_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith(CONTROL_PREFIX):
        return await handler(request)
    clock = request.app[CLOCK]
    started = clock.now()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:
        status = exc.status
        raise
    finally:
        spec = _service_of(request)
        rest = request.path.lstrip("/").partition("/")[2]
        route = request.match_info.route
        pool = request_class = None
        if spec is not None:
            pool, request_class, _ = spec.limit_for(request)
        fault = request.get(FAULT)
        request.app[REQUEST_LOG].append(RequestLogEntry(
            source=spec.name if spec is not None else None,
            method=request.method,
            path=f"/{rest}" if spec is not None else request.path,
            query=request.query_string,
            endpoint=route.name if route is not None else None,
            status=0 if request.get(RESET) else status,
            time=started,
            finished=clock.now(),
            pool=pool,
            request_class=request_class,
            fault=fault,
            throttled=request.get(THROTTLED),
        ))


def _select(services: Iterable[str] | Mapping[str, ServiceSpec] | None
            ) -> Mapping[str, ServiceSpec]:
    if services is None:
        return SERVICES
    if isinstance(services, Mapping):
        for name, spec in services.items():
            if name != spec.name:
                raise ValueError(f"service {spec.name!r} given under the name {name!r}")
        return dict(services)
    chosen = {}
    for name in services:
        if name not in SERVICES:
            raise ValueError(f"unknown service {name!r} (known: {', '.join(SERVICES)})")
        chosen[name] = SERVICES[name]
    return chosen


def create_app(
    corpus: Corpus,
    *,
    time_scale: float = 1.0,
    scenario: Scenario | None = None,
    services: Iterable[str] | Mapping[str, ServiceSpec] | None = None,
    enforce_limits: bool = True,
    enforce_budgets: bool = True,
    jitter_s: float = JITTER_S,
    models: ModelWorldOptions | None = None,
) -> web.Application:
    """The world as one aiohttp application: each service mounted under ``/<source>``,
    the request log in ``app[REQUEST_LOG]``, the clock in ``app[CLOCK]``.

    ``models``: also serve the simulated model endpoint (:mod:`~verifier.world.models`)
    under ``/models`` (base URL ``/models/v1``), on the world's clock, with these options;
    its state is in ``app[MODELS]``.

    ``services``: names from :data:`SERVICES` (default: all of them) or specs by name.
    ``enforce_limits=False`` serves without rate or concurrency limits (the services'
    own rules, such as OpenAlex's daily budget, still apply); ``enforce_budgets=False``
    lifts the daily budgets too (OpenAlex credits, Google Books' queries per day).
    Raises ``ValueError`` for
    an impossible option, :class:`ScenarioError` for a scenario naming a service the
    world does not serve.
    """
    specs = _select(services)
    clock = WorldClock(time_scale)
    middlewares: list[Middleware] = [_log_requests]
    if scenario is not None:
        scenario.check_sources(specs)
        middlewares.append(faults_middleware(_service_of, FaultInjector(scenario, clock)))
    if enforce_limits:
        middlewares.append(limits_middleware(_service_of, Limiter(clock, jitter_s)))
    app = web.Application(middlewares=middlewares)
    app[REQUEST_LOG] = []
    app[CORPUS] = corpus
    app[CLOCK] = clock
    app[BUDGETS_ENFORCED] = enforce_budgets
    app[SPECS] = specs
    for name, spec in specs.items():
        app.add_subapp(f"/{name}", spec.create_app(corpus))
    if models is not None:
        app[MODELS] = mount_models(app, models, clock)
    app.router.add_get(f"{CONTROL_PREFIX}stats", _stats, name="world.stats")
    return app


async def _stats(request: web.Request) -> web.Response:
    """``GET /_world/stats``: :func:`stats_of` the request log so far, as JSON."""
    log: list[RequestLogEntry] = request.app[REQUEST_LOG]
    return web.json_response(stats_of(log))


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
    clock: WorldClock | None = None
    """The world's clock (its ``time_scale``, and when it started)."""
    scenario: Scenario | None = None
    models_url: str | None = None
    """Base URL of the simulated model endpoint (``…/models/v1``), when served."""
    models: ModelWorld | None = None

    def requests_for(self, source: str) -> list[RequestLogEntry]:
        """The requests one service answered."""
        return [r for r in self.requests if r.source == source]


@contextlib.asynccontextmanager
async def serve_world(
    corpus: Path | str | Corpus,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    time_scale: float = 1.0,
    scenario: Scenario | Path | str | None = None,
    services: Iterable[str] | Mapping[str, ServiceSpec] | None = None,
    enforce_limits: bool = True,
    enforce_budgets: bool = True,
    jitter_s: float = JITTER_S,
    models: ModelWorldOptions | None = None,
) -> AsyncIterator[WorldHandle]:
    """Serve the world in the running event loop for the duration of the block.

    ``corpus`` is a :class:`Corpus` or the path of a JSON Lines corpus; ``scenario`` a
    :class:`Scenario` or the path of a scenario file. ``port=0`` picks a free port
    (reported in the handle). Binds loopback unless told otherwise. ``time_scale``
    divides every period of the world (limits, Retry-After, fault windows, days).
    The other options are those of :func:`create_app`.
    """
    # Reading the corpus and building every service's indexes is seconds of CPU for a
    # large corpus: done in a worker thread, so a loop the world shares keeps running.
    if not isinstance(corpus, Corpus):
        corpus = await asyncio.to_thread(Corpus.load, corpus)
    if scenario is not None and not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    app = await asyncio.to_thread(
        create_app, corpus, time_scale=time_scale, scenario=scenario, services=services,
        enforce_limits=enforce_limits, enforce_budgets=enforce_budgets, jitter_s=jitter_s,
        models=models)
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
            base_urls={name: f"{root}/{name}" for name in app[SPECS]},
            requests=app[REQUEST_LOG],
            corpus=corpus,
            port=bound,
            clock=app[CLOCK],
            scenario=scenario,
            models_url=f"{root}{MODELS_PREFIX}/v1" if MODELS in app else None,
            models=app.get(MODELS),
        )
    finally:
        await runner.cleanup()


# ----------------------------------------------------------------------------- command line


def summarize(requests: Iterable[RequestLogEntry]) -> list[str]:
    """One line per service: requests answered, and how many by status and fault."""
    by_source: dict[str, Counter[str]] = {}
    for entry in requests:
        counts = by_source.setdefault(entry.source or "(none)", Counter())
        counts["requests"] += 1
        label = str(entry.status) if entry.status else "reset"
        if entry.fault:
            label += f" ({entry.fault})"
        elif entry.throttled:
            label += f" ({entry.throttled})"
        counts[label] += 1
    lines = []
    for source, counts in sorted(by_source.items()):
        total = counts.pop("requests")
        detail = ", ".join(f"{n} × {label}" for label, n in sorted(counts.items()))
        lines.append(f"{source:16} {total:6} requests: {detail}")
    return lines


def stats_of(requests: Iterable[RequestLogEntry]) -> dict[str, Any]:
    """Counts of a request log, as JSON values: ``requests`` (all), ``throttled`` (answered
    429, by the world's limits or a scripted fault), ``by_source`` (requests per service;
    ``"(none)"`` for paths outside every service) and ``throttled_by_source``."""
    total = throttled = 0
    by_source: Counter[str] = Counter()
    throttled_by_source: Counter[str] = Counter()
    for entry in requests:
        total += 1
        by_source[entry.source or "(none)"] += 1
        if entry.status == 429:
            throttled += 1
            throttled_by_source[entry.source or "(none)"] += 1
    return {"requests": total, "throttled": throttled, "by_source": dict(sorted(by_source.items())),
            "throttled_by_source": dict(sorted(throttled_by_source.items()))}


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m verifier.world.server"
         ) -> int:
    """The ``serve`` command without its name (``python -m verifier.world.server --corpus
    FILE``), kept for old scripts: see :mod:`verifier.world.cli`."""
    import argparse

    from .cli import add_serve_arguments, run_serve

    parser = argparse.ArgumentParser(
        prog=prog, description="Serve the offline stand-in services over a corpus.")
    add_serve_arguments(parser)
    return run_serve(parser.parse_args(argv), prog=prog)


if __name__ == "__main__":
    sys.exit(main())
