"""`verifier bench instructions`: reading callgrind's totals, the ratio and the statuses
check, and refusing clearly what it cannot run (the counted runs need valgrind and
minutes: run by hand, never in the suite)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from compare import CompareError
from instructions import (
    SPREAD_OVER,
    collect_as_a_verifier_process,
    counted_citations,
    instructions_of,
    main,
    ratio_summary,
)


def test_the_total_is_read_from_callgrinds_summary_or_totals_line(tmp_path: Path) -> None:
    out = tmp_path / "callgrind.out"
    out.write_text("# callgrind format\nversion: 1\nevents: Ir\nfn=main\n16 3\n"
                   "summary: 6372390234\ntotals: 6372390234\n")
    assert instructions_of(out) == 6_372_390_234
    out.write_text("events: Ir\ntotals: 42\n")
    assert instructions_of(out) == 42


def test_a_file_without_a_total_is_refused_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "not-callgrind.out"
    out.write_text("events: Ir\nfn=main\n16 3\n")
    with pytest.raises(CompareError, match="not-callgrind.out"):
        instructions_of(out)


def test_the_ratio_is_head_over_base_and_differing_statuses_are_said() -> None:
    base = {"per_citation": 2_289_000, "status_counts": {"verified": 808, "no_trace": 192}}
    head = {"per_citation": 2_094_000, "status_counts": {"verified": 808, "no_trace": 192}}
    assert ratio_summary(base, head) == {"ratio": 0.915, "same_statuses": True}
    changed = {**head, "status_counts": {"verified": 807, "no_trace": 193}}
    assert ratio_summary(base, changed)["same_statuses"] is False


def test_without_valgrind_it_says_so_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("instructions.shutil.which", lambda name: None)
    assert main(["--base", "HEAD"]) == 1
    assert "valgrind is not installed" in capsys.readouterr().err


def test_a_base_that_is_neither_a_folder_nor_a_revision_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("instructions.shutil.which", lambda name: "/usr/bin/valgrind")
    assert main(["--base", "no-such-revision-xyz"]) == 1
    assert "'no-such-revision-xyz'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--citations", "0", "--base", "HEAD"], []])
def test_bad_arguments_are_refused_before_anything_runs(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2


def _workload(corpus: Path, count: int) -> list[str]:
    """A stand-in for throughput's distinct workload: its strings in a fixed order."""
    return [f"s{n}" for n in range(min(count, SPREAD_OVER))]


def test_the_counted_strings_are_the_first_ones_or_spread_over_the_workload() -> None:
    assert counted_citations(_workload, Path("w"), 3, spread=False) == ["s0", "s1", "s2"]
    spread = counted_citations(_workload, Path("w"), 4, spread=True)
    assert spread == ["s0", "s5000", "s10000", "s15000"]
    every = counted_citations(_workload, Path("w"), SPREAD_OVER, spread=True)
    assert every == _workload(Path("w"), SPREAD_OVER)


def test_spreading_more_strings_than_the_workload_holds_is_refused() -> None:
    with pytest.raises(SystemExit, match="more than the 20,000"):
        counted_citations(_workload, Path("w"), SPREAD_OVER + 1, spread=True)


def test_the_counted_process_collects_at_the_verifier_process_thresholds() -> None:
    from verifier.__main__ import PROCESS_GC_THRESHOLD

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        collect_as_a_verifier_process()
        assert gc.get_threshold() == PROCESS_GC_THRESHOLD
    finally:
        gc.set_threshold(*before)
