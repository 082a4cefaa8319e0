"""The plan run keeps its witness count and recounts only when an answer arrives."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pure_modules import pure
from scripted_run import NOT_ASKED

from verifier.citations import plan_run, verdict
from verifier.citations.models import (
    MatchScores,
    SourceResult,
    SourceStatus,
    WorkRecord,
)


def test_witnesses_are_recounted_only_after_an_answer_and_stay_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts = 0
    original = verdict.independent_groups

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal counts
        counts += 1
        return original(*args, **kwargs)  # type: ignore[arg-type]

    plan_run = pure("verifier.citations.plan_run")  # its own call, watched
    monkeypatch.setattr(plan_run, "independent_groups", counted)
    run = plan_run.PlanRun(NOT_ASKED, independence="lineage")
    assert run.witnesses() == 0
    run._add("crossref", SourceResult(SourceStatus.MATCH))
    assert [run.witnesses() for _ in range(3)] == [1, 1, 1]
    run._add("openalex", SourceResult(SourceStatus.NO_MATCH))
    assert run.witnesses() == 1
    run._add("openalex", SourceResult(SourceStatus.MATCH))  # its second step matched
    assert [run.witnesses() for _ in range(3)] == [2, 2, 2]
    assert counts == 4  # once at the start and once after each of the three answers


def test_under_distinct_the_count_is_the_matching_sources_without_grouping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_called(*args: object, **kwargs: object) -> object:
        raise AssertionError("distinct needs no groups")

    plan_run = pure("verifier.citations.plan_run")  # its own call, watched
    monkeypatch.setattr(plan_run, "independent_groups", not_called)
    run = plan_run.PlanRun(NOT_ASKED, independence="distinct")
    answers = [("crossref", SourceStatus.MATCH), ("openalex", SourceStatus.NO_MATCH),
               ("openalex", SourceStatus.MATCH), ("pubmed", SourceStatus.ERROR),
               ("crossref", SourceStatus.NO_MATCH)]
    counts = []
    for source, status in answers:
        run._add(source, SourceResult(status))
        counts.append(run.witnesses())
    assert counts == [1, 1, 2, 2, 2]  # a later miss never undoes a source's match
    monkeypatch.undo()
    assert run.witnesses() == len(verdict.independent_groups(run.results(), "distinct"))


_RESULTS = st.builds(
    SourceResult,
    status=st.sampled_from(list(SourceStatus)),
    record=st.none() | st.builds(WorkRecord, source=st.just("crossref"), source_id=st.just("1"),
                                 url=st.just("u"), title=st.text(max_size=5)),
    scores=st.none() | st.builds(MatchScores, title=st.floats(0, 1), authors=st.just(1.0),
                                 year_delta=st.none(), title_match=st.booleans(),
                                 authors_match=st.booleans()),
    requests=st.integers(0, 3),
    cached=st.booleans(),
    error=st.none() | st.just("e"),
    reason=st.none() | st.just("r"),
)


@given(_RESULTS)
def test_one_answer_is_the_result_the_full_rules_give(outcome: SourceResult) -> None:
    state = plan_run._SourceState()
    state.add(outcome)
    assert state.result() == state.combine_all()
