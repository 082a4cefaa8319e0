"""The world's fidelity fixes: OpenAlex's search filters require every word (stop words
aside), OpenAlex shows ``ids.pmid``/``ids.pmcid`` for works PubMed holds, Google Books
lists each ISBN once, arXiv's ``journal_ref`` is the stored text (tested in
test_world_arxiv.py), and a Semantic Scholar key of the wrong shape gets the gateway's
403 (test_world_semanticscholar.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from world_helpers import EncodedClient, WorldClient, connect_world

from verifier.world import Corpus
from verifier.world.googlebooks import Volume

LINES = [
    {"id": "cats", "type": "article", "title": "Deep learning for cats",
     "authors": [{"family": "Smith", "given": "John"}], "year": 2020, "container": "Nature",
     "doi": "10.1234/cats", "pmcid": "PMC777", "pmid": "31415926",
     "sources": {"crossref": {}, "openalex": {}, "pubmed": {}}},
    {"id": "deep", "type": "article", "title": "Deep learning",
     "authors": [{"family": "Ng", "given": "Ann"}], "year": 2015, "container": "Nature",
     "doi": "10.1234/deep", "sources": {"crossref": {}, "openalex": {}}},
    {"id": "book", "type": "book", "title": "A book with two ISBNs",
     "authors": [{"family": "Roe", "given": "Rick"}], "year": 2016, "publisher": "MIT Press",
     "isbn": ["9780262035613", "0262035618"], "sources": {"googlebooks": {}}},
]
CORPUS = Corpus.from_lines([json.dumps(line) for line in LINES])


def world() -> AbstractAsyncContextManager[WorldClient]:
    return connect_world(CORPUS, client_type=EncodedClient, enforce_limits=False)


def _titles(body: dict[str, Any]) -> Iterator[str]:
    return (r["title"] for r in body["results"])


@pytest.mark.asyncio
async def test_openalex_title_search_requires_every_word_but_stop_words() -> None:
    async with world() as client:
        both = await client.get("openalex", "/works", {"filter": "title.search:deep learning"})
        all_words = await client.get("openalex", "/works",
                                     {"filter": "title.search:deep learning for cats"})
        one_missing = await client.get("openalex", "/works",
                                       {"filter": "title.search:deep learning for dogs"})
        stop_words = await client.get("openalex", "/works",
                                      {"filter": "title.search:the deep cats of"})
    assert sorted(_titles(both.json())) == ["Deep learning", "Deep learning for cats"]
    assert list(_titles(all_words.json())) == ["Deep learning for cats"]
    assert one_missing.json()["meta"]["count"] == 0  # an any-word search would find two
    assert list(_titles(stop_words.json())) == ["Deep learning for cats"]


@pytest.mark.asyncio
async def test_openalex_shows_pubmed_ids_as_recorded_for_works_pubmed_holds() -> None:
    async with world() as client:
        held = (await client.get("openalex", "/works/doi:10.1234/cats")).json()
        not_held = (await client.get("openalex", "/works/doi:10.1234/deep")).json()
    assert held["ids"]["pmid"] == "https://pubmed.ncbi.nlm.nih.gov/31415926"
    assert held["ids"]["pmcid"] == "https://www.ncbi.nlm.nih.gov/pmc/articles/777"
    assert "pubmed" in held["indexed_in"]
    assert "pmid" not in not_held["ids"] and "pubmed" not in not_held["indexed_in"]


def test_google_books_lists_each_isbn_once() -> None:
    record = next(r for r in CORPUS.source("googlebooks").records if r.work.id == "book")
    identifiers = Volume(record).identifiers
    pairs = [(i["type"], i["identifier"]) for i in identifiers]
    assert len(pairs) == len(set(pairs)) == 2
    assert {t for t, _ in pairs} == {"ISBN_13", "ISBN_10"}


NOTICE_LINE = {
    "id": "noticed", "type": "article", "title": "Sleep and memory in adolescents",
    "authors": [{"family": "Okafor", "given": "Chidi"}], "year": 2018,
    "container": "Journal of Sleep Research", "doi": "10.1111/jsr.12345", "pmid": "29000001",
    "notices": [{"type": "correction", "doi": "10.1111/jsr.12999", "year": 2019},
                {"type": "expression_of_concern", "year": 2020}],
    "sources": {"crossref": {}, "pubmed": {}}}


@pytest.mark.asyncio
async def test_corrections_and_expressions_of_concern_reach_the_adapters() -> None:
    from world_helpers import records_of

    from adapters.base import Identity
    from adapters.crossref import CrossrefAdapter
    from adapters.pubmed import PubMedAdapter
    from verifier.citations.models import Citation, Identifiers
    from verifier.http.transport import AiohttpTransport
    from verifier.world import serve_world

    corpus = Corpus.from_lines([json.dumps(NOTICE_LINE)])
    doi = Citation(identifiers=Identifiers(doi="10.1111/jsr.12345"))
    pmid = Citation(identifiers=Identifiers(pmid="29000001"))
    async with serve_world(corpus, enforce_limits=False) as world, \
            AiohttpTransport("citation-verifier/test") as transport:
        crossref = await records_of(CrossrefAdapter(), transport, world.base_urls["crossref"],
                                    CrossrefAdapter().lookup_request(doi, Identity()))
        pubmed = await records_of(PubMedAdapter(), transport, world.base_urls["pubmed"],
                                  PubMedAdapter().lookup_request(pmid, Identity()))
    for records in (crossref, pubmed):
        assert len(records) == 1
        assert set(records[0].notices) == {"correction", "expression_of_concern"}
        assert not records[0].retracted


def test_a_notice_of_an_unknown_kind_is_a_corpus_error() -> None:
    from verifier.world import CorpusError

    bad = {**NOTICE_LINE, "notices": [{"type": "praise"}]}
    with pytest.raises(CorpusError, match="notice"):
        Corpus.from_lines([json.dumps(bad)])


DISAGREEING = {
    "id": "quirky", "type": "article", "title": "Ties that bind in small firms",
    "authors": [{"family": "Okafor", "given": "Chidi"}], "year": 2018,
    "container": "American Journal of Sociology", "volume": "78", "issue": "6",
    "pages": "1360-1380", "doi": "10.1086/999999",
    "sources": {"crossref": {"pages_style": "abbreviated", "issue_style": "prefixed"},
                "openalex": {"omit": ["container", "issue"], "pages_style": "first"},
                "semanticscholar": {"issue_style": "in_volume"}}}


@pytest.mark.asyncio
async def test_sources_can_disagree_as_real_ones_do() -> None:
    from world_helpers import records_of

    from adapters.base import Identity
    from adapters.crossref import CrossrefAdapter
    from adapters.openalex import OpenAlexAdapter
    from verifier.citations.models import Citation, Identifiers
    from verifier.http.transport import AiohttpTransport
    from verifier.world import serve_world

    corpus = Corpus.from_lines([json.dumps(DISAGREEING)])
    doi = Citation(identifiers=Identifiers(doi="10.1086/999999"))
    async with serve_world(corpus, enforce_limits=False) as world, \
            AiohttpTransport("citation-verifier/test") as transport:
        crossref = (await records_of(CrossrefAdapter(), transport, world.base_urls["crossref"],
                                     CrossrefAdapter().lookup_request(doi, Identity())))[0]
        openalex = (await records_of(OpenAlexAdapter(), transport, world.base_urls["openalex"],
                                     OpenAlexAdapter().lookup_request(doi, Identity())))[0]
    assert (crossref.container, crossref.pages, crossref.issue) == (
        "American Journal of Sociology", "1360-80", "no. 6")
    assert (openalex.container, openalex.issue, openalex.pages) == ("", "", "1360")
    assert openalex.volume == crossref.volume == "78"
    semantic = next(r for r in corpus.source("semanticscholar").records)
    assert (semantic.work.volume, semantic.work.issue) == ("78(6)", None)


def test_an_unknown_field_to_omit_is_a_corpus_error() -> None:
    from verifier.world import CorpusError

    bad = {**DISAGREEING, "sources": {"openalex": {"omit": ["title"]}}}
    with pytest.raises(CorpusError, match="omit"):
        Corpus.from_lines([json.dumps(bad)])
