"""``verifier premises``: the output contract, per-item errors, resume, the eLife shape."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from verifier.cli.main import main
from verifier.settings import KEY_ENV_VARS

KEYS = {"paper_id", "comment_id", "comment", "score", "flagged_premise", "premises",
        "fallback", "backend", "usage", "elapsed_s", "error", "status", "baseline"}
PREMISE_KEYS = {"text", "kind", "p_grounded", "route", "p_true", "phrasings"}
PAPER = ("# Drug X\n\n## Abstract\n\nDrug X lowered blood pressure by 12 mmHg in forty "
         "patients over twelve weeks. Headache was the only adverse event.\n")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("VERIFIER_") or name in KEY_ENV_VARS.values():
            monkeypatch.delenv(name)
    monkeypatch.setenv("VERIFIER_CACHE_DIR", str(tmp_path / "cache"))


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_bytes(b"".join(row if isinstance(row, bytes) else orjson.dumps(row) + b"\n"
                              for row in rows))
    return path


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "p1.md").write_text(PAPER)
    (folder / "broken.txt").write_bytes(b"\xff\xfe not utf-8")
    return folder


def test_each_comment_gets_one_line_with_the_contract_and_errors_name_their_item(
        tmp_path: Path, papers: Path) -> None:
    reviews = write_jsonl(tmp_path / "reviews.jsonl", [
        {"paper_id": "p1", "comment_id": "a", "comment":
            "Drug X lowered blood pressure by 12 mmHg. The trial had forty patients."},
        {"paper_id": "p1", "comment_id": "empty", "comment": ""},
        {"paper_id": "p1", "comment_id": "blank", "comment": " \n\t"},
        {"paper_id": "p1", "comment_id": "long", "comment": "word " * 1200},
        {"paper_id": "ghost", "comment_id": "b", "comment": "The sample is small."},
        {"paper_id": "broken", "comment_id": "c", "comment": "The sample is small."},
        {"paper_id": "inline", "comment_id": "d", "comment": "Accuracy was 91 percent.",
         "paper": "We report an accuracy of 91 percent on the test set."},
        b"{this is not json\n",
    ])
    out = tmp_path / "out.jsonl"
    code = main(["premises", str(reviews), "--papers", str(papers), "--output", str(out), "-q"])
    assert code == 5  # input errors were reported; the run still finished
    written = read_lines(out)
    lines = {line["comment_id"]: line for line in written}
    assert len(written) == len(lines) == 8  # one line per input line, none lost
    for line in lines.values():
        assert KEYS <= set(line)
        for premise in line["premises"]:
            assert PREMISE_KEYS <= set(premise)
    scored = lines["a"]
    assert scored["status"] == "scored" and scored["backend"] == "offline"
    assert scored["baseline"] is True and scored["error"] is None
    verified = [p["p_true"] for p in scored["premises"] if p["verified"]]
    assert len(verified) == 2 and scored["score"] == min(verified)
    assert scored["flagged_premise"] in [p["text"] for p in scored["premises"]]
    assert scored["usage"]["requests"] == 2 and scored["usage"]["prompt_tokens"] > 0
    assert lines["d"]["status"] == "scored"
    errors = {cid: line["error"] for cid, line in lines.items() if line["status"] == "input_error"}
    assert errors["empty"] == "reviews.jsonl:2: the comment is empty"
    assert errors["blank"] == "reviews.jsonl:3: the comment is only whitespace"
    assert "reviews.jsonl:4:" in errors["long"] and "5,000" in errors["long"]
    assert errors["b"].startswith("reviews.jsonl:5: unknown paper id 'ghost'")
    assert errors["c"].startswith("reviews.jsonl:6: paper ") and "cannot be read" in errors["c"]
    assert errors["reviews.jsonl:8"].startswith("reviews.jsonl:8: malformed JSON")
    assert all(lines[cid]["score"] is None for cid in errors)


def test_a_repeated_comment_id_is_an_error_and_the_first_is_kept(
        tmp_path: Path, papers: Path) -> None:
    reviews = write_jsonl(tmp_path / "reviews.jsonl", [
        {"paper_id": "p1", "comment_id": "a", "comment": "Drug X lowered blood pressure."},
        {"paper_id": "p1", "comment_id": "a", "comment": "Headache was the only event."},
    ])
    out = tmp_path / "out.jsonl"
    assert main(["premises", str(reviews), "--papers", str(papers), "-o", str(out), "-q"]) == 5
    first, second = sorted(read_lines(out), key=lambda line: line["status"])
    assert first["status"] == "input_error" and first["error"] == "p1/a: repeated comment id"
    assert second["status"] == "scored"
    assert second["comment"] == "Drug X lowered blood pressure."


def test_resume_appends_only_the_comments_not_yet_written(tmp_path: Path, papers: Path) -> None:
    rows = [{"paper_id": "p1", "comment_id": f"c{i}",
             "comment": f"Drug X lowered blood pressure in {i + 30} patients."} for i in range(4)]
    reviews = write_jsonl(tmp_path / "reviews.jsonl", rows[:2])
    out = tmp_path / "out.jsonl"
    assert main(["premises", str(reviews), "--papers", str(papers), "-o", str(out), "-q"]) == 0
    before = out.read_bytes()
    # A killed run leaves a cut-short last line; resume repairs it and appends the rest.
    out.write_bytes(before + b'{"paper_id": "p1", "comment_id": "c2", "sco')
    write_jsonl(reviews, rows)
    assert main(["premises", str(reviews), "--papers", str(papers), "-o", str(out),
                 "--resume", "-q"]) == 0
    after = out.read_bytes()
    assert after.startswith(before)
    ids = [line["comment_id"] for line in read_lines(out)]
    assert sorted(ids) == ["c0", "c1", "c2", "c3"]  # each once: c0, c1 were not redone


def test_retry_inconclusive_checks_those_again_and_keeps_every_other_line(
        tmp_path: Path, papers: Path) -> None:
    rows = [{"paper_id": "p1", "comment_id": f"c{i}",
             "comment": f"Drug X lowered blood pressure in {i + 30} patients."} for i in range(4)]
    reviews = write_jsonl(tmp_path / "reviews.jsonl", rows)
    out = tmp_path / "out.jsonl"
    assert main(["premises", str(reviews), "--papers", str(papers), "-o", str(out), "-q"]) == 0
    # Lines are written as comments finish, so they are found by comment id.
    fresh = {line["comment_id"]: line for line in read_lines(out)}
    # An earlier run whose model could not answer c0 and which could not read c2; the
    # other lines marked so that a re-check would show.
    failed = {"c0": "inconclusive", "c2": "input_error"}
    earlier = [{**line, "elapsed_s": -1.0} for line in fresh.values()]
    earlier = [{**line, "status": failed[line["comment_id"]], "score": None}
               if line["comment_id"] in failed else line for line in earlier]
    write_jsonl(out, earlier)
    kept = [raw for raw, line in zip(out.read_bytes().splitlines(keepends=True), earlier,
                                     strict=True) if line["comment_id"] not in failed]
    assert main(["premises", str(reviews), "--papers", str(papers), "-o", str(out),
                 "--retry-inconclusive", "-q"]) == 0
    after = out.read_bytes().splitlines(keepends=True)
    assert after[:2] == kept  # the other lines byte for byte, in their order
    again = {line["comment_id"]: line for line in read_lines(out)[2:]}
    assert sorted(again) == ["c0", "c2"]
    assert all(line["status"] == "scored" and line["elapsed_s"] >= 0 for line in again.values())
    assert [again[c]["score"] for c in ("c0", "c2")] == [fresh["c0"]["score"],
                                                           fresh["c2"]["score"]]


@pytest.mark.parametrize(("options", "said"), [(["--force"], "--force"), ([], "--output")])
def test_retry_inconclusive_refuses_what_it_cannot_do(
        tmp_path: Path, options: list[str], said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    reviews = write_jsonl(tmp_path / "reviews.jsonl", [
        {"paper_id": "p", "comment": "x y z w", "paper": "x y z w"}])
    out = ["-o", str(tmp_path / "out.jsonl")] if options else []
    assert main(["premises", str(reviews), "--retry-inconclusive", *out, *options]) == 2
    err = capsys.readouterr().err
    assert "--retry-inconclusive" in err and said in err


def test_elife_records_are_split_into_comments_by_the_review_splitter(tmp_path: Path) -> None:
    record = {
        "paper_id": "elife-1", "title": "Drug X",
        "manuscript_markdown": PAPER,
        "reviews_raw_markdown": (
            "# Peer review - Round 1\n\nReviewers:\n- Anonymous\n\n## Review text\n\n"
            "Essential revisions:\n\n1) The trial had forty patients, which is small.\n\n"
            "2) Headache is not the only adverse event reported.\n"),
    }
    source = write_jsonl(tmp_path / "elife.jsonl", [record])
    out = tmp_path / "out.jsonl"
    assert main(["premises", str(source), "-o", str(out), "-q"]) == 0
    lines = read_lines(out)
    assert len(lines) == 2 and {line["paper_id"] for line in lines} == {"elife-1"}
    assert all(line["status"] == "scored" for line in lines)
    assert any("forty patients" in line["comment"] for line in lines)


@pytest.mark.parametrize("options", [
    ["--phrasings", "99"], ["--phrasings", "0"], ["--concurrency", "0"], ["--resume"],
    ["--papers", "/nonexistent/folder"], ["--paper-tokens", "0"], ["--paper-tokens", "-5"]])
def test_usage_errors_exit_2_before_anything_runs(
        tmp_path: Path, options: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    reviews = write_jsonl(tmp_path / "reviews.jsonl", [
        {"paper_id": "p", "comment": "x y z w", "paper": "x y z w"}])
    assert main(["premises", str(reviews), *options]) == 2
    err = capsys.readouterr().err
    assert "error" in err and options[0] in err  # the option at fault is named


@pytest.mark.parametrize("content", [b"", b"\n\n"])
def test_an_input_with_no_comment_exits_6_and_leaves_the_output_as_it_was(
        tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    reviews = tmp_path / "reviews.jsonl"
    reviews.write_bytes(content)
    out = write_jsonl(tmp_path / "out.jsonl", [{"earlier": 1}])
    assert main(["premises", str(reviews), "-o", str(out), "--force", "-q"]) == 6
    assert read_lines(out) == [{"earlier": 1}]
    assert "no comments" in capsys.readouterr().err


def test_the_ablation_options_reach_the_output(tmp_path: Path, papers: Path) -> None:
    reviews = write_jsonl(tmp_path / "reviews.jsonl", [
        {"paper_id": "p1", "comment_id": "a", "comment": "Drug X lowered blood pressure."}])
    out = tmp_path / "out.jsonl"
    assert main(["premises", str(reviews), "--papers", str(papers), "-o", str(out), "-q",
                 "--no-route", "--aggregate", "mean", "--phrasings", "3",
                 "--field", "machine_learning"]) == 0
    (line,) = read_lines(out)
    assert (line["routing"], line["aggregate"], line["phrasings"], line["field"]) == (
        False, "mean", 3, "machine_learning")
    assert line["prompts"]["decompose"] == "decompose-ml-v1"
    assert all(p["p_grounded"] is None and len(p["phrasings"]) == 3 for p in line["premises"])
    holistic = tmp_path / "holistic.jsonl"
    assert main(["premises", str(reviews), "--papers", str(papers), "-o", str(holistic), "-q",
                 "--holistic"]) == 0
    (line,) = read_lines(holistic)
    assert line["fallback"] is True and line["premises"] == [] and line["score"] is not None


def test_every_command_reads_exit_codes_from_one_table() -> None:
    """An input error is permanent (5) and wins over a temporary failure (3) in premises
    and judge as in check."""
    from verifier.cli import exit_codes

    assert exit_codes.finished(input_errors=True, incomplete=True) == 5
    assert exit_codes.finished(input_errors=False, incomplete=True) == 3
    assert exit_codes.finished(input_errors=False, incomplete=False) == 0
