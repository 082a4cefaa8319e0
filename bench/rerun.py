"""The cached re-run, end to end, timed many times: ``verifier check`` over the 636 W&W
citations from a warm cache, from spawning the process to its exit.

    verifier bench rerun [--runs N] [--cli-tree DIR] [--json FILE] [--data DIR]
        [--corpus FILE]

The world over the W&W corpus is served without rate limits; a first ``verifier check``
fills the cache and the parse store, a second must then send nothing (or the bench stops
saying so: a pass that sends requests is not a cached re-run), and ``--runs`` more
(default 7) are timed, each a new process as a user's re-run is: start-up, imports, the
check and the output file included. Bytecode and the pattern store are written under
the bench's temporary folder by the warm-up runs, as a user's first run writes them.

Prints each run's wall time and their median, minimum and maximum; the W&W bench's
``cached_rerun_s`` is one such run after the full benchmark. ``--cli-tree DIR`` times
the ``verifier check`` of another source tree (its ``verifier`` imported from DIR) with
this checkout's bench and world: ``verifier bench compare --bench rerun`` runs it so for
two trees side by side, including trees older than this bench.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_args import result_file, write_result
from compare import CompareError, check_tree, tree_path
from walters_wilder import (
    DEFAULT_DATA,
    cli_env,
    engine_settings,
    free_port,
    open_world,
    read_citations,
    run_bench,
    timed_cli_check,
    world_corpus,
    write_cli_input,
)

TIME_SCALE = 50.0
CONCURRENCY = 16
WARM_UP_RUNS = 6
"""Warm-up runs at most. Failures are never cached, and at 50 times the services' speed a
loaded machine makes some time out: a run may leave a few answers out (seen: 48, then 5,
on a busy 2-core machine), so the runs go on until one sends nothing."""


class NotCached(Exception):
    """The re-run still sent requests after the warm-up runs."""


async def run(args: argparse.Namespace) -> dict[str, Any]:
    citations = read_citations(Path(args.data) / "ww2023_citations.csv")
    with tempfile.TemporaryDirectory(prefix="rerun-") as tmp:
        work = Path(tmp)
        corpus = world_corpus(args, work)
        source = write_cli_input(citations, work / "citations.csv")
        settings = engine_settings({}, keyless=False, time_scale=TIME_SCALE,
                                   cache_dir=work / "cache", independence="distinct")
        env = cli_env(work, keyless=False)
        if args.cli_tree:
            env["PYTHONPATH"] = tree_path(Path(args.cli_tree))
        async with open_world(corpus, time_scale=TIME_SCALE, enforce_limits=False,
                              enforce_budgets=False, port=free_port()) as world:

            async def check(name: str) -> dict[str, Any]:
                return await timed_cli_check(source, work / f"{name}.jsonl", world, settings,
                                             env, time_scale=TIME_SCALE,
                                             concurrency=CONCURRENCY, keyless=False)

            warm: dict[str, Any] = {}
            for n in range(1, WARM_UP_RUNS + 1):
                warm = await check(f"warm-{n}")
                print(f"warm-up run {n}: {warm['wall_s']:.2f}s, {warm['requests']} requests",
                      file=sys.stderr)
                if warm["requests"] == 0 and n > 1:
                    break
            else:
                raise NotCached(f"a run still sent {warm['requests']} requests after "
                                f"{WARM_UP_RUNS} warm-up runs: not timing a cold cache")
            runs = []
            for n in range(1, args.runs + 1):
                timed = await check(f"run-{n}")
                same = sum(timed["statuses"].get(k) == v for k, v in warm["statuses"].items())
                print(f"run {n}: {timed['wall_s']:.3f}s, {timed['requests']} requests, "
                      f"{same}/{len(citations)} statuses as the warm-up's, exit code "
                      f"{timed['exit_code']}", file=sys.stderr)
                runs.append({"wall_s": timed["wall_s"], "requests": timed["requests"],
                             "same_statuses": same, "exit_code": timed["exit_code"]})
    walls = [r["wall_s"] for r in runs]
    counts: dict[str, int] = {}
    for status in warm["statuses"].values():
        counts[status] = counts.get(status, 0) + 1
    result = {"citations": len(citations), "runs": runs, "status_counts": counts,
              "median_s": round(statistics.median(walls), 3),
              "min_s": min(walls), "max_s": max(walls),
              "requests_sent": sum(r["requests"] for r in runs),
              "same_statuses": all(r["same_statuses"] == len(citations) for r in runs)}
    print(f"cached re-run of {len(citations)} citations end to end: median "
          f"{result['median_s']:.3f}s (min {result['min_s']:.3f}s, max {result['max_s']:.3f}s) "
          f"over {len(runs)} runs, {result['requests_sent']} requests sent")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench rerun",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--corpus", help="a world corpus instead of the generated one")
    parser.add_argument("--runs", type=int, default=7, help="timed runs (default 7)")
    parser.add_argument("--cli-tree", help="time the verifier check of this source tree")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if args.cli_tree:
        try:
            check_tree(Path(args.cli_tree).resolve())
        except CompareError as exc:
            parser.error(str(exc))
    result = run_bench("rerun", run(args), NotCached)
    if result is None:
        return 1
    if args.json:
        write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
