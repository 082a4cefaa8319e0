"""Crossref's answers read lazily (adapters/_lazy_json.py) read exactly as the body
decoded whole: the same candidates, the same records, the same errors, for any answer
(property-tested against the whole-body reading the adapter falls back to); the one
documented difference, a non-finite number in a field no candidate reads, is read and
never memoised."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from json_strategies import json_values

from adapters import CrossrefAdapter, crossref
from adapters._lazy_json import crossref_works, work_item
from verifier.citations.models import WorkRecord
from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse

SEARCH = HttpRequest("/works", (("query.bibliographic", "x"), ("rows", "5")))
SELECTED = HttpRequest("/works", (("query.bibliographic", "x"), ("select", "DOI,title")))
LOOKUP = HttpRequest("/works/10.1000/x", request_class="single")

JSON = json_values(
    ["", " ", "1996", "ok", "work", "work-list", "A <i>t</i> &amp; b", "Ünïcode  x",
     "RETRACTED: T", "10.1000/ABC", "book", "retraction"],
    ["family", "given", "name", "type", "date-parts", "items", "DOI", "title"],
)
FIELDS = ["DOI", "title", "subtitle", "author", "issued", "published", "container-title",
          "type", "ISBN", "ISSN", "volume", "issue", "page", "publisher", "update-to",
          "updated-by", "score", "items"]
WORK = st.fixed_dictionaries(
    {"DOI": st.one_of(st.sampled_from(["10.1000/a", "10.1000/B"]), JSON)},
    optional={name: JSON for name in FIELDS if name != "DOI"},
)
ITEM = st.one_of(WORK, WORK, WORK, JSON)
MESSAGE = st.one_of(
    st.fixed_dictionaries({}, optional={"items": st.one_of(st.lists(ITEM, max_size=5), JSON),
                                        "total-results": st.integers(0, 9)}),
    WORK, JSON,
)
# Answers of the right shape (most often), and any shape.
WELL_FORMED = st.one_of(
    st.fixed_dictionaries({"status": st.just("ok"), "message-type": st.just("work-list"),
                           "message": st.fixed_dictionaries(
                               {"items": st.lists(WORK, max_size=5)})}),
    st.fixed_dictionaries({"status": st.just("ok"), "message-type": st.just("work"),
                           "message": WORK}),
)
ANSWER = st.one_of(
    WELL_FORMED, WELL_FORMED,
    st.fixed_dictionaries(
        {},
        optional={"status": st.one_of(st.just("ok"), JSON),
                  "message-type": st.one_of(st.sampled_from(["work", "work-list"]), JSON),
                  "message": MESSAGE},
    ),
)

def read(adapter: CrossrefAdapter, request: HttpRequest, body: bytes) -> Any:
    """The adapter's candidates' titles and records (each built), or its error."""
    response = HttpResponse(200, body, {"content-type": "application/json"})
    try:
        candidates, _ = adapter.candidates(request, response)
        return [(c.title, c.record()) for c in candidates]
    except MalformedResponse as exc:
        return f"MalformedResponse: {exc}"


def read_whole(adapter: CrossrefAdapter, request: HttpRequest, body: bytes) -> Any:
    """The same, from the body decoded whole (the adapter's fall-back reading)."""
    response = HttpResponse(200, body, {"content-type": "application/json"})
    retraction_known = crossref._selects(request, "updated-by")
    try:
        candidates = [adapter._candidate(item, retraction_known)
                      for item in crossref._items(response)]
        return [(c.title, c.record()) for c in candidates]
    except MalformedResponse as exc:
        return f"MalformedResponse: {exc}"


@settings(max_examples=400, deadline=None)
@given(ANSWER, st.sampled_from([SEARCH, SELECTED, LOOKUP]))
def test_any_answer_reads_as_the_body_decoded_whole(answer: dict[str, Any],
                                                    request: HttpRequest) -> None:
    body = orjson.dumps(answer)
    assert read(CrossrefAdapter(), request, body) == read_whole(CrossrefAdapter(), request,
                                                                 body)


def test_a_search_answer_is_read_lazily_and_its_records_built_as_before() -> None:
    works = [{"DOI": f"10.1000/{n}", "title": [f"Work {n}"], "subtitle": ["Part"],
              "author": [{"family": "Ng", "given": "A."}], "score": 9.5 - n,
              "issued": {"date-parts": [[2001 + n]]}} for n in range(3)]
    body = orjson.dumps({"status": "ok", "message-type": "work-list",
                         "message": {"items": works, "total-results": 3}})
    found = crossref_works(body)
    assert found is not None
    assert [(head.DOI, head.title, bytes(raw)) for head, raw in found] == [
        (work["DOI"], work["title"], orjson.dumps(work)) for work in works]
    lazy = read(CrossrefAdapter(), SEARCH, body)
    assert [title for title, _ in lazy] == ["Work 0: Part", "Work 1: Part", "Work 2: Part"]
    assert [record.year for _, record in lazy] == [2001, 2002, 2003]
    assert lazy == read_whole(CrossrefAdapter(), SEARCH, body)


def test_a_doi_lookup_answer_is_read_lazily() -> None:
    work = {"DOI": "10.1000/X", "title": ["One work"], "items": "not a list"}
    body = orjson.dumps({"status": "ok", "message-type": "work", "message": work})
    found = crossref_works(body)
    assert found is not None and [head.DOI for head, _ in found] == ["10.1000/X"]
    (record,) = CrossrefAdapter().parse(LOOKUP, HttpResponse(200, body))
    assert (record.title, record.source_id) == ("One work", "10.1000/X")


@pytest.mark.parametrize("body", [
    # Invalid UTF-8 in a field no candidate reads: msgspec passes over it, orjson refuses
    # the body, and so does the adapter (the whole-body reading says why).
    b'{"status":"ok","message-type":"work-list","message":{"items":'
    b'[{"DOI":"10.1000/a","title":["T"],"publisher":"\xff\xfe"}]}}',
    # Not JSON at all, and JSON of the wrong shapes.
    b'{"status":"ok",',
    b'{"status":"ok","message-type":"work-list","message":{"items":{"DOI":"10.1000/a"}}}',
    b'{"status":"ok","message-type":"work-list","message":{"items":[1]}}',
    b'{"status":"failed","message-type":"work-list","message":{"items":[]}}',
    b'[]',
])
def test_a_body_not_read_lazily_is_refused_as_the_whole_body_reading_refuses_it(
    body: bytes,
) -> None:
    assert crossref_works(body) is None
    lazy = read(CrossrefAdapter(), SEARCH, body)
    assert lazy.startswith("MalformedResponse: crossref: ")
    assert lazy == read_whole(CrossrefAdapter(), SEARCH, body)


def test_a_non_finite_number_in_an_unread_field_is_read_and_its_record_not_memoised() -> None:
    body = (b'{"status":"ok","message-type":"work-list","message":{"items":['
            b'{"DOI":"10.1000/a","title":["Big numbers"],"volume":1e400,"score":2}]}}')
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(body)
    found = crossref_works(body)
    assert found is not None
    item, memoisable = work_item(found[0][1])
    assert (item["volume"], memoisable) == (float("inf"), False)
    adapter = CrossrefAdapter()
    (record,) = adapter.parse(SEARCH, HttpResponse(200, body))
    assert isinstance(record, WorkRecord)
    assert (record.title, record.volume) == ("Big numbers", "")
    assert len(adapter._records) == 0
    # A work orjson can decode is memoised as before.
    adapter.parse(SEARCH, HttpResponse(200, body.replace(b"1e400", b"7")))
    assert len(adapter._records) == 1

