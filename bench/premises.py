"""PremiseCheck's evaluation harness: AUROC, ablations, paired bootstrap, cost and latency.

Run::

    .venv/bin/verifier bench premises [--sets NAMES] [--limit N] [--phrasings K]
        [--concurrency N] [--resamples N] [--seed S] [--json FILE] [--world]

**These sets are not ReviewFact** (the PremiseCheck paper's labelled review comments,
not public). Two kinds of labelled sets stand in, read at run time:

- ``claims-scifact``, ``claims-citation-integrity``: the claims of
  ``../shared/data/claims/`` (``bench/claims_data.py``) as one-sentence "comments", with
  their evidence as the "paper"; ``CONTRADICT`` = erroneous, ``SUPPORT`` = correct,
  ``NOT_ENOUGH_INFO`` left out (neither right nor wrong about the paper). Comments with
  the same evidence text share a paper id (the bootstrap's unit). Citation-Integrity's
  CONTRADICT means "the citation is not accurate", mostly unsupported rather than
  contradicted.
- ``elife-handwritten``: ``fixtures/premises/elife_comments.jsonl``, 44 review comments we
  wrote on the four eLife papers (``fixtures/premises/README.md``), against the
  manuscripts of ``../shared/data/elife/elife_sample.jsonl``.

**Configurations**, each a full run of the pipeline in this one invocation:
``min`` (the default: routing, K = 1, minimum), ``mean`` (the mean ablation), ``no_route``
(every premise against the paper), ``holistic`` (no decomposition: one holistic question
per comment) and ``phrasings_k`` (K phrasings averaged, ``--phrasings``, default 4).

**Metrics** per set and configuration:

- ``auroc``: P(an erroneous comment scores below a correct one), ties one half
  (:func:`verifier.claims.evaluation.auroc`; the score is "how likely the comment is
  right"); ``n`` = comments scored; ``inconclusive`` and ``input_errors`` counted apart
  and left out of the AUROC;
- ``cost_per_comment``: US dollars per comment from the usage and :data:`PRICES`
  (per model id); the offline baseline runs in-process and costs 0.0; an unpriced model
  gives ``null``, never 0; ``tokens_per_comment`` and ``requests_per_comment`` beside it;
- ``premises_per_comment`` (scored comments) and ``knowledge_routed`` (premises sent to
  the general-knowledge question), which say how much min, mean and routing can differ;
- ``latency_p50_s``, ``latency_p95_s``, ``latency_mean_s``: wall time per comment, with
  ``--concurrency`` comments in flight (so it includes waiting for a turn on the CPU).

**Bootstrap**: ``bootstrap`` is min − mean (A = min, B = mean);
``comparisons`` holds min − X for every other configuration. Paired paper-level
bootstrap (:func:`verifier.claims.evaluation.paired_bootstrap`): 2,000 resamples, seed
20261101, 95 % percentile interval, one-class resamples redrawn and counted; A is
non-inferior to B when the interval's lower bound exceeds −0.03. Only comments scored in
both configurations enter.

Default backend: the **offline baseline** (lexical, ``verifier.llm.offline``): every
result says so. Its shipped weights were fitted on both claims sets, so on a claims set
it runs with weights fitted on the other one only (:data:`HELD_OUT`; as
``verifier bench decisions`` does); ``offline_weights`` in the output says which.
``--world`` would run the same against the simulated model endpoint through the remote
backends' ``open_models``; until those are merged it says so and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_args import result_file, write_result  # noqa: E402
from claims_data import DEFAULT_DATA, read_rows  # noqa: E402

from verifier.claims.aggregate import Aggregate  # noqa: E402
from verifier.claims.checker import (  # noqa: E402
    CommentItem,
    CommentResult,
    CommentStatus,
    PremiseChecker,
    PremiseOptions,
)
from verifier.claims.evaluation import (  # noqa: E402
    RESAMPLES,
    SEED,
    auroc,
    paired_bootstrap,
    summarise,
)
from verifier.llm.interfaces import OfflineDecisions  # noqa: E402
from verifier.llm.offline.decision import OfflineDecisionModel  # noqa: E402
from verifier.llm.offline.training import Example, fit_weights  # noqa: E402
from verifier.llm.select import open_models  # noqa: E402
from verifier.llm.types import Usage  # noqa: E402
from verifier.session import Session  # noqa: E402
from verifier.settings import ModelEndpointSettings, ModelSettings, Settings  # noqa: E402
from verifier.world.models import ModelLimits, serve_models  # noqa: E402

ELIFE = ROOT / ".." / "shared" / "data" / "elife" / "elife_sample.jsonl"
HANDWRITTEN = ROOT / "fixtures" / "premises" / "elife_comments.jsonl"
NOT_REVIEWFACT = ("These sets are NOT ReviewFact (not public): claims with their evidence "
                  "as the paper, and 44 comments we wrote on four eLife papers.")

PRICES: dict[str, tuple[float, float, float]] = {
    # model id: USD per 1M tokens (input, cached input, output); models.md §5, Jun 2026.
    "gpt-5.5": (5.00, 0.50, 30.00),
    "gpt-5.4": (2.50, 0.25, 15.00),
    "gpt-5.4-mini": (0.75, 0.075, 4.50),
    "gpt-4.1": (2.00, 0.50, 8.00),
}
"""Price per model id; the offline backend is free (in-process)."""


@dataclass(frozen=True, slots=True)
class Labelled:
    item: CommentItem
    erroneous: bool


# -- the labelled sets ----------------------------------------------------------------------


def claims_set(dataset: str, data: Path) -> list[Labelled]:
    rows = read_rows(dataset, data)
    out = []
    for row in rows:
        if row.label not in ("SUPPORT", "CONTRADICT"):
            continue
        paper_id = "ev-" + hashlib.sha1(row.evidence.encode("utf-8")).hexdigest()[:12]
        out.append(Labelled(CommentItem(paper_id, row.id, row.claim, row.evidence),
                            row.label == "CONTRADICT"))
    return out


def handwritten_set(fixtures: Path = HANDWRITTEN, elife: Path = ELIFE) -> list[Labelled]:
    papers: dict[str, str] = {}
    with elife.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                papers[record["paper_id"]] = record["manuscript_markdown"]
    out = []
    with fixtures.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                out.append(Labelled(CommentItem(row["paper_id"], row["comment_id"],
                                                row["comment"], papers[row["paper_id"]]),
                                    bool(row["erroneous"])))
    return out


SETS: dict[str, Callable[[argparse.Namespace], list[Labelled]]] = {
    "claims-scifact": lambda a: claims_set("scifact", a.data),
    "claims-citation-integrity": lambda a: claims_set("citation_integrity", a.data),
    "elife-handwritten": lambda a: handwritten_set(a.fixtures, a.elife),
}


HELD_OUT = {"claims-scifact": "citation_integrity", "claims-citation-integrity": "scifact"}
"""The offline decision model scores a claims set with weights fitted on the *other*
claims set: the shipped weights were fitted on both, so they would be measured in-sample."""


def offline_checker(data: Path) -> Callable[[str], tuple[PremiseChecker, str]]:
    """Per set: the offline baseline, with held-out weights for the claims sets."""
    def build(name: str) -> tuple[PremiseChecker, str]:
        other = HELD_OUT.get(name)
        if other is None:
            return PremiseChecker(), "shipped (fitted on scifact + citation_integrity)"
        try:
            rows = read_rows(other, data)
        except FileNotFoundError:
            return PremiseChecker(), "shipped: IN-SAMPLE (the other claims set is absent)"
        weights = fit_weights([Example(r.claim, r.evidence, r.label) for r in rows], (other,))
        model = OfflineDecisions(OfflineDecisionModel(weights))
        return PremiseChecker(decisions=model), f"fitted on {other} only (held out)"
    return build


def configs(phrasings: int) -> dict[str, PremiseOptions]:
    base = PremiseOptions()
    return {
        "min": base,
        "mean": replace(base, aggregate=Aggregate.MEAN),
        "no_route": replace(base, routing=False),
        "holistic": replace(base, holistic_only=True),
        "phrasings_k": replace(base, phrasings=phrasings),
    }


# -- measuring ------------------------------------------------------------------------------


def cost_usd(usage: Usage, model: str | None, backend: str) -> float | None:
    if backend == "offline":
        return 0.0
    price = PRICES.get(model or "")
    if price is None:
        return None
    fresh = usage.prompt_tokens - usage.cached_prompt_tokens
    return (fresh * price[0] + usage.cached_prompt_tokens * price[1]
            + usage.completion_tokens * price[2]) / 1e6


def _number(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def config_metrics(labelled: Sequence[Labelled], results: dict[str, CommentResult],
                   model: str | None) -> dict[str, Any]:
    scored = [(x, results[x.item.comment_id]) for x in labelled
              if results[x.item.comment_id].status is CommentStatus.SCORED]
    statuses = [results[x.item.comment_id].status for x in labelled]
    value: float | None
    try:
        value = auroc([r.score or 0.0 for _, r in scored], [x.erroneous for x, _ in scored])
    except ValueError:
        value = None
    all_results = list(results.values())
    costs = [cost_usd(r.usage, model, r.backend) for r in all_results]
    latency = summarise([r.elapsed_s for r in all_results])
    backends = sorted({r.backend for r in all_results if r.backend})
    return {
        "auroc": None if value is None else round(value, 6),
        "n": len(scored),
        "n_erroneous": sum(x.erroneous for x, _ in scored),
        "inconclusive": statuses.count(CommentStatus.INCONCLUSIVE),
        "input_errors": statuses.count(CommentStatus.INPUT_ERROR),
        "fallback": sum(r.fallback for _, r in scored),
        "premises_per_comment": round(sum(len(r.premises) for _, r in scored)
                                      / max(1, len(scored)), 3),
        "knowledge_routed": sum(p.route.value == "knowledge" and p.p_grounded is not None
                                for _, r in scored for p in r.premises),
        "cost_per_comment": (None if any(c is None for c in costs) or not costs
                             else round(sum(c or 0.0 for c in costs) / len(costs), 8)),
        "tokens_per_comment": round(sum(r.usage.total_tokens for r in all_results)
                                    / max(1, len(all_results)), 1),
        "requests_per_comment": round(sum(r.usage.requests for r in all_results)
                                      / max(1, len(all_results)), 3),
        "latency_mean_s": _number(latency.mean),
        "latency_p50_s": _number(latency.median),
        "latency_p95_s": _number(latency.p95),
        "backend": "+".join(backends),
        "baseline": all(b == "offline" for b in backends),
    }


def compare(labelled: Sequence[Labelled], a: dict[str, CommentResult],
            b: dict[str, CommentResult], resamples: int, seed: int) -> dict[str, Any]:
    both = [x for x in labelled if a[x.item.comment_id].status is CommentStatus.SCORED
            and b[x.item.comment_id].status is CommentStatus.SCORED]
    try:
        boot = paired_bootstrap(
            [x.item.paper_id for x in both], [x.erroneous for x in both],
            [a[x.item.comment_id].score or 0.0 for x in both],
            [b[x.item.comment_id].score or 0.0 for x in both],
            resamples=resamples, seed=seed)
    except ValueError as exc:
        return {"delta_auroc": None, "ci": None, "resamples": resamples,
                "non_inferior": None, "n": len(both), "error": str(exc)}
    return {"delta_auroc": round(boot.delta_auroc, 6),
            "ci": [round(boot.ci[0], 6), round(boot.ci[1], 6)],
            "resamples": boot.resamples, "redrawn": boot.redrawn, "seed": boot.seed,
            "level": boot.level, "non_inferior": boot.non_inferior, "n": len(both),
            "papers": len({x.item.paper_id for x in both})}


async def run_config(checker: PremiseChecker, labelled: Sequence[Labelled],
                     options: PremiseOptions, concurrency: int) -> dict[str, CommentResult]:
    results: dict[str, CommentResult] = {}
    async for result in checker.check_many([x.item for x in labelled],
                                           concurrency=concurrency, options=options):
        results[result.comment_id] = result
    return results


async def measure(checker: PremiseChecker | Callable[[str], tuple[PremiseChecker, str]],
                  sets: dict[str, list[Labelled]], options: dict[str, PremiseOptions],
                  args: argparse.Namespace, model: str | None) -> dict[str, Any]:
    """Every configuration on every set. ``checker`` is one checker for all sets, or a
    function of the set's name giving its checker and a note on the models' weights."""
    report: dict[str, Any] = {}
    for name, labelled in sets.items():
        if isinstance(checker, PremiseChecker):
            for_set, weights = checker, ""
        else:
            for_set, weights = await asyncio.to_thread(checker, name)
        runs: dict[str, dict[str, CommentResult]] = {}
        timings: dict[str, float] = {}
        for config, opts in options.items():
            started = time.monotonic()
            runs[config] = await run_config(for_set, labelled, opts, args.concurrency)
            timings[config] = time.monotonic() - started
        metrics = {config: {**config_metrics(labelled, runs[config], model),
                            "wall_s": round(timings[config], 3)} for config in runs}
        comparisons = {f"min-{other}": compare(labelled, runs["min"], runs[other],
                                               args.resamples, args.seed)
                       for other in runs if other != "min"}
        report[name] = {
            "comments": len(labelled),
            "erroneous": sum(x.erroneous for x in labelled),
            "papers": len({x.item.paper_id for x in labelled}),
            **({"offline_weights": weights} if weights else {}),
            "configs": metrics,
            "bootstrap": comparisons.get("min-mean"),
            "comparisons": comparisons,
        }
    return report


# -- the command ------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="verifier bench premises", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SETS),
                        help=f"comma-separated sets (default: all: {', '.join(SETS)})")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="at most N comments per set (the first N in file order)")
    parser.add_argument("--phrasings", type=int, default=4, metavar="K",
                        help="K of the phrasings_k configuration (default 4)")
    parser.add_argument("--concurrency", type=int, default=8, metavar="N")
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--json", type=result_file, metavar="FILE", help="write the results here")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=argparse.SUPPRESS)
    parser.add_argument("--fixtures", type=Path, default=HANDWRITTEN, help=argparse.SUPPRESS)
    parser.add_argument("--elife", type=Path, default=ELIFE, help=argparse.SUPPRESS)
    parser.add_argument("--time-scale", type=float, default=10.0, metavar="X",
                        help="with --world: divide the simulated endpoint's latencies by X "
                             "(default 10; answers do not depend on it)")
    parser.add_argument("--world", action="store_true",
                        help="run against the simulated model endpoint (needs the remote "
                             "backends' open_models)")
    return parser.parse_args(argv)


def load_sets(args: argparse.Namespace) -> dict[str, list[Labelled]]:
    names = [n.strip() for n in args.sets.split(",") if n.strip()]
    unknown = [n for n in names if n not in SETS]
    if unknown:
        raise SystemExit(f"unknown set(s) {unknown}; known: {', '.join(SETS)}")
    sets: dict[str, list[Labelled]] = {}
    for name in names:
        try:
            labelled = SETS[name](args)
        except FileNotFoundError as exc:
            print(f"{name}: skipped: its data is absent ({exc.filename})", file=sys.stderr)
            continue
        sets[name] = labelled[: args.limit] if args.limit else labelled
    return sets


def print_table(report: dict[str, Any], header: str) -> None:
    print(header)
    print(NOT_REVIEWFACT)
    for name, result in report["sets"].items():
        print(f"\n{name}: {result['comments']} comments ({result['erroneous']} erroneous) "
              f"on {result['papers']} papers"
              + (f"; offline weights {result['offline_weights']}"
                 if "offline_weights" in result else ""))
        print(f"  {'config':<12}{'AUROC':>8}{'n':>6}{'inconcl.':>9}{'tokens/c':>10}"
              f"{'req/c':>7}{'$/comment':>11}{'p50 s':>8}{'p95 s':>8}")
        for config, m in result["configs"].items():
            auc = "n/a" if m["auroc"] is None else f"{m['auroc']:.3f}"
            cost = "unknown" if m["cost_per_comment"] is None else f"{m['cost_per_comment']:.6f}"
            print(f"  {config:<12}{auc:>8}{m['n']:>6}{m['inconclusive']:>9}"
                  f"{m['tokens_per_comment']:>10.0f}{m['requests_per_comment']:>7.2f}"
                  f"{cost:>11}{m['latency_p50_s']:>8.3f}{m['latency_p95_s']:>8.3f}")
        for pair, boot in result["comparisons"].items():
            if boot["delta_auroc"] is None:
                print(f"  {pair}: no interval ({boot['error']})")
                continue
            print(f"  {pair}: ΔAUROC {boot['delta_auroc']:+.3f}, 95% CI "
                  f"[{boot['ci'][0]:+.3f}, {boot['ci'][1]:+.3f}], "
                  f"{'non-inferior' if boot['non_inferior'] else 'not shown non-inferior'} "
                  f"(margin -0.03; {boot['resamples']} resamples, {boot['redrawn']} redrawn, "
                  f"{boot['papers']} papers)")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.world:
        report = asyncio.run(_world(args))
    else:
        sets = load_sets(args)
        if not sets:
            print("no labelled set available", file=sys.stderr)
            return 2
        started = time.monotonic()
        measured = asyncio.run(measure(offline_checker(args.data), sets,
                                       configs(args.phrasings), args, None))
        report = {"backend": "offline", "baseline": True, "model": "offline",
                  "note": "offline baseline (lexical decision model, rule-based "
                          "decomposition). " + NOT_REVIEWFACT,
                  "phrasings_k": args.phrasings, "concurrency": args.concurrency,
                  "wall_s": round(time.monotonic() - started, 2), "sets": measured}
    print_table(report, f"PremiseCheck bench, backend {report['backend']}"
                        + (" (a baseline)" if report["baseline"] else ""))
    if args.json:
        write_result(args.json, report)
    return 0


async def _world(args: argparse.Namespace) -> dict[str, Any]:
    """The same measurement through the remote backends (chat completions, and P(yes) from
    first-token log-probabilities) against the simulated model endpoint, in-process."""
    sets = load_sets(args)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="premises-world-") as cache:
        async with serve_models(time_scale=args.time_scale) as endpoint:
            # The client paces by the endpoint's own published limits (the simulated
            # endpoint's defaults, on the same time scale), as a real run would.
            limits = ModelLimits()
            llm = ModelEndpointSettings(endpoint.base_url, "world-chat", rpm=limits.rpm,
                                        tpm=limits.tpm,
                                        concurrency=min(args.concurrency,
                                                        limits.concurrency or args.concurrency))
            settings = Settings(cache_dir=Path(cache), time_scale=args.time_scale,
                                models=ModelSettings(llm=llm, decision=llm))
            async with Session(settings) as session:
                decisions, chat = open_models(session)
                checker = PremiseChecker(session, decisions=decisions, chat=chat)
                measured = await measure(checker, sets, configs(args.phrasings), args,
                                         getattr(decisions, "model", None))
                served = endpoint.counters
    return {"backend": f"{decisions.backend}+{chat.backend}", "baseline": False,
            "model": "world-chat", "note": NOT_REVIEWFACT,
            "endpoint": "simulated (verifier.world.models)", "served": repr(served),
            "phrasings_k": args.phrasings, "concurrency": args.concurrency,
            "wall_s": round(time.monotonic() - started, 2), "sets": measured}


if __name__ == "__main__":
    raise SystemExit(main())
