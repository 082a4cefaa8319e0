"""Every report of a fixed set of citations from a warm cache, for proving a speed change
identical.

    verifier bench report-identity --out FILE [--distinct N] [--ww N] [--data DIR]
        [--corpus FILE]

Checks the ``--distinct`` citations ``verifier bench throughput`` renders from the W&W
world (default 4,000) and then the Walters & Wilder citations (all 636, or the first
``--ww``) through the normal
engine, against the offline world in a process of its own without rate limits, warming
the cache by passes until one sends zero requests (as the throughput bench does). It
then runs one more pass and writes each report as ``verifier check`` writes it (one JSON
line, in input order), with ``elapsed_s`` set to 0 (the only field that depends on the
machine). Run it at two commits and compare the files byte for byte (``cmp``): a change
that only makes the engine faster must leave them identical. It prints the number of
reports and the file's SHA-256.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from bench_args import result_file
from throughput import NotWarm, _warm, distinct_citations, warm_cache_engine
from walters_wilder import (
    DEFAULT_DATA,
    open_world,
    read_citations,
    run_bench,
    world_corpus,
)

from verifier import Verifier
from verifier.citations.models import CitationInput, Report
from verifier.http.policy import SourcePolicy
from verifier.settings import Settings


async def _reports(settings: Settings, items: Sequence[CitationInput],
                   policies: Mapping[str, SourcePolicy]) -> list[Report]:
    reports: list[Report] = []
    async with Verifier(settings, policies=policies) as verifier:
        async for report in verifier.verify_many(items, concurrency=64):
            reports.append(report)
    return sorted(reports, key=lambda r: r.index)


async def run(args: argparse.Namespace) -> list[bytes]:
    citations = read_citations(Path(args.data) / "ww2023_citations.csv")[:args.ww]
    with tempfile.TemporaryDirectory(prefix="report-identity-") as tmp:
        work = Path(tmp)
        corpus = world_corpus(args, work)
        distinct = distinct_citations(corpus, args.distinct) if args.distinct else []
        items = [*distinct, *(CitationInput(c.id, len(distinct) + i, c.text)
                              for i, c in enumerate(citations))]
        async with open_world(corpus, time_scale=50.0, enforce_limits=False,
                              enforce_budgets=False) as world:
            settings, policies = warm_cache_engine(world, work / "cache", 50.0)
            await _warm(settings, items, 64, world, policies, args.max_warm_passes,
                        "report-identity")
            reports = await _reports(settings, items, policies)
    return [replace(report, elapsed_s=0.0).to_json() + b"\n" for report in reports]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench report-identity",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", required=True, type=result_file,
                        help="write the reports here")
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="the W&W data folder (default: ../shared/data/walters_wilder_2023)")
    parser.add_argument("--corpus", help="a world corpus instead of the generated one")
    parser.add_argument("--distinct", type=int, default=4_000,
                        help="rendered citations to check before the W&W ones (default "
                             "4,000; 0 for none)")
    parser.add_argument("--ww", type=int, default=None,
                        help="check only the first N W&W citations (default: all)")
    parser.add_argument("--max-warm-passes", type=int, default=5)
    args = parser.parse_args(argv)
    if args.distinct < 0 or (args.ww is not None and args.ww < 0):
        parser.error("--distinct and --ww must not be negative")
    lines = run_bench("report-identity", run(args), NotWarm)
    if lines is None:
        return 1
    digest = hashlib.sha256()
    with Path(args.out).open("wb") as out:
        for line in lines:
            out.write(line)
            digest.update(line)
    print(f"{len(lines):,} reports into {args.out} (sha256 {digest.hexdigest()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
