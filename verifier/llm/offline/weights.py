"""The offline model's fitted weights: two logistic models and where they came from.

The shipped file ``weights.json`` beside this module is written by
``bench/train_offline_model.py`` (see :mod:`.training` for the recipe) and read once per
process by :func:`load_weights`; reading it is the offline model's only I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from verifier.llm.offline.calibration import LogisticModel

WEIGHTS_FILE = "weights.json"
FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class OfflineWeights:
    """``true``: P(the statement is supported by the state) (SUPPORT against CONTRADICT);
    ``grounded``: P(the state bears on the statement at all) (SUPPORT or CONTRADICT
    against NOT_ENOUGH_INFO). ``trained_on`` names the datasets and ``counts`` the rows
    per label each model was fitted on."""

    true: LogisticModel
    grounded: LogisticModel
    trained_on: tuple[str, ...]
    counts: Mapping[str, Mapping[str, int]]

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "trained_on": list(self.trained_on),
                "counts": {name: dict(c) for name, c in self.counts.items()},
                "models": {"true": self.true.to_json(), "grounded": self.grounded.to_json()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OfflineWeights:
        """Read :meth:`to_json`'s form; ``ValueError`` when it is not that form."""
        if data.get("format") != FORMAT_VERSION:
            raise ValueError(f"offline weights format {data.get('format')!r}, "
                             f"expected {FORMAT_VERSION}")
        try:
            models = data["models"]
            return cls(LogisticModel.from_json(models["true"]),
                       LogisticModel.from_json(models["grounded"]),
                       tuple(str(name) for name in data["trained_on"]),
                       {str(name): {str(k): int(v) for k, v in c.items()}
                        for name, c in data["counts"].items()})
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed offline weights: {exc!r}") from exc


@cache
def load_weights() -> OfflineWeights:
    """The weights shipped in the package (read once, then cached)."""
    text = resources.files(__package__).joinpath(WEIGHTS_FILE).read_text(encoding="utf-8")
    return OfflineWeights.from_json(json.loads(text))
