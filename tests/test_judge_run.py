"""One loop, two workloads: a paper's judging and its reference check overlap."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterable
from types import SimpleNamespace
from typing import Any

import pytest
from test_judge_pipeline import COMMENTS, PAPER, FakeChat, all_good
from virtual_clock import run_virtual

from verifier.citations.models import CitationInput
from verifier.judge.inputs import PaperInput
from verifier.judge.pipeline import Judge
from verifier.judge.run import JudgeRun, RunOptions


class SlowChecker:
    """Each reference takes ``seconds``; at most ``concurrency`` at once."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.checked: list[str] = []

    async def check_many(self, items: Iterable[CitationInput], options: Any = None, *,
                         concurrency: int = 16) -> AsyncGenerator[Any, None]:
        pending = list(items)
        while pending:
            wave, pending = pending[:concurrency], pending[concurrency:]
            await asyncio.sleep(self.seconds)
            for item in wave:
                self.checked.append(item.id)
                yield SimpleNamespace(status="verified" if item.index % 2 else "no_trace",
                                      flags=("doi_mismatch",) if item.index == 0 else ())


def paper(paper_id: str = "p1", refs: int = 4) -> PaperInput:
    item = PaperInput(paper_id, "", PAPER, tuple(f"Ref {i}, A. (2001). T{i}." for i in
                                                 range(refs)), True)
    item.sources["human"] = list(COMMENTS)
    return item


def test_the_judge_and_the_references_run_at_once_total_is_the_longer_not_the_sum() -> None:
    # Judge: claims ‖ (parse ‖ type), then map: 2 × 1 s. References: 2 waves × 1.5 s.
    async def main() -> tuple[float, Any]:
        loop = asyncio.get_running_loop()
        run = JudgeRun(Judge(FakeChat(all_good(), delay=1.0)), SlowChecker(1.5),  # type: ignore[arg-type]
                       RunOptions(references_per_paper=2))
        start = loop.time()
        result = await run.run_paper(paper())
        return loop.time() - start, result

    elapsed, result = run_virtual(main())
    assert 1.99 < result.judge_wall_s < 2.1  # the judge never waited for the references
    assert result.references.wall_s < 3.1
    assert 2.99 < elapsed < 3.1  # max(2, 3), not 2 + 3
    assert result.references.total == 4
    assert result.references.statuses == {"no_trace": 2, "verified": 2}
    assert result.references.flags == {"doi_mismatch": 1}
    assert result.outcome is not None and result.outcome.sources["human"].judgement()


def test_papers_in_flight_bound_the_run_and_every_reference_is_reported() -> None:
    seen: list[tuple[str, str]] = []

    async def main() -> tuple[float, list[str]]:
        loop = asyncio.get_running_loop()
        run = JudgeRun(Judge(FakeChat(all_good(), delay=1.0)), SlowChecker(0.5),  # type: ignore[arg-type]
                       RunOptions(papers_in_flight=2, references_per_paper=8))

        async def sink(paper_id: str, report: Any) -> None:
            seen.append((paper_id, report.status))

        start = loop.time()
        done = [r.paper.paper_id async for r in run.run([paper(f"p{i}") for i in range(4)],
                                                         sink)]
        return loop.time() - start, done

    elapsed, done = run_virtual(main())
    assert sorted(done) == ["p0", "p1", "p2", "p3"]
    assert 3.99 < elapsed < 4.1  # 4 papers of 2 s, two at a time
    assert len(seen) == 16


def test_without_a_checker_the_reference_side_says_it_was_skipped() -> None:
    async def main() -> Any:
        return await JudgeRun(Judge(FakeChat(all_good()))).run_paper(paper())

    result = run_virtual(main())
    assert result.references.checked is False and result.references.total == 0


def test_a_slow_reference_check_never_holds_a_judging_slot() -> None:
    # One paper at a time per workload: judging takes 2 s a paper, references 5 s.
    async def main() -> list[Any]:
        run = JudgeRun(Judge(FakeChat(all_good(), delay=1.0)), SlowChecker(5.0),  # type: ignore[arg-type]
                       RunOptions(papers_in_flight=1, references_per_paper=8))
        return [r async for r in run.run([paper("p0"), paper("p1"), paper("p2")])]

    results = run_virtual(main())
    judged_at = sorted(r.started_at + r.judge_wall_s for r in results)
    checked_at = sorted(r.started_at + r.references.wall_s for r in results)
    assert judged_at == pytest.approx([2.0, 4.0, 6.0], abs=0.05)  # back to back
    assert checked_at == pytest.approx([5.0, 10.0, 15.0], abs=0.05)
