"""Logistic calibration: feature vector → probability, its fit, and its JSON form.

:func:`fit_logistic` maximises the L2-penalised log-likelihood (the intercept is not
penalised) by Newton's method from zero weights, solving each step by Gaussian
elimination with partial pivoting. It uses no randomness, so the same rows give the same
weights bit for bit on the same platform. Pure Python: the offline model fits on a few
thousand rows of a dozen features in well under a second.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class LogisticModel:
    """``P(yes) = sigmoid(intercept + Σ weights[i] · x[features[i]])``: a model reads
    only the features it names, so one feature extractor serves several models."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float

    def __post_init__(self) -> None:
        if len(self.features) != len(self.weights):
            raise ValueError(f"{len(self.features)} features but {len(self.weights)} weights")

    def probability(self, values: Mapping[str, float]) -> float:
        """P(yes) given feature values by name (``KeyError`` when one is missing)."""
        return sigmoid(self.intercept + sum(w * values[name] for name, w in
                                            zip(self.features, self.weights, strict=True)))

    def to_json(self) -> dict[str, Any]:
        return {"features": list(self.features), "weights": list(self.weights),
                "intercept": self.intercept}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LogisticModel:
        """Read :meth:`to_json`'s form; raises ``ValueError`` on a malformed one."""
        try:
            names = tuple(str(name) for name in data["features"])
            weights = tuple(float(w) for w in data["weights"])
            intercept = float(data["intercept"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed logistic model: {exc}") from exc
        if not all(math.isfinite(w) for w in (*weights, intercept)):
            raise ValueError("logistic model weights must be finite")
        return cls(names, weights, intercept)


def sigmoid(z: float) -> float:
    """The logistic function, stable for large ``|z|``."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def fit_logistic(rows: Sequence[Sequence[float]], labels: Sequence[int],
                 features: Sequence[str], l2: float = 1.0, balanced: bool = False,
                 iterations: int = 50) -> LogisticModel:
    """Weights maximising Σ cᵢ · log-likelihoodᵢ − ``l2``/2 · ‖w‖² (intercept unpenalised).

    ``labels`` are 1 (yes) or 0 (no); both must occur. cᵢ is 1, or with ``balanced``
    n / (2 · rows of that label), so each label weighs half and the intercept reflects
    an even prior. Stops when the Newton step is below 1e-10 or after ``iterations``.
    """
    if len(rows) != len(labels) or not rows:
        raise ValueError("need as many labels as rows, and at least one row")
    if set(labels) != {0, 1}:
        raise ValueError("labels must be 0 and 1, both present")
    width = len(features)
    if any(len(row) != width for row in rows):
        raise ValueError(f"every row needs {width} features")
    positives = sum(labels)
    class_weight = {1: len(labels) / (2 * positives) if balanced else 1.0,
                    0: len(labels) / (2 * (len(labels) - positives)) if balanced else 1.0}
    size = width + 1                      # index 0 is the intercept
    beta = [0.0] * size
    for _ in range(iterations):
        gradient = [0.0] * size
        hessian = [[0.0] * size for _ in range(size)]
        for row, label in zip(rows, labels, strict=True):
            x = (1.0, *row)
            p = sigmoid(sum(b * v for b, v in zip(beta, x, strict=True)))
            c = class_weight[label]
            weight = c * p * (1.0 - p)
            for i in range(size):
                gradient[i] += c * (label - p) * x[i]
                for j in range(i, size):
                    hessian[i][j] += weight * x[i] * x[j]
        for i in range(size):
            for j in range(i):
                hessian[i][j] = hessian[j][i]
        for i in range(1, size):
            gradient[i] -= l2 * beta[i]
            hessian[i][i] += l2
        hessian[0][0] += 1e-9             # keeps a constant-free design solvable
        step = _solve(hessian, gradient)
        beta = [b + s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-10:
            break
    return LogisticModel(tuple(features), tuple(beta[1:]), beta[0])


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with ``matrix · x = vector`` (Gaussian elimination, partial pivoting)."""
    n = len(vector)
    a = [[*matrix[i], vector[i]] for i in range(n)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(a[r][column]))
        if abs(a[pivot][column]) < 1e-300:
            raise ValueError("singular system in the logistic fit")
        a[column], a[pivot] = a[pivot], a[column]
        for r in range(column + 1, n):
            factor = a[r][column] / a[column][column]
            if factor:
                for c in range(column, n + 1):
                    a[r][c] -= factor * a[column][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x
