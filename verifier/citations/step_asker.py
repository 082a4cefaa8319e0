"""Asking one source one step of a plan about one citation.

:class:`SourceAsker` is how a :class:`~verifier.citations.plan_run.PlanRun` reaches the
engine's source clients: it builds the step's request, takes the cache's answer or waits
for the service's, and scores the candidates against the citation. Every failure is a
value: a :class:`~verifier.citations.models.SourceResult` whose status says the source
could not answer. A plan run is given its asker, so a replay or a test can answer steps
from a table through the same :class:`StepAsker` contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from verifier.errors import SourceError
from verifier.http.deadline import Deadline
from verifier.http.stats import RunStats
from verifier.http.transport import HttpRequest

from .matching import best_of, is_title_by_other_authors
from .models import Citation, SourceResult, SourceStatus
from .planner import PlanStep, StepKind
from .source_client import PendingQuery, QueryResult, SourceClient


def source_status(error: SourceError) -> SourceStatus:
    """How a service's failure is reported in a citation's ``sources`` map: the one
    mapping from the HTTP layer's neutral kind (never "not found")."""
    return SourceStatus(error.kind.value)


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What one step's source answered, and the flags it raised."""

    result: SourceResult
    flags: frozenset[str] = frozenset()

    def __init__(
        self, result: SourceResult, flags: frozenset[str] = frozenset(),
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "flags", flags)


class StepAsker(Protocol):
    """What a plan run asks its steps through."""

    async def ask(self, step: PlanStep) -> StepOutcome:
        """The step's outcome, waiting for it as long as it takes (the run bounds the
        wait). Every failure is an outcome, never an exception."""

    def ask_now(self, step: PlanStep) -> StepOutcome | None:
        """The step's outcome when it needs no waiting; else None, and :meth:`ask`
        follows for the same step."""


class SourceAsker:
    """Asks the engine's source clients about one citation, within its deadline."""

    def __init__(self, citation: Citation, clients: Mapping[str, SourceClient],
                 stats: RunStats, deadline: float | Deadline) -> None:
        self.citation = citation
        self._clients = clients
        self._stats = stats
        self._deadline = deadline
        self._pending: dict[PlanStep, PendingQuery] = {}
        """Steps :meth:`ask_now` could not answer, with what is left to fetch: the
        :meth:`ask` that follows takes it up (no request built, no answer read twice)."""

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
        candidates = [c for c in answer.candidates if c.notice_for is None]
        best = best_of(citation, candidates)
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
