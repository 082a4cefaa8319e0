"""The world's arXiv stand-in over real HTTP on loopback.

Atom element names, namespaces and order are compared with the recorded 2026 feeds
(``shared/data/api_samples``; those tests skip when the folder is absent), and the
engine's own adapter is run against the stand-in end to end.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from functools import partial
from typing import Any

import pytest
from aiohttp.test_utils import make_mocked_request
from recorded import load_sample
from world_helpers import Client, Reply, StandIn, records_of

from adapters.arxiv import ArxivAdapter
from adapters.base import Identity
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.errors import RateLimited, UnexpectedStatus
from verifier.http.transport import AiohttpTransport, HttpRequest, HttpResponse
from verifier.world import Corpus, arxiv
from verifier.world.arxiv import build_preprint, parse_id, parse_query

ATOM = "{http://www.w3.org/2005/Atom}"
OS = "{http://a9.com/-/spec/opensearch/1.1/}"
AX = "{http://arxiv.org/schemas/atom}"
LINES: list[dict[str, Any]] = [
    {"id": "vaswani", "type": "proceedings", "title": "Attention is all you need",
     "authors": [{"family": "Vaswani", "given": "Ashish"}, {"family": "Shazeer", "given": "Noam"},
                 {"family": "Del Maestro", "given": "Adrian"}],
     "year": 2017, "container": "Advances in Neural Information Processing Systems",
     "volume": 30, "pages": "5998–6008",
     "sources": {"arxiv": {"id": "1706.03762v7", "categories": ["cs.CL", "cs.LG"],
                           "comment": "15 pages, 5 figures",
                           "abstract": "The dominant sequence transduction models."},
                 "openalex": {}}},
    {"id": "kingma", "type": "preprint", "title": "Adam",
     "subtitle": "A method for stochastic optimization",
     "authors": [{"family": "Kingma", "given": "Diederik P."}, {"family": "Ba", "given": "Jimmy"}],
     "year": 2014, "container": "arXiv", "doi": "10.48550/arXiv.1412.6980",
     "sources": {"arxiv": {"versions": 9, "categories": ["cs.LG"]}}},
    {"id": "published", "type": "article", "title": "Attention in the Wild",
     "subtitle": "A field study",
     "authors": [{"family": "Smith", "given": "John Paul"}, {"family": "Doe", "given": "Jane"}],
     "year": 2019, "container": "Journal of Attention", "doi": "10.1234/wild",
     "sources": {"arxiv": {"title_case": "lower", "initials": True, "max_authors": 1,
                           "year_offset": -1, "drop_subtitle": True}}},
    {"id": "strings", "type": "preprint", "title": "Dualities of strings",
     "authors": [{"family": "Witten", "given": "Edward"}], "year": 1999,
     "sources": {"arxiv": {"categories": ["hep-th"]}}},
    {"id": "withdrawn", "type": "preprint", "title": "A flawed proof of everything",
     "authors": [{"family": "Hopeful", "given": "Harry"}], "year": 2021,
     "sources": {"arxiv": {"id": "2101.00001", "versions": 2, "withdrawn": True,
                           "categories": ["math.GM"]}}},
    {"id": "long0", "type": "preprint",
     "title": "A rather long title about the statistical mechanics of deep neural networks",
     "authors": [{"family": "Long", "given": "Lee"}], "year": 2020,
     "sources": {"arxiv": {}}},
    {"id": "elsewhere", "type": "article", "title": "Attention is all you need too",
     "authors": [{"family": "Vaswani", "given": "Ashish"}], "year": 2018,
     "sources": {"openalex": {}}},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])


class Feed(Reply):
    @property
    def root(self) -> ET.Element:
        return self.xml()

    @property
    def entries(self) -> list[ET.Element]:
        return self.root.findall(f"{ATOM}entry")

    @property
    def total(self) -> int:
        return int(self.root.findtext(f"{OS}totalResults") or "-1")

    @property
    def ids(self) -> list[str]:
        return [(e.findtext(f"{ATOM}id") or "").rsplit("/abs/", 1)[-1] for e in self.entries]

    @property
    def titles(self) -> list[str]:
        return [" ".join((e.findtext(f"{ATOM}title") or "").split()) for e in self.entries]


class ArxivClient(Client):
    async def query(self, **params: str) -> Feed:
        reply = await self.get("/query", params)
        return Feed(reply.status, reply.headers, reply.body)


STAND_IN = StandIn(arxiv.SERVICE, CORPUS, ArxivClient)
serve, client = STAND_IN.serve, STAND_IN.client


def recorded(name: str) -> ET.Element:
    return ET.fromstring(load_sample("arxiv", name).body)


def tags(element: ET.Element, skip: str = "") -> list[str]:
    return [child.tag for child in element if child.tag != skip]


def structure(element: ET.Element) -> list[Any]:
    """Tags and attribute names, recursively (no text)."""
    return [(child.tag, sorted(child.attrib), structure(child)) for child in element]


# ----------------------------------------------------------------------------- shapes


@pytest.mark.asyncio
async def test_feed_and_entries_have_the_recorded_atom_structure() -> None:
    search = recorded("query_search.xml")
    lookup = recorded("id_list_lookup.xml")
    sample_entries = [*search.findall(f"{ATOM}entry"), *lookup.findall(f"{ATOM}entry"),
                      *recorded("id_list_lookup_old_style.xml").findall(f"{ATOM}entry")]
    entry_tags = {t for e in sample_entries for t in tags(e)}
    async with client() as c:
        feed = await c.query(search_query="ti:attention", max_results="10")
        by_id = await c.query(id_list="1706.03762")
    assert feed.status == 200
    assert feed.headers["Content-Type"] == "application/atom+xml; charset=utf-8"
    assert feed.body.startswith(b"<?xml version='1.0' encoding='UTF-8'?>\n<feed ")
    for got, sample in ((feed.root, search), (by_id.root, lookup)):
        assert got.tag == sample.tag == f"{ATOM}feed"
        assert tags(got, f"{ATOM}entry") == tags(sample, f"{ATOM}entry")
        assert got.findtext(f"{ATOM}id", "").startswith("https://arxiv.org/api/")
    assert feed.titles == ["Attention is all you need", "attention in the wild"]
    for entry in [*feed.entries, *by_id.entries]:
        assert set(tags(entry)) <= entry_tags
        # Element order as recorded: id, title, updated, links, summary, categories ...
        assert tags(entry)[:4] == [f"{ATOM}id", f"{ATOM}title", f"{ATOM}updated",
                                   f"{ATOM}link"]
        links = {(link.get("rel"), link.get("title")) for link in entry.findall(f"{ATOM}link")}
        assert {("alternate", None), ("related", "pdf")} <= links
    doi_entry = feed.entries[1]
    sample_doi = search.findall(f"{ATOM}entry")[0]
    assert structure(doi_entry)[-2:] == structure(sample_doi)[-2:]  # arxiv:doi + doi link


@pytest.mark.asyncio
async def test_unknown_and_partial_id_lists() -> None:
    not_found = recorded("id_list_not_found.xml")
    async with client() as c:
        missing = await c.query(id_list="0000.0000")
        partial = await c.query(id_list="0808.05394,1706.03762", max_results="100")
    assert missing.status == 200 and missing.total == 0 and missing.entries == []
    assert tags(missing.root) == tags(not_found)
    title = missing.root.findtext(f"{ATOM}title")
    assert title == "arXiv Query: search_query=&id_list=0000.0000&start=0&max_results=10"
    assert partial.total == 1 and partial.ids == ["1706.03762v7"]
    link = partial.root.find(f"{ATOM}link")
    assert link is not None and link.get("href") == (
        "https://arxiv.org/api/query?search_query=&start=0&max_results=100"
        "&id_list=0808.05394,1706.03762")


@pytest.mark.asyncio
async def test_malformed_id_is_a_400_error_feed() -> None:
    sample = recorded("error_bad_id.xml")
    async with client() as c:
        bad = await c.query(id_list="abc", search_query="", sortBy="relevance")
        short = await c.query(id_list="1706.03762,2409.3108")
    assert bad.status == 400
    assert structure(bad.root) == structure(sample)
    [entry] = bad.entries
    sample_entry = sample.find(f"{ATOM}entry")
    assert sample_entry is not None
    for name in ("id", "title", "summary"):
        assert entry.findtext(f"{ATOM}{name}") == sample_entry.findtext(f"{ATOM}{name}")
    assert short.status == 400
    assert short.entries[0].findtext(f"{ATOM}summary") == "incorrect id format for 2409.3108"


def test_id_format_rules() -> None:
    assert parse_id("1707.08567") == ("1707.08567", None)
    assert parse_id("1707.08567v12") == ("1707.08567", 12)
    assert parse_id("0808.05394") == ("0808.05394", None)  # well-formed, if unknown
    assert parse_id("0000.0000") == ("0000.0000", None)
    assert parse_id("2409.3108") is None  # four digits only before 2015
    assert parse_id("hep-th/9901001v2") == ("hep-th/9901001", 2)
    assert parse_id("math.GT/0309136") == ("math/0309136", None)
    assert parse_id("abc") is None and parse_id("") is None


# ----------------------------------------------------------------------------- id_list


@pytest.mark.asyncio
async def test_versions_order_and_intersection_with_a_query() -> None:
    async with client() as c:
        latest = await c.query(id_list="1706.03762")
        older = await c.query(id_list="1706.03762v2")
        beyond = await c.query(id_list="1706.03762v8")
        ordered = await c.query(id_list="1412.6980,1706.03762,1412.6980v1")
        both = await c.query(id_list="1412.6980,1706.03762", search_query="au:vaswani")
    assert latest.ids == ["1706.03762v7"] and older.ids == ["1706.03762v2"]
    assert beyond.total == 0
    assert ordered.ids == ["1412.6980v9", "1706.03762v7", "1412.6980v1"]
    assert both.ids == ["1706.03762v7"]
    first, last = (e.findtext(f"{ATOM}updated") for e in ordered.entries[::2])
    published = ordered.entries[0].findtext(f"{ATOM}published")
    assert first is not None and published is not None
    assert last == published and first > published


# ----------------------------------------------------------------------------- search_query


@pytest.mark.asyncio
async def test_query_syntax() -> None:
    async with client() as c:
        async def titles(query: str) -> list[str]:
            feed = await c.query(search_query=query)
            assert feed.status == 200
            return feed.titles

        assert await titles('ti:"attention is all you need"') == ["Attention is all you need"]
        assert await titles('ti:"all attention"') == []
        assert await titles("au:del_maestro") == ["Attention is all you need"]
        assert await titles("attention wild") == ["attention in the wild"]  # adjacency: AND
        assert await titles("ti:adam OR ti:dualities") == ["Adam: A method for stochastic "
                                                          "optimization", "Dualities of strings"]
        assert await titles("ti:attention ANDNOT au:vaswani") == ["attention in the wild"]
        assert await titles("(ti:adam OR ti:wild) AND au:smith") == ["attention in the wild"]
        assert await titles("cat:hep-th") == ["Dualities of strings"]
        assert await titles('jr:"neural information"') == ["Attention is all you need"]
        assert await titles("abs:transduction") == ["Attention is all you need"]
        assert await titles("co:figures AND ti:attention") == ["Attention is all you need"]
        assert await titles("all:kingma") == ["Adam: A method for stochastic optimization"]
        assert await titles("id:1412.6980") == ["Adam: A method for stochastic optimization"]
        assert await titles("zebra") == []
        echo = (await c.query(search_query="testing")).root.findtext(f"{ATOM}title")
    assert echo == "arXiv Query: search_query=all:testing&id_list=&start=0&max_results=10"
    tree = parse_query('ti:"a b" (au:x OR foo) ANDNOT cat:cs.LG')
    assert str(tree) == 'ti:"a b" AND (au:x OR all:foo) ANDNOT cat:cs.LG'
    assert parse_query("") is None and str(parse_query("AND ti:x )")) == "ti:x"


@pytest.mark.asyncio
async def test_paging_sorting_and_parameter_errors() -> None:
    async with client() as c:
        everything = await c.query(search_query="all:a OR all:of OR all:attention")
        second = await c.query(search_query="ti:attention", start="1", max_results="1")
        huge = await c.query(search_query="ti:attention", max_results="5000")
        oldest = await c.query(search_query="ti:attention OR ti:adam OR ti:dualities",
                               sortBy="submittedDate", sortOrder="ascending")
        bad_start = await c.query(search_query="ti:attention", start="x")
        negative = await c.query(search_query="ti:attention", max_results="-1")
        bad_sort = await c.query(search_query="ti:attention", sortBy="citations")
    assert everything.total == 6  # every arXiv work; "elsewhere" is not in arXiv
    assert second.total == 2 and len(second.entries) == 1
    assert second.root.findtext(f"{OS}startIndex") == "1"
    assert huge.root.findtext(f"{OS}itemsPerPage") == "2000"
    assert oldest.titles == ["Dualities of strings", "Adam: A method for stochastic optimization",
                             "Attention is all you need", "attention in the wild"]
    for feed, message in ((bad_start, "start must be an integer"),
                          (negative, "max_results must be non-negative"),
                          (bad_sort, "sortBy must be in relevance, lastUpdatedDate, "
                                     "submittedDate")):
        assert feed.status == 400
        assert feed.entries[0].findtext(f"{ATOM}summary") == message


# ----------------------------------------------------------------------------- rendering


@pytest.mark.asyncio
async def test_entries_render_the_corpus_work() -> None:
    async with client() as c:
        vaswani = (await c.query(id_list="1706.03762")).entries[0]
        wild = (await c.query(search_query="ti:wild")).entries[0]
        adam = (await c.query(id_list="1412.6980")).entries[0]
        strings = (await c.query(search_query="ti:dualities")).entries[0]
    assert vaswani.findtext(f"{AX}journal_ref") == (
        "Advances in Neural Information Processing Systems 30, 5998-6008")  # as stored
    assert vaswani.findtext(f"{AX}comment") == "15 pages, 5 figures"
    primary = vaswani.find(f"{AX}primary_category")
    assert primary is not None and primary.get("term") == "cs.CL"
    assert [c.get("term") for c in vaswani.findall(f"{ATOM}category")] == ["cs.CL", "cs.LG"]
    assert vaswani.findtext(f"{ATOM}published", "").startswith("2017-06-")
    assert [a.findtext(f"{ATOM}name") for a in vaswani.findall(f"{ATOM}author")] == [
        "Ashish Vaswani", "Noam Shazeer", "Adrian Del Maestro"]
    assert vaswani.find(f"{AX}doi") is None
    # Rendering options: lower case, initials, one author, a year earlier, no subtitle.
    assert wild.findtext(f"{ATOM}title") == "attention in the wild"
    assert [a.findtext(f"{ATOM}name") for a in wild.findall(f"{ATOM}author")] == ["J. P. Smith"]
    assert wild.findtext(f"{ATOM}published", "").startswith("2018-")
    assert wild.findtext(f"{AX}doi") == "10.1234/wild"
    # arXiv's own DataCite DOI names the id but is never the publisher DOI.
    assert adam.findtext(f"{ATOM}id") == "http://arxiv.org/abs/1412.6980v9"
    assert adam.find(f"{AX}doi") is None and adam.find(f"{AX}journal_ref") is None
    assert adam.findtext(f"{ATOM}published", "").startswith("2014-12-")
    strings_id = strings.findtext(f"{ATOM}id", "")
    assert strings_id.startswith("http://arxiv.org/abs/hep-th/99")  # old style before 2007


def test_long_titles_are_sometimes_wrapped_like_the_real_feed() -> None:
    records = {r.work.id: r for r in CORPUS.source("arxiv").records}
    wrapped = build_preprint(records["long0"])
    assert "\n  " in wrapped.title
    assert " ".join(wrapped.title.split()) == records["long0"].full_title
    assert build_preprint(records["vaswani"]).title == "Attention is all you need"


# ----------------------------------------------------------------------------- limits


def test_one_pool_one_request_per_three_seconds_and_plain_text_429() -> None:
    spec = arxiv.SERVICE
    request = make_mocked_request("GET", "/query?id_list=1706.03762",
                                  headers={"User-Agent": "x/1 (mailto:a@b.org)"})
    pool, kind, limit = spec.limit_for(request)
    assert (pool, kind) == ("public", "all")
    assert (limit.rate, limit.period_s, limit.concurrency) == (1.0, 3.0, 1)
    answer = spec.throttled(3.0)
    assert answer.status == 429 and answer.body == b"Rate exceeded."
    assert answer.headers["Content-Type"] == "text/plain"
    response = HttpResponse(429, b"Rate exceeded.", {"content-type": "text/plain"})
    with pytest.raises(RateLimited):
        ArxivAdapter().parse(HttpRequest(path="/query"), response)


# ----------------------------------------------------------------------------- end to end


@pytest.mark.asyncio
async def test_the_engine_adapter_finds_preprints_through_the_stand_in() -> None:
    adapter = ArxivAdapter()
    identity = Identity(mailto="a@b.org")
    by_id = Citation(identifiers=Identifiers(arxiv="arXiv:1706.03762v5"))
    by_doi = Citation(identifiers=Identifiers(doi="10.48550/arXiv.1412.6980"))
    by_title = Citation(title="Attention is all you need",
                        authors=(Author(family="Vaswani", given="A."),), year=2017)
    with_subtitle = Citation(title="Adam: A method for stochastic optimization",
                             authors=(Author(family="Kingma", given="D. P."),))
    withdrawn = Citation(identifiers=Identifiers(arxiv="2101.00001"))
    unknown = Citation(identifiers=Identifiers(arxiv="2101.99999"))
    async with serve() as base, AiohttpTransport("world-tests/1.0 (a@b.org)") as transport:
        ask = partial(records_of, adapter, transport, base)
        looked_up = await ask(adapter.lookup_request(by_id, identity))
        doi = await ask(adapter.lookup_request(by_doi, identity))
        searched = await ask(adapter.search_request(by_title, identity))
        adam = await ask(adapter.search_request(with_subtitle, identity))
        notice = await ask(adapter.lookup_request(withdrawn, identity))
        missing = await ask(adapter.lookup_request(unknown, identity))
        bad = HttpRequest(path="/query", params=(("id_list", "abc"),))
        bad_response = await transport.send(base, bad)
    [record] = looked_up
    assert record.source == "arxiv" and record.type is WorkType.PREPRINT
    assert record.source_id == "1706.03762v5" and record.identifiers.arxiv == "1706.03762"
    assert record.title == "Attention is all you need" and record.year == 2017
    assert [a.family for a in record.authors] == ["Vaswani", "Shazeer", "Del Maestro"]
    assert record.container.startswith("Advances in Neural Information Processing Systems")
    assert record.url == "https://arxiv.org/abs/1706.03762v5"
    assert [r.identifiers.arxiv for r in doi] == ["1412.6980"] and doi[0].identifiers.doi is None
    assert [r.source_id for r in searched] == ["1706.03762v7"]
    assert adam[0].title == "Adam: A method for stochastic optimization"
    assert notice[0].notices == ("withdrawn",) and notice[0].source_id == "2101.00001v2"
    assert missing == []
    assert bad_response.status == 400
    with pytest.raises(UnexpectedStatus, match="incorrect id format for abc"):
        adapter.parse(bad, bad_response)
