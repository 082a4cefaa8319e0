"""A bibliographic source's client: the session's paced client plus the source's adapter.

:meth:`SourceClient.query` is the only way the citation pipeline talks to a source. The
paced client (:mod:`verifier.http.client`) does the cache, single flight, pacing and
retries; this module only says what the source's answers mean (its adapter's ``parse``)
and makes the follow-up request an answer may call for (PubMed: ids first, then records),
through the same paced client.

Failures surface as :class:`~verifier.errors.SourceError` subclasses; the plan run turns
them into values.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapters.base import Identity, SourceAdapter
from verifier.errors import SourceError
from verifier.http.client import NOT_CACHED, Fetched, PacedClient
from verifier.http.deadline import Deadline
from verifier.http.policy import RateHint
from verifier.http.transport import HttpRequest, HttpResponse

from .candidates import Candidate


@dataclass(frozen=True, slots=True)
class QueryResult:
    candidates: list[Candidate]
    """The works the answer offers, best first (each built into a record when asked)."""
    requests: int
    """Requests this call sent to the network (0 for a cache hit or a joined flight)."""
    cached: bool

    def __init__(self, candidates: list[Candidate], requests: int, cached: bool) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct (see
        # the comment above verifier.http.transport.HttpRequest; one per query).
        object.__setattr__(self, "candidates", candidates)
        object.__setattr__(self, "requests", requests)
        object.__setattr__(self, "cached", cached)


@dataclass(frozen=True, slots=True)
class SourceAnswer:
    """What one response of a source says: the works it offers and the follow-up it
    calls for."""

    candidates: list[Candidate]
    follow_up: HttpRequest | None

    def __init__(self, candidates: list[Candidate], follow_up: HttpRequest | None) -> None:
        # The dataclass's own __init__, written out (as QueryResult's; one per answer read).
        object.__setattr__(self, "candidates", candidates)
        object.__setattr__(self, "follow_up", follow_up)


@dataclass(frozen=True, slots=True)
class PendingQuery:
    """A query the cache could not wholly answer at once: what :meth:`SourceClient.finish`
    still has to fetch. ``first`` is the first answer when the cache held it and only its
    follow-up is left (so that answer is neither read nor counted twice). ``missed``: the
    cache was read for what is left to fetch (the request, or the follow-up after
    ``first``) and had nothing (:data:`~verifier.http.client.NOT_CACHED`), so the fetch
    does not read the disk again."""

    request: HttpRequest
    first: Fetched[SourceAnswer] | None = None
    missed: bool = False


class AdapterReader:
    """Reads a source's responses with its adapter, for the paced client."""

    __slots__ = ("adapter",)

    def __init__(self, adapter: SourceAdapter) -> None:
        self.adapter = adapter

    def read(self, request: HttpRequest, response: HttpResponse) -> SourceAnswer:
        candidates, follow_up = self.adapter.candidates(request, response)
        return SourceAnswer(candidates, follow_up)

    def positive(self, value: SourceAnswer) -> bool:
        return bool(value.candidates) or value.follow_up is not None

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        return self.adapter.rate_hint(response)


class SourceClient:
    """One source for the citation pipeline: an adapter over the session's paced client."""

    __slots__ = ("adapter", "client", "identity", "name", "reader")

    def __init__(self, adapter: SourceAdapter, client: PacedClient, identity: Identity) -> None:
        self.adapter = adapter
        self.client = client
        self.name = adapter.name
        self.identity = identity
        self.reader = AdapterReader(adapter)

    def query_now(self, request: HttpRequest) -> QueryResult | PendingQuery:
        """The answer to ``request`` when the cache holds it, follow-up included
        (:meth:`PacedClient.fetch_now`); else what is left to :meth:`finish`."""
        first = self.client.fetch_now(request, self.reader)
        if not isinstance(first, Fetched):  # not at once (None), or NOT_CACHED
            return PendingQuery(request, None, first is NOT_CACHED)
        follow_up = first.value.follow_up
        if follow_up is None:
            return QueryResult(first.value.candidates, 0, True)
        second = self.client.fetch_now(follow_up, self.reader)
        if not isinstance(second, Fetched):
            return PendingQuery(request, first, second is NOT_CACHED)
        return QueryResult(second.value.candidates, 0, True)

    async def query(self, request: HttpRequest, deadline: float | Deadline) -> QueryResult:
        """Candidates for ``request`` (best first, ``[]`` for "not found"); raises
        SourceError.

        When the adapter asks for a follow-up, it is made here, through the same cache and
        pacing, and its candidates are the answer."""
        return await self.finish(PendingQuery(request), deadline)

    async def finish(self, pending: PendingQuery, deadline: float | Deadline) -> QueryResult:
        """:meth:`query`, from where :meth:`query_now` left off."""
        first = pending.first
        if first is None:
            first = await self.client.fetch(pending.request, deadline, self.reader,
                                            cache_missed=pending.missed)
        follow_up = first.value.follow_up
        if follow_up is None:
            return QueryResult(first.value.candidates, first.requests, first.cached)
        try:
            second = await self.client.fetch(
                follow_up, deadline, self.reader,
                cache_missed=pending.missed and pending.first is not None)
        except SourceError as exc:
            exc.requests += first.requests
            raise
        return QueryResult(
            second.value.candidates, first.requests + second.requests,
            first.cached and second.cached,
        )
