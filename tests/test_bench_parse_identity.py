"""bench/parse_identity.py: every parse of the texts, three parsers, byte-stable."""

from __future__ import annotations

import csv
from pathlib import Path

import orjson
from parse_identity import main

from verifier.citations.parsing import parse_citation
from verifier.citations.parsing.core import parse_citation as parse_rules
from verifier.citations.parsing.crf import parse_trained

GOLD_TEXTS = ["Smith, J. (2019). A title of a paper. Journal of Things, 12(3), 45-67.",
              'Jones, Mary. "Another Title." Review of Stuff, vol. 3, 2001, pp. 1-9.']
WW_TEXTS = ["Darvill, T., & Wainwright, G. (2009). Stonehenge: The Story So Far. "
            "English Heritage."]


def _data(tmp_path: Path) -> tuple[Path, Path]:
    gold = tmp_path / "parsing_gold"
    gold.mkdir()
    (gold / "tiny.jsonl").write_bytes(b"".join(orjson.dumps({"text": t}) + b"\n"
                                               for t in GOLD_TEXTS))
    data = tmp_path / "ww"
    data.mkdir()
    with (data / "ww2023_citations.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "citation_text", "pub_type", "fabricated"])
        writer.writerows([f"w{n}", text, "B", "0"] for n, text in enumerate(WW_TEXTS))
    return data, gold


def test_each_text_is_written_with_its_three_parses_in_order(tmp_path: Path) -> None:
    data, gold = _data(tmp_path)
    out = tmp_path / "parses.jsonl"
    assert main(["--out", str(out), "--data", str(data), "--gold", str(gold),
                 "--distinct", "0"]) == 0
    lines = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert [line[0] for line in lines] == GOLD_TEXTS + WW_TEXTS
    for text, combined, rules, trained in lines:
        assert combined == orjson.loads(orjson.dumps(parse_citation(text)))
        assert rules == orjson.loads(orjson.dumps(parse_rules(text)))
        assert trained == orjson.loads(orjson.dumps(parse_trained(text)))


def test_two_runs_write_the_same_bytes(tmp_path: Path) -> None:
    data, gold = _data(tmp_path)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        main(["--out", str(out), "--data", str(data), "--gold", str(gold), "--distinct", "0"])
    assert first.read_bytes() == second.read_bytes()
