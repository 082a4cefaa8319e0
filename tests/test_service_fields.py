"""Request bodies read strictly, in memory: a field an endpoint does not know, a value of
the wrong JSON type, or a document that holds no citation is a problem naming it, never a
request answered as if it had not been sent (the OpenAPI document's
``additionalProperties: false``, enforced)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from verifier.claims.aggregate import Aggregate, Field
from verifier.claims.checker import PremiseOptions, phrasings_allowed
from verifier.claims.prompt_files import QUESTIONS
from verifier.service.claims_requests import (
    JUDGE_COMMENT_FIELDS,
    JUDGE_FIELDS,
    JUDGE_PAPER_FIELDS,
    PREMISE_COMMENT_FIELDS,
    PREMISE_OPTION_FIELDS,
    PREMISES_FIELDS,
    parse_judge_body,
    parse_premises_body,
    premise_options,
)
from verifier.service.fields import boolean, json_object, one_of, refuse_unknown, whole_number
from verifier.service.openapi import openapi_document
from verifier.service.problems import Problem
from verifier.service.requests import BODY_FIELDS, OPTION_FIELDS, parse_check_body

ENABLED = ("crossref", "openalex")
PAPER = "We trained on 10,000 images. Accuracy was 91 percent."


def _problem(call: Any, *args: Any) -> Problem:
    with pytest.raises(Problem) as caught:
        call(*args)
    return caught.value


def _check(body: dict[str, Any]) -> Problem:
    return _problem(parse_check_body, orjson.dumps(body), ENABLED, 100)


@pytest.mark.parametrize(("body", "item"), [
    ({"citation": "x", "option": {"sources": ["crossref"]}}, "option"),
    ({"citations": ["x"], "format": "bibtex"}, "format"),
    ({"citation": "x", "filename": "refs.bib"}, "filename"),
    ({"document": "x", "extra": 1, "zzz": 2}, "extra"),
])
def test_a_check_body_field_it_would_ignore_is_refused_by_name(
        body: dict[str, Any], item: str) -> None:
    problem = _check(body)
    assert (problem.status, problem.kind, problem.item) == (422, "unknown-field", item)
    for name in set(body) - {"citation", "citations", "document", "options"}:
        assert repr(name) in problem.detail


def test_the_fields_each_form_allows_are_accepted() -> None:
    request = parse_check_body(orjson.dumps({
        "document": "LeCun, Y. (2015). Deep learning. Nature.", "format": "text",
        "filename": "refs.txt", "options": {"sources": ["crossref"]}}), ENABLED, 100)
    assert len(request.items) == 1 and request.options.sources == ("crossref",)
    assert BODY_FIELDS["document"] == {"document", "format", "filename", "options"}


def test_a_single_citation_of_the_wrong_type_is_named_as_given() -> None:
    problem = _check({"citation": None})
    assert problem.kind == "wrong-type" and problem.detail.startswith("'citation' must")
    problem = _check({"citations": ["fine", 7]})
    assert problem.item == 1 and problem.detail.startswith("citations[1] must")


@pytest.mark.parametrize(("document", "fmt"), [
    ("LeCun, Y. (2015). Deep learning. Nature.", "bibtex"),
    ("   \n\n", "text"),
    ("% only a comment\n", "bibtex"),
])
def test_a_document_that_holds_no_citation_is_refused_naming_its_format(
        document: str, fmt: str) -> None:
    problem = _check({"document": document, "format": fmt})
    assert (problem.status, problem.kind, problem.item) == (422, "no-citations", fmt)
    assert f"read as {fmt}" in problem.detail


def test_an_empty_list_of_citations_is_an_empty_answer_not_a_problem() -> None:
    assert parse_check_body(b'{"citations": []}', ENABLED, 100).items == []


def test_options_name_an_unknown_option() -> None:
    problem = _check({"citation": "x", "options": {"source": "crossref"}})
    assert (problem.kind, problem.item) == ("unknown-option", "source")
    assert "sources" in problem.detail  # the known ones are listed
    assert OPTION_FIELDS == {"sources", "deadline_s", "independence"}


def test_json_object_refuses_bytes_json_and_shapes_it_cannot_take() -> None:
    assert _problem(json_object, b"\xff{}").kind == "invalid-utf8"
    assert _problem(json_object, b"{").status == 400
    problem = _problem(json_object, b"[1]", "an object with 'x'")
    assert problem.status == 422 and problem.detail == "the body must be an object with 'x'"
    assert json_object(b'{"a": 1}') == {"a": 1}


@pytest.mark.parametrize("value", ["false", "true", 0, 1, None, [], "no"])
def test_a_boolean_is_a_json_boolean_only(value: Any) -> None:
    problem = _problem(boolean, value, "routing")
    assert (problem.kind, problem.item) == ("wrong-type", "routing")
    assert boolean(False, "routing") is False and boolean(True, "routing") is True


@pytest.mark.parametrize(("value", "kind"), [
    (2.7, "wrong-type"), (True, "wrong-type"), ("2", "wrong-type"), (0, "out-of-range"),
    (9, "out-of-range")])
def test_a_whole_number_is_a_json_integer_in_range(value: Any, kind: str) -> None:
    assert _problem(whole_number, value, "phrasings", 1, 8).kind == kind
    assert whole_number(3, "phrasings", 1, 8) == 3


def test_one_of_lists_the_choices_and_shows_the_refused_value() -> None:
    problem = _problem(one_of, "max", "aggregate", ["min", "mean"])
    assert problem.item == "aggregate"
    assert "min, mean" in problem.detail and '"max"' in problem.detail
    assert one_of("mean", "aggregate", ["min", "mean"]) == "mean"
    long_value = "x" * 500
    assert len(_problem(one_of, long_value, "field", ["a"]).detail) < 120


def test_refuse_unknown_lists_every_unknown_and_every_known_field() -> None:
    problem = _problem(refuse_unknown, {"b": 1, "zz": 2, "a": 3}, ("a",), "the body")
    assert problem.item == "b" and "'b', 'zz'" in problem.detail and "known: a" in \
        problem.detail
    refuse_unknown({"a": 1}, ("a", "b"), "the body")  # nothing raised


def _premises(body: dict[str, Any]) -> Problem:
    return _problem(parse_premises_body, orjson.dumps(body))


def test_premise_options_are_read_with_their_json_types() -> None:
    options = premise_options({"aggregate": "mean", "routing": False, "phrasings": 2,
                               "field": "machine_learning", "holistic_only": True})
    assert options.aggregate is Aggregate.MEAN and options.field is Field.MACHINE_LEARNING
    assert options.routing is False and options.holistic_only is True
    assert options.phrasings == 2


def test_the_service_takes_the_phrasings_every_premise_check_takes() -> None:
    # One range (phrasings_allowed), read by the options, the command and the service.
    low, high = phrasings_allowed()
    assert (low, high) == (1, QUESTIONS.max_phrasings)
    assert premise_options({"phrasings": high}).phrasings == high == \
        PremiseOptions(phrasings=high).phrasings
    for outside in (low - 1, high + 1):
        problem = _premises({"paper": PAPER, "comment": "y",
                             "options": {"phrasings": outside}})
        assert problem.kind == "out-of-range" and f"{low}..{high}" in problem.detail
        with pytest.raises(ValueError, match=f"{low}..{high}"):
            PremiseOptions(phrasings=outside)


@pytest.mark.parametrize(("options", "item"), [
    ({"routing": "false"}, "routing"),  # bool("false") is True: it used to be taken so
    ({"holistic_only": 1}, "holistic_only"),
    ({"phrasings": 1.5}, "phrasings"),
    ({"phrasings": 0}, "phrasings"),
    ({"aggregate": "max"}, "aggregate"),
    ({"field": "biology"}, "field"),
])
def test_a_premise_option_of_the_wrong_type_or_value_is_named(
        options: dict[str, Any], item: str) -> None:
    problem = _premises({"paper": PAPER, "comment": "y", "options": options})
    assert problem.status == 422 and problem.item == item


def test_a_premises_body_field_it_would_ignore_is_refused() -> None:
    assert _premises({"paper": PAPER, "comment": "y", "opts": {}}).item == "opts"
    assert _premises({"paper": PAPER, "comment": "y",
                      "options": {"agregate": "min"}}).item == "agregate"
    assert _premises({"paper": PAPER, "comments": [{"comment": "y", "id": "a"}]}).item == "id"


def test_a_premises_body_takes_exactly_one_of_comment_and_comments() -> None:
    assert _premises({"paper": PAPER, "comment": "a", "comments": ["b"]}).item == "comments"
    assert _premises({"paper": PAPER}).item == "comments"
    assert _premises({"paper": PAPER, "comments": []}).item == "comments"


def test_a_premises_body_is_read_in_order_with_ids() -> None:
    request = parse_premises_body(orjson.dumps({
        "paper": PAPER, "paper_id": "p1",
        "comments": [{"comment_id": "a", "comment": "one"}, "two"]}))
    assert request.paper_id == "p1" and not request.single
    assert request.comments == [("a", "one"), ("c1", "two")]
    assert _premises({"paper": PAPER, "paper_id": 5, "comment": "y"}).item == "paper_id"
    problem = _premises({"paper": PAPER, "comments": ["ok", 42]})
    assert problem.item == 1 and "comments[1]" in problem.detail


def _judge_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "paper": {"paper_id": "p1", "title": "A study", "text": PAPER,
                  "references": ["LeCun, Y. (2015). Deep learning. Nature."]},
        "comments": [{"source": "human", "comment": "Error bars?"},
                     {"source": "human", "comment": "Which baseline?"},
                     {"source": "tool", "comment": "Seeds?"}]}
    body.update(changes)
    return body


def test_a_judge_body_is_read_into_a_paper_with_its_sources() -> None:
    request = parse_judge_body(orjson.dumps(_judge_body(check_references=False)))
    paper = request.paper
    assert (paper.paper_id, paper.title, paper.references_given) == ("p1", "A study", True)
    assert [c.comment_id for c in paper.sources["human"]] == ["human-1", "human-2"]
    assert request.check_references is False
    assert parse_judge_body(orjson.dumps(_judge_body())).check_references is True


@pytest.mark.parametrize(("changes", "item"), [
    ({"check_references": "false"}, "check_references"),
    ({"extra": 1}, "extra"),
    ({"paper": {"paper_id": "p1", "text": PAPER, "abstract": "x"}}, "abstract"),
    ({"paper": {"paper_id": "p1", "text": PAPER, "title": 5}}, "paper.title"),
    ({"comments": [{"source": "h", "comment": "c", "rating": 3}]}, "rating"),
    ({"comments": [{"source": "h", "comment": ""}]}, 0),
])
def test_a_judge_body_names_what_it_cannot_take(changes: dict[str, Any], item: Any) -> None:
    problem = _problem(parse_judge_body, orjson.dumps(_judge_body(**changes)))
    assert problem.status == 422 and problem.item == item


def test_the_openapi_document_closes_every_body_the_code_closes() -> None:
    schemas = openapi_document()["components"]["schemas"]
    paths = openapi_document()["paths"]
    check = schemas["CheckRequest"]
    assert check["additionalProperties"] is False
    assert set(check["properties"]) == set().union(*BODY_FIELDS.values())
    premises = paths["/v1/premises/check"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
    judge = paths["/v1/reviews/judge"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]
    comment_object = premises["properties"]["comments"]["items"]["oneOf"][1]
    closed = [(premises, PREMISES_FIELDS), (premises["properties"]["options"],
                                            PREMISE_OPTION_FIELDS),
              (comment_object, PREMISE_COMMENT_FIELDS), (judge, JUDGE_FIELDS),
              (judge["properties"]["paper"], JUDGE_PAPER_FIELDS),
              (judge["properties"]["comments"]["items"], JUDGE_COMMENT_FIELDS)]
    for schema, fields in closed:
        assert schema["additionalProperties"] is False
        assert set(schema["properties"]) == fields
