"""`verifier bench compare`: the run order, the pairing and ratios, and refusing trees it
cannot run (the throughput runs themselves are the throughput bench's, tested there)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from compare import (
    BENCHES,
    CompareError,
    check_tree,
    compare,
    main,
    run_order,
    subprocess_runner,
    tree_of,
)

ROOT = Path(__file__).resolve().parents[1]


def _result(distinct: float, repeated: float, statuses: dict[str, int] | None = None
            ) -> dict[str, Any]:
    counts = statuses or {"verified": 3, "no_trace": 1}
    return {"distinct": {"per_cpu_s": distinct, "status_counts": counts},
            "repeated": {"per_cpu_s": repeated, "status_counts": counts},
            "rss_mb": {"peak": 150.0}}


def test_the_order_turns_round_every_pair_so_drift_favours_neither_tree() -> None:
    assert run_order(3) == ["base", "head", "head", "base", "base", "head"]
    assert run_order(1) == ["base", "head"]


def test_each_pair_is_the_nth_base_run_with_the_nth_head_run() -> None:
    figures = {"base": iter([100.0, 200.0]), "head": iter([150.0, 100.0])}
    calls: list[str] = []

    def runner(name: str, tree: Path) -> dict[str, Any]:
        calls.append(name)
        value = next(figures[name])
        return _result(value, 2 * value)

    result = compare(runner, {"base": Path("b"), "head": Path("h")}, pairs=2)
    assert calls == ["base", "head", "head", "base"]
    # The second pair ran head (100) before base (200): still paired base with base.
    assert [row["distinct"]["ratio"] for row in result["pairs"]] == [1.5, 0.5]
    assert [row["repeated"]["ratio"] for row in result["pairs"]] == [1.5, 0.5]
    assert result["summary"]["distinct"]["ratio_min"] == 0.5
    assert result["summary"]["distinct"]["ratio_max"] == 1.5
    assert result["summary"]["distinct"]["same_statuses"] is True


def test_the_rerun_is_compared_on_its_median_wall_time() -> None:
    medians = {"base": 1.2, "head": 0.9}

    def runner(name: str, tree: Path) -> dict[str, Any]:
        return {"median_s": medians[name], "status_counts": {"verified": 345}}

    result = compare(runner, {"base": Path("b"), "head": Path("h")}, pairs=1,
                     compared=BENCHES["rerun"])
    assert result["pairs"][0]["rerun"] == {"base": 1.2, "head": 0.9, "ratio": 0.75,
                                           "same_statuses": True}
    assert "lower is faster" in result["summary"]["rerun"]["measures"]


def test_different_statuses_are_reported_not_averaged_away() -> None:
    def runner(name: str, tree: Path) -> dict[str, Any]:
        return _result(100.0, 100.0, {"verified": 4} if name == "head" else None)

    result = compare(runner, {"base": Path("b"), "head": Path("h")}, pairs=1)
    assert result["summary"]["distinct"]["same_statuses"] is False
    assert result["pairs"][0]["distinct"]["same_statuses"] is False


def test_a_base_that_is_neither_a_folder_nor_a_revision_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="neither a directory nor a git revision"):
        tree_of("no-such-revision-1234", ROOT, tmp_path)


def test_a_folder_without_a_source_tree_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="no verifier source tree"):
        check_tree(tmp_path)


def test_the_command_refuses_bad_input_before_running_anything(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--base", str(tmp_path)]) == 2
    assert "no verifier source tree" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["--base", str(ROOT), "--pairs", "0"])
    assert exited.value.code == 2


def test_an_interpreter_that_cannot_run_is_named(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="cannot be run as an interpreter"):
        check_tree(ROOT, python=str(tmp_path / "no-python"))


def test_a_tree_runs_on_the_interpreter_given_for_it(tmp_path: Path) -> None:
    # A stand-in interpreter that notes how it was called and writes a result file.
    called = tmp_path / "called"
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\n"
                      f'echo "$@" > {called}\n'
                      'while [ "$1" != "--json" ]; do shift; done\n'
                      "echo '{\"distinct\": {\"per_cpu_s\": 7}}' > \"$2\"\n")
    python.chmod(0o755)
    run = subprocess_runner("throughput", ["--distinct", "5"], tmp_path, BENCHES["throughput"],
                            {"base": str(python)})
    assert run("base", ROOT) == {"distinct": {"per_cpu_s": 7}}
    assert called.read_text().startswith("-m verifier bench throughput --distinct 5 --json ")


def test_another_interpreter_is_refused_for_a_bench_timed_from_here(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--base", str(ROOT), "--bench", "rerun", "--base-python", sys.executable])
    assert exited.value.code == 2
    assert "apply to the throughput bench, not to rerun" in capsys.readouterr().err
