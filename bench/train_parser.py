"""Train the CRF reference parser on the training split of ``parsing_gold``.

Run::

    .venv/bin/python bench/train_parser.py [--data DIR] [--out FILE] [--iterations N]
                                           [--c1 X] [--c2 X]

Reads ``parsing_gold/anystyle_dev.jsonl`` and ``grobid_dev.jsonl`` from the shared data
folder (``../shared/data`` beside the repository, or ``--data DIR``), keeps the rows of
the training split (:func:`verifier.citations.parsing.crf.split.is_validation` false:
SHA-1 of the normalised text modulo 10 below 8), turns their labelled spans into token
labels (:mod:`verifier.citations.parsing.crf.gold`) and features
(:mod:`verifier.citations.parsing.crf.features`), and trains a linear-chain CRF with
python-crfsuite (L-BFGS, elastic-net regularisation). Training is deterministic: the
rows are read in file order and L-BFGS has no randomness, so the same data and options
give the same model file. The model is written to the package
(``verifier/citations/parsing/crf/model/parser.crfsuite``) beside its licence notice,
and its token accuracy on the validation split is printed. ``--tune`` is for choosing
options without looking at the validation split: it trains on buckets 0-6 and scores
bucket 7.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pycrfsuite

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.citations.parsing.crf.features import featurize  # noqa: E402
from verifier.citations.parsing.crf.gold import token_labels  # noqa: E402
from verifier.citations.parsing.crf.labels import OUTSIDE, is_outside  # noqa: E402
from verifier.citations.parsing.crf.model import MODEL_PATH  # noqa: E402
from verifier.citations.parsing.crf.parse import author_end  # noqa: E402
from verifier.citations.parsing.crf.split import VALIDATION_BUCKETS, bucket  # noqa: E402

DEFAULT_DATA = ROOT / ".." / "shared" / "data"
FILES = ("anystyle_dev.jsonl", "grobid_dev.jsonl")

Example = tuple[list[list[str]], list[str]]


def examples(data: Path, buckets: frozenset[int]) -> Iterator[Example]:
    """(features, labels) of every row whose split bucket is in ``buckets``, in file
    order."""
    for name in FILES:
        with (data / "parsing_gold" / name).open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                if bucket(record["text"]) not in buckets:
                    continue
                tokens, labels = token_labels(record["text"], record["segments"])
                if tokens:
                    yield featurize(tokens, author_end(record["text"])), labels


def train(
    rows: Sequence[Example], out: Path, *, iterations: int, c1: float, c2: float
) -> None:
    """Train on ``rows`` and write the model to ``out``."""
    trainer = pycrfsuite.Trainer(algorithm="lbfgs", verbose=False)
    for features, labels in rows:
        trainer.append(features, labels)
    trainer.set_params(
        {
            "c1": c1,
            "c2": c2,
            "max_iterations": iterations,
            "feature.possible_transitions": True,
            "feature.minfreq": 1,
        }
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    trainer.train(str(out))


def token_accuracy(model: Path, rows: Sequence[Example]) -> tuple[float, Counter[str]]:
    """Share of scored tokens labelled right, and the errors as "gold>predicted" (every
    ``O`` variant counts as ``O``)."""
    tagger = pycrfsuite.Tagger()
    tagger.open(str(model))
    right = total = 0
    errors: Counter[str] = Counter()
    for features, labels in rows:
        for gold_label, got_label in zip(labels, tagger.tag(features), strict=True):
            gold = OUTSIDE if is_outside(gold_label) else gold_label
            got = OUTSIDE if is_outside(got_label) else got_label
            total += 1
            if gold == got:
                right += 1
            else:
                errors[f"{gold}>{got}"] += 1
    return (right / total if total else 0.0), errors


def main(argv: Sequence[str] | None = None) -> int:
    """Train, save and report; 2 when the data folder is missing."""
    parser = argparse.ArgumentParser(prog="verifier bench train-parser",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--c1", type=float, default=0.1)
    parser.add_argument("--c2", type=float, default=0.05)
    parser.add_argument(
        "--tune",
        action="store_true",
        help="for choosing options: train on training buckets 0-6, score on bucket 7 "
        "(the validation split is not read)",
    )
    args = parser.parse_args(argv)
    training = frozenset(range(10)) - VALIDATION_BUCKETS
    scored = VALIDATION_BUCKETS
    if args.tune:
        training, scored = training - {7}, frozenset({7})
    try:
        train_rows = list(examples(args.data, training))
        valid_rows = list(examples(args.data, scored))
    except FileNotFoundError as error:
        print(f"data not found: {error.filename} (use --data DIR)", file=sys.stderr)
        return 2
    print(f"training on {len(train_rows)} references, validating on {len(valid_rows)}")
    start = time.perf_counter()
    train(train_rows, args.out, iterations=args.iterations, c1=args.c1, c2=args.c2)
    print(f"trained in {time.perf_counter() - start:.1f} s -> {args.out}")
    print(f"model size {args.out.stat().st_size / 1e6:.2f} MB")
    accuracy, errors = token_accuracy(args.out, valid_rows)
    side = "tuning bucket 7" if args.tune else "validation"
    print(f"{side} token accuracy {100 * accuracy:.2f} %")
    print("most frequent errors (gold>predicted):", errors.most_common(12))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
