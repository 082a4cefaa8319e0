"""The judge's statistics, as ReviewBench computes them.

- :func:`bootstrap_ci`: 95 % percentile bootstrap of a mean, 10,000 resamples, seed 42.
  Resamples are drawn with ``numpy.random.default_rng(seed).integers(0, n, (k, n))`` in
  blocks of :data:`BLOCK` rows (bounded memory); the bounds are numpy's linear percentiles
  of the resampled means. For a paired comparison it is applied to the differences a − b.
- :func:`wilcoxon_p`: scipy's Wilcoxon signed-rank test on paired values, two-sided, with
  scipy's defaults (zero differences dropped; exact distribution for small samples without
  ties, normal approximation otherwise). All differences zero → p = 1; no pair → NaN.
- :func:`holm`: Holm's step-down adjustment across all the given p-values (NaN values are
  left out of the family and stay NaN).
- :func:`cohen_d`: (mean_a − mean_b) / sqrt((sd_a² + sd_b²) / 2), sample SDs (ddof = 1);
  NaN with fewer than two pairs or a zero pooled SD.
- :func:`cohen_kappa`: Cohen's κ of two binary ratings of the same units
  (κ = (p_o − p_e) / (1 − p_e)); NaN when p_e = 1 or there is no unit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 10_000
SEED = 42
LEVEL = 0.95
BLOCK = 1_000


def bootstrap_ci(values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED,
                 level: float = LEVEL) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean; (NaN, NaN) for no value."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return (math.nan, math.nan)
    if np.isnan(v).any():
        raise ValueError("drop undefined (NaN) values before bootstrapping")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    for start in range(0, resamples, BLOCK):
        rows = min(BLOCK, resamples - start)
        means[start:start + rows] = v[rng.integers(0, v.size, size=(rows, v.size))].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return (float(lo), float(hi))


def wilcoxon_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value of the paired values (module docstring)."""
    if len(a) != len(b):
        raise ValueError("paired values must have the same length")
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if d.size == 0:
        return math.nan
    if not d.any():
        return 1.0
    # Imported here: scipy.stats takes half a second to import, and every start of the
    # CLI (``verifier --help`` included) imports this module through ``verifier judge``.
    from scipy.stats import wilcoxon

    return float(wilcoxon(d).pvalue)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    m = len(indexed)
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def cohen_d(a: Sequence[float], b: Sequence[float]) -> float:
    """Cohen's d with pooled SD = sqrt((sd_a² + sd_b²) / 2)."""
    if len(a) < 2 or len(b) < 2:
        return math.nan
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    pooled = math.sqrt((float(va.var(ddof=1)) + float(vb.var(ddof=1))) / 2)
    if pooled == 0.0:
        return math.nan
    return (float(va.mean()) - float(vb.mean())) / pooled


@dataclass(frozen=True, slots=True)
class Kappa:
    kappa: float
    p_o: float
    p_e: float
    n: int


def cohen_kappa(x: Sequence[bool], y: Sequence[bool]) -> Kappa:
    """Cohen's κ between two binary ratings of the same n units."""
    if len(x) != len(y):
        raise ValueError("both ratings must cover the same units")
    n = len(x)
    if n == 0:
        return Kappa(math.nan, math.nan, math.nan, 0)
    p_o = sum(a == b for a, b in zip(x, y, strict=True)) / n
    px, py = sum(x) / n, sum(y) / n
    p_e = px * py + (1 - px) * (1 - py)
    kappa = (p_o - p_e) / (1 - p_e) if p_e < 1 else math.nan
    return Kappa(kappa, p_o, p_e, n)
