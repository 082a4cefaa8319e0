"""bench/parse_speed.py: the parser timed alone, by the path each reference takes."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from parse_speed import main, path_of

APA = "Smith, J. (2019). A title of a paper. Journal of Things, 12(3), 45-67."
MLA = 'Jones, Mary. "Another Title." Review of Stuff, vol. 3, 2001, pp. 1-9.'
INCOMPLETE = "Smith, J. (2019)."


def test_each_reference_is_counted_on_the_path_the_default_parser_takes() -> None:
    assert path_of(APA) == "rules"
    assert path_of(MLA) == "crf"
    assert path_of(INCOMPLETE) == "crf"  # author-date, but the rules find no title


def test_every_round_prints_the_time_overall_and_per_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "ww"
    data.mkdir()
    with (data / "ww2023_citations.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "citation_text", "pub_type", "fabricated"])
        writer.writerows([f"w{n}", text, "J", "0"] for n, text in enumerate([APA, MLA, APA]))
    assert main(["--data", str(data), "--distinct", "0", "--rounds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2 references: 1 rules, 1 crf"  # the repeated APA text counts once
    assert [line.split(":")[0] for line in out[1:]] == ["round 0", "round 1"]
    assert all(" all " in line and " rules " in line and " crf " in line for line in out[1:])


@pytest.mark.parametrize("args", [["--rounds", "0"], ["--distinct", "-1"]])
def test_nothing_to_time_is_refused_before_any_work(args: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
