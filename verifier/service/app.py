"""The aiohttp application: routes, auth and limits, problems, metrics, CORS, the page.

``create_app(config, session)`` builds it on an open session (one per process). Routes
(documented in :mod:`.openapi`, which a test holds to this table):

==========================  =============================================================
``GET /``                   the web page (``/static/page.js``, ``/static/page.css``)
``GET /openapi.json``       the OpenAPI 3.1 document
``GET /healthz``            alive
``GET /readyz``             ready to check (session open, jobs loaded, not stopping)
``GET /metrics``            Prometheus text format
``GET /v1/sources``         the sources, as ``verifier sources --json``
``POST /v1/citations/check``  one citation -> a report; a list -> NDJSON or a JSON array
``POST /v1/jobs``           a file of citations (any CLI input format) -> a job
``GET /v1/jobs/{id}``       its progress and counts
``GET /v1/jobs/{id}/results``  its lines, NDJSON, from ``?offset=N`` (lines)
``POST /v1/render``         report lines (NDJSON) -> CSV, corrected BibTeX, a report
``DELETE /v1/jobs/{id}``    cancel it
==========================  =============================================================

The claims pipelines mount beside the citations, on the same session and under the same
auth and limits (:mod:`.pipelines`: ``POST /v1/premises/check``, ``POST
/v1/reviews/judge``); further ones add their handlers to :data:`PIPELINE_ROUTES` and
their paths to the OpenAPI document.

Everything under ``/v1/`` needs a bearer key (unless open access was configured, on
loopback); each caller has a concurrency and a rate limit (429 with ``Retry-After``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import asdict
from importlib import resources
from typing import Any

import orjson
from aiohttp import web

from verifier.citations.checker import CitationChecker
from verifier.citations.formats import FORMATS, format_records, line_error
from verifier.citations.inputs import AUTO, READERS, utf8_bytes
from verifier.citations.models import INPUT_ERROR_FLAG, CitationInput
from verifier.citations.report import input_error_to_json, report_to_json
from verifier.errors import InputError
from verifier.session import Session
from verifier.sources import summarize

from .auth import CallerLimits, KeyRing, retry_after
from .config import ServiceConfig
from .fields import refuse_unknown
from .jobs import Job, JobStore
from .metrics import CONTENT_TYPE, Metrics
from .openapi import openapi_document
from .pipelines import mount as mount_pipelines
from .problems import Problem, problem
from .requests import (
    JOB_QUERY,
    OPTION_FIELDS,
    CheckRequest,
    options_record,
    parse_check_body,
    parse_options,
    resolve_format,
)

log = logging.getLogger("verifier.service")

NDJSON = "application/x-ndjson"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

CONFIG = web.AppKey("config", ServiceConfig)
SESSION = web.AppKey("session", Session)
CHECKER = web.AppKey("checker", CitationChecker)
JOBS = web.AppKey("jobs", JobStore)
METRICS = web.AppKey("metrics", Metrics)
KEYS = web.AppKey("keys", KeyRing)
LIMITS = web.AppKey("limits", CallerLimits)
PAGE = web.AppKey("page", dict[str, bytes])
STATE = web.AppKey("state", dict[str, Any])
CALLER = web.RequestKey("caller", str)

PAGE_FILES = {"index.html": "text/html", "page.js": "text/javascript",
              "page.css": "text/css"}

PIPELINE_ROUTES: list[tuple[str, str, Handler]] = []
"""(method, path, handler) of the pipelines to come (premises, review judge): mounted under
``/v1/`` with the same auth, limits and session as the citations."""


def create_app(config: ServiceConfig, session: Session) -> web.Application:
    """The service on an open ``session``. Jobs load (and resume) on startup and stop on
    shutdown; the session stays the caller's to close."""
    app = web.Application(client_max_size=config.max_body_bytes,
                          middlewares=[_problems, _cors, _auth])
    checker = CitationChecker(session)
    metrics = Metrics()
    jobs = JobStore(config.data_dir / "jobs", checker, workers=config.job_workers,
                    concurrency=config.check_concurrency,
                    max_citations=config.max_job_citations,
                    on_line=lambda status: metrics.citations.labels(status, "job").inc())
    metrics.watch(session, jobs.counts_by_state)
    app[CONFIG], app[SESSION], app[CHECKER], app[JOBS], app[METRICS] = \
        config, session, checker, jobs, metrics
    app[KEYS] = KeyRing(config.keys, open_access=config.open_access)
    app[LIMITS] = CallerLimits(config.per_key_concurrency, config.per_key_rate,
                               config.per_key_burst)
    app[PAGE] = {}
    app[STATE] = {"ready": False, "stopping": False}
    app.router.add_get("/", _page)
    app.router.add_get("/static/{name}", _static)
    app.router.add_get("/openapi.json", _openapi)
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", _readyz)
    app.router.add_get("/metrics", _metrics)
    app.router.add_get("/v1/sources", _sources)
    app.router.add_post("/v1/citations/check", _check)
    app.router.add_post("/v1/render", _render)
    app.router.add_post("/v1/jobs", _create_job)
    app.router.add_get("/v1/jobs/{id}", _job)
    app.router.add_get("/v1/jobs/{id}/results", _job_results)
    app.router.add_delete("/v1/jobs/{id}", _cancel_job)
    app.router.add_post("/v1/jobs/{id}/retry", _retry_job)
    mount_pipelines(app, session, checker)
    for method, path, handler in PIPELINE_ROUTES:
        app.router.add_route(method, path, handler)
    app.on_startup.append(_start)
    app.on_shutdown.append(_stop)
    return app


async def _start(app: web.Application) -> None:
    app[PAGE].update(await asyncio.to_thread(_read_page))
    await app[JOBS].start()
    app[STATE]["ready"] = True


async def _stop(app: web.Application) -> None:
    app[STATE]["stopping"] = True
    await app[JOBS].close()


def _read_page() -> dict[str, bytes]:
    folder = resources.files("verifier.service") / "page"
    return {name: (folder / name).read_bytes() for name in PAGE_FILES}


# -- middlewares ------------------------------------------------------------------------


def _route_name(request: web.Request) -> str:
    info = request.match_info.route.resource
    return info.canonical if info is not None else "unmatched"


@web.middleware
async def _problems(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every error as a problem body; every answer counted and timed."""
    started = time.perf_counter()
    metrics = request.app[METRICS]
    try:
        response = await handler(request)
    except Problem as exc:
        response = exc.response()
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        kind = {413: "body-too-large", 404: "not-found", 405: "method-not-allowed"}.get(
            exc.status, "http-error")
        response = problem(exc.status, kind, exc.text or exc.reason,
                           headers={k: v for k, v in exc.headers.items()
                                    if k in ("Allow", "Retry-After")})
    route = _route_name(request)
    metrics.requests.labels(route, request.method, str(response.status)).inc()
    metrics.latency.labels(route).observe(time.perf_counter() - started)
    if response.status in (401, 413, 429):
        metrics.refused.labels(str(response.status)).inc()
    return response


@web.middleware
async def _cors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Off unless origins are configured; then those origins (or ``*``) may call /v1/."""
    origins = request.app[CONFIG].cors_origins
    origin = request.headers.get("Origin")
    allowed = bool(origins) and origin is not None and ("*" in origins or origin in origins)
    if request.method == "OPTIONS" and allowed:
        response: web.StreamResponse = web.Response(status=204)
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = "Authorization, Content-Type, Accept"
        response.headers["Access-Control-Max-Age"] = "600"
    else:
        response = await handler(request)
    if allowed and origin is not None and not response.prepared:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Vary"] = "Origin"
    return response


@web.middleware
async def _auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    if not request.path.startswith("/v1/"):
        return await handler(request)
    caller = request.app[KEYS].caller(request.headers.get("Authorization"))
    if caller is None:
        raise Problem(401, "unauthorized", "a valid bearer API key is required "
                      "(Authorization: Bearer KEY)", headers={"WWW-Authenticate": "Bearer"})
    limits = request.app[LIMITS]
    wait = limits.acquire(caller)
    if wait > 0:
        raise Problem(429, "too-many-requests", f"limit of this key reached; retry in "
                      f"{wait:.2f} s", headers={"Retry-After": retry_after(wait)})
    request[CALLER] = caller
    try:
        return await handler(request)
    finally:
        limits.release(caller)


# -- plain routes -----------------------------------------------------------------------


async def _page(request: web.Request) -> web.Response:
    return _asset(request, "index.html")


async def _static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in PAGE_FILES or name == "index.html":
        raise Problem(404, "not-found", f"no file {name!r}")
    return _asset(request, name)


def _asset(request: web.Request, name: str) -> web.Response:
    return web.Response(body=request.app[PAGE][name], content_type=PAGE_FILES[name],
                        charset="utf-8", headers={
                            "Content-Security-Policy": "default-src 'self'; "
                            "img-src 'self' data:; object-src 'none'; frame-ancestors 'none'",
                            "X-Content-Type-Options": "nosniff"})


async def _openapi(request: web.Request) -> web.Response:
    return _json(openapi_document())


async def _healthz(request: web.Request) -> web.Response:
    return _json({"status": "ok"})


async def _readyz(request: web.Request) -> web.Response:
    state = request.app[STATE]
    ready = state["ready"] and not state["stopping"] and request.app[SESSION].is_open
    return _json({"status": "ready" if ready else "not ready"}, status=200 if ready else 503)


async def _metrics(request: web.Request) -> web.Response:
    body = request.app[METRICS].exposition()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})


async def _sources(request: web.Request) -> web.Response:
    session = request.app[SESSION]
    rows = [dict(asdict(row), available=row.name in session.clients)
            for row in summarize(session.settings)]
    return _json(rows)


def _json(value: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(value), status=status,
                        content_type="application/json")


# -- citations --------------------------------------------------------------------------


async def _read_body(request: web.Request) -> bytes:
    return await request.read()  # over client_max_size: HTTPRequestEntityTooLarge (413)


async def _check(request: web.Request) -> web.StreamResponse:
    app = request.app
    body = await _read_body(request)
    parsed: CheckRequest = await asyncio.to_thread(
        parse_check_body, body, tuple(app[SESSION].clients), app[CONFIG].max_batch)
    checker, metrics = app[CHECKER], app[METRICS]
    if parsed.single:
        item = parsed.items[0]
        assert isinstance(item, CitationInput)
        report = await checker.check(item, parsed.options)
        metrics.citations.labels(report.status.value, "request").inc()
        return web.Response(body=report_to_json(report), content_type="application/json")
    if NDJSON in request.headers.get("Accept", ""):
        return await _stream(request, parsed)
    records: list[tuple[int, orjson.Fragment]] = []
    async for line in _lines(checker, metrics, parsed, app[CONFIG].check_concurrency):
        records.append((orjson.loads(line)["index"], orjson.Fragment(line)))
    records.sort(key=lambda pair: pair[0])
    return web.Response(body=orjson.dumps([fragment for _, fragment in records]),
                        content_type="application/json")


async def _stream(request: web.Request, parsed: CheckRequest) -> web.StreamResponse:
    """NDJSON, a line per citation as each is decided. ``await write`` waits for a slow
    reader (the work is pulled only as fast as lines go out); a reader that goes away
    cancels the handler, which closes the pipeline and cancels its work."""
    app = request.app
    response = web.StreamResponse(headers={"Content-Type": NDJSON,
                                           "Cache-Control": "no-store",
                                           "X-Content-Type-Options": "nosniff"})
    await response.prepare(request)
    async for line in _lines(app[CHECKER], app[METRICS], parsed, app[CONFIG].check_concurrency):
        await response.write(line)
    await response.write_eof()
    return response


async def _lines(checker: CitationChecker, metrics: Metrics, parsed: CheckRequest,
                 concurrency: int) -> AsyncIterator[bytes]:
    """Input errors first (in place: their index is their position), then reports."""
    readable: list[CitationInput] = []
    for position, item in enumerate(parsed.items):
        if isinstance(item, InputError):
            metrics.citations.labels("input_error", "request").inc()
            yield input_error_to_json(item, position)
        else:
            readable.append(item)
    async with aclosing(checker.check_many(readable, parsed.options,
                                           concurrency=concurrency)) as reports:
        async for report in reports:
            unreadable = INPUT_ERROR_FLAG in report.flags
            metrics.citations.labels("input_error" if unreadable else report.status.value,
                                     "request").inc()
            yield report_to_json(report)


RENDERED = {"jsonl": NDJSON, "csv": "text/csv", "bibtex": "application/x-bibtex",
            "markdown": "text/markdown", "html": "text/html"}


async def _render(request: web.Request) -> web.Response:
    """Report lines (as this API or ``verifier check`` wrote them) in another format."""
    refuse_unknown(request.query, ("format",), "the query")
    fmt = request.query.get("format", "csv")
    if fmt not in FORMATS:
        raise Problem(422, "unknown-format", f"unknown output format {fmt!r}; known: "
                      f"{', '.join(FORMATS)}", item=fmt)
    body = await _read_body(request)
    rendered = await asyncio.to_thread(_render_lines, body, fmt)
    return web.Response(body=rendered, headers={"Content-Type": f"{RENDERED[fmt]}; "
                                                "charset=utf-8"})


def _render_lines(body: bytes, fmt: str) -> bytes:
    records = []
    for number, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise Problem(422, "invalid-line", f"line {number} is not JSON: {exc.msg}",
                          item=number) from None
        wrong = line_error(record)
        if wrong is not None:
            raise Problem(422, "invalid-line", f"line {number} is not a report: {wrong}",
                          item=number)
        records.append(record)
    return format_records(fmt, records)


# -- jobs -------------------------------------------------------------------------------


async def _create_job(request: web.Request) -> web.Response:
    app = request.app
    query = request.query
    refuse_unknown(query, JOB_QUERY, "the query")
    fmt = query.get("format", AUTO)
    if fmt != AUTO and fmt not in READERS:
        raise Problem(422, "unknown-format", f"unknown format {fmt!r}; known: {AUTO}, "
                      f"{', '.join(READERS)}", item=fmt)
    options = parse_options({k: query[k] for k in OPTION_FIELDS if k in query},
                            tuple(app[SESSION].clients))
    body = utf8_bytes(await _read_body(request))  # a file saved as UTF-16 is read too
    if not body.strip():
        raise Problem(422, "empty-file", "the job's file is empty")
    fmt = resolve_format(body, fmt, query.get("filename"))
    job = await app[JOBS].create(body, fmt, options_record(options), request[CALLER])
    app[METRICS].jobs_created.inc()
    return _queued(job)


def _queued(job: Job) -> web.Response:
    """202 with the job just queued, and where to follow it."""
    return web.json_response(job.view(), status=202, dumps=lambda v: orjson.dumps(v).decode(),
                             headers={"Location": f"/v1/jobs/{job.id}"})


async def _retry_job(request: web.Request) -> web.Response:
    """A new job checking again the finished job's inconclusive citations (no body)."""
    app = request.app
    refuse_unknown(request.query, (), "the query")
    if request.body_exists and (await request.read()).strip():
        raise Problem(422, "unexpected-body", "a retry takes no body: it checks the job's "
                      "own input again")
    job = await app[JOBS].retry(request.match_info["id"], request[CALLER])
    app[METRICS].jobs_created.inc()
    return _queued(job)


async def _job(request: web.Request) -> web.Response:
    return _json(request.app[JOBS].get(request.match_info["id"]).view())


async def _job_results(request: web.Request) -> web.Response:
    jobs = request.app[JOBS]
    refuse_unknown(request.query, ("offset", "limit"), "the query")
    offset = _int_query(request, "offset", 0, 0, 1 << 40)
    limit = _int_query(request, "limit", 10_000, 1, 100_000)
    job = jobs.get(request.match_info["id"])
    lines, next_offset = await jobs.results(job.id, offset, limit)
    return web.Response(body=b"".join(lines), headers={
        "Content-Type": NDJSON, "X-Next-Offset": str(next_offset), "X-Job-State": job.state})


async def _cancel_job(request: web.Request) -> web.Response:
    job = await request.app[JOBS].cancel(request.match_info["id"])
    return _json(job.view())


def _int_query(request: web.Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise Problem(422, "wrong-type", f"{name!r} must be a whole number", item=name) \
            from None
    if not low <= value <= high:
        raise Problem(422, "out-of-range", f"{name!r} must be in {low}..{high}", item=name)
    return value


__all__ = ["PIPELINE_ROUTES", "create_app"]
