"""The judging report dict, its Markdown table and ReviewBench's published means."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from verifier.judge.metrics import METRICS, critical_pairs
from verifier.judge.models import JudgedComment, SourceJudgement, Stance
from verifier.judge.published import PublishedMean, default_folder, load_published_means
from verifier.judge.report import ROWS, build_report, markdown_table
from verifier.judge.statistics import holm

STANCES = list(Stance)


def synthetic(n_papers: int, seed: int) -> list[SourceJudgement]:
    """Random judgements of three sources; the AI sources map more often than humans."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n_papers):
        paper = f"paper-{k:03d}"
        claims = tuple(f"{paper}:claim-{i}" for i in range(1, int(rng.integers(3, 8))))
        for source, p_map in (("human", 0.55), ("tool-a", 0.8), ("tool-b", 0.6)):
            comments = []
            for _ in range(int(rng.integers(2, 9))):
                mapped = rng.random() < p_map
                comments.append(JudgedComment(
                    anchor="here" if rng.random() < 0.5 else None,
                    specification="issue",
                    justification="why" if rng.random() < 0.6 else None,
                    remedy="fix" if rng.random() < 0.4 else None,
                    claim_id=str(rng.choice(claims)) if mapped else None,
                    stance=STANCES[int(rng.integers(0, 3))] if mapped else None,
                    is_consequential=bool(rng.random() < 0.7) if mapped else None,
                ))
            out.append(SourceJudgement(paper, source, claims, tuple(comments)))
    return out


@pytest.fixture(scope="module")
def judged() -> list[SourceJudgement]:
    return synthetic(25, 3)


@pytest.fixture(scope="module")
def report(judged: list[SourceJudgement]) -> dict[str, object]:
    return build_report(judged, resamples=2000)


def test_the_report_has_the_contract_shape_and_is_strict_json(report: dict[str, object]) -> None:
    json.dumps(report, allow_nan=False)
    assert report["papers"] == 25
    sources = report["sources"]
    assert isinstance(sources, dict) and list(sources) == ["human", "tool-a", "tool-b"]
    for per_metric in sources.values():
        assert set(per_metric) == set(METRICS)
    tests = report["tests"]
    assert isinstance(tests, list) and len(tests) == len(METRICS) * 3
    assert {"metric", "pair", "p_raw", "p_adj", "cohen_d"} <= set(tests[0])


def test_source_means_are_means_over_papers(judged: list[SourceJudgement],
                                            report: dict[str, object]) -> None:
    by_paper = [sum(c.claim_id is not None for c in j.comments) / len(j.comments)
                for j in judged if j.source == "tool-a"]
    entry = report["sources"]["tool-a"]["mapped_rate"]  # type: ignore[index]
    assert entry["mean"] == pytest.approx(sum(by_paper) / len(by_paper))
    assert entry["n"] == 25
    lo, hi = entry["ci"]
    assert lo < entry["mean"] < hi
    human_overlap = report["sources"]["human"]["overlap_with_humans"]  # type: ignore[index]
    assert human_overlap == {"mean": None, "ci": [None, None], "n": 0}


def test_holm_runs_across_all_tests_and_human_overlap_pairs_are_empty(
        report: dict[str, object]) -> None:
    tests = report["tests"]
    assert isinstance(tests, list)
    raw = [math.nan if t["p_raw"] is None else t["p_raw"] for t in tests]
    expected = holm(raw)
    for t, adj in zip(tests, expected, strict=True):
        if t["p_raw"] is None:
            assert t["p_adj"] is None and t["n"] == 0
        else:
            assert t["p_adj"] == pytest.approx(adj) and t["p_adj"] >= t["p_raw"]
    empty = [t for t in tests if t["metric"] == "overlap_with_humans"
             and t["pair"].startswith("human vs")]
    assert len(empty) == 2 and all(t["n"] == 0 for t in empty)
    # tool-a maps far more often than the humans (0.8 vs 0.55): the test must see it.
    mapped = next(t for t in tests if t["metric"] == "mapped_rate"
                  and t["pair"] == "human vs tool-a")
    assert mapped["diff"] < 0 and mapped["ci"][1] < 0 and mapped["p_adj"] < 0.05
    assert mapped["cohen_d"] < 0


def test_kappa_per_ai_source_equals_scikit_learn(judged: list[SourceJudgement],
                                                 report: dict[str, object]) -> None:
    kappa = report["kappa"]
    assert isinstance(kappa, dict) and set(kappa) == {"human vs tool-a", "human vs tool-b"}
    xs, ys = critical_pairs([j for j in judged if j.source == "human"],
                            [j for j in judged if j.source == "tool-b"])
    assert kappa["human vs tool-b"]["n"] == len(xs) > 0
    assert kappa["human vs tool-b"]["kappa"] == pytest.approx(cohen_kappa_score(xs, ys))


def test_the_markdown_table_has_reviewbench_rows_and_published_columns(
        report: dict[str, object]) -> None:
    published = {"Human": {"mapped_rate": PublishedMean(0.668, 1000),
                           "comments_per_paper": PublishedMean(9.8, 1000),
                           "overlap_with_humans": PublishedMean(None, 0)}}
    table = markdown_table(report, published)
    lines = table.splitlines()
    assert lines[0] == "|  | human | tool-a | tool-b | ReviewBench eLife: Human |"
    body = lines[2:2 + len(ROWS)]
    assert [line.split(" | ")[0].lstrip("| ") for line in body] == [label for label, _ in ROWS]
    mapped = body[1].split(" | ")
    ours = report["sources"]["tool-a"]["mapped_rate"]["mean"]  # type: ignore[index]
    assert mapped[2].startswith(f"{ours * 100:.1f} [")
    assert mapped[-1].rstrip(" |") == "66.8"  # a ratio shown in percent
    assert body[0].split(" | ")[-1].rstrip(" |") == "9.8"  # a count shown as it is
    assert body[4].split(" | ")[1] == "–" and body[4].split(" | ")[-1].rstrip(" |") == "–"


def test_the_table_says_when_one_paper_gives_no_interval(report: dict[str, object]) -> None:
    several = markdown_table(report, {})
    assert f"Means over {report['papers']} papers with 95 % bootstrap intervals" in several
    one = markdown_table({**report, "papers": 1}, {})
    assert "Values of 1 paper (no interval: a bootstrap needs several)" in one
    assert "papers" not in one.splitlines()[-1]
    assert "[" in several and "[" not in one  # no degenerate [x, x] interval in the cells


def test_the_published_means_loader_maps_names_and_scales_percent(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "means.csv").write_text(
        "venue,source,metric,mean,n\n"
        "eLife,Human,mapped_rate,66.8,1000\n"
        "eLife,Human,actionability_rate,64.7,1000\n"
        "eLife,Human,comments_per_paper,9.8,1000\n"
        "eLife,Human,claim_overlap_fraction,,0\n"
        "ICLR,Human,mapped_rate,44.8,1000\n", encoding="utf-8")
    got = load_published_means("eLife", tmp_path)
    assert got["Human"]["mapped_rate"] == PublishedMean(pytest.approx(0.668), 1000)  # type: ignore[arg-type]
    assert got["Human"]["remedy_rate"].mean == pytest.approx(0.647)
    assert got["Human"]["comments_per_paper"].mean == 9.8
    assert got["Human"]["overlap_with_humans"] == PublishedMean(None, 0)
    (results / "means.csv").write_text("venue,source,metric,mean,n\neLife,Human,x,abc,3\n",
                                       encoding="utf-8")
    with pytest.raises(ValueError, match=":2"):
        load_published_means("eLife", tmp_path)
    with pytest.raises(ValueError):
        load_published_means("Nature", tmp_path)


def test_the_shared_published_means_are_read_as_published() -> None:
    folder = default_folder()
    if not (folder / "results" / "means.csv").is_file():
        pytest.skip(f"ReviewBench results not available: {folder}")
    elife = load_published_means("eLife")
    assert set(elife) == {"Human", "R3", "Gemini 3 Pro", "GPT-5.2"}
    assert elife["Human"]["mapped_rate"].mean == pytest.approx(0.668)
    assert elife["R3"]["stance_matched_overlap"].mean == pytest.approx(0.702)
    assert elife["Human"]["stance_matched_overlap"].mean is None
    assert all(len(metrics) == 12 for metrics in elife.values())
