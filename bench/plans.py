"""Source plans replayed over Walters & Wilder: every source's answer asked once, then
each plan's choices replayed over those answers, side by side.

    verifier bench plans [--data DIR] [--answers FILE] [--json FILE]

1. **The answers.** Each of the 636 W&W citations is put to every source, as a lookup
   and as a search, and a chapter's book to the book-check sources, through the engine's
   own ``SourceAsker.ask`` against the offline world (its limits lifted: this only gathers
   answers). ``--answers FILE`` keeps them (JSON) and reads them back on the next run.
2. **The replay.** Each plan is run over those answers by the engine's own ``PlanRun``
   (:class:`ReplayAnswers`: its sources answer from the table at once), with its tiers,
   widths and skips, and a chapter's book check; a step started before agreement counts
   its requests (the engine cancels it, but it may have been sent). Witnesses are
   counted under ``distinct``, the default rule.

Per plan: accuracy (only ``verified`` counts as real), the statuses, requests per citation
and per source, and the least wall time those requests allow at the published limits
(each source's requests over its rate; the largest). This is a **simulation** for choosing
tables: it replays no 429 retries and no timing; measured wall times come from ``verifier
bench walters-wilder``. The default plan's replay is checked against a measured run in the
README.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from bench_args import result_file, write_result
from walters_wilder import (
    DEFAULT_DATA,
    Labelled,
    engine_settings,
    open_world,
    read_citations,
    run_bench,
    world_corpus,
)

from verifier import Verifier
from verifier.citations.checker import CitationChecker, citation_of_text
from verifier.citations.models import Citation, SourceResult, SourceStatus, WorkType
from verifier.citations.plan_run import PlanRun
from verifier.citations.planner import (
    DEFAULT_TABLES,
    PlanStep,
    PlanTables,
    SourcePlan,
    StepKind,
    book_of,
    book_plan,
    plan_sources,
)
from verifier.citations.step_asker import SourceAsker, StepOutcome
from verifier.http.deadline import Deadline
from verifier.settings import SOURCE_NAMES
from verifier.sources import PolicyTable

BOOK_SOURCES = ("openlibrary", "crossref", "googlebooks")
"""Every source a book check might ask (the answers cover any order of them)."""

_ARTICLE_FALLBACK = ("semanticscholar", "pubmed", "doaj", "openalex", "crossref")
_BOOK_FALLBACK = ("semanticscholar", "openalex", "crossref", "googlebooks", "openlibrary")
PREVIOUS = PlanTables(
    # The tables before the scarce sources moved to the fallback (two tiers, every
    # DOI lookup first, Semantic Scholar searched for every article nobody confirmed).
    searches={
        WorkType.ARTICLE: ("crossref", "openalex", "semanticscholar"),
        WorkType.PROCEEDINGS: ("crossref", "openalex", "semanticscholar", "arxiv"),
        WorkType.PREPRINT: ("arxiv", "semanticscholar", "openalex", "crossref"),
        WorkType.BOOK: ("openlibrary", "openalex", "crossref", "googlebooks"),
        WorkType.CHAPTER: ("crossref", "openalex", "semanticscholar", "googlebooks"),
        WorkType.THESIS: ("openalex", "crossref", "openlibrary", "semanticscholar"),
        WorkType.REPORT: ("crossref", "openalex", "openlibrary", "googlebooks",
                          "semanticscholar"),
        WorkType.WEB: ("crossref", "openalex", "openlibrary", "googlebooks"),
        WorkType.OTHER: ("crossref", "openalex", "openlibrary", "googlebooks",
                         "semanticscholar"),
        WorkType.UNKNOWN: ("crossref", "openalex", "openlibrary", "googlebooks",
                           "semanticscholar"),
    },
    if_none={},
    fallback={
        WorkType.ARTICLE: _ARTICLE_FALLBACK,
        WorkType.UNKNOWN: _ARTICLE_FALLBACK,
        WorkType.OTHER: _ARTICLE_FALLBACK + ("googlebooks", "openlibrary"),
        WorkType.PROCEEDINGS: ("semanticscholar", "arxiv", "openalex", "crossref", "doaj"),
        WorkType.PREPRINT: ("semanticscholar", "arxiv", "openalex", "crossref"),
        WorkType.BOOK: _BOOK_FALLBACK,
        WorkType.CHAPTER: _BOOK_FALLBACK,
        WorkType.REPORT: _BOOK_FALLBACK,
        WorkType.THESIS: _BOOK_FALLBACK,
        WorkType.WEB: _BOOK_FALLBACK,
    },
    second_witness_lookups=frozenset(),
    book_check=("openlibrary", "googlebooks", "crossref"),
)

VARIANTS: Mapping[str, PlanTables] = {
    "default": DEFAULT_TABLES,
    "previous tables": PREVIOUS,
    "articles found nowhere: PubMed only, no DOAJ": PlanTables(
        if_none={**DEFAULT_TABLES.if_none, WorkType.ARTICLE: ("pubmed",)}),
    "articles found nowhere: nothing more": PlanTables(
        if_none={k: v for k, v in DEFAULT_TABLES.if_none.items()
                 if k is not WorkType.ARTICLE}),
    "book check without Google Books": PlanTables(book_check=("openlibrary", "crossref")),
}
"""The plans compared: the default, the tables it replaced, and the cheaper tables it
was chosen over (each gives up some verdict or report for fewer requests)."""

Answers = dict[str, tuple[str, int]]
"""``"source/kind"`` → (the answer's status, the requests it took)."""


@dataclass(slots=True)
class Row:
    """One labelled citation and every source's answer about it (and about its book)."""

    id: str
    type: str
    fabricated: bool
    text: str
    answers: Answers = field(default_factory=dict)
    book: Answers = field(default_factory=dict)


def _key(step: PlanStep) -> str:
    return f"{step.source}/{step.kind.value}"


async def gather(citations: Sequence[Labelled], args: argparse.Namespace) -> list[Row]:
    """Every source's lookup and search answer about every citation (and each chapter's
    book), from the offline world with its limits lifted."""
    rows = [Row(c.id, c.type, c.fabricated, c.text) for c in citations]
    scale = 50.0
    with tempfile.TemporaryDirectory(prefix="plans-") as tmp:
        corpus = world_corpus(args, Path(tmp))
        async with open_world(corpus, time_scale=scale, enforce_limits=False,
                              enforce_budgets=False) as world:
            settings = engine_settings(world.base_urls, keyless=False, time_scale=scale,
                                       cache_dir=None, independence="distinct")
            async with Verifier(settings) as verifier:
                clients = CitationChecker(verifier.session).clients
                gate = asyncio.Semaphore(32)
                done = 0

                async def ask_all(citation: Citation, steps: Sequence[PlanStep]) -> Answers:
                    asker = SourceAsker(citation, clients, verifier.stats, Deadline(120.0))
                    answers: Answers = {}
                    for step in steps:
                        outcome = await asker.ask(step)
                        answers[_key(step)] = (str(outcome.result.status),
                                               outcome.result.requests)
                    return answers

                async def one(row: Row) -> None:
                    nonlocal done
                    async with gate:
                        citation = citation_of_text(row.text)
                        row.answers = await ask_all(citation, [
                            PlanStep(source, kind) for source in clients for kind in StepKind])
                        book = book_of(citation)
                        if book is not None:
                            row.book = await ask_all(book, [
                                PlanStep(source, kind) for source in BOOK_SOURCES
                                if source in clients for kind in StepKind])
                    done += 1
                    if done % 100 == 0:
                        print(f"  answers: {done}/{len(rows)}", file=sys.stderr)

                await asyncio.gather(*(one(row) for row in rows))
    return rows


class ReplayAnswers:
    """A plan run's :class:`~verifier.citations.step_asker.StepAsker` answering from
    gathered answers, at once: the replay runs the very tiers, widths and skips
    ``verifier check`` runs. Every step it starts counts its requests in ``requests``
    (the engine cancels a step still out at agreement, but it may have been sent)."""

    def __init__(self, answers: Answers, requests: Counter[str]) -> None:
        self._answers = answers
        self._requests = requests

    def ask_now(self, step: PlanStep) -> StepOutcome:
        status, sent = self._answers.get(_key(step), ("not_applicable", 0))
        self._requests[step.source] += sent
        return StepOutcome(SourceResult(SourceStatus(status), requests=sent))

    async def ask(self, step: PlanStep) -> StepOutcome:
        return self.ask_now(step)


async def replay(plan: SourcePlan, answers: Answers, needed: int,
                 requests: Counter[str]) -> int:
    """The witnesses ``plan`` reaches over ``answers``, run by the engine's
    :class:`PlanRun` asking :class:`ReplayAnswers`."""
    run = PlanRun(ReplayAnswers(answers, requests), independence="distinct")
    await run.run(plan, needed=needed)
    return run.witnesses()


async def evaluate(rows: Sequence[Row], tables: PlanTables,
             citations: Mapping[str, Citation], rates: Mapping[str, float]) -> dict[str, Any]:
    """One plan over every row: accuracy, statuses, requests, the rate-limit bound."""
    requests: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    per_id: dict[str, str] = {}
    correct = 0
    for row in rows:
        citation = citations[row.id]
        witnesses = await replay(plan_sources(citation, SOURCE_NAMES, tables), row.answers,
                                 2, requests)
        book = book_of(citation)
        if book is not None and witnesses < 2:
            await replay(book_plan(book, SOURCE_NAMES, tables), row.book, 1, requests)
        status = ("verified" if witnesses >= 2 else
                  "unconfirmed" if witnesses == 1 else "no_trace")
        statuses[status] += 1
        per_id[row.id] = status
        correct += (status == "verified") != row.fabricated
    bound, by = max(((n / rates[s], s) for s, n in requests.items() if rates.get(s)),
                    default=(0.0, ""))
    total = sum(requests.values())
    return {"accuracy": round(correct / len(rows), 4), "statuses": dict(statuses),
            "requests_per_citation": round(total / len(rows), 3),
            "requests_by_source": dict(sorted(requests.items())),
            "lower_bound_s": round(bound, 1), "lower_bound_set_by": by,
            "statuses_by_id": per_id}


def published_rates() -> dict[str, float]:
    """Requests a second each source allows at the published limits, as the W&W bench
    runs them (keys and a contact address; the slowest class where a source has several)."""
    settings = engine_settings({}, keyless=False, time_scale=1.0, cache_dir=None,
                               independence="distinct")
    table = PolicyTable.for_settings(settings)
    return {name: min(c.per_second for c in policy.classes.values())
            for name, policy in table.policies.items()}


def _load(path: Path) -> list[Row]:
    data = orjson.loads(path.read_bytes())
    return [Row(r["id"], r["type"], r["fabricated"], r["text"],
                {k: (v[0], v[1]) for k, v in r["answers"].items()},
                {k: (v[0], v[1]) for k, v in r["book"].items()}) for r in data]


def _save(path: Path, rows: Sequence[Row]) -> None:
    path.write_bytes(orjson.dumps([
        {"id": r.id, "type": r.type, "fabricated": r.fabricated, "text": r.text,
         "answers": r.answers, "book": r.book} for r in rows]))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    citations = read_citations(Path(args.data) / "ww2023_citations.csv")
    answers_file = Path(args.answers) if args.answers else None
    if answers_file is not None and answers_file.is_file():
        rows = _load(answers_file)
        print(f"answers read from {answers_file}", file=sys.stderr)
    else:
        started = time.perf_counter()
        rows = await gather(citations, args)
        print(f"answers gathered in {time.perf_counter() - started:.0f}s", file=sys.stderr)
        if answers_file is not None:
            _save(answers_file, rows)
    parsed = {row.id: citation_of_text(row.text) for row in rows}
    rates = published_rates()
    results = {name: await evaluate(rows, tables, parsed, rates)
               for name, tables in VARIANTS.items()}
    default = results["default"]["statuses_by_id"]
    print("\nPlans replayed over every source's answers (a simulation: no retries, no "
          "timing)\n")
    print("| plan | accuracy | verified / unconfirmed / no_trace | requests per citation "
          "| least wall at the published limits | statuses unlike the default |")
    print("|---|---:|---|---:|---|---:|")
    for name, r in results.items():
        s = r["statuses"]
        changed = sum(r["statuses_by_id"][k] != v for k, v in default.items())
        print(f"| {name} | {r['accuracy']:.1%} | {s.get('verified', 0)} / "
              f"{s.get('unconfirmed', 0)} / {s.get('no_trace', 0)} | "
              f"{r['requests_per_citation']:.2f} | {r['lower_bound_s']:.0f} s "
              f"({r['lower_bound_set_by']}) | {changed} |")
    print()
    for name, r in results.items():
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in r["requests_by_source"].items()))
    return {"simulation": True, "citations": len(rows), "rates_per_second": rates,
            "plans": results}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench plans",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--corpus", help="a world corpus instead of the generated one")
    parser.add_argument("--answers", type=result_file,
                        help="keep the gathered answers here (JSON) and read them back when "
                             "the file exists")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    args = parser.parse_args(argv)
    result = run_bench("plans", run(args))
    if result is None:
        return 1
    if args.json:
        write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
