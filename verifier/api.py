"""The library's front door: a session and the pipelines on it, in one ``async with``.

:class:`Verifier` opens a :class:`~verifier.session.Session` (transport, cache, one paced
client per service) and the citation pipeline on it::

    async with Verifier(settings) as verifier:
        report = await verifier.verify("Smith, J. (2019). Title. Journal, 3(2), 1-9.")
        async for report in verifier.verify_many(citations, concurrency=32):
            ...

Per-call :class:`~verifier.options.CheckOptions` narrow the sources, the deadline or the
independence rule without touching the shared limits. Other pipelines (premise checks,
the review judge) attach to ``verifier.session`` the same way.

The language models the settings configure (offline baselines when none is) answer
through the same session::

        p = await verifier.decide(paper_text, {"true": Predicate("Is ... true?")})
        out = await verifier.complete_json(messages, schema=CLAIMS_SCHEMA)

Importing this module loads the citation pipeline only; the models and the premise
checker (:mod:`verifier.llm`, :mod:`verifier.claims`) load when the ``Verifier`` opens,
off the event loop, for the pipelines that use them (see :meth:`Verifier.__aenter__`).
"""

from __future__ import annotations

import hashlib
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .citations.checker import CitationChecker
from .citations.models import CitationInput, Report
from .citations.parse_store import ParseStore
from .http.imports import imported
from .http.stats import RunStats
from .options import CheckOptions
from .session import Session
from .settings import Settings
from .sources import PolicyTable

if TYPE_CHECKING:
    from adapters.base import SourceAdapter

    from .claims.checker import CommentResult, PremiseChecker, PremiseOptions
    from .http.policy import SourcePolicy
    from .http.transport import Transport
    from .llm.interfaces import ChatModel, DecisionModel
    from .llm.structured import JsonAnswer, Validate
    from .llm.types import ChatMessage, DecisionResult, Question

CitationLike = str | CitationInput


def derive_id(text: str) -> str:
    """A stable id for a citation given without one."""
    return "c-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


class Verifier:
    """Checks citations against the enabled sources. Open it inside the running loop.

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
        self._transport = transport
        self._policies = policies
        self._adapters = adapters
        self._session: Session | None = None
        self._citations: CitationChecker | None = None
        self._parses: ParseStore | None = None
        self._models: tuple[DecisionModel, ChatModel] | None = None
        self._premises: PremiseChecker | None = None

    @property
    def policies(self) -> PolicyTable:
        return PolicyTable.for_settings(self.settings, self._policies)

    @property
    def session(self) -> Session:
        """The open session (one per ``async with``, so one per event loop)."""
        if self._session is None:
            raise RuntimeError("use 'async with Verifier(settings) as verifier:' first")
        return self._session

    @property
    def citations(self) -> CitationChecker:
        if self._citations is None:
            raise RuntimeError("use 'async with Verifier(settings) as verifier:' first")
        return self._citations

    async def __aenter__(self) -> Verifier:
        if self._session is not None:
            raise RuntimeError("Verifier is already open")
        session = Session(self.settings, transport=self._transport, policies=self._policies,
                          stats=self.stats)
        await session.__aenter__()
        try:
            settings = self.settings
            if settings.cache_dir is not None and settings.keep_parses:
                self._parses = await ParseStore.open(settings.cache_dir,
                                                     read=settings.cache_read)
            self._citations = CitationChecker(session, adapters=self._adapters,
                                              parses=self._parses)
        except BaseException:
            await self._close_parses()
            await session.__aexit__(None, None, None)
            raise
        self._session = session
        return self

    async def _close_parses(self) -> None:
        parses, self._parses = self._parses, None
        if parses is not None:
            await parses.close()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        session, self._session, self._citations = self._session, None, None
        self._models = None
        self._premises = None
        try:
            await self._close_parses()
        finally:
            if session is not None:
                await session.__aexit__(exc_type, exc, tb)

    async def verify(
        self, citation: CitationLike, *, index: int = 0, options: CheckOptions | None = None
    ) -> Report:
        """The verdict on one citation (free text, or a :class:`CitationInput`; anything
        else raises ``TypeError``)."""
        return await self.citations.check(_as_item(citation, index), options)

    def verify_many(
        self,
        citations: Iterable[CitationLike] | AsyncIterable[CitationLike],
        *,
        concurrency: int = 16,
        options: CheckOptions | None = None,
    ) -> AsyncGenerator[Report, None]:
        """Reports as each citation is decided (not in input order; ``Report.index`` is
        the input position). At most ``concurrency`` citations are in progress, and the
        input is read only as fast as they finish, so memory stays bounded for any input
        size. Closing or cancelling the iteration cancels the work in progress and leaves
        no task behind. An element that is neither text nor a :class:`CitationInput`
        raises ``TypeError`` naming its position when it is reached (text that holds no
        citation is a per-item ``input_error`` report, as in the CLI). A ``concurrency``
        that is not a whole number in range raises on the call. The generator returned is
        the checker's own (:meth:`CitationChecker.check_many
        <verifier.citations.checker.CitationChecker.check_many>`), not one wrapped round
        it: each report is handed on once."""
        return self.citations.check_many(_numbered(citations), options,
                                         concurrency=concurrency)


    @property
    def models(self) -> tuple[DecisionModel, ChatModel]:
        """The session's decision and chat models (:func:`verifier.llm.select.open_models`;
        the async methods below load that module off the loop before they ask)."""
        if self._models is None:
            from .llm.select import open_models

            self._models = open_models(self.session)
        return self._models

    async def _models_loaded(self) -> tuple[DecisionModel, ChatModel]:
        await imported("verifier.llm.select")
        return self.models

    async def decide(self, state: str, questions: Mapping[str, Question], *,
                     deadline: float | None = None) -> DecisionResult:
        """Probabilities for every question about ``state`` (raises SourceError when the
        endpoint cannot answer)."""
        decisions, _ = await self._models_loaded()
        return await decisions.decide(state, questions, deadline=deadline)

    async def complete_json(self, messages: Sequence[ChatMessage], *,
                            schema: Mapping[str, Any], validate: Validate | None = None,
                            deadline: float | None = None) -> JsonAnswer:
        """The chat model's answer as JSON valid under ``schema``, repaired and retried
        once (:func:`verifier.llm.structured.complete_json`)."""
        _, chat = await self._models_loaded()
        structured = await imported("verifier.llm.structured")
        answer: JsonAnswer = await structured.complete_json(chat, messages, schema, validate,
                                                            deadline=deadline)
        return answer

    async def check_comment(self, paper: str, comment: str, *,
                            options: PremiseOptions | None = None) -> CommentResult:
        """A review comment about ``paper`` (its text) checked premise by premise: scored
        by the minimum over its premises (:mod:`verifier.claims.checker`)."""
        if self._premises is None:
            decisions, chat = await self._models_loaded()
            premises = await imported("verifier.claims.checker")
            self._premises = premises.PremiseChecker(self.session, decisions=decisions,
                                                     chat=chat)
        return await self._premises.check_comment(paper, comment, options=options)


def _as_item(citation: CitationLike, index: int) -> CitationInput:
    if isinstance(citation, CitationInput):
        return citation
    if not isinstance(citation, str):  # a usage error (a None or NaN from a table, say)
        raise TypeError(f"citation {index}: expected the text of a citation (str) or a "
                        f"CitationInput, not {type(citation).__name__} {citation!r:.60}")
    return CitationInput(id=derive_id(citation), index=index, text=citation)


def _numbered(
    citations: Iterable[CitationLike] | AsyncIterable[CitationLike],
) -> Iterator[CitationInput] | AsyncIterator[CitationInput]:
    """Items of a sync or async iterable as CitationInput, numbered lazily (a plain
    iterable stays plain: it is read on the spot, without a task per item)."""
    if isinstance(citations, AsyncIterable):
        return _numbered_async(citations)
    return (_as_item(item, index) for index, item in enumerate(citations))


async def _numbered_async(citations: AsyncIterable[CitationLike]) -> AsyncIterator[CitationInput]:
    index = 0
    async for item in citations:
        yield _as_item(item, index)
        index += 1
