"""Throughput from a warm cache: many citations, no network, citations per second and
peak memory.

    verifier bench throughput [--citations-count N] [--concurrency N] [--json FILE]
        [--world-in-process]

It warms a cache with one pass of the 636 Walters & Wilder citations against the offline
world (sped up, it only fills the cache), then checks N citations (default 100,000: the
636 repeated, each copy with its own id) through the normal engine against the same
world with that cache, and reports citations per second, requests sent (0 expected)
and the peak resident memory of the pass, which shows whether ``verify_many`` keeps
memory bounded on a large input. The world runs in a process of its own (its memory is
not the engine's), or on the engine's loop with ``--world-in-process``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
from walters_wilder import (
    DEFAULT_DATA,
    engine_settings,
    exit_on_sigterm,
    open_world,
    read_citations,
    world_corpus,
)

from verifier import Verifier
from verifier.citations.models import CitationInput


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


async def run(args: argparse.Namespace) -> dict[str, Any]:
    citations = read_citations(Path(args.data) / "ww2023_citations.csv")
    with tempfile.TemporaryDirectory(prefix="throughput-") as tmp:
        work = Path(tmp)
        corpus = world_corpus(args, work)
        scale = args.warm_time_scale
        async with open_world(corpus, time_scale=scale,
                              in_process=args.world_in_process) as world:
            settings = engine_settings(world.base_urls, keyless=False, time_scale=scale,
                                       cache_dir=work / "cache", independence="distinct")
            warm_items = [CitationInput(c.id, i, c.text) for i, c in enumerate(citations)]
            started = time.perf_counter()
            async with Verifier(settings) as verifier:
                warm = [r async for r in verifier.verify_many(warm_items, concurrency=64)]
            warm_s = time.perf_counter() - started
            print(f"warm-up: {len(warm)} citations in {warm_s:.1f}s", file=sys.stderr)

            def many() -> Iterator[CitationInput]:
                for n in range(args.citations_count):
                    c = citations[n % len(citations)]
                    yield CitationInput(f"{c.id}#{n // len(citations)}", n, c.text)

            before = (await world.stats())["requests"]
            rss_before = _rss_mb()
            reset = _reset_peak_rss()
            statuses: Counter[str] = Counter()
            started = time.perf_counter()
            async with Verifier(settings) as verifier:
                async for report in verifier.verify_many(many(), concurrency=args.concurrency):
                    statuses[str(report.status)] += 1
                    done = sum(statuses.values())
                    if done % 20_000 == 0:
                        print(f"  {done:,} in {time.perf_counter() - started:.0f}s",
                              file=sys.stderr)
                hits = sum(s.cache_hits for s in verifier.stats.sources.values())
            wall = time.perf_counter() - started
            sent = (await world.stats())["requests"] - before
    result = {
        "citations": args.citations_count,
        "concurrency": args.concurrency,
        "wall_s": round(wall, 2),
        "citations_per_s": round(args.citations_count / wall, 1),
        "requests_sent": sent,
        "cache_hits": hits,
        "status_counts": dict(statuses),
        "rss_before_mb": round(rss_before, 1),
        "peak_rss_mb": round(_peak_rss_mb(), 1),
        "peak_rss_is_this_pass": reset,
        "warmup_s": round(warm_s, 2),
        "world": "in-process" if args.world_in_process else "process",
    }
    print(f"\n{args.citations_count:,} citations from a warm cache in {wall:.1f}s: "
          f"{result['citations_per_s']:,} citations/s, {sent} requests sent, "
          f"{hits:,} cache hits; RSS {rss_before:.0f} MB before, peak "
          f"{result['peak_rss_mb']:.0f} MB during the pass"
          + ("" if reset else " (process peak: the kernel mark could not be reset)"))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench throughput",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--corpus", help="a world corpus instead of the generated one")
    parser.add_argument("--citations-count", type=int, default=100_000)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--warm-time-scale", type=float, default=50.0,
                        help="speed of the world while warming the cache (default 50)")
    parser.add_argument("--world-in-process", action="store_true",
                        help="serve the world on the engine's event loop, not in its own process")
    parser.add_argument("--json", help="write the result file here")
    args = parser.parse_args(argv)
    if args.citations_count < 1 or not 1 <= args.concurrency <= 10_000:
        parser.error("--citations-count must be positive and --concurrency 1..10000")
    exit_on_sigterm()
    result = asyncio.run(run(args))
    if args.json:
        Path(args.json).write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2))
        print(f"result file: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
