"""Fit the offline decision model's weights and write the file the package ships.

Run::

    .venv/bin/verifier bench train-offline-model [--data DIR] [--output FILE] [--check]

Reads every row of both claim datasets (``../shared/data/claims/``, see
``bench/claims_data.py``), fits the two logistic models of
``verifier.llm.offline.training`` and writes ``verifier/llm/offline/weights.json``.
Deterministic: the same data gives the same file byte for byte. ``--check`` writes
nothing and exits 1 when the shipped file differs from what the data gives.

The shipped weights are fitted on both datasets, so they are never measured here: the
benchmark (``verifier bench decisions``) refits the same recipe on one dataset and
measures it on the other.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from claims_data import DEFAULT_DATA, FILES, read_rows  # noqa: E402

from verifier.llm.offline.training import Example, fit_weights  # noqa: E402

SHIPPED = ROOT / "verifier" / "llm" / "offline" / "weights.json"


def weights_text(data: Path) -> str:
    """The weights file's text fitted on every row of every dataset under ``data``."""
    examples = [Example(row.claim, row.evidence, row.label)
                for dataset in FILES for row in read_rows(dataset, data)]
    weights = fit_weights(examples, tuple(FILES))
    return json.dumps(weights.to_json(), indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench train-offline-model",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="the claims data folder (default: ../shared/data/claims)")
    parser.add_argument("--output", type=Path, default=SHIPPED, help="where to write")
    parser.add_argument("--check", action="store_true",
                        help="compare with --output instead of writing it")
    args = parser.parse_args(argv)
    text = weights_text(args.data)
    if args.check:
        same = args.output.is_file() and args.output.read_text(encoding="utf-8") == text
        print(f"{args.output}: {'up to date' if same else 'differs from the data'}")
        return 0 if same else 1
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
