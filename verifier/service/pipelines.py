"""The claims endpoints: premise checks and the review judge, on the service's session.

- ``POST /v1/premises/check`` — ``{"paper": TEXT, "comment": TEXT}`` or ``{"paper": TEXT,
  "comments": [TEXT | {"comment_id", "comment"}, ...]}``, optional ``"paper_id"`` and
  ``"options": {"aggregate": "min"|"mean", "routing": bool, "phrasings": K, "field":
  "general"|"machine_learning"|"natural_science", "holistic_only": bool}`` → one result
  (a single comment) or ``{"results": [...]}`` in input order, each the JSON of
  ``verifier premises``' output lines.
- ``POST /v1/reviews/judge`` — ``{"paper": {"paper_id", "title", "text", "references"?:
  [TEXT]}, "comments": [{"source", "comment"}, ...], "check_references": bool}`` → the
  judged lines of every source (the JSON of ``verifier judge``' output lines), the
  paper's reference check running beside the judging on the same loop.

Both use the models the service's settings configure (``open_models``; the offline
baselines when none is), through the same session and so within the same limits as every
other request. Bad bodies are 400/422 problems naming the item (read by
:mod:`.claims_requests`: a field an endpoint does not know is refused, not ignored).
"""

from __future__ import annotations

import asyncio

import orjson
from aiohttp import web

from verifier.citations.checker import CitationChecker
from verifier.claims.checker import PremiseChecker
from verifier.judge.lines import source_line
from verifier.judge.pipeline import Judge
from verifier.judge.run import JudgeRun
from verifier.llm.interfaces import ChatModel, DecisionModel
from verifier.llm.select import open_models
from verifier.session import Session

from .claims_requests import parse_judge_body, parse_premises_body

_MODELS = web.AppKey("claims_models", tuple)
_SESSION = web.AppKey("claims_session", Session)
_CHECKER = web.AppKey("claims_citations", CitationChecker)


def mount(app: web.Application, session: Session, citations: CitationChecker) -> None:
    """Add the two endpoints to ``app`` (under the service's auth and limits)."""
    app[_SESSION] = session
    app[_CHECKER] = citations
    app[_MODELS] = open_models(session)  # one pair per process: every request shares them
    app.router.add_post("/v1/premises/check", premises_check)
    app.router.add_post("/v1/reviews/judge", reviews_judge)


def _models(app: web.Application) -> tuple[DecisionModel, ChatModel]:
    decisions, chat = app[_MODELS]
    return decisions, chat


async def premises_check(request: web.Request) -> web.Response:
    parsed = await asyncio.to_thread(parse_premises_body, await request.read())
    decisions, chat = _models(request.app)
    checker = PremiseChecker(request.app[_SESSION], decisions=decisions, chat=chat,
                             options=parsed.options)
    results = [
        (await checker.check_comment(parsed.paper, text, paper_id=parsed.paper_id,
                                     comment_id=comment_id)).to_json()
        for comment_id, text in parsed.comments
    ]
    payload = results[0] if parsed.single else {"results": results}
    return web.Response(body=orjson.dumps(payload), content_type="application/json")


async def reviews_judge(request: web.Request) -> web.Response:
    parsed = await asyncio.to_thread(parse_judge_body, await request.read())
    _, chat = _models(request.app)
    judge = Judge(chat)
    run = JudgeRun(judge, request.app[_CHECKER])
    done = await run.run_paper(parsed.paper, check_references=parsed.check_references)
    lines = ([source_line(outcome, done.references, chat.backend)
              for outcome in done.outcome.sources.values()]
             if done.outcome is not None else [])
    return web.Response(body=orjson.dumps({"paper_id": parsed.paper.paper_id,
                                           "sources": lines,
                                           "references": done.references.as_json()}),
                        content_type="application/json")
