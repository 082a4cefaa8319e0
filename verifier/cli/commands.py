"""The commands beside ``check`` and ``demo``: ``sources``, ``world serve``, ``bench`` and
``premises`` (:mod:`.premises`).

Each registers its own sub-parser and handler; :mod:`verifier.cli` only calls
:func:`add_commands`. Handlers return an exit code and raise ``ConfigError`` for usage
errors the parser cannot see.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path
from typing import Any

from verifier.errors import ConfigError
from verifier.settings import SOURCE_NAMES, Settings
from verifier.sources import summarize
from verifier.world.cli import add_serve_arguments, run_serve

from .json_lines import write_json_lines
from .judge_command import add_judge_command
from .models import add_models_command
from .premises import add_premises_command
from .serve import add_serve_command

REPO_ROOT = Path(__file__).resolve().parents[2]
BENCH_DIR = REPO_ROOT / "bench"


def add_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``sources``, ``world`` and ``bench`` on the CLI's sub-parsers."""
    sources = commands.add_parser(
        "sources", help="list the sources with their pools, limits and state",
        description="List the eight sources as this environment would use them: the pool "
                    "its identification buys, the rate limits in force, and whether each "
                    "is enabled (and why not).")
    sources.add_argument("--json", action="store_true", help="one JSON object per source")
    sources.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    sources.set_defaults(handler=run_sources)

    world = commands.add_parser("world", help="the offline stand-in services",
                                description="The offline stand-in of the eight services.")
    world_commands = world.add_subparsers(dest="world_command", required=True,
                                          metavar="COMMAND", parser_class=type(world))
    serve = world_commands.add_parser(
        "serve", help="serve a corpus over the eight services' protocols on loopback",
        description="Serve a corpus over the eight services' real protocols on loopback, "
                    "with their published limits, until SIGINT or SIGTERM (the same "
                    "options as 'verifier-world serve').")
    add_serve_arguments(serve)
    serve.set_defaults(handler=run_world_serve, debug=False)

    add_models_command(commands)

    bench = commands.add_parser(
        "bench", help="run a benchmark from bench/ (walters-wilder, parsing, ...)",
        description="Run bench/NAME.py with the remaining arguments (a source checkout "
                    "is needed). 'verifier bench NAME --help' shows its options.",
        add_help=True)
    bench.add_argument("name", metavar="NAME", help="benchmark name, e.g. walters-wilder")
    bench.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark's own arguments")
    bench.set_defaults(handler=run_bench, debug=False)

    add_serve_command(commands)
    add_premises_command(commands, common)
    add_judge_command(commands, common)


def run_sources(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    rows = summarize(settings)
    if args.json:
        write_json_lines(rows)
        return 0
    print(f"{'source':<16}{'enabled':<9}{'pool':<12}{'limits in force':<48}note")
    for row in rows:
        enabled = "yes" if row.enabled else "no"
        pool = row.pool + (" (key)" if row.keyed else "")
        print(f"{row.name:<16}{enabled:<9}{pool:<12}{row.limits:<48}{row.note}")
    print(f"\nidentification: {'VERIFIER_MAILTO=' + settings.mailto if settings.mailto else 'none'}"
          f"; keys: {', '.join(sorted(settings.api_keys)) or 'none'}")
    return 0


def run_world_serve(args: argparse.Namespace) -> int:
    return run_serve(args, prog="verifier world serve")


def run_bench(args: argparse.Namespace) -> int:
    script = BENCH_DIR / f"{args.name.replace('-', '_')}.py"
    if not script.is_file():
        known = sorted(p.stem.replace("_", "-") for p in BENCH_DIR.glob("*.py")
                       if not p.stem.startswith("_") and p.stem not in BENCH_LIBRARIES)
        raise ConfigError(f"no benchmark {args.name!r} (known: {', '.join(known) or 'none'}; "
                          "benchmarks need a source checkout)")
    saved = sys.argv
    sys.argv = [f"verifier bench {args.name}", *args.rest]
    sys.path.insert(0, str(BENCH_DIR))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        if isinstance(exc.code, int) or exc.code is None:
            return exc.code or 0
        # sys.exit("reason"): Python would print the reason; caught here, it must be said.
        print(f"verifier bench {args.name}: {exc.code}", file=sys.stderr)
        return 1
    finally:
        sys.argv = saved
        sys.path.remove(str(BENCH_DIR))
    return 0


BENCH_LIBRARIES = frozenset({"scoring", "ww_world", "claims_data", "judge_world", "judge_endpoint",
                        "bench_args"})
"""bench/ modules that are used by benchmarks, not run as one."""

__all__ = ["SOURCE_NAMES", "add_commands"]
