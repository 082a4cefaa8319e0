"""ReviewBench's published means (``results/means.csv``), read from the shared data.

The file is never copied into the repository: :func:`load_published_means` reads it from
``$VERIFIER_REVIEWBENCH`` or ``../shared/data/reviewbench`` next to the repository.
Columns: ``venue, source, metric, mean, n``; ratio metrics are published in percent and
returned here as ratios (0…1) like ours; ``comments_per_paper`` and ``comment_length``
stay as they are. ReviewBench's metric names are mapped onto ours
(:data:`METRIC_NAMES`); metrics we do not compute keep their own names. An empty mean
(the human rows of the overlap metrics) is None.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

METRIC_NAMES: dict[str, str] = {
    "mapped_rate": "mapped_rate",
    "consequential_rate": "consequential_rate",
    "specification_rate": "specification_rate",
    "actionability_rate": "remedy_rate",
    "anchored_rate": "anchor_rate",
    "justification_rate": "justification_rate",
    "claim_coverage": "claim_coverage",
    "comments_per_paper": "comments_per_paper",
    "claim_overlap_fraction": "overlap_with_humans",
    "stance_matched_overlap_fraction": "stance_matched_overlap",
}
NOT_PERCENT = frozenset({"comments_per_paper", "comment_length"})
VENUES = ("ICLR", "eLife", "NHB")


def default_folder() -> Path:
    env = os.environ.get("VERIFIER_REVIEWBENCH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "reviewbench"


@dataclass(frozen=True, slots=True)
class PublishedMean:
    mean: float | None
    n: int


Published = dict[str, dict[str, PublishedMean]]
"""ReviewBench source (``Human``, ``R3``, ``Gemini 3 Pro``, ``GPT-5.2``) → our metric name →
mean."""


def load_published_means(venue: str = "eLife", folder: Path | None = None) -> Published:
    """The published means of one venue. Raises FileNotFoundError when the file is absent
    and ValueError on a malformed row (naming its line) or an unknown venue."""
    if venue not in VENUES:
        raise ValueError(f"unknown venue {venue!r}; ReviewBench has {', '.join(VENUES)}")
    path = (folder or default_folder()) / "results" / "means.csv"
    result: Published = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            if row.get("venue") != venue:
                continue
            try:
                metric, raw, n = row["metric"], row["mean"].strip(), int(row["n"])
                value = float(raw) if raw else None
            except (KeyError, AttributeError, ValueError) as exc:
                raise ValueError(f"{path}:{line}: malformed row {row!r}") from exc
            if value is not None and metric not in NOT_PERCENT:
                value /= 100.0
            ours = METRIC_NAMES.get(metric, metric)
            result.setdefault(row["source"], {})[ours] = PublishedMean(value, n)
    return result
