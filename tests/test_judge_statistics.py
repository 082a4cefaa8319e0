"""Each judge statistic against an independent computation (scipy, scikit-learn, brute force)."""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest
from scipy.stats import bootstrap
from sklearn.metrics import cohen_kappa_score

from verifier.judge.statistics import bootstrap_ci, cohen_d, cohen_kappa, holm, wilcoxon_p


def test_bootstrap_interval_matches_the_exact_bootstrap_distribution() -> None:
    values = [0.0, 0.2, 0.5, 1.0]
    # All 4^4 equally likely resamples: the exact bootstrap distribution of the mean.
    exact = sorted(sum(r) / 4 for r in itertools.product(values, repeat=4))
    lo, hi = np.percentile(exact, [2.5, 97.5])
    got = bootstrap_ci(values)
    assert got[0] == pytest.approx(lo, abs=0.04)
    assert got[1] == pytest.approx(hi, abs=0.04)


def test_bootstrap_interval_agrees_with_scipy_percentile_bootstrap() -> None:
    rng = np.random.default_rng(5)
    values = rng.beta(2, 3, size=80)
    ours = bootstrap_ci(list(values))
    theirs = bootstrap((values,), np.mean, n_resamples=10_000, method="percentile",
                       confidence_level=0.95, rng=np.random.default_rng(99))
    assert ours[0] == pytest.approx(theirs.confidence_interval.low, abs=0.01)
    assert ours[1] == pytest.approx(theirs.confidence_interval.high, abs=0.01)


def test_bootstrap_is_seeded_42_by_default() -> None:
    values = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2]
    assert bootstrap_ci(values) == bootstrap_ci(values, seed=42)
    assert bootstrap_ci(values) != bootstrap_ci(values, seed=43)
    assert bootstrap_ci([0.5, 0.5]) == (0.5, 0.5)
    assert all(math.isnan(v) for v in bootstrap_ci([]))
    with pytest.raises(ValueError):
        bootstrap_ci([0.1, math.nan])


def exact_wilcoxon(d: list[float]) -> float:
    """Two-sided exact signed-rank p by enumerating every sign assignment."""
    ranks = {abs(x): r for r, x in enumerate(sorted(d, key=abs), start=1)}
    t_obs = sum(ranks[abs(x)] for x in d if x > 0)
    sums = [sum(r for r, s in zip(ranks.values(), signs, strict=True) if s)
            for signs in itertools.product((False, True), repeat=len(d))]
    low = sum(t <= t_obs for t in sums) / len(sums)
    high = sum(t >= t_obs for t in sums) / len(sums)
    return min(1.0, 2 * min(low, high))


@pytest.mark.parametrize("seed", range(4))
def test_wilcoxon_equals_the_exact_sign_flip_distribution(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = list(rng.random(9) + 0.1 * seed)
    b = list(rng.random(9))
    d = [x - y for x, y in zip(a, b, strict=True)]
    assert len({abs(x) for x in d}) == len(d)  # no ties: the exact case
    assert wilcoxon_p(a, b) == pytest.approx(exact_wilcoxon(d), rel=1e-9)


def test_wilcoxon_edge_cases() -> None:
    assert wilcoxon_p([0.3, 0.4], [0.3, 0.4]) == 1.0
    assert math.isnan(wilcoxon_p([], []))
    with pytest.raises(ValueError):
        wilcoxon_p([1.0], [1.0, 2.0])


def holm_by_procedure(p: list[float]) -> list[float]:
    """The smallest α at which Holm's sequential procedure rejects each hypothesis."""
    m = len(p)

    def rejected(alpha: float) -> set[int]:
        out: set[int] = set()
        for k, i in enumerate(sorted(range(m), key=lambda j: p[j])):
            if p[i] > alpha / (m - k) * (1 + 1e-12):  # float slack at the boundary
                break
            out.add(i)
        return out

    candidates = sorted({min(1.0, (m - k) * x) for k, x in enumerate(sorted(p))} | {1.0})
    # A hypothesis Holm never rejects below α = 1 has an adjusted p of 1.
    return [next((a for a in candidates if i in rejected(a)), 1.0) for i in range(m)]


@pytest.mark.parametrize("seed", range(5))
def test_holm_equals_the_smallest_rejecting_level(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = [float(x) for x in rng.random(7) ** 3]
    assert holm(p) == pytest.approx(holm_by_procedure(p))


def test_holm_keeps_input_order_and_leaves_nan_out_of_the_family() -> None:
    got = holm([0.04, math.nan, 0.01, 0.03])
    # Family of three: 0.01·3, then max(0.03·2, 0.03), then max(0.04·1, 0.06).
    assert got[0] == pytest.approx(0.06) and got[2] == pytest.approx(0.03)
    assert got[3] == pytest.approx(0.06) and math.isnan(got[1])


def test_cohen_d_uses_the_mean_of_the_two_variances() -> None:
    a = [0.2, 0.4, 0.9, 0.6, 0.55]
    b = [0.1, 0.3, 0.2, 0.45, 0.35]
    pooled = math.sqrt((statistics.variance(a) + statistics.variance(b)) / 2)
    assert cohen_d(a, b) == pytest.approx((statistics.fmean(a) - statistics.fmean(b)) / pooled)
    assert math.isnan(cohen_d([0.5, 0.5], [0.5, 0.5]))
    assert math.isnan(cohen_d([0.5], [0.2]))


@pytest.mark.parametrize("seed", range(4))
def test_kappa_equals_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = [bool(v) for v in rng.random(40) < 0.7]
    y = [bool(v) if rng.random() < 0.6 else xv for v, xv in zip(rng.random(40) < 0.7, x,
                                                                    strict=True)]
    got = cohen_kappa(x, y)
    assert got.kappa == pytest.approx(cohen_kappa_score(x, y))
    assert got.p_o == pytest.approx(sum(a == b for a, b in zip(x, y, strict=True)) / 40)
    assert got.n == 40


def test_kappa_is_undefined_when_chance_agreement_is_certain() -> None:
    got = cohen_kappa([True, True], [True, True])
    assert got.p_e == 1.0 and math.isnan(got.kappa)
    assert cohen_kappa([], []).n == 0
