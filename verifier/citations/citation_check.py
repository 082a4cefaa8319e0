"""One parsed citation's check: its plan run (and a chapter's book run), then its report.

:class:`~verifier.citations.checker.CitationChecker` parses a citation (or takes its
fields) and hands it here with the checker's source clients, stats and options;
:func:`check_parsed` asks the planner which sources to ask and how, runs the plan until the
agreement rule holds (or everything is asked), looks for a chapter's book when the chapter
itself is not confirmed, and builds the report, every error and reason in it redacted.
Every source failure is a value in the report; only bugs propagate.

Compiled (``native-modules.txt``): a warm run checks each citation through here, and the
plan run, the source asker and the report it calls are compiled too. The checker, which
holds the session and the parser's warm-up, stays plain Python.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from verifier.options import ResolvedOptions, Strategy

from .models import (
    BookCheck,
    BookStatus,
    Citation,
    CitationInput,
    Report,
    SourceResult,
    SourceStatus,
)
from .plan_run import PlanRun
from .planner import PlanStep, SourcePlan, StepKind, book_of, book_plan, plan_sources
from .results_report import report_from_results
from .step_asker import SourceAsker
from .verdict import AGREEMENT

if TYPE_CHECKING:
    from verifier.http.deadline import Deadline
    from verifier.http.stats import RunStats

    from .source_client import SourceClient

DEADLINE_GRACE_S: Final = 1.0
"""Time past the deadline before unfinished sources are cut off (they fail by themselves
at the deadline; this only bounds a stuck one)."""


async def check_parsed(
    item: CitationInput,
    citation: Citation,
    clients: Mapping[str, SourceClient],
    stats: RunStats,
    unavailable: Mapping[str, SourceResult],
    options: ResolvedOptions,
    deadline: Deadline,
    started: float,
) -> Report:
    """The report on ``citation`` (``item`` parsed): the sources in ``options.sources``
    among ``clients`` asked as the options' strategy says, within ``deadline``;
    ``unavailable`` holds the sources the session could not open (reported skipped, with
    their reasons); ``started`` is when the check began (``time.perf_counter()``), for
    the report's ``elapsed_s``."""
    asked = {n: c for n, c in clients.items() if n in options.sources}

    def waiting() -> AbstractAsyncContextManager[None]:
        return deadline.scope(DEADLINE_GRACE_S)

    main = PlanRun(SourceAsker(citation, asked, stats, deadline),
                   independence=options.independence, waiting=waiting)
    book: tuple[Citation, PlanRun] | None = None  # a chapter's book, and its run
    try:
        if options.strategy is Strategy.ALL_AT_ONCE:
            steps = tuple(PlanStep(s, kind) for s in asked for kind in StepKind)
            await main.run(SourcePlan(steps, ()), needed=1, width=len(steps))
        else:
            await main.run(plan_sources(citation, list(asked)), needed=AGREEMENT)
            book_citation = book_of(citation)
            if book_citation is not None and main.witnesses() < AGREEMENT:
                book_run = PlanRun(SourceAsker(book_citation, asked, stats, deadline),
                                   independence=options.independence, waiting=waiting)
                book = (book_citation, book_run)
                await book_run.run(book_plan(book_citation, list(asked)), needed=1)
    except TimeoutError:
        pass  # sources still out are reported timed_out
    results: dict[str, SourceResult] = {
        n: r for n, r in unavailable.items() if n in options.sources
    }
    results.update(main.results())
    redact = stats.redact
    # Redaction leaves every status as it was: the book check is made from redacted
    # results at once.
    book_check = None if book is None else \
        book_check_of(book[0], redacted(book[1].results(), redact))
    return report_from_results(
        item, citation, redacted(results, redact), main.flags,
        independence=options.independence, elapsed=time.perf_counter() - started,
        book=book_check)


def redacted(results: Mapping[str, SourceResult], redact: Callable[[str], str]
             ) -> dict[str, SourceResult]:
    """``results`` with no credential in an error or reason (``redact`` takes them out):
    the last line of defence before a report is written (errors are redacted where they
    are made, too)."""
    out: dict[str, SourceResult] = {}
    for name, result in results.items():
        error = result.error and redact(result.error)
        reason = result.reason and redact(result.reason)
        # A result redaction leaves as it is is kept, not copied (it is immutable).
        out[name] = result if error == result.error and reason == result.reason \
            else replace(result, error=error, reason=reason)
    return out


def book_check_of(book: Citation, results: Mapping[str, SourceResult]) -> BookCheck:
    """What a chapter's book run found (``results``, by source): the book found by a
    source, not found by any that answered, or inconclusive (a source failed, or none
    answered)."""
    found = tuple(s for s, r in results.items() if r.status is SourceStatus.MATCH)
    if found:
        status = BookStatus.FOUND
    elif any(r.status.failed for r in results.values()) or not any(
        r.status.answered for r in results.values()
    ):
        status = BookStatus.INCONCLUSIVE
    else:
        status = BookStatus.NOT_FOUND
    return BookCheck(status, book.title, found, dict(results))
