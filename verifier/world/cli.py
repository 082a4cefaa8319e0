"""The world's command line: ``serve`` a corpus over the eight services until stopped.

Three entry points run the same options through the same code:

- ``verifier-world serve ...`` (console script) and ``python -m verifier.world serve ...``
  (:func:`main`);
- ``verifier world serve ...``: the product CLI registers :func:`add_serve_arguments` on
  its own sub-parser and calls :func:`run_serve` with the parsed arguments.

``serve`` prints each service's base URL, serves until SIGINT or SIGTERM (or, with
``--stop-on-stdin-eof``, until its standard input closes), then prints one line per
service: requests answered, by status and by fault or refusal. With ``--ready-json`` it
prints JSON lines instead, for a parent process (:mod:`verifier.world.process`)::

    {"event": "ready", "url": "http://127.0.0.1:PORT", "port": PORT, "pid": PID,
     "works": N, "base_urls": {"crossref": "http://127.0.0.1:PORT/crossref", ...}}
    {"event": "stopped", "requests": N, "throttled": M, "by_source": {...},
     "throttled_by_source": {...}, "loop_lag_p50_s": ..., "loop_lag_p99_s": ...,
     "loop_lag_max_s": ..., "loop_lag_samples": N}

(the world's own event-loop lag, sampled every 10 ms while it served: how late a request
arriving meanwhile was seen, which is what its rate windows time).

Exit status 0 after a stop, 2 for a corpus or scenario that cannot be read (or a port that
cannot be bound), with the reason on stderr. This module imports only the standard
library at load time, so building a parser costs nothing; the server loads when it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.arg_types import non_negative_number, port, positive_number

if TYPE_CHECKING:
    from .server import WorldHandle

SERVICE_NAMES: tuple[str, ...] = (
    "crossref", "openalex", "pubmed", "semanticscholar", "openlibrary", "googlebooks", "doaj",
    "arxiv",
)
"""The services ``--services`` accepts, in the server's order (``server.SERVICES``; a test
holds the two equal). Spelled out here so the parser needs no aiohttp."""

READY = "ready"
"""The ``event`` of the JSON line printed once the world serves (``--ready-json``)."""
JITTER_S = 0.010
"""The default of ``--jitter-s`` (``limits.JITTER_S``; a test holds the two equal)."""
STOPPED = "stopped"
"""The ``event`` of the JSON line printed when it stops (``--ready-json``)."""


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``serve`` to ``parser`` (any parser: the world's own or a
    sub-parser of another CLI). :func:`run_serve` takes the namespace it parses."""
    corpus = parser.add_mutually_exclusive_group(required=True)
    corpus.add_argument("--corpus", type=Path, help="JSON Lines corpus")
    corpus.add_argument("--demo", action="store_true",
                        help="serve the demo corpus shipped with the package")
    parser.add_argument("--host", default="127.0.0.1", help="default: loopback")
    parser.add_argument("--port", type=port, default=0,
                        help="0 picks a free port")
    parser.add_argument("--time-scale", type=positive_number(), default=1.0, metavar="X",
                        help="divide every period (rate limits, Retry-After, fault windows, "
                             "days) by X; default 1")
    parser.add_argument("--scenario", type=Path, help="scripted faults (JSON)")
    parser.add_argument("--services", nargs="+", choices=list(SERVICE_NAMES), metavar="NAME",
                        help=f"serve only these ({', '.join(SERVICE_NAMES)}); default all")
    parser.add_argument("--no-limits", action="store_true",
                        help="do not enforce rate and concurrency limits")
    parser.add_argument("--no-budgets", action="store_true",
                        help="do not enforce daily budgets (OpenAlex credits, Google Books "
                             "queries per day)")
    parser.add_argument("--jitter-s", type=non_negative_number(), default=JITTER_S, metavar="S",
                        help="real seconds of arrival jitter every rate window tolerates "
                             f"(default {JITTER_S:g}; see fixtures/world/README.md)")
    parser.add_argument("--ready-json", action="store_true",
                        help="print JSON lines for a parent process: one 'ready' line with "
                             "the base URLs once serving, one 'stopped' line with the "
                             "request counts at the end")
    parser.add_argument("--models", action=argparse.BooleanOptionalAction, default=True,
                        help="also serve the simulated model endpoint under /models/v1 "
                             "(default: on)")
    parser.add_argument("--model-faults", metavar="SPEC", type=_model_faults,
                        help="faults of the model endpoint by rate, e.g. '500:0.1,timeout:0.05' "
                             "(names: 500 502 503 timeout truncated length no_logprobs refusal "
                             "empty quota)")
    parser.add_argument("--stop-on-stdin-eof", action="store_true",
                        help="also stop when standard input closes (a parent that dies "
                             "leaves no orphan world behind)")


def _model_faults(text: str) -> str:
    from .models import ModelFaults

    try:
        ModelFaults.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _model_options(args: argparse.Namespace) -> Any:
    if not args.models:
        return None
    from .models import ModelFaults, ModelWorldOptions

    faults = ModelFaults.parse(args.model_faults) if args.model_faults else None
    return ModelWorldOptions(faults=faults)


def run_serve(args: argparse.Namespace, *, prog: str = "verifier-world serve") -> int:
    """Serve until stopped, with the options :func:`add_serve_arguments` parsed; return
    the exit status (2, with the reason on stderr, when the world cannot start)."""
    from .corpus import CorpusError
    from .faults import ScenarioError

    try:
        with _corpus_path(args) as corpus, contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_serve_until_stopped(args, corpus))
    except (CorpusError, ScenarioError, OSError) as exc:
        said = str(exc)
        if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
            said = f"cannot read {str(exc.filename)!r}: {exc.strerror}"  # not "[Errno 2] ..."
        print(f"{prog}: {said}", file=sys.stderr)
        return 2
    return 0


@contextlib.contextmanager
def _corpus_path(args: argparse.Namespace) -> Iterator[Path]:
    if not args.demo:
        yield args.corpus
        return
    from .demo import demo_files

    with demo_files() as demo:
        yield demo.corpus


async def _serve_until_stopped(args: argparse.Namespace, corpus: Path) -> None:
    from .server import serve_world, stats_of, summarize

    async with serve_world(corpus, args.host, args.port, time_scale=args.time_scale,
                           scenario=args.scenario, enforce_limits=not args.no_limits,
                           enforce_budgets=not args.no_budgets,
                           services=args.services, jitter_s=args.jitter_s,
                           models=_model_options(args)) as world:
        if args.ready_json:
            _json_line({"event": READY, **_ready_fields(world)})
        else:
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
        if args.stop_on_stdin_eof:
            _watch_stdin(loop, stop)
        lag: list[float] = []
        sampler = asyncio.create_task(_sample_loop_lag(lag)) if args.ready_json else None
        try:
            await stop.wait()
        finally:
            if sampler is not None:
                sampler.cancel()
            if args.ready_json:
                _json_line({"event": STOPPED, **stats_of(world.requests), **_lag_fields(lag),
                            "cpu_s": round(time.process_time(), 2)})
            else:
                for line in summarize(world.requests):
                    print(line, flush=True)


async def _sample_loop_lag(into: list[float], interval_s: float = 0.010) -> None:
    """Record how late the world's loop wakes from each ``interval_s`` sleep: the delay
    every request arriving meanwhile also sees (its arrival time, for the rate limits)."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(interval_s)
        into.append(max(0.0, time.perf_counter() - before - interval_s))


def _lag_fields(samples: list[float]) -> dict[str, Any]:
    ordered = sorted(samples)

    def nearest_rank(q: float) -> float | None:
        return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 4) if ordered else None

    return {"loop_lag_p50_s": nearest_rank(0.50), "loop_lag_p99_s": nearest_rank(0.99),
            "loop_lag_max_s": nearest_rank(1.0), "loop_lag_samples": len(ordered)}


def _ready_fields(world: WorldHandle) -> dict[str, Any]:
    return {"url": world.url, "port": world.port, "pid": os.getpid(),
            "works": len(world.corpus), "base_urls": world.base_urls,
            "models_url": world.models_url}


def _json_line(value: dict[str, Any]) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(value).decode() + "\n")
    sys.stdout.flush()


def _watch_stdin(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Set ``stop`` when standard input reaches end of file (read in a daemon thread:
    stdin may be any kind of file, and the read blocks). It reads the descriptor, not
    ``sys.stdin``, whose buffer lock a daemon thread must not hold at interpreter exit."""

    def wait_for_eof() -> None:
        with contextlib.suppress(OSError):
            while os.read(0, 65536):
                pass
        with contextlib.suppress(RuntimeError):  # the loop has already closed
            loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=wait_for_eof, name="world-stdin-eof", daemon=True).start()


def build_parser(prog: str = "verifier-world") -> argparse.ArgumentParser:
    """The world's own parser: ``PROG serve [options]``."""
    parser = argparse.ArgumentParser(
        prog=prog, description="The offline stand-in of the eight bibliographic services.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve", help="serve a corpus over the eight services' protocols on loopback",
        description="Serve a corpus over the eight services' real protocols on loopback, "
                    "with their published limits, until SIGINT or SIGTERM.")
    add_serve_arguments(serve)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "verifier-world") -> int:
    """``verifier-world serve ...``: parse ``argv`` (default ``sys.argv[1:]``), run, and
    return the exit status (argparse's 2 for a usage error)."""
    parser = build_parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, usage errors
        return exc.code if isinstance(exc.code, int) else 2
    return run_serve(args, prog=f"{prog} {args.command}")


__all__ = ["READY", "SERVICE_NAMES", "STOPPED", "add_serve_arguments", "build_parser", "main",
           "run_serve"]
