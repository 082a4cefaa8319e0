"""One plan run for one citation: ask sources step by step until enough of them agree.

:class:`PlanRun` executes a :class:`~verifier.planner.SourcePlan` against the engine's
source clients, through a :class:`~verifier.citations.step_asker.StepAsker`. Steps start
in plan order, only as many at a time as independent matches are still needed, and the
run stops as soon as ``needed`` independent sources match (steps still out are
cancelled).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from verifier.concurrency import run_until

from .models import SourceResult, SourceStatus
from .planner import PlanStep, SourcePlan, StepKind
from .step_asker import StepAsker, StepOutcome
from .verdict import independent_groups

NOT_NEEDED = "not needed: agreement already reached"
ONLY_TO_CONFIRM = "not asked: it only confirms a work another source has found"
CUT_OFF = "not checked before the citation's deadline"


# Answers every run gives alike (immutable values, made once).
_NOTHING_TO_ASK = SourceResult(SourceStatus.NOT_APPLICABLE, reason="nothing to look up or search")
_ONLY_CONFIRMS = SourceResult(SourceStatus.SKIPPED, reason=ONLY_TO_CONFIRM)
_NOT_NEEDED = SourceResult(SourceStatus.SKIPPED, reason=NOT_NEEDED)


@dataclass(slots=True)
class _SourceState:
    """What one source has said about one citation so far (a lookup, a search, or both)."""

    outcomes: list[SourceResult] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    pending: bool = False
    matched: bool = False
    """Whether some step matched (kept as outcomes are added)."""
    _result: SourceResult | None = None

    def __init__(
        self, outcomes: list[SourceResult] | None = None, flags: set[str] | None = None,
        pending: bool = False, matched: bool = False, _result: SourceResult | None = None,
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        self.outcomes = [] if outcomes is None else outcomes
        self.flags = set() if flags is None else flags
        self.pending = pending
        self.matched = matched
        self._result = _result

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
        asker: StepAsker,
        *,
        independence: str,
        waiting: Callable[[], AbstractAsyncContextManager[Any]] | None = None,
    ) -> None:
        """``asker`` answers the steps (:class:`SourceAsker` asks the engine's sources).
        ``waiting()``, when given, is entered around each wait for the sources (the
        citation's deadline scope): a run the cache answers whole never enters it."""
        self._asker = asker
        self._independence = independence
        self._waiting = waiting
        self._states: dict[str, _SourceState] = {}
        self._needed = 1
        self._witnesses: int | None = None
        """The count of independent matching sources, kept until a source's answer
        changes (every change goes through :meth:`_add`)."""

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
            steps, self._asker.ask, finished, run_now=self._asker.ask_now,
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
