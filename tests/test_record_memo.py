"""Adapters keep records built from the same JSON item: a memo by value, so a record from
the memo is exactly the record the adapter would build (property-tested against building
every record anew), bounded, and owned by one adapter instance."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from json_strategies import json_values

from adapters import CrossrefAdapter, OpenAlexAdapter
from adapters._memo import RecordMemo
from verifier.citations.models import WorkRecord
from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse

SEARCH = HttpRequest("/works", (("query.bibliographic", "x"), ("rows", "5")))
SELECTED = HttpRequest("/works", (("query.bibliographic", "x"), ("select", "DOI,title")))
OPENALEX_SEARCH = HttpRequest("/works", (("filter", 'title.search:"x"'),))

JSON = json_values(
    ["", " ", "1996", "A <i>t</i> &amp; b", "Ünïcode  x", "RETRACTED: T", "10.1000/ABC",
     "journal-article", "book", "Smith, J.", "retraction"],
    ["family", "given", "name", "type", "date-parts", "display_name", "author",
     "raw_author_name", "source", "issn", "volume"],
)
CROSSREF_FIELDS = ["DOI", "title", "subtitle", "author", "issued", "published",
                   "published-print", "container-title", "type", "ISBN", "ISSN", "volume",
                   "issue", "page", "publisher", "update-to", "updated-by", "score"]
OPENALEX_FIELDS = ["id", "doi", "title", "display_name", "publication_year", "authorships",
                   "primary_location", "type", "type_crossref", "ids", "biblio",
                   "is_retracted"]


def envelope(items: list[Any]) -> HttpResponse:
    body = {"status": "ok", "message-type": "work-list", "message": {"items": items}}
    return HttpResponse(200, orjson.dumps(body), {"content-type": "application/json"})


def built_or_error(build: Any, *args: Any) -> WorkRecord | str:
    try:
        record: WorkRecord = build(*args)
    except MalformedResponse as exc:
        return f"MalformedResponse: {exc}"
    return record


def build_crossref(item: dict[str, Any], retraction_known: bool) -> WorkRecord:
    """One item's record, built by an adapter of its own (an empty memo)."""
    return CrossrefAdapter()._candidate(item, retraction_known).record()


def build_openalex(work: dict[str, Any]) -> WorkRecord:
    """One work's record, built by an adapter of its own (an empty memo)."""
    return OpenAlexAdapter()._candidate(work).record()


def parsed_or_error(adapter: Any, request: HttpRequest, response: HttpResponse) -> Any:
    try:
        return adapter.parse(request, response)
    except MalformedResponse as exc:
        return f"MalformedResponse: {exc}"


def one_by_one(adapter: Any, request: HttpRequest, items: list[dict[str, Any]],
               wrap: Any) -> list[Any]:
    """Each item parsed alone, in turn, through one adapter (so through one memo)."""
    return [parsed_or_error(adapter, request, wrap([item])) for item in items]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(CROSSREF_FIELDS), JSON, max_size=8), max_size=6),
       st.sampled_from([SEARCH, SELECTED]))
def test_a_crossref_answer_read_through_the_memo_is_the_answer_built_anew(
    items: list[dict[str, Any]], request: HttpRequest,
) -> None:
    # Every item has the same DOI: only the whole item may tell records apart.
    for item in items:
        item["DOI"] = "10.1000/x"
    retraction_known = request is SEARCH
    built = [built_or_error(build_crossref, item, retraction_known) for item in items]
    expected = [e if isinstance(e, str) else [e] for e in built]
    adapter = CrossrefAdapter()
    assert one_by_one(adapter, request, items, envelope) == expected
    assert one_by_one(adapter, request, items[::-1], envelope) == expected[::-1]


def openalex_results(works: list[dict[str, Any]]) -> HttpResponse:
    return HttpResponse(200, orjson.dumps({"results": works}))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(OPENALEX_FIELDS), JSON, max_size=8),
                max_size=6))
def test_an_openalex_answer_read_through_the_memo_is_the_answer_built_anew(
    works: list[dict[str, Any]],
) -> None:
    for work in works:
        work["id"] = "https://openalex.org/W1"
    built = [built_or_error(build_openalex, work) for work in works]
    expected = [e if isinstance(e, str) else [e] for e in built]
    adapter = OpenAlexAdapter()
    assert one_by_one(adapter, OPENALEX_SEARCH, works, openalex_results) == expected
    assert one_by_one(adapter, OPENALEX_SEARCH, works[::-1], openalex_results) == expected[::-1]


def test_a_crossref_work_ranked_by_two_searches_is_built_once() -> None:
    adapter = CrossrefAdapter()
    item = {"DOI": "10.1000/a", "title": ["Same work"], "author": [{"family": "Ng"}]}
    (first,) = adapter.parse(SEARCH, envelope([{**item, "score": 12.5}]))
    (second,) = adapter.parse(SEARCH, envelope([{**item, "score": 3.0}]))
    assert second is first  # the score is the search's, not the work's
    # Whether retraction data was selected is part of the key: another record.
    (unselected,) = adapter.parse(SELECTED, envelope([item]))
    assert (first.retracted, unselected.retracted) == (False, None)


def test_values_equal_in_python_but_not_in_json_are_different_items() -> None:
    # 1996 == 1996.0 == True-ish in Python; Crossref reads only the int as a year.
    adapter = CrossrefAdapter()
    years = []
    for year in (1996, 1996.0, 1996):
        item = {"DOI": "10.1000/y", "title": ["T"], "issued": {"date-parts": [[year]]}}
        years.append(adapter.parse(SEARCH, envelope([item]))[0].year)
    assert years == [1996, None, 1996]


def test_a_new_adapter_starts_with_an_empty_memo() -> None:
    item = {"DOI": "10.1000/a", "title": ["T"]}
    first, second = CrossrefAdapter(), CrossrefAdapter()
    (a,) = first.parse(SEARCH, envelope([item]))
    (b,) = second.parse(SEARCH, envelope([item]))
    assert a == b and a is not b


def test_the_memo_is_bounded_oldest_stored_first_out() -> None:
    memo = RecordMemo(size=2)
    records = [WorkRecord("s", str(n), "u", f"t{n}") for n in range(3)]
    for n, record in enumerate(records):
        assert memo.put(n, record) is record
    assert (len(memo), memo.get(0), memo.get(1), memo.get(2)) == (2, None, records[1],
                                                                  records[2])
    memo.put(1, records[0])  # replacing a key keeps the size
    assert (len(memo), memo.get(1), memo.get(2)) == (2, records[0], records[2])
    with pytest.raises(ValueError, match="positive"):
        RecordMemo(size=0)


GOOGLE_FIELDS = ["id", "volumeInfo", "selfLink"]
GOOGLE_INFO_FIELDS = ["title", "subtitle", "authors", "publishedDate", "publisher",
                      "printType", "industryIdentifiers", "canonicalVolumeLink", "infoLink"]
OPENLIBRARY_FIELDS = ["key", "title", "subtitle", "author_name", "first_publish_year",
                      "publish_year", "publisher", "isbn"]
GOOGLE_SEARCH = HttpRequest("/volumes", (("q", 'intitle:"x"'),))
OPENLIBRARY_SEARCH = HttpRequest("/search.json", (("title", "x"),))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.dictionaries(st.sampled_from(GOOGLE_FIELDS), JSON, max_size=2),
                          st.dictionaries(st.sampled_from(GOOGLE_INFO_FIELDS), JSON,
                                          max_size=7)), max_size=6))
def test_a_google_books_answer_read_through_the_memo_is_the_answer_built_anew(
    volumes: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    from adapters import GoogleBooksAdapter

    items = [{**volume, "id": "v1", "volumeInfo": info} for volume, info in volumes]
    built = [built_or_error(GoogleBooksAdapter()._record, item) for item in items]
    expected = [e if isinstance(e, str) else [e] for e in built]
    adapter = GoogleBooksAdapter()

    def wrap(found: list[Any]) -> HttpResponse:
        return HttpResponse(200, orjson.dumps({"kind": "books#volumes", "items": found}))

    assert one_by_one(adapter, GOOGLE_SEARCH, items, wrap) == expected
    assert one_by_one(adapter, GOOGLE_SEARCH, items[::-1], wrap) == expected[::-1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(OPENLIBRARY_FIELDS), JSON, max_size=7),
                max_size=6))
def test_an_open_library_search_read_through_the_memo_is_the_answer_built_anew(
    docs: list[dict[str, Any]],
) -> None:
    from adapters import OpenLibraryAdapter

    for doc in docs:
        doc["key"] = "/works/OL1W"
    built = [built_or_error(OpenLibraryAdapter()._search_doc, doc) for doc in docs]
    expected = [e if isinstance(e, str) else [e] for e in built]
    adapter = OpenLibraryAdapter()

    def wrap(found: list[Any]) -> HttpResponse:
        return HttpResponse(200, orjson.dumps({"numFound": len(found), "docs": found}))

    assert one_by_one(adapter, OPENLIBRARY_SEARCH, docs, wrap) == expected
    assert one_by_one(adapter, OPENLIBRARY_SEARCH, docs[::-1], wrap) == expected[::-1]


@pytest.mark.parametrize("text", [b"1e400", b"-1e999", b"NaN", b"Infinity", b"[1e400]"])
def test_decoded_json_never_holds_a_float_the_key_would_write_as_null(text: bytes) -> None:
    # item_key relies on it: orjson.dumps writes inf and nan as null, so an item holding
    # one would share its key with the item holding null.
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(text)
