"""The benchmark's scoring and lower bound (bench/scoring.py)."""

from __future__ import annotations

import pytest
from scoring import (
    Outcome,
    lower_bound_s,
    markdown_table,
    status_changes,
    status_counts,
    table,
)

OUTCOMES = [
    Outcome("a1", "article", fabricated=True, status="no_trace"),  # caught
    Outcome("a2", "article", fabricated=True, status="verified"),  # missed
    Outcome("a3", "article", fabricated=False, status="verified"),  # recognised
    Outcome("a4", "article", fabricated=False, status="unconfirmed"),  # not recognised
    Outcome("b1", "book", fabricated=False, status="inconclusive"),  # not recognised
    Outcome("b2", "book", fabricated=True, status="unconfirmed"),  # caught (strict)
]


def test_only_verified_counts_as_real() -> None:
    rows = table(OUTCOMES)
    assert rows["article"] == {"citations": 4, "fabricated": 2, "fabricated_caught": 0.5,
                               "real_recognized": 0.5, "accuracy": 0.5}
    assert rows["book"]["fabricated_caught"] == 1.0
    assert rows["book"]["real_recognized"] == 0.0
    assert rows["all"]["citations"] == 6
    assert rows["all"]["accuracy"] == pytest.approx(3 / 6)
    assert rows["chapter"]["citations"] == 0 and rows["chapter"]["accuracy"] == 0.0


def test_the_alternative_scoring_accepts_unconfirmed() -> None:
    rows = table(OUTCOMES, accept_unconfirmed=True)
    assert rows["article"]["real_recognized"] == 1.0
    assert rows["book"]["fabricated_caught"] == 0.0  # b2 now counts as called real
    assert rows["all"]["accuracy"] == pytest.approx(3 / 6)


def test_status_counts_and_changes() -> None:
    assert status_counts(OUTCOMES) == {"verified": 2, "unconfirmed": 2, "no_trace": 1,
                                       "inconclusive": 1}
    before = {"x": "verified", "y": "no_trace", "z": "verified"}
    after = {"x": "verified", "y": "inconclusive", "z": "unconfirmed"}
    assert status_changes(before, after) == {"no_trace->inconclusive": 1,
                                             "verified->unconfirmed": 1}


def test_the_lower_bound_is_the_slowest_source_class() -> None:
    requests = {("crossref", "list"): 300, ("crossref", "single"): 100, ("arxiv", "all"): 20}
    rates = {("crossref", "list"): 3.0, ("crossref", "single"): 10.0, ("arxiv", "all"): 1 / 3}
    assert lower_bound_s(requests, rates) == (100.0, "crossref/list")


def test_markdown_table_has_every_type_row() -> None:
    text = markdown_table(table(OUTCOMES), table(OUTCOMES, accept_unconfirmed=True))
    assert text.count("\n") == 6
    assert "| Articles | 4 | 2 | 50.0% | 50.0% | 50.0% | 75.0% |" in text


def test_the_ceiling_counts_fabricated_as_catchable_and_real_only_when_two_sources_hold_it(
) -> None:
    from scoring import ceiling, with_ceiling
    labelled = [("a", "article", False), ("b", "article", False), ("c", "article", True),
                ("d", "book", False)]
    caps = ceiling(labelled, {"a": 2, "b": 1, "d": 3})
    assert caps["article"] == 2 / 3
    assert caps["book"] == 1.0
    assert caps["all"] == 3 / 4
    rows = with_ceiling({"all": {"accuracy": 0.6}}, {"all": 0.75})
    assert rows["all"]["ceiling"] == 0.75
    assert abs(float(rows["all"]["accuracy_over_ceiling"]) - 0.8) < 1e-9
