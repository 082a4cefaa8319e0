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
other request. Bad bodies are 400/422 problems naming the item.
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from verifier.citations.checker import CitationChecker
from verifier.claims.aggregate import Aggregate, Field
from verifier.claims.checker import PremiseChecker, PremiseOptions
from verifier.judge.inputs import PaperInput
from verifier.judge.lines import source_line
from verifier.judge.pipeline import CommentInput, Judge
from verifier.judge.run import JudgeRun
from verifier.llm.interfaces import ChatModel, DecisionModel
from verifier.llm.select import open_models
from verifier.session import Session

from .problems import Problem

MAX_COMMENTS = 200
"""Comments one request may carry (more: 413)."""

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


async def _json(request: web.Request) -> dict[str, Any]:
    body = await request.read()
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Problem(400, "invalid-json", f"the body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise Problem(422, "invalid-body", "the body must be a JSON object")
    return value


def _text(value: Any, name: str, *, item: Any = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Problem(422, "invalid-field", f"{name} must be a non-empty string",
                      item=item if item is not None else name)
    return value


def _premise_options(raw: Any) -> PremiseOptions:
    if raw is None:
        return PremiseOptions()
    if not isinstance(raw, dict):
        raise Problem(422, "invalid-options", "options must be an object", item="options")
    known = {"aggregate", "routing", "phrasings", "field", "holistic_only"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise Problem(422, "invalid-options", f"unknown option(s) {', '.join(unknown)}",
                      item="options")
    try:
        return PremiseOptions(
            field=Field(raw.get("field", Field.GENERAL.value)),
            aggregate=Aggregate(raw.get("aggregate", Aggregate.MIN.value)),
            routing=bool(raw.get("routing", True)),
            phrasings=int(raw.get("phrasings", 1)),
            holistic_only=bool(raw.get("holistic_only", False)),
        )
    except (ValueError, TypeError) as exc:
        raise Problem(422, "invalid-options", str(exc), item="options") from None


async def premises_check(request: web.Request) -> web.Response:
    body = await _json(request)
    paper = _text(body.get("paper"), "paper")
    paper_id = str(body.get("paper_id") or "paper")
    options = _premise_options(body.get("options"))
    single = "comment" in body
    raw = [body["comment"]] if single else body.get("comments")
    if not isinstance(raw, list) or not raw:
        raise Problem(422, "invalid-field", "give 'comment' or a non-empty 'comments' list",
                      item="comments")
    if len(raw) > MAX_COMMENTS:
        raise Problem(413, "batch-too-large",
                      f"{len(raw)} comments; at most {MAX_COMMENTS} per request")
    comments: list[tuple[str, str]] = []
    for n, entry in enumerate(raw):
        if isinstance(entry, dict):
            comments.append((str(entry.get("comment_id") or f"c{n}"),
                             _text(entry.get("comment"), "comment", item=n)))
        else:
            comments.append((f"c{n}", _text(entry, "comment", item=n)))
    decisions, chat = _models(request.app)
    checker = PremiseChecker(request.app[_SESSION], decisions=decisions, chat=chat,
                             options=options)
    results = [
        (await checker.check_comment(paper, text, paper_id=paper_id,
                                     comment_id=comment_id)).to_json()
        for comment_id, text in comments
    ]
    payload: Any = results[0] if single else {"results": results}
    return web.Response(body=orjson.dumps(payload), content_type="application/json")


async def reviews_judge(request: web.Request) -> web.Response:
    body = await _json(request)
    paper = body.get("paper")
    if not isinstance(paper, dict):
        raise Problem(422, "invalid-field", "paper must be an object", item="paper")
    paper_id = _text(paper.get("paper_id"), "paper.paper_id")
    text = _text(paper.get("text"), "paper.text")
    references = paper.get("references")
    if references is not None and not (
            isinstance(references, list) and all(isinstance(r, str) for r in references)):
        raise Problem(422, "invalid-field", "paper.references must be a list of strings",
                      item="paper.references")
    raw = body.get("comments")
    if not isinstance(raw, list) or not raw:
        raise Problem(422, "invalid-field", "comments must be a non-empty list",
                      item="comments")
    if len(raw) > MAX_COMMENTS:
        raise Problem(413, "batch-too-large",
                      f"{len(raw)} comments; at most {MAX_COMMENTS} per request")
    sources: dict[str, list[CommentInput]] = {}
    for n, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise Problem(422, "invalid-field", "each comment must be an object", item=n)
        source = _text(entry.get("source"), "source", item=n)
        comment = _text(entry.get("comment"), "comment", item=n)
        listed = sources.setdefault(source, [])
        listed.append(CommentInput(f"{source}-{len(listed) + 1}", comment))
    given = references is not None
    paper_input = PaperInput(paper_id, str(paper.get("title") or ""), text,
                             tuple(references or ()), given, sources)
    _, chat = _models(request.app)
    judge = Judge(chat)
    run = JudgeRun(judge, request.app[_CHECKER])
    done = await run.run_paper(paper_input,
                               check_references=bool(body.get("check_references", True)))
    lines = ([source_line(outcome, done.references, chat.backend)
              for outcome in done.outcome.sources.values()]
             if done.outcome is not None else [])
    return web.Response(body=orjson.dumps({"paper_id": paper_id, "sources": lines,
                                           "references": done.references.as_json()}),
                        content_type="application/json")
