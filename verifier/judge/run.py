"""One loop, two workloads: each paper's judging and its reference check, side by side.

:class:`JudgeRun` takes a :class:`~.pipeline.Judge` (its chat model) and, optionally, a
:class:`~verifier.citations.checker.CitationChecker` on the same session (the same
event loop, the same paced clients and cache). For each paper
(:meth:`JudgeRun.run_paper`) it starts two tasks at once:

- the judge's model calls (:meth:`~.pipeline.Judge.judge_paper`);
- the paper's references through the citation engine (``check_many`` with at most
  ``references_per_paper`` in flight), each report handed to ``on_reference`` as it is
  decided;

and neither waits for the other: the paper is done when both are. :meth:`JudgeRun.run`
reads a (lazy) stream of papers and yields each :class:`PaperResult` as it finishes; each
workload has its own ``papers_in_flight`` slots (papers being judged; papers whose
references are being checked), so a slow reference check never holds a judging slot,
and at most ``admission × papers_in_flight`` papers are admitted at once (memory stays
bounded however far one workload runs ahead). Without a checker (or with
``check_references=False``) the reference side is skipped and says so.

The reference summary (:func:`summarize_references`) counts statuses and flags; a
reference the engine could not read is an input error, counted apart.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from verifier.concurrency import map_bounded

from .inputs import PaperInput, references_of
from .pipeline import Judge, PaperOutcome

if TYPE_CHECKING:
    from verifier.citations.checker import CitationChecker
    from verifier.citations.models import Report

ReferenceSink = Callable[[str, "Report"], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RunOptions:
    papers_in_flight: int = 4
    """Papers being judged at once, and (separately) papers whose references are being
    checked at once."""
    references_per_paper: int = 8
    check_references: bool = True
    admission: int = 4
    """Papers admitted at once = ``admission × papers_in_flight``: how far one workload
    may run ahead of the other before the run stops reading papers (bounds memory)."""

    def __post_init__(self) -> None:
        if min(self.papers_in_flight, self.references_per_paper, self.admission) < 1:
            raise ValueError("papers_in_flight, references_per_paper and admission must be "
                             "at least 1")


@dataclass(slots=True)
class ReferenceSummary:
    checked: bool
    """False when the reference side was skipped (no checker, or switched off)."""
    given: bool
    """True when the record listed the references; False when parsed from the text."""
    total: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    flags: Counter[str] = field(default_factory=Counter)
    input_errors: int = 0
    wall_s: float = 0.0
    """Loop seconds from the paper's admission to its last reference decided."""

    def as_json(self) -> dict[str, Any]:
        return {"checked": self.checked, "given": self.given, "total": self.total,
                "statuses": dict(sorted(self.statuses.items())),
                "flags": dict(sorted(self.flags.items())),
                "input_errors": self.input_errors, "wall_s": round(self.wall_s, 3)}


@dataclass(slots=True)
class PaperResult:
    paper: PaperInput
    outcome: PaperOutcome | None
    """None when the paper's judging was skipped (every source already done)."""
    references: ReferenceSummary
    judge_wall_s: float = 0.0
    """Loop seconds from the paper's admission to the end of its judging."""
    started_at: float = 0.0
    """Loop time the paper was admitted; its judging ended at ``started_at +
    judge_wall_s``, its references at ``started_at + references.wall_s``."""


class _NoLimit:
    """A semaphore that never waits (a paper run on its own)."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


def summarize_references(reports: Iterable[Report], *, given: bool,
                         unreadable: int = 0) -> ReferenceSummary:
    summary = ReferenceSummary(True, given, input_errors=unreadable)
    for report in reports:
        summary.total += 1
        if "input_error" in report.flags:
            summary.input_errors += 1
            continue
        summary.statuses[str(report.status)] += 1
        summary.flags.update(f for f in report.flags)
    summary.total += unreadable
    return summary


class JudgeRun:
    """Judging and reference checks of many papers on one loop (module docstring)."""

    def __init__(self, judge: Judge, checker: CitationChecker | None = None,
                 options: RunOptions | None = None) -> None:
        self.judge = judge
        self.checker = checker
        self.options = options or RunOptions()

    async def run_paper(self, paper: PaperInput, on_reference: ReferenceSink | None = None,
                        *, judge_sources: Iterable[str] | None = None,
                        check_references: bool = True,
                        slots: tuple[Any, Any] | None = None,
                        ) -> PaperResult:
        """Both workloads of one paper, concurrently. ``judge_sources`` limits the
        sources judged (None: all; empty: the judging is skipped); ``slots`` are the
        run's (judging, references) semaphores, each workload waiting only for its own."""
        judge_slot, refs_slot = slots if slots is not None else (_NoLimit(), _NoLimit())
        wanted = set(paper.sources) if judge_sources is None else set(judge_sources)
        sources = {s: c for s, c in paper.sources.items() if s in wanted}
        loop = asyncio.get_running_loop()
        started = loop.time()
        judge_wall = 0.0

        async def judged() -> PaperOutcome | None:
            nonlocal judge_wall
            if not sources:
                return None
            try:
                async with judge_slot:
                    return await self.judge.judge_paper(paper.paper_id, paper.text, sources)
            finally:
                judge_wall = loop.time() - started

        async def checked() -> ReferenceSummary:
            async with refs_slot:
                summary = await self._references(paper, on_reference, check_references)
            if summary.checked:
                summary.wall_s = loop.time() - started
            return summary

        outcome, references = await asyncio.gather(judged(), checked())
        return PaperResult(paper, outcome, references, judge_wall, started)

    async def _references(self, paper: PaperInput, on_reference: ReferenceSink | None,
                          wanted: bool) -> ReferenceSummary:
        if self.checker is None or not self.options.check_references or not wanted:
            return ReferenceSummary(False, paper.references_given)
        items, unreadable = references_of(paper)
        reports: list[Report] = []
        if items:
            async with aclosing(self.checker.check_many(
                    items, concurrency=self.options.references_per_paper)) as decided:
                async for report in decided:
                    reports.append(report)
                    if on_reference is not None:
                        await on_reference(paper.paper_id, report)
        return summarize_references(reports, given=paper.references_given,
                                    unreadable=len(unreadable))

    async def run(self, papers: Iterable[PaperInput] | AsyncIterable[PaperInput],
                  on_reference: ReferenceSink | None = None,
                  plan: Callable[[PaperInput], tuple[Iterable[str] | None, bool]] | None = None,
                  ) -> AsyncGenerator[PaperResult, None]:
        """Every paper, at most ``papers_in_flight`` at once, yielded as finished.
        ``plan(paper)`` says which sources to judge and whether to check references
        (``--resume`` skips what is done); default: everything."""

        slots = (asyncio.Semaphore(self.options.papers_in_flight),
                 asyncio.Semaphore(self.options.papers_in_flight))

        async def one(paper: PaperInput) -> PaperResult:
            sources, refs = plan(paper) if plan is not None else (None, True)
            return await self.run_paper(paper, on_reference, judge_sources=sources,
                                        check_references=refs, slots=slots)

        window = self.options.papers_in_flight * self.options.admission
        async with aclosing(map_bounded(papers, one, concurrency=window)) as results:
            async for result in results:
                yield result
