"""Instructions one warm pass costs in two source trees, counted by valgrind.

A speed ratio the machine's other load cannot move.

    verifier bench instructions --base REV|DIR [--head DIR] [--citations N] [--spread]
        [--data DIR] [--json FILE]

CPU seconds on this shared 2-core machine swing by a fifth between two runs of the same
code, which hides a change of 5 or 10 % (``verifier bench compare`` needs many pairs to
see one). Callgrind counts the instructions the engine's process executes, and another
process's load does not change that count. For each tree this bench:

1. warms a disk cache of its own: ``--citations`` different citation strings (default
   1,000) from ``verifier bench throughput``'s distinct workload, checked against the
   offline world, served without limits in a process of its own, until a pass sends no
   request. The workload's first strings are all APA renderings, which the rules parse;
   ``--spread`` takes every k-th string of its default 20,000 instead, so MLA and Chicago
   renderings (the trained parser's path) count in their share;
2. runs, under ``valgrind --tool=callgrind``, a fresh process that starts the engine and
   the world and checks the workload once from that cache, and the same process without
   the pass: the difference is the pass's instructions (start-up, imports and the
   world's start cancel out). Both processes collect garbage at the thresholds the
   tree's ``verifier`` process sets (``PROCESS_GC_THRESHOLD``), as the throughput bench
   does.

Prints instructions per citation for each tree and the ratio head / base (lower means
fewer), and says so when the trees' statuses differ. An instruction is not a
nanosecond (cache misses and branches are not counted), so this complements the CPU
second ratios of ``verifier bench compare``; it never replaces them.

``--base`` is a directory holding a source tree or a git revision of this checkout
(exported: an export has no compiled modules, so it runs as plain Python; to compare
compiled trees give a directory whose modules are built, e.g. a worktree after
``python setup.py build_ext --inplace``). Both trees run this checkout's bench code on
this interpreter, each importing its own ``verifier``. Needs valgrind; about three
minutes per tree for 1,000 citations.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson
from bench_args import result_file, write_result
from compare import CompareError, check_tree, tree_env, tree_of
from walters_wilder import DEFAULT_DATA, exit_on_sigterm, free_port, open_world, world_corpus

HERE = Path(__file__).resolve().parents[1]
T = TypeVar("T")
TIME_SCALE = 50.0
"""The world's and the engine's speed-up while the cache is warmed (no limits apply)."""
MAX_WARM_PASSES = 5
CONCURRENCY = 256
"""Citations in flight in the counted pass (``verifier bench throughput``'s default)."""
SPREAD_OVER = 20_000
"""``--spread`` samples this many of the distinct workload's strings (its default size)."""


def instructions_of(callgrind_out: Path) -> int:
    """The instructions (Ir) a callgrind output file counts in total."""
    for line in callgrind_out.read_text(errors="replace").splitlines():
        found = re.match(r"(?:totals|summary):\s+(\d+)", line)
        if found:
            return int(found.group(1))
    raise CompareError(f"{callgrind_out}: no instruction total (is it callgrind's output?)")


def ratio_summary(base: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
    """Instructions per citation head / base, and whether the statuses agree."""
    return {"ratio": round(head["per_citation"] / base["per_citation"], 3),
            "same_statuses": base["status_counts"] == head["status_counts"]}


def _child_command(mode: str, args: argparse.Namespace, corpus: Path, port: int,
                   cache: Path, passes: int = 0) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", mode,
            "--corpus", str(corpus), "--port", str(port), "--cache", str(cache),
            "--citations", str(args.citations), "--passes", str(passes),
            *(["--spread"] if args.spread else [])]


def _run(command: list[str], tree: Path, what: str) -> str:
    done = subprocess.run(command, cwd=HERE, env=tree_env(tree), capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise CompareError(f"{what} failed for {tree} (exit code {done.returncode}):\n{tail}")
    return done.stdout


def count_tree(name: str, tree: Path, args: argparse.Namespace, corpus: Path, port: int,
               scratch: Path) -> dict[str, Any]:
    """Warm ``tree``'s cache, then count one pass's instructions (see the module doc)."""
    cache = scratch / f"cache-{name}"
    print(f"{name}: warming its cache ({tree})", file=sys.stderr)
    _run(_child_command("warm", args, corpus, port, cache), tree, "warming the cache")
    totals: list[int] = []
    statuses: dict[str, int] = {}
    for passes in (0, 1):
        out = scratch / f"callgrind-{name}-{passes}.out"
        print(f"{name}: counting a run with {passes} pass(es) under callgrind",
              file=sys.stderr)
        stdout = _run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                       *_child_command("count", args, corpus, port, cache, passes)],
                      tree, "the counted run")
        totals.append(instructions_of(out))
        if passes:
            statuses = orjson.loads(stdout.strip().splitlines()[-1])
    per_citation = (totals[1] - totals[0]) / args.citations
    print(f"{name}: {per_citation:,.0f} instructions per citation, statuses {statuses}")
    return {"tree": str(tree), "instructions": totals, "per_citation": round(per_citation),
            "status_counts": statuses}


def counted_citations(distinct: Callable[[Path, int], Sequence[T]], corpus: Path, count: int,
                      spread: bool) -> Sequence[T]:
    """The workload's first ``count`` strings, or with ``spread`` ``count`` strings evenly
    spaced over its default size (``distinct`` is throughput's ``distinct_citations``)."""
    if not spread:
        return distinct(corpus, count)
    pool = distinct(corpus, SPREAD_OVER)
    if count > len(pool):
        raise SystemExit(f"--citations {count} is more than the {len(pool):,} distinct "
                         "strings --spread samples from")
    step = len(pool) / count
    return [pool[int(i * step)] for i in range(count)]


def collect_as_a_verifier_process() -> None:
    """Set the collector's thresholds a ``verifier`` process of the counted tree sets
    (its ``PROCESS_GC_THRESHOLD``), so the count holds the collections that process
    makes; a tree older than that setting keeps Python's."""
    try:
        from verifier.__main__ import PROCESS_GC_THRESHOLD
    except ImportError:
        return
    gc.set_threshold(*PROCESS_GC_THRESHOLD)


async def child(args: argparse.Namespace) -> None:
    """One process of a counted tree: warm its cache, or run ``--passes`` passes."""
    from throughput import NotWarm, _pass, _warm, distinct_citations, warm_cache_engine

    corpus = Path(args.corpus)
    items = counted_citations(distinct_citations, corpus, args.citations, args.spread)
    async with open_world(corpus, time_scale=TIME_SCALE, enforce_limits=False,
                          enforce_budgets=False, port=args.port) as world:
        settings, policies = warm_cache_engine(world, Path(args.cache), TIME_SCALE)
        if args.child == "warm":
            try:
                await _warm(settings, items, 64, world, policies, MAX_WARM_PASSES, "distinct")
            except NotWarm as exc:
                raise SystemExit(str(exc)) from None
            return
        result: dict[str, Any] = {}
        for _ in range(args.passes):
            result = await _pass(settings, items, CONCURRENCY, world, policies)
            if result["requests_sent"]:
                raise SystemExit(f"the counted pass sent {result['requests_sent']} "
                                 "requests: the cache was not warm")
        print(orjson.dumps(result.get("status_counts", {})).decode())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench instructions",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base", help="required: a source tree's directory, or a git "
                                       "revision of this checkout (run as plain Python)")
    parser.add_argument("--head", default=str(HERE),
                        help="a source tree's directory (default: this checkout)")
    parser.add_argument("--citations", type=int, default=1000,
                        help="distinct citations in the counted pass (default 1,000)")
    parser.add_argument("--spread", action="store_true",
                        help="count strings spread over the whole distinct workload (all "
                             "styles), not its first ones (APA only)")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="the shared data folder")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    parser.add_argument("--child", choices=["warm", "count"], help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    parser.add_argument("--passes", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.citations < 1:
        parser.error(f"--citations must be at least 1, got {args.citations}")
    if args.child:
        collect_as_a_verifier_process()
        asyncio.run(child(args))
        return 0
    if args.base is None:
        parser.error("--base is required")
    if shutil.which("valgrind") is None:
        print("verifier bench instructions: valgrind is not installed "
              "(apt-get install valgrind)", file=sys.stderr)
        return 1
    exit_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as tmp:
        scratch = Path(tmp)
        try:
            trees = {"base": tree_of(args.base, HERE, scratch), "head": Path(args.head)}
            for tree in trees.values():
                check_tree(tree)
            corpus = world_corpus(args, scratch)
            port = free_port()
            results = {name: count_tree(name, tree, args, corpus, port, scratch)
                       for name, tree in trees.items()}
        except CompareError as exc:
            print(f"verifier bench instructions: {exc}", file=sys.stderr)
            return 1
    summary = ratio_summary(results["base"], results["head"])
    same = "same statuses" if summary["same_statuses"] else "STATUSES DIFFER"
    print(f"instructions per citation, head / base: ×{summary['ratio']} ({same}; "
          "lower is fewer)")
    if args.json:
        write_result(args.json, {**results, **summary, "citations": args.citations,
                                 "spread": args.spread})
    return 0 if summary["same_statuses"] else 1


if __name__ == "__main__":
    sys.exit(main())
