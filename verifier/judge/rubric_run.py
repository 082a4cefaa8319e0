"""ReviewGrounder's rubric evaluation, run: rubrics per paper, reviews scored against them,
ratings and decisions compared with the venue's.

For each paper:

1. **Rubric generation** (one chat call, task ``generate_rubric``): the paper only, never
   a review; the answer must give a non-empty criterion for each of the eight items of
   :data:`~.rubric.ITEMS`.
2. **Scoring** (one call per review, task ``score_rubric``): the paper, the rubric and
   the review; the scores are validated by :func:`~.rubric.score_rubric` (every item, each
   in its range, total −2…14), with the rating the review argues for (1–6) and its
   decision (accept/reject).

Two attempts per call (JSON repaired), as for the judge's steps; a call that fails twice
is a per-item error and its review is left out of the errors below. Against the data
(the NeurIPS set carries each reviewer's rating and the paper's decision):

- ratings: MSE and MAE of the predicted against the reviewer's own rating
  (:func:`~.rubric.rating_errors`);
- decisions: the paper's predicted decision (accept when the mean predicted rating of its
  reviews is at least :data:`ACCEPT_AT`) against the actual one, accuracy and F1 of the
  accept class (:func:`~.rubric.decision_scores`).

:class:`OfflineRubricChat` answers both tasks by rule (a **baseline**; other tasks go to
the offline chat model), see its docstring.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verifier.llm.interfaces import ChatModel, OfflineChat
from verifier.llm.offline import extract_claims, parse_comments
from verifier.llm.offline.comments import stance_of
from verifier.llm.offline.text import terms
from verifier.llm.types import ChatMessage, ChatResult, Role, Usage
from verifier.reviews.splitting import split_review

from .rubric import ITEMS, PITFALL, accepts, decision_scores, rating_errors, score_rubric
from .steps import CallLog, StepFailure, ask
from .validate import Rejected

ACCEPT_AT = 4.0
"""NeurIPS 2025's scale: 4 is "borderline accept"."""

RUBRIC_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["rubric"],
    "properties": {"rubric": {"type": "object", "additionalProperties": False,
                              "required": list(ITEMS),
                              "properties": {item: {"type": "string"} for item in ITEMS}}},
}
SCORE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "required": ["scores", "rating", "decision"],
    "properties": {
        "scores": {"type": "object", "additionalProperties": False, "required": list(ITEMS),
                   "properties": {item: {"type": "integer"} for item in ITEMS}},
        "rating": {"type": ["integer", "null"]},
        "decision": {"type": ["string", "null"], "enum": ["accept", "reject", None]},
    },
}


def validate_rubric(answer: object) -> dict[str, str] | Rejected:
    if not isinstance(answer, Mapping):
        return Rejected("rubric: expected an object")
    rubric = answer.get("rubric", answer)
    if not isinstance(rubric, Mapping):
        return Rejected("rubric: expected an object of criteria")
    missing = [item for item in ITEMS
               if not isinstance(rubric.get(item), str) or not str(rubric[item]).strip()]
    if missing:
        return Rejected(f"rubric: no criterion for {', '.join(missing)}")
    return {item: str(rubric[item]).strip() for item in ITEMS}


@dataclass(frozen=True, slots=True)
class ReviewScore:
    total: int
    rating: int | None
    accept: bool | None


def validate_score(answer: object) -> ReviewScore | Rejected:
    if not isinstance(answer, Mapping) or not isinstance(answer.get("scores"), Mapping):
        return Rejected("score: expected {scores, rating, decision}")
    try:
        scored = score_rubric(answer["scores"])
    except ValueError as exc:
        return Rejected(f"score: {exc}")
    rating = answer.get("rating")
    if isinstance(rating, bool) or not isinstance(rating, int) or not 1 <= rating <= 6:
        rating = None
    decision = answer.get("decision")
    accept = accepts(decision) if isinstance(decision, str) else None
    return ReviewScore(scored.total, rating, accept)


@dataclass(slots=True)
class PaperRubric:
    paper_id: str
    rubric: dict[str, str] | None
    scores: list[ReviewScore | None]
    errors: list[str]


async def evaluate_paper(chat: ChatModel, paper_id: str, text: str,
                         reviews: Sequence[str], log: CallLog) -> PaperRubric:
    rubric = await _ask_object(chat, "generate_rubric", text, {}, validate_rubric, log)
    if isinstance(rubric, StepFailure):
        return PaperRubric(paper_id, None, [None] * len(reviews),
                           [f"{paper_id}: generate_rubric failed after two attempts: "
                            f"{rubric.reason}"])
    rubric_json = json.dumps(rubric, ensure_ascii=False)
    results = await asyncio.gather(*(
        _ask_object(chat, "score_rubric", text, {"rubric": rubric_json, "review": review},
                    validate_score, log) for review in reviews))
    errors = [f"{paper_id}/review {i}: score_rubric failed after two attempts: {r.reason}"
              for i, r in enumerate(results, start=1) if isinstance(r, StepFailure)]
    return PaperRubric(paper_id, rubric,
                       [r if isinstance(r, ReviewScore) else None for r in results], errors)


async def _ask_object(chat: ChatModel, task: str, text: str, sections: Mapping[str, str],
                      validate: Any, log: CallLog) -> Any:
    schema = RUBRIC_SCHEMA if task == "generate_rubric" else SCORE_SCHEMA
    return await ask(chat, task, text, sections, validate, log, schema=schema, key=None)


async def evaluate_rubrics(papers: Sequence[Any], chat: ChatModel | None = None,
                           *, papers_in_flight: int = 4) -> dict[str, Any]:
    """The rubric evaluation of ``papers`` (:class:`~.inputs.PaperInput` values with
    ``reviews``, ``ratings`` and ``decision``); a JSON-ready summary."""
    model = chat if chat is not None else OfflineRubricChat()
    log = CallLog()
    limit = asyncio.Semaphore(papers_in_flight)

    async def one(paper: Any) -> PaperRubric:
        async with limit:
            return await evaluate_paper(model, paper.paper_id, paper.text, paper.reviews, log)

    done = await asyncio.gather(*(one(p) for p in papers if p.reviews))
    predicted: list[float | None] = []
    reference: list[float | None] = []
    totals: list[int] = []
    decided_pred: list[bool] = []
    decided_true: list[bool] = []
    errors: list[str] = []
    by_id = {p.paper_id: p for p in papers}
    for result in done:
        paper = by_id[result.paper_id]
        errors += result.errors
        ratings = list(paper.ratings) + [None] * (len(result.scores) - len(paper.ratings))
        for score, actual in zip(result.scores, ratings, strict=False):
            if score is None:
                continue
            totals.append(score.total)
            predicted.append(score.rating)
            reference.append(actual)
        mine = [s.rating for s in result.scores if s is not None and s.rating is not None]
        truth = accepts(paper.decision) if paper.decision else None
        if mine and truth is not None:
            decided_pred.append(sum(mine) / len(mine) >= ACCEPT_AT)
            decided_true.append(truth)
    rating = rating_errors(predicted, reference)
    decision = decision_scores(decided_pred, decided_true)

    def clean(x: float) -> float | None:
        return None if math.isnan(x) else round(x, 4)

    return {
        "backend": model.backend,
        "baseline": model.backend == "offline",
        "papers": len(done),
        "reviews_scored": len(totals),
        "mean_total": clean(sum(totals) / len(totals)) if totals else None,
        "rating": {"mse": clean(rating.mse), "mae": clean(rating.mae), "n": rating.n,
                   "skipped": rating.skipped},
        "decision": {"accuracy": clean(decision.accuracy), "f1_accept": clean(decision.f1),
                     "n": decision.n, "accepted": sum(decided_true),
                     "predicted_accept": sum(decided_pred)},
        "calls": log.calls, "failed_attempts": log.failed_attempts,
        "errors": errors,
    }


# ----------------------------------------------------------------------------- baseline


_TASK = re.compile(r"(?m)^task: (\w+)\s*$")
_SECTION = "(?is)<{0}>(.*?)</{0}>"
_COMPARE = re.compile(r"(?i)\b(?:baselines?|compar\w+|prior work|related work|state[- ]of"
                      r"[- ]the[- ]art|outperform\w*)\b")
_RESULTS = re.compile(r"(?i)\b(?:results?|tables?|figures?|fig\.|accuracy|performance|"
                      r"experiments?)\b")
_TONE = re.compile(r"(?i)\b(?:please|suggest\w*|recommend\w*|would|could|appreciate\w*|"
                   r"interesting|nice|good|strong)\b")


def _section(messages: Sequence[ChatMessage], tag: str) -> str:
    found = [m.group(1) for message in messages
             for m in re.finditer(_SECTION.format(tag), message.content)]
    return found[-1].strip() if found else ""


def _level(value: float, one: float, two: float) -> int:
    return 2 if value >= two else 1 if value >= one else 0


class OfflineRubricChat:
    """A baseline for the two rubric tasks, by rule (never read as a judgement):

    - ``generate_rubric``: each item's criterion names the paper's extracted claims
      (the offline claim extractor) or the item's generic demand;
    - ``score_rubric``: Core Contribution Accuracy by the share of the claims' content
      terms the review uses (≥ 0.15 → 1, ≥ 0.3 → 2); Results Interpretation, Comparative
      Analysis and Constructive Tone by cue-word counts (1 → 1, 3 → 2); Evidence-Based
      Critique by anchored comments (1 → 1, 3 → 2); Critique Clarity by the share of
      comments with a proposed fix (0.2 → 1, 0.5 → 2); Completeness Coverage by the
      comment count (3 → 1, 6 → 2); the pitfall always 0 (a rule cannot tell a false
      claim). The rating is 4 + 1.5 × (supportive − critical) / (supportive + critical)
      over the comments' cue-word stances, rounded and clamped to 1–6; the decision is
      accept at ≥ 4.

    Other tasks go to the offline chat model.
    """

    backend = "offline"

    def __init__(self) -> None:
        self._chat = OfflineChat()

    async def complete(self, messages: Sequence[ChatMessage], *,
                       schema: Mapping[str, Any] | None = None,
                       deadline: float | None = None) -> ChatResult:
        found = next((m.group(1) for message in messages
                      if message.role is Role.USER and (m := _TASK.search(message.content))),
                     None)
        if found == "generate_rubric":
            text = json.dumps({"rubric": await asyncio.to_thread(self._rubric, messages)})
        elif found == "score_rubric":
            text = json.dumps(await asyncio.to_thread(self._score, messages))
        else:
            return await self._chat.complete(messages, schema=schema, deadline=deadline)
        prompt = sum(len(m.content) for m in messages) // 4
        return ChatResult(text, Usage(prompt, 0, len(text) // 4, 1), "offline",
                          "offline-rubric-1")

    def _rubric(self, messages: Sequence[ChatMessage]) -> dict[str, str]:
        claims = [c["summary"] for c in extract_claims(_section(messages, "paper"))]
        named = "; ".join(claims[:3]) or "the paper's main findings"
        rubric = {item: f"A good review addresses {item.lower()} for this paper."
                  for item in ITEMS}
        rubric["Core Contribution Accuracy"] = f"States the central claims correctly: {named}"
        rubric[PITFALL] = f"Says nothing that contradicts the paper's claims: {named}"
        return rubric

    def _score(self, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        review = _section(messages, "review")
        rubric = _section(messages, "rubric")
        comments = split_review(review) or [review]
        parsed = parse_comments(comments)
        claim_terms = set(terms(rubric))
        used = set(terms(review))
        share = len(claim_terms & used) / len(claim_terms) if claim_terms else 0.0
        stances = [stance_of(c) for c in comments]
        sup, crit = stances.count("SUPPORTIVE"), stances.count("CRITICAL")
        rating = round(4 + 1.5 * (sup - crit) / (sup + crit)) if sup + crit else 4
        rating = min(6, max(1, rating))
        remedies = sum(p["remedy"] is not None for p in parsed) / len(parsed)
        scores = {
            "Core Contribution Accuracy": _level(share, 0.15, 0.3),
            "Results Interpretation": _level(len(_RESULTS.findall(review)), 1, 3),
            "Comparative Analysis": _level(len(_COMPARE.findall(review)), 1, 3),
            "Evidence-Based Critique": _level(sum(p["anchor"] is not None for p in parsed), 1, 3),
            "Critique Clarity": _level(remedies, 0.2, 0.5),
            "Completeness Coverage": _level(len(comments), 3, 6),
            "Constructive Tone": _level(len(_TONE.findall(review)), 1, 3),
            PITFALL: 0,
        }
        return {"scores": scores, "rating": rating,
                "decision": "accept" if rating >= ACCEPT_AT else "reject"}
