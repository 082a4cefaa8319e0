"""The review judge: claims once per paper, then each source's comments parsed, mapped
to the claims and typed (ReviewBench's steps; spec in ``shared/docs/claims.md``).

:class:`Judge` takes its :class:`~verifier.llm.interfaces.ChatModel` as a constructor
argument (default: the offline baseline, :class:`~verifier.llm.interfaces.OfflineChat`)
and per-call :class:`JudgeOptions`; it owns no resources. For one paper
(:meth:`Judge.judge_paper`):

1. claim extraction starts, once for the paper;
2. at the same time, every source's comments are cut into batches of at most
   ``batch_size`` and each batch is parsed and typed (neither needs the claims);
3. each batch is mapped to the claims as soon as they are known.

At most ``calls_per_paper`` calls of one paper, and ``calls_per_source`` of one source,
are in flight at once. The paper text is cut to ``max_paper_tokens`` estimated tokens.

Failures are values (:class:`~.steps.StepFailure` after two attempts):

- claims that cannot be extracted: every source of the paper is an error (nothing can
  be mapped), its comments are not judged;
- a batch that cannot be parsed or mapped: its comments are *unjudged* (they count in
  ``comments_per_paper`` and nowhere else) and the source names the error;
- a batch that cannot be typed: its comments keep a null type, the error is named;
- a comment the model's answer left out (no parse or no mapping item): unjudged.

A comment is *assessed* when it was parsed and mapped. A source with no comment is an
error ("no comments"), not a source with zero comments.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.llm.tokens import truncate_to_tokens
from verifier.llm.interfaces import ChatModel, OfflineChat
from verifier.llm.types import ChatMessage, ChatResult

from . import steps
from .models import (
    ClaimMapping,
    CritiqueType,
    ExtractedClaim,
    JudgedComment,
    ParsedComment,
    SourceJudgement,
)
from .steps import CallLog, StepFailure
from .validate import ParsedBatch


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    calls_per_paper: int = 4
    """Model calls of one paper in flight at once."""
    calls_per_source: int = 2
    """Model calls of one source (on one paper) in flight at once."""
    batch_size: int = 40
    """Comments per parse/map/type call."""
    max_paper_tokens: int = 60_000
    """The paper is cut to this many estimated tokens (the shared prefix of every call)."""
    call_deadline_s: float | None = None
    """Passed to the model as each call's deadline (seconds from the call's start)."""

    def __post_init__(self) -> None:
        for name in ("calls_per_paper", "calls_per_source", "batch_size", "max_paper_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")


@dataclass(frozen=True, slots=True)
class CommentInput:
    comment_id: str
    text: str


@dataclass(frozen=True, slots=True)
class CommentOutcome:
    comment_id: str
    text: str
    parsed: ParsedComment | None
    mapping: ClaimMapping | None
    critique_type: CritiqueType | None

    @property
    def assessed(self) -> bool:
        return self.parsed is not None and self.mapping is not None

    def judged(self) -> JudgedComment:
        parsed, mapping = self.parsed, self.mapping
        assert parsed is not None and mapping is not None
        return JudgedComment(parsed.anchor, parsed.specification, parsed.justification,
                             parsed.remedy, mapping.claim_id, mapping.stance,
                             mapping.is_consequential, self.critique_type)

    def as_json(self) -> dict[str, Any]:
        parsed, mapping = self.parsed, self.mapping
        return {
            "comment_id": self.comment_id,
            "text": self.text,
            "assessed": self.assessed,
            "anchor": parsed.anchor if parsed else None,
            "specification": parsed.specification if parsed else None,
            "justification": parsed.justification if parsed else None,
            "remedy": parsed.remedy if parsed else None,
            "claim_id": mapping.claim_id if mapping else None,
            "stance": mapping.stance if mapping else None,
            "is_consequential": mapping.is_consequential if mapping else None,
            "critique_type": self.critique_type,
        }


@dataclass(slots=True)
class SourceOutcome:
    """One source's comments on one paper, judged (or why not)."""

    paper_id: str
    source: str
    claims: tuple[ExtractedClaim, ...]
    comments: list[CommentOutcome] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Per-item errors (failed steps after two attempts), naming the step and batch."""
    failed: str | None = None
    """Why the source could not be judged at all (no claims, no comments), else None."""
    log: CallLog = field(default_factory=CallLog)

    @property
    def unjudged(self) -> int:
        return sum(not c.assessed for c in self.comments)

    def judgement(self) -> SourceJudgement | None:
        """The metrics' view; None when the source could not be judged at all."""
        if self.failed is not None:
            return None
        return SourceJudgement(self.paper_id, self.source,
                               tuple(c.claim_id for c in self.claims),
                               tuple(c.judged() for c in self.comments if c.assessed),
                               self.unjudged)


@dataclass(slots=True)
class PaperOutcome:
    paper_id: str
    claims: tuple[ExtractedClaim, ...] | StepFailure
    sources: dict[str, SourceOutcome]
    log: CallLog


class _Bounded:
    """A chat model seen through semaphores (calls per paper, per source)."""

    def __init__(self, model: ChatModel, *limits: asyncio.Semaphore) -> None:
        self._model = model
        self._limits = limits
        self.backend = model.backend

    async def complete(self, messages: Sequence[ChatMessage], *,
                       schema: Mapping[str, Any] | None = None,
                       deadline: float | None = None) -> ChatResult:
        for limit in self._limits:
            await limit.acquire()
        try:
            return await self._model.complete(messages, schema=schema, deadline=deadline)
        finally:
            for limit in self._limits:
                limit.release()


class Judge:
    """The four judge steps over one chat model (module docstring)."""

    def __init__(self, chat: ChatModel | None = None,
                 options: JudgeOptions | None = None) -> None:
        self.chat: ChatModel = chat if chat is not None else OfflineChat()
        self.options = options or JudgeOptions()

    @property
    def backend(self) -> str:
        return self.chat.backend

    def _deadline(self) -> float | None:
        if self.options.call_deadline_s is None:
            return None
        return asyncio.get_running_loop().time() + self.options.call_deadline_s

    async def judge_paper(self, paper_id: str, text: str,
                          sources: Mapping[str, Sequence[CommentInput]]) -> PaperOutcome:
        """Claims, then every source judged against them (module docstring)."""
        paper_text, _ = truncate_to_tokens(text, self.options.max_paper_tokens)
        per_paper = asyncio.Semaphore(self.options.calls_per_paper)
        log = CallLog()
        claims_log = CallLog()
        claims_task = asyncio.ensure_future(steps.extract_claims(
            _Bounded(self.chat, per_paper), paper_id, paper_text, claims_log,
            deadline=self._deadline()))
        try:
            jobs = {source: self._judge_source(paper_id, paper_text, source, list(comments),
                                               claims_task, per_paper)
                    for source, comments in sources.items()}
            results = await asyncio.gather(*jobs.values())
            claims = await claims_task
        finally:
            if not claims_task.done():
                claims_task.cancel()
                await asyncio.gather(claims_task, return_exceptions=True)
        log.add(claims_log)
        outcomes = dict(zip(jobs, results, strict=True))
        for outcome in outcomes.values():
            log.add(outcome.log)
        return PaperOutcome(paper_id, claims, outcomes, log)

    async def _judge_source(
        self, paper_id: str, paper_text: str, source: str, comments: list[CommentInput],
        claims_task: asyncio.Future[tuple[ExtractedClaim, ...] | StepFailure],
        per_paper: asyncio.Semaphore,
    ) -> SourceOutcome:
        outcome = SourceOutcome(paper_id, source, ())
        if not comments:
            outcome.failed = "no comments"
            return outcome
        model = _Bounded(self.chat, asyncio.Semaphore(self.options.calls_per_source),
                         per_paper)
        size = self.options.batch_size
        batches = [comments[i:i + size] for i in range(0, len(comments), size)]
        results = await asyncio.gather(*(
            self._judge_batch(model, paper_text, n, batch, claims_task, outcome)
            for n, batch in enumerate(batches, start=1)))
        claims = await asyncio.shield(claims_task)
        if isinstance(claims, StepFailure):
            outcome.failed = f"claim extraction failed after two attempts: {claims.reason}"
            return outcome
        outcome.claims = claims
        for batch_outcomes in results:
            outcome.comments.extend(batch_outcomes)
        return outcome

    async def _judge_batch(
        self, model: ChatModel, paper_text: str, number: int, batch: list[CommentInput],
        claims_task: asyncio.Future[tuple[ExtractedClaim, ...] | StepFailure],
        outcome: SourceOutcome,
    ) -> list[CommentOutcome]:
        texts = [c.text for c in batch]
        where = f"{outcome.paper_id}/{outcome.source} batch {number}"

        async def mapped() -> dict[int, ClaimMapping] | StepFailure | None:
            claims = await asyncio.shield(claims_task)
            if isinstance(claims, StepFailure):
                return None
            return await steps.map_comments(model, paper_text, texts, claims, outcome.log,
                                            deadline=self._deadline())

        parsed, types, mappings = await asyncio.gather(
            steps.parse_comments(model, paper_text, texts, outcome.log,
                                 deadline=self._deadline()),
            steps.type_critiques(model, paper_text, texts, outcome.log,
                                 deadline=self._deadline()),
            mapped())
        by_index: dict[int, ParsedComment] = {}
        if isinstance(parsed, StepFailure):
            outcome.errors.append(f"{where}: parse_comments failed after two attempts: "
                                  f"{parsed.reason}")
        else:
            by_index = _parsed_by_index(parsed)
        if isinstance(mappings, StepFailure):
            outcome.errors.append(f"{where}: map_comments failed after two attempts: "
                                  f"{mappings.reason}")
        if isinstance(types, StepFailure):
            outcome.errors.append(f"{where}: type_critiques failed after two attempts: "
                                  f"{types.reason}")
        maps = mappings if isinstance(mappings, dict) else {}
        kinds = types if isinstance(types, dict) else {}
        return [CommentOutcome(c.comment_id, c.text, by_index.get(i), maps.get(i),
                               kinds.get(i))
                for i, c in enumerate(batch, start=1)]


def _parsed_by_index(batch: ParsedBatch) -> dict[int, ParsedComment]:
    return {c.comment_index: c for c in batch.comments}
