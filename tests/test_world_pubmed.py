"""The PubMed stand-in (verifier.world.pubmed) over real HTTP on loopback.

Shapes are compared with the recorded E-utilities responses in
``shared/data/api_samples/pubmed`` (tests that need them skip when the folder is absent),
and the engine's own PubMedAdapter is pointed at the stand-in: its requests must be
answered and its parser must read the answers back as the corpus's works.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

import orjson
import pytest
from aiohttp import web
from recorded import load_sample
from world_helpers import Client, Reply, StandIn, connect_world, demo_works_missed, records_of

from adapters.base import Identity
from adapters.pubmed import PubMedAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord
from verifier.http.transport import AiohttpTransport, HttpRequest
from verifier.world import Corpus
from verifier.world import pubmed as world_pubmed
from verifier.world.pubmed import SERVICE, derived_pmid, medline_pages, parse_term, translation

LINES: list[dict[str, Any]] = [
    {"id": "cats", "type": "article", "title": "Deep learning for cats", "subtitle": "A survey",
     "authors": [{"family": "Smith", "given": "John"}, {"family": "Doe", "given": "Jane Mary"},
                 {"family": "Roe", "given": "Rick"}],
     "year": 2020, "container": "Journal of Feline Studies", "volume": 12, "issue": "3",
     "pages": "100–120", "doi": "10.1234/Cats.2020", "issn": ["1234-5678"],
     "sources": {"pubmed": {"id": "31234567"}}},
    {"id": "wakefield", "type": "article",
     "title": "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive "
              "developmental disorder in children",
     "authors": [{"family": "Wakefield", "given": "A. J."}, {"family": "Murch", "given": "S. H."}],
     "year": 1998, "container": "Lancet", "volume": "351", "issue": "9103", "pages": "637-641",
     "doi": "10.1016/S0140-6736(97)11096-0", "retracted": True,
     "retraction": {"doi": "10.1016/S0140-6736(10)60175-4", "year": 2010},
     "sources": {"pubmed": {"id": "9500320"}}},
    {"id": "dogs", "type": "article", "title": "Deep learning for dogs",
     "authors": [{"family": "Smith", "given": "Anna"}, {"family": "Jones", "given": "Bob"}],
     "year": 2015, "container": "Nature", "doi": "10.1234/dogs", "pmid": "11111111",
     "sources": {"pubmed": {"title_case": "upper", "initials": True, "max_authors": 1,
                            "year_offset": 1, "omit_doi": True}}},
    {"id": "chapter", "type": "chapter", "title": "Statistics for clinicians",
     "authors": [{"family": "Lee", "given": "Kim"}], "editors": [{"family": "Ode", "given": "E."}],
     "year": 2011, "container": "Handbook of Medicine", "publisher": "NCBI Bookshelf",
     "pages": "1-20", "sources": {"pubmed": {}}},
    {"id": "consortium", "type": "article", "title": "Genome sequencing of cats",
     "authors": [{"literal": "Feline Genome Consortium"}], "year": 2009, "container": "Nature",
     "pmcid": "PMC123456", "sources": {"pubmed": {"id": "21812345"}}},
    {"id": "elsewhere", "type": "article", "title": "Deep learning for birds", "year": 2018,
     "sources": {"crossref": {}}, "doi": "10.1234/birds"},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])
PUBMED = PubMedAdapter()


class PubMedClient(Client):
    async def post(self, path: str, data: Mapping[str, str]) -> Reply:
        return await self.send("POST", path, data=data)


STAND_IN = StandIn(SERVICE, CORPUS, PubMedClient)
serve, client = STAND_IN.serve, STAND_IN.client


def esearch(term: str, **extra: str) -> dict[str, str]:
    return {"db": "pubmed", "term": term, "retmode": "json", **extra}


def element_paths(root: ET.Element) -> set[str]:
    paths: set[str] = set()

    def walk(element: ET.Element, path: str) -> None:
        paths.add(path)
        for child in element:
            walk(child, f"{path}/{child.tag}")

    for article in root:
        walk(article, article.tag)
    return paths


# ----------------------------------------------------------------------------- shapes


@pytest.mark.asyncio
async def test_esearch_json_has_the_recorded_shape_with_string_numbers() -> None:
    recorded = orjson.loads(load_sample("pubmed", "esearch_author.json").body)
    async with client() as c:
        reply = await c.get("/esearch.fcgi", esearch("smith[au]"))
    body = reply.json()
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("application/json")
    assert list(body) == list(recorded)
    assert body["header"] == recorded["header"]
    result = body["esearchresult"]
    assert list(result) == list(recorded["esearchresult"])
    assert result["count"] == "2" and result["retmax"] == "2" and result["retstart"] == "0"
    assert result["idlist"] == ["31234567", "11111111"]  # newest first by default
    assert result["querytranslation"] == "smith[Author]"


@pytest.mark.asyncio
async def test_esearch_no_hits_matches_the_recorded_xml_and_json_shapes() -> None:
    recorded = ET.fromstring(load_sample("pubmed", "esearch_no_results_xml.xml").body)
    async with client() as c:
        xml_reply = await c.get("/esearch.fcgi", {"db": "pubmed", "term": "abcXYZ"})
        json_reply = await c.get("/esearch.fcgi", esearch("abcXYZ"))
    root = xml_reply.xml()
    assert xml_reply.headers["Content-Type"] == "text/xml; charset=UTF-8"
    assert [e.tag for e in root] == [e.tag for e in recorded]
    assert [e.tag for e in root.iter()] == [e.tag for e in recorded.iter()]
    assert root.findtext("ErrorList/PhraseNotFound") == "abcXYZ"
    result = json_reply.json()["esearchresult"]
    assert (result["count"], result["retmax"], result["idlist"]) == ("0", "0", [])
    assert result["errorlist"] == {"phrasesnotfound": ["abcXYZ"], "fieldsnotfound": []}
    assert result["warninglist"]["outputmessages"] == ["No items found."]


@pytest.mark.asyncio
async def test_esearch_xml_hits_have_the_recorded_structure() -> None:
    recorded = ET.fromstring(load_sample("pubmed", "esearch_xml.xml").body)
    async with client() as c:
        reply = await c.get("/esearch.fcgi", {"db": "pubmed", "term": "deep[ti]"})
    root = reply.xml()
    assert [e.tag for e in root] == [e.tag for e in recorded]
    assert [e.text for e in root.iter("Id")] == ["31234567", "11111111"]
    assert reply.body.startswith(load_sample("pubmed", "esearch_xml.xml").body[:100])


@pytest.mark.asyncio
async def test_efetch_articles_use_only_recorded_elements_and_the_rate_headers() -> None:
    samples = ("efetch_pmid.xml", "efetch_mathml_orcid.xml", "efetch_title_with_html_tags.xml")
    recorded_paths: set[str] = set()
    for name in samples:
        recorded_paths |= element_paths(ET.fromstring(load_sample("pubmed", name).body))
    headers = load_sample("pubmed", "efetch_pmid.xml").headers
    async with client() as c:
        reply = await c.get("/efetch.fcgi", {"db": "pubmed", "id": "31234567,11111111",
                                             "retmode": "xml"})
    root = reply.xml()
    assert root.tag == "PubmedArticleSet"
    assert element_paths(root) <= recorded_paths, element_paths(root) - recorded_paths
    assert reply.headers["Content-Type"] == headers["content-type"]
    for name in ("access-control-expose-headers", "x-ratelimit-limit"):
        assert reply.headers[name] == headers[name]
    assert reply.headers["X-RateLimit-Remaining"].isdigit()


@pytest.mark.asyncio
async def test_esummary_entries_have_exactly_the_recorded_keys() -> None:
    recorded = orjson.loads(load_sample("pubmed", "esummary_pmid.json").body)
    entry_keys = list(recorded["result"]["27933103"])
    async with client() as c:
        reply = await c.get("/esummary.fcgi", {"db": "pubmed", "id": "31234567,42",
                                               "retmode": "json"})
    body = reply.json()
    assert body["header"] == recorded["header"]
    assert body["result"]["uids"] == ["31234567", "42"]
    entry = body["result"]["31234567"]
    assert list(entry) == entry_keys
    assert entry["authors"][0] == {"name": "Smith J", "authtype": "Author", "clusterid": ""}
    assert entry["title"] == "Deep learning for cats: A survey."
    assert {"idtype": "doi", "idtypen": 3, "value": "10.1234/Cats.2020"} in entry["articleids"]
    assert body["result"]["42"] == {"uid": "42", "error": "cannot get document summary"}


def test_throttled_is_ncbis_json_429_with_the_callers_key() -> None:
    recorded = load_sample("pubmed", "error_429_rate_limit.quoted.json")
    keyed = make_request("/pubmed/esearch.fcgi?db=pubmed&api_key=secret")
    assert SERVICE.limit_for(keyed)[:2] == ("keyed", "any")
    response = SERVICE.throttled(1.0)
    assert isinstance(response.body, bytes)
    body = orjson.loads(response.body)
    assert response.status == recorded.status == 429
    assert set(orjson.loads(recorded.body)) <= set(body)
    assert body == {"error": "API rate limit exceeded", "api-key": "secret", "count": "11",
                    "limit": "10"}
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert "Retry-After" not in response.headers
    keyless = make_request("/pubmed/efetch.fcgi?id=1")
    assert SERVICE.limit_for(keyless) == ("keyless", "any", world_pubmed.LIMITS["keyless"]["any"])
    assert SERVICE.limits["keyless"]["any"].rate == 3 and SERVICE.limits["keyed"]["any"].rate == 10


def make_request(path_qs: str) -> web.Request:
    from aiohttp.test_utils import make_mocked_request

    return make_mocked_request("GET", path_qs)


# ----------------------------------------------------------------------------- term syntax


@pytest.mark.parametrize(("term", "expected"), [
    ("deep[ti] AND learning[ti] AND smith j[au]", ["31234567"]),
    ("deep[ti] AND smith[au]", ["31234567", "11111111"]),
    ('"deep learning for cats"[ti]', ["31234567"]),
    ('"learning deep"[ti]', []),
    ("cats[ti] OR wakefield[au]", ["31234567", "9500320", "21812345"]),
    # Left to right, no precedence: (wakefield OR cats) AND 2020.
    ("wakefield[au] OR cats[ti] AND 2020[dp]", ["31234567"]),
    ("deep[ti] NOT dogs[ti]", ["31234567"]),
    ("2014:2016[dp]", ["11111111"]),
    ("2020/01/01:2021/12/31[Date - Publication]", ["31234567"]),
    ('"lancet"[ta]', ["9500320"]),
    ("nature[journal] AND 2009[dp]", ["21812345"]),
    ("10.1234/CATS.2020[doi]", ["31234567"]),
    ('"10.1016/S0140-6736(97)11096-0"[aid]', ["9500320"]),
    ("10.1234/dogs[doi]", []),  # omit_doi: PubMed does not know it
    ("9500320[pmid]", ["9500320"]),
    ("murch s[au]", ["9500320"]),
    ("murch sh[au]", ["9500320"]),
    ("murch t[au]", []),
    ("smith john[au]", ["31234567"]),
    ("doe jm[1au]", []),
    ("roe[lastau]", ["31234567"]),
    ("feline genome consortium[au]", ["21812345"]),
    ('"retracted publication"[pt]', ["9500320"]),
    ("351[vi] AND 9103[ip] AND 637[pg]", ["9500320"]),
    ("1234-5678[is]", ["31234567"]),
    ("(cats OR dogs) AND smith", ["31234567", "11111111"]),
])
@pytest.mark.asyncio
async def test_term_syntax(term: str, expected: list[str]) -> None:
    async with client() as c:
        reply = await c.get("/esearch.fcgi", esearch(term))
    assert sorted(reply.json()["esearchresult"]["idlist"]) == sorted(expected), term


@pytest.mark.asyncio
async def test_field_and_date_range_parameters() -> None:
    async with client() as c:
        titled = await c.get("/esearch.fcgi", esearch("cats", field="title"))
        everywhere = await c.get("/esearch.fcgi", esearch("lancet"))
        titled_only = await c.get("/esearch.fcgi", esearch("lancet", field="ti"))
        dated = await c.get("/esearch.fcgi", esearch("deep[ti]", mindate="2016/01/01",
                                                     maxdate="2016/12/31", datetype="pdat"))
        half = await c.get("/esearch.fcgi", esearch("deep[ti]", mindate="2016"))
    assert titled.json()["esearchresult"]["querytranslation"] == "cats[Title]"
    assert everywhere.json()["esearchresult"]["idlist"] == ["9500320"]
    assert titled_only.json()["esearchresult"]["idlist"] == []
    assert dated.json()["esearchresult"]["idlist"] == ["11111111"]
    assert "ERROR" in half.json()["esearchresult"]


def test_translation_and_stopwords() -> None:
    parsed = parse_term("the cats[ti] OR (Smith J[Author] AND 2020[dp])")
    assert translation(parsed.root) == (
        "cats[Title] OR (Smith J[Author] AND 2020[Date - Publication])")
    assert parsed.ignored == ["the"]


@pytest.mark.asyncio
async def test_unknown_tags_search_everywhere_and_are_reported() -> None:
    async with client() as c:
        reply = await c.get("/esearch.fcgi", esearch("cats[NoSuchField]"))
        ignored = await c.get("/esearch.fcgi", esearch("the[ti] AND cats[ti]"))
    result = reply.json()["esearchresult"]
    assert result["idlist"] == ["31234567", "21812345"]
    assert result["errorlist"]["fieldsnotfound"] == ["NoSuchField"]
    assert ignored.json()["esearchresult"]["warninglist"]["phrasesignored"] == ["the"]


@pytest.mark.asyncio
async def test_errors_come_inside_200_bodies() -> None:
    async with client() as c:
        empty = await c.get("/esearch.fcgi", esearch(" "))
        bad_db = await c.get("/esearch.fcgi", {"db": "nonsense_db", "term": "x", "retmode": "json"})
        unbalanced = await c.get("/esearch.fcgi", esearch("(cats[ti] AND smith[au]"))
        deep = await c.get("/esearch.fcgi", esearch("cats", retstart="9999"))
        deep_xml = await c.get("/esearch.fcgi", {"term": "cats", "retstart": "9999"})
        no_ids = await c.get("/efetch.fcgi", {"db": "pubmed"})
    assert {r.status for r in (empty, bad_db, unbalanced, deep, no_ids)} == {200}
    assert empty.json()["esearchresult"] == {"ERROR": "Empty term and query_key - nothing todo"}
    assert bad_db.json()["esearchresult"]["ERROR"] == "Invalid db name specified: nonsense_db"
    assert "ERROR" in unbalanced.json()["esearchresult"]
    # NCBI's retstart message carries a raw newline: the body is not valid JSON.
    assert b"Exception:\n'retstart' cannot be larger than 9998" in deep.body
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(deep.body)
    assert deep_xml.xml().findtext("ERROR", "").startswith("Search Backend failed")
    assert no_ids.xml().findtext("ERROR") == "Empty id list - nothing todo"


@pytest.mark.asyncio
async def test_paging_sorting_history_and_post() -> None:
    async with client() as c:
        page = await c.get("/esearch.fcgi", esearch("deep[ti]", retmax="1", retstart="1"))
        relevance = await c.get("/esearch.fcgi", esearch("deep[ti] OR cats[ti]",
                                                         sort="relevance"))
        by_author = await c.get("/esearch.fcgi", esearch("deep[ti] OR lancet[ta]",
                                                          sort="author"))
        history = await c.get("/esearch.fcgi", esearch("deep[ti]", usehistory="y"))
        result = history.json()["esearchresult"]
        fetched = await c.get("/efetch.fcgi", {"db": "pubmed", "WebEnv": result["webenv"],
                                               "query_key": result["querykey"]})
        posted = await c.post("/efetch.fcgi", {"db": "pubmed", "id": "9500320"})
    assert page.json()["esearchresult"]["idlist"] == ["11111111"]
    assert page.json()["esearchresult"]["count"] == "2"
    assert relevance.json()["esearchresult"]["idlist"][0] == "31234567"  # both words
    assert len(relevance.json()["esearchresult"]["idlist"]) == 3
    # First authors: "Smith A." (initials), "Smith John", "Wakefield".
    assert by_author.json()["esearchresult"]["idlist"] == ["11111111", "31234567", "9500320"]
    assert result["querykey"] == "1" and result["webenv"].startswith("MCID_")
    assert [e.text for e in fetched.xml().iter("PMID")] == ["31234567", "11111111"]
    assert [e.text for e in posted.xml().iter("PMID")][0] == "9500320"


# ----------------------------------------------------------------------------- rendering


@pytest.mark.asyncio
async def test_efetch_renders_the_pubmed_view_of_each_work() -> None:
    async with client() as c:
        reply = await c.get("/efetch.fcgi", {"db": "pubmed", "id": "9500320,11111111,77,"
                                             f"{derived_pmid('chapter')}", "retmode": "json"})
    root = reply.xml()
    assert reply.headers["Content-Type"] == "text/xml; charset=UTF-8"  # no JSON efetch
    wakefield, dogs, chapter = list(root)
    assert wakefield.findtext("MedlineCitation/Article/ArticleTitle", "").endswith("children.")
    authors = wakefield.findall("MedlineCitation/Article/AuthorList/Author")
    assert [(a.findtext("LastName"), a.findtext("ForeName"), a.findtext("Initials"))
            for a in authors] == [("Wakefield", "A J", "AJ"), ("Murch", "S H", "SH")]
    assert wakefield.findtext("MedlineCitation/Article/Pagination/MedlinePgn") == "637-41"
    types = [t.text for t in wakefield.iter("PublicationType")]
    assert types == ["Journal Article", "Retracted Publication"]
    [notice] = wakefield.iter("CommentsCorrections")
    assert notice.get("RefType") == "RetractionIn"
    assert notice.findtext("RefSource") == "Lancet. 2010"
    ids = {e.get("IdType"): e.text for e in wakefield.iter("ArticleId")}
    assert ids == {"pubmed": "9500320", "doi": "10.1016/S0140-6736(97)11096-0"}
    # Rendering options: upper case, year + 1, initials, first author only (the list is
    # marked incomplete), no DOI; the PMID comes from the work's "pmid" key.
    article = dogs.find("MedlineCitation/Article")
    assert article is not None
    assert article.findtext("ArticleTitle") == "DEEP LEARNING FOR DOGS."
    assert article.findtext("Journal/JournalIssue/PubDate/Year") == "2016"
    author_list = article.find("AuthorList")
    assert author_list is not None and author_list.get("CompleteYN") == "N"
    assert [(a.findtext("LastName"), a.findtext("ForeName"), a.findtext("Initials"))
            for a in author_list] == [("Smith", "A", "A")]
    assert article.find("ELocationID") is None
    assert chapter.tag == "PubmedBookArticle"
    assert chapter.findtext("BookDocument/ArticleTitle") == "Statistics for clinicians."
    assert chapter.findtext("BookDocument/Book/BookTitle") == "Handbook of Medicine"


def test_medline_pages_are_abbreviated() -> None:
    assert medline_pages("637–641") == "637-41"
    assert medline_pages("100-120") == "100-20"
    assert medline_pages("1098-1102") == "1098-102"
    assert medline_pages("e124") == "e124"
    assert medline_pages("99-101") == "99-101"


@pytest.mark.asyncio
async def test_rate_headers_follow_the_key_and_count_down() -> None:
    async with client() as c:
        first = await c.get("/esearch.fcgi", esearch("cats"))
        second = await c.get("/esearch.fcgi", esearch("cats"))
        keyed = await c.get("/esummary.fcgi", {"id": "1", "retmode": "json",
                                               "api_key": "k"})
        missing = await c.get("/nothing.fcgi")
    assert (first.headers["X-RateLimit-Limit"], first.headers["X-RateLimit-Remaining"]) == (
        "3", "2")
    # One second per window: a slow machine may have opened a new one in between.
    assert second.headers["X-RateLimit-Remaining"] in ("1", "2")
    assert (keyed.headers["X-RateLimit-Limit"], keyed.headers["X-RateLimit-Remaining"]) == (
        "10", "9")
    assert missing.status == 404 and "X-RateLimit-Limit" in missing.headers


# ----------------------------------------------------------------------------- the engine's adapter


async def fetch_records(request: HttpRequest | None, base: str) -> list[WorkRecord]:
    """Send an adapter request (and its follow-up) as the engine does; parse the answer."""
    async with AiohttpTransport("citation-verifier/test") as transport:
        return await records_of(PUBMED, transport, base, request)


@pytest.mark.asyncio
async def test_the_adapter_finds_a_cited_work_by_search_doi_and_pmid() -> None:
    citation = Citation(
        authors=(Author(family="Smith", given="J."),), year=2020,
        title="Deep learning for cats: a survey")
    async with serve() as base:
        by_search = await fetch_records(PUBMED.search_request(citation, Identity()), base)
        by_doi = await fetch_records(PUBMED.lookup_request(Citation(
            identifiers=Identifiers(doi="https://doi.org/10.1234/CATS.2020")), Identity()), base)
        by_pmid = await fetch_records(PUBMED.lookup_request(Citation(
            identifiers=Identifiers(pmid="31234567")), Identity(api_key="k")), base)
        missing = await fetch_records(PUBMED.search_request(Citation(
            title="Quantum annealing for wombats"), Identity()), base)
    [record] = by_search
    assert record == by_doi[0] == by_pmid[0]
    assert record.source_id == "31234567"
    assert record.title == "Deep learning for cats: A survey"
    assert [(a.family, a.given) for a in record.authors] == [
        ("Smith", "John"), ("Doe", "Jane Mary"), ("Roe", "Rick")]
    assert (record.year, record.container, record.volume, record.issue, record.pages) == (
        2020, "Journal of Feline Studies", "12", "3", "100-120")
    assert record.identifiers.doi == "10.1234/cats.2020"
    assert record.identifiers.issn == ("1234-5678",)
    assert record.retracted is False
    assert missing == []


@pytest.mark.asyncio
async def test_the_adapter_reads_retraction_and_collective_authors() -> None:
    wakefield = Citation(
        authors=(Author(family="Wakefield", given="A. J."),), year=1998,
        title="Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive "
              "developmental disorder in children")
    consortium = Citation(authors=(Author(literal="Feline Genome Consortium"),),
                          title="Genome sequencing of cats")
    async with serve() as base:
        [retracted] = await fetch_records(PUBMED.search_request(wakefield, Identity()), base)
        [collective] = await fetch_records(PUBMED.search_request(consortium, Identity()), base)
        chapter = await fetch_records(PUBMED.lookup_request(Citation(
            identifiers=Identifiers(pmid=derived_pmid("chapter"))), Identity()), base)
    assert retracted.retracted is True and retracted.notice_for is None
    assert retracted.pages == "637-641"
    assert collective.authors == (Author(literal="Feline Genome Consortium"),)
    assert collective.identifiers.pmcid == "PMC123456"
    assert chapter[0].container == "Handbook of Medicine"
    assert chapter[0].editors == (Author(family="Ode", given="E"),)


@pytest.mark.asyncio
async def test_through_the_world_excess_gets_ncbis_429_per_pool() -> None:
    async with connect_world(CORPUS, services={SERVICE.name: SERVICE}) as served:
        world, c = served.world, served.at("pubmed")
        keyless = [await c.get("/esearch.fcgi", esearch("cats")) for _ in range(4)]
        keyed = await c.get("/efetch.fcgi", {"id": "9500320", "api_key": "k"})
    assert [r.status for r in keyless] == [200, 200, 200, 429]
    assert keyless[3].json() == {"error": "API rate limit exceeded", "api-key": "127.0.0.1",
                                 "count": "4", "limit": "3"}
    assert keyed.status == 200 and keyed.headers["X-RateLimit-Limit"] == "10"
    log = world.requests_for("pubmed")
    assert [(e.endpoint, e.pool, e.status) for e in log] == [
        ("esearch", "keyless", 200)] * 3 + [("esearch", "keyless", 429),
                                            ("efetch", "keyed", 200)]


@pytest.mark.asyncio
async def test_a_scaled_world_advertises_the_rate_it_enforces() -> None:
    async with connect_world(CORPUS, services={SERVICE.name: SERVICE}, time_scale=20) as served:
        c = served.at("pubmed")
        reply = await c.get("/esearch.fcgi", esearch("cats"))
    assert (reply.headers["X-RateLimit-Limit"], reply.headers["X-RateLimit-Remaining"]) == (
        "60", "59")


@pytest.mark.asyncio
async def test_every_demo_work_is_found_by_the_adapter_from_its_own_metadata() -> None:
    missed = await demo_works_missed(SERVICE, PubMedAdapter())
    assert missed == []
