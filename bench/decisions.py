"""How well the offline decision model's P(true) separates supported from contradicted claims.

Run::

    .venv/bin/verifier bench decisions [--data DIR] [--json FILE] [--bootstrap N] [--seed S]

An **offline baseline** measurement. For each claim dataset of ``../shared/data/claims/``
(see ``bench/claims_data.py``) the offline model's recipe
(``verifier.llm.offline.training``) is fitted on *the other* dataset, every row of it,
and measured on this one, so no row is ever scored by weights fitted on it. (The shipped
weights are fitted on both datasets and are therefore not measured here.)

Each row is asked through the public interface, ``OfflineDecisionModel.decide`` with the
evidence as the state and two predicates: ``"Is this claim true according to the
evidence? Claim: …"`` and ``"Can this claim be decided from the evidence? Claim: …"``.

Reported per dataset:

* ``auroc``: AUROC of P(true) with SUPPORT as the positive class and CONTRADICT as the
  negative one (the probability that a supported claim scores above a contradicted one,
  ties counted one half); ``n`` = SUPPORT + CONTRADICT rows answered; ``ci95``: 95 %
  percentile bootstrap over rows (``--bootstrap`` resamples, default 2,000, seed 42;
  resamples with a single class are skipped and counted);
* NOT_ENOUGH_INFO rows are not in the AUROC; their mean P(true) is reported beside the
  other labels' means, and ``grounded_auroc`` is the AUROC of P(grounded) with SUPPORT or
  CONTRADICT positive and NOT_ENOUGH_INFO negative;
* ``refused``: rows the model refused (no passages or no content words), left out.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_args import result_file, write_result  # noqa: E402
from claims_data import DEFAULT_DATA, FILES, ClaimRow, read_rows  # noqa: E402

from verifier.llm.offline.decision import MODEL, OfflineDecisionModel  # noqa: E402
from verifier.llm.offline.training import Example, fit_weights  # noqa: E402
from verifier.llm.types import Predicate  # noqa: E402

SUPPORT, CONTRADICT, NEI = "SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO"
TRUE_QUESTION = "Is this claim true according to the evidence? Claim: {claim}"
GROUNDED_QUESTION = "Can this claim be decided from the evidence? Claim: {claim}"
SEED = 42


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Area under the ROC curve: P(a positive scores above a negative), ties one half.

    Computed from average ranks (Mann–Whitney U). ``labels`` are 1 (positive) or 0;
    raises ``ValueError`` unless both occur.
    """
    if len(scores) != len(labels):
        raise ValueError("scores and labels differ in length")
    positives = sum(1 for label in labels if label == 1)
    negatives = sum(1 for label in labels if label == 0)
    if positives + negatives != len(labels):
        raise ValueError("labels must be 0 or 1")
    if not positives or not negatives:
        raise ValueError("AUROC needs both classes")
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    rank_sum = 0.0
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[start]]:
            end += 1
        average_rank = (start + end) / 2 + 1          # ranks are 1-based
        rank_sum += average_rank * sum(1 for i in order[start:end + 1] if labels[i] == 1)
        start = end + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def bootstrap_interval(scores: Sequence[float], labels: Sequence[int], resamples: int,
                       seed: int = SEED) -> tuple[list[float] | None, int]:
    """95 % percentile interval of :func:`auroc` over row resamples, and how many
    resamples had a single class (skipped). ``None`` when no resample was usable."""
    rng = random.Random(seed)
    values: list[float] = []
    skipped = 0
    size = len(scores)
    for _ in range(resamples):
        picks = [rng.randrange(size) for _ in range(size)]
        sample_labels = [labels[i] for i in picks]
        if len(set(sample_labels)) < 2:
            skipped += 1
            continue
        values.append(auroc([scores[i] for i in picks], sample_labels))
    if not values:
        return None, skipped
    values.sort()
    low = values[int(0.025 * (len(values) - 1))]
    high = values[int(0.975 * (len(values) - 1) + 0.5)]
    return [low, high], skipped


def evaluate(model: OfflineDecisionModel, rows: Sequence[ClaimRow], resamples: int,
             seed: int = SEED) -> dict[str, Any]:
    """The metrics of the module doc for ``rows`` scored by ``model``."""
    p_true: list[tuple[float, str]] = []
    p_grounded: list[tuple[float, str]] = []
    refused = 0
    for row in rows:
        result = model.decide(row.evidence, {
            "true": Predicate(TRUE_QUESTION.format(claim=row.claim)),
            "grounded": Predicate(GROUNDED_QUESTION.format(claim=row.claim)),
        })
        true, grounded = result.answers["true"].probability, result.answers["grounded"].probability
        if true is None or grounded is None:
            refused += 1
            continue
        p_true.append((true, row.label))
        p_grounded.append((grounded, row.label))
    decided = [(p, int(label == SUPPORT)) for p, label in p_true if label != NEI]
    scores = [p for p, _ in decided]
    labels = [label for _, label in decided]
    interval, skipped = (bootstrap_interval(scores, labels, resamples, seed)
                         if resamples else (None, 0))
    means = {}
    for label in (SUPPORT, CONTRADICT, NEI):
        values = [p for p, gold in p_true if gold == label]
        means[label] = sum(values) / len(values) if values else None
    grounded_labels = [int(label != NEI) for _, label in p_grounded]
    grounded_auroc = (auroc([p for p, _ in p_grounded], grounded_labels)
                      if len(set(grounded_labels)) == 2 else None)
    return {
        "auroc": auroc(scores, labels), "n": len(decided),
        "positives": sum(labels), "negatives": len(labels) - sum(labels),
        "ci95": interval, "bootstrap": {"resamples": resamples, "seed": seed,
                                        "single_class_skipped": skipped},
        "refused": refused, "mean_p_true": means,
        "nei": {"n": sum(1 for _, label in p_true if label == NEI), "mean_p_true": means[NEI]},
        "grounded_auroc": grounded_auroc,
    }


def run(data: Path, resamples: int, seed: int = SEED) -> dict[str, Any]:
    """Both datasets, each measured with weights fitted on the other."""
    datasets = {name: read_rows(name, data) for name in FILES}
    results: dict[str, Any] = {"backend": "offline", "model": MODEL, "baseline": True,
                               "positive_class": SUPPORT}
    for tested, trained in (("scifact", "citation_integrity"),
                            ("citation_integrity", "scifact")):
        weights = fit_weights([Example(row.claim, row.evidence, row.label)
                               for row in datasets[trained]], (trained,))
        metrics = evaluate(OfflineDecisionModel(weights), datasets[tested], resamples, seed)
        results[tested] = {**metrics, "trained_on": trained}
    return results


def table(results: dict[str, Any]) -> str:
    """The printed summary, labelled as an offline baseline."""
    lines = [
        "OFFLINE BASELINE (lexical model, backend=offline): AUROC of P(true), "
        "SUPPORT vs CONTRADICT,",
        "each dataset scored with weights fitted on the other one.",
        "",
        f"{'dataset':<20}{'trained on':<20}{'n':>6}{'AUROC':>8}  {'95% CI':<15}"
        f"{'mean P(true) S / C / NEI':<27}{'grounded AUROC':>15}",
    ]
    for name in FILES:
        r = results[name]
        ci = "-" if r["ci95"] is None else f"{r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}"
        means = " / ".join("-" if r["mean_p_true"][k] is None else f"{r['mean_p_true'][k]:.3f}"
                           for k in (SUPPORT, CONTRADICT, NEI))
        grounded = "-" if r["grounded_auroc"] is None else f"{r['grounded_auroc']:.3f}"
        lines.append(f"{name:<20}{r['trained_on']:<20}{r['n']:>6}{r['auroc']:>8.3f}  "
                     f"{ci:<15}{means:<27}{grounded:>15}")
    lines.append("")
    lines.append("0.5 is chance. This lexical baseline does not read meaning; use a real "
                 "decision model for judgements.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench decisions",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="the claims data folder (default: ../shared/data/claims)")
    parser.add_argument("--json", type=result_file, help="write the results as JSON here")
    parser.add_argument("--bootstrap", type=int, default=2000,
                        help="bootstrap resamples for the 95%% interval (0: none)")
    parser.add_argument("--seed", type=int, default=SEED, help="bootstrap seed")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        results = run(args.data, args.bootstrap, args.seed)
    except FileNotFoundError as exc:
        print(f"claims data not found: {exc.filename}", file=sys.stderr)
        return 2
    results["wall_s"] = round(time.monotonic() - started, 3)
    print(table(results))
    if args.json:
        write_result(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
