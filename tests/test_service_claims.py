"""The claims endpoints of the service: premise checks and the review judge, on the
service's one session (offline baselines: no model endpoint is configured)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from service_helpers import KEY, Running, running_service

PAPER = ("We trained the model on 10,000 images. Accuracy on the test set was 91 percent. "
         "The baseline reached 85 percent. Training took 3 hours on one GPU.")


async def post(running: Running, path: str, body: Any) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.post(
            running.url + path, data=orjson.dumps(body), headers=running.headers(KEY)) as r:
        return r.status, orjson.loads(await r.read())


@pytest.mark.asyncio
async def test_a_comment_is_scored_by_the_minimum_of_its_premises(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, result = await post(running, "/v1/premises/check", {
            "paper": PAPER, "paper_id": "p1",
            "comment": "Accuracy on the test set was 91 percent. The baseline reached 99 "
                       "percent, so the method is worse."})
    assert status == 200
    assert result["paper_id"] == "p1" and result["status"] == "scored"
    verified = [p["p_true"] for p in result["premises"] if p.get("verified")]
    assert verified and result["score"] == pytest.approx(min(verified))
    assert result["backend"] == "offline"


@pytest.mark.asyncio
async def test_several_comments_come_back_in_input_order_and_bad_ones_are_named(
        tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, body = await post(running, "/v1/premises/check", {
            "paper": PAPER, "comments": [{"comment_id": "a", "comment": "Training took 3 "
                                          "hours."}, "The baseline reached 85 percent."]})
        bad_status, problem = await post(running, "/v1/premises/check",
                                         {"paper": PAPER, "comments": ["fine", 42]})
        no_paper, _ = await post(running, "/v1/premises/check", {"comment": "x"})
    assert status == 200
    assert [r["comment_id"] for r in body["results"]] == ["a", "c1"]
    assert bad_status == 422 and problem["item"] == 1
    assert no_paper == 422


@pytest.mark.asyncio
async def test_reviews_are_judged_with_the_reference_check_beside(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, body = await post(running, "/v1/reviews/judge", {
            "paper": {"paper_id": "p1", "title": "A study", "text": PAPER,
                      "references": []},
            "comments": [
                {"source": "human", "comment": "The accuracy claim of 91 percent needs "
                                               "error bars across seeds."},
                {"source": "tool", "comment": "Training time is not compared with the "
                                              "baseline."}]})
    assert status == 200
    assert body["paper_id"] == "p1"
    sources = {line["source"] for line in body["sources"]}
    assert sources == {"human", "tool"}
    for line in body["sources"]:
        assert line["claims"] and all(c["claim_id"].startswith("p1:claim-")
                                      for c in line["claims"])
        assert len(line["comments"]) == 1


@pytest.mark.asyncio
async def test_options_and_fields_the_endpoints_would_misread_are_refused(
        tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        answers = [
            await post(running, "/v1/premises/check", {
                "paper": PAPER, "comment": "y", "options": {"routing": "false"}}),
            await post(running, "/v1/premises/check", {
                "paper": PAPER, "comment": "y", "option": {"routing": False}}),
            await post(running, "/v1/reviews/judge", {
                "paper": {"paper_id": "p1", "text": PAPER},
                "comments": [{"source": "human", "comment": "Seeds?"}],
                "check_references": "no"}),
        ]
    assert [(status, body["item"]) for status, body in answers] == [
        (422, "routing"), (422, "option"), (422, "check_references")]
