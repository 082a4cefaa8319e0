"""The judge's four steps on fake in-memory chat models: validation, ids, retries."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from verifier.judge.inputs import PaperInput, reference_section, references_of
from verifier.judge.models import CritiqueType, Stance
from verifier.judge.pipeline import CommentInput, Judge, JudgeOptions
from verifier.llm.types import ChatMessage, ChatResult, Usage

PAPER = "Our results show that the widget improves recall. The gadget reduces cost."

Reply = Callable[[str, Sequence[ChatMessage]], str]


def task_of(messages: Sequence[ChatMessage]) -> str:
    found = re.search(r"(?m)^task: (\w+)$", messages[-1].content)
    assert found, "every judge call names its task"
    return found.group(1)


class FakeChat:
    """Answers each task with ``replies[task]`` (a function of the call number)."""

    backend = "fake"

    def __init__(self, replies: Mapping[str, Callable[[int], str]], delay: float = 0.0) -> None:
        self.replies = replies
        self.delay = delay
        self.calls: list[tuple[str, list[ChatMessage]]] = []
        self.in_flight = 0
        self.max_in_flight = 0

    async def complete(self, messages: Sequence[ChatMessage], *,
                       schema: Mapping[str, Any] | None = None,
                       deadline: float | None = None) -> ChatResult:
        task = task_of(messages)
        n = sum(1 for t, _ in self.calls if t == task)
        self.calls.append((task, list(messages)))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        return ChatResult(self.replies[task](n), Usage(10, 0, 2, 1), "fake", "fake-1")

    def count(self, task: str) -> int:
        return sum(1 for t, _ in self.calls if t == task)


def good(task: str, n_comments: int = 2) -> Callable[[int], str]:
    answers = {
        "extract_claims": {"claims": [{"summary": "Widget improves recall",
                                       "source_excerpt": "the widget improves recall"},
                                      {"summary": "Gadget reduces cost", "source_excerpt": None},
                                      {"summary": "  ", "source_excerpt": "dropped: no summary"}]},
        "parse_comments": {"comments": [
            {"comment_index": i, "anchor": "Table 2" if i == 1 else None,
             "specification": f"issue {i}", "justification": None, "remedy": "  "}
            for i in range(1, n_comments + 1)]},
        "map_comments": {"mappings": [
            {"comment_index": 1, "claim_id": "p1:claim-1", "stance": "critical",
             "is_consequential": True},
            {"comment_index": 2, "claim_id": "p1:claim-9", "stance": "CRITICAL",
             "is_consequential": True}]},
        "type_critiques": {"types": [{"comment_index": 1, "type": "Validity"},
                                     {"comment_index": 2, "type": "vibes"}]},
    }
    text = json.dumps(answers[task])
    return lambda _n: text


def all_good() -> dict[str, Callable[[int], str]]:
    return {t: good(t) for t in ("extract_claims", "parse_comments", "map_comments",
                                 "type_critiques")}


COMMENTS = [CommentInput("p1:human:1.1", "Table 2 does not support the recall claim."),
            CommentInput("p1:human:1.2", "The cost claim is unclear.")]


@pytest.mark.asyncio
async def test_claim_ids_are_assigned_by_code_and_the_validation_rules_apply() -> None:
    chat = FakeChat(all_good())
    outcome = await Judge(chat).judge_paper("p1", PAPER, {"human": COMMENTS})
    assert outcome.claims and not isinstance(outcome.claims, Exception)
    source = outcome.sources["human"]
    assert [c.claim_id for c in source.claims] == ["p1:claim-1", "p1:claim-2"]
    first, second = source.comments
    assert first.mapping is not None and first.mapping.claim_id == "p1:claim-1"
    assert first.mapping.stance is Stance.CRITICAL  # stances read upper-cased
    assert first.mapping.is_consequential is True
    assert first.critique_type is CritiqueType.VALIDITY
    # An unknown claim id is null, and so are its stance and consequence.
    assert second.mapping is not None and second.mapping.claim_id is None
    assert second.mapping.stance is None and second.mapping.is_consequential is None
    assert second.critique_type is None  # an invalid type is null
    assert first.parsed is not None and first.parsed.anchor == "Table 2"
    assert first.parsed.remedy is None  # a blank field is null
    judgement = source.judgement()
    assert judgement is not None and judgement.unjudged == 0
    assert judgement.claim_ids == ("p1:claim-1", "p1:claim-2")


@pytest.mark.asyncio
async def test_every_call_has_the_paper_as_its_identical_first_message() -> None:
    chat = FakeChat(all_good())
    await Judge(chat).judge_paper("p1", PAPER, {"human": COMMENTS, "tool": COMMENTS})
    firsts = {messages[0].content for _, messages in chat.calls}
    assert len(firsts) == 1 and PAPER in firsts.pop()
    assert chat.count("extract_claims") == 1  # once per paper, not per source
    assert chat.count("parse_comments") == 2


@pytest.mark.asyncio
async def test_an_empty_array_twice_is_a_per_item_error_and_the_comments_unjudged() -> None:
    replies = all_good()
    replies["parse_comments"] = lambda _n: '{"comments": []}'
    chat = FakeChat(replies)
    source = (await Judge(chat).judge_paper("p1", PAPER, {"human": COMMENTS})).sources["human"]
    assert chat.count("parse_comments") == 2  # two attempts, no more
    assert len(source.errors) == 1
    assert "p1/human batch 1: parse_comments failed after two attempts" in source.errors[0]
    assert "empty" in source.errors[0]
    judgement = source.judgement()
    assert judgement is not None and judgement.comments == () and judgement.unjudged == 2


@pytest.mark.asyncio
async def test_a_bad_first_answer_is_retried_once_and_repaired_json_is_accepted() -> None:
    replies = all_good()
    fenced = "```json\n" + good("parse_comments")(0)[:-2] + "]},\n]}\n```"
    replies["parse_comments"] = lambda n: "I cannot" if n == 0 else fenced
    # A fenced answer with trailing commas is repaired, not retried.
    replies["type_critiques"] = lambda _n: "Sure! " + good("type_critiques")(0) + " Done."
    chat = FakeChat(replies)
    outcome = await Judge(chat).judge_paper("p1", PAPER, {"human": COMMENTS})
    source = outcome.sources["human"]
    assert source.errors == []
    assert chat.count("parse_comments") == 2 and chat.count("type_critiques") == 1
    assert outcome.log.failed_attempts == 1
    assert all(c.assessed for c in source.comments)


@pytest.mark.asyncio
async def test_claims_that_fail_twice_leave_every_source_unjudged_with_the_reason() -> None:
    replies = all_good()
    replies["extract_claims"] = lambda _n: '{"claims": [{"summary": ""}]}'
    chat = FakeChat(replies)
    outcome = await Judge(chat).judge_paper("p1", PAPER, {"human": COMMENTS, "tool": COMMENTS})
    assert chat.count("extract_claims") == 2
    assert chat.count("map_comments") == 0  # nothing to map to
    for source in outcome.sources.values():
        assert source.failed is not None and "claim extraction failed" in source.failed
        assert source.judgement() is None


@pytest.mark.asyncio
async def test_a_model_failure_is_an_attempt_not_a_crash() -> None:
    class Failing(FakeChat):
        async def complete(self, messages: Sequence[ChatMessage], *,
                           schema: Mapping[str, Any] | None = None,
                           deadline: float | None = None) -> ChatResult:
            if task_of(messages) == "type_critiques":
                self.calls.append(("type_critiques", list(messages)))
                raise ValueError("unsupported")
            return await super().complete(messages, schema=schema, deadline=deadline)

    chat = Failing(all_good())
    source = (await Judge(chat).judge_paper("p1", PAPER, {"human": COMMENTS})).sources["human"]
    assert chat.count("type_critiques") == 2
    assert any("type_critiques failed" in e for e in source.errors)
    assert all(c.assessed and c.critique_type is None for c in source.comments)


@pytest.mark.asyncio
async def test_a_source_without_comments_is_named_not_judged() -> None:
    source = (await Judge(FakeChat(all_good())).judge_paper("p1", PAPER, {"tool": []})
              ).sources["tool"]
    assert source.failed == "no comments" and source.judgement() is None


@pytest.mark.asyncio
async def test_calls_per_paper_bound_the_calls_in_flight_and_batches_split() -> None:
    replies = all_good()
    replies["parse_comments"] = good("parse_comments", 2)
    chat = FakeChat(replies, delay=0.01)
    many = [CommentInput(f"p1:human:1.{i}", f"comment {i}") for i in range(1, 7)]
    options = JudgeOptions(calls_per_paper=2, calls_per_source=2, batch_size=2)
    await Judge(chat, options).judge_paper("p1", PAPER, {"human": many, "tool": many})
    assert chat.max_in_flight == 2
    assert chat.count("parse_comments") == 6  # 3 batches × 2 sources


def test_the_reference_section_is_read_from_the_text_when_none_is_given() -> None:
    text = ("# Title\n\nBody text.\n\n## References\n\n"
            "1. Smith, J. (2019). A study of widgets. Journal of Things, 3(2), 1-9.\n"
            "2. Doe, A. (2020). Gadgets revisited. Proceedings of Stuff, 11-20.\n\n"
            "## Appendix\n\nNot a reference.\n")
    assert "Appendix" not in (reference_section(text) or "")
    paper = PaperInput("p9", "", text, (), False)
    items, errors = references_of(paper)
    assert [i.id for i in items] == ["p9:ref-1", "p9:ref-2"] and errors == []
    assert "widgets" in items[0].text and "Gadgets" in items[1].text
    given = PaperInput("p9", "", text, ("Given, A. (2001). X.",), True)
    assert [i.text for i in references_of(given)[0]] == ["Given, A. (2001). X."]


@pytest.mark.parametrize("bad", [0, -1])
def test_impossible_options_fail_loudly(bad: int) -> None:
    with pytest.raises(ValueError, match="calls_per_paper"):
        JudgeOptions(calls_per_paper=bad)
