"""Throughput from a warm cache: CPU time per citation on distinct and repeated citations.

    verifier bench throughput [--distinct N] [--repeated N] [--rounds R] [--concurrency N]
        [--json FILE] [--world-in-process]

Two workloads, each checked through the normal engine against the offline world with a
warm disk cache:

- **distinct**: N different citation strings (default 20,000), rendered from the W&W
  world's works in three citation styles, so every citation is parsed and matched anew
  (every pass starts with the process's value memos empty: :mod:`verifier.value_memos`);
- **repeated**: the 636 Walters & Wilder citations repeated to N (default 100,000), each
  copy with its own id.

The cache is warmed by passes over each workload until a pass sends **zero** requests to
the world (a pass that still sends some means answers were missing: failures are never
cached); after ``--max-warm-passes`` the bench fails saying so rather than timing a
cache that is not warm. Each timed pass reports citations per CPU-second (the process's
CPU time: what the engine costs, whatever else the machine runs) beside citations per
wall-second, the requests it sent (0 expected), and the resident memory at the start and
the peak. With ``--rounds R`` (default 1) each workload is timed R times and its figures
are those of the median pass by citations per CPU-second (every pass's figure is kept as
``rounds_per_cpu_s``): on a shared machine one pass can be a third off. The world runs
in a process of its own (its CPU and memory are not the engine's), or on the engine's
loop with ``--world-in-process``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from bench_args import result_file, write_result
from walters_wilder import (
    DEFAULT_DATA,
    WorldLink,
    engine_settings,
    open_world,
    read_citations,
    run_bench,
    world_corpus,
)

from verifier import Verifier
from verifier.citations.models import CitationInput
from verifier.http.policy import SourcePolicy
from verifier.native import compiled_loaded, interpreter
from verifier.settings import Settings
from verifier.sources import PolicyTable


def memo_emptier() -> Callable[[], object]:
    """What empties the process's value memos: ``forget_all`` of the ``verifier`` this
    process imports. This bench's passes also run over other trees (``verifier bench
    instructions`` imports each tree's own ``verifier``); a tree older than the registry
    (``verifier/value_memos.py``) empties its parse memo alone, as its own bench did."""
    try:
        from verifier.value_memos import forget_all
    except ImportError:
        from verifier.citations.parsing.combined import parse_citation
        return parse_citation.cache_clear
    return forget_all


_empty_memos = memo_emptier()


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (Linux), so the next reading is this phase's."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def distinct_citations(corpus: Path, count: int) -> list[CitationInput]:
    """``count`` different citation strings rendered from the corpus's works (each work
    in up to three styles), in a fixed order."""
    works = [orjson.loads(line) for line in corpus.read_bytes().splitlines() if line.strip()]
    works = [w for w in works if w.get("title") and w.get("authors") and _names(w)
             and w.get("year")]
    texts: list[str] = []
    for style in (_apa, _mla, _chicago):
        for work in works:
            texts.append(style(work))
            if len(texts) == count:
                break
        if len(texts) == count:
            break
    return [CitationInput(f"d{n}", n, text) for n, text in enumerate(dict.fromkeys(texts))]


def _names(work: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a.get("family", ""), a.get("given", "")) for a in work["authors"]
            if a.get("family")]


def _title(work: dict[str, Any]) -> str:
    sub = work.get("subtitle")
    return f"{work['title']}: {sub}" if sub else str(work["title"])


def _tail(work: dict[str, Any]) -> str:
    parts = [work.get("container") or work.get("publisher") or ""]
    if work.get("volume"):
        parts.append(str(work["volume"]))
    if work.get("pages"):
        parts.append(str(work["pages"]))
    return ", ".join(p for p in parts if p)


def _apa(work: dict[str, Any]) -> str:
    names = ", ".join(f"{f}, {g[:1]}." if g else f for f, g in _names(work)[:6])
    return f"{names} ({work['year']}). {_title(work)}. {_tail(work)}."


def _mla(work: dict[str, Any]) -> str:
    names = _names(work)
    first = f"{names[0][0]}, {names[0][1]}" if names[0][1] else names[0][0]
    lead = first + (", et al." if len(names) > 2 else
                    f", and {names[1][1]} {names[1][0]}".rstrip() if len(names) == 2 else "")
    return f'{lead}. "{_title(work)}." {_tail(work)}, {work["year"]}.'


def _chicago(work: dict[str, Any]) -> str:
    names = " and ".join(f"{g} {f}".strip() for f, g in _names(work)[:3])
    return f"{names}. {work['year']}. \"{_title(work)}.\" {_tail(work)}."


async def _pass(settings: Settings, items: Sequence[CitationInput], concurrency: int,
                world: WorldLink, policies: Mapping[str, SourcePolicy]) -> dict[str, Any]:
    """One pass: statuses, requests the world saw, CPU and wall seconds, cache hits."""
    before = (await world.stats())["requests"]
    # Each pass starts with the process's value memos empty (parses, normalised titles
    # and names, corrections), as a new process would: the warm-up passes worked on these
    # very texts, and the distinct workload is meant to parse and match anew.
    _empty_memos()
    statuses: Counter[str] = Counter()
    failures: list[str] = []
    cpu, wall = time.process_time(), time.perf_counter()
    async with Verifier(settings, policies=policies) as verifier:
        async for report in verifier.verify_many(items, concurrency=concurrency):
            statuses[str(report.status)] += 1
            if len(failures) < 5:
                failures.extend(f"{report.id} {name}: {r.error}"
                                for name, r in report.sources.items() if r.status.failed)
        hits = sum(s.cache_hits for s in verifier.stats.sources.values())
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    sent = (await world.stats())["requests"] - before
    return {"citations": len(items), "cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
            "per_cpu_s": round(len(items) / cpu, 1) if cpu else None,
            "per_wall_s": round(len(items) / wall, 1) if wall else None,
            "requests_sent": sent, "cache_hits": hits, "status_counts": dict(statuses),
            "failures": failures}


def warm_cache_engine(world: WorldLink, cache_dir: Path, time_scale: float
                      ) -> tuple[Settings, dict[str, SourcePolicy]]:
    """The engine's settings and policies for passes over a warm cache in ``cache_dir``
    against ``world`` (served without limits): it waits patiently (the warm-up only fills
    the cache, and an answer that times out is not cached), and keeps no parses (every
    pass parses its citations anew; the W&W bench's cached re-run measures what keeping
    them saves)."""
    settings = engine_settings(world.base_urls, keyless=False, time_scale=time_scale,
                               cache_dir=cache_dir, independence="distinct")
    settings = replace(settings, keep_parses=False)
    policies = {name: replace(policy, request_timeout_s=30.0, source_budget_s=120.0,
                              daily_budget=None)
                for name, policy in PolicyTable.for_settings(settings).policies.items()}
    return settings, policies


def median_pass(passes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The pass whose citations per CPU-second are the median of ``passes`` (the lower
    middle one of an even number)."""
    ranked = sorted(passes, key=lambda p: p["per_cpu_s"] or 0.0)
    return ranked[(len(ranked) - 1) // 2]


class NotWarm(Exception):
    """The cache could not be warmed: a pass still sent requests."""


async def _warm(settings: Settings, items: Sequence[CitationInput], concurrency: int,
                world: WorldLink, policies: Mapping[str, SourcePolicy], max_passes: int,
                name: str) -> int:
    for n in range(1, max_passes + 1):
        result = await _pass(settings, items, concurrency, world, policies)
        print(f"warm-up {name} pass {n}: {result['requests_sent']} requests, "
              f"{result['wall_s']}s", file=sys.stderr)
        if result["requests_sent"] == 0:
            return n
        for failure in result["failures"]:
            print(f"  not cached: {failure}", file=sys.stderr)
    raise NotWarm(f"the {name} workload still sent requests after {max_passes} warm-up "
                  "passes (answers that fail are never cached): not timing a cold cache")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    citations = read_citations(Path(args.data) / "ww2023_citations.csv")
    with tempfile.TemporaryDirectory(prefix="throughput-") as tmp:
        work = Path(tmp)
        corpus = world_corpus(args, work)
        distinct = distinct_citations(corpus, args.distinct)
        ww = [CitationInput(c.id, i, c.text) for i, c in enumerate(citations)]

        def repeated() -> Iterator[CitationInput]:
            for n in range(args.repeated):
                c = citations[n % len(citations)]
                yield CitationInput(f"{c.id}#{n // len(citations)}", n, c.text)

        scale = args.warm_time_scale
        # The world answers without rate limits and the engine, sped up, waits patiently:
        # the warm-up only fills the cache, and an answer that times out is not cached.
        async with open_world(corpus, time_scale=scale, in_process=args.world_in_process,
                              enforce_limits=False, enforce_budgets=False) as world:
            settings, policies = warm_cache_engine(world, work / "cache", scale)
            passes = {
                "distinct": await _warm(settings, distinct, 64, world, policies,
                                        args.max_warm_passes, "distinct"),
                "repeated": await _warm(settings, ww, 64, world, policies,
                                        args.max_warm_passes, "W&W"),
            }
            rss_start = _rss_mb()
            reset = _reset_peak_rss()
            workloads = {"distinct": distinct, "repeated": list(repeated())}
            results = {}
            for name, items in workloads.items():
                timed = [await _pass(settings, items, args.concurrency, world, policies)
                         for _ in range(args.rounds)]
                results[name] = {**median_pass(timed),
                                 "rounds_per_cpu_s": [t["per_cpu_s"] for t in timed]}
    result: dict[str, Any] = {
        **results,
        "rss_mb": {"start": round(rss_start, 1), "peak": round(_peak_rss_mb(), 1),
                   "peak_is_these_passes": reset},
        "concurrency": args.concurrency,
        "warm_passes": passes,
        "world": "in-process" if args.world_in_process else "process",
        "compiled_modules": len(compiled_loaded()),
        "interpreter": interpreter(),
    }
    for name, r in results.items():
        print(f"{name:>9}: {r['citations']:,} citations, {r['per_cpu_s']:,} per CPU-second, "
              f"{r['per_wall_s']:,} per wall-second, {r['requests_sent']} requests sent, "
              f"statuses {r['status_counts']}")
    print(f"RSS {rss_start:.0f} MB at the start, peak {result['rss_mb']['peak']:.0f} MB")
    print(f"compiled modules: {result['compiled_modules']} (0: plain Python)")
    python = result["interpreter"]
    print(f"interpreter: {python['implementation']} {python['version']} "
          f"({python['executable']}; libpython shared: {python['libpython_shared']})")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench throughput",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--corpus", help="a world corpus instead of the generated one")
    parser.add_argument("--distinct", type=int, default=20_000,
                        help="distinct citations rendered from the world (default 20,000)")
    parser.add_argument("--repeated", type=int, default=100_000,
                        help="W&W citations repeated to this count (default 100,000)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="timed passes per workload; the median one is reported (default 1)")
    parser.add_argument("--max-warm-passes", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--warm-time-scale", type=float, default=50.0,
                        help="speed of the world while warming the cache (default 50)")
    parser.add_argument("--world-in-process", action="store_true",
                        help="serve the world on the engine's event loop, not in its own process")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    args = parser.parse_args(argv)
    if (args.distinct < 1 or args.repeated < 1 or args.rounds < 1
            or not 1 <= args.concurrency <= 10_000):
        parser.error("--distinct, --repeated and --rounds must be positive and --concurrency "
                     "1..10000")
    result = run_bench("throughput", run(args), NotWarm)
    if result is None:
        return 1
    if args.json:
        write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
