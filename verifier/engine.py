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
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from enum import Enum
from types import TracebackType
from typing import Any

from adapters import adapter_for
from adapters.base import Identity, SourceAdapter

from .cache import ResponseCache
from .errors import ConfigError, SourceError
from .matching import best_candidate, is_title_by_other_authors
from .models import (
    INPUT_ERROR_FLAG,
    Citation,
    CitationInput,
    Report,
    Retraction,
    SourceResult,
    SourceStatus,
    Status,
)
from .normalize import normalize_title
from .pacing import SourceGate
from .parse import parse_citation
from .planner import SourcePlan, plan_sources
from .policy import PolicyTable, SourcePolicy
from .settings import Settings
from .source_client import CachePolicy, SourceClient
from .stats import RunStats
from .transport import AiohttpTransport, Transport
from .verdict import (
    AGREEMENT,
    corrected_record,
    decide,
    discrepancies,
    retraction_status,
)

CitationLike = str | CitationInput

_DEADLINE_GRACE_S = 1.0
"""Time past the deadline before unfinished sources are cut off (they fail by themselves
at the deadline; this only bounds a stuck one)."""


class StepKind(Enum):
    LOOKUP = "lookup"
    SEARCH = "search"


@dataclass(frozen=True, slots=True)
class _StepOutcome:
    result: SourceResult
    flags: frozenset[str] = frozenset()


@dataclass(slots=True)
class _SourceState:
    """What one source has said about one citation so far (one or two steps)."""

    outcomes: list[SourceResult] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)

    def result(self) -> SourceResult | None:
        if not self.outcomes:
            return None
        requests = sum(o.requests for o in self.outcomes)
        queried = [o for o in self.outcomes if o.status is not SourceStatus.NOT_APPLICABLE]
        cached = bool(queried) and all(o.cached for o in queried)
        match = next((o for o in self.outcomes if o.status is SourceStatus.MATCH), None)
        failed = next((o for o in self.outcomes if o.status.failed), None)
        answered = [o for o in self.outcomes if o.status is SourceStatus.NO_MATCH]
        evidence = max(
            (o for o in self.outcomes if o.record is not None and o.scores is not None),
            key=lambda o: (o.scores.title if o.scores else 0.0),
            default=None,
        )
        if match is not None:
            chosen = match
        elif failed is not None:
            chosen = SourceResult(
                failed.status,
                evidence.record if evidence else None,
                evidence.scores if evidence else None,
                error=failed.error,
            )
        elif answered:
            chosen = evidence or answered[0]
        else:
            chosen = self.outcomes[0]
        return SourceResult(
            status=chosen.status,
            record=chosen.record,
            scores=chosen.scores,
            requests=requests,
            cached=cached,
            error=chosen.error,
            reason=chosen.reason,
        )


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
        plan = plan_sources(citation, list(self._clients))
        states: dict[str, _SourceState] = {name: _SourceState() for name in self._clients}
        for name in plan.not_applicable:
            states[name].outcomes.append(
                SourceResult(SourceStatus.NOT_APPLICABLE, reason="nothing to look up or search")
            )
        try:
            async with asyncio.timeout_at(deadline + _DEADLINE_GRACE_S):
                await self._run_plan(citation, plan, states, deadline)
        except TimeoutError:
            pass  # sources still out are reported timed_out below
        return self._report(item, citation, states, time.perf_counter() - started)

    async def _run_plan(
        self,
        citation: Citation,
        plan: SourcePlan,
        states: dict[str, _SourceState],
        deadline: float,
    ) -> None:
        lookups = [(s, StepKind.LOOKUP) for s in plan.lookups]
        await self._run_steps(citation, lookups, states, deadline, width=lambda: len(lookups))
        if self._agreed(states):
            return
        searches = [
            (s, StepKind.SEARCH)
            for s in plan.searches
            if not any(o.status is SourceStatus.MATCH for o in states[s].outcomes)
        ]

        def width() -> int:
            return max(1, AGREEMENT - len(self._matched(states)))

        await self._run_steps(citation, searches, states, deadline, width=width)

    async def _run_steps(
        self,
        citation: Citation,
        steps: list[tuple[str, StepKind]],
        states: dict[str, _SourceState],
        deadline: float,
        *,
        width: Callable[[], int],
    ) -> None:
        """Run ``steps`` in order, ``width()`` at a time, until agreement is reached."""
        queue = list(steps)
        running: dict[asyncio.Task[_StepOutcome], str] = {}
        try:
            while queue or running:
                while queue and len(running) < width():
                    source, kind = queue.pop(0)
                    task = asyncio.create_task(self._run_step(source, kind, citation, deadline))
                    running[task] = source
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    source = running.pop(task)
                    outcome = task.result()
                    states[source].outcomes.append(outcome.result)
                    states[source].flags.update(outcome.flags)
                if self._agreed(states):
                    return
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)

    async def _run_step(
        self, source: str, kind: StepKind, citation: Citation, deadline: float
    ) -> _StepOutcome:
        client = self._clients[source]
        adapter = client.adapter
        if kind is StepKind.LOOKUP:
            request = adapter.lookup_request(citation, client.identity)
        else:
            request = adapter.search_request(citation, client.identity)
        if request is None:
            return _StepOutcome(
                SourceResult(SourceStatus.NOT_APPLICABLE, reason=f"no {kind.value} possible")
            )
        loop = asyncio.get_running_loop()
        budget = min(deadline, loop.time() + client.gate.policy.source_budget_s)
        try:
            answer = await client.query(request, budget)
        except SourceError as exc:
            return _StepOutcome(SourceResult(exc.status, requests=exc.requests, error=str(exc)))
        best = best_candidate(citation, answer.records)
        if best is None:
            return _StepOutcome(
                SourceResult(SourceStatus.NO_MATCH, requests=answer.requests, cached=answer.cached)
            )
        record, scores = best
        status = SourceStatus.MATCH if scores.is_match else SourceStatus.NO_MATCH
        flags: set[str] = set()
        if is_title_by_other_authors(scores, citation, record):
            flags.add("title_by_other_authors")
        if kind is StepKind.LOOKUP and not scores.is_match:
            flags.add("doi_mismatch")
        result = SourceResult(
            status, record, scores, requests=answer.requests, cached=answer.cached
        )
        return _StepOutcome(result, frozenset(flags))

    @staticmethod
    def _matched(states: Mapping[str, _SourceState]) -> list[str]:
        return [
            s for s, st in states.items()
            if any(o.status is SourceStatus.MATCH for o in st.outcomes)
        ]

    def _agreed(self, states: Mapping[str, _SourceState]) -> bool:
        return len(self._matched(states)) >= AGREEMENT

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
        states: Mapping[str, _SourceState],
        elapsed: float,
    ) -> Report:
        results: dict[str, SourceResult] = dict(self._unavailable)
        verified_early = self._agreed(states)
        for name, state in states.items():
            result = state.result()
            if result is None:
                if verified_early:
                    result = SourceResult(
                        SourceStatus.SKIPPED, reason="not needed: agreement already reached"
                    )
                else:
                    result = SourceResult(
                        SourceStatus.TIMED_OUT, error="not checked before the citation's deadline"
                    )
            results[name] = result
        verdict = decide(results)
        flags = sorted({f for state in states.values() for f in state.flags})
        if verdict.status is Status.VERIFIED or verdict.status is Status.UNCONFIRMED:
            flags = [f for f in flags if f != "title_by_other_authors"]
        agreeing = verdict.agreeing
        return Report(
            id=item.id,
            index=item.index,
            input=item.text,
            citation=citation,
            status=verdict.status,
            retraction=retraction_status(results, agreeing) if agreeing else Retraction.UNKNOWN,
            flags=tuple(flags),
            discrepancies=discrepancies(citation, results, agreeing),
            corrected=corrected_record(results, agreeing),
            agreeing_sources=agreeing,
            sources=results,
            elapsed_s=round(elapsed, 4),
        )


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

