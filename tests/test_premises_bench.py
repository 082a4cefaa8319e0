"""``verifier bench premises``: the JSON shape and the figures on a tiny labelled set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sklearn.metrics import roc_auc_score

from verifier.claims.checker import PremiseChecker, PremiseOptions
from verifier.llm.types import Usage

ROOT = Path(__file__).resolve().parents[1]
import premises as bench  # noqa: E402

CLAIMS = [
    ("1", "Drug X lowers blood pressure.", "Drug X lowered blood pressure in 40 patients.",
     "SUPPORT"),
    ("2", "Drug X raises blood pressure.", "Drug X lowered blood pressure in 40 patients.",
     "CONTRADICT"),
    ("3", "Mice lacking gene Y live longer.", "Mice lacking gene Y lived longer than controls.",
     "SUPPORT"),
    ("4", "Mice lacking gene Y die young.", "Mice lacking gene Y lived longer than controls.",
     "CONTRADICT"),
    ("5", "The cohort had 500 children.", "We followed a cohort of 500 children for ten years.",
     "SUPPORT"),
    ("6", "The cohort had only adults.", "We followed a cohort of 500 children for ten years.",
     "CONTRADICT"),
    ("7", "Sleep improves memory.", "Sleep deprivation had no measurable effect.",
     "NOT_ENOUGH_INFO"),
]


@pytest.fixture
def tiny_data(tmp_path: Path) -> dict[str, Path]:
    data = tmp_path / "claims"
    (data / "scifact").mkdir(parents=True)
    with (data / "scifact" / "scifact_test.jsonl").open("w") as handle:
        for id_, claim, evidence, label in CLAIMS:
            handle.write(json.dumps({"id": id_, "claim": claim, "evidence_text": evidence,
                                     "label": label, "split": "test"}) + "\n")
    elife = tmp_path / "elife.jsonl"
    elife.write_text(json.dumps({"paper_id": "e1", "manuscript_markdown":
                                 "# T\n\n## Abstract\n\nNeonates were tested asleep within "
                                 "24 hours of birth; 120 were analysed."}) + "\n")
    fixtures = tmp_path / "hand.jsonl"
    fixtures.write_text("".join(json.dumps(row) + "\n" for row in [
        {"paper_id": "e1", "comment_id": "h1", "comment": "Neonates were tested asleep.",
         "erroneous": False, "reason": "r"},
        {"paper_id": "e1", "comment_id": "h2", "comment": "Only 40 neonates were analysed.",
         "erroneous": True, "reason": "r"}]))
    return {"data": data, "elife": elife, "fixtures": fixtures}


def test_the_bench_writes_the_documented_json_with_every_configuration(
        tiny_data: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    code = bench.main(["--sets", "claims-scifact,elife-handwritten", "--json", str(out),
                       "--data", str(tiny_data["data"]), "--elife", str(tiny_data["elife"]),
                       "--fixtures", str(tiny_data["fixtures"]), "--resamples", "200",
                       "--phrasings", "2", "--concurrency", "2"])
    assert code == 0
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["backend"] == "offline" and report["baseline"] is True
    assert "NOT ReviewFact" in report["note"] and "NOT ReviewFact" in capsys.readouterr().out
    scifact = report["sets"]["claims-scifact"]
    assert scifact["comments"] == 6 and scifact["erroneous"] == 3  # NEI left out
    # The other claims set is absent here, so the shipped (in-sample) weights are named.
    assert "IN-SAMPLE" in scifact["offline_weights"]
    assert set(scifact["configs"]) == {"min", "mean", "no_route", "holistic", "phrasings_k"}
    for metrics in scifact["configs"].values():
        for key in ("auroc", "n", "cost_per_comment", "latency_p50_s", "latency_p95_s"):
            assert key in metrics
        assert metrics["n"] == 6 and metrics["cost_per_comment"] == 0.0
        assert 0.0 <= metrics["auroc"] <= 1.0
        assert metrics["latency_p50_s"] <= metrics["latency_p95_s"]
    assert scifact["configs"]["holistic"]["requests_per_comment"] == 1.0
    boot = scifact["bootstrap"]
    assert set(boot) >= {"delta_auroc", "ci", "resamples", "non_inferior"}
    assert boot["resamples"] == 200 and len(boot["ci"]) == 2
    assert boot["ci"][0] <= boot["delta_auroc"] <= boot["ci"][1]
    assert boot["non_inferior"] == (boot["ci"][0] > -0.03)
    assert set(scifact["comparisons"]) == {"min-mean", "min-no_route", "min-holistic",
                                           "min-phrasings_k"}
    hand = report["sets"]["elife-handwritten"]
    assert hand["comments"] == 2 and hand["configs"]["min"]["n"] == 2
    # One paper only: every resample holds both comments, so the interval is a point.
    assert hand["bootstrap"]["ci"][0] == hand["bootstrap"]["ci"][1]


def test_the_reported_auroc_is_scikit_learn_s_with_correct_as_positive(
        tiny_data: dict[str, Path]) -> None:
    import asyncio

    args = bench.parse_args(["--data", str(tiny_data["data"]), "--resamples", "50"])
    labelled = bench.claims_set("scifact", args.data)
    measured = asyncio.run(bench.measure(PremiseChecker(), {"s": labelled},
                                         {"min": PremiseOptions(),
                                          "mean": bench.configs(2)["mean"]}, args, None))
    results = asyncio.run(bench.run_config(PremiseChecker(), labelled,
                                           PremiseOptions(), 2))
    scores = [results[x.item.comment_id].score for x in labelled]
    expected = roc_auc_score([not x.erroneous for x in labelled], scores)
    assert measured["s"]["configs"]["min"]["auroc"] == pytest.approx(expected, abs=1e-6)


def test_claims_with_the_same_evidence_share_a_paper_id(tiny_data: dict[str, Path]) -> None:
    labelled = bench.claims_set("scifact", tiny_data["data"])
    by_claim = {x.item.comment_id: x.item.paper_id for x in labelled}
    assert by_claim["1"] == by_claim["2"] != by_claim["3"]


@pytest.mark.slow
def test_world_mode_runs_through_the_remote_backends_against_the_simulated_endpoint(
        tmp_path: Path) -> None:
    out = tmp_path / "world.json"
    assert bench.main(["--world", "--sets", "elife-handwritten", "--limit", "4",
                       "--phrasings", "1", "--resamples", "20", "--time-scale", "200",
                       "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["baseline"] is False
    assert report["backend"] == "logprobs+chat"
    configs = report["sets"]["elife-handwritten"]["configs"]
    assert configs["min"]["n"] >= 1


def test_cost_is_zero_offline_priced_per_model_and_unknown_otherwise() -> None:
    usage = Usage(prompt_tokens=1_000_000, cached_prompt_tokens=400_000,
                        completion_tokens=10, requests=3)
    assert bench.cost_usd(usage, None, "offline") == 0.0
    assert bench.cost_usd(usage, "gpt-5.4-mini", "decisions") == pytest.approx(
        (600_000 * 0.75 + 400_000 * 0.075 + 10 * 4.50) / 1e6)
    assert bench.cost_usd(usage, "some-new-model", "decisions") is None


@pytest.mark.skipif(not bench.HANDWRITTEN.is_file(), reason="fixtures/premises is absent")
def test_the_handwritten_set_has_both_classes_and_a_reason_for_each() -> None:
    rows = [json.loads(line) for line in bench.HANDWRITTEN.read_text().splitlines() if line]
    assert 30 <= len(rows) <= 60
    assert 0 < sum(r["erroneous"] for r in rows) < len(rows)
    assert all(r["reason"] and r["comment"] for r in rows)
    assert len({r["comment_id"] for r in rows}) == len(rows)
