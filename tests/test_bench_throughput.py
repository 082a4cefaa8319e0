"""`verifier bench throughput`'s choice of the pass it reports and its refusals (the timed
passes themselves run in the benchmark, minutes long, not here)."""

from __future__ import annotations

import sys

import pytest
from throughput import main, median_pass, memo_emptier


def test_the_reported_pass_is_the_median_one_by_citations_per_cpu_second() -> None:
    passes = [{"per_cpu_s": 900.0, "n": 1}, {"per_cpu_s": 1500.0, "n": 2},
              {"per_cpu_s": 1200.0, "n": 3}]
    assert median_pass(passes)["n"] == 3
    # An even number of passes reports the lower middle one (never flattering).
    assert median_pass([*passes, {"per_cpu_s": 1400.0, "n": 4}])["n"] == 3
    assert median_pass(passes[:1])["n"] == 1


@pytest.mark.parametrize("bad", [["--rounds", "0"], ["--distinct", "0"], ["--repeated", "-1"],
                                 ["--concurrency", "0"]])
def test_bad_sizes_are_refused_before_any_work(bad: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(bad)
    assert exited.value.code == 2


def test_the_memos_emptied_are_the_registrys_or_an_older_trees_parse_memo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The pass code also runs over trees older than the value-memo registry (``verifier
    bench instructions`` imports each tree's own ``verifier``): it must still import."""
    from verifier.citations.parsing.combined import parse_citation
    from verifier.value_memos import forget_all

    assert memo_emptier() is forget_all
    monkeypatch.setitem(sys.modules, "verifier.value_memos", None)  # as if not there
    emptier = memo_emptier()
    assert emptier == parse_citation.cache_clear
    parse_citation("Smith, J. (2001). A title. Journal, 1, 2-3.")
    emptier()
    assert parse_citation.cache_info().currsize == 0
