"""The world's Open Library stand-in over real HTTP on loopback.

Shapes are compared with the recorded real responses (``shared/data/api_samples``;
those tests skip when the folder is absent), and the engine's own adapter is run against
the stand-in end to end: the requests it builds must be answered, and its parse must
give back the corpus work.
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
from adapters.openlibrary import OpenLibraryAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.errors import UnexpectedStatus
from verifier.http.transport import AiohttpTransport, HttpRequest
from verifier.settings import Settings
from verifier.world import Corpus, openlibrary
from verifier.world.service import Limit

UA = "world-tests/1.0 (mailto:tests@example.org)"
LINES: list[dict[str, Any]] = [
    {"id": "goodfellow", "type": "book", "title": "Deep learning",
     "authors": [{"family": "Goodfellow", "given": "Ian"}, {"family": "Bengio", "given": "Yoshua"},
                 {"family": "Courville", "given": "Aaron"}],
     "year": 2016, "publisher": "MIT Press", "isbn": ["9780262035613"],
     "sources": {"openlibrary": {"number_of_pages": 775}, "googlebooks": {}}},
    {"id": "gamma", "type": "book", "title": "Design patterns",
     "subtitle": "Elements of reusable object-oriented software",
     "authors": [{"family": "Gamma", "given": "Erich"}, {"family": "Helm", "given": "Richard"},
                 {"family": "Johnson", "given": "Ralph"}, {"family": "Vlissides", "given": "John"}],
     "year": 1994, "publisher": "Addison-Wesley", "isbn": ["0201633612"],
     "sources": {"openlibrary": {"title_case": "lower", "initials": True, "max_authors": 2,
                                 "year_offset": 1, "duplicate": True}}},
    {"id": "kahneman", "type": "book", "title": "Thinking, fast and slow",
     "authors": [{"family": "Kahneman", "given": "Daniel"}], "year": 2011,
     "publisher": "Farrar, Straus and Giroux", "isbn": ["9780374275631"],
     "sources": {"openlibrary": {"id": "OL15936512W"}}},
    {"id": "lecun", "type": "article", "title": "Deep learning for all",
     "authors": [{"family": "LeCun", "given": "Yann"}], "year": 2015,
     "sources": {"openlibrary": {"drop_subtitle": True}}},
    {"id": "crossref-only", "type": "article", "title": "Deep learning elsewhere",
     "authors": [{"family": "Nobody"}], "year": 2020, "doi": "10.1234/x",
     "isbn": ["9780000000002"], "sources": {"crossref": {}}},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])


class OpenLibraryClient(Client):
    async def get(self, path: str, params: Mapping[str, str] | None = None,
                  headers: Mapping[str, str] | None = None, *,
                  agent: str = UA, redirects: bool = False) -> Reply:
        return await self.send("GET", path, params=params,
                               headers={"User-Agent": agent, **(headers or {})},
                               allow_redirects=redirects)


STAND_IN = StandIn(openlibrary.SERVICE, CORPUS, OpenLibraryClient)
serve, client = STAND_IN.serve, STAND_IN.client


def recorded(name: str) -> Any:
    return orjson.loads(load_sample("openlibrary", name).body)


def shape(value: Any) -> Any:
    """The type skeleton of a JSON value (lists by their first item)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


# ----------------------------------------------------------------------------- search


@pytest.mark.asyncio
async def test_search_envelope_and_docs_have_the_recorded_structure() -> None:
    sample = recorded("search_title_legacy.json")
    sample_doc = shape(sample["docs"][0])
    async with client() as c:
        reply = await c.get("/search.json", {"title": "deep learning"})
    assert reply.status == 200
    assert reply.headers["Content-Type"] == "application/json"
    body = reply.json()
    # The current envelope (apis.md §5) extends the recorded older one.
    assert list(body) == ["numFound", "start", "numFoundExact", "num_found",
                          "documentation_url", "q", "offset", "docs"]
    assert set(sample) <= set(body)
    assert (body["numFound"], body["num_found"], body["start"]) == (2, 2, 0)
    newer = {"subtitle", "title_sort", "number_of_pages_median", "ebook_access",
             "public_scan_b"}
    for doc in body["docs"]:
        assert set(doc) <= set(sample_doc) | newer, set(doc) - set(sample_doc) - newer
        for key, value in shape(doc).items():
            if key in sample_doc and sample_doc[key] != []:
                assert value == sample_doc[key], key
    first = body["docs"][0]
    assert first["key"].startswith("/works/OL") and first["key"].endswith("W")
    assert first["title"] == "Deep learning"
    assert first["author_name"] == ["Ian Goodfellow", "Yoshua Bengio", "Aaron Courville"]
    assert first["first_publish_year"] == 2016 and first["publish_year"] == [2016]
    assert first["isbn"] == ["9780262035613", "0262035618"]
    assert first["publisher"] == ["MIT Press"]
    assert first["number_of_pages_median"] == 775


@pytest.mark.asyncio
async def test_every_title_word_must_match() -> None:
    async with client() as c:
        both = (await c.get("/search.json", {"title": "Deep learning"})).json()
        more = (await c.get("/search.json", {"title": "deep learning for cats"})).json()
        sub = (await c.get("/search.json", {"title": "design patterns elements"})).json()
        authored = (await c.get("/search.json", {"title": "deep learning",
                                                 "author": "goodfellow"})).json()
        wrong_author = (await c.get("/search.json", {"title": "deep learning",
                                                     "author": "kahneman"})).json()
    # The exact title ranks first; the longer title holding it follows.
    assert [d["title"] for d in both["docs"]] == ["Deep learning", "Deep learning for all"]
    assert more["numFound"] == 0 and more["docs"] == []
    assert sub["docs"][0]["title"] == "design patterns"  # the subtitle is searched too
    assert [d["title"] for d in authored["docs"]] == ["Deep learning"]
    assert wrong_author["numFound"] == 0


@pytest.mark.asyncio
async def test_q_free_text_field_syntax_and_isbn() -> None:
    async with client() as c:
        free = (await c.get("/search.json", {"q": "thinking fast kahneman"})).json()
        fielded = (await c.get("/search.json",
                               {"q": 'title:"thinking, fast" author:kahneman'})).json()
        by_isbn = (await c.get("/search.json", {"q": "isbn:0374275637"})).json()
        bare = (await c.get("/search.json", {"q": "9780374275631"})).json()
        param = (await c.get("/search.json", {"isbn": "978-0-262-03561-3"})).json()
        none = (await c.get("/search.json", {"q": "thinking fast zebra"})).json()
        empty = (await c.get("/search.json")).json()
    assert free["q"] == "thinking fast kahneman"
    for body in (free, fielded, by_isbn, bare):
        assert [d["key"] for d in body["docs"]] == ["/works/OL15936512W"]
    assert [d["title"] for d in param["docs"]] == ["Deep learning"]
    assert none["numFound"] == 0
    assert empty["numFound"] == 0 and empty["q"] == ""


@pytest.mark.asyncio
async def test_fields_limit_page_and_offset() -> None:
    async with client() as c:
        some = (await c.get("/search.json", {"title": "deep learning",
                                             "fields": "key,title,author_name,nonsense",
                                             "limit": "1"})).json()
        page2 = (await c.get("/search.json", {"title": "deep learning", "fields": "title",
                                              "limit": "1", "page": "2"})).json()
        offset = (await c.get("/search.json", {"title": "deep learning", "fields": "title",
                                               "offset": "1"})).json()
        editions = (await c.get("/search.json", {"title": "deep learning", "limit": "1",
                                                 "fields": "key,editions"})).json()
        star = (await c.get("/search.json", {"title": "deep learning", "fields": "*"})).json()
    assert some["numFound"] == 2 and len(some["docs"]) == 1
    assert list(some["docs"][0]) == ["key", "title", "author_name"]
    assert page2["start"] == 1 and page2["docs"] == [{"title": "Deep learning for all"}]
    assert offset["offset"] == 1 and offset["docs"] == [{"title": "Deep learning for all"}]
    nested = editions["docs"][0]["editions"]
    assert nested["numFound"] == 1
    assert nested["docs"][0]["key"].startswith("/books/OL") and nested["docs"][0]["isbn"]
    assert "isbn" in star["docs"][0] and "editions" not in star["docs"][0]


@pytest.mark.asyncio
async def test_rendering_options_and_the_duplicate_work_quirk() -> None:
    async with client() as c:
        body = (await c.get("/search.json", {"title": "design patterns"})).json()
    real, duplicate = body["docs"]
    assert body["numFound"] == 2
    assert real["title"] == "design patterns"
    assert real["subtitle"] == "elements of reusable object-oriented software"
    assert real["author_name"] == ["E. Gamma", "R. Helm"]
    assert real["first_publish_year"] == 1995
    assert real["isbn"] == ["9780201633610", "0201633612"]
    # A second work for the same book: another key and casing, no editions.
    assert duplicate["key"] != real["key"] and duplicate["edition_count"] == 0
    assert duplicate["title"] == "Design Patterns"
    assert "isbn" not in duplicate and "first_publish_year" not in duplicate


# ----------------------------------------------------------------------------- books API


@pytest.mark.asyncio
async def test_books_api_data_has_the_recorded_structure() -> None:
    sample = shape(recorded("api_books_bibkeys_jscmd_data.json")["ISBN:2070464237"])
    other = shape(recorded("api_books_bibkeys_isbn.json")["ISBN:9782070427796"])
    known = set(sample) | set(other) | {"subtitle"}
    async with client() as c:
        reply = await c.get("/api/books", {"bibkeys": "ISBN:9780262035613,ISBN:0262035618,"
                                                      "ISBN:9999999999",
                                           "jscmd": "data", "format": "json"})
    assert reply.status == 200
    body = reply.json()
    assert list(body) == ["ISBN:9780262035613", "ISBN:0262035618"]  # keys as sent
    entry = body["ISBN:9780262035613"]
    assert set(entry) <= known, set(entry) - known
    for key in ("url", "key", "title", "authors", "identifiers", "publishers",
                "publish_date", "number_of_pages"):
        assert shape(entry)[key] == sample[key] or key == "identifiers", key
    assert entry == body["ISBN:0262035618"]
    assert entry["title"] == "Deep learning" and entry["publish_date"] == "2016"
    assert entry["authors"][0]["name"] == "Ian Goodfellow"
    assert entry["authors"][0]["url"].startswith("https://openlibrary.org/authors/OL")
    assert entry["publishers"] == [{"name": "MIT Press"}]
    assert entry["identifiers"]["isbn_13"] == ["9780262035613"]
    assert entry["identifiers"]["isbn_10"] == ["0262035618"]
    assert entry["identifiers"]["openlibrary"] == [entry["key"].rsplit("/", 1)[1]]
    assert entry["url"].endswith("/Deep_learning")


@pytest.mark.asyncio
async def test_books_api_unknown_is_an_empty_object_and_other_forms() -> None:
    async with client() as c:
        unknown = await c.get("/api/books", {"bibkeys": "ISBN:9780000000002", "jscmd": "data",
                                             "format": "json"})
        script = await c.get("/api/books", {"bibkeys": "ISBN:9780374275631"})
        data = (await c.get("/api/books", {"bibkeys": "ISBN:9780374275631", "jscmd": "data",
                                           "format": "json"})).json()
        edition = data["ISBN:9780374275631"]["key"].rsplit("/", 1)[1]
        olid = (await c.get("/api/books", {"bibkeys": f"OLID:{edition}", "jscmd": "details",
                                           "format": "json"})).json()
    # Not found is {} with HTTP 200 (a work outside Open Library is unknown here).
    assert unknown.status == 200 and unknown.json() == {}
    assert script.headers["Content-Type"] == "application/javascript"
    text = script.body.decode()
    assert text.startswith("var _OLBookInfo = {") and text.endswith("};")
    view = json.loads(text.removeprefix("var _OLBookInfo = ").removesuffix(";"))
    assert set(view["ISBN:9780374275631"]) == {"bib_key", "info_url", "preview", "preview_url"}
    details = olid[f"OLID:{edition}"]
    assert details["details"]["key"] == f"/books/{edition}"


# ----------------------------------------------------------------------------- records


@pytest.mark.asyncio
async def test_isbn_redirects_to_the_edition_record() -> None:
    sample = shape(recorded("edition.json"))
    async with client() as c:
        reply = await c.get("/isbn/0262035618.json")
        followed = await c.get("/isbn/9780262035613.json", redirects=True)
        missing = await c.get("/isbn/9780000000002.json")
    assert reply.status == 302
    location = reply.headers["Location"]
    # The redirect stays inside the world's mount point.
    assert location.startswith("/openlibrary/books/OL") and location.endswith("M.json")
    assert followed.status == 200
    edition = followed.json()
    assert set(edition) <= set(sample) | {"subtitle", "full_title", "isbn_13"}
    for key in ("title", "authors", "publishers", "type", "key", "works", "isbn_10",
                "publish_date", "number_of_pages", "created", "last_modified"):
        assert shape(edition)[key] == sample[key], key
    assert edition["key"] == location.removeprefix("/openlibrary").removesuffix(".json")
    assert edition["authors"][0]["key"].startswith("/authors/OL")
    assert edition["isbn_13"] == ["9780262035613"]
    assert missing.status == 404 and missing.json() == {
        "error": "notfound", "key": "/isbn/9780000000002"}


@pytest.mark.asyncio
async def test_work_author_and_unknown_records() -> None:
    async with client() as c:
        work = await c.get("/works/OL15936512W.json")
        author_key = work.json()["authors"][0]["author"]["key"]
        author = await c.get(f"{author_key}.json")
        unknown = await c.get("/books/OL1M.json")
        nowhere = await c.get("/nowhere")
    assert work.status == 200 and work.json()["title"] == "Thinking, fast and slow"
    assert author.status == 200 and author.json()["name"] == "Daniel Kahneman"
    assert unknown.status == 404 and unknown.json() == {"error": "notfound",
                                                        "key": "/books/OL1M"}
    assert nowhere.status == 404 and nowhere.body.startswith(b"<html>")


# ----------------------------------------------------------------------------- identity


@pytest.mark.asyncio
async def test_an_app_without_contact_gets_the_nginx_403() -> None:
    sample = load_sample("openlibrary", "error_403_nginx.html").body.decode()
    async with client() as c:
        refused = await c.get("/search.json", {"q": "the hobbit", "limit": "1"},
                              agent="bindery/sha-14ac48b (linux)")
        with_url = await c.get("/search.json", {"q": "x"},
                               agent="citation-verifier/0.1.0 (+https://example.org)")
        browser = await c.get("/search.json", {"q": "x"}, agent="Mozilla/5.0 (X11)")
        blocked = await c.get("/search.json", {"q": "x"}, agent="obsidian/1.0 a@b.org")
    assert refused.status == 403
    assert refused.headers["Content-Type"] == "text/html"
    assert refused.body.decode() == sample
    assert with_url.status == 200 and browser.status == 200
    assert blocked.status == 429 and b"429 Too Many Requests" in blocked.body


def request_with(agent: str | None) -> web.Request:
    headers = {"User-Agent": agent} if agent is not None else {}
    return make_mocked_request("GET", "/search.json", headers=headers)


def test_pools_limits_and_the_throttled_page() -> None:
    spec = openlibrary.SERVICE
    assert spec.name == "openlibrary"
    assert spec.pool_of(request_with("x/1 (mailto:a@b.org)")) == "identified"
    assert spec.pool_of(request_with("x/1 (contact a@b.org)")) == "identified"
    assert spec.pool_of(request_with("x/1 (+https://example.org)")) == "anonymous"
    assert spec.pool_of(request_with(None)) == "anonymous"
    assert spec.limit_for(request_with("x/1 (mailto:a@b.org)"))[2].rate == 3.0
    assert spec.limit_for(request_with("Mozilla/5.0"))[1:] == ("all", Limit(1.0))
    page = spec.throttled(2.0)
    assert page.status == 429 and page.content_type == "text/html"
    assert "Retry-After" not in page.headers
    assert page.body == (b"<html><head><title>429 Too Many Requests</title></head><body><center>"
                         b"<h1>429 Too Many Requests</h1></center><hr><center>nginx/1.30.1"
                         b"</center></body></html>\n")


# ----------------------------------------------------------------------------- end to end


@pytest.mark.asyncio
async def test_the_engine_adapter_finds_books_through_the_stand_in() -> None:
    adapter = OpenLibraryAdapter()
    identity = Identity(mailto="a@b.org")
    agent = Settings(mailto="a@b.org", cache_dir=None).user_agent
    by_isbn = Citation(identifiers=Identifiers(isbn=("978-0-262-03561-3",)))
    by_title = Citation(title="Design patterns: Elements of reusable object-oriented software",
                        authors=(Author(family="Gamma", given="E."),), year=1994)
    titled_only = Citation(title="Thinking, fast and slow")
    unknown = Citation(identifiers=Identifiers(isbn=("9780000000002",)))
    async with serve() as base, AiohttpTransport(agent) as transport:
        ask = partial(records_of, adapter, transport, base, follow=False)
        lookup = await ask(adapter.lookup_request(by_isbn, identity))
        search = await ask(adapter.search_request(by_title, identity))
        plain = await ask(adapter.search_request(titled_only, identity))
        missing = await ask(adapter.lookup_request(unknown, identity))
        edition = await ask(HttpRequest(path="/isbn/0262035618.json"))
        no_edition = await ask(HttpRequest(path="/isbn/9780000000002.json"))
    [book] = lookup
    assert book.source == "openlibrary" and book.type is WorkType.BOOK
    assert book.title == "Deep learning" and book.year == 2016
    assert [a.family for a in book.authors] == ["Goodfellow", "Bengio", "Courville"]
    assert book.publisher == "MIT Press"
    assert "9780262035613" in book.identifiers.isbn
    assert book.url.startswith("https://openlibrary.org/books/OL")
    first = search[0]
    assert first.title == "design patterns: elements of reusable object-oriented software"
    assert [a.family for a in first.authors] == ["Gamma", "Helm"]
    assert first.year == 1995 and first.identifiers.isbn[0] == "9780201633610"
    assert [r.source_id for r in plain] == ["/works/OL15936512W"]
    assert missing == [] and no_edition == []
    assert edition[0].title == "Deep learning" and edition[0].year == 2016


@pytest.mark.asyncio
async def test_the_adapter_reports_the_403_of_an_anonymous_app() -> None:
    adapter = OpenLibraryAdapter()
    request = adapter.search_request(Citation(title="Deep learning"), Identity())
    assert request is not None
    async with serve() as base, AiohttpTransport("bare-app/1.0") as transport:
        response = await transport.send(base, request)
    assert response.status == 403
    with pytest.raises(UnexpectedStatus, match="contact"):
        adapter.parse(request, response)
