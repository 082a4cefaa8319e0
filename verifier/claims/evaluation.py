"""How well comment scores separate erroneous from correct comments (PremiseCheck's harness).

**Label polarity (fixed).** A score is "how likely the comment is right"; the label is
``erroneous`` (True = the comment is wrong). :func:`auroc` is the probability that an
erroneous comment scores *below* a correct one, ties counted one half:

    AUROC = P(s_err < s_ok) + ½ P(s_err = s_ok)

which equals scikit-learn's ``roc_auc_score(~erroneous, scores)`` (correct = positive
class). 0.5 is chance; 1.0 means every erroneous comment scores below every correct one.

**Paired paper-level bootstrap** (:func:`paired_bootstrap`). Two configurations score the
same comments. One resample draws as many papers as there are, with replacement, and takes
all comments of each drawn paper (a paper drawn twice counts twice); ΔAUROC = AUROC(A) −
AUROC(B) on that resample. A resample in which the comments are all of one class has no
AUROC: it is redrawn, and the number redrawn is reported. 2,000 resamples, seed
:data:`SEED` (numpy ``default_rng``), a 95 % percentile interval (numpy's linear
percentile). A is **non-inferior** to B when the interval's lower bound exceeds −3 AUROC
points (−0.03).

**Cost and latency** (:func:`summarise`): mean, median and p95 (numpy's linear
percentile) of per-comment values; NaN with n = 0 when there are none.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

SEED = 20261101
"""The bootstrap's documented default seed."""
RESAMPLES = 2000
LEVEL = 0.95
NON_INFERIORITY_MARGIN = -0.03
"""ΔAUROC lower bound (in AUROC units: −3 points) that non-inferiority must exceed."""
MAX_REDRAW_FACTOR = 100
"""A bootstrap gives up (ValueError) after this many times ``resamples`` draws."""


def _arrays(scores: Sequence[float], erroneous: Sequence[bool]) -> tuple[
        NDArray[np.float64], NDArray[np.bool_]]:
    s = np.asarray(scores, dtype=np.float64)
    e = np.asarray(erroneous, dtype=np.bool_)
    if s.shape != e.shape or s.ndim != 1:
        raise ValueError("scores and labels must be two sequences of the same length")
    if np.isnan(s).any():
        raise ValueError("scores must not be NaN")
    return s, e


def _auroc(s: NDArray[np.float64], e: NDArray[np.bool_]) -> float:
    n_err = int(e.sum())
    n_ok = e.size - n_err
    if n_err == 0 or n_ok == 0:
        return math.nan
    # Mann–Whitney: with midranks, the correct comments' rank sum counts the pairs in which
    # a correct comment scores above an erroneous one, ties one half.
    ranks = rankdata(s)
    u = float(ranks[~e].sum()) - n_ok * (n_ok + 1) / 2
    return u / (n_err * n_ok)


def auroc(scores: Sequence[float], erroneous: Sequence[bool]) -> float:
    """P(an erroneous comment scores below a correct one), ties one half.

    Raises ValueError when both classes are not present (AUROC is undefined)."""
    s, e = _arrays(scores, erroneous)
    value = _auroc(s, e)
    if math.isnan(value):
        raise ValueError("AUROC needs at least one erroneous and one correct comment")
    return value


@dataclass(frozen=True, slots=True)
class BootstrapResult:
    auroc_a: float
    auroc_b: float
    delta_auroc: float
    """AUROC(A) − AUROC(B) on all comments."""
    ci: tuple[float, float]
    resamples: int
    redrawn: int
    """Resamples drawn with one class only and drawn again."""
    seed: int
    level: float
    non_inferior: bool
    """The interval's lower bound exceeds :data:`NON_INFERIORITY_MARGIN`."""


def paired_bootstrap(
    papers: Sequence[Hashable],
    erroneous: Sequence[bool],
    scores_a: Sequence[float],
    scores_b: Sequence[float],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
    margin: float = NON_INFERIORITY_MARGIN,
) -> BootstrapResult:
    """ΔAUROC (A − B) with its paired paper-level percentile interval (module docstring).

    ``papers[i]`` is the paper of comment i. Raises ValueError when the full set has one
    class only, or when one-class resamples keep coming (more than
    ``MAX_REDRAW_FACTOR × resamples`` draws)."""
    a, e = _arrays(scores_a, erroneous)
    b, _ = _arrays(scores_b, erroneous)
    if len(papers) != e.size:
        raise ValueError("one paper id per comment is needed")
    if resamples < 1 or not 0.0 < level < 1.0:
        raise ValueError("resamples must be ≥ 1 and level in (0, 1)")
    full_a, full_b = _auroc(a, e), _auroc(b, e)
    if math.isnan(full_a):
        raise ValueError("AUROC needs at least one erroneous and one correct comment")

    groups: dict[Hashable, list[int]] = {}
    for i, paper in enumerate(papers):
        groups.setdefault(paper, []).append(i)
    members = [np.asarray(ix, dtype=np.intp) for ix in groups.values()]
    rng = np.random.default_rng(seed)
    deltas = np.empty(resamples, dtype=np.float64)
    done = redrawn = 0
    while done < resamples:
        if done + redrawn >= MAX_REDRAW_FACTOR * resamples:
            raise ValueError(f"{redrawn} one-class resamples: too few papers of each class")
        drawn = rng.integers(0, len(members), size=len(members))
        idx = np.concatenate([members[k] for k in drawn])
        da, db = _auroc(a[idx], e[idx]), _auroc(b[idx], e[idx])
        if math.isnan(da):
            redrawn += 1
            continue
        deltas[done] = da - db
        done += 1
    tail = (1.0 - level) / 2 * 100
    lo, hi = (float(v) for v in np.percentile(deltas, [tail, 100 - tail]))
    return BootstrapResult(
        auroc_a=full_a, auroc_b=full_b, delta_auroc=full_a - full_b, ci=(lo, hi),
        resamples=resamples, redrawn=redrawn, seed=seed, level=level,
        non_inferior=lo > margin,
    )


@dataclass(frozen=True, slots=True)
class Summary:
    mean: float
    median: float
    p95: float
    n: int


def summarise(values: Sequence[float]) -> Summary:
    """Mean, median and 95th percentile (linear interpolation) of per-comment values."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return Summary(math.nan, math.nan, math.nan, 0)
    return Summary(float(v.mean()), float(np.median(v)), float(np.percentile(v, 95)), int(v.size))
