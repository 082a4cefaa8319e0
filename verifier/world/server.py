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

    async with serve_world(Path("fixtures/demo/corpus.jsonl"), time_scale=20) as world:
        settings = Settings(base_urls=world.base_urls)
        ...
        assert world.requests[0].source == "crossref"

or run it standalone (:func:`main`)::

    python -m verifier.world.server --corpus fixtures/demo/corpus.jsonl --port 8765 \\
        --time-scale 1 --scenario fixtures/world/scenarios/faults.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from . import arxiv, crossref, doaj, googlebooks, openalex, openlibrary, pubmed, semanticscholar
from .corpus import Corpus, CorpusError
from .faults import FAULT, RESET, FaultInjector, Scenario, ScenarioError, faults_middleware
from .limits import CLOCK, JITTER_S, THROTTLED, Limiter, WorldClock, limits_middleware
from .models import MODELS_PREFIX, ModelFaults, ModelWorld, ModelWorldOptions, mount_models
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



def _service_of(request: web.Request) -> ServiceSpec | None:
    head = request.path.lstrip("/").partition("/")[0]
    return request.app[SPECS].get(head)


@web.middleware
async def _log_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
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
    own rules, such as OpenAlex's daily budget, still apply). Raises ``ValueError`` for
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
    app[SPECS] = specs
    for name, spec in specs.items():
        app.add_subapp(f"/{name}", spec.create_app(corpus))
    if models is not None:
        app[MODELS] = mount_models(app, models, clock)
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
    if not isinstance(corpus, Corpus):
        corpus = Corpus.load(corpus)
    if scenario is not None and not isinstance(scenario, Scenario):
        scenario = Scenario.load(scenario)
    app = create_app(corpus, time_scale=time_scale, scenario=scenario, services=services,
                     enforce_limits=enforce_limits, jitter_s=jitter_s, models=models)
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


async def _serve_forever(args: argparse.Namespace) -> None:
    async with serve_world(args.corpus, args.host, args.port, time_scale=args.time_scale,
                           scenario=args.scenario, enforce_limits=not args.no_limits,
                           services=args.services,
                           models=_model_options(args)) as world:
        for name, url in world.base_urls.items():
            print(f"{name:16} {url}", flush=True)
        limits = "off" if args.no_limits else f"time scale {args.time_scale:g}"
        scenario = f"; scenario {args.scenario}" if args.scenario else ""
        print(f"{len(world.corpus)} works; limits {limits}{scenario}; Ctrl-C to stop",
              flush=True)
        if world.models_url:  # after the banner scripts read (one line per service)
            print(f"models: {world.models_url}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
                loop.add_signal_handler(signum, stop.set)
        try:
            await stop.wait()
        finally:
            for line in summarize(world.requests):
                print(line, flush=True)


def _model_options(args: argparse.Namespace) -> ModelWorldOptions | None:
    if not args.models:
        return None
    faults = ModelFaults.parse(args.model_faults) if args.model_faults else None
    return ModelWorldOptions(faults=faults)


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def main(argv: Sequence[str] | None = None, *, prog: str = "python -m verifier.world.server"
         ) -> int:
    """Run the world until interrupted (SIGINT or SIGTERM): prints each service's base URL,
    and a summary of the requests answered when stopped. Returns the exit status (2 for a corpus or
    scenario that cannot be read). ``verifier world serve`` calls it with its own
    ``prog``."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Serve the offline stand-in services over a corpus.")
    parser.add_argument("--corpus", type=Path, required=True, help="JSON Lines corpus")
    parser.add_argument("--host", default="127.0.0.1", help="default: loopback")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--time-scale", type=_positive, default=1.0, metavar="X",
                        help="divide every period (rate limits, Retry-After, fault windows, "
                             "days) by X; default 1")
    parser.add_argument("--scenario", type=Path, help="scripted faults (JSON)")
    parser.add_argument("--services", nargs="+", choices=list(SERVICES), metavar="NAME",
                        help=f"serve only these ({', '.join(SERVICES)}); default all")
    parser.add_argument("--no-limits", action="store_true",
                        help="do not enforce rate and concurrency limits")
    parser.add_argument("--models", action=argparse.BooleanOptionalAction, default=True,
                        help="also serve the simulated model endpoint under /models/v1 "
                             "(default: on)")
    parser.add_argument("--model-faults", metavar="SPEC",
                        help="faults of the model endpoint by rate, e.g. '500:0.1,timeout:0.05' "
                             "(names: 500 502 503 timeout truncated length no_logprobs refusal "
                             "empty quota)")
    args = parser.parse_args(argv)
    if args.model_faults:
        try:
            ModelFaults.parse(args.model_faults)
        except ValueError as exc:
            parser.error(str(exc))
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve_forever(args))
    except (CorpusError, ScenarioError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
