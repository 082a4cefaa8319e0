"""Reading a ``/v1/premises/check`` or ``/v1/reviews/judge`` body (shapes in
:mod:`.pipelines`) into what the pipelines take.

Strict as :mod:`.fields` reads: a field the endpoint does not know is a 422 naming it,
booleans are JSON booleans, ``phrasings`` a JSON integer, ``aggregate`` and ``field`` one
of their values; each problem names its item (a comment by its position). Pure and
synchronous.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.claims.aggregate import Aggregate, Field
from verifier.claims.checker import PremiseOptions, phrasings_allowed
from verifier.judge.inputs import PaperInput
from verifier.judge.pipeline import CommentInput

from .fields import boolean, json_object, one_of, refuse_unknown, text_field, whole_number
from .problems import Problem

MAX_COMMENTS = 200
"""Comments one request may carry (more: 413)."""

PREMISES_FIELDS = frozenset({"paper", "paper_id", "comment", "comments", "options"})
PREMISE_COMMENT_FIELDS = frozenset({"comment_id", "comment"})
PREMISE_OPTION_FIELDS = frozenset({"aggregate", "routing", "phrasings", "field",
                                   "holistic_only"})
JUDGE_FIELDS = frozenset({"paper", "comments", "check_references"})
JUDGE_PAPER_FIELDS = frozenset({"paper_id", "title", "text", "references"})
JUDGE_COMMENT_FIELDS = frozenset({"source", "comment"})


@dataclass(frozen=True, slots=True)
class PremisesRequest:
    paper: str
    paper_id: str
    comments: list[tuple[str, str]]
    """(comment id, text) in input order."""
    single: bool
    """One ``comment`` given: the answer is one result, not a list."""
    options: PremiseOptions


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    paper: PaperInput
    check_references: bool


def parse_premises_body(body: bytes) -> PremisesRequest:
    value = json_object(body)
    refuse_unknown(value, PREMISES_FIELDS, "the body")
    paper = text_field(value.get("paper"), "paper")
    paper_id = text_field(value["paper_id"], "paper_id") if "paper_id" in value else "paper"
    options = premise_options(value.get("options"))
    if ("comment" in value) == ("comments" in value):
        raise Problem(422, "invalid-field", "give exactly one of 'comment' and 'comments'",
                      item="comments")
    single = "comment" in value
    raw = [value["comment"]] if single else value["comments"]
    if not isinstance(raw, list) or not raw:
        raise Problem(422, "invalid-field", "'comments' must be a non-empty list",
                      item="comments")
    _check_count(len(raw))
    comments: list[tuple[str, str]] = []
    for n, entry in enumerate(raw):
        name = "comment" if single else f"comments[{n}]"
        if isinstance(entry, dict):
            refuse_unknown(entry, PREMISE_COMMENT_FIELDS, name)
            comment_id = (text_field(entry["comment_id"], f"{name}.comment_id", item=n)
                          if "comment_id" in entry else f"c{n}")
            comments.append((comment_id, text_field(entry.get("comment"), f"{name}.comment",
                                                    item=n)))
        else:
            comments.append((f"c{n}", text_field(entry, name, item=n)))
    return PremisesRequest(paper, paper_id, comments, single, options)


def premise_options(raw: Any) -> PremiseOptions:
    """``options`` of a premises body (defaults: :class:`PremiseOptions`')."""
    if raw is None:
        return PremiseOptions()
    if not isinstance(raw, dict):
        raise Problem(422, "invalid-options", "'options' must be an object", item="options")
    refuse_unknown(raw, PREMISE_OPTION_FIELDS, "'options'", kind="invalid-options")
    default = PremiseOptions()
    return PremiseOptions(
        field=Field(one_of(raw.get("field", default.field.value), "field",
                           [f.value for f in Field])),
        aggregate=Aggregate(one_of(raw.get("aggregate", default.aggregate.value),
                                   "aggregate", [a.value for a in Aggregate])),
        routing=boolean(raw.get("routing", default.routing), "routing"),
        phrasings=whole_number(raw.get("phrasings", default.phrasings), "phrasings",
                               *phrasings_allowed()),
        holistic_only=boolean(raw.get("holistic_only", default.holistic_only),
                              "holistic_only"),
    )


def parse_judge_body(body: bytes) -> JudgeRequest:
    value = json_object(body)
    refuse_unknown(value, JUDGE_FIELDS, "the body")
    paper = value.get("paper")
    if not isinstance(paper, dict):
        raise Problem(422, "invalid-field", "'paper' must be an object", item="paper")
    refuse_unknown(paper, JUDGE_PAPER_FIELDS, "'paper'")
    paper_id = text_field(paper.get("paper_id"), "paper.paper_id")
    text = text_field(paper.get("text"), "paper.text")
    title = paper.get("title", "")
    if not isinstance(title, str):
        raise Problem(422, "invalid-field", "'paper.title' must be a string",
                      item="paper.title")
    references = paper.get("references")
    if references is not None and not (
            isinstance(references, list) and all(isinstance(r, str) for r in references)):
        raise Problem(422, "invalid-field", "'paper.references' must be a list of strings",
                      item="paper.references")
    raw = value.get("comments")
    if not isinstance(raw, list) or not raw:
        raise Problem(422, "invalid-field", "'comments' must be a non-empty list",
                      item="comments")
    _check_count(len(raw))
    sources: dict[str, list[CommentInput]] = {}
    for n, entry in enumerate(raw):
        name = f"comments[{n}]"
        if not isinstance(entry, dict):
            raise Problem(422, "invalid-field", f"{name} must be an object", item=n)
        refuse_unknown(entry, JUDGE_COMMENT_FIELDS, name)
        source = text_field(entry.get("source"), f"{name}.source", item=n)
        comment = text_field(entry.get("comment"), f"{name}.comment", item=n)
        listed = sources.setdefault(source, [])
        listed.append(CommentInput(f"{source}-{len(listed) + 1}", comment))
    check_references = boolean(value.get("check_references", True), "check_references")
    return JudgeRequest(PaperInput(paper_id, title, text, tuple(references or ()),
                                   references is not None, sources), check_references)


def _check_count(count: int) -> None:
    if count > MAX_COMMENTS:
        raise Problem(413, "batch-too-large",
                      f"{count} comments; at most {MAX_COMMENTS} per request")
