"""The judging report: metrics per source with intervals, paired tests, kappa, a table.

:func:`build_report` returns (JSON-ready: NaN becomes None, tuples become lists)::

    {"sources": {SOURCE: {METRIC: {"mean": x, "ci": [lo, hi], "n": n}}},
     "tests": [{"metric", "pair", "p_raw", "p_adj", "cohen_d",
                "n", "mean_a", "mean_b", "diff", "ci"}],
     "kappa": {"human vs SOURCE": {"kappa", "p_o", "p_e", "n"}},
     "papers": n}

- ``sources``: per metric, the mean over the papers where it is defined, its 95 %
  percentile bootstrap interval (10,000 resamples, seed 42) and n.
- ``tests``: every metric × every pair of sources ("A vs B", the human source first, then
  the others in order of first appearance), on the papers where both are defined: the
  means, the mean difference A − B with its bootstrap interval, Wilcoxon's p, Holm's
  adjustment across *all* tests of the report, and Cohen's d. A pair without a common
  defined paper has n = 0 and nulls.
- ``kappa``: Cohen's κ on "dominant stance is CRITICAL" over the (paper, claim) units the
  human source and each other source both addressed.

:func:`markdown_table` renders ReviewBench's published layout (one row per
:data:`ROWS` entry, one column per source, ReviewBench's published means beside ours).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from .metrics import HUMAN, METRICS, average, critical_pairs, defined, paired, per_paper
from .models import SourceJudgement
from .published import Published
from .statistics import RESAMPLES, SEED, bootstrap_ci, cohen_d, cohen_kappa, holm, wilcoxon_p

ROWS: tuple[tuple[str, str], ...] = (
    ("Comments per article", "comments_per_paper"),
    ("Points to a claim", "mapped_rate"),
    ("Could overturn it", "consequential_rate"),
    ("Claims of the article addressed", "claim_coverage"),
    ("Addresses what humans address", "overlap_with_humans"),
    ("Agrees with humans on the same stance", "stance_matched_overlap"),
    ("Says why it matters", "justification_rate"),
    ("Proposes a fix", "remedy_rate"),
    ("Anchored in the text", "anchor_rate"),
)
COUNTS = frozenset({"comments_per_paper"})
"""Metrics shown as numbers; every other row is a ratio shown in percent."""


def _clean(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Mapping):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def source_order(judgements: Iterable[SourceJudgement], human_source: str = HUMAN) -> list[str]:
    seen = list(dict.fromkeys(j.source for j in judgements))
    return ([human_source] if human_source in seen else []) + [s for s in seen
                                                                if s != human_source]


def build_report(
    judgements: Sequence[SourceJudgement],
    *,
    human_source: str = HUMAN,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> dict[str, object]:
    """The report dict described in the module docstring."""
    table = per_paper(judgements, human_source=human_source)
    sources = source_order(judgements, human_source)
    summary: dict[str, dict[str, dict[str, object]]] = {}
    for source in sources:
        summary[source] = {}
        for metric in METRICS:
            values = defined(v[metric] for v in table[source].values())
            avg = average(values)
            ci = bootstrap_ci(values, resamples=resamples, seed=seed)
            summary[source][metric] = {"mean": avg.mean, "ci": list(ci), "n": avg.n}

    tests: list[dict[str, object]] = []
    p_raw: list[float] = []
    for metric in METRICS:
        for a, b in combinations(sources, 2):
            pair = paired(table, metric, a, b)
            diffs = [x - y for x, y in zip(pair.a, pair.b, strict=True)]
            p_raw.append(wilcoxon_p(pair.a, pair.b))
            tests.append({
                "metric": metric,
                "pair": f"{a} vs {b}",
                "n": len(pair.papers),
                "mean_a": average(pair.a).mean,
                "mean_b": average(pair.b).mean,
                "diff": average(diffs).mean,
                "ci": list(bootstrap_ci(diffs, resamples=resamples, seed=seed)),
                "p_raw": p_raw[-1],
                "cohen_d": cohen_d(pair.a, pair.b),
            })
    for test, p_adj in zip(tests, holm(p_raw), strict=True):
        test["p_adj"] = p_adj

    kappa: dict[str, dict[str, object]] = {}
    humans = [j for j in judgements if j.source == human_source]
    for source in sources:
        if source == human_source or not humans:
            continue
        xs, ys = critical_pairs(humans, [j for j in judgements if j.source == source])
        k = cohen_kappa(xs, ys)
        kappa[f"{human_source} vs {source}"] = {"kappa": k.kappa, "p_o": k.p_o, "p_e": k.p_e,
                                                "n": k.n}
    report = {
        "sources": summary,
        "tests": tests,
        "kappa": kappa,
        "papers": len({j.paper_id for j in judgements}),
    }
    cleaned = _clean(report)
    assert isinstance(cleaned, dict)
    return cleaned


def _cell(metric: str, mean: object, ci: object = None) -> str:
    if not isinstance(mean, int | float) or math.isnan(mean):
        return "–"
    scale = 1.0 if metric in COUNTS else 100.0
    text = f"{mean * scale:.1f}"
    if isinstance(ci, list) and len(ci) == 2 and all(isinstance(v, int | float) for v in ci):
        text += f" [{ci[0] * scale:.1f}, {ci[1] * scale:.1f}]"
    return text


def markdown_table(report: Mapping[str, object], published: Published | None = None,
                   published_label: str = "ReviewBench eLife") -> str:
    """ReviewBench's layout: rows :data:`ROWS`, one column per source of ``report`` (mean
    and 95 % interval, none for a single paper; ratios in percent), then one column per
    published source."""
    sources = report.get("sources")
    if not isinstance(sources, Mapping):
        raise ValueError("not a report: no 'sources'")
    names = list(sources)
    extra = list(published or {})
    header = ["", *names, *(f"{published_label}: {s}" for s in extra)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    papers = report.get("papers")
    for label, metric in ROWS:
        cells = [label]
        for name in names:
            entry = sources[name].get(metric, {})
            interval = entry.get("ci") if papers != 1 else None
            cells.append(_cell(metric, entry.get("mean"), interval))
        for name in extra:
            found = (published or {})[name].get(metric)
            cells.append(_cell(metric, found.mean if found else None))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if papers == 1:  # a bootstrap over one paper resamples it alone: no interval
        lines.append("Values of 1 paper (no interval: a bootstrap needs several); ratios in "
                     "percent; – = undefined.")
    else:
        lines.append(f"Means over {papers} papers with 95 % bootstrap intervals; ratios in "
                     "percent; – = undefined.")
    if extra:
        lines.append(f"{published_label}: ReviewBench's published means (no intervals), "
                     "beside ours for reference.")
    return "\n".join(lines)
