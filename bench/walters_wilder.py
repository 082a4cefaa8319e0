"""The Walters & Wilder benchmark: all 636 ChatGPT citations through the normal engine,
against the offline world built from the W&W data (bench/ww_world.py, bench/WW_WORLD.md).

    verifier bench walters-wilder [--time-scale X] [--json FILE] [--keyless]
        [--baseline] [--independence distinct|lineage|both] [--scenario faults|FILE]
        [--corpus FILE] [--citations FILE] [--data DIR] [--concurrency N]
        [--world-in-process]

It prints the accuracy table per type (only ``verified`` counts as real; the column
beside it also accepts ``unconfirmed``), the counts of each status, the run's wall time
against its rate-limit lower bound, requests per citation and per source, and a cached
re-run. ``--baseline`` adds the naive baseline (``Strategy.ALL_AT_ONCE``) in the same process,
``--independence both`` runs both independence rules, ``--scenario faults`` a fault run
compared with the clean one. The engine runs as a user with a contact address and every
key would (the world accepts any key); ``--keyless`` as an unidentified user.

The world runs in a child process of its own (``verifier.world.process``), so the wall
time and the engine's event-loop lag (sampled every 10 ms during each run: p50, p99,
max of the overshoot) measure the engine, not the stand-in; ``--world-in-process``
serves it on the engine's loop instead, for comparison.

The labels decide which works exist in the world; the engine never reads them: it gets
the citation text and the id only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import hashlib
import math
import os
import resource
import signal
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import orjson
from bench_args import result_file, write_result
from scoring import (
    W_AND_W_TYPES,
    Outcome,
    ceiling,
    lower_bound_s,
    markdown_table,
    status_changes,
    status_counts,
    table,
    with_ceiling,
)
from ww_world import build_world_with_manifest, write_world

from verifier import Verifier
from verifier.citations.models import CitationInput, Report, Status
from verifier.options import CheckOptions, Strategy
from verifier.settings import DEFAULT_BASE_URLS, KEY_ENV_VARS, SOURCE_NAMES, Settings
from verifier.sources import PolicyTable
from verifier.world.limits import JITTER_S
from verifier.world.process import world_process
from verifier.world.server import serve_world, stats_of

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "walters_wilder_2023"
SCENARIOS = REPO / "fixtures" / "world" / "scenarios"
MAILTO = "bench@example.org"
ANY_KEYS = {"crossref": "bench", "openalex": "bench", "pubmed": "bench",
            "semanticscholar": "bench" * 8, "googlebooks": "bench"}
"""Keys the world accepts (Semantic Scholar's has the real keys' shape: 40 letters and
digits; the world answers 403 to any other, as the real gateway does to a bad key)."""


@dataclass(frozen=True, slots=True)
class Labelled:
    id: str
    text: str
    type: str
    fabricated: bool


@dataclass(slots=True)
class RunResult:
    name: str
    reports: dict[str, Report]
    wall_s: float
    requests_by_source: dict[str, int]
    lower_bound_s: float
    bound_by: str
    world_requests: int
    world_throttled: int
    loop_lag: LagSummary = field(default_factory=lambda: LagSummary(()))
    world_throttled_by_source: dict[str, int] = field(default_factory=dict)
    world_loop_lag: dict[str, Any] = field(default_factory=dict)
    """The world process's own loop lag and CPU seconds (empty for a world on the engine's
    loop)."""

    def statuses(self) -> dict[str, str]:
        return {cid: str(r.status) for cid, r in self.reports.items()}


@dataclass(frozen=True, slots=True)
class LagSummary:
    """How late the engine's event loop woke a 10 ms sleep, in seconds, over one run."""

    samples: tuple[float, ...]

    def percentile(self, q: float) -> float:
        """Nearest-rank percentile (q in 0..100); NaN without samples."""
        if not self.samples:
            return math.nan
        ordered = sorted(self.samples)
        return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]

    def as_json(self) -> dict[str, Any]:
        return {"loop_lag_p50_s": round(self.percentile(50), 4),
                "loop_lag_p99_s": round(self.percentile(99), 4),
                "loop_lag_max_s": round(max(self.samples, default=math.nan), 4),
                "loop_lag_samples": len(self.samples)}


class LoopLagSampler:
    """Sleeps ``interval_s`` again and again on the running loop and records each
    overshoot: the time a ready task waits for the loop (the loop's lag)."""

    def __init__(self, interval_s: float = 0.010) -> None:
        self.interval_s = interval_s
        self.samples: list[float] = []

    async def run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.interval_s)
            self.samples.append(max(0.0, time.perf_counter() - before - self.interval_s))

    @contextlib.asynccontextmanager
    async def sampling(self) -> AsyncIterator[LoopLagSampler]:
        task = asyncio.create_task(self.run())
        try:
            yield self
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def summary(self) -> LagSummary:
        return LagSummary(tuple(self.samples))


@dataclass(frozen=True, slots=True)
class WorldLink:
    """A running world as the benchmarks use it: base URLs, and its request counts."""

    base_urls: dict[str, str]
    stats: Callable[[], Awaitable[dict[str, Any]]]
    """``{"requests": N, "throttled": M, "by_source": {...}, ...}`` so far."""
    stopped: dict[str, Any] = field(default_factory=dict)
    """A world process's ``stopped`` line (its own loop lag), once the block has exited."""


@contextlib.asynccontextmanager
async def open_world(corpus: Path, *, time_scale: float, scenario: Path | None = None,
                     in_process: bool = False, jitter_s: float | None = None,
                     enforce_limits: bool = True, enforce_budgets: bool = True,
                     port: int = 0) -> AsyncIterator[WorldLink]:
    """The world over ``corpus``: in a child process of its own (default), or served on
    the running loop (``in_process``), which then shares the loop with the engine.
    ``jitter_s``: the world's rate-window tolerance (None: its default)."""
    if in_process:
        async with serve_world(corpus, port=port, time_scale=time_scale, scenario=scenario,
                               jitter_s=JITTER_S if jitter_s is None else jitter_s,
                               enforce_limits=enforce_limits,
                               enforce_budgets=enforce_budgets) as world:
            async def stats() -> dict[str, Any]:
                return stats_of(world.requests)

            yield WorldLink(world.base_urls, stats)
    else:
        async with world_process(corpus, time_scale=time_scale, scenario=scenario,
                                 jitter_s=jitter_s, enforce_limits=enforce_limits,
                                 enforce_budgets=enforce_budgets, port=port) as child:
            link = WorldLink(child.base_urls, child.stats)
            yield link
        lines = [orjson.loads(line) for line in child.output if line.startswith("{")]
        link.stopped.update(next((v for v in lines if v.get("event") == "stopped"), {}))


def read_citations(path: Path) -> list[Labelled]:
    """The labelled citations: a CSV or JSONL with id, citation_text, pub_type, fabricated."""
    if not path.is_file():
        sys.exit(f"citations file {path} not found (the W&W data lives in ../shared/data)")
    rows: list[dict[str, Any]]
    if path.suffix in (".jsonl", ".ndjson"):
        rows = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    else:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    out = []
    for number, row in enumerate(rows, 1):
        try:
            kind = str(row["pub_type"]).strip().upper()
            out.append(Labelled(str(row["id"]), str(row["citation_text"]),
                                W_AND_W_TYPES.get(kind, "web_other"),
                                str(row["fabricated"]).strip() in ("1", "true", "True")))
        except KeyError as exc:
            sys.exit(f"{path}: row {number} lacks column {exc}")
    return out


def world_corpus(args: argparse.Namespace, workdir: Path,
                 holders: dict[str, int] | None = None) -> Path:
    """The corpus path (generated unless ``--corpus``); ``holders`` is filled with the
    number of sources holding each labelled row's work (from the audit manifest, for the
    coverage ceiling; the engine never sees it)."""
    if args.corpus:
        return Path(args.corpus)
    started = time.perf_counter()
    lines, manifest = build_world_with_manifest(Path(args.data))
    if holders is not None:
        sources = {line["id"]: len(line["sources"]) for line in lines}
        for entry in manifest:
            for row in entry["rows"]:
                holders[row] = max(holders.get(row, 0), sources[entry["id"]])
    path = workdir / "ww_world.jsonl"
    write_world(lines, path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    print(f"world: {len(lines):,} works generated in {time.perf_counter() - started:.1f}s "
          f"(sha256 {digest})", file=sys.stderr)
    return path


def engine_settings(base_urls: dict[str, str], *, keyless: bool, time_scale: float,
                    cache_dir: Path | None, independence: str) -> Settings:
    return Settings(
        mailto=None if keyless else MAILTO,
        api_keys={} if keyless else dict(ANY_KEYS),
        base_urls={**DEFAULT_BASE_URLS, **base_urls},
        sources=SOURCE_NAMES,
        cache_dir=cache_dir,
        time_scale=time_scale,
        independence=independence,
        deadline_s=600.0 / time_scale + 60.0,
    )


def write_cli_input(citations: Sequence[Labelled], path: Path) -> Path:
    """The citations as the CSV ``verifier check`` reads (id, citation_text)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "citation_text"])
        writer.writerows((c.id, c.text) for c in citations)
    return path


def cli_env(work: Path, *, keyless: bool) -> dict[str, str]:
    """The environment of a ``verifier check`` process the bench times: the user's, less
    any key or ``VERIFIER_`` setting of theirs, with bytecode and the pattern store
    written under ``work`` (``PYTHONPYCACHEPREFIX``, ``VERIFIER_REGEX_STORE``), never
    into the source tree or the user's cache, and the bench's keys unless ``keyless``."""
    env = {k: v for k, v in os.environ.items()
           if k not in KEY_ENV_VARS.values() and not k.startswith("VERIFIER_")
           and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(work / "pycache"),
               VERIFIER_REGEX_STORE=str(work / "regex-store.bin"))
    if not keyless:
        env.update({KEY_ENV_VARS[name]: key for name, key in ANY_KEYS.items()
                    if name in KEY_ENV_VARS})
    return env


async def timed_cli_check(source: Path, out: Path, world: WorldLink, settings: Settings,
                          env: dict[str, str], *, time_scale: float, concurrency: int,
                          keyless: bool) -> dict[str, Any]:
    """``verifier check`` over ``source`` as a subprocess against ``world``, with the
    cache of ``settings``: the wall time from spawning the process to its exit, start-up
    included, its exit code, the requests the world saw meanwhile and the statuses by
    id."""
    root = world.base_urls["crossref"].rsplit("/crossref", 1)[0]
    command = [sys.executable, "-m", "verifier", "check", str(source), "-o", str(out),
               "--force", "--quiet", "--world", root, "--time-scale", str(time_scale),
               "--concurrency", str(concurrency), "--cache-dir", str(settings.cache_dir),
               "--deadline", str(settings.deadline_s)]
    if not keyless:
        command += ["--mailto", MAILTO]
    before = (await world.stats())["requests"]
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(*command, env=env)
    try:
        code = await process.wait()
    except BaseException:
        # Stopped (SIGTERM, Ctrl-C): the check ends before its folders are removed.
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise
    wall = time.perf_counter() - started
    sent = (await world.stats())["requests"] - before
    return {"wall_s": round(wall, 3), "requests": sent, "exit_code": code,
            "statuses": statuses_in(out)}


def statuses_in(output: Path) -> dict[str, str]:
    """Each line's status by id in a ``verifier check`` output file (none if missing)."""
    statuses = {}
    if output.is_file():
        for line in output.read_bytes().splitlines():
            if line.strip():
                row = orjson.loads(line)
                statuses[str(row.get("id"))] = str(row.get("status"))
    return statuses


async def cli_rerun(citations: Sequence[Labelled], corpus: Path, settings: Settings,
                    work: Path, *, time_scale: float, concurrency: int, keyless: bool,
                    world_in_process: bool, world_port: int) -> dict[str, Any]:
    """``verifier check`` as a subprocess over the citations with the warm cache of
    ``settings``, against the world at ``world_port`` (the URLs the cache keys on), twice
    (:func:`timed_cli_check`): a *first* process (no bytecode of the package, no store
    of compiled patterns: what the first run after an install or an upgrade pays) and a
    *warm* one (the bytecode and the pattern store the first one wrote: every later
    run). Returns the warm run's figures with the first run's as ``first``."""
    source = write_cli_input(citations, work / "cli-rerun.csv")
    env = cli_env(work, keyless=keyless)
    async with open_world(corpus, time_scale=time_scale, in_process=world_in_process,
                          port=world_port) as world:
        runs = [await timed_cli_check(source, work / f"cli-rerun-{name}.jsonl", world,
                                      settings, env, time_scale=time_scale,
                                      concurrency=concurrency, keyless=keyless)
                for name in ("first", "warm")]
    first, warm = runs
    return {**warm, "first": first}


async def run_once(name: str, citations: Sequence[Labelled], corpus: Path, settings: Settings,
                   *, time_scale: float, concurrency: int, scenario: Path | None = None,
                   naive: bool = False, world_in_process: bool = False,
                   world_jitter_s: float | None = None, world_port: int = 0) -> RunResult:
    """One pass over the citations against a fresh world; requests counted both sides,
    the engine's loop lag sampled while it runs."""
    items = [CitationInput(id=c.id, index=i, text=c.text) for i, c in enumerate(citations)]
    async with open_world(corpus, time_scale=time_scale, scenario=scenario,
                          in_process=world_in_process, jitter_s=world_jitter_s,
                          port=world_port) as world:
        settings = replace(settings, base_urls={**settings.base_urls, **world.base_urls})
        options = CheckOptions(strategy=Strategy.ALL_AT_ONCE if naive else Strategy.PLANNED)
        reports: dict[str, Report] = {}
        lag = LoopLagSampler()
        started = time.perf_counter()
        async with Verifier(settings) as verifier, lag.sampling():
            last = started
            async for report in verifier.verify_many(items, concurrency=concurrency,
                                                     options=options):
                reports[report.id] = report
                now = time.perf_counter()
                if now - last > 10:
                    last = now
                    print(f"  {name}: {len(reports)}/{len(items)} in {now - started:.0f}s, "
                          f"{verifier.stats.requests} requests", file=sys.stderr)
            wall = time.perf_counter() - started
            stats = verifier.stats
        table_ = PolicyTable.for_settings(settings)
        per_class = {(s, c): n for s, st in stats.sources.items() for c, n in st.by_class.items()}
        rates = {(s, c): table_[s].rate_class(c).per_second for s, c in per_class}
        bound, where = lower_bound_s(per_class, rates)
        world_stats = await world.stats()
    world_lag = {k: v for k, v in world.stopped.items()
                 if k.startswith("loop_lag") or k == "cpu_s"}
    return RunResult(
        name=name,
        reports=reports,
        wall_s=wall,
        requests_by_source={s: st.requests for s, st in sorted(stats.sources.items())},
        lower_bound_s=bound,
        bound_by=where,
        world_requests=world_stats["requests"],
        world_throttled=world_stats["throttled"],
        loop_lag=lag.summary(),
        world_throttled_by_source=world_stats.get("throttled_by_source", {}),
        world_loop_lag=world_lag,
    )


def outcomes(citations: Sequence[Labelled], run: RunResult) -> list[Outcome]:
    return [Outcome(c.id, c.type, c.fabricated, str(run.reports[c.id].status))
            for c in citations]


def summary(citations: Sequence[Labelled], run: RunResult, *, lenient: bool = False
            ) -> dict[str, Any]:
    scored = outcomes(citations, run)
    n = len(citations)
    return {
        "table": table(scored, accept_unconfirmed=lenient),
        "table_unconfirmed_as_real": table(scored, accept_unconfirmed=True),
        "status_counts": status_counts(scored),
        "wall_s": round(run.wall_s, 2),
        "lower_bound_s": round(run.lower_bound_s, 2),
        "lower_bound_set_by": run.bound_by,
        "wall_over_bound": round(run.wall_s / run.lower_bound_s, 3) if run.lower_bound_s else None,
        "requests_per_citation": round(sum(run.requests_by_source.values()) / n, 3),
        "requests_by_source": run.requests_by_source,
        "world_requests": run.world_requests,
        "world_throttled": run.world_throttled,
        "world_throttled_by_source": run.world_throttled_by_source,
        **run.loop_lag.as_json(),
        **({"world_process": run.world_loop_lag} if run.world_loop_lag else {}),
    }


def print_run(title: str, citations: Sequence[Labelled], run: RunResult, *,
              lenient: bool = False) -> None:
    s = summary(citations, run, lenient=lenient)
    print(f"\n## {title}\n")
    print(markdown_table(s["table"], s["table_unconfirmed_as_real"]))
    print(f"\nstatuses: {s['status_counts']}")
    print(f"wall {s['wall_s']:.1f}s, lower bound {s['lower_bound_s']:.1f}s "
          f"(set by {s['lower_bound_set_by']}), ratio {s['wall_over_bound']}; "
          f"{s['requests_per_citation']} requests per citation; world saw "
          f"{s['world_requests']} requests, {s['world_throttled']} answered 429")
    print(f"engine loop lag: p50 {s['loop_lag_p50_s'] * 1000:.1f} ms, "
          f"p99 {s['loop_lag_p99_s'] * 1000:.1f} ms, max {s['loop_lag_max_s'] * 1000:.1f} ms "
          f"({s['loop_lag_samples']} samples of a 10 ms sleep)"
          + (f"; the world process's own: p99 {lag['loop_lag_p99_s'] * 1000:.1f} ms, max "
             f"{lag['loop_lag_max_s'] * 1000:.1f} ms, {lag.get('cpu_s')} s of CPU"
             if (lag := s.get("world_process")) and lag.get("loop_lag_p99_s") is not None
             else ""))
    print("requests by source: " + ", ".join(f"{k} {v}" for k, v in
                                              s["requests_by_source"].items()))


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    citations = read_citations(Path(args.citations) if args.citations
                               else Path(args.data) / "ww2023_citations.csv")
    result: dict[str, Any] = {"citations": len(citations), "time_scale": args.time_scale,
                              "keyless": args.keyless,
                              "world": "in-process" if args.world_in_process else "process"}
    rules = ["distinct", "lineage"] if args.independence == "both" else [args.independence]
    with tempfile.TemporaryDirectory(prefix="ww-bench-") as tmp:
        work = Path(tmp)
        holders: dict[str, int] = {}
        corpus = world_corpus(args, work, holders)
        scale = args.time_scale
        main_rule = rules[0]
        # Every world of this bench is served at one port: the cache keys answers on the
        # base URL they came from, so the cached re-run must ask the same URLs.
        port = free_port()
        cache = work / "cache-main"
        settings = engine_settings({}, keyless=args.keyless, time_scale=scale,
                                   cache_dir=cache, independence=main_rule)
        print(f"main run: {len(citations)} citations, time scale {scale}, "
              f"independence {main_rule}", file=sys.stderr)
        main = await run_once("main", citations, corpus, settings, time_scale=scale,
                              concurrency=args.concurrency,
                              world_in_process=args.world_in_process,
                              world_jitter_s=args.world_jitter_s, world_port=port)
        print_run(f"Engine ({main_rule}, time scale {scale})", citations, main)
        result.update(summary(citations, main))
        if holders:
            ceilings = ceiling(((c.id, c.type, c.fabricated) for c in citations), holders)
            result["table"] = with_ceiling(result["table"], ceilings)
            print("\ncoverage ceiling (two sources hold the work, or fabricated): " + ", ".join(
                f"{k} {v['ceiling']:.1%} (accuracy/ceiling {v['accuracy_over_ceiling']:.1%})"
                for k, v in result["table"].items()))
        result["independence"] = {main_rule: {
            "accuracy": result["table"]["all"]["accuracy"],
            "requests_per_citation": result["requests_per_citation"]}}
        result["per_citation"] = [
            {"id": c.id, "type": c.type, "fabricated": c.fabricated,
             "status": str(main.reports[c.id].status),
             "agreeing_sources": list(main.reports[c.id].agreeing_sources),
             "flags": list(main.reports[c.id].flags),
             "sources": {s: str(r.status) for s, r in main.reports[c.id].sources.items()},
             "errors": {s: r.error for s, r in main.reports[c.id].sources.items() if r.error},
             "requests": {s: r.requests for s, r in main.reports[c.id].sources.items()
                          if r.requests}}
            for c in citations
        ]

        cached = await run_once("cached", citations, corpus, settings, time_scale=scale,
                                concurrency=args.concurrency,
                                world_in_process=args.world_in_process,
                                world_jitter_s=args.world_jitter_s, world_port=port)
        same = sum(cached.reports[c.id].status == main.reports[c.id].status for c in citations)
        result["cached_rerun"] = {"wall_s": round(cached.wall_s, 2),
                                  "requests": sum(cached.requests_by_source.values()),
                                  "same_status": same}
        print(f"\ncached re-run: {cached.wall_s:.2f}s, "
              f"{result['cached_rerun']['requests']} requests, "
              f"{same}/{len(citations)} statuses unchanged")

        cli = await cli_rerun(citations, corpus, settings, work, time_scale=scale,
                              concurrency=args.concurrency, keyless=args.keyless,
                              world_in_process=args.world_in_process, world_port=port)
        same_cli, same_first = (
            sum(run["statuses"].get(c.id) == str(main.reports[c.id].status) for c in citations)
            for run in (cli, cli["first"]))
        result["cached_rerun_s"] = cli["wall_s"]
        result["cached_rerun"].update(
            {"cli_wall_s": cli["wall_s"], "cli_requests": cli["requests"],
             "cli_same_status": same_cli, "cli_exit_code": cli["exit_code"],
             "cli_first_wall_s": cli["first"]["wall_s"],
             "cli_first_requests": cli["first"]["requests"],
             "cli_first_same_status": same_first})
        print(f"cached re-run end to end (verifier check, start-up included): "
              f"{cli['wall_s']:.2f}s, {cli['requests']} requests, "
              f"{same_cli}/{len(citations)} statuses unchanged; the first process after an "
              f"install (no bytecode, no pattern store yet): {cli['first']['wall_s']:.2f}s, "
              f"{cli['first']['requests']} requests, {same_first}/{len(citations)} unchanged")

        for rule in rules[1:]:
            other = await run_once(rule, citations, corpus,
                                   replace(settings, independence=rule,
                                           cache_dir=work / f"cache-{rule}"),
                                   time_scale=scale, concurrency=args.concurrency,
                                   world_in_process=args.world_in_process,
                                   world_jitter_s=args.world_jitter_s, world_port=port)
            print_run(f"Engine ({rule}, time scale {scale})", citations, other)
            s = summary(citations, other)
            result["independence"][rule] = {"accuracy": s["table"]["all"]["accuracy"],
                                            "requests_per_citation": s["requests_per_citation"],
                                            "table": s["table"], "status_counts":
                                            s["status_counts"]}

        if args.baseline:
            base = await run_once("baseline", citations, corpus,
                                  replace(settings, cache_dir=work / "cache-naive"),
                                  time_scale=scale, concurrency=args.concurrency, naive=True,
                                  world_in_process=args.world_in_process,
                                  world_jitter_s=args.world_jitter_s, world_port=port)
            print_run(f"Naive baseline (all sources at once, first match wins, time scale "
                      f"{scale})", citations, base, lenient=True)
            s = summary(citations, base, lenient=True)
            result["baseline"] = {k: s[k] for k in ("wall_s", "lower_bound_s",
                                                    "wall_over_bound", "requests_per_citation",
                                                    "requests_by_source", "table")}

        if args.scenario:
            scenario = (SCENARIOS / f"{args.scenario}.json"
                        if not args.scenario.endswith(".json") else Path(args.scenario))
            faulty = await run_once("faults", citations, corpus,
                                    replace(settings, cache_dir=work / "cache-faults"),
                                    time_scale=scale, concurrency=args.concurrency,
                                    scenario=scenario, world_in_process=args.world_in_process,
                                    world_jitter_s=args.world_jitter_s, world_port=port)
            print_run(f"Fault run ({scenario.name})", citations, faulty)
            changes = status_changes(main.statuses(), faulty.statuses())
            v2n = changes.get(f"{Status.VERIFIED}->{Status.NO_TRACE}", 0)
            result["scenario"] = scenario.name
            result["status_changes"] = changes
            result["verified_to_no_trace"] = v2n
            result["fault_run"] = summary(citations, faulty)
            print(f"\nstatus changes from the clean run: {changes or 'none'}; "
                  f"verified -> no_trace: {v2n}")
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if not args.world_in_process:  # the largest of the world processes, apart
        result["world_peak_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    return result


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="verifier bench walters-wilder",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="the W&W data folder (default: ../shared/data/walters_wilder_2023)")
    parser.add_argument("--corpus", help="a world corpus to use instead of generating one")
    parser.add_argument("--citations", help="CSV or JSONL with id, citation_text, pub_type, "
                                            "fabricated (default: the W&W CSV)")
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="speed every published limit up by this factor, in the world "
                             "and in the engine alike (default 1: the published limits)")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--keyless", action="store_true",
                        help="run as an unidentified user: no contact address, no keys")
    parser.add_argument("--baseline", action="store_true",
                        help="also run the naive baseline in the same process")
    parser.add_argument("--independence", choices=["distinct", "lineage", "both"],
                        default="distinct")
    parser.add_argument("--scenario", help="fault scenario: a name in fixtures/world/"
                                           "scenarios (e.g. faults) or a .json path")
    parser.add_argument("--world-jitter-s", type=float, metavar="S",
                        help="the world's rate-window tolerance in real seconds (default: "
                             "the world's, 0.01)")
    parser.add_argument("--world-in-process", action="store_true",
                        help="serve the world on the engine's event loop instead of in a "
                             "process of its own (to measure what sharing the loop costs)")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    args = parser.parse_args(argv)
    if not args.time_scale > 0:
        parser.error(f"--time-scale must be positive, got {args.time_scale}")
    if not 1 <= args.concurrency <= 1000:
        parser.error(f"--concurrency must be 1..1000, got {args.concurrency}")
    return args


def exit_on_sigterm() -> None:
    """Make SIGTERM end the benchmark as an exception does (exit status 143), so every
    ``with`` unwinds: temporary folders are removed, world processes stopped. (By default
    SIGTERM kills Python at once and leaves them behind.)"""

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one stop is enough
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


_Result = TypeVar("_Result")


def run_bench(command: str, main: Coroutine[Any, Any, _Result],
              *expected: type[Exception]) -> _Result | None:
    """Run a bench's ``main`` with SIGTERM unwinding it (:func:`exit_on_sigterm`). A
    failure it ``expected`` (a cache that would not warm, say) is printed as
    ``verifier bench COMMAND: why`` and gives None, for the command to exit 1."""
    exit_on_sigterm()
    try:
        return asyncio.run(main)
    except expected as exc:
        print(f"verifier bench {command}: {exc}", file=sys.stderr)
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    result = run_bench("walters-wilder", main_async(args))
    if result is None:
        return 1
    if args.json:
        write_result(args.json, result)
    return 0


def free_port() -> int:
    """A port free now on loopback, for the worlds this bench serves one after another."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


if __name__ == "__main__":
    sys.exit(main())

