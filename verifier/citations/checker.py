"""The engine: checks citations against the enabled sources and reports a verdict on each.

A :class:`Verifier` is opened inside the caller's running event loop and owns, for its
lifetime, the loop-bound objects of a run: one HTTP transport, the disk cache and one
:class:`~verifier.source_client.SourceClient` (with its pacing gate) per source. Task
groups live inside calls, never in the object.

For one citation, :meth:`Verifier.verify` parses the text, asks the planner which
sources to ask and how, runs identifier lookups together, then searches as many at a
time as matches are still needed, and stops as soon as the agreement rule holds. Every
source failure becomes a value in the report; only bugs propagate.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Iterable,
    Mapping,
    Sequence,
)
from types import TracebackType
from typing import Any

from adapters.base import Identity, SourceAdapter
from verifier.errors import ConfigError
from verifier.http.cache import ResponseCache
from verifier.http.gate import SourceGate
from verifier.http.policy import PolicyTable, SourcePolicy
from verifier.http.stats import RunStats
from verifier.http.transport import AiohttpTransport, Transport
from verifier.settings import Settings

from .corrections import correction_from_results
from .discrepancies import discrepancies
from .models import (
    INPUT_ERROR_FLAG,
    BookCheck,
    BookStatus,
    Citation,
    CitationInput,
    Report,
    Retraction,
    SourceResult,
    SourceStatus,
    Status,
)
from .normalize import normalize_title
from .parsing import parse_citation
from .plan_run import PlanRun
from .planner import book_of, book_plan, plan_sources
from .source_client import CachePolicy, SourceClient
from .verdict import (
    AGREEMENT,
    corrected_record,
    decide,
    retraction_status,
)

CitationLike = str | CitationInput

_DEADLINE_GRACE_S = 1.0
"""Time past the deadline before unfinished sources are cut off (they fail by themselves
at the deadline; this only bounds a stuck one)."""


def derive_id(text: str) -> str:
    """A stable id for a citation given without one."""
    return "c-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class Verifier:
    """Checks citations against the enabled sources. Open it inside the running loop::

        async with Verifier(settings) as verifier:
            report = await verifier.verify("Smith, J. (2019). Title. Journal, 3(2), 1-9.")
            async for report in verifier.verify_many(citations, concurrency=32):
                ...

    ``transport``, ``policies`` (per-source overrides of the published limits) and
    ``adapters`` may be given to replace the defaults. ``stats`` holds live counters.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        transport: Transport | None = None,
        policies: Mapping[str, SourcePolicy] | None = None,
        adapters: Sequence[SourceAdapter] | None = None,
    ) -> None:
        self.settings = settings
        self.stats = RunStats()
        self.policies = PolicyTable.for_settings(settings, policies)
        self._given_transport = transport
        self._transport: Transport | None = None
        self._adapters = {a.name: a for a in adapters} if adapters else {}
        self._cache: ResponseCache | None = None
        self._clients: dict[str, SourceClient] = {}
        self._unavailable: dict[str, SourceResult] = {}
        self._open = False

    # -- lifetime --------------------------------------------------------------------------

    async def __aenter__(self) -> Verifier:
        if self._open:
            raise RuntimeError("Verifier is already open")
        adapters = {name: self._adapter(name) for name in self.settings.sources}
        transport = self._given_transport or AiohttpTransport(self.settings.user_agent)
        await transport.__aenter__()
        self._transport = transport
        try:
            if self.settings.cache_dir is not None:
                self._cache = ResponseCache(self.settings.cache_dir)
            cache_policy = CachePolicy(
                read=self.settings.cache_read,
                positive_ttl_s=self.settings.positive_ttl_s,
                negative_ttl_s=self.settings.negative_ttl_s,
            )
            for name, adapter in adapters.items():
                policy = self.policies[name]
                if not policy.enabled:
                    self._unavailable[name] = SourceResult(
                        SourceStatus.SKIPPED, reason=policy.disabled_reason
                    )
                    self.stats.notice(f"{name}: skipped: {policy.disabled_reason}")
                    continue
                self._clients[name] = SourceClient(
                    adapter,
                    base_url=self.settings.base_urls[name],
                    identity=Identity(mailto=self.settings.mailto, api_key=self.settings.key(name)),
                    gate=SourceGate(name, policy, self.stats.source(name)),
                    transport=transport,
                    cache=self._cache,
                    cache_policy=cache_policy,
                )
        except BaseException:
            await self._close()
            raise
        self._open = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._close()

    async def _close(self) -> None:
        self._open = False
        self._clients.clear()
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        if self._transport is not None:
            transport, self._transport = self._transport, None
            await asyncio.shield(transport.aclose())

    def _adapter(self, name: str) -> SourceAdapter:
        # Imported here: the adapters import the verifier package, which imports this.
        from adapters import adapter_for

        if name in self._adapters:
            return self._adapters[name]
        try:
            return adapter_for(name)
        except ValueError as exc:
            raise ConfigError(f"source {name!r} has no adapter in this version") from exc

    # -- public API --------------------------------------------------------------------------

    async def verify(self, citation: CitationLike, *, index: int = 0) -> Report:
        """The verdict on one citation (free text, or a :class:`CitationInput`)."""
        if not self._open:
            raise RuntimeError("use 'async with Verifier(settings) as verifier:' first")
        item = citation if isinstance(citation, CitationInput) else CitationInput(
            id=derive_id(citation), index=index, text=citation
        )
        self.stats.started += 1
        try:
            return await self._check(item)
        finally:
            self.stats.finished += 1

    async def verify_many(
        self,
        citations: Iterable[CitationLike] | AsyncIterable[CitationLike],
        *,
        concurrency: int = 16,
    ) -> AsyncIterator[Report]:
        """Reports as each citation is decided (not in input order; ``Report.index`` is
        the input position). At most ``concurrency`` citations are in progress, and the
        input is read only as fast as they finish, so memory stays bounded for any input
        size. Closing or cancelling the iteration cancels the work in progress and leaves
        no task behind."""
        if not 1 <= concurrency <= 10_000:
            raise ValueError(f"concurrency must be between 1 and 10000, got {concurrency}")
        items = _aiter_items(citations)
        running: set[asyncio.Task[Report]] = set()
        # The next input item is awaited alongside the running checks, so a slow input
        # (a pipe) never holds back reports that are ready.
        fetching: asyncio.Task[tuple[int, CitationLike]] | None = None
        exhausted = False
        try:
            while True:
                if fetching is None and not exhausted and len(running) < concurrency:
                    fetching = asyncio.ensure_future(anext(items))
                waiting: set[asyncio.Future[Any]] = set(running)
                if fetching is not None:
                    waiting.add(fetching)
                if not waiting:
                    return
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if fetching is not None and fetching in done:
                    try:
                        index, item = fetching.result()
                    except StopAsyncIteration:
                        exhausted = True
                    else:
                        running.add(asyncio.create_task(self.verify(item, index=index)))
                    fetching = None
                for task in [t for t in running if t in done]:
                    running.discard(task)
                    yield task.result()
        finally:
            leftovers: list[asyncio.Future[Any]] = [*running]
            if fetching is not None:
                leftovers.append(fetching)
            for future in leftovers:
                future.cancel()
            if leftovers:
                await asyncio.gather(*leftovers, return_exceptions=True)
            await items.aclose()

    # -- one citation ------------------------------------------------------------------------

    async def _check(self, item: CitationInput) -> Report:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        deadline = loop.time() + self.settings.deadline_s
        citation = item.fields if item.fields is not None else parse_citation(item.text)
        if not normalize_title(citation.title) and citation.identifiers.is_empty():
            return self._unreadable(item, citation, time.perf_counter() - started)
        main = self._plan_run(citation, deadline)
        book: PlanRun | None = None
        try:
            async with asyncio.timeout_at(deadline + _DEADLINE_GRACE_S):
                await main.run(plan_sources(citation, list(self._clients)), needed=AGREEMENT)
                book_citation = book_of(citation)
                if book_citation is not None and main.witnesses() < AGREEMENT:
                    book = self._plan_run(book_citation, deadline)
                    await book.run(book_plan(book_citation, list(self._clients)), needed=1)
        except TimeoutError:
            pass  # sources still out are reported timed_out
        return self._report(item, citation, main, book, time.perf_counter() - started)

    def _plan_run(self, citation: Citation, deadline: float) -> PlanRun:
        return PlanRun(citation, self._clients, self.stats, deadline=deadline,
                       independence=self.settings.independence)

    @staticmethod
    def _unreadable(item: CitationInput, citation: Citation, elapsed: float) -> Report:
        """A citation with neither a title nor an identifier cannot be looked for: a
        per-item error, never a "no trace"."""
        return Report(
            id=item.id,
            index=item.index,
            input=item.text,
            citation=citation,
            status=Status.INCONCLUSIVE,
            retraction=Retraction.UNKNOWN,
            flags=(INPUT_ERROR_FLAG,),
            discrepancies=(),
            corrected=None,
            agreeing_sources=(),
            sources={},
            elapsed_s=round(elapsed, 4),
            error="no title or identifier found in the citation: nothing to look up",
        )

    def _report(
        self,
        item: CitationInput,
        citation: Citation,
        main: PlanRun,
        book: PlanRun | None,
        elapsed: float,
    ) -> Report:
        results: dict[str, SourceResult] = dict(self._unavailable)
        results.update(main.results())
        return report_from_results(
            item, citation, results, main.flags, independence=self.settings.independence,
            elapsed=elapsed, book=_book_check(book) if book is not None else None)


RETRACTED_FLAG = "retracted"
"""Flag of a report whose work a matching source says is retracted (``retraction`` is
``retracted``): the work is real, and must not be cited as sound."""

NO_AUTHORS_FLAG = "no_authors_cited"
"""Flag of a matched citation that names no author: it was matched on its title and
the other fields it gives (:func:`verifier.citations.matching.score_record`)."""


def report_from_results(
    item: CitationInput,
    citation: Citation,
    results: Mapping[str, SourceResult],
    flags: Iterable[str] = (),
    *,
    independence: str = "distinct",
    elapsed: float = 0.0,
    book: BookCheck | None = None,
) -> Report:
    """The report on ``item`` (parsed as ``citation``) from the sources' answers
    ``results`` and the flags the search raised: the verdict, retraction, discrepancies
    and correction. Adds the flags :data:`RETRACTED_FLAG` and :data:`NO_AUTHORS_FLAG`;
    the correction keeps the input's citation key (``item.key``) and notes a retraction."""
    verdict = decide(results, independence)
    found = set(flags)
    agreeing = verdict.agreeing
    if verdict.status in (Status.VERIFIED, Status.UNCONFIRMED):
        found.discard("title_by_other_authors")
        if not citation.authors and not citation.et_al:
            found.add(NO_AUTHORS_FLAG)
    retraction = retraction_status(results, agreeing) if agreeing else Retraction.UNKNOWN
    if retraction is Retraction.RETRACTED:
        found.add(RETRACTED_FLAG)
    return Report(
        id=item.id,
        index=item.index,
        input=item.text,
        citation=citation,
        status=verdict.status,
        retraction=retraction,
        flags=tuple(sorted(found)),
        discrepancies=discrepancies(citation, results, agreeing),
        corrected=corrected_record(results, agreeing),
        agreeing_sources=agreeing,
        sources=dict(results),
        elapsed_s=round(elapsed, 4),
        correction=correction_from_results(
            citation, results, agreeing, key=item.key,
            retracted=retraction is Retraction.RETRACTED),
        book=book,
    )


def _book_check(run: PlanRun) -> BookCheck:
    results = run.results()
    found = tuple(s for s, r in results.items() if r.status is SourceStatus.MATCH)
    if found:
        status = BookStatus.FOUND
    elif any(r.status.failed for r in results.values()) or not any(
        r.status.answered for r in results.values()
    ):
        status = BookStatus.INCONCLUSIVE
    else:
        status = BookStatus.NOT_FOUND
    return BookCheck(status, run.citation.title, found, results)


async def _aiter_items(
    citations: Iterable[CitationLike] | AsyncIterable[CitationLike],
) -> AsyncGenerator[tuple[int, CitationLike], None]:
    """Number the items of a sync or async iterable, reading lazily."""
    index = 0
    if isinstance(citations, AsyncIterable):
        async for item in citations:
            yield (item.index if isinstance(item, CitationInput) else index), item
            index += 1
    else:
        for item in citations:
            yield (item.index if isinstance(item, CitationInput) else index), item
            index += 1

