"""One plan run for one citation: ask sources step by step until enough of them agree.

:class:`PlanRun` executes a :class:`~verifier.planner.SourcePlan` against the engine's
source clients. Steps start in plan order, only as many at a time as independent
matches are still needed, and the run stops as soon as ``needed`` independent sources
match (steps still out are cancelled). Every source failure becomes a value: a
:class:`~verifier.models.SourceResult` whose status says the source could not answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from verifier.concurrency import run_until
from verifier.errors import SourceError
from verifier.http.deadline import Deadline
from verifier.http.stats import RunStats
from verifier.http.transport import HttpRequest

from .matching import best_candidate, is_title_by_other_authors
from .models import Citation, SourceResult, SourceStatus
from .planner import PlanStep, SourcePlan, StepKind
from .source_client import PendingQuery, QueryResult, SourceClient
from .verdict import independent_groups


def source_status(error: SourceError) -> SourceStatus:
    """How a service's failure is reported in a citation's ``sources`` map: the one
    mapping from the HTTP layer's neutral kind (never "not found")."""
    return SourceStatus(error.kind.value)


NOT_NEEDED = "not needed: agreement already reached"
ONLY_TO_CONFIRM = "not asked: it only confirms a work another source has found"
CUT_OFF = "not checked before the citation's deadline"


# Answers every run gives alike (immutable values, made once).
_NOTHING_TO_ASK = SourceResult(SourceStatus.NOT_APPLICABLE, reason="nothing to look up or search")
_ONLY_CONFIRMS = SourceResult(SourceStatus.SKIPPED, reason=ONLY_TO_CONFIRM)
_NOT_NEEDED = SourceResult(SourceStatus.SKIPPED, reason=NOT_NEEDED)


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What one step's source answered, and the flags it raised."""

    result: SourceResult
    flags: frozenset[str] = frozenset()


@dataclass(slots=True)
class _SourceState:
    """What one source has said about one citation so far (a lookup, a search, or both)."""

    outcomes: list[SourceResult] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    pending: bool = False
    matched: bool = False
    """Whether some step matched (kept as outcomes are added)."""
    _result: SourceResult | None = None

    def add(self, outcome: SourceResult, flags: frozenset[str] = frozenset()) -> None:
        self.outcomes.append(outcome)
        if flags:
            self.flags.update(flags)
        if outcome.status is SourceStatus.MATCH:
            self.matched = True
        self._result = None

    def result(self) -> SourceResult | None:
        """The source's answer: a match if any step matched; else a failure if any step
        failed (the source could not fully answer); else its best miss."""
        if self._result is None and self.outcomes:
            self._result = self._combine()
        return self._result

    def _combine(self) -> SourceResult:
        if len(self.outcomes) == 1 and not self.outcomes[0].status.failed:
            # One answer that is not a failure: :meth:`combine_all` chooses it field for
            # field (its requests, and cached exactly when it is), so it is kept as is.
            return self.outcomes[0]
        return self.combine_all()

    def combine_all(self) -> SourceResult:
        """The rules :meth:`result` applies (apart from its shortcut for one answer)."""
        requests = sum(o.requests for o in self.outcomes)
        queried = [o for o in self.outcomes if o.requests or o.cached]
        cached = bool(queried) and all(o.cached for o in queried)
        match = next((o for o in self.outcomes if o.status is SourceStatus.MATCH), None)
        failed = next((o for o in self.outcomes if o.status.failed), None)
        evidence = max(
            (o for o in self.outcomes if o.record is not None and o.scores is not None),
            key=lambda o: o.scores.title if o.scores else 0.0,
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
        else:
            answered = [o for o in self.outcomes if o.status is SourceStatus.NO_MATCH]
            skipped = [o for o in self.outcomes if o.status is SourceStatus.SKIPPED]
            chosen = (evidence if answered else None) or (answered or skipped or self.outcomes)[0]
        return SourceResult(
            status=chosen.status,
            record=chosen.record,
            scores=chosen.scores,
            requests=requests,
            cached=cached,
            error=chosen.error,
            reason=chosen.reason,
        )


class PlanRun:
    """Runs one plan for one citation; read :meth:`results` and :attr:`flags` after."""

    def __init__(
        self,
        citation: Citation,
        clients: Mapping[str, SourceClient],
        stats: RunStats,
        *,
        deadline: float | Deadline,
        independence: str,
        waiting: Callable[[], AbstractAsyncContextManager[Any]] | None = None,
    ) -> None:
        """``waiting()``, when given, is entered around each wait for the sources (the
        citation's deadline scope): a run the cache answers whole never enters it."""
        self.citation = citation
        self._clients = clients
        self._stats = stats
        self._deadline = deadline
        self._independence = independence
        self._waiting = waiting
        self._states: dict[str, _SourceState] = {}
        self._needed = 1
        self._witnesses: int | None = None
        """The count of independent matching sources, kept until a source's answer
        changes (every change goes through :meth:`_add`)."""
        self._pending: dict[PlanStep, PendingQuery] = {}
        """Steps :meth:`ask_now` could not answer, with what is left to fetch: the
        :meth:`ask` that follows takes it up (no request built, no answer read twice)."""

    async def run(self, plan: SourcePlan, *, needed: int, width: int | None = None) -> None:
        """Run ``plan`` until ``needed`` independent sources match or the plan is done;
        then, if no source matched, its ``if_none`` steps; then, if some but too few
        sources match, its fallback steps (less the sources already asked). When no
        source matched, the fallback's sources are reported ``skipped``
        (:data:`ONLY_TO_CONFIRM`).

        At most ``width`` steps are in flight; by default only as many as matches are
        still needed (the cheapest schedule that still answers as soon as possible)."""
        self._needed = needed
        for name in plan.not_applicable:
            self._add(name, _NOTHING_TO_ASK)
        await self._run_steps(plan.steps, needed, width)
        if plan.if_none and self.witnesses() == 0:
            await self._run_steps(plan.if_none, needed, width)
        if plan.fallback and 0 < self.witnesses() < needed:
            asked = set(self._states)
            await self._run_steps(
                tuple(step for step in plan.fallback
                      if step.source not in asked or step.kind is StepKind.LOOKUP),
                needed, width)
        elif self.witnesses() == 0:
            # Found nowhere: the fallback's sources were not asked, and say so.
            for source in dict.fromkeys(step.source for step in plan.fallback):
                if source not in self._states:
                    self._add(source, _ONLY_CONFIRMS)

    async def _run_steps(
        self, steps: tuple[PlanStep, ...], needed: int, width: int | None
    ) -> None:
        for step in steps:
            self._state(step.source).pending = True
        remaining = {step.source: 0 for step in steps}
        for step in steps:
            remaining[step.source] += 1

        def finished(step: PlanStep, outcome: StepOutcome) -> None:
            state = self._add(step.source, outcome.result, outcome.flags)
            remaining[step.source] -= 1
            state.pending = remaining[step.source] > 0

        def skipped(step: PlanStep) -> bool:
            state = self._state(step.source)
            if not state.matched:
                return False
            remaining[step.source] -= 1  # its lookup already found the work: no search
            state.pending = remaining[step.source] > 0
            return True

        await run_until(
            steps, self.ask, finished, run_now=self.ask_now,
            width=lambda: width or max(1, needed - self.witnesses()),
            enough=lambda: self.witnesses() >= needed,
            skip=skipped,
            waiting=self._waiting,
        )

    def witnesses(self) -> int:
        """Independent matching sources so far (recounted only after an answer came).
        Under ``distinct`` every matching source is one: they are counted without
        building the results and their groups."""
        if self._witnesses is None:
            if self._independence == "distinct":
                self._witnesses = sum(state.matched for state in self._states.values())
            else:
                self._witnesses = len(
                    independent_groups(self._partial_results(), self._independence))
        return self._witnesses

    def _add(self, source: str, result: SourceResult,
             flags: frozenset[str] = frozenset()) -> _SourceState:
        state = self._state(source)
        state.add(result, flags)
        self._witnesses = None
        return state

    def results(self) -> dict[str, SourceResult]:
        """Each asked source's answer. A source whose steps did not all run says what it
        has if it matched; else it is ``skipped`` when the run stopped at agreement, and
        ``timed_out`` when the deadline cut it off (never a miss: it did not finish)."""
        agreed = self.witnesses() >= self._needed
        results: dict[str, SourceResult] = {}
        for name, state in self._states.items():
            result = state.result()
            if state.pending and not state.matched:
                if agreed:
                    result = result or _NOT_NEEDED
                else:
                    evidence = result.record if result else None
                    scores = result.scores if result else None
                    requests = result.requests if result else 0
                    result = SourceResult(SourceStatus.TIMED_OUT, evidence, scores,
                                          requests=requests, error=CUT_OFF)
            if result is not None:
                results[name] = result
        return results

    @property
    def flags(self) -> set[str]:
        return {f for state in self._states.values() for f in state.flags}

    def _partial_results(self) -> dict[str, SourceResult]:
        return {
            name: result
            for name, state in self._states.items()
            if (result := state.result()) is not None
        }

    def _state(self, source: str) -> _SourceState:
        state = self._states.get(source)
        if state is None:
            state = self._states[source] = _SourceState()
        return state

    async def ask(self, step: PlanStep) -> StepOutcome:
        """Ask ``step``'s source about the citation; every failure is a value. Records
        nothing: the run records answers as they finish (``verifier bench plans`` asks
        every step once this way to replay plans over the answers)."""
        client = self._clients[step.source]
        pending = self._pending.pop(step, None)
        if pending is None:
            request = self._request(step, client)
            if request is None:
                return _NO_REQUEST[step.kind]
            pending = PendingQuery(request)
        try:
            answer = await client.finish(pending, self._deadline)
        except SourceError as exc:
            status = source_status(exc)
            if status is SourceStatus.SKIPPED:
                self._stats.notice(str(exc))
                return StepOutcome(SourceResult(status, requests=exc.requests,
                                                 reason=str(exc)))
            return StepOutcome(SourceResult(status, requests=exc.requests, error=str(exc)))
        return self._outcome(step, answer)

    def ask_now(self, step: PlanStep) -> StepOutcome | None:
        """What :meth:`ask` would give, when that needs no waiting (the request is not
        possible, or the cache holds the answer); else None: then :meth:`ask`, which
        goes on from where this left off."""
        client = self._clients[step.source]
        request = self._request(step, client)
        if request is None:
            return _NO_REQUEST[step.kind]
        answer = client.query_now(request)
        if isinstance(answer, PendingQuery):
            self._pending[step] = answer
            return None
        return self._outcome(step, answer)

    def _request(self, step: PlanStep, client: SourceClient) -> HttpRequest | None:
        if step.kind is StepKind.LOOKUP:
            return client.adapter.lookup_request(self.citation, client.identity)
        return client.adapter.search_request(self.citation, client.identity)

    def _outcome(self, step: PlanStep, answer: QueryResult) -> StepOutcome:
        """The step's result from its source's answer: the best candidate, matched or not,
        and the flags it raises."""
        citation = self.citation
        # A retraction or correction notice is never the cited work itself.
        candidates = [r for r in answer.records if r.notice_for is None]
        best = best_candidate(citation, candidates)
        if best is None:
            return StepOutcome(
                SourceResult(SourceStatus.NO_MATCH, requests=answer.requests, cached=answer.cached)
            )
        record, scores = best
        status = SourceStatus.MATCH if scores.is_match else SourceStatus.NO_MATCH
        flags: set[str] = set()
        if is_title_by_other_authors(scores, citation, record):
            flags.add("title_by_other_authors")
        if step.kind is StepKind.LOOKUP and not scores.is_match:
            flags.add("doi_mismatch" if citation.identifiers.doi else "identifier_mismatch")
        if scores.is_match:
            flags.update(record.notices)
        result = SourceResult(status, record, scores, requests=answer.requests,
                              cached=answer.cached)
        return StepOutcome(result, frozenset(flags))


_NO_REQUEST: Mapping[StepKind, StepOutcome] = {
    kind: StepOutcome(SourceResult(SourceStatus.NOT_APPLICABLE,
                                   reason=f"no {kind.value} possible"))
    for kind in StepKind
}
"""The outcome of a step whose source has no request to make for the citation."""
