"""``bench/decisions.py``: its AUROC, its bootstrap, and its JSON on a tiny synthetic dataset;
``bench/train_offline_model.py``: the shipped weights are what the data gives."""

from __future__ import annotations

import importlib.util
import itertools
import json
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"bench_{name}"] = module        # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


decisions = _load("decisions")
train = _load("train_offline_model")


def brute_force_auroc(scores: list[float], labels: list[int]) -> float:
    pairs = [(p, n) for p, lp in zip(scores, labels, strict=True) if lp == 1
             for n, ln in zip(scores, labels, strict=True) if ln == 0]
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)


# ---------------------------------------------------------------------------------------
# AUROC


def test_auroc_on_hand_made_cases() -> None:
    assert decisions.auroc([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]) == 1.0
    assert decisions.auroc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]) == 0.0
    assert decisions.auroc([0.5, 0.5, 0.5], [1, 0, 1]) == 0.5          # all ties: one half
    assert decisions.auroc([0.7, 0.5, 0.5, 0.1], [1, 1, 0, 0]) == 0.875


def test_auroc_equals_brute_force_on_every_small_labelling_with_ties() -> None:
    scores = [0.1, 0.4, 0.4, 0.4, 0.7, 0.7]
    for labels in itertools.product((0, 1), repeat=len(scores)):
        if 0 < sum(labels) < len(labels):
            assert decisions.auroc(scores, list(labels)) == pytest.approx(
                brute_force_auroc(scores, list(labels)), abs=1e-12)


def test_auroc_matches_scikit_learn_on_random_scores_with_ties() -> None:
    from sklearn.metrics import roc_auc_score

    rng = random.Random(7)
    for size in (5, 40, 500):
        scores = [rng.choice([0.1, 0.2, 0.3, 0.5]) if rng.random() < 0.5 else rng.random()
                  for _ in range(size)]
        labels = [int(rng.random() < 0.4) for _ in range(size)]
        labels[0], labels[1] = 0, 1
        assert decisions.auroc(scores, labels) == pytest.approx(
            roc_auc_score(labels, scores), abs=1e-12)


def test_auroc_refuses_a_single_class_or_bad_labels() -> None:
    with pytest.raises(ValueError):
        decisions.auroc([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError):
        decisions.auroc([0.1, 0.2], [1, 2])


def test_the_bootstrap_interval_is_seeded_brackets_the_estimate_and_skips_one_class() -> None:
    scores = [0.1, 0.3, 0.35, 0.6, 0.8, 0.2, 0.9, 0.55]
    labels = [0, 0, 1, 1, 1, 0, 1, 0]
    interval, skipped = decisions.bootstrap_interval(scores, labels, 300, seed=1)
    assert interval is not None
    assert interval[0] <= decisions.auroc(scores, labels) <= interval[1]
    assert decisions.bootstrap_interval(scores, labels, 300, seed=1) == (interval, skipped)
    tiny, tiny_skipped = decisions.bootstrap_interval([0.2, 0.8], [0, 1], 200, seed=3)
    assert tiny_skipped > 0 and tiny is not None


# ---------------------------------------------------------------------------------------
# The bench on synthetic data


def _write(folder: Path, name: str, rows: list[tuple[str, str, str]]) -> None:
    path = folder / decisions.FILES[name]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for i, (claim, evidence, label) in enumerate(rows):
            handle.write(json.dumps({"id": f"{name}-{i}", "claim": claim,
                                     "evidence_text": evidence, "label": label,
                                     "split": "test"}) + "\n")


def _synthetic(seed: int) -> list[tuple[str, str, str]]:
    """Claims that repeat their evidence (SUPPORT), negate it or change its number
    (CONTRADICT), or talk about something else (NOT_ENOUGH_INFO)."""
    rng = random.Random(seed)
    topics = ["aspirin", "statins", "metformin", "vitamin", "exercise", "caffeine",
              "insulin", "zinc", "sleep", "fasting"]
    outcomes = ["mortality", "blood pressure", "tumour growth", "inflammation", "weight"]
    rows = []
    for i in range(24):
        topic, outcome = rng.choice(topics), rng.choice(outcomes)
        percent = rng.randrange(10, 90)
        evidence = (f"Patients took {topic} for a year. {topic.capitalize()} reduced {outcome} "
                    f"by {percent}% in the treated group. The trial enrolled many adults.")
        kind = i % 3
        if kind == 0:
            rows.append((f"{topic.capitalize()} reduces {outcome} by {percent}%.", evidence,
                         "SUPPORT"))
        elif kind == 1:
            rows.append((f"{topic.capitalize()} does not reduce {outcome} by {percent + 5}%.",
                         evidence, "CONTRADICT"))
        else:
            rows.append(("Volcanic ash alters glacier albedo in Iceland.", evidence,
                         "NOT_ENOUGH_INFO"))
    return rows


def test_the_bench_writes_the_agreed_json_and_a_table_labelled_as_a_baseline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "scifact", _synthetic(1))
    _write(tmp_path, "citation_integrity", _synthetic(2))
    out = tmp_path / "decisions.json"
    assert decisions.main(["--data", str(tmp_path), "--json", str(out),
                           "--bootstrap", "50"]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["backend"] == "offline" and results["baseline"] is True
    for name, other in (("scifact", "citation_integrity"), ("citation_integrity", "scifact")):
        measured = results[name]
        assert measured["trained_on"] == other            # never its own rows
        assert measured["n"] == 16                         # SUPPORT + CONTRADICT only
        assert measured["nei"]["n"] == 8 and measured["refused"] == 0
        assert 0.0 <= measured["auroc"] <= 1.0
        # Negation and a changed number are what this synthetic set turns on.
        assert measured["auroc"] > 0.9
        assert measured["mean_p_true"]["SUPPORT"] > measured["mean_p_true"]["CONTRADICT"]
        assert measured["grounded_auroc"] > 0.9
        assert measured["ci95"][0] <= measured["auroc"] <= measured["ci95"][1]
    printed = capsys.readouterr().out
    assert "OFFLINE BASELINE" in printed and "scifact" in printed


def test_the_bench_reports_missing_data_instead_of_crashing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert decisions.main(["--data", str(tmp_path / "absent")]) == 2
    assert "claims data not found" in capsys.readouterr().err


@pytest.mark.slow
def test_the_shipped_weights_are_what_the_training_script_fits_on_the_shared_data() -> None:
    if not all((train.DEFAULT_DATA / path).is_file() for path in train.FILES.values()):
        pytest.skip(f"claims data not available: {train.DEFAULT_DATA}")
    assert train.weights_text(train.DEFAULT_DATA) == train.SHIPPED.read_text(encoding="utf-8")
