"""The citation pipeline: checks citations against the sources and reports a verdict on each.

A :class:`CitationChecker` takes an open :class:`~verifier.session.Session` (the transport,
cache and paced clients it uses) and per-call :class:`~verifier.options.CheckOptions`; it
owns no resources. For one citation, :meth:`CitationChecker.check` parses the text; then
:func:`~verifier.citations.citation_check.check_parsed` asks the planner which sources to
ask and how, runs identifier lookups together, then searches as many at a time as matches
are still needed, and stops as soon as the agreement rule holds. Every source failure
becomes a value in the report; only bugs propagate.
"""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from adapters import adapter_for
from adapters.base import Identity, SourceAdapter
from verifier.concurrency import map_bounded
from verifier.errors import ConfigError
from verifier.http.deadline import Deadline
from verifier.options import CheckOptions, ResolvedOptions

from .citation_check import check_parsed
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
from .parse_store import ParseStore
from .parsing import is_warm, parse_citation, warm_up
from .source_client import SourceClient
from .verdict import AGREEMENT

if TYPE_CHECKING:
    from verifier.session import Session

MAX_CONCURRENCY = 10_000
"""Most citations one :meth:`CitationChecker.check_many` call checks at once (the command
line and the service set lower bounds of their own)."""


class CitationChecker:
    """Checks citations through a session's source clients::

        async with Session(settings) as session:
            checker = CitationChecker(session)
            report = await checker.check(item)
            async for report in checker.check_many(items, concurrency=32): ...

    ``adapters`` replaces the default adapter of named sources (tests).
    """

    def __init__(
        self, session: Session, *, adapters: Sequence[SourceAdapter] | None = None,
        parses: ParseStore | None = None,
    ) -> None:
        self.session = session
        self._parses = parses
        self._recent: OrderedDict[str, Citation] = OrderedDict()
        self.stats = session.stats
        self._adapters = {a.name: a for a in adapters} if adapters else {}
        self._clients: dict[str, SourceClient] = {}
        settings = session.settings
        for name, client in session.clients.items():
            identity = Identity(mailto=settings.mailto, api_key=settings.key(name))
            self._clients[name] = SourceClient(self._adapter(name), client, identity)
        self._unavailable = {
            name: SourceResult(SourceStatus.SKIPPED, reason=reason)
            for name, reason in session.unavailable.items()
        }
        self._warming: asyncio.Future[None] | None = None
        if len(self._clients) < AGREEMENT:
            # Not an error (a single-source look-up can still tell unconfirmed from no
            # trace), but every run so configured would otherwise end with no verified
            # citation and no word why.
            self.stats.notice(
                f"sources: only {len(self._clients)} can be asked "
                f"({', '.join(self._clients) or 'none'}); a citation is verified only when "
                f"{AGREEMENT} independent sources agree, so none can be verified in this "
                "run: enable more (--sources, or the key a skipped source needs)")

    @property
    def clients(self) -> Mapping[str, SourceClient]:
        """The source clients a plan run asks, by source name (the sources the session
        could open)."""
        return self._clients

    def _adapter(self, name: str) -> SourceAdapter:
        if name in self._adapters:
            return self._adapters[name]
        try:
            return adapter_for(name)
        except ValueError as exc:
            raise ConfigError(f"source {name!r} has no adapter in this version") from exc

    async def check(
        self, item: CitationInput, options: CheckOptions | ResolvedOptions | None = None
    ) -> Report:
        """The verdict on one citation."""
        resolved = self._resolve(options)
        self.stats.started += 1
        try:
            return await self._check(item, resolved)
        finally:
            self.stats.finished += 1

    def check_many(
        self,
        items: Iterable[CitationInput] | AsyncIterable[CitationInput],
        options: CheckOptions | None = None,
        *,
        concurrency: int = 16,
    ) -> AsyncGenerator[Report, None]:
        """Reports as each citation is decided (not in input order; ``Report.index`` is
        the input position), at most ``concurrency`` in progress, the input read only as
        fast as they finish. Closing the iteration cancels the work in progress.

        The arguments are checked on the call (``TypeError`` or ``ValueError`` naming
        ``concurrency``); the generator returned is :func:`map_bounded`'s own, not one
        wrapped round it: each report is handed on once, not once per wrapper."""
        if isinstance(concurrency, bool) or not isinstance(concurrency, int):
            raise TypeError(f"concurrency must be a whole number, got {concurrency!r}")
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise ValueError(f"concurrency must be between 1 and {MAX_CONCURRENCY}, "
                             f"got {concurrency}")
        resolved = self._resolve(options)
        return map_bounded(items, lambda item: self.check(item, resolved),
                           concurrency=concurrency)

    def _resolve(self, options: CheckOptions | ResolvedOptions | None) -> ResolvedOptions:
        if isinstance(options, ResolvedOptions):
            return options
        return (options or CheckOptions()).resolve(self.session.settings)

    # -- one citation ------------------------------------------------------------------------

    async def _check(self, item: CitationInput, options: ResolvedOptions) -> Report:
        started = time.perf_counter()
        # The deadline's clock stops while the citation only queues for our own rate
        # limits: a long queue (a large --concurrency) never makes it inconclusive.
        deadline = Deadline(options.deadline_s)
        citation = item.fields if item.fields is not None else await self._citation_of(
            item.text)
        if not normalize_title(citation.title) and citation.identifiers.is_empty():
            return self._unreadable(item, citation, time.perf_counter() - started)
        return await check_parsed(item, citation, self._clients, self.stats,
                                  self._unavailable, options, deadline, started)

    async def _citation_of(self, text: str) -> Citation:
        """The parse of ``text`` (HTML entities resolved). With a parse store: from the
        recent parses in memory (they spare the store's reads), from the store, or parsed
        and then kept in both."""
        text = without_entities(text)
        store = self._parses
        if store is None:  # parse_citation keeps its own recent parses
            return await self._parse(text)
        recent = self._recent
        citation = recent.get(text)
        if citation is not None:
            recent.move_to_end(text)
            return citation
        citation = store.get_now(text)
        if citation is None:
            citation = await self._parse(text)
            store.remember(text, citation)
        recent[text] = citation
        if len(recent) > RECENT_PARSES:
            recent.popitem(last=False)
        return citation

    async def _parse(self, text: str) -> Citation:
        if not is_warm():
            await self._parser_ready()
        return parse_citation(text)

    async def _parser_ready(self) -> None:
        """Open the parser's model on a worker thread (a file read must not block the
        loop); the citations that arrive meanwhile wait for that one opening."""
        if self._warming is None:
            self._warming = asyncio.ensure_future(asyncio.to_thread(warm_up))
        await asyncio.shield(self._warming)

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


_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-f]+|[a-z]+\d*);", re.I)

RECENT_PARSES = 8_192
"""Parses a checker with a parse store keeps in memory (least recently used out), in
front of the store."""


def without_entities(text: str) -> str:
    """``text`` with HTML entities ("&amp;", "&apos;") resolved: copied from web pages and
    exports, they would split words."""
    return html.unescape(text) if _ENTITY.search(text) else text


def citation_of_text(text: str) -> Citation:
    """The parsed citation of a free-text reference, HTML entities resolved first."""
    return parse_citation(without_entities(text))
