"""The input fuzzing bench (``bench/fuzz_inputs.py``) at a small count: every reader and
the parser get generated inputs, nothing crashes, no contract is breached, and the
checks do catch a reader that breaks the contract.

The bench is a script (``bench/`` is not a package), so it is loaded from its path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from verifier.citations.inputs import csl

BENCH = Path(__file__).resolve().parents[1] / "bench" / "fuzz_inputs.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_fuzz_inputs", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_fuzz_inputs"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bench = _load()


def test_a_small_fuzzing_run_reads_every_format_without_a_crash_or_a_breach() -> None:
    report: dict[str, Any] = bench.fuzz(800, seed_value=1)
    assert report["total_inputs"] == 800
    assert set(report["readers"]) == {"text", "bibtex", "ris", "csl-json", "jsonl", "csv",
                                      "tsv", "parse_citation"}
    for name, tally in report["readers"].items():
        assert tally["inputs"] > 0, name
        assert (tally["crashes"], tally["violations"]) == (0, 0), (name, tally["examples"])
        if name != "parse_citation":
            # Near-valid inputs: both outcomes occur for every reader.
            assert tally["citations"] > 0 and tally["input_errors"] > 0, name


def test_a_reader_that_coerces_wrong_types_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csl, "wrong_field", lambda item: None)  # the old, silent reader
    report = bench.fuzz(400, seed_value=2)
    assert report["readers"]["csl-json"]["violations"] > 0
    assert report["readers"]["jsonl"]["violations"] > 0
    example = report["readers"]["csl-json"]["examples"][0]
    assert example["kind"] == "violation" and "expected an input error" in example["detail"]


def test_a_reader_that_raises_is_counted_as_a_crash_with_its_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def explode(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(bench, "read_citations", explode)
    report = bench.fuzz(100, seed_value=3)
    text = report["readers"]["text"]
    assert text["crashes"] == text["inputs"] > 0
    assert "RuntimeError: boom" in text["examples"][0]["detail"]
    assert int(text["examples"][0]["seed"]) >= 0
