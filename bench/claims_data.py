"""The labelled claim datasets of ``../shared/data/claims/``, read as :class:`ClaimRow`.

Both files are JSON lines with ``id``, ``claim``, ``evidence_text``, ``label`` (SUPPORT |
CONTRADICT | NOT_ENOUGH_INFO) and ``split`` (see each dataset's README):

* ``scifact``  ``scifact/scifact_test.jsonl``: 300 expert claims, each with one cited
  abstract (title + abstract), balanced 100/100/100;
* ``citation_integrity``  ``citation_integrity/citation_integrity.jsonl``: 3,060 citing
  sentences with a 5-sentence excerpt of the cited article; CONTRADICT there means
  "the citation is not accurate", which is closer to "not supported".

The data is read where it lies, never copied into the repository.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "claims"
FILES = {
    "scifact": Path("scifact") / "scifact_test.jsonl",
    "citation_integrity": Path("citation_integrity") / "citation_integrity.jsonl",
}
LABELS = ("SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO")


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """One claim with the evidence it is judged against and its gold label."""

    id: str
    claim: str
    evidence: str
    label: str
    split: str


def read_rows(dataset: str, data: Path = DEFAULT_DATA) -> list[ClaimRow]:
    """Every row of ``dataset`` in file order. Raises ``FileNotFoundError`` when the
    dataset is absent and ``ValueError`` on a row with an unknown label."""
    return list(_rows(data / FILES[dataset]))


def _rows(path: Path) -> Iterator[ClaimRow]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            record = json.loads(line)
            label = record["label"]
            if label not in LABELS:
                raise ValueError(f"{path}:{number}: unknown label {label!r}")
            yield ClaimRow(str(record["id"]), record["claim"], record["evidence_text"],
                           label, str(record.get("split", "")))
