"""How the offline model's weights are fitted: which features, which labels, which penalty.

Each model reads a few features chosen before fitting, one per kind of evidence the
baseline can see, so that weights fitted on one dataset carry to another (a dozen
correlated features fitted on 200 SciFact rows did not):

- ``true`` (SUPPORT = 1 against CONTRADICT = 0): lexical overlap with the best passage
  (``cov_top1``), negation disagreement (``neg_mismatch``), numbers the state never
  states (``num_unmatched``), opposite direction words (``dir_oppose``);
- ``grounded`` (SUPPORT or CONTRADICT = 1 against NOT_ENOUGH_INFO = 0): how well the
  state covers the statement at all (``cov_all``, ``cov_top1``, ``bm25_top1``,
  ``bigram_top3``).

Both use an L2 penalty of 10 on the weights (not the intercept) and weigh the two
classes equally (so 0.5 means "no lean either way", whatever the datasets' label mix).
NOT_ENOUGH_INFO rows are left out of ``true``. The fit is
:func:`.calibration.fit_logistic`: deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from verifier.llm.offline.calibration import LogisticModel, fit_logistic
from verifier.llm.offline.features import features
from verifier.llm.offline.weights import OfflineWeights

SUPPORT, CONTRADICT, NOT_ENOUGH_INFO = "SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO"


@dataclass(frozen=True, slots=True)
class Example:
    """A labelled statement with the state it is judged against."""

    statement: str
    state: str
    label: str


@dataclass(frozen=True, slots=True)
class ModelSpec:
    name: str
    features: tuple[str, ...]
    positive: frozenset[str]
    negative: frozenset[str]
    l2: float = 10.0
    balanced: bool = True


TRUE_SPEC = ModelSpec("true", ("cov_top1", "neg_mismatch", "num_unmatched", "dir_oppose"),
                      frozenset({SUPPORT}), frozenset({CONTRADICT}))
GROUNDED_SPEC = ModelSpec("grounded", ("cov_all", "cov_top1", "bm25_top1", "bigram_top3"),
                          frozenset({SUPPORT, CONTRADICT}), frozenset({NOT_ENOUGH_INFO}))


def fit_model(spec: ModelSpec, rows: Sequence[tuple[dict[str, float], str]]
              ) -> tuple[LogisticModel, dict[str, int]]:
    """The model ``spec`` describes, fitted on (features, label) rows whose label it
    uses, with the number of rows per label it used."""
    used = [(values, label) for values, label in rows
            if label in spec.positive or label in spec.negative]
    model = fit_logistic([[values[name] for name in spec.features] for values, _ in used],
                         [int(label in spec.positive) for _, label in used],
                         spec.features, l2=spec.l2, balanced=spec.balanced)
    return model, dict(sorted(Counter(label for _, label in used).items()))


def fit_weights(examples: Iterable[Example], trained_on: Sequence[str]) -> OfflineWeights:
    """Both models fitted on ``examples`` (labels SUPPORT, CONTRADICT, NOT_ENOUGH_INFO)."""
    rows = [(features(example.statement, example.state), example.label)
            for example in examples]
    true, true_counts = fit_model(TRUE_SPEC, rows)
    grounded, grounded_counts = fit_model(GROUNDED_SPEC, rows)
    return OfflineWeights(true, grounded, tuple(trained_on),
                          {"true": true_counts, "grounded": grounded_counts})
