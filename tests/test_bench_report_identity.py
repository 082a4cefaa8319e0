"""bench/report_identity.py: every report from a warm cache, in input order, byte-stable."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from report_identity import main
from walters_wilder import DEFAULT_DATA, read_citations

pytestmark = pytest.mark.blocking_allowed("the bench reads its data and writes its file")


def test_reports_are_written_in_input_order_without_timings_and_repeat_exactly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not (DEFAULT_DATA / "ww2023_citations.csv").is_file():
        pytest.skip(f"W&W data not available: {DEFAULT_DATA}")
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        assert main(["--out", str(out), "--distinct", "3", "--ww", "4"]) == 0
    lines = [orjson.loads(line) for line in first.read_bytes().splitlines()]
    assert [line["index"] for line in lines] == list(range(7))
    ww = read_citations(DEFAULT_DATA / "ww2023_citations.csv")[:4]
    assert [line["input"] for line in lines[3:]] == [c.text for c in ww]
    assert [line["id"] for line in lines[3:]] == [c.id for c in ww]
    assert all(line["elapsed_s"] == 0 for line in lines)
    assert all(line["status"] in ("verified", "unconfirmed", "no_trace") for line in lines)
    assert first.read_bytes() == second.read_bytes()
    assert "7 reports into" in capsys.readouterr().out
