"""The world's Google Books stand-in over real HTTP on loopback.

Shapes are compared with the recorded real responses (``shared/data/api_samples``;
those tests skip when the folder is absent), and the engine's own adapter is run against
the stand-in end to end.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from recorded import load_sample
from world_helpers import Client, Reply, StandIn, records_of

from adapters.base import Identity
from adapters.googlebooks import GoogleBooksAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.errors import UnexpectedStatus
from verifier.http.transport import AiohttpTransport
from verifier.world import Corpus, googlebooks
from verifier.world.googlebooks import DailyQuota, parse_fields, select

KEY = "test-key"
LINES: list[dict[str, Any]] = [
    {"id": "goodfellow", "type": "book", "title": "Deep learning",
     "authors": [{"family": "Goodfellow", "given": "Ian"}, {"family": "Bengio", "given": "Yoshua"},
                 {"family": "Courville", "given": "Aaron"}],
     "year": 2016, "publisher": "MIT Press", "isbn": ["9780262035613"],
     "sources": {"googlebooks": {"id": "Np9SDQAAQBAJ", "description": "An <b>MIT</b> book.",
                                 "categories": ["Computers / Machine Learning"],
                                 "page_count": 775}}},
    {"id": "sutton", "type": "book", "title": "Reinforcement learning",
     "subtitle": "An introduction",
     "authors": [{"family": "Sutton", "given": "Richard S."},
                 {"family": "Barto", "given": "Andrew G."}],
     "year": 2018, "publisher": "MIT Press", "isbn": ["0262039249"],
     "sources": {"googlebooks": {"title_case": "upper", "initials": True, "max_authors": 1,
                                 "year_offset": -2}}},
    {"id": "kahneman", "type": "book", "title": "Thinking, fast and slow",
     "authors": [{"family": "Kahneman", "given": "Daniel"}], "year": 2011,
     "publisher": "Farrar, Straus and Giroux", "isbn": ["9780374275631"],
     "sources": {"googlebooks": {}}},
    {"id": "magazine", "type": "article", "title": "Deep learning monthly",
     "authors": [{"literal": "The Editors"}], "year": 1990,
     "sources": {"googlebooks": {"print_type": "MAGAZINE"}}},
    {"id": "elsewhere", "type": "book", "title": "Deep learning unseen", "year": 2001,
     "isbn": ["9780000000002"], "sources": {"openlibrary": {}}},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])


class GoogleBooksClient(Client):
    async def get(self, path: str, params: Mapping[str, str] | None = None,
                  headers: Mapping[str, str] | None = None, *, key: str | None = KEY) -> Reply:
        query = dict(params or {})
        if key is not None:
            query["key"] = key
        return await self.send("GET", path, params=query, headers=headers)

    async def volumes(self, q: str, **params: str) -> Any:
        reply = await self.get("/volumes", {"q": q, **params})
        assert reply.status == 200, reply.body
        return reply.json()


STAND_IN = StandIn(googlebooks.SERVICE, CORPUS, GoogleBooksClient)
serve, client = STAND_IN.serve, STAND_IN.client


def recorded(name: str) -> Any:
    return orjson.loads(load_sample("googlebooks", name).body)


def titles(body: Any) -> list[str]:
    return [item["volumeInfo"]["title"] for item in body.get("items", [])]


# ----------------------------------------------------------------------------- shapes


@pytest.mark.asyncio
async def test_search_and_volume_have_the_recorded_structure() -> None:
    search = recorded("volumes_search.json")
    single = recorded("volume_by_id.json")
    items = [*search["items"], single]
    volume_keys = {k for item in items for k in item}
    info_keys = {k for item in items for k in item["volumeInfo"]}
    sale_keys = {k for item in items for k in item["saleInfo"]}
    access_keys = {k for item in items for k in item["accessInfo"]}
    async with client() as c:
        body = await c.volumes('intitle:"deep learning"')
        by_id = await c.get("/volumes/Np9SDQAAQBAJ")
    assert list(body) == list(search)  # kind, totalItems, items
    assert body["kind"] == "books#volumes" and body["totalItems"] == 2
    assert titles(body) == ["Deep learning", "Deep learning monthly"]
    for item in body["items"]:
        assert set(item) <= volume_keys
        assert list(item)[:4] == ["kind", "id", "etag", "selfLink"]
        assert set(item["volumeInfo"]) <= info_keys, set(item["volumeInfo"]) - info_keys
        assert set(item["saleInfo"]) <= sale_keys
        assert set(item["accessInfo"]) <= access_keys
    assert by_id.status == 200
    volume = by_id.json()
    assert set(volume) == set(single)  # no searchInfo outside a search
    info = volume["volumeInfo"]
    assert volume["selfLink"] == "https://www.googleapis.com/books/v1/volumes/Np9SDQAAQBAJ"
    assert info["title"] == "Deep learning" and info["publisher"] == "MIT Press"
    assert info["authors"] == ["Ian Goodfellow", "Yoshua Bengio", "Aaron Courville"]
    assert info["publishedDate"].startswith("2016")
    assert info["pageCount"] == 775 and info["printType"] == "BOOK"
    assert info["categories"] == ["Computers / Machine Learning"]
    assert sorted(i["type"] for i in info["industryIdentifiers"]) == ["ISBN_10", "ISBN_13"]
    assert {i["identifier"] for i in info["industryIdentifiers"]} == {
        "9780262035613", "0262035618"}
    assert body["items"][0]["searchInfo"] == {"textSnippet": "An <b>MIT</b> book."}


@pytest.mark.asyncio
async def test_no_match_omits_items_and_unknown_volume_is_a_json_404() -> None:
    async with client() as c:
        none = await c.volumes("zzyzx qwertyuiop")
        missing = await c.get("/volumes/NOPE")
        nowhere = await c.get("/elsewhere")
    assert none == {"kind": "books#volumes", "totalItems": 0}
    assert missing.status == 404
    error = missing.json()["error"]
    assert error["code"] == 404 and error["message"] == "The volume ID could not be found."
    assert error["errors"][0]["reason"] == "notFound"
    assert nowhere.status == 404 and b"Error 404" in nowhere.body


# ----------------------------------------------------------------------------- search


@pytest.mark.asyncio
async def test_qualified_terms_are_required_and_plain_words_rank() -> None:
    async with client() as c:
        phrase = await c.volumes('intitle:"reinforcement learning" inauthor:"sutton"')
        across = await c.volumes('intitle:"learning an introduction"')
        subtitle = await c.volumes('intitle:"an introduction"')
        wrong_author = await c.volumes('intitle:"deep learning" inauthor:"sutton"')
        ranked = await c.volumes('intitle:"learning" introduction')
        plain = await c.volumes("thinking slow")
        excluded = await c.volumes("intitle:learning -monthly -reinforcement")
        publisher = await c.volumes('inpublisher:"MIT Press" intitle:deep')
        subject = await c.volumes('subject:"machine learning"')
        quoted = await c.volumes('"fast and slow"')
    assert titles(phrase) == ["REINFORCEMENT LEARNING"]
    # The subtitle is a field of its own: a phrase runs within title or subtitle only.
    assert titles(across) == [] and titles(subtitle) == ["REINFORCEMENT LEARNING"]
    assert wrong_author["totalItems"] == 0
    assert titles(ranked)[0] == "REINFORCEMENT LEARNING" and ranked["totalItems"] == 3
    assert titles(plain) == ["Thinking, fast and slow"]
    assert titles(excluded) == ["Deep learning"]
    assert titles(publisher) == ["Deep learning"]
    assert titles(subject) == ["Deep learning"]
    assert titles(quoted) == ["Thinking, fast and slow"]


@pytest.mark.asyncio
async def test_rendering_options_show_in_the_volume() -> None:
    async with client() as c:
        body = await c.volumes("inauthor:sutton")
    info = body["items"][0]["volumeInfo"]
    assert (info["title"], info["subtitle"]) == ("REINFORCEMENT LEARNING", "AN INTRODUCTION")
    assert info["authors"] == ["R. S. Sutton"]
    assert info["publishedDate"].startswith("2016")
    # An ISBN-10 in the corpus is shown with its ISBN-13, as Google lists both.
    assert {i["identifier"] for i in info["industryIdentifiers"]} == {
        "0262039249", "9780262039246"}


@pytest.mark.asyncio
async def test_paging_print_type_order_and_partial_responses() -> None:
    async with client() as c:
        first = await c.volumes("learning", maxResults="1")
        second = await c.volumes("learning", maxResults="1", startIndex="1")
        books = await c.volumes('intitle:"deep learning"', printType="books")
        magazines = await c.volumes('intitle:"deep learning"', printType="MAGAZINES")
        newest = await c.volumes("learning", orderBy="newest")
        zero = await c.volumes("learning", maxResults="0")
        partial = await c.volumes("intitle:thinking",
                                  fields="items(id,volumeInfo(title,industryIdentifiers/type)),"
                                         "totalItems")
    assert first["totalItems"] == second["totalItems"] == 3
    assert len(first["items"]) == len(second["items"]) == 1
    assert first["items"][0]["id"] != second["items"][0]["id"]
    assert titles(books) == ["Deep learning"] and titles(magazines) == ["Deep learning monthly"]
    years = [int(i["volumeInfo"]["publishedDate"][:4]) for i in newest["items"]]
    assert years == sorted(years, reverse=True)
    assert zero == {"kind": "books#volumes", "totalItems": 3}
    assert list(partial) == ["totalItems", "items"]
    [item] = partial["items"]
    assert list(item) == ["id", "volumeInfo"]
    assert item["volumeInfo"]["title"] == "Thinking, fast and slow"
    kinds = item["volumeInfo"]["industryIdentifiers"]
    assert sorted(kinds, key=str) == [{"type": "ISBN_10"}, {"type": "ISBN_13"}]


def test_field_selector_parser() -> None:
    tree = parse_fields("items(id,volumeInfo(title,authors)),totalItems,a/b/c,a/d")
    assert tree == {"items": {"id": None, "volumeInfo": {"title": None, "authors": None}},
                    "totalItems": None, "a": {"b": {"c": None}, "d": None}}
    value = {"x": 1, "a": {"b": [{"c": 1, "e": 2}], "d": 3, "f": 4}}
    assert select(value, parse_fields("a/b/c,a/d")) == {"a": {"b": [{"c": 1}], "d": 3}}
    assert select(value, parse_fields("a,a/b")) == {"a": value["a"]}
    with pytest.raises(ValueError):
        parse_fields("items(id")


@pytest.mark.asyncio
async def test_parameter_errors_use_google_error_bodies() -> None:
    async with client() as c:
        too_many = await c.get("/volumes", {"q": "learning", "maxResults": "41"})
        not_int = await c.get("/volumes", {"q": "learning", "startIndex": "x"})
        missing_q = await c.get("/volumes")
        print_type = await c.get("/volumes", {"q": "learning", "printType": "comics"})
        fields = await c.get("/volumes", {"q": "learning", "fields": "items(id"})
    assert too_many.status == 400
    error = too_many.json()["error"]
    assert list(error) == ["code", "message", "errors", "status"]
    assert error["message"] == "Invalid value '41'. Values must be within the range: [0, 40]"
    assert error["errors"] == [{"message": error["message"], "domain": "global",
                                "reason": "invalid", "location": "maxResults",
                                "locationType": "parameter"}]
    assert error["status"] == "INVALID_ARGUMENT"
    assert not_int.status == 400
    assert missing_q.status == 400 and missing_q.json()["error"]["message"] == "Missing query."
    assert print_type.status == 400 and fields.status == 400


# ----------------------------------------------------------------------------- ISBN


@pytest.mark.asyncio
async def test_isbn_search_is_fuzzy() -> None:
    async with client() as c:
        exact = await c.volumes("isbn:9780262035613")
        ten = await c.volumes("isbn:0-262-03561-8")
        one_digit = await c.volumes("isbn:9780262035614")
        swapped = await c.volumes("isbn:9780262036513")
        far = [await c.volumes(f"isbn:97811111{n:05d}") for n in range(8)]
        again = await c.volumes("isbn:9781111100000")
    assert titles(exact) == titles(ten) == ["Deep learning"]
    # A mistyped ISBN brings back the book with the nearest (correct) ISBN.
    assert titles(one_digit) == titles(swapped) == ["Deep learning"]
    # Unknown ISBNs bring nothing back, or (deterministically) up to 3 unrelated books.
    counts = [body["totalItems"] for body in far]
    assert 0 in counts and any(count > 0 for count in counts)
    assert all(count <= 3 for count in counts)
    assert again == far[0]


# ----------------------------------------------------------------------------- keys


@pytest.mark.asyncio
async def test_keyless_requests_get_the_exhausted_quota_429() -> None:
    async with client() as c:
        reply = await c.get("/volumes", {"q": "learning"}, key=None)
        by_id = await c.get("/volumes/Np9SDQAAQBAJ", key="")
    assert reply.status == by_id.status == 429
    assert reply.headers["Content-Type"] == "application/json; charset=UTF-8"
    error = reply.json()["error"]
    assert list(error) == ["code", "message", "errors", "status", "details"]
    assert error["code"] == 429 and error["status"] == "RESOURCE_EXHAUSTED"
    assert error["message"].startswith("Quota exceeded for quota metric 'Queries' and limit "
                                       "'Queries per day' of service 'books.googleapis.com'")
    assert "project_number:624717413613" in error["message"]
    assert error["errors"] == [{"message": error["message"], "domain": "global",
                                "reason": "rateLimitExceeded"}]
    assert error["details"][0]["metadata"]["quota_limit_value"] == "0"


@pytest.mark.asyncio
async def test_each_key_has_a_daily_budget() -> None:
    async with client(daily_quota=2) as c:
        ok = [await c.get("/volumes", {"q": "learning"}) for _ in range(2)]
        spent = await c.get("/volumes/Np9SDQAAQBAJ")
        other = await c.get("/volumes", {"q": "learning"}, key="another-key")
    assert [r.status for r in ok] == [200, 200]
    assert spent.status == 429
    error = spent.json()["error"]
    assert "'Queries per day'" in error["message"]
    assert "624717413613" not in error["message"]
    assert error["details"][0]["metadata"]["quota_limit_value"] == "2"
    assert other.status == 200


def test_the_daily_budget_resets_at_midnight_pacific() -> None:
    now = [8 * 3600 + 86400 * 100 - 1.0]  # one second before midnight Pacific
    quota = DailyQuota(limit=1, clock=lambda: now[0])
    assert quota.spend("k") and not quota.spend("k")
    now[0] += 2.0
    assert quota.spend("k") and not quota.spend("k")


def request_with(query: str) -> web.Request:
    return make_mocked_request("GET", f"/volumes?{query}")


def test_pools_limits_and_the_throttled_answer() -> None:
    spec = googlebooks.SERVICE
    assert spec.name == "googlebooks"
    assert spec.pool_of(request_with("q=x&key=abc")) == "keyed"
    assert spec.pool_of(request_with("q=x&key=")) == "keyless"
    assert spec.pool_of(request_with("q=x")) == "keyless"
    pool, kind, limit = spec.limit_for(request_with("q=x&key=abc"))
    assert (pool, kind, limit.rate, limit.period_s) == ("keyed", "all", 1.0, 1.0)
    answer = spec.throttled(None)
    assert answer.status == 429 and answer.body is not None
    assert isinstance(answer.body, bytes)
    error = orjson.loads(answer.body)["error"]
    assert error["errors"][0]["reason"] == "rateLimitExceeded"
    assert "Retry-After" not in answer.headers


# ----------------------------------------------------------------------------- end to end


@pytest.mark.asyncio
async def test_the_engine_adapter_finds_books_through_the_stand_in() -> None:
    adapter = GoogleBooksAdapter()
    identity = Identity(api_key=KEY)
    by_isbn = Citation(identifiers=Identifiers(isbn=("0-262-03561-8",)))
    by_title = Citation(title="Reinforcement learning: An introduction",
                        authors=(Author(family="Sutton", given="R. S."),), year=2018)
    no_author = Citation(title="Reinforcement learning: An introduction")
    mistyped = Citation(identifiers=Identifiers(isbn=("9780262035620",)))  # valid, not ours
    async with serve() as base, AiohttpTransport("world-tests/1.0") as transport:
        ask = partial(records_of, adapter, transport, base, follow=False)
        lookup = await ask(adapter.lookup_request(by_isbn, identity))
        search = await ask(adapter.search_request(by_title, identity))
        loose = await ask(adapter.search_request(no_author, identity))
        near = await ask(adapter.lookup_request(mistyped, identity))
        request = adapter.search_request(by_title, Identity())
        assert request is not None
        keyless = await transport.send(base, request)
    [book] = lookup
    assert book.source == "googlebooks" and book.source_id == "Np9SDQAAQBAJ"
    assert book.type is WorkType.BOOK and book.title == "Deep learning" and book.year == 2016
    assert [a.family for a in book.authors] == ["Goodfellow", "Bengio", "Courville"]
    assert book.publisher == "MIT Press"
    assert book.identifiers.isbn == ("9780262035613", "0262035618")
    assert book.url == "https://books.google.com/books/about/Deep_learning.html?hl=&id=Np9SDQAAQBAJ"
    [found] = search
    assert found.title == "REINFORCEMENT LEARNING: AN INTRODUCTION" and found.year == 2016
    assert [a.family for a in found.authors] == ["Sutton"]
    assert loose[0].title == "REINFORCEMENT LEARNING: AN INTRODUCTION"
    # The stand-in answers a near-miss ISBN with the nearest book; the adapter drops it.
    assert near == []
    assert keyless.status == 429
    with pytest.raises(UnexpectedStatus, match="rateLimitExceeded"):
        adapter.parse(request, keyless)
