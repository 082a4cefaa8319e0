"""``verifier serve``: the HTTP service (API v1, OpenAPI, metrics, the web page).

Settings come from the environment as for ``verifier check`` (``VERIFIER_MAILTO``, keys,
``VERIFIER_CACHE_DIR`` ...), then the command line. API keys: ``VERIFIER_SERVICE_KEYS``
(comma-separated) and ``--keys-file FILE``; without any, the API refuses every call unless
``--open`` is given, which is accepted only on a loopback host. On SIGTERM or SIGINT the
service stops accepting, stops its jobs (their decided lines written; they resume on the
next start), gives requests in flight ``--grace`` seconds, then cancels them and exits 0.
Once listening it prints one JSON line on stdout: ``{"ready": URL, "port": N}``.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import signal
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

from verifier.arg_types import (
    check_concurrency,
    non_negative_number,
    port,
    positive_number,
    whole_number,
)
from verifier.errors import ConfigError
from verifier.settings import SOURCE_NAMES, Settings

from .locations import add_location_arguments, location_pairs

if TYPE_CHECKING:
    from verifier.service.config import ServiceConfig

KEYS_ENV = "VERIFIER_SERVICE_KEYS"
DATA_ENV = "VERIFIER_SERVICE_DIR"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "citation-verifier" / "service"


def add_serve_command(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="run the HTTP service (API v1, OpenAPI, metrics, a web page)",
        description="Serve the citation checks over HTTP: API v1 (/openapi.json), "
                    "/metrics, and a web page at /. Stops on SIGINT or SIGTERM.")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on "
                       "(default 127.0.0.1)")
    serve.add_argument("--port", type=port, default=8080,
                       help="port (default 8080; 0: any)")
    serve.add_argument("--keys-file", type=Path, metavar="FILE",
                       help=f"API keys, one per line (also: {KEYS_ENV}, comma-separated)")
    serve.add_argument("--open", action="store_true",
                       help="no API keys needed (only on a loopback --host)")
    serve.add_argument("--data-dir", type=Path, metavar="DIR",
                       help=f"where jobs are kept (default: ${DATA_ENV} or "
                            "~/.local/share/citation-verifier/service)")
    serve.add_argument("--sources", metavar="LIST",
                       help=f"comma-separated sources ({','.join(SOURCE_NAMES)})")
    cache = serve.add_mutually_exclusive_group()
    cache.add_argument("--no-cache", action="store_true", help="no disk cache")
    cache.add_argument("--cache-dir", type=Path, metavar="DIR", help="disk cache folder")
    serve.add_argument("--mailto", metavar="ADDR", help="contact address sent to the services")
    add_location_arguments(serve)
    serve.add_argument("--max-body-mb", type=positive_number("megabytes"), default=20.0,
                       metavar="MB",
                       help="largest request body (default 20)")
    serve.add_argument("--max-batch", type=whole_number(1, 1_000_000), default=1000,
                       metavar="N",
                       help="most citations in one check request (default 1000)")
    serve.add_argument("--key-concurrency", type=whole_number(1, 10_000), default=8,
                       metavar="N",
                       help="requests of one key in progress at once (default 8)")
    serve.add_argument("--key-rate", type=positive_number("requests a second"), default=20.0,
                       metavar="PER_S",
                       help="requests one key may start per second (default 20, bursts 2x)")
    serve.add_argument("--concurrency", type=check_concurrency, default=16,
                       metavar="N",
                       help="citations of one request or job checked at once (default 16)")
    serve.add_argument("--job-workers", type=whole_number(1, 64), default=2, metavar="N",
                       help="jobs run at once (default 2)")
    serve.add_argument("--cors", type=cors_origin, action="append", default=[],
                       metavar="ORIGIN",
                       help="allow browser calls from ORIGIN (repeatable; '*' for any); "
                            "off by default")
    serve.add_argument("--grace", type=non_negative_number("seconds"), default=10.0,
                       metavar="SECONDS",
                       help="on shutdown, time requests in flight get (default 10)")
    serve.add_argument("--time-scale", type=positive_number(), default=1.0,
                       help=argparse.SUPPRESS)
    serve.add_argument("--quiet", "-q", action="store_true", help="no access log on stderr")
    serve.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    serve.set_defaults(handler=run_serve)


def cors_origin(value: str) -> str:
    """``*`` or an origin as browsers send it (``https://app.example.org``, a port if
    any; a trailing slash dropped): a path, a query or another scheme would never equal
    an ``Origin`` header, so CORS would stay off without a word."""
    if value == "*":
        return value
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or \
            parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an origin (scheme://host[:port], as in https://app.example.org,"
            " or '*')")
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def serve_settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, object] = {"time_scale": args.time_scale}
    if args.mailto is not None:
        overrides["mailto"] = args.mailto
    if args.sources is not None:
        overrides["sources"] = tuple(s.strip().lower() for s in args.sources.split(",")
                                     if s.strip())
    if args.cache_dir is not None:
        overrides["cache_dir"] = args.cache_dir
    if args.no_cache:
        overrides["cache_dir"] = None
    return Settings.from_env(None, **overrides).with_base_urls(location_pairs(args))


def service_keys(args: argparse.Namespace) -> tuple[str, ...]:
    from verifier.service.config import parse_keys

    text = os.environ.get(KEYS_ENV, "")
    if args.keys_file is not None:
        try:
            text += "\n" + args.keys_file.read_text()
        except OSError as exc:
            raise ConfigError(f"--keys-file: {exc.strerror}: {args.keys_file}") from None
    return parse_keys(text)


def run_serve(args: argparse.Namespace) -> int:
    from verifier.service.config import ServiceConfig

    settings = serve_settings(args)
    keys = service_keys(args)
    if not keys and not args.open:
        raise ConfigError(f"no API keys: set {KEYS_ENV} or --keys-file, or give --open on "
                          "a loopback host")
    data_dir = args.data_dir or Path(os.environ.get(DATA_ENV) or default_data_dir())
    usable_data_dir(data_dir)
    config = ServiceConfig(
        data_dir=data_dir, keys=keys, open_access=args.open, host=args.host,
        max_body_bytes=int(args.max_body_mb * 1024 * 1024), max_batch=args.max_batch,
        per_key_concurrency=args.key_concurrency, per_key_rate=args.key_rate,
        per_key_burst=max(1, int(2 * args.key_rate)), check_concurrency=args.concurrency,
        job_workers=args.job_workers, cors_origins=tuple(args.cors), grace_s=args.grace)
    if not args.quiet:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(asctime)s %(name)s %(message)s")
    asyncio.run(serve(settings, config, port=args.port))
    return 0


def usable_data_dir(data_dir: Path) -> None:
    """Create the service's data folder if need be; raises ``ConfigError`` naming it when
    it is a file, cannot be created or cannot be written (before anything starts)."""
    if data_dir.exists() and not data_dir.is_dir():
        raise ConfigError(f"--data-dir {str(data_dir)!r} is not a folder")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--data-dir {str(data_dir)!r} cannot be created: "
                          f"{exc.strerror}") from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise ConfigError(f"--data-dir {str(data_dir)!r} cannot be written (permission denied)")


async def serve(settings: Settings, config: ServiceConfig, *, port: int) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully (see the module docstring)."""
    from aiohttp import web

    from verifier.llm.preflight import check_model_endpoints
    from verifier.service import create_app
    from verifier.session import Session

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    async with Session(settings) as session:
        # A model endpoint that refuses the key or does not serve the configured model
        # would answer every claims request inconclusive: the service does not start.
        await check_model_endpoints(session)
        app = create_app(config, session)
        # Access lines name the request line, status and size: never a header, so never
        # a key.
        runner = web.AppRunner(app, handler_cancellation=True,
                               shutdown_timeout=config.grace_s,
                               access_log_format='%a "%r" %s %b %Tf')
        await runner.setup()
        try:
            site = web.TCPSite(runner, config.host, port)
            try:
                await site.start()
            except OSError as exc:  # the port is taken, or the host is not this machine's
                if exc.errno == errno.EADDRINUSE:
                    raise ConfigError(f"port {port} on {config.host} is in use: choose "
                                      "another --port (0 picks a free one)") from None
                raise ConfigError(f"cannot listen on {config.host}:{port}: "
                                  f"{exc.strerror or exc}") from None
            bound = runner.addresses[0][1]
            ready = {"ready": f"http://{config.host}:{bound}", "port": bound}
            sys.stdout.buffer.write(orjson.dumps(ready, option=orjson.OPT_APPEND_NEWLINE))
            sys.stdout.flush()
            await stop.wait()
        finally:
            await runner.cleanup()
