"""The DOAJ stand-in (verifier.world.doaj) over real HTTP on loopback.

Shapes are compared with the recorded DOAJ responses in ``shared/data/api_samples/doaj``
(v2 recordings: the v4 envelope and article are the same but for lower-case identifier
types), and the engine's DoajAdapter is pointed at the stand-in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from aiohttp.test_utils import make_mocked_request
from recorded import load_sample
from world_helpers import Client, Reply, StandIn, connect_world, demo_works_missed, records_of

from adapters.base import Identity
from adapters.doaj import DoajAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.http.transport import AiohttpTransport, HttpRequest
from verifier.world import Corpus
from verifier.world.doaj import DISALLOWED, NGINX_429, SERVICE, article_id, parse_query

LINES: list[dict[str, Any]] = [
    {"id": "cats", "type": "article", "title": "Deep learning for cats", "subtitle": "A survey",
     "authors": [{"family": "Smith", "given": "John"}, {"family": "Doe", "given": "Jane Mary"}],
     "year": 2020, "container": "Journal of Feline Studies", "volume": 12, "issue": "3",
     "pages": "100–120", "publisher": "Cat Press", "doi": "10.1234/Cats.2020",
     "issn": ["1234-5678", "2345-6789"],
     "sources": {"doaj": {"id": "0005e11ec616453f854070069385e057", "seal": True,
                          "month": "4", "keywords": ["felines", "neural networks"]}}},
    {"id": "deep", "type": "article", "title": "Deep learning",
     "authors": [{"family": "Ng", "given": "Ann"}], "year": 2015, "container": "Open Minds",
     "pages": "e124", "issn": ["3456-7890"],
     "sources": {"doaj": {"license": "CC BY-NC", "country": "GB",
                          "url": "https://openminds.example/deep"}}},
    {"id": "vaccines", "type": "article", "title": "Vaccines, autism, and other claims",
     "subtitle": "A case-series (revisited) / 100% honest",
     "authors": [{"family": "Quack", "given": "Q. Q."}], "year": 2011,
     "container": "Open Minds", "doi": "10.1234/vax(2011)", "issn": ["3456-7890"],
     "sources": {"doaj": {"title_case": "sentence", "initials": True}}},
    {"id": "closed", "type": "article", "title": "Deep learning for birds", "year": 2018,
     "doi": "10.1234/birds", "sources": {"crossref": {}, "openalex": {}}},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])
DOAJ = DoajAdapter()
REF = r"\(ref: [0-9a-f-]{36}\)"


class DoajClient(Client):
    encoded = True  # the query goes out encoded as written

    async def search(self, query: str, params: Mapping[str, str] | None = None,
                     prefix: str = "") -> Reply:
        return await self.get(f"{prefix}/search/articles/{quote(query, safe='')}", params)


STAND_IN = StandIn(SERVICE, CORPUS, DoajClient)
serve, client = STAND_IN.serve, STAND_IN.client


def recorded(name: str) -> Any:
    return orjson.loads(load_sample("doaj", name).body)


def doaj_id(work_id: str) -> str:
    record = CORPUS.get(work_id).rendered("doaj")
    assert record is not None
    return article_id(record)


def union_keys(items: list[dict[str, Any]]) -> set[str]:
    return {key for item in items for key in item}


# ----------------------------------------------------------------------------- shapes


@pytest.mark.asyncio
async def test_search_envelope_and_articles_have_the_recorded_shape() -> None:
    sample = load_sample("doaj", "search_articles.json")
    expected = orjson.loads(sample.body)
    by_id = recorded("article_by_id.json")
    articles = [*expected["results"], *recorded("search_articles_sorted.json")["results"],
                by_id]
    bibjsons = [a["bibjson"] for a in articles]
    async with client() as c:
        reply = await c.search("deep", {"page": "1", "pageSize": "1"})
    body = reply.json()
    assert reply.status == 200 and reply.headers["Content-Type"] == "application/json"
    assert list(body) == list(expected)
    assert (body["total"], body["page"], body["pageSize"], body["query"]) == (2, 1, 1, "deep")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", body["timestamp"])
    for article in body["results"]:
        assert list(article) == list(expected["results"][0])[:2] + ["admin", "id",
                                                                    "created_date"]
        assert set(article) <= union_keys(articles)
        assert set(article["admin"]) <= set(by_id["admin"])
        bib = article["bibjson"]
        assert set(bib) <= union_keys(bibjsons), set(bib) - union_keys(bibjsons)
        assert set(bib["journal"]) <= union_keys([b["journal"] for b in bibjsons])
        for key in ("identifier", "link", "author"):
            assert set().union(*map(set, bib[key])) <= union_keys(
                [x for b in bibjsons for x in b.get(key, [])])
        assert isinstance(bib["year"], str)
        assert {i["type"] for i in bib["identifier"]} <= {"doi", "pissn", "eissn"}
    # Links and headers as DOAJ builds them, pointing back at this server.
    assert body["next"].endswith("/doaj/search/articles/deep?page=2&pageSize=1")
    assert body["last"].endswith("?page=2&pageSize=1")
    assert reply.headers["X-Total-Count"] == "2"
    assert reply.headers["Link"] == f"<{body['next']}>; rel=next, <{body['last']}>; rel=last"
    assert set(sample.headers) >= {"link", "x-total-count"}


@pytest.mark.asyncio
async def test_sorted_search_echoes_sort_and_orders() -> None:
    expected = recorded("search_articles_sorted.json")
    async with client() as c:
        reply = await c.search("open", {"page": "1", "pageSize": "1", "sort": "year:desc"})
        by_title = await c.search("deep", {"sort": "title"})
    body = reply.json()
    assert list(body) == list(expected)
    assert body["sort"] == "year:desc" and body["next"].endswith("&sort=year%3Adesc")
    assert [r["bibjson"]["year"] for r in body["results"]] == ["2015"]
    assert [r["bibjson"]["title"] for r in by_title.json()["results"]] == [
        "Deep learning", "Deep learning for cats: A survey"]


@pytest.mark.asyncio
async def test_an_article_renders_the_doaj_view_of_the_work() -> None:
    expected = recorded("article_by_id.json")
    async with client() as c:
        reply = await c.get("/articles/0005e11ec616453f854070069385e057")
        vaccines = await c.search('doi:"10.1234/vax(2011)"')
    article = reply.json()
    assert list(article) == [k for k in expected if k != "es_type"]
    assert article["admin"] == {"seal": True}
    bib = article["bibjson"]
    assert bib["title"] == "Deep learning for cats: A survey"  # the subtitle is in the title
    assert (bib["year"], bib["month"], bib["start_page"], bib["end_page"]) == (
        "2020", "4", "100", "120")
    assert bib["identifier"] == [{"type": "doi", "id": "10.1234/Cats.2020"},
                                 {"type": "pissn", "id": "1234-5678"},
                                 {"type": "eissn", "id": "2345-6789"}]
    assert bib["journal"]["title"] == "Journal of Feline Studies"
    assert bib["journal"]["issns"] == ["1234-5678", "2345-6789"]
    assert bib["journal"]["license"][0]["type"] == "CC BY"
    assert bib["link"] == [{"type": "fulltext", "url": "https://doi.org/10.1234/Cats.2020",
                            "content_type": "HTML"}]
    assert bib["author"] == [{"name": "John Smith"}, {"name": "Jane Mary Doe"}]
    assert bib["keywords"] == ["felines", "neural networks"]
    [vax] = vaccines.json()["results"]
    assert vax["bibjson"]["title"] == (
        "Vaccines, autism, and other claims: A case-series (revisited) / 100% honest")
    assert vax["bibjson"]["author"] == [{"name": "Q. Q. Quack"}]
    assert vax["admin"] == {"seal": False}


@pytest.mark.asyncio
async def test_not_found_shapes() -> None:
    async with client() as c:
        missing = await c.get("/articles/nope")
        no_route = await c.get("/journals/search/x")
        no_hits = await c.search("bibjson.title:\"nothing like this\"")
        closed = await c.search("doi:10.1234/birds")
    assert missing.status == 404
    assert missing.json()["status"] == "not_found"
    assert re.fullmatch(rf" {REF}", missing.json()["error"])  # DOAJ's bare Api404Error
    assert no_route.status == 404
    assert no_route.json()["error"].startswith("No endpoint at journals/search/x. See ")
    body = no_hits.json()
    assert (body["total"], body["results"]) == (0, [])
    assert body["last"].endswith("?page=1&pageSize=10")  # DOAJ computes one empty page
    assert "next" not in body
    assert closed.json()["total"] == 0  # not in DOAJ: only "doaj" works are served


# ----------------------------------------------------------------------------- query syntax


@pytest.mark.parametrize(("query", "expected"), [
    ('bibjson.title:"deep learning"', {"cats", "deep"}),
    ('bibjson.title:"learning deep"', set()),
    ("title:deep AND title:cats", {"cats"}),
    ("title:(deep AND cats)", {"cats"}),
    ("title:(cats OR vaccines)", {"cats", "vaccines"}),
    ("deep NOT cats", {"deep"}),
    ("deep -cats", {"deep"}),
    ("deep AND (cats OR ng)", {"cats", "deep"}),
    ("deep cats", {"cats"}),  # default operator AND
    ("deep OR vaccines", {"cats", "deep", "vaccines"}),
    ('bibjson.author.name:"Smith"', {"cats"}),
    ('bibjson.author.name:"Jane Mary Doe"', {"cats"}),
    ('bibjson.author.name:"Doe Jane"', set()),
    ("doi:10.1234/cats.2020", {"cats"}),  # "/" is escaped by DOAJ: literal
    ('doi:"10.1234\\/CATS.2020"', {"cats"}),
    ("doi:10.1234/cats", set()),  # exact: no partial DOI
    ("bibjson.identifier.id:1234", {"cats", "vaccines"}),  # analysed: a DOI's words
    ("issn:3456-7890", {"deep", "vaccines"}),
    ("bibjson.year:2015", {"deep"}),
    ('publisher:"cat press"', {"cats"}),
    ('journal:"open minds"', {"deep", "vaccines"}),
    ("bibjson.journal.volume:12 AND bibjson.journal.number:3", {"cats"}),
    ("bibjson.keywords:felines", {"cats"}),
    ("abstract:deep", set()),  # no abstracts in the corpus
    ("bibjson.nonsense:deep", set()),  # an unknown field matches nothing, no error
    ("id:0005e11ec616453f854070069385e057", {"cats"}),
    ('bibjson.title:"claims\\: a case\\-series \\(revisited\\) \\/ 100% honest"', {"vaccines"}),
    # An escaped wildcard is allowed and literal; the analyser then drops it, as ES's does.
    ("title:deep\\*", {"cats", "deep"}),
    ("2011", {"vaccines"}),
])
@pytest.mark.asyncio
async def test_query_syntax(query: str, expected: set[str]) -> None:
    ids = {doaj_id(w): w for w in ("cats", "deep", "vaccines")}
    async with client() as c:
        reply = await c.search(query)
    assert reply.status == 200, reply.body
    assert {ids[r["id"]] for r in reply.json()["results"]} == expected, query


@pytest.mark.parametrize("query", [
    "title:deep*", "title:de?p", 'bibjson.title:"What is life?"', "cats~2", '"deep cats"~3',
])
@pytest.mark.asyncio
async def test_wildcards_and_fuzzy_are_refused(query: str) -> None:
    async with client() as c:
        reply = await c.search(query)
    assert reply.status == 400
    assert reply.json()["status"] == "bad_request"
    assert re.fullmatch(rf"{DISALLOWED} {REF}", reply.json()["error"])


@pytest.mark.parametrize("query", ["title:(deep", "deep)", 'title:"deep', "title:"])
@pytest.mark.asyncio
async def test_unreadable_queries_are_doajs_generic_error_with_two_refs(query: str) -> None:
    async with client() as c:
        reply = await c.search(query)
    assert reply.status == 400
    assert re.fullmatch(rf"There was an error executing your query {REF} {REF}",
                        reply.json()["error"])


def test_precedence_not_and_or() -> None:
    tree = parse_query("a OR b AND NOT c")
    assert repr(tree).startswith("Node(op='OR'")


# ----------------------------------------------------------------------------- paging, routes


@pytest.mark.asyncio
async def test_paging_is_clamped_and_deep_paging_refused() -> None:
    async with client() as c:
        huge = await c.search("deep", {"pageSize": "500"})
        zero = await c.search("deep", {"pageSize": "0", "page": "0"})
        deep = await c.search("deep", {"page": "101", "pageSize": "10"})
        edge = await c.search("deep", {"page": "100", "pageSize": "10"})
        bad_page = await c.search("deep", {"page": "two"})
        bad_size = await c.search("deep", {"pageSize": "ten"})
        bad_sort = await c.search("deep", {"sort": "year:up"})
        malformed = await c.search("deep", {"sort": "a:b:c"})
        unknown_sort = await c.search("deep", {"sort": "colour"})
    assert (huge.json()["pageSize"], zero.json()["pageSize"], zero.json()["page"]) == (
        100, 10, 1)
    assert deep.status == 400
    assert deep.json()["error"].startswith(
        "You cannot access results beyond 1000 records via this API.\n")
    assert edge.status == 200 and edge.json()["results"] == []
    for reply, message in ((bad_page, "Page number was not an integer"),
                           (bad_size, "Page size was not an integer"),
                           (bad_sort, "Sort direction must be 'asc' or 'desc'"),
                           (malformed, "Malformed sort parameter")):
        assert reply.status == 400 and reply.json()["error"].startswith(message)
    assert unknown_sort.status == 400


@pytest.mark.parametrize("prefix", ["", "/v4", "/v3", "/v2"])
@pytest.mark.asyncio
async def test_versioned_paths_answer_the_same(prefix: str) -> None:
    async with client() as c:
        reply = await c.search("deep", {"pageSize": "1"}, prefix=prefix)
        article = await c.get(f"{prefix}/articles/0005e11ec616453f854070069385e057")
    assert reply.json()["total"] == 2
    assert reply.json()["next"].split("/doaj/")[1].startswith("search/articles/deep?")
    assert article.json()["id"] == "0005e11ec616453f854070069385e057"


@pytest.mark.asyncio
async def test_bots_are_refused_and_throttling_is_nginxs_page() -> None:
    async with client() as c:
        bot = await c.get("/search/articles/deep", headers={"User-Agent": "CiteBot/1.0"})
        robot = await c.get("/search/articles/deep", headers={
            "User-Agent": "tool/1 (mailto:robotics@example.org)"})
        uptime = await c.get("/search/articles/deep", headers={"User-Agent": "UptimeRobot/2"})
    assert bot.status == robot.status == 403 and b"403 Forbidden" in bot.body
    assert uptime.status == 200
    request = make_mocked_request("GET", "/doaj/search/articles/x")
    assert SERVICE.limit_for(request) == ("public", "any", SERVICE.limits["public"]["any"])
    assert SERVICE.limits["public"]["any"].rate == 2.0
    response = SERVICE.throttled(0.5)
    assert response.status == 429 and response.content_type == "text/html"
    assert response.body == NGINX_429.encode()


# ----------------------------------------------------------------------------- the engine's adapter


async def records(request: HttpRequest | None, base: str) -> list[WorkRecord]:
    async with AiohttpTransport("citation-verifier/test (mailto:you@example.org)") as transport:
        return await records_of(DOAJ, transport, base, request)


@pytest.mark.asyncio
async def test_the_adapter_finds_works_by_title_and_doi() -> None:
    async with serve() as base:
        [by_title] = await records(DOAJ.search_request(Citation(
            title="Deep learning for cats: a survey"), Identity()), base)
        [by_doi] = await records(DOAJ.lookup_request(Citation(
            identifiers=Identifiers(doi="https://doi.org/10.1234/CATS.2020")), Identity()), base)
        short = await records(DOAJ.search_request(Citation(
            title="Deep learning", authors=(Author(family="Ng", given="A."),)), Identity()), base)
        reserved = await records(DOAJ.search_request(Citation(
            title="Vaccines, autism, and other claims: a case-series (revisited) / 100% "
                  "honest?"), Identity()), base)
        by_odd_doi = await records(DOAJ.lookup_request(Citation(
            identifiers=Identifiers(doi="10.1234/VAX(2011)")), Identity()), base)
        missing = await records(DOAJ.search_request(Citation(
            title="Quantum annealing for wombats"), Identity()), base)
        closed = await records(DOAJ.lookup_request(Citation(
            identifiers=Identifiers(doi="10.1234/birds")), Identity()), base)
    assert by_title == by_doi
    assert by_title.source_id == "0005e11ec616453f854070069385e057"
    assert by_title.title == "Deep learning for cats: A survey"
    assert by_title.authors == (Author(family="Smith", given="John"),
                                Author(family="Doe", given="Jane Mary"))
    assert (by_title.year, by_title.container, by_title.volume, by_title.issue,
            by_title.pages, by_title.publisher) == (
        2020, "Journal of Feline Studies", "12", "3", "100-120", "Cat Press")
    assert by_title.identifiers.doi == "10.1234/cats.2020"
    assert by_title.identifiers.issn == ("1234-5678", "2345-6789")
    assert by_title.url == "https://doi.org/10.1234/Cats.2020"
    assert by_title.type is WorkType.ARTICLE and by_title.open_access is True
    [deep] = short
    assert (deep.title, deep.pages, deep.url) == (
        "Deep learning", "e124", "https://openminds.example/deep")
    assert [r.identifiers.doi for r in reserved] == [r.identifiers.doi for r in by_odd_doi] == [
        "10.1234/vax(2011)"]
    assert missing == [] and closed == []


@pytest.mark.asyncio
async def test_through_the_world_excess_gets_nginxs_429() -> None:
    async with connect_world(CORPUS, services={SERVICE.name: SERVICE},
                             client_type=DoajClient) as served:
        world, c = served.world, served.at("doaj")
        assert isinstance(c, DoajClient)
        replies = [await c.search("deep") for _ in range(3)]
    assert [r.status for r in replies] == [200, 200, 429]
    assert replies[2].headers["Content-Type"].startswith("text/html")
    assert [(e.endpoint, e.pool, e.throttled) for e in world.requests_for("doaj")] == [
        ("search_articles", "public", None)] * 2 + [("search_articles", "public", "rate")]


@pytest.mark.asyncio
async def test_every_demo_work_is_found_by_the_adapter_from_its_own_metadata() -> None:
    missed = await demo_works_missed(SERVICE, DoajAdapter())
    assert missed == []
