"""Every command that writes an output file refuses the same things before it runs
(``verifier.cli.output.check_output_file``): an existing file without ``--force`` or
``--resume``, a folder, a missing folder, the input itself. Nothing is written then, and
``--force`` overwrites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.cli import main

PAPER = ("We show that the widget significantly improves recall on every benchmark. "
         "Our results indicate that the gadget halves the inference cost across tasks.")
REVIEW = ("1. The widget recall improvement is not supported by Table 2 because the "
          "baseline is weak. Please add a stronger baseline.")


def command(tmp_path: Path, name: str) -> tuple[list[str], Path]:
    """The command line of ``name`` without its output option, and its input file."""
    if name == "check":
        source = tmp_path / "refs.txt"
        source.write_text("Smith, J. (2020). A title of a paper. Journal, 1, 2-3.\n")
        # A dead world: every source refuses at once, no network is used.
        return ["check", str(source), "--no-cache", "--world", "http://127.0.0.1:9"], source
    if name == "premises":
        source = tmp_path / "comments.jsonl"
        source.write_text(json.dumps({"paper_id": "p", "comment": REVIEW, "paper": PAPER}) + "\n")
        return ["premises", str(source)], source
    source = tmp_path / "papers.jsonl"
    source.write_text(json.dumps({"paper_id": "p", "title": "Widgets", "text": PAPER,
                                  "reviews": [{"reviewer": "R1", "text": REVIEW}]}) + "\n")
    return ["judge", str(source), "--no-references", "--no-cache"], source


COMMANDS = ["check", "premises", "judge"]


@pytest.mark.parametrize("name", COMMANDS)
def test_an_existing_output_needs_force_or_resume_and_is_left_as_it_was(
        tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv, _ = command(tmp_path, name)
    out = tmp_path / "out.jsonl"
    out.write_text('{"kept": true}\n')
    assert main([*argv, "-q", "-o", str(out)]) == 2
    assert "exists: add --resume to continue it, or --force" in capsys.readouterr().err
    assert out.read_text() == '{"kept": true}\n'
    assert main([*argv, "-q", "-o", str(out), "--force"]) != 2
    assert '"kept"' not in out.read_text() and out.read_text().endswith("\n")


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize(("where", "said"), [
    ("folder", "is a directory"),
    ("missing/out.jsonl", "folder"),
    ("input", "is the input file"),
])
def test_an_output_that_cannot_be_the_output_is_refused_naming_it(
        tmp_path: Path, name: str, where: str, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv, source = command(tmp_path, name)
    (tmp_path / "folder").mkdir()
    out = source if where == "input" else tmp_path / where
    before = source.read_bytes()
    assert main([*argv, "-q", "-o", str(out), "--force"]) == 2
    err = capsys.readouterr().err
    assert said in err and "--output" in err
    assert source.read_bytes() == before


def test_the_judge_refuses_a_report_path_that_cannot_be_written_before_it_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, _ = command(tmp_path, "judge")
    out = tmp_path / "out.jsonl"
    assert main([*argv, "-q", "-o", str(out), "--report", str(tmp_path)]) == 2
    assert "--report" in capsys.readouterr().err
    assert not out.exists()  # refused before anything was written
