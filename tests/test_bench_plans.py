"""``verifier bench plans`` replays a plan over gathered answers through the engine's plan run:
the replay must ask what the engine's ``PlanRun`` asks and reach the same witnesses."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from pathlib import Path

import pytest
from plans import VARIANTS, Answers, replay
from scripted_run import ScriptedAnswers

from verifier.citations.models import (
    Author,
    Citation,
    Identifiers,
    SourceResult,
    SourceStatus,
    WorkType,
)
from verifier.citations.plan_run import PlanRun
from verifier.citations.planner import PlanStep, SourcePlan, plan_sources
from verifier.citations.step_asker import StepOutcome
from verifier.settings import SOURCE_NAMES

SMITH = (Author(family="Smith", given="J."),)
CITATIONS = (
    Citation(title="Soil carbon", authors=SMITH, type=WorkType.ARTICLE, container="Geoderma"),
    Citation(title="Soil carbon", authors=SMITH, type=WorkType.ARTICLE,
             identifiers=Identifiers(doi="10.1/x")),
    Citation(title="The science of justice", authors=SMITH, type=WorkType.BOOK),
    Citation(title="Origins", authors=SMITH, type=WorkType.CHAPTER, container="Handbook"),
)


def answers_where(holders: set[str]) -> Answers:
    return {f"{source}/{kind}": ("match" if source in holders else "no_match", 1)
            for source in SOURCE_NAMES for kind in ("lookup", "search")}


async def engine_asks(plan: SourcePlan, answers: Answers,
                      cached: bool = False) -> tuple[set[str], int]:
    """The steps the engine's plan run starts, and its witnesses, over ``answers``: each
    answer awaited (``cached`` False), or each had at once as from the cache."""
    asked: set[str] = set()

    def answer_now(step: PlanStep) -> StepOutcome:
        key = f"{step.source}/{step.kind.value}"
        asked.add(key)
        status = SourceStatus(answers[key][0])
        return StepOutcome(SourceResult(status, requests=1))

    async def answer(step: PlanStep) -> StepOutcome:
        await asyncio.sleep(0)
        return answer_now(step)

    run = PlanRun(ScriptedAnswers(answer, answer_now if cached else (lambda step: None)),
                  independence="distinct")
    await run.run(plan, needed=2)
    return asked, run.witnesses()


@pytest.mark.asyncio
@pytest.mark.parametrize("tables", list(VARIANTS))
@pytest.mark.parametrize("cached", [False, True], ids=["awaited", "from the cache"])
async def test_the_replay_asks_what_the_engine_asks_and_agrees_on_the_witnesses(
    tables: str, cached: bool,
) -> None:
    sources = ("crossref", "openalex", "pubmed", "semanticscholar", "openlibrary",
               "googlebooks", "doaj")
    holder_sets = [set(), *({s} for s in sources),
                   *(set(pair) for pair in itertools.combinations(sources, 2))]
    for citation in CITATIONS:
        plan = plan_sources(citation, SOURCE_NAMES, VARIANTS[tables])
        for holders in holder_sets:
            answers = answers_where(holders)
            requests: Counter[str] = Counter()
            witnesses = await replay(plan, answers, 2, requests)
            asked, engine_witnesses = await engine_asks(plan, answers, cached)
            assert witnesses == engine_witnesses, (citation.type, holders)
            # Every step the engine started is counted by the replay, and no other.
            assert sum(requests.values()) == len(asked), (citation.type, holders)


@pytest.mark.parametrize("option", ["--answers", "--json"])
@pytest.mark.parametrize(("where", "said"), [("missing/out.json", "its folder does not exist"),
                                             (".", "is a folder, not a file")])
def test_an_output_that_cannot_be_written_is_refused_before_any_work(
        tmp_path: Path, option: str, where: str, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    from plans import main

    with pytest.raises(SystemExit) as stopped:
        main([option, str(tmp_path / where)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: " in err and said in err
