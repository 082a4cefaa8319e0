"""The judging bench: the review judge and the reference check on one loop, measured.

    verifier bench judge [--papers N] [--refs-per-paper N] [--time-scale X]
        [--rpm N] [--tpm N] [--concurrency N] [--papers-in-flight N]
        [--calls-per-paper N] [--json FILE] [--skip-timing] [--rubric]

**Data.** The 4 eLife papers and the 200 NeurIPS 2025 papers (``../shared/data/``), their
human reviews as the ``human`` source; ``--papers N`` takes the first N of them, and
N above 204 builds a scale-up by cycling them, each copy a paper of its own (id
``<id>~k``, a first line ``Copy k.`` so no two share a prompt). Each NeurIPS paper's
first ``--refs-per-paper`` references (default 10; 0 = all) are checked; the eLife
manuscripts carry no reference list, and their text has no reference section.

**The world** (:mod:`judge_world`): a corpus built from those reference strings under
its stated coverage model, served by ``verifier.world`` in a process of its own
(Crossref, OpenAlex, Semantic Scholar and arXiv, at ``--time-scale``), with the engine
identified (polite pools, keys). **The model endpoint** (:mod:`judge_endpoint`): the
world's simulated endpoint in another process, answering with the offline baseline's
rules over the wire, at ``--rpm``/``--tpm``/``--concurrency`` and a latency model
(0.3 s to the first token, 20 µs per uncached prompt token, 4 ms per output token),
scaled by ``--time-scale``. The judge reaches it through ``open_models`` (the chat
backend on the session's paced client, as ``verifier judge`` does).

**Runs**, each against a fresh world and endpoint (full buckets) and a fresh cache:

1. ``judge`` alone (no reference check); 2. ``citations`` alone (no judging);
3. ``mixed``: both on one loop, the loop's lag sampled every 10 ms;
4. ``rerun``: the mixed run again on its cache (expected: zero model calls, zero
   lookups).

Reported: calls, tokens (prompt, cached, completion, charged), cost (gpt-4.1 prices,
USD per 1M tokens: 2.00 input, 0.50 cached input, 8.00 output), wall times, the
limit-derived bound and endpoint utilisation of the judge runs, loop lag p99 of the
mixed run, mixed wall vs the longer alone (goal ≤ 1.1×). The limit-derived bound is
the longest of: the requests' service time over the concurrency (busy_s / concurrency),
and for requests and charged tokens what the run used beyond the first full bucket (one
minute's worth) at the per-minute rate (after the time scale); utilisation is that
bound over the judging's wall time (:func:`utilisation`).

**The baseline measurement** (always): the offline judge (in process) on the eLife
papers' human reviews, beside ReviewBench's published figures for human eLife reviews
(its 200-article re-run, and the 1,000-article means of ``means.csv``). ``--rubric`` adds
the rubric evaluation (:mod:`verifier.judge.rubric_run`) on the NeurIPS papers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench_args import result_file, write_result
from judge_endpoint import MODEL, EndpointLimits, endpoint_process
from judge_world import SERVICES, build_corpus
from walters_wilder import ANY_KEYS, MAILTO, LoopLagSampler, free_port

from verifier.citations.checker import CitationChecker
from verifier.judge.inputs import PaperInput, read_papers
from verifier.judge.lines import judgements_of, source_line
from verifier.judge.metrics import METRICS
from verifier.judge.pipeline import Judge, JudgeOptions
from verifier.judge.published import load_published_means
from verifier.judge.report import build_report
from verifier.judge.run import JudgeRun, RunOptions
from verifier.llm.select import open_models
from verifier.reviews.models import ItemError
from verifier.session import Session
from verifier.settings import DEFAULT_BASE_URLS, ModelEndpointSettings, ModelSettings, Settings
from verifier.world.process import world_process

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
ELIFE = SHARED / "elife" / "elife_sample.jsonl"
NEURIPS = SHARED / "reviews" / "neurips2025_openreview" / "papers.jsonl"
PRICES = {"input": 2.00, "cached": 0.50, "output": 8.00}
"""gpt-4.1, USD per 1M tokens (shared/docs/models.md §5)."""
PUBLISHED_RERUN = {"mapped_rate": 0.63, "consequential_rate": 0.608, "claim_coverage": 0.607,
                   "justification_rate": 0.633, "remedy_rate": 0.606, "anchor_rate": 0.482}
"""ReviewBench's reference model on human reviews of eLife papers, its 200-article re-run
(as the issue quotes it)."""


def cost(prompt: int, cached: int, completion: int) -> float:
    return ((prompt - cached) * PRICES["input"] + cached * PRICES["cached"]
            + completion * PRICES["output"]) / 1e6


def load_papers(count: int, refs_per_paper: int) -> list[PaperInput]:
    base: list[PaperInput] = []
    for path in (ELIFE, NEURIPS):
        for item in read_papers(path):
            if isinstance(item, ItemError):
                print(f"skipped {item.item}: {item.reason}", file=sys.stderr)
                continue
            if refs_per_paper:
                item.references = item.references[:refs_per_paper]
            base.append(item)
    if count <= len(base):
        return base[:count]
    papers = list(base)
    k = 0
    while len(papers) < count:
        k += 1
        for item in base:
            if len(papers) == count:
                break
            copy = replace(item, paper_id=f"{item.paper_id}~{k}", text=f"Copy {k}.\n{item.text}",
                           sources={s: list(c) for s, c in item.sources.items()},
                           errors=[])
            papers.append(copy)
    return papers


def settings_for(base_urls: dict[str, str], cache_dir: Path, time_scale: float,
                 endpoint: str, limits: EndpointLimits) -> Settings:
    """The sources at the world, and the chat model at the simulated endpoint with its own
    limits: the judge opens it with ``open_models`` like any run."""
    llm = ModelEndpointSettings(endpoint, MODEL, rpm=limits.rpm, tpm=limits.tpm,
                                concurrency=limits.concurrency)
    return Settings(mailto=MAILTO, api_keys=dict(ANY_KEYS),
                    base_urls={**DEFAULT_BASE_URLS, **base_urls}, sources=SERVICES,
                    cache_dir=cache_dir, time_scale=time_scale,
                    deadline_s=600.0 / time_scale + 60.0,
                    # The judge's batches answer with long JSON: room for it, as before.
                    models=ModelSettings(llm=llm, max_completion_tokens=8192))


async def one_run(name: str, papers: list[PaperInput], corpus: Path, cache_dir: Path,
                  args: argparse.Namespace, *, judge: bool, refs: bool) -> dict[str, Any]:
    limits = EndpointLimits(args.rpm, args.tpm, args.concurrency, args.time_scale)
    # Every run is served at the same ports: the caches key answers on the base URLs, so
    # the re-run finds what the run before it stored.
    async with world_process(corpus, time_scale=args.time_scale, services=SERVICES,
                             port=args.world_port) as world, \
            endpoint_process(limits, ttft_s=0.3, prefill_s_per_token=0.00002,
                             per_token_s=0.004, port=args.endpoint_port) as endpoint:
        settings = settings_for(world.base_urls, cache_dir, args.time_scale,
                                endpoint.base_url, limits)
        world_before = await world.stats()
        await endpoint.usage(reset=True)
        lag = LoopLagSampler()
        lines: list[dict[str, Any]] = []
        async with Session(settings) as session:
            chat = open_models(session)[1]
            judge_ = Judge(chat, JudgeOptions(calls_per_paper=args.calls_per_paper,
                                              calls_per_source=args.calls_per_paper))
            checker = CitationChecker(session) if refs else None
            run = JudgeRun(judge_, checker, RunOptions(papers_in_flight=args.papers_in_flight,
                                                       references_per_paper=8))
            loop = asyncio.get_running_loop()
            judge_walls: list[float] = []
            refs_walls: list[float] = []
            statuses: dict[str, int] = {}
            started = loop.time()

            def plan(_paper: PaperInput) -> tuple[list[str] | None, bool]:
                return (None if judge else [], refs)

            async with lag.sampling():
                async for done in run.run(papers, plan=plan):
                    offset = done.started_at - started
                    if done.outcome is not None:
                        judge_walls.append(offset + done.judge_wall_s)
                        for outcome in done.outcome.sources.values():
                            lines.append(source_line(outcome, done.references, chat.backend))
                    if done.references.checked:
                        refs_walls.append(offset + done.references.wall_s)
                        for status, n in done.references.statuses.items():
                            statuses[status] = statuses.get(status, 0) + n
            wall = loop.time() - started
        usage = await endpoint.usage()
        world_after = await world.stats()
    collected = judgements_of(lines)
    judge_wall = max(judge_walls, default=0.0)
    result: dict[str, Any] = {
        "run": name, "wall_s": round(wall, 3), "papers": len(papers),
        "judge_wall_s": round(judge_wall, 3) if judge else None,
        "citations_wall_s": round(max(refs_walls, default=0.0), 3) if refs else None,
        "calls": usage["requests"], "replies": usage["billed_replies"],
        "throttled": usage["throttled"], "by_status": usage["by_status"],
        "tokens": {"prompt": usage["prompt_tokens"], "cached": usage["cached_tokens"],
                   "completion": usage["completion_tokens"],
                   "charged": usage["charged_tokens"]},
        "cost_usd": round(cost(usage["prompt_tokens"], usage["cached_tokens"],
                               usage["completion_tokens"]), 4),
        "lookups": world_after["requests"] - world_before["requests"],
        "lookups_throttled": world_after["throttled"] - world_before["throttled"],
        "reference_statuses": statuses,
        "sources_judged": len(collected.judgements),
        "skipped": collected.skipped,
        **lag.summary().as_json(),
    }
    if judge and judge_wall > 0 and usage["requests"]:
        result.update(utilisation(usage, limits, judge_wall))
    return result


def utilisation(usage: dict[str, Any], limits: EndpointLimits, wall: float) -> dict[str, Any]:
    """Each limit's share of the run, and the limit-derived lower bound on its wall time.

    The endpoint's request and token buckets start full (one minute's worth, as OpenAI's
    do), so a limit bounds only what the run used beyond that first bucket: the bound of a
    rate limit is max(0, used − limit) / (limit per real second). Concurrency bounds the
    sum of the requests' service times: busy_s / concurrency."""
    per_s = limits.time_scale / 60.0
    busy = float(usage["busy_s"])
    bounds = {
        "concurrency": busy / limits.concurrency,
        "rpm": max(0, usage["requests"] - limits.rpm) / (limits.rpm * per_s),
        "tpm": max(0, usage["charged_tokens"] - limits.tpm) / (limits.tpm * per_s),
    }
    binding = max(bounds, key=lambda k: bounds[k])
    return {"utilisation": round(bounds[binding] / wall, 4), "binding_limit": binding,
            "utilisation_by_limit": {k: round(v / wall, 4) for k, v in bounds.items()},
            "bound_s": round(bounds[binding], 3)}


# ----------------------------------------------------------------------------- baseline


async def baseline_elife() -> dict[str, Any]:
    """The offline judge on the eLife papers' human reviews, beside ReviewBench's."""
    papers = [p for p in read_papers(ELIFE) if isinstance(p, PaperInput)]
    run = JudgeRun(Judge())
    lines = [source_line(o, r.references, "offline") async for r in run.run(papers)
             if r.outcome is not None for o in r.outcome.sources.values()]
    report = build_report(judgements_of(lines).judgements)
    try:
        thousand = load_published_means("eLife").get("Human", {})
    except FileNotFoundError:
        thousand = {}
    rows = {}
    for metric in METRICS:
        ours = report["sources"]["human"][metric]  # type: ignore[index]
        theirs = PUBLISHED_RERUN.get(metric)
        mean_1000 = thousand.get(metric)
        rows[metric] = {
            "ours": ours["mean"], "ci": ours["ci"], "n": ours["n"],
            "reviewbench_200_rerun": theirs,
            "reviewbench_1000_mean": mean_1000.mean if mean_1000 else None,
            "distance_to_rerun": None if theirs is None or ours["mean"] is None
            else ours["mean"] - theirs,
            "distance_to_1000": None if not mean_1000 or mean_1000.mean is None
            or ours["mean"] is None else ours["mean"] - mean_1000.mean,
        }
    return {"label": "offline baseline judge (rules, not a language model)",
            "papers": report["papers"], "metrics": rows, "report": report}


def print_baseline(result: dict[str, Any]) -> None:
    print(f"\n## Baseline: {result['label']}, human reviews of {result['papers']} eLife papers\n")
    print("| metric | ours (offline baseline) [95 % CI] | ReviewBench 200 re-run | "
          "distance | ReviewBench 1,000 mean | distance |")
    print("|---|---|---|---|---|---|")
    for metric, row in result["metrics"].items():
        def pct(v: Any, signed: bool = False, metric: str = metric) -> str:
            if v is None or (isinstance(v, float) and math.isnan(v)):
                return "–"
            scale = 1 if metric == "comments_per_paper" else 100
            return f"{v * scale:+.1f}" if signed else f"{v * scale:.1f}"
        ci = row["ci"]
        ci_text = f" [{pct(ci[0])}, {pct(ci[1])}]" if ci and ci[0] is not None else ""
        print(f"| {metric} | {pct(row['ours'])}{ci_text} | {pct(row['reviewbench_200_rerun'])} | "
              f"{pct(row['distance_to_rerun'], True)} | {pct(row['reviewbench_1000_mean'])} | "
              f"{pct(row['distance_to_1000'], True)} |")


# ----------------------------------------------------------------------------- main


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["baseline_elife"] = await baseline_elife()
    print_baseline(out["baseline_elife"])
    if args.rubric:
        from verifier.judge.rubric_run import evaluate_rubrics

        papers = [p for p in read_papers(NEURIPS) if isinstance(p, PaperInput)]
        out["rubric"] = await evaluate_rubrics(papers[: args.rubric_papers])
        print("\n## Rubric evaluation (offline baseline)\n")
        print(json.dumps({k: v for k, v in out["rubric"].items() if k != "per_paper"},
                         indent=2))
    if args.skip_timing:
        return out
    papers = load_papers(args.papers, args.refs_per_paper)
    references = [r for p in papers for r in p.references]
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmp:
        workdir = Path(tmp)
        corpus = workdir / "corpus.jsonl"
        started = time.perf_counter()
        counts = await asyncio.to_thread(build_corpus, references, corpus)
        out["corpus"] = {**counts, "build_s": round(time.perf_counter() - started, 1)}
        print(f"\ncorpus from {counts['references']} reference strings: {counts}",
              file=sys.stderr)
        runs: dict[str, dict[str, Any]] = {}
        kinds = {"judge": (True, False), "citations": (False, True), "mixed": (True, True)}
        last_cache = workdir / "cache-none"
        for name in args.runs:
            if name == "rerun":
                judge, refs = kinds[runs_before(runs)]
                cache = last_cache
            else:
                (judge, refs), cache = kinds[name], workdir / f"cache-{name}"
            runs[name] = await one_run(name, papers, corpus, cache, args,
                                       judge=judge, refs=refs)
            last_cache = cache
            print(f"{name}: {json.dumps(runs[name])}", file=sys.stderr)
    empty: dict[str, Any] = {}
    mixed, judge_alone = runs.get("mixed", empty), runs.get("judge", empty)
    refs_alone = runs.get("citations", empty)
    longer = max(judge_alone.get("wall_s", 0.0), refs_alone.get("wall_s", 0.0))
    out.update({
        "papers": len(papers),
        "references": len(references),
        "settings": {"rpm": args.rpm, "tpm": args.tpm, "concurrency": args.concurrency,
                     "time_scale": args.time_scale, "papers_in_flight": args.papers_in_flight,
                     "calls_per_paper": args.calls_per_paper,
                     "refs_per_paper": args.refs_per_paper, "runs": args.runs},
        "runs": runs,
        "utilisation": judge_alone.get("utilisation"),
        "utilisation_mixed": mixed.get("utilisation"),
        "rerun_calls": runs.get("rerun", empty).get("calls"),
        "rerun_lookups": runs.get("rerun", empty).get("lookups"),
        "mixed_wall_s": mixed.get("wall_s"),
        "alone_wall_s": {"judge": judge_alone.get("wall_s"),
                         "citations": refs_alone.get("wall_s")},
        "mixed_over_longer_alone": round(mixed["wall_s"] / longer, 3)
        if mixed and longer else None,
        "mixed_workload_wall_s": {"judge": mixed.get("judge_wall_s"),
                                  "citations": mixed.get("citations_wall_s")},
        "loop_lag_p99_s": mixed.get("loop_lag_p99_s"),
        "calls": judge_alone.get("calls"),
        "tokens": judge_alone.get("tokens"),
        "cost": judge_alone.get("cost_usd"),
        "wall_s": judge_alone.get("wall_s"),
        "bound_s": judge_alone.get("bound_s"),
        "backend": "offline rules served by the simulated endpoint (a baseline)",
    })
    print_summary(out)
    return out


def runs_before(runs: dict[str, Any]) -> str:
    """The kind of run a ``rerun`` repeats: the last one before it."""
    kinds = [name for name in runs if name != "rerun"]
    if not kinds:
        raise SystemExit("--runs: 'rerun' repeats a run before it")
    return kinds[-1]


def print_summary(out: dict[str, Any]) -> None:
    j = out["runs"].get("judge", {})
    print(f"\n## Judging run: {out['papers']} papers, {out['references']} references "
          "(offline baseline rules behind the simulated endpoint)\n")
    print("| run | wall s | model calls | prompt tok | cached tok | completion tok | cost $ | "
          "lookups | loop lag p99 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in out["runs"].items():
        t = r["tokens"]
        print(f"| {name} | {r['wall_s']:.1f} | {r['calls']} | {t['prompt']} | {t['cached']} | "
              f"{t['completion']} | {r['cost_usd']:.2f} | {r['lookups']} | "
              f"{r['loop_lag_p99_s'] * 1000:.1f} |")
    if not j:
        return
    print(f"\njudge alone: wall {j['wall_s']:.1f}s against a limit-derived bound of "
          f"{j.get('bound_s')}s; utilisation {out['utilisation']} "
          f"(binding: {j.get('binding_limit')}; {j.get('utilisation_by_limit')})")
    if out["mixed_wall_s"] is not None:
        print(f"mixed {out['mixed_wall_s']:.1f}s vs alone {out['alone_wall_s']} → "
              f"{out['mixed_over_longer_alone']}× the longer (goal ≤ 1.1×); within it, "
              f"judging ended at {out['mixed_workload_wall_s']['judge']}s and the "
              f"references at {out['mixed_workload_wall_s']['citations']}s")
    if out["rerun_calls"] is not None:
        print(f"re-run from cache: {out['rerun_calls']} model calls, "
              f"{out['rerun_lookups']} lookups")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="verifier bench judge", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=204)
    parser.add_argument("--refs-per-paper", type=int, default=10)
    parser.add_argument("--time-scale", type=float, default=10.0)
    parser.add_argument("--rpm", type=int, default=500)
    parser.add_argument("--tpm", type=int, default=2_000_000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--papers-in-flight", type=int, default=16)
    parser.add_argument("--calls-per-paper", type=int, default=4)
    parser.add_argument("--json", type=result_file, metavar="FILE")
    parser.add_argument("--skip-timing", action="store_true",
                        help="only the baseline measurement (and --rubric)")
    parser.add_argument("--runs", type=lambda s: [x.strip() for x in s.split(",") if x.strip()],
                        default=["judge", "citations", "mixed", "rerun"],
                        help="which runs, in order (judge, citations, mixed, rerun; a rerun "
                             "repeats the run before it on its cache); default all four")
    parser.add_argument("--rubric", action="store_true")
    parser.add_argument("--rubric-papers", type=int, default=200)
    args = parser.parse_args(argv)
    args.world_port, args.endpoint_port = free_port(), free_port()
    return args



def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out = asyncio.run(main_async(args))
    if args.json is not None:
        write_result(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
