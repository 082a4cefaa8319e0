"""The plan run keeps its witness count and recounts only when an answer arrives."""

from __future__ import annotations

import pytest

from verifier.citations import plan_run, verdict
from verifier.citations.models import Citation, SourceResult, SourceStatus
from verifier.citations.plan_run import PlanRun
from verifier.http.stats import RunStats


def test_witnesses_are_recounted_only_after_an_answer_and_stay_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts = 0
    original = verdict.independent_groups

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal counts
        counts += 1
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plan_run, "independent_groups", counted)
    run = PlanRun(Citation(title="T"), {}, RunStats(), deadline=0.0, independence="distinct")
    assert run.witnesses() == 0
    run._add("crossref", SourceResult(SourceStatus.MATCH))
    assert [run.witnesses() for _ in range(3)] == [1, 1, 1]
    run._add("openalex", SourceResult(SourceStatus.NO_MATCH))
    assert run.witnesses() == 1
    run._add("openalex", SourceResult(SourceStatus.MATCH))  # its second step matched
    assert [run.witnesses() for _ in range(3)] == [2, 2, 2]
    assert counts == 4  # once at the start and once after each of the three answers
