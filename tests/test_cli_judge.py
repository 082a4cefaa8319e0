"""``verifier judge``: output lines, per-item errors, the report contract and --resume."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from verifier.cli import main
from verifier.cli.judge import references_said, skipped_said
from verifier.judge.metrics import METRICS
from verifier.judge.run import ReferenceSummary

TEXT = (
    "# A study of widgets\n\n## Abstract\n\n"
    "We show that the widget significantly improves recall on every benchmark we tried. "
    "Our results indicate that the gadget reduces inference cost by half across tasks. "
    "We demonstrate that combining widget and gadget outperforms the strongest baseline. "
    "The improvements are consistent across model sizes and robust to noisy labels. "
    "We find that recall gains increase with the amount of training data available.\n"
)
REVIEW = (
    "SUMMARY:\nThe paper studies widgets.\n\nSTRENGTHS AND WEAKNESSES:\n"
    "1. The widget recall improvement is not supported by Table 2 because the baseline "
    "is weak. Please add a stronger baseline.\n"
    "2. The gadget cost reduction is unclear; the authors should report wall time.\n"
    "3. The writing is clear and the experiments are thorough.\n"
)


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def inputs(tmp_path: Path) -> tuple[Path, Path]:
    papers = write_jsonl(tmp_path / "papers.jsonl", [
        {"paper_id": "P1", "title": "Widgets", "text": TEXT,
         "reviews": [{"reviewer": "Reviewer 1", "text": REVIEW, "rating": 4},
                     {"reviewer": "Reviewer 2", "text": REVIEW.replace("weak", "tiny"),
                      "rating": 5}],
         "references": [], "decision": "Accept (poster)"},
        {"paper_id": "P2", "title": "Gadgets", "text": TEXT.replace("widget", "sprocket"),
         "reviews": [{"reviewer": "Reviewer 1", "text": REVIEW.replace("widget", "sprocket")}]},
        {"paper_id": "P3", "title": "No text"},
        "{not json",
    ])
    comments = write_jsonl(tmp_path / "comments.jsonl", [
        {"paper_id": "P1", "source": "tool", "comment": "The widget recall claim is "
         "undermined by a confound in Section 3; please add an ablation."},
        {"paper_id": "P1", "source": "tool", "comment": "The gadget cost claim lacks "
         "error bars."},
        {"paper_id": "P2", "source": "tool", "comment": "The sprocket recall gains are "
         "not significant; report a statistical test."},
        {"paper_id": "P9", "source": "tool", "comment": "Who am I reviewing?"},
        {"paper_id": "P1", "source": "tool"},
    ])
    return papers, comments


def run(tmp_path: Path, *extra: str) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    papers, comments = inputs(tmp_path)
    out, report = tmp_path / "judged.jsonl", tmp_path / "report.json"
    code = main(["judge", str(papers), "--comments", str(comments), "--output", str(out),
                 "--report", str(report), "--no-references", "--no-cache", "--quiet", *extra])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    return code, lines, json.loads(report.read_text())


def test_one_line_per_paper_and_source_and_an_error_line_per_bad_item(tmp_path: Path) -> None:
    code, lines, _ = run(tmp_path)
    by_id = {line["id"]: line for line in lines}
    assert {"P1:human", "P1:tool", "P2:human", "P2:tool"} <= set(by_id)
    assert len(lines) == len(by_id)  # no id twice
    errors = {line["id"]: line["error"] for line in lines if line.get("input_error")}
    assert errors["P3"] == "no paper text"
    assert "malformed JSON" in errors["papers.jsonl:4"]
    assert errors["comments.jsonl:4"] == "comment for unknown paper 'P9'"
    assert "without comment" in errors["comments.jsonl:5"]
    assert code == 5  # finished, with input errors (permanent: 5, as in check)
    line = by_id["P1:human"]
    assert line["baseline"] is True and line["backend"] == "offline"
    assert [c["claim_id"] for c in line["claims"]][:1] == ["P1:claim-1"]
    assert line["claims"] == by_id["P1:tool"]["claims"]  # extracted once per paper
    assert len(line["comments"]) == 8  # summary + 3 points, × 2 reviewers
    assert all(c["comment_id"].startswith("P1:human:") for c in line["comments"])
    assert line["references"]["checked"] is False
    assert line["prompts"]["extract_claims"] == "v1"


def test_the_report_has_the_contract_shape_and_counts_what_it_skipped(tmp_path: Path) -> None:
    _, _, report = run(tmp_path)
    assert set(report) >= {"sources", "tests", "kappa", "papers", "skipped", "baseline"}
    assert list(report["sources"]) == ["human", "tool"]
    for metrics in report["sources"].values():
        assert set(metrics) == set(METRICS)
        for entry in metrics.values():
            assert set(entry) == {"mean", "ci", "n"}
    assert report["sources"]["human"]["comments_per_paper"]["mean"] == pytest.approx(6.0)  # 8 and 4
    assert report["sources"]["human"]["overlap_with_humans"]["n"] == 0
    test = report["tests"][0]
    assert {"metric", "pair", "p_raw", "p_adj", "cohen_d"} <= set(test)
    assert test["pair"] == "human vs tool"
    assert "human vs tool" in report["kappa"]
    assert report["papers"] == 2
    assert report["skipped"]["input_errors"] == 4
    assert report["baseline"] is True


def test_resume_judges_only_what_is_missing_and_keeps_every_line(tmp_path: Path) -> None:
    _, first, report_first = run(tmp_path)
    out = tmp_path / "judged.jsonl"
    text = out.read_text().splitlines(keepends=True)
    kept = [line for line in text if not json.loads(line)["id"].startswith("P2:")]
    # A killed run: P2's lines missing, and a half-written line at the end.
    out.write_text("".join(kept) + text[-1][: len(text[-1]) // 2])
    code, lines, report = run(tmp_path, "--resume")
    ids = [line["id"] for line in lines]
    assert len(ids) == len(set(ids)) == len(first)
    assert ids[: len(kept)] == [json.loads(line)["id"] for line in kept]  # kept as written
    assert {"P2:human", "P2:tool"} <= set(ids[len(kept):])
    assert report["sources"] == report_first["sources"]
    assert code == 5  # the input errors are still there


def test_retry_inconclusive_judges_the_unfinished_pairs_again_and_keeps_the_rest(
        tmp_path: Path) -> None:
    _, first, report_first = run(tmp_path)
    out = tmp_path / "judged.jsonl"
    # An earlier run whose model failed on P2's human reviews and judged P1's tool
    # comments only in part; every other line marked so that a re-judging would show.
    earlier = []
    for line in first:
        if line["id"] == "P2:human":
            line = {**line, "error": "claims not extracted", "comments": [], "calls": -1}
        elif line["id"] == "P1:tool":
            line = {**line, "unjudged": 1, "calls": -1}
        elif not line.get("input_error"):
            line = {**line, "calls": -1}
        earlier.append(json.dumps(line) + "\n")
    out.write_text("".join(earlier))
    kept = [raw for raw in earlier if json.loads(raw)["id"] not in ("P2:human", "P1:tool")
            and not json.loads(raw).get("input_error")]
    code, lines, report = run(tmp_path, "--retry-inconclusive")
    after = out.read_text().splitlines(keepends=True)
    assert after[:len(kept)] == kept  # the finished lines byte for byte, in their order
    again = {line["id"]: line for line in lines[len(kept):]}
    assert {"P2:human", "P1:tool"} <= set(again)
    assert again["P2:human"]["error"] is None and again["P2:human"]["calls"] >= 0
    assert again["P1:tool"]["unjudged"] == 0 and again["P1:tool"]["calls"] >= 0
    assert sorted(line["id"] for line in lines) == sorted(line["id"] for line in first)
    assert report["sources"] == report_first["sources"]
    assert code == 5  # the input errors are read again, and are still there


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert main(["judge", str(tmp_path / "missing.jsonl"), "--quiet"]) == 2
    papers, _ = inputs(tmp_path)
    assert main(["judge", str(papers), "--resume", "--quiet"]) == 2
    assert main(["judge", str(papers), "--retry-inconclusive", "--quiet"]) == 2
    assert main(["judge", str(papers), "--retry-inconclusive", "--force", "--output",
                 str(tmp_path / "out.jsonl"), "--quiet"]) == 2


def test_two_outputs_on_one_file_are_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    papers, _ = inputs(tmp_path)
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(papers), "--output", str(out), "--report",
                 str(tmp_path / "." / "judged.jsonl"), "--quiet"]) == 2
    assert "--report" in capsys.readouterr().err and not out.exists()
    assert main(["judge", str(papers), "--output", str(out), "--references", str(out),
                 "--quiet"]) == 2
    assert "--references" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("content", ["", "\n\n"])
def test_an_input_with_no_paper_exits_6_and_leaves_the_outputs_as_they_were(
        tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text(content)
    out = tmp_path / "judged.jsonl"
    out.write_text('{"earlier": 1}\n')
    assert main(["judge", str(papers), "--output", str(out), "--force", "--quiet"]) == 6
    assert out.read_text() == '{"earlier": 1}\n'
    assert not (tmp_path / "judged.jsonl.references.jsonl").exists()
    assert "no papers" in capsys.readouterr().err


def test_without_output_the_lines_go_to_stdout_and_the_report_is_still_built(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    papers, comments = inputs(tmp_path)
    report = tmp_path / "report.json"
    code = main(["judge", str(papers), "--comments", str(comments), "--report", str(report),
                 "--no-references", "--no-cache"])
    captured = capsys.readouterr()
    ids = {json.loads(line)["id"] for line in captured.out.splitlines()}
    assert {"P1:human", "P1:tool", "P2:human", "P2:tool", "P3"} <= ids
    assert "| Points to a claim |" in captured.err  # the table, not mixed into the lines
    assert json.loads(report.read_text())["papers"] == 2 and code == 5


def test_resume_knows_which_reference_reports_were_written(tmp_path: Path) -> None:
    """A paper checked only in part before an interruption is checked again on --resume;
    the reports already written are recognised (and so not written twice)."""
    from verifier.cli.judge import scan_reports

    path = tmp_path / "judged.jsonl.references.jsonl"
    path.write_text(json.dumps({"paper_id": "P1", "report": {"id": "r1"}}) + "\n"
                    + json.dumps({"paper_id": "P1", "report": {"id": "r2"}}) + "\n"
                    + '{"paper_id": "P2", "repo')  # a cut line: not a written report
    assert scan_reports(path) == {("P1", "r1"), ("P1", "r2")}
    assert scan_reports(tmp_path / "absent.jsonl") == set()


@pytest.mark.parametrize(("option", "value", "named"), [
    ("--base-url", "nosuch=http://127.0.0.1:1", "unknown source 'nosuch'"),
    ("--base-url", "crossref=ftp://x", "is not an http(s) URL"),
    ("--world", "127.0.0.1:8000", "is not an http(s) URL"),
])
def test_judge_takes_the_same_source_locations_as_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str,
        named: str) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text("")
    for command in ("judge", "check"):
        assert main([command, str(papers), option, value]) == 2
        assert named in capsys.readouterr().err


def test_a_world_service_url_is_taken_as_the_worlds_root() -> None:
    from verifier.cli.locations import world_url

    assert world_url("http://127.0.0.1:8000/crossref/") == "http://127.0.0.1:8000"
    assert world_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000"


@pytest.mark.parametrize(("option", "said"), [
    ("--no-references", "references not checked"),
    # Checked, but neither the record nor the text has any: no request is sent (a dead
    # world would answer none), and the line does not read as "0, all fine".
    ("--world=http://127.0.0.1:9", "references: none found (the record lists none"),
])
def test_the_progress_line_says_whether_references_were_checked_and_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, said: str) -> None:
    papers, _ = inputs(tmp_path)
    main(["judge", str(papers), "--output", str(tmp_path / "out.jsonl"), "--no-cache", option])
    progress = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("judged P1:")]
    assert len(progress) == 1 and said in progress[0]


def test_the_progress_line_counts_unreadable_references_apart() -> None:
    checked = ReferenceSummary(True, False, 44, Counter({"no_trace": 43}), Counter(), 1)
    assert references_said(checked) == "references: 44 {'no_trace': 43}, 1 unreadable"
    clean = ReferenceSummary(True, True, 2, Counter({"verified": 2}))
    assert references_said(clean) == "references: 2 {'verified': 2}"
    assert references_said(ReferenceSummary(False, False)) == "references not checked"


def test_the_closing_line_says_what_was_skipped_in_words() -> None:
    assert skipped_said({"input_errors": 0, "sources_not_judged": 0}) == "skipped nothing"
    assert skipped_said({"input_errors": 2, "sources_not_judged": 1, "comments_unjudged": 0,
                         "lines_unreadable": 3}) == (
        "skipped: 2 input errors, 1 source not judged, 3 lines unreadable")
