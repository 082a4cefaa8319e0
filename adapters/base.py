"""The contract every source adapter fulfils.

An adapter knows one service's protocol and nothing else: how to ask it for a citation
and how to read its answers. It never does I/O, never sleeps, never retries and never
imports aiohttp. The engine gives it nothing but values:

- :meth:`SourceAdapter.lookup_request` and :meth:`SourceAdapter.search_request` build
  :class:`~verifier.transport.HttpRequest` values from a parsed citation (``None`` when
  the citation gives the service nothing to go on);
- :meth:`SourceAdapter.parse` turns one :class:`~verifier.transport.HttpResponse` into a
  list of :class:`~verifier.models.WorkRecord` (empty means the service's own "not
  found"), or raises :class:`~verifier.errors.MalformedResponse` /
  :class:`~verifier.errors.UnexpectedStatus` when the answer cannot be read as either;
- :meth:`SourceAdapter.follow_up` names a second request when an answer is only a step
  (PubMed's esearch gives ids; efetch gives the records);
- :meth:`SourceAdapter.rate_hint` reads rate-limit headers where the service sends them;
- :meth:`SourceAdapter.candidates` is what the engine reads an answer with: ``answer``'s
  records as :class:`~verifier.citations.candidates.Candidate` values. An adapter whose
  records cost far more than their titles overrides it to build each record only when
  the matching asks for it (see that module's contract).

Retries on 429/5xx, pacing, caching and timeouts happen once, in the engine
(``verifier.source_client``), before ``parse`` sees a response: ``parse`` only ever
gets responses the engine did not treat as transient failures.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from verifier.citations.candidates import Candidate, ready_candidates
from verifier.citations.models import Citation, WorkRecord
from verifier.errors import SourceError
from verifier.http.policy import RateHint as RateHint
from verifier.http.transport import HttpRequest, HttpResponse


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the engine says it is, per the settings: contact address and this source's key."""

    mailto: str | None = None
    api_key: str | None = None
    tool: str = "citation-verifier"


class SourceAdapter(ABC):
    """One bibliographic service. Subclasses set ``name`` and implement the four hooks."""

    name: ClassVar[str]
    """Lower-case source name used on the CLI, in settings and in reports."""

    @abstractmethod
    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        """A request that fetches the cited work by an identifier this service resolves
        (DOI, PMID, arXiv id, ISBN), or None when the citation carries none."""

    @abstractmethod
    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        """A bibliographic search for the citation, or None when there is too little to
        search on (e.g. no title)."""

    @abstractmethod
    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        """Records in the response, best first; ``[]`` for the service's "not found".

        Raises ``MalformedResponse`` for a body that is neither records nor the service's
        "not found" shape (including errors reported inside a 200), and
        ``UnexpectedStatus`` for a status the service does not use for "not found".
        """

    def follow_up(self, request: HttpRequest, response: HttpResponse) -> HttpRequest | None:
        """A second request this answer calls for, or None when the answer is final.

        The engine sends it through the same cache, pacing and retries, and the records
        of the second answer become the records of the first. ``parse`` of a response
        that has a follow-up returns ``[]``. Only one follow-up is made per request.
        """
        return None

    def answer(
        self, request: HttpRequest, response: HttpResponse
    ) -> tuple[list[WorkRecord], HttpRequest | None]:
        """``(parse(...), follow_up(...))`` for one response, the body read once where
        the adapter can (an adapter whose ``follow_up`` depends on its records overrides
        this). Raises what ``parse`` raises."""
        return self.parse(request, response), self.follow_up(request, response)

    def candidates(
        self, request: HttpRequest, response: HttpResponse
    ) -> tuple[list[Candidate], HttpRequest | None]:
        """:meth:`answer` with the records as candidates, which is how the engine reads
        every answer. This default builds every record at once; an override builds each
        only when asked, and gives the same records (``parse`` is then
        ``[c.record() for c in candidates]``). Raises what ``parse`` raises."""
        records, follow_up = self.answer(request, response)
        return ready_candidates(records), follow_up

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        """Rate-limit information in the response headers, if the service sends any."""
        return None


def retry_if_empty(adapter: SourceAdapter, request: HttpRequest, response: HttpResponse,
                   retry: HttpRequest | None) -> HttpRequest | None:
    """The :meth:`~SourceAdapter.follow_up` of an adapter that asks again, as ``retry``,
    when its first answer holds no records (``retry`` None: it never asks again). An
    answer it cannot read has no follow-up: the failure is the answer."""
    if retry is None:
        return None
    try:
        if adapter.parse(request, response):
            return None
    except SourceError:
        return None
    return retry
