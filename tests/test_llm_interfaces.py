"""The offline models behind the async interfaces the pipelines use."""

from __future__ import annotations

import orjson
import pytest

from verifier import Settings, Verifier
from verifier.llm.interfaces import ChatModel, DecisionModel, OfflineChat, OfflineDecisions
from verifier.llm.offline import task_message
from verifier.llm.types import ChatMessage, Predicate, Role

PAPER = ("We trained the model on 10,000 images. Accuracy on the test set was 91 percent. "
         "The baseline reached 85 percent.")


@pytest.mark.asyncio
async def test_the_offline_decision_model_answers_through_the_async_interface() -> None:
    model = OfflineDecisions()
    assert isinstance(model, DecisionModel)
    result = await model.decide(PAPER, {
        "true": Predicate("Premise: Accuracy on the test set was 91 percent."),
        "false": Predicate("Premise: Accuracy on the test set was not 91 percent."),
    })
    assert result.backend == "offline"
    p_true, p_false = result.answers["true"].probability, result.answers["false"].probability
    assert p_true is not None and p_false is not None and p_true > p_false


@pytest.mark.asyncio
async def test_the_offline_chat_model_answers_a_task_prompt_with_json() -> None:
    model = OfflineChat()
    assert isinstance(model, ChatModel)
    comment = "The accuracy gain is small. The authors do not report variance across seeds."
    prompt = task_message("decompose", comment=comment)
    result = await model.complete([ChatMessage(Role.USER, prompt)])
    premises = orjson.loads(result.text)["premises"]
    assert 1 <= len(premises) <= 6
    assert result.backend == "offline"


@pytest.mark.asyncio
async def test_the_library_checks_a_comment_by_the_minimum_of_its_premises() -> None:
    async with Verifier(Settings(cache_dir=None)) as verifier:
        result = await verifier.check_comment(
            PAPER, "Accuracy on the test set was 91 percent. The baseline reached 99 "
                   "percent.")
    line = result.to_json()
    verified = [p["p_true"] for p in line["premises"] if p.get("verified")]
    assert verified and line["score"] == pytest.approx(min(verified))
    assert line["backend"] == "offline"
