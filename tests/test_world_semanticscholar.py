"""The Semantic Scholar stand-in (verifier.world.semanticscholar) over real HTTP on loopback.

Shapes are compared with the recorded Graph API responses in
``shared/data/api_samples/semanticscholar`` (asking for the same ``fields`` the recordings
asked for), and the engine's SemanticScholarAdapter is pointed at the stand-in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from aiohttp.test_utils import make_mocked_request
from recorded import SAMPLES, load_sample
from world_helpers import Client, Reply, StandIn, connect_world, demo_works_missed, records_of

from adapters.base import Identity
from adapters.semanticscholar import SemanticScholarAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.http.transport import AiohttpTransport, HttpRequest
from verifier.world import Corpus
from verifier.world.pubmed import pmid_of
from verifier.world.semanticscholar import SERVICE, corpus_id, paper_id

HEX = "204e3073870fae3d05bcbc2f6a8e263d9b72e776"
LINES: list[dict[str, Any]] = [
    {"id": "vaswani", "type": "proceedings", "title": "Attention is all you need",
     "authors": [{"family": "Vaswani", "given": "Ashish"}, {"family": "Shazeer", "given": "Noam"}],
     "year": 2017, "container": "Neural Information Processing Systems", "pages": "5998-6008",
     "sources": {"semanticscholar": {"id": HEX}, "arxiv": {"id": "1706.03762"}}},
    {"id": "cats", "type": "article", "title": "Deep learning for cats", "subtitle": "A survey",
     "authors": [{"family": "Smith", "given": "John"}, {"family": "Doe", "given": "Jane Mary"},
                 {"family": "Roe", "given": "Rick"}],
     "year": 2020, "container": "Journal of Feline Studies", "volume": 12, "issue": "3",
     "pages": "100–120", "doi": "10.1234/Cats.2020", "issn": ["1234-5678"], "pmcid": "PMC99",
     "sources": {"semanticscholar": {}, "pubmed": {}, "doaj": {}}},
    {"id": "dogs", "type": "article", "title": "Deep learning for dogs", "subtitle": "Good boys",
     "authors": [{"family": "Barker", "given": "Rex Lee"}, {"family": "Hound", "given": "Ann"}],
     "year": 2016, "container": "Canine Review", "doi": "10.1234/dogs",
     "sources": {"semanticscholar": {"id": "12345", "title_case": "lower",
                                     "drop_subtitle": True, "initials": True, "max_authors": 1,
                                     "year_offset": -1, "omit_doi": True}}},
    {"id": "kingma", "type": "preprint", "title": "Adam: A method for stochastic optimization",
     "authors": [{"family": "Kingma", "given": "Diederik P."}], "year": 2014,
     "doi": "10.48550/arXiv.1412.6980", "sources": {"semanticscholar": {"omit_doi": True}}},
    {"id": "book", "type": "book", "title": "The structure of scientific revolutions",
     "authors": [{"family": "Kuhn", "given": "Thomas S."}], "year": 1962,
     "sources": {"semanticscholar": {}}},
    {"id": "crossref-only", "type": "article", "title": "Deep learning for birds", "year": 2018,
     "doi": "10.1234/birds", "sources": {"crossref": {}}},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])
S2 = SemanticScholarAdapter()


class S2Client(Client):
    async def post(self, path: str, params: Mapping[str, str], body: Any) -> Reply:
        return await self.send("POST", path, params=params, json=body)


STAND_IN = StandIn(SERVICE, CORPUS, S2Client)
serve, client = STAND_IN.serve, STAND_IN.client


def recorded(name: str) -> Any:
    return orjson.loads(load_sample("semanticscholar", name).body)


def recorded_fields(name: str) -> str:
    """The ``fields`` parameter the recording asked for."""
    load_sample("semanticscholar", name + ".json")  # skips when the samples are absent
    meta = json.loads((SAMPLES / "semanticscholar" / f"{name}.meta.json").read_text())
    fields: str = parse_qs(urlsplit(meta["request"]["url"]).query)["fields"][0]
    return fields


def record_of(work_id: str) -> Any:
    return CORPUS.get(work_id).rendered("semanticscholar")


# ----------------------------------------------------------------------------- shapes


@pytest.mark.parametrize("name", ["paper_search_match", "paper_search_match_full_fields"])
@pytest.mark.asyncio
async def test_match_answers_have_the_recorded_keys_in_the_recorded_order(name: str) -> None:
    expected = recorded(f"{name}.json")["data"][0]
    async with client() as c:
        reply = await c.get("/paper/search/match", {
            "query": "Attention is All you Need", "fields": recorded_fields(name)})
    assert reply.status == 200 and reply.headers["Content-Type"] == "application/json"
    [paper] = reply.json()["data"]
    assert list(paper) == list(expected)
    assert isinstance(paper["matchScore"], float)
    assert paper["paperId"] == HEX
    for key in ("externalIds", "openAccessPdf", "citationStyles"):
        if key in expected:
            assert type(paper[key]) is type(expected[key])
    if "openAccessPdf" in expected:
        assert list(paper["openAccessPdf"]) == list(expected["openAccessPdf"])
        assert set(paper["journal"]) <= {"name", "pages", "volume"}
    assert [set(a) for a in paper["authors"]] == [{"authorId", "name"}] * 2


@pytest.mark.asyncio
async def test_paper_lookups_have_the_recorded_keys() -> None:
    by_doi = recorded("paper_doi.json")
    by_path = recorded("paper_by_doi_path.json")
    async with client() as c:
        doi = await c.get("/paper/DOI:10.1234/cats.2020",
                          {"fields": recorded_fields("paper_doi")})
        bare = await c.get("/paper/10.1234/CATS.2020", {"fields": "title"})
    paper = doi.json()
    assert list(paper) == list(by_doi)
    assert paper["externalIds"] == {"PubMedCentral": "99", "DOI": "10.1234/Cats.2020",
                                    "CorpusId": corpus_id(record_of("cats")),
                                    "PubMed": pmid_of(CORPUS.get("cats"))}
    assert paper["journal"] == {"name": "Journal of Feline Studies", "pages": "100 - 120",
                                "volume": "12"}
    assert paper["isOpenAccess"] is True  # an article in DOAJ
    assert paper["publicationTypes"] == ["JournalArticle"]
    assert paper["citationStyles"]["bibtex"].startswith("@Article{Smith2020")
    assert list(bare.json()) == list(by_path)
    assert bare.json()["title"] == "Deep learning for cats: A survey"


@pytest.mark.asyncio
async def test_batch_is_aligned_with_the_ids_and_has_the_recorded_keys() -> None:
    expected = next(p for p in recorded("paper_batch_with_missing.json") if p is not None)
    async with client() as c:
        reply = await c.post("/paper/batch", {"fields": recorded_fields(
            "paper_batch_with_missing")}, {"ids": [
                "CorpusId:1", "ARXIV:1706.03762", "DOI:10.1234/CATS.2020", HEX, "10.9/none"]})
        bad = await c.post("/paper/batch", {}, {"ids": "not a list"})
    papers = reply.json()
    assert [None if p is None else p["paperId"] for p in papers] == [
        None, HEX, paper_id(record_of("cats")), HEX, None]
    assert list(papers[1]) == list(expected)
    assert bad.status == 400 and "error" in bad.json()


@pytest.mark.asyncio
async def test_not_found_and_error_bodies_equal_the_recorded_ones() -> None:
    async with client() as c:
        no_match = await c.get("/paper/search/match", {"query": "askldjrq3rjaw938h",
                                                       "fields": "title"})
        no_paper = await c.get("/paper/DOI:10.1101/2024.04.01.587366",
                               {"fields": recorded_fields("paper_doi_not_found")})
        bad_fields = await c.get("/paper/10.1093/mind/lix.236.433", {"fields": "unknown"})
        no_hits = await c.get("/paper/search", {"query": "n0 r3sult s3arch t3rm",
                                                "fields": "title", "offset": "0",
                                                "limit": "100"})
        blank_key = await c.get("/paper/search", {"query": "x"}, headers={"x-api-key": " "})
        no_route = await c.get("/author/search", {"query": "x"})
    for reply, name, status in ((no_match, "paper_search_match_not_found", 404),
                                (no_paper, "paper_doi_not_found", 404),
                                (bad_fields, "error_bad_fields", 400),
                                (no_hits, "paper_search_empty", 200),
                                (blank_key, "error_forbidden", 403)):
        assert (reply.status, reply.json()) == (status, recorded(f"{name}.json")), name
    assert blank_key.headers["x-amzn-ErrorType"] == "ForbiddenException"
    assert no_route.status == 403 and "message" in no_route.json()


@pytest.mark.asyncio
async def test_search_envelope_paging_and_default_fields() -> None:
    expected = recorded("paper_search.json")
    async with client() as c:
        first = await c.get("/paper/search", {"query": "deep learning", "limit": "1"})
        last = await c.get("/paper/search", {"query": "deep learning", "offset": "1"})
        beyond = await c.get("/paper/search", {"query": "deep learning", "offset": "5"})
        too_many = await c.get("/paper/search", {"query": "deep", "limit": "101"})
        hyphen = await c.get("/paper/search", {"query": "deep-learning"})
    body = first.json()
    assert list(body) == list(expected)
    assert (body["total"], body["offset"], body["next"]) == (2, 0, 1)
    assert [list(p) for p in body["data"]] == [list(p) for p in expected["data"][:1]]
    assert "next" not in last.json() and len(last.json()["data"]) == 1
    assert beyond.status == too_many.status == 400
    assert beyond.json() == {
        "error": "Requested data for this limit and/or offset is not available"}
    assert hyphen.json() == {"total": 0, "offset": 0}  # S2: hyphenated terms match nothing


@pytest.mark.parametrize(("params", "expected"), [
    ({"year": "2017"}, ["Attention is all you need"]),
    ({"year": "2018-"}, ["Deep learning for cats: A survey"]),
    ({"year": "-2017"}, ["deep learning for dogs", "Attention is all you need"]),
    ({"year": "2015"}, ["deep learning for dogs"]),
    ({"publicationTypes": "Conference,Book"}, ["Attention is all you need"]),
    ({"venue": "canine review"}, ["deep learning for dogs"]),
    ({"openAccessPdf": ""}, ["Deep learning for cats: A survey", "Attention is all you need"]),
    ({"minCitationCount": "1"}, []),
])
@pytest.mark.asyncio
async def test_search_filters(params: dict[str, str], expected: list[str]) -> None:
    async with client() as c:
        reply = await c.get("/paper/search", {"query": "deep learning attention need",
                                              **params})
    assert sorted(p["title"] for p in reply.json().get("data", [])) == sorted(expected)


# ----------------------------------------------------------------------------- ids, match


@pytest.mark.parametrize("ident", [
    "ARXIV:1706.03762", "arxiv:1706.03762v5", f"CorpusId:{corpus_id(record_of('vaswani'))}",
    HEX, HEX.upper(), f"URL:https://www.semanticscholar.org/paper/{HEX}",
    "URL:https://arxiv.org/abs/1706.03762v2",
])
@pytest.mark.asyncio
async def test_paper_ids_of_every_kind(ident: str) -> None:
    async with client() as c:
        reply = await c.get(f"/paper/{ident}")
    assert (reply.status, reply.json()) == (
        200, {"paperId": HEX, "title": "Attention is all you need"})


@pytest.mark.asyncio
async def test_pubmed_ids_and_rendering_options() -> None:
    async with client() as c:
        by_pmid = await c.get(f"/paper/PMID:{pmid_of(CORPUS.get('cats'))}")
        by_pmcid = await c.get("/paper/PMCID:PMC99")
        by_corpus = await c.get("/paper/CorpusId:12345", {
            "fields": "title,year,authors,externalIds,corpusId"})
        omitted = await c.get("/paper/DOI:10.1234/dogs")
        kingma = await c.get("/paper/ARXIV:1412.6980", {"fields": "externalIds,isOpenAccess,"
                                                                  "openAccessPdf"})
    assert by_pmid.json()["title"] == by_pmcid.json()["title"] == (
        "Deep learning for cats: A survey")
    dogs = by_corpus.json()
    assert dogs["title"] == "deep learning for dogs"  # lower case, subtitle dropped
    assert dogs["year"] == 2015 and dogs["corpusId"] == 12345
    assert [a["name"] for a in dogs["authors"]] == ["R. L. Barker"]
    assert dogs["externalIds"] == {"CorpusId": 12345}  # omit_doi
    assert omitted.status == 404
    assert kingma.json()["externalIds"]["ArXiv"] == "1412.6980"
    assert kingma.json()["openAccessPdf"]["url"] == "https://arxiv.org/pdf/1412.6980"


@pytest.mark.parametrize(("query", "title"), [
    ("Attention is all you need.", "Attention is all you need"),
    ("ATTENTION IS ALL YOU NEED", "Attention is all you need"),
    ("Attention is all you nead", "Attention is all you need"),
    ("Deep learning for cats", "Deep learning for cats: A survey"),  # subtitle left out
    ("Deep learning for dogs: Good boys", "deep learning for dogs"),  # S2 dropped it
    ("Adam: A method for stochastic optimization", "Adam: A method for stochastic optimization"),
    ("Attention is what you need badly", None),
    ("Deep learning", None),
    ("Quantum annealing for wombats", None),
])
@pytest.mark.asyncio
async def test_title_match_threshold(query: str, title: str | None) -> None:
    async with client() as c:
        reply = await c.get("/paper/search/match", {"query": query})
    if title is None:
        assert (reply.status, reply.json()) == (404, {"error": "Title match not found"})
    else:
        assert reply.status == 200 and reply.json()["data"][0]["title"] == title


@pytest.mark.asyncio
async def test_match_year_filter_and_missing_query() -> None:
    async with client() as c:
        other_year = await c.get("/paper/search/match", {"query": "Attention is all you need",
                                                         "year": "2019-2020"})
        no_query = await c.get("/paper/search/match", {"fields": "title"})
    assert other_year.status == 404
    assert no_query.status == 400 and "error" in no_query.json()


def test_pools_and_throttled_body() -> None:
    keyed = make_mocked_request("GET", "/semanticscholar/paper/x", headers={"x-api-key": "k"})
    shared = make_mocked_request("GET", "/semanticscholar/paper/x")
    assert SERVICE.limit_for(keyed)[:2] == ("keyed", "any")
    assert SERVICE.limit_for(shared)[:2] == ("shared", "any")
    assert {pool: classes["any"].rate for pool, classes in SERVICE.limits.items()} == {
        "shared": 1.0, "keyed": 1.0}
    quoted = load_sample("semanticscholar", "error_429.quoted.json")
    response = SERVICE.throttled(2.0)
    assert isinstance(response.body, bytes)
    assert (response.status, orjson.loads(response.body)) == (429, orjson.loads(quoted.body))
    assert "Retry-After" not in response.headers


# ----------------------------------------------------------------------------- the engine's adapter


async def records(request: HttpRequest | None, base: str) -> list[WorkRecord]:
    async with AiohttpTransport("citation-verifier/test") as transport:
        return await records_of(S2, transport, base, request)


@pytest.mark.asyncio
async def test_the_adapter_finds_works_by_title_doi_arxiv_and_pmid() -> None:
    keyed = Identity(api_key="s2key" * 8)  # the shape of a real key
    async with serve() as base:
        [by_title] = await records(S2.search_request(Citation(
            title="Deep learning for cats - a survey"), keyed), base)
        [by_doi] = await records(S2.lookup_request(Citation(
            identifiers=Identifiers(doi="10.1234/CATS.2020")), Identity()), base)
        [by_arxiv_doi] = await records(S2.lookup_request(Citation(
            identifiers=Identifiers(doi="10.48550/arXiv.1412.6980")), Identity()), base)
        [by_pmid] = await records(S2.lookup_request(Citation(
            identifiers=Identifiers(pmid=pmid_of(CORPUS.get("cats")))), Identity()), base)
        no_match = await records(S2.search_request(Citation(title="Quantum wombats"), keyed),
                                 base)
        no_paper = await records(S2.lookup_request(Citation(
            identifiers=Identifiers(doi="10.1234/birds")), Identity()), base)
    assert by_title == by_doi == by_pmid
    assert by_title.source_id == paper_id(record_of("cats"))
    assert by_title.title == "Deep learning for cats: A survey"
    assert by_title.authors == (Author(family="Smith", given="John"),
                                Author(family="Doe", given="Jane Mary"),
                                Author(family="Roe", given="Rick"))
    assert (by_title.year, by_title.container, by_title.volume, by_title.pages) == (
        2020, "Journal of Feline Studies", "12", "100-120")
    assert by_title.type is WorkType.ARTICLE
    assert by_title.identifiers.doi == "10.1234/cats.2020"
    assert by_title.identifiers.pmcid == "PMC99"
    assert by_title.identifiers.issn == ("1234-5678",)
    assert by_title.open_access is True and by_title.retracted is None
    assert by_arxiv_doi.title == "Adam: A method for stochastic optimization"
    assert by_arxiv_doi.identifiers.arxiv == "1412.6980"
    assert no_match == [] and no_paper == []


@pytest.mark.asyncio
async def test_through_the_world_excess_gets_the_gateways_429() -> None:
    async with connect_world(CORPUS, services={SERVICE.name: SERVICE}) as served:
        world, c = served.world, served.at("semanticscholar")
        first = await c.get(f"/paper/{HEX}")
        second = await c.get(f"/paper/{HEX}")
        keyed = await c.get(f"/paper/{HEX}", headers={"x-api-key": "k" * 40})
    assert (first.status, second.status, keyed.status) == (200, 429, 200)
    assert second.json()["code"] == "429" and "Retry-After" not in second.headers
    assert [(e.endpoint, e.pool) for e in world.requests_for("semanticscholar")] == [
        ("paper", "shared"), ("paper", "shared"), ("paper", "keyed")]


@pytest.mark.asyncio
async def test_every_demo_work_is_found_by_the_adapter_from_its_own_metadata() -> None:
    missed = await demo_works_missed(SERVICE, SemanticScholarAdapter())
    assert missed == []


@pytest.mark.asyncio
async def test_a_key_the_gateway_did_not_issue_gets_its_403() -> None:
    async with connect_world(CORPUS, services={SERVICE.name: SERVICE}) as served:
        bad = await served.at("semanticscholar").get(f"/paper/{HEX}",
                                                     headers={"x-api-key": "bench"})
    async with connect_world(CORPUS, services={SERVICE.name: SERVICE}) as served:
        good = await served.at("semanticscholar").get(f"/paper/{HEX}",
                                                      headers={"x-api-key": "A1" * 20})
    assert bad.status == 403 and bad.json() == {"message": "Forbidden"}
    assert bad.headers["x-amzn-ErrorType"] == "ForbiddenException"
    assert good.status == 200
