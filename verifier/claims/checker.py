"""PremiseCheck: a review comment scored by the minimum over its premises.

A :class:`PremiseChecker` takes a decision model and a chat model (the protocols of
:mod:`verifier.llm.interfaces`; the offline baselines by default) and, optionally, the
run's :class:`~verifier.session.Session` whose paced clients remote models use. For one
comment, :meth:`PremiseChecker.check_comment`:

1. **decomposes** it without the paper (:mod:`.decompose`; one chat call, one repair turn
   at most), into 1–6 premises (machine learning 1–4; natural science typed);
2. **routes and verifies** in one decision call about the paper: the state is the paper
   (whole when it fits the token budget, else cut by :func:`.paper_context.paper_state`'s
   rule) and the questions are, per verified premise, "can it be decided from the paper"
   (unless ``routing`` is off) and K phrasings of "is it true according to the paper" (the
   natural-science variant asks K phrasings of "does the paper contradict it" and inverts
   them). A decision model answers each question on its own, so asking the paper question
   before knowing the route changes no answer; it saves a round trip and keeps one
   request per comment on the paper's shared prefix. Premises routed ``knowledge``
   (P(grounded) < 0.5) get a second call, K phrasings of "is it true from general
   knowledge", with a fixed no-paper state; their paper answers are not used;
3. **aggregates** with :func:`.aggregate.score_comment` (minimum; mean as the ablation;
   the flagged premise is the argmin); with no premise, a holistic decision on the
   whole comment against the paper (``fallback: true``).

Failures are values: a call that fails (``SourceError``), an answer that cannot be read,
or a question refused for a premise that counts ends the comment ``inconclusive`` with the
reason; a score is never invented. Bad input (an empty, blank or over-long comment, an
empty paper) ends it ``input_error``. All comments share the checker's models (and so the
session's limits); :meth:`PremiseChecker.check_many` runs them concurrently.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from verifier.concurrency import map_bounded
from verifier.errors import SourceError
from verifier.llm.interfaces import ChatModel, DecisionModel, OfflineChat, OfflineDecisions
from verifier.llm.types import DecisionResult, Predicate, Question, Usage

from .aggregate import (
    Aggregate,
    Field,
    Inconclusive,
    NeedsHolistic,
    Premise,
    Route,
    combine_phrasings,
    holistic,
    route,
    score_comment,
    verified_premises,
)
from .decompose import decompose
from .paper_context import DEFAULT_BUDGET, paper_state
from .prompt_files import DECOMPOSE_PROMPTS, QUESTIONS, QuestionSet

if TYPE_CHECKING:
    from verifier.session import Session

MAX_COMMENT_CHARS = 5_000
"""A longer comment is an input error (a whole review pasted as one comment, most
likely: split it first). The same limit as a citation line."""
OFFLINE = "offline"


class CommentStatus(StrEnum):
    SCORED = "scored"
    INCONCLUSIVE = "inconclusive"
    """The model calls failed or were refused: re-run later; no score."""
    INPUT_ERROR = "input_error"


def phrasings_allowed() -> tuple[int, int]:
    """The fewest and the most phrasings of the verifying question a check may average:
    1 … what every section of the question file holds. The one statement of the range,
    read by :class:`PremiseOptions`, ``verifier premises --phrasings`` and the service."""
    return 1, QUESTIONS.max_phrasings


@dataclass(frozen=True, slots=True)
class PremiseOptions:
    """How comments are checked (per checker, or per call)."""

    field: Field = Field.GENERAL
    aggregate: Aggregate = Aggregate.MIN
    routing: bool = True
    """False: the no-route ablation, every premise verified against the paper."""
    phrasings: int = 1
    """K phrasings of the verifying question, averaged (1 … the question file's count)."""
    holistic_only: bool = False
    """Skip decomposition: one holistic decision on the whole comment (the ablation)."""
    paper_tokens: int = DEFAULT_BUDGET
    deadline_s: float | None = 120.0
    """Per-comment deadline handed to the models (None: none)."""

    def __post_init__(self) -> None:
        low, high = phrasings_allowed()
        if not low <= self.phrasings <= high:
            raise ValueError(f"phrasings must be {low}..{high}, got {self.phrasings}")
        if self.paper_tokens < 1:
            raise ValueError("paper_tokens must be positive")
        if self.deadline_s is not None and not self.deadline_s > 0:
            raise ValueError("deadline_s must be positive")

    @property
    def prompts(self) -> dict[str, str]:
        """The prompt versions these options use (part of every result)."""
        return {"decompose": DECOMPOSE_PROMPTS[self.field].version,
                "questions": QUESTIONS.version}


@dataclass(frozen=True, slots=True)
class CommentItem:
    """One comment to check, with the text of its paper."""

    paper_id: str
    comment_id: str
    comment: str
    paper: str


@dataclass(frozen=True, slots=True)
class CommentResult:
    """The verdict on one comment; :meth:`to_json` is its output line."""

    paper_id: str
    comment_id: str
    comment: str
    status: CommentStatus
    score: float | None
    """Scored: the minimum of the verified premises' P(true) (the mean under
    ``aggregate=mean``), or the holistic P(true) when ``fallback``. Else None."""
    flagged: int | None
    """Index of the flagged premise (lowest P(true)); None without premises."""
    premises: tuple[Premise, ...]
    verified: tuple[int, ...]
    fallback: bool
    backend: str
    usage: Usage
    elapsed_s: float
    error: str | None
    options: PremiseOptions = field(default_factory=PremiseOptions)

    @property
    def flagged_premise(self) -> str | None:
        return self.premises[self.flagged].text if self.flagged is not None else None

    @property
    def baseline(self) -> bool:
        """Every model asked was an offline baseline (or none was asked): a comment the
        configured remote model failed to answer is not a baseline's."""
        return all(part in ("", OFFLINE) for part in self.backend.split("+"))

    def to_json(self) -> dict[str, Any]:
        """The output line's object (see ``verifier premises``)."""
        verified = set(self.verified)
        return {
            "paper_id": self.paper_id,
            "comment_id": self.comment_id,
            "comment": self.comment,
            "status": self.status.value,
            "score": self.score,
            "flagged_premise": self.flagged_premise,
            "premises": [
                {"text": p.text, "kind": p.kind.value if p.kind else None,
                 "p_grounded": p.p_grounded,
                 "route": p.route.value if i in verified else None,
                 "p_true": p.p_true, "phrasings": list(p.phrasings),
                 "verified": i in verified}
                for i, p in enumerate(self.premises)],
            "fallback": self.fallback,
            "backend": self.backend,
            "baseline": self.baseline,
            "usage": {"prompt_tokens": self.usage.prompt_tokens,
                      "cached_prompt_tokens": self.usage.cached_prompt_tokens,
                      "completion_tokens": self.usage.completion_tokens,
                      "requests": self.usage.requests},
            "elapsed_s": round(self.elapsed_s, 4),
            "error": self.error,
            "field": self.options.field.value,
            "aggregate": self.options.aggregate.value,
            "routing": self.options.routing,
            "phrasings": self.options.phrasings,
            "holistic_only": self.options.holistic_only,
            "prompts": self.options.prompts,
        }


def comment_problem(comment: str) -> str | None:
    """Why a comment cannot be checked (empty, blank, over :data:`MAX_COMMENT_CHARS`)."""
    if not comment:
        return "the comment is empty"
    if not comment.strip():
        return "the comment is only whitespace"
    if len(comment) > MAX_COMMENT_CHARS:
        return (f"the comment is {len(comment):,} characters long, over the limit of "
                f"{MAX_COMMENT_CHARS:,} (split the review into comments first)")
    return None


class _CallFailed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Tally:
    """Usage and backends of one comment's calls."""

    __slots__ = ("backends", "usage")

    def __init__(self) -> None:
        self.usage = Usage()
        self.backends: list[str] = []

    def add(self, usage: Usage, backend: str) -> None:
        self.usage += usage
        self.asked(backend)

    def asked(self, backend: str) -> None:
        """Record a backend that was asked (answering or not)."""
        if backend and backend not in self.backends:
            self.backends.append(backend)

    @property
    def backend(self) -> str:
        return "+".join(self.backends)


class PremiseChecker:
    """Checks review comments by their premises::

        checker = PremiseChecker(session, decisions=..., chat=...)
        result = await checker.check_comment(paper_text, comment_text)
        async for result in checker.check_many(items, concurrency=8): ...

    ``decisions`` and ``chat`` default to the offline baselines
    (:class:`~verifier.llm.interfaces.OfflineDecisions`, :class:`OfflineChat`); the
    ``session`` is kept for the models that use its paced clients and its stats.
    """

    def __init__(
        self,
        session: Session | None = None,
        *,
        decisions: DecisionModel | None = None,
        chat: ChatModel | None = None,
        options: PremiseOptions | None = None,
        questions: QuestionSet = QUESTIONS,
    ) -> None:
        self.session = session
        self.decisions: DecisionModel = decisions if decisions is not None else OfflineDecisions()
        self.chat: ChatModel = chat if chat is not None else OfflineChat()
        self.options = options or PremiseOptions()
        self._questions = questions

    def __repr__(self) -> str:
        return (f"<PremiseChecker decisions={self.decisions.backend} chat={self.chat.backend} "
                f"{self.options}>")

    async def check_many(
        self, items: Iterable[CommentItem], *, concurrency: int = 8,
        options: PremiseOptions | None = None,
    ) -> AsyncIterator[CommentResult]:
        """Results as comments finish (not in input order), at most ``concurrency`` at
        once; closing the iterator cancels the comments in flight."""
        async def one(item: CommentItem) -> CommentResult:
            return await self.check_comment(item.paper, item.comment, paper_id=item.paper_id,
                                            comment_id=item.comment_id, options=options)

        stream = map_bounded(items, one, concurrency=concurrency)
        try:
            async for result in stream:
                yield result
        finally:
            await stream.aclose()

    async def check_comment(
        self, paper: str, comment: str, *, paper_id: str = "", comment_id: str = "",
        options: PremiseOptions | None = None,
    ) -> CommentResult:
        """The verdict on one comment about ``paper`` (the paper's text)."""
        opts = options or self.options
        started = time.monotonic()
        tally = _Tally()

        def result(status: CommentStatus, *, score: float | None = None,
                   flagged: int | None = None, premises: tuple[Premise, ...] = (),
                   verified: tuple[int, ...] = (), fallback: bool = False,
                   error: str | None = None) -> CommentResult:
            return CommentResult(paper_id, comment_id, comment, status, score, flagged,
                                 premises, verified, fallback, tally.backend, tally.usage,
                                 time.monotonic() - started, error, opts)

        problem = comment_problem(comment) or (None if paper.strip() else "the paper is empty")
        if problem is not None:
            return result(CommentStatus.INPUT_ERROR, error=problem)
        deadline = (asyncio.get_running_loop().time() + opts.deadline_s
                    if opts.deadline_s is not None else None)
        premises: tuple[Premise, ...] = ()
        try:
            if not opts.holistic_only:
                decomposition = await self._call(
                    "decomposition", decompose(self.chat, comment, opts.field, deadline=deadline),
                    self.chat.backend, tally)
                tally.add(decomposition.usage, decomposition.backend)
                if decomposition.problem is not None:
                    return result(CommentStatus.INCONCLUSIVE,
                                  error=f"decomposition: {decomposition.problem}")
                premises = decomposition.premises
            if not premises:
                p = await self._holistic(paper, comment, opts, tally, deadline)
                scored = holistic(p)
                return result(CommentStatus.SCORED, score=scored.score, fallback=True)
            premises, notes = await self._verify(paper, premises, opts, tally, deadline)
        except _CallFailed as failed:
            return result(CommentStatus.INCONCLUSIVE, premises=premises, error=failed.reason)
        verified = verified_premises(premises, opts.field)
        outcome = score_comment(premises, field=opts.field, aggregate=opts.aggregate)
        if isinstance(outcome, Inconclusive):
            reason = notes.get(outcome.premise, outcome.reason) \
                if outcome.premise is not None else outcome.reason
            return result(CommentStatus.INCONCLUSIVE, premises=premises, verified=verified,
                          error=reason)
        assert not isinstance(outcome, NeedsHolistic)  # premises is not empty here
        return result(CommentStatus.SCORED, score=outcome.score, flagged=outcome.flagged,
                      premises=premises, verified=outcome.verified)

    @staticmethod
    async def _call(stage: str, call: Any, backend: str, tally: _Tally) -> Any:
        """``call``'s answer; a failure is :class:`_CallFailed`, and the ``backend`` that
        was asked is recorded: a comment the configured model could not answer is not an
        offline baseline's result."""
        try:
            return await call
        except SourceError as exc:
            tally.asked(backend)
            raise _CallFailed(f"{stage}: {exc.kind.value}: {exc}") from exc

    async def _decide(self, stage: str, state: str, questions: Mapping[str, Question],
                      tally: _Tally, deadline: float | None) -> DecisionResult:
        answer: DecisionResult = await self._call(
            stage, self.decisions.decide(state, questions, deadline=deadline),
            self.decisions.backend, tally)
        tally.add(answer.usage, answer.backend)
        return answer

    async def _holistic(self, paper: str, comment: str, opts: PremiseOptions, tally: _Tally,
                        deadline: float | None) -> float:
        name = f"{self._questions.tag}_holistic"
        question = Predicate(self._questions.holistic.replace("{comment}", comment))
        state = paper_state(paper, [comment], opts.paper_tokens)
        answer = await self._decide("holistic decision", state, {name: question}, tally,
                                    deadline)
        p = _probability(answer, name)
        if p is None:
            raise _CallFailed("holistic decision: the model gave no probability (refusal)")
        return p

    async def _verify(
        self, paper: str, premises: tuple[Premise, ...], opts: PremiseOptions, tally: _Tally,
        deadline: float | None,
    ) -> tuple[tuple[Premise, ...], dict[int, str]]:
        """Premises with P(grounded), route and P(true) filled in; notes say why a
        verified premise got no P(true)."""
        qs, tag, k = self._questions, self._questions.tag, opts.phrasings
        contradiction = opts.field is Field.NATURAL_SCIENCE
        paper_phrasings = (qs.contradiction if contradiction else qs.paper)[:k]
        chosen = verified_premises(premises, opts.field)
        questions: dict[str, Question] = {}
        for i in chosen:
            text = premises[i].text
            if opts.routing:
                questions[f"{tag}_p{i}_grounded"] = Predicate(_fill(qs.grounded, text))
            for j, phrasing in enumerate(paper_phrasings):
                questions[f"{tag}_p{i}_paper_{j}"] = Predicate(_fill(phrasing, text))
        state = paper_state(paper, [premises[i].text for i in chosen], opts.paper_tokens)
        on_paper = await self._decide("paper decision", state, questions, tally, deadline)

        updated = list(premises)
        notes: dict[int, str] = {}
        knowledge: list[int] = []
        for i in chosen:
            p_grounded = None
            if opts.routing:
                p_grounded = _probability(on_paper, f"{tag}_p{i}_grounded")
                if p_grounded is None:
                    notes[i] = f"premise {i + 1}: the routing question was refused"
                    updated[i] = replace(premises[i], route=Route.PAPER)
                    continue
            where = route(p_grounded, routing=True) if p_grounded is not None else Route.PAPER
            updated[i] = replace(premises[i], p_grounded=p_grounded, route=where)
            if where is Route.KNOWLEDGE:
                knowledge.append(i)
                continue
            answers = [p for j in range(k)
                       if (p := _probability(on_paper, f"{tag}_p{i}_paper_{j}")) is not None]
            updated[i] = _with_phrasings(updated[i], answers, contradiction=contradiction)
            if not answers:
                notes[i] = f"premise {i + 1}: every paper question was refused"

        if knowledge:
            k_questions: dict[str, Question] = {
                f"{tag}_p{i}_knowledge_{j}": Predicate(_fill(phrasing, premises[i].text))
                for i in knowledge for j, phrasing in enumerate(qs.knowledge[:k])}
            on_knowledge = await self._decide("knowledge decision", qs.knowledge_state,
                                              k_questions, tally, deadline)
            for i in knowledge:
                answers = [p for j in range(k) if (p := _probability(
                    on_knowledge, f"{tag}_p{i}_knowledge_{j}")) is not None]
                updated[i] = _with_phrasings(updated[i], answers, contradiction=False)
                if not answers:
                    notes[i] = f"premise {i + 1}: every general-knowledge question was refused"
        return tuple(updated), notes


def _fill(phrasing: str, premise: str) -> str:
    return phrasing.replace("{premise}", premise)


def _probability(answer: DecisionResult, name: str) -> float | None:
    """The answer's probability, None for a refusal or a question left unanswered."""
    decision = answer.answers.get(name)
    return decision.probability if decision is not None else None


def _with_phrasings(premise: Premise, answers: list[float], *, contradiction: bool) -> Premise:
    if not answers:
        return replace(premise, p_true=None, phrasings=())
    values = tuple(1.0 - a if contradiction else a for a in answers)
    return replace(premise, p_true=combine_phrasings(answers, contradiction=contradiction),
                   phrasings=values)


__all__ = [
    "MAX_COMMENT_CHARS",
    "CommentItem",
    "CommentResult",
    "CommentStatus",
    "PremiseChecker",
    "PremiseOptions",
    "comment_problem",
]
