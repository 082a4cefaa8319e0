"""The rubric evaluation run: rubric per paper without the review, scores validated,
rating and decision errors against the data."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from verifier.judge.inputs import PaperInput
from verifier.judge.rubric import ITEMS, PITFALL
from verifier.judge.rubric_run import OfflineRubricChat, evaluate_rubrics
from verifier.llm.types import ChatMessage, ChatResult, Usage

RUBRIC = {"rubric": {item: f"criterion for {item}" for item in ITEMS}}


def scores(rating: int, decision: str = "accept", pitfall: int = 0) -> str:
    items = dict.fromkeys(ITEMS, 2)
    items[PITFALL] = pitfall
    return json.dumps({"scores": items, "rating": rating, "decision": decision})


class ScriptedRubricChat:
    backend = "fake"

    def __init__(self, ratings: Mapping[str, Any]) -> None:
        self.ratings = ratings  # review text → reply text
        self.seen: list[tuple[str, str]] = []

    async def complete(self, messages: Sequence[ChatMessage], *,
                       schema: Mapping[str, Any] | None = None,
                       deadline: float | None = None) -> ChatResult:
        user = messages[-1].content
        task = user.splitlines()[0].removeprefix("task: ")
        self.seen.append((task, user))
        if task == "generate_rubric":
            return ChatResult(json.dumps(RUBRIC), Usage(1, 0, 1, 1), "fake", "f")
        review = user.split("<review>\n", 1)[1].split("\n</review>", 1)[0]
        return ChatResult(self.ratings[review], Usage(1, 0, 1, 1), "fake", "f")


def paper(pid: str, reviews: tuple[str, ...], ratings: tuple[int | None, ...],
          decision: str, text: str = "") -> PaperInput:
    return PaperInput(pid, "", text or f"Text of {pid}.", (), True, ratings=ratings,
                      reviews=reviews, decision=decision)


@pytest.mark.asyncio
async def test_rating_and_decision_errors_against_the_data() -> None:
    chat = ScriptedRubricChat({"r1": scores(5), "r2": scores(3), "r3": scores(2, "reject"),
                               "r4": "not json", "r5": scores(6, pitfall=-3)})
    papers = [paper("A", ("r1", "r2"), (4, 4), "Accept (poster)"),
              paper("B", ("r3", "r4", "r5"), (3, 2, 5), "Reject")]
    result = await evaluate_rubrics(papers, chat)
    # Scored: r1 (5 vs 4), r2 (3 vs 4), r3 (2 vs 3); r4 unreadable twice, r5's pitfall
    # out of range twice: both per-item errors, left out.
    assert result["reviews_scored"] == 3
    assert result["rating"]["mse"] == pytest.approx((1 + 1 + 1) / 3)
    assert result["rating"]["mae"] == pytest.approx(1.0)
    assert len(result["errors"]) == 2
    assert any("B/review 3" in e and "False or Contradictory Claims" in e
               for e in result["errors"])
    # A: mean predicted 4 → accept (right); B: 2 → reject (right).
    assert result["decision"]["accuracy"] == 1.0 and result["decision"]["n"] == 2
    assert result["mean_total"] == pytest.approx(14.0)
    rubric_calls = [user for task, user in chat.seen if task == "generate_rubric"]
    assert len(rubric_calls) == 2
    assert all("<review>" not in user for user in rubric_calls)  # never shown the review


@pytest.mark.asyncio
async def test_the_offline_rubric_baseline_answers_in_range_and_says_it_is_one() -> None:
    text = ("## Abstract\n\nWe show that the widget significantly improves recall on every "
            "benchmark. Our results indicate that the gadget reduces cost by half. We "
            "demonstrate that combining them outperforms the strongest baseline.\n")
    review = ("The widget recall claim is not supported by Table 2; please compare with a "
              "stronger baseline.\n\nThe writing is clear and the results are strong.")
    result = await evaluate_rubrics([paper("P", (review,), (4,), "Accept (poster)", text)],
                                    OfflineRubricChat())
    assert result["baseline"] is True and result["errors"] == []
    assert result["reviews_scored"] == 1
    assert -2 <= result["mean_total"] <= 14
