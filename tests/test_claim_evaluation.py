"""AUROC with its fixed polarity, the paired paper-level bootstrap, cost and latency summaries."""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from verifier.claims.evaluation import SEED, auroc, paired_bootstrap, summarise


def brute_force_auroc(scores: list[float], erroneous: list[bool]) -> float:
    pairs = [(e, c) for e, le in zip(scores, erroneous, strict=True) if le
             for c, lc in zip(scores, erroneous, strict=True) if not lc]
    return sum(1.0 if e < c else 0.5 if e == c else 0.0 for e, c in pairs) / len(pairs)


@pytest.mark.parametrize("seed", range(6))
def test_auroc_equals_scikit_learn_and_brute_force_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 60))
    erroneous = [bool(x) for x in rng.random(n) < 0.4]
    erroneous[0], erroneous[1] = True, False
    # Rounded to one decimal so that ties are frequent.
    scores = [round(float(x), 1) for x in rng.random(n)]
    ours = auroc(scores, erroneous)
    correct = [not e for e in erroneous]
    assert ours == pytest.approx(roc_auc_score(correct, scores), abs=1e-12)
    assert ours == pytest.approx(brute_force_auroc(scores, erroneous), abs=1e-12)


def test_auroc_polarity_erroneous_comments_should_score_low() -> None:
    assert auroc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 1.0
    assert auroc([0.1, 0.2, 0.8, 0.9], [False, False, True, True]) == 0.0
    assert auroc([0.5, 0.5, 0.5], [True, False, False]) == 0.5  # ties count one half
    assert auroc([0.3, 0.5, 0.5], [True, True, False]) == 0.75


def test_auroc_needs_both_classes() -> None:
    with pytest.raises(ValueError):
        auroc([0.1, 0.2], [True, True])
    with pytest.raises(ValueError):
        auroc([0.1], [True, False])


def _set(n_papers: int, seed: int) -> tuple[list[int], list[bool], list[float], list[float]]:
    rng = np.random.default_rng(seed)
    papers, labels, a, b = [], [], [], []
    for paper in range(n_papers):
        for _ in range(int(rng.integers(1, 5))):
            wrong = bool(rng.random() < 0.4)
            papers.append(paper)
            labels.append(wrong)
            a.append(float(np.clip(rng.normal(0.35 if wrong else 0.65, 0.2), 0, 1)))
            b.append(float(np.clip(rng.normal(0.4 if wrong else 0.6, 0.2), 0, 1)))
    return papers, labels, a, b


def test_the_bootstrap_is_reproducible_and_paired() -> None:
    papers, labels, a, b = _set(40, 1)
    one = paired_bootstrap(papers, labels, a, b)
    assert one == paired_bootstrap(papers, labels, a, b)
    assert (one.resamples, one.seed, one.level) == (2000, SEED, 0.95)
    assert one.delta_auroc == pytest.approx(auroc(a, labels) - auroc(b, labels))
    assert one.ci[0] < one.delta_auroc < one.ci[1]
    other = paired_bootstrap(papers, labels, a, b, seed=7)
    assert other.ci != one.ci
    # Identical configurations: every resample's difference is exactly 0.
    same = paired_bootstrap(papers, labels, a, a, resamples=200)
    assert same.ci == (0.0, 0.0) and same.non_inferior


def test_non_inferiority_needs_the_lower_bound_above_minus_three_points() -> None:
    papers, labels, a, b = _set(60, 2)
    better = paired_bootstrap(papers, labels, a, b, resamples=500)
    assert better.non_inferior is (better.ci[0] > -0.03)
    worse = [1.0 - s for s in a]  # an inverted score is far worse
    verdict = paired_bootstrap(papers, labels, worse, b, resamples=500)
    assert verdict.ci[1] < -0.03 and not verdict.non_inferior


def test_one_class_resamples_are_redrawn_and_counted_at_the_paper_level() -> None:
    # Paper 0 has both classes, paper 1 only an erroneous comment, papers 2 and 3 only
    # correct ones. A resample is one-class exactly when it misses paper 0 and draws
    # only paper 1 or only papers from {2, 3}.
    papers = [0, 0, 1, 2, 3, 3]
    labels = [True, False, True, False, False, False]
    a = [0.1, 0.9, 0.3, 0.7, 0.6, 0.8]
    b = [0.2, 0.8, 0.5, 0.4, 0.6, 0.9]
    draws = list(itertools.product(range(4), repeat=4))
    one_class = sum(0 not in d and (set(d) == {1} or set(d) <= {2, 3}) for d in draws)
    p_one_class = one_class / len(draws)  # (1 + 16) / 256
    got = paired_bootstrap(papers, labels, a, b)
    observed = got.redrawn / (got.redrawn + got.resamples)
    se = math.sqrt(p_one_class * (1 - p_one_class) / (got.redrawn + got.resamples))
    assert got.redrawn > 0
    assert abs(observed - p_one_class) < 4 * se


def test_a_set_with_one_class_has_no_bootstrap() -> None:
    with pytest.raises(ValueError):
        paired_bootstrap([0, 1], [False, False], [0.1, 0.2], [0.3, 0.4])
    with pytest.raises(ValueError):
        paired_bootstrap([0], [True, False], [0.1, 0.2], [0.3, 0.4])


def test_cost_and_latency_summaries() -> None:
    values = [0.21, 0.35, 0.19, 1.8, 0.22, 0.25, 0.4, 0.3, 0.23, 0.9, 0.2]
    got = summarise(values)
    assert got.n == len(values)
    assert got.mean == pytest.approx(statistics.fmean(values))
    assert got.median == pytest.approx(statistics.median(values))
    assert got.p95 == pytest.approx(statistics.quantiles(values, n=100, method="inclusive")[94])
    empty = summarise([])
    assert empty.n == 0 and math.isnan(empty.mean) and math.isnan(empty.p95)
