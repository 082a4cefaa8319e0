"""The plan's three tiers: steps, then ``if_none`` only when nothing matched, then the
fallback only when some but too few sources matched (never re-asking a source)."""

from __future__ import annotations

import asyncio

import pytest
from scripted_run import ScriptedAnswers

from verifier.citations.models import SourceResult, SourceStatus
from verifier.citations.plan_run import CUT_OFF, ONLY_TO_CONFIRM, PlanRun
from verifier.citations.planner import PlanStep, SourcePlan, StepKind
from verifier.citations.step_asker import StepOutcome
from verifier.http.deadline import Deadline


def search(*names: str) -> tuple[PlanStep, ...]:
    return tuple(PlanStep(name, StepKind.SEARCH) for name in names)


PLAN = SourcePlan(
    steps=search("crossref", "openalex"),
    not_applicable=(),
    fallback=search("semanticscholar", "pubmed", "doaj"),
    if_none=search("pubmed", "doaj"),
)


@pytest.fixture(params=[False, True], ids=["awaited", "from the cache"])
def cached(request: pytest.FixtureRequest) -> bool:
    """Whether the sources' answers are had at once (as from the cache) or awaited: the
    tiers must ask the same either way."""
    return bool(request.param)


async def run_with(holders: set[str], cached: bool = False
                   ) -> tuple[list[str], dict[str, SourceResult]]:
    """Run PLAN where ``holders`` match and every other source misses; the sources asked,
    in order, and the results."""
    asked: list[str] = []

    def answer_now(step: PlanStep) -> StepOutcome:
        asked.append(step.source)
        status = SourceStatus.MATCH if step.source in holders else SourceStatus.NO_MATCH
        return StepOutcome(SourceResult(status, requests=1))

    async def answer(step: PlanStep) -> StepOutcome:
        await asyncio.sleep(0)
        return answer_now(step)

    run = PlanRun(ScriptedAnswers(answer, answer_now if cached else (lambda step: None)),
                  independence="distinct")
    await run.run(PLAN, needed=2, width=1)
    return asked, run.results()


@pytest.mark.asyncio
async def test_found_nowhere_the_if_none_sources_are_asked_and_the_scarce_one_is_not(
        cached: bool) -> None:
    asked, results = await run_with(set(), cached)
    assert asked == ["crossref", "openalex", "pubmed", "doaj"]
    skipped = results["semanticscholar"]
    assert skipped.status is SourceStatus.SKIPPED and skipped.reason == ONLY_TO_CONFIRM


@pytest.mark.asyncio
async def test_found_once_by_the_steps_the_fallback_looks_for_a_second_witness(
        cached: bool) -> None:
    asked, results = await run_with({"crossref", "semanticscholar"}, cached)
    assert asked == ["crossref", "openalex", "semanticscholar"]  # no if_none, S2 first
    assert results["semanticscholar"].status is SourceStatus.MATCH


@pytest.mark.asyncio
async def test_found_once_by_if_none_the_fallback_does_not_ask_a_source_twice(
        cached: bool) -> None:
    asked, results = await run_with({"doaj", "semanticscholar"}, cached)
    assert asked == ["crossref", "openalex", "pubmed", "doaj", "semanticscholar"]
    assert sum(r.status is SourceStatus.MATCH for r in results.values()) == 2


@pytest.mark.asyncio
async def test_a_source_still_out_at_the_deadline_is_cut_off_and_reported_timed_out() -> None:
    """The citation's deadline scope bounds each wait for the sources: a step that never
    answers (nothing below honours the deadline) ends the run, and its source says it was
    cut off, not that it missed."""
    deadline = Deadline(0.05)

    async def never(step: PlanStep) -> StepOutcome:
        await asyncio.sleep(3600)
        raise AssertionError("not reached")

    def crossref_now(step: PlanStep) -> StepOutcome | None:
        if step.source != "crossref":
            return None
        return StepOutcome(SourceResult(SourceStatus.MATCH, requests=1))

    run = PlanRun(ScriptedAnswers(never, crossref_now),
                  independence="distinct", waiting=lambda: deadline.scope(0.0))
    with pytest.raises(TimeoutError):
        await run.run(PLAN, needed=2, width=1)
    results = run.results()
    assert results["crossref"].status is SourceStatus.MATCH
    assert results["openalex"].status is SourceStatus.TIMED_OUT
    assert results["openalex"].error == CUT_OFF
