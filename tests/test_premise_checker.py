"""PremiseCheck's pipeline on fake in-memory models: decomposition, routing, verification,
phrasings, aggregation, the holistic fallback, and failures as inconclusive."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from verifier.claims.aggregate import Aggregate, Field, PremiseKind, Route
from verifier.claims.checker import (
    MAX_COMMENT_CHARS,
    CommentItem,
    CommentStatus,
    PremiseChecker,
    PremiseOptions,
)
from verifier.claims.prompt_files import QUESTIONS
from verifier.errors import RateLimited, ServerError
from verifier.llm.types import (
    AnswerKind,
    ChatMessage,
    ChatResult,
    Decision,
    DecisionResult,
    Predicate,
    Question,
    Usage,
)

PAPER = "# A paper\n\n## Abstract\n\nWe measure things carefully.\n\n## Results\n\nThings grew."


def _statement(instructions: str) -> str:
    return instructions.rsplit(":", 1)[1].strip()


class FakeChat:
    """Answers every decomposition with the next scripted answer (the last one repeats)."""

    backend = "fake-chat"

    def __init__(self, *answers: Any, fail: Exception | None = None) -> None:
        self.answers = [a if isinstance(a, str) else json.dumps(a) for a in answers]
        self.fail = fail
        self.calls: list[Sequence[ChatMessage]] = []

    async def complete(self, messages: Sequence[ChatMessage], *,
                       schema: Mapping[str, Any] | None = None,
                       deadline: float | None = None) -> ChatResult:
        self.calls.append(messages)
        if self.fail is not None:
            raise self.fail
        text = self.answers[min(len(self.calls) - 1, len(self.answers) - 1)]
        return ChatResult(text, Usage(prompt_tokens=100, completion_tokens=20, requests=1),
                          "fake-chat", "fake")


class FakeDecisions:
    """P(true) and P(grounded) by premise text; per-phrasing offsets; scripted failures.

    A question's phrasing is recognised by its text: the j-th phrasing of a section gets
    ``p + offsets[j]``. The contradiction question answers ``1 - p``."""

    backend = "fake-decisions"

    def __init__(self, truth: Mapping[str, float], grounded: Mapping[str, float] | None = None,
                 *, offsets: Sequence[float] = (), fail: Exception | None = None,
                 refuse: set[str] | None = None, knowledge: Mapping[str, float] | None = None,
                 holistic: float = 0.42) -> None:
        self.truth = truth
        self.grounded = grounded or {}
        self.knowledge = knowledge or {}
        self.offsets = offsets
        self.fail = fail
        self.refuse = refuse or set()
        self.holistic = holistic
        self.calls: list[tuple[str, dict[str, Question]]] = []

    async def decide(self, state: str, questions: Mapping[str, Question], *,
                     deadline: float | None = None) -> DecisionResult:
        self.calls.append((state, dict(questions)))
        if self.fail is not None:
            raise self.fail
        answers = {}
        for name, question in questions.items():
            assert isinstance(question, Predicate)
            text = question.instructions
            statement = _statement(text)
            if statement in self.refuse:
                answers[name] = Decision(AnswerKind.REFUSAL, None)
                continue
            if "_holistic" in name:
                p = self.holistic
            elif "_grounded" in name:
                p = self.grounded.get(statement, 0.9)
            elif "_knowledge_" in name:
                p = self.knowledge.get(statement, 0.5) + self._offset(QUESTIONS.knowledge, text)
            elif text.split(" Premise:")[0] + " Premise: {premise}" in QUESTIONS.contradiction:
                p = 1.0 - self.truth[statement] - self._offset(QUESTIONS.contradiction, text)
            else:
                p = self.truth[statement] + self._offset(QUESTIONS.paper, text)
            answers[name] = Decision(AnswerKind.PREDICATE, p, {"yes": p, "no": 1 - p})
        return DecisionResult(answers, Usage(prompt_tokens=1000, cached_prompt_tokens=800,
                                             completion_tokens=len(questions), requests=1),
                              "fake-decisions", "fake")

    def _offset(self, section: Sequence[str], text: str) -> float:
        template = text.split(" Premise:")[0] + " Premise: {premise}"
        j = section.index(template)
        return self.offsets[j] if j < len(self.offsets) else 0.0


def checker(chat: FakeChat, decisions: FakeDecisions, **options: Any) -> PremiseChecker:
    return PremiseChecker(decisions=decisions, chat=chat, options=PremiseOptions(**options))


THREE = {"premises": ["The method beats the baseline.", "The test set has 500 images.",
                      "Results are averaged over five seeds."]}
TRUTH = {"The method beats the baseline.": 0.9, "The test set has 500 images.": 0.2,
         "Results are averaged over five seeds.": 0.6}


@pytest.mark.asyncio
async def test_the_score_is_the_minimum_over_premises_and_the_argmin_is_flagged() -> None:
    result = await checker(FakeChat(THREE), FakeDecisions(TRUTH)).check_comment(
        PAPER, "A comment.", paper_id="p1", comment_id="c1")
    assert result.status is CommentStatus.SCORED
    assert result.score == pytest.approx(0.2)
    assert result.flagged_premise == "The test set has 500 images."
    line = result.to_json()
    assert line["score"] == min(p["p_true"] for p in line["premises"] if p["verified"])
    assert [p["route"] for p in line["premises"]] == ["paper"] * 3
    assert line["fallback"] is False and line["error"] is None
    assert line["usage"]["requests"] == 2  # one chat call, one decision call
    assert line["backend"] == "fake-chat+fake-decisions" and line["baseline"] is False


@pytest.mark.asyncio
async def test_the_mean_ablation_averages_but_still_flags_the_weakest_premise() -> None:
    result = await checker(FakeChat(THREE), FakeDecisions(TRUTH),
                           aggregate=Aggregate.MEAN).check_comment(PAPER, "A comment.")
    assert result.score == pytest.approx((0.9 + 0.2 + 0.6) / 3)
    assert result.flagged_premise == "The test set has 500 images."


@pytest.mark.asyncio
async def test_a_premise_routed_to_knowledge_is_judged_without_the_paper() -> None:
    decisions = FakeDecisions(TRUTH, grounded={"Results are averaged over five seeds.": 0.3},
                              knowledge={"Results are averaged over five seeds.": 0.05})
    result = await checker(FakeChat(THREE), decisions).check_comment(PAPER, "A comment.")
    premise = result.premises[2]
    assert premise.route is Route.KNOWLEDGE and premise.p_grounded == pytest.approx(0.3)
    assert premise.p_true == pytest.approx(0.05)  # the knowledge answer, not the paper's 0.6
    assert result.flagged_premise == "Results are averaged over five seeds."
    (paper_state, _), (knowledge_state, k_questions) = decisions.calls
    assert paper_state == PAPER
    assert knowledge_state == QUESTIONS.knowledge_state
    assert list(k_questions) == [f"{QUESTIONS.tag}_p2_knowledge_0"]


@pytest.mark.asyncio
async def test_without_routing_no_grounded_question_is_asked_and_all_go_to_the_paper() -> None:
    decisions = FakeDecisions(TRUTH, grounded={"Results are averaged over five seeds.": 0.1})
    result = await checker(FakeChat(THREE), decisions, routing=False).check_comment(
        PAPER, "A comment.")
    assert len(decisions.calls) == 1
    assert not any("grounded" in name for name in decisions.calls[0][1])
    assert all(p.route is Route.PAPER and p.p_grounded is None for p in result.premises)
    assert result.score == pytest.approx(0.2)


@pytest.mark.asyncio
async def test_no_premise_falls_back_to_a_holistic_decision_on_the_whole_comment() -> None:
    decisions = FakeDecisions({}, holistic=0.37)
    result = await checker(FakeChat({"premises": []}), decisions).check_comment(
        PAPER, "Nice work overall.")
    assert result.status is CommentStatus.SCORED
    assert result.fallback is True and result.score == pytest.approx(0.37)
    assert result.flagged_premise is None and result.premises == ()
    (state, questions), = decisions.calls
    (question,) = questions.values()
    assert isinstance(question, Predicate) and question.instructions.endswith("Nice work overall.")


@pytest.mark.asyncio
async def test_the_holistic_ablation_skips_decomposition() -> None:
    chat = FakeChat(THREE)
    result = await checker(chat, FakeDecisions({}, holistic=0.8),
                           holistic_only=True).check_comment(PAPER, "A comment.")
    assert chat.calls == [] and result.fallback is True and result.score == pytest.approx(0.8)


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["chat", "decisions"])
async def test_a_failing_call_ends_the_comment_inconclusive_with_the_reason(where: str) -> None:
    failure = RateLimited("429 from the endpoint", retry_after=3.0)
    chat = FakeChat(THREE, fail=failure if where == "chat" else None)
    decisions = FakeDecisions(TRUTH, fail=failure if where == "decisions" else None)
    result = await checker(chat, decisions).check_comment(PAPER, "A comment.")
    assert result.status is CommentStatus.INCONCLUSIVE
    assert result.score is None and result.to_json()["score"] is None
    stage = "decomposition" if where == "chat" else "paper decision"
    assert result.error is not None and result.error.startswith(f"{stage}: rate_limited")
    assert "429 from the endpoint" in result.error
    # The line names the model that was asked: an unanswered comment of a remote model
    # is not an offline baseline's result.
    asked = "fake-chat" if where == "chat" else "fake-chat+fake-decisions"
    assert result.to_json()["backend"] == asked and result.to_json()["baseline"] is False


@pytest.mark.asyncio
async def test_a_failing_knowledge_call_is_inconclusive_not_a_partial_score() -> None:
    class FailSecond(FakeDecisions):
        async def decide(self, state: str, questions: Mapping[str, Question], *,
                         deadline: float | None = None) -> DecisionResult:
            if self.calls:
                self.calls.append((state, dict(questions)))
                raise ServerError("503", 503)
            return await super().decide(state, questions, deadline=deadline)

    decisions = FailSecond(TRUTH, grounded={"The method beats the baseline.": 0.1})
    result = await checker(FakeChat(THREE), decisions).check_comment(PAPER, "A comment.")
    assert result.status is CommentStatus.INCONCLUSIVE and result.score is None
    assert result.error is not None and result.error.startswith("knowledge decision: error")


@pytest.mark.asyncio
async def test_a_refused_premise_makes_the_comment_inconclusive_naming_it() -> None:
    decisions = FakeDecisions(TRUTH, refuse={"The test set has 500 images."})
    result = await checker(FakeChat(THREE), decisions).check_comment(PAPER, "A comment.")
    assert result.status is CommentStatus.INCONCLUSIVE and result.score is None
    assert result.error == "premise 2: the routing question was refused"


@pytest.mark.asyncio
async def test_k_phrasings_are_averaged_and_each_is_kept() -> None:
    offsets = (0.0, 0.05, -0.05, 0.08)
    decisions = FakeDecisions(TRUTH, offsets=offsets)
    result = await checker(FakeChat(THREE), decisions, phrasings=4).check_comment(
        PAPER, "A comment.")
    weakest = result.premises[1]
    assert weakest.phrasings == pytest.approx(tuple(0.2 + o for o in offsets))
    assert weakest.p_true == pytest.approx(0.2 + sum(offsets) / 4)
    assert result.score == pytest.approx(0.2 + sum(offsets) / 4)
    names = list(decisions.calls[0][1])
    assert sum(name.startswith(f"{QUESTIONS.tag}_p1_paper_") for name in names) == 4


@pytest.mark.asyncio
async def test_natural_science_asks_the_contradiction_question_and_inverts_it() -> None:
    typed = {"premises": [{"text": "The method beats the baseline.", "kind": "paper"},
                          {"text": "The test set has 500 images.", "kind": "opinion"}]}
    decisions = FakeDecisions(TRUTH)
    result = await checker(FakeChat(typed), decisions,
                           field=Field.NATURAL_SCIENCE).check_comment(PAPER, "A comment.")
    # Only the paper-typed premise counts; the opinion is neither asked nor scored.
    assert result.verified == (0,)
    assert result.premises[1].kind is PremiseKind.OPINION and result.premises[1].p_true is None
    assert result.score == pytest.approx(0.9)
    questions = decisions.calls[0][1]
    assert all("_p1_" not in name for name in questions)
    paper_question = questions[f"{QUESTIONS.tag}_p0_paper_0"]
    assert isinstance(paper_question, Predicate)
    assert "contradict" in paper_question.instructions


@pytest.mark.asyncio
async def test_a_broken_decomposition_gets_one_repair_turn() -> None:
    too_many = {"premises": [f"Premise number {i} holds." for i in range(5)]}
    chat = FakeChat(too_many, {"premises": ["The method beats the baseline."]})
    result = await checker(chat, FakeDecisions(TRUTH),
                           field=Field.MACHINE_LEARNING).check_comment(PAPER, "A comment.")
    assert len(chat.calls) == 2 and "at most 4" in chat.calls[1][-1].content
    assert result.status is CommentStatus.SCORED and result.score == pytest.approx(0.9)


@pytest.mark.asyncio
async def test_a_decomposition_still_broken_after_repair_is_inconclusive() -> None:
    chat = FakeChat("this is not JSON at all")
    result = await checker(chat, FakeDecisions(TRUTH)).check_comment(PAPER, "A comment.")
    assert len(chat.calls) == 2
    assert result.status is CommentStatus.INCONCLUSIVE
    assert result.error is not None and result.error.startswith("decomposition: unreadable")


@pytest.mark.asyncio
@pytest.mark.parametrize(("comment", "reason"), [
    ("", "empty"), ("  \n\t ", "whitespace"), ("x" * (MAX_COMMENT_CHARS + 1), "limit")])
async def test_bad_comments_are_input_errors_without_any_call(comment: str, reason: str) -> None:
    chat, decisions = FakeChat(THREE), FakeDecisions(TRUTH)
    result = await checker(chat, decisions).check_comment(PAPER, comment)
    assert result.status is CommentStatus.INPUT_ERROR and result.score is None
    assert result.error is not None and reason in result.error
    assert chat.calls == [] and decisions.calls == []


@pytest.mark.asyncio
async def test_comments_on_one_paper_share_the_paper_as_the_state_prefix() -> None:
    decisions = FakeDecisions(TRUTH)
    items = [CommentItem("p1", f"c{i}", "A comment.", PAPER) for i in range(3)]
    results = [r async for r in checker(FakeChat(THREE), decisions).check_many(
        items, concurrency=3)]
    assert sorted(r.comment_id for r in results) == ["c0", "c1", "c2"]
    assert {state for state, _ in decisions.calls} == {PAPER}


@pytest.mark.asyncio
async def test_the_decomposition_request_carries_the_prompt_version_and_not_the_paper() -> None:
    chat = FakeChat(THREE)
    result = await checker(chat, FakeDecisions(TRUTH),
                           field=Field.MACHINE_LEARNING).check_comment(PAPER, "A comment.")
    text = "\n".join(m.content for m in chat.calls[0])
    assert "version: decompose-ml-v1" in text and "task: decompose" in text
    assert "Things grew" not in text
    assert result.to_json()["prompts"] == {"decompose": "decompose-ml-v1",
                                           "questions": QUESTIONS.version}


@pytest.mark.asyncio
async def test_the_offline_baselines_are_the_default_and_say_so() -> None:
    result = await PremiseChecker().check_comment(
        "We trained on 10,000 images. Accuracy was 91 percent.",
        "Accuracy was 91 percent on 10,000 images.")
    assert result.status is CommentStatus.SCORED
    assert result.backend == "offline" and result.to_json()["baseline"] is True


def test_phrasings_beyond_the_question_file_are_refused() -> None:
    with pytest.raises(ValueError, match="phrasings"):
        PremiseOptions(phrasings=QUESTIONS.max_phrasings + 1)
