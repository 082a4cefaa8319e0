"""DoajAdapter: the query strings it puts in the path, and parsing of every recorded DOAJ
response.

The recordings are from the v2 API (2020); the v4 envelope is the same. Error bodies
are built by hand from apis.md section 7 (``portality/api/common.py``): none was recorded.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recorded import SAMPLES, load_sample

from adapters.base import Identity
from adapters.doaj import DoajAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = DoajAdapter()
BASE = "https://doaj.org/api"
PREFIX = "/search/articles/"
RESERVED = set('+-=&|><!(){}[]^"~*?:\\/')

SEARCH = HttpRequest(path=PREFIX + "bibjson.title%3A%22x%22", request_class="list")
LOOKUP = HttpRequest(path=PREFIX + "doi%3A%2210.1%5C%2Fx%22", request_class="single")


def json_response(body: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(status, orjson.dumps(body), {"content-type": "application/json"})


def envelope(*articles: dict[str, Any]) -> dict[str, Any]:
    return {
        "total": len(articles),
        "page": 1,
        "pageSize": 5,
        "timestamp": "2026-01-01T00:00:00Z",
        "query": "x",
        "results": list(articles),
    }


def article(**bibjson: Any) -> dict[str, Any]:
    return {"id": "abc123", "bibjson": {"title": "A hand-built article", **bibjson}}


def parse_one(body: Any, request: HttpRequest = SEARCH) -> Any:
    records = ADAPTER.parse(request, json_response(body))
    assert len(records) == 1
    return records[0]


def search_query(citation: Citation) -> str:
    """The query string of the adapter's search, decoded from the path."""
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    assert request.path.startswith(PREFIX)
    return unquote(request.path[len(PREFIX) :])


def is_fully_encoded(segment: str) -> bool:
    """Only unreserved characters and %XX escapes: nothing a URL could read as syntax."""
    return re.fullmatch(r"(?:[A-Za-z0-9_.~-]|%[0-9A-F]{2})*", segment) is not None


def phrase_is_safe(inner: str) -> bool:
    """Every reserved character inside a phrase is escaped, and no backslash is left over."""
    chars = iter(inner)
    for char in chars:
        if char == "\\":
            if next(chars, "") not in RESERVED:
                return False
        elif char in RESERVED:
            return False
    return True


# --- requests -------------------------------------------------------------------------


def test_search_request_puts_a_quoted_title_phrase_in_the_path() -> None:
    citation = Citation(
        title="Brain insulin sensitivity is linked to adiposity and body fat distribution",
        authors=(Author(family="Kullmann", given="Stephanie"),),
        year=2020,
    )
    request = ADAPTER.search_request(citation, Identity(mailto="you@example.org", api_key="k"))
    assert request is not None
    assert request.path == (
        "/search/articles/bibjson.title%3A%22Brain%20insulin%20sensitivity%20is%20linked%20to"
        "%20adiposity%20and%20body%20fat%20distribution%22"
    )
    assert request.params == (("pageSize", "5"), ("page", "1"))
    assert request.request_class == "list"
    # No identification: DOAJ's read API takes none.
    assert (request.headers, request.identity_params) == ((), ())
    assert request.url(BASE) == f"{BASE}{request.path}?pageSize=5&page=1"


def test_short_titles_also_name_the_first_author() -> None:
    citation = Citation(
        title="Editorial",
        authors=(Author(literal="WHO"), Author(family="Van der Berg", given="J.")),
    )
    assert search_query(citation) == (
        'bibjson.title:"Editorial" AND bibjson.author.name:"Van der Berg"'
    )
    # Without a family name there is nothing to add.
    assert search_query(Citation(title="Editorial")) == 'bibjson.title:"Editorial"'


def test_long_titles_do_not_filter_on_the_author() -> None:
    citation = Citation(title="Fire behaviour in boreal forests", authors=(Author(family="X"),))
    assert search_query(citation) == 'bibjson.title:"Fire behaviour in boreal forests"'


def test_reserved_characters_are_escaped_and_refused_ones_dropped() -> None:
    citation = Citation(
        title='Is "fake news" real? (Mis)information AND/OR trust: a [meta]-review ~ 2^3 *',
        authors=(Author(family="O'Brien"),),
    )
    query = search_query(citation)
    assert query == (
        r'bibjson.title:"Is fake news real \(Mis\)information AND OR trust\: a '
        r'\[meta\]\-review 2\^3"'
    )
    # Wildcard, fuzzy and regex syntax is refused by DOAJ with a 400: none is sent.
    unescaped = re.sub(r"\\.", "", query)
    assert not set("*?~/") & set(unescaped)


def test_colons_in_titles_are_escaped_so_doaj_cannot_read_field_names_in_them() -> None:
    # DOAJ renames "title:" and "doi:" before unescaped colons, and escapes colons only
    # where no " AND " is near: an escaped colon is left alone by both rewrites.
    query = search_query(Citation(title="Title: AND doi: two OR three: x"))
    assert query == r'bibjson.title:"Title\: AND doi\: two OR three\: x"'
    assert query.count(":") - query.count(r"\:") == 1


def test_quote_and_backslash_cannot_end_the_phrase_early() -> None:
    query = search_query(Citation(title='Windows paths C:\\temp\\ and “curly” „quotes"'))
    assert query == r'bibjson.title:"Windows paths C\: temp and curly quotes"'


def test_the_query_is_percent_encoded_as_one_path_segment() -> None:
    request = ADAPTER.search_request(Citation(title="100% of #tags / a?b & c+d"), Identity())
    assert request is not None
    segment = request.path[len(PREFIX) :]
    assert is_fully_encoded(segment)
    assert "%25" in segment and "%23" in segment and "%26" in segment and "%2B" in segment
    parts = urlsplit(request.url(BASE))
    assert parts.path == "/api" + request.path
    assert (parts.query, parts.fragment) == ("pageSize=5&page=1", "")
    assert unquote(segment) == r'bibjson.title:"100% of #tags a b \& c\+d"'


@settings(max_examples=300, deadline=None)
@given(title=st.text(min_size=1, max_size=60), family=st.text(max_size=15))
def test_any_title_gives_one_safe_encoded_phrase(title: str, family: str) -> None:
    citation = Citation(title=title + " x", authors=(Author(family=family),))
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    segment = request.path[len(PREFIX) :]
    assert is_fully_encoded(segment)
    query = unquote(segment)
    clauses = query.split(" AND bibjson.author.name:")
    assert clauses[0].startswith('bibjson.title:"')
    for clause in (clauses[0][len("bibjson.title:") :], *clauses[1:]):
        assert clause.startswith('"') and clause.endswith('"') and len(clause) > 2
        assert phrase_is_safe(clause[1:-1])


def test_no_search_without_a_title() -> None:
    assert ADAPTER.search_request(Citation(authors=(Author(family="Heni"),)), Identity()) is None
    assert ADAPTER.search_request(Citation(title=' "?*~/\\ '), Identity()) is None


def test_lookup_request_by_doi() -> None:
    citation = Citation(identifiers=Identifiers(doi="https://doi.org/10.3389/NEURO.11.009.2007"))
    request = ADAPTER.lookup_request(citation, Identity())
    assert request is not None
    assert request.request_class == "single"
    assert request.params == (("pageSize", "5"), ("page", "1"))
    assert request.path == PREFIX + quote(r'doi:"10.3389\/neuro.11.009.2007"', safe="")
    assert request.path == "/search/articles/doi%3A%2210.3389%5C%2Fneuro.11.009.2007%22"
    assert (request.headers, request.identity_params) == ((), ())


def test_lookup_request_escapes_a_sici_doi() -> None:
    sici = "10.1002/(SICI)1097-4636(199706)35:4<441::AID>3.0.CO;2-N"
    request = ADAPTER.lookup_request(Citation(identifiers=Identifiers(doi=sici)), Identity())
    assert request is not None
    assert is_fully_encoded(request.path[len(PREFIX) :])
    assert unquote(request.path[len(PREFIX) :]) == (
        r'doi:"10.1002\/\(sici\)1097\-4636\(199706\)35\:4\<441\:\:aid\>3.0.co;2\-n"'
    )


def test_no_lookup_without_a_doi() -> None:
    cited = Citation(title="A title", identifiers=Identifiers(pmid="123", issn=("2041-1723",)))
    assert ADAPTER.lookup_request(cited, Identity()) is None


# --- recorded responses ---------------------------------------------------------------


def test_search_sample() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("doaj", "search_articles.json"))
    assert [r.source_id for r in records] == [
        "00000b689df5492bb15d3ec8927a4f6d",
        "00000d914fd04a18adf84e756444ec98",
    ]
    brain, letters = records
    assert brain.source == "doaj"
    assert brain.title == (
        "Brain insulin sensitivity is linked to adiposity and body fat distribution"
    )
    assert len(brain.authors) == 9
    assert brain.authors[0] == Author(family="Kullmann", given="Stephanie")
    assert brain.authors[5] == Author(family="Häring", given="Hans-Ulrich")
    assert brain.year == 2020
    assert (brain.container, brain.volume, brain.issue, brain.pages) == (
        "Nature Communications",
        "11",
        "1",
        "1-6",
    )
    assert brain.publisher == "Nature Publishing Group"
    assert brain.type is WorkType.ARTICLE
    # The eissn in the identifier list and journal.issns is the same ISSN: kept once.
    assert brain.identifiers == Identifiers(doi="10.1038/s41467-020-15686-y", issn=("2041-1723",))
    assert brain.url == "http://link.springer.com/article/10.1038/s41467-020-15686-y"
    assert (brain.open_access, brain.retracted) == (True, None)

    assert letters.title.startswith("Tomás Eloy Martínez e as (des)memórias de Juan Domingo")
    # "Family, Given" names as DOAJ stores them for this journal.
    assert letters.authors == (
        Author(family="Mitidieri", given="André Luis"),
        Author(family="Guimarães", given="Letícia Batista"),
        Author(family="Mazzutti", given="Luciana Helena Cajas"),
    )
    assert letters.year == 2013
    assert (letters.container, letters.volume, letters.issue, letters.pages) == (
        "Letras de Hoje",
        "48",
        "4",
        "431-440",
    )
    # No DOI; the pissn first, then the journal's other ISSN.
    assert letters.identifiers == Identifiers(issn=("0101-3335", "1984-7726"))
    assert letters.url == (
        "http://revistaseletronicas.pucrs.br/ojs/index.php/fale/article/view/15435/10129"
    )


def test_sorted_search_sample() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("doaj", "search_articles_sorted.json"))
    assert [r.identifiers.doi for r in records] == [
        "10.1371/journal.pone.0227130",
        "10.1186/s13021-020-00143-6",
        "10.3390/fire3030035",
    ]
    plos, carbon, fire = records
    assert plos.title == (
        "Community- and trophic-level responses of soil nematodes to removal of a non-native "
        "tree at different stages of invasion."
    )
    assert plos.authors[1] == Author(family="Dickie", given="Ian A")
    assert plos.pages == "e0227130"  # start_page only
    assert (plos.container, plos.volume, plos.issue, plos.year) == ("PLoS ONE", "15", "1", 2020)
    assert plos.identifiers.issn == ("1932-6203",)
    assert plos.url == "https://doi.org/10.1371/journal.pone.0227130"
    assert carbon.authors[2] == Author(family="Stovall", given="Atticus E. L.")
    assert (carbon.container, carbon.pages) == ("Carbon Balance and Management", "1-20")
    assert carbon.publisher == "BMC"
    # "Jennifer  L. Beverly" is recorded with two spaces.
    assert fire.authors[0] == Author(family="Beverly", given="Jennifer L.")
    assert (fire.container, fire.volume, fire.issue, fire.pages) == ("Fire", "3", "35", "35")
    assert fire.url == "https://www.mdpi.com/2571-6255/3/3/35"
    assert {r.type for r in records} == {WorkType.ARTICLE}


def test_article_by_id_sample_without_envelope() -> None:
    request = HttpRequest(path="/articles/0005e11ec616453f854070069385e057", request_class="single")
    records = ADAPTER.parse(request, load_sample("doaj", "article_by_id.json"))
    assert len(records) == 1
    record = records[0]
    assert record.source_id == "0005e11ec616453f854070069385e057"
    assert record.title == "Where in the brain are the genes expressed"
    assert record.authors == (
        Author(family="Leergaard", given="Trygve B"),
        Author(family="Zaslavsky", given="Ilya"),
    )
    assert record.year == 2008
    assert (record.container, record.volume, record.issue, record.pages) == (
        "Frontiers in Neuroinformatics",
        "2",
        "",
        "",
    )
    assert record.publisher == "Frontiers Media S.A."
    assert record.identifiers == Identifiers(doi="10.3389/neuro.11.009.2007", issn=("1662-5196",))
    assert record.url == "http://journal.frontiersin.org/Journal/10.3389/neuro.11.009.2007/full"


COVERED = {"search_articles.json", "search_articles_sorted.json", "article_by_id.json"}


def test_every_recorded_doaj_sample_is_covered() -> None:
    load_sample("doaj", "search_articles.json")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "doaj").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- "no hits", errors and malformed answers ------------------------------------------


def test_zero_total_is_an_empty_answer() -> None:
    assert ADAPTER.parse(SEARCH, json_response(envelope())) == []
    assert ADAPTER.parse(LOOKUP, json_response(envelope())) == []


@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [
        (400, "bad_request", "Query contains disallowed Lucene features (ref: 1f2e)"),
        # A search answers "no hits" with total 0; a 404 is a wrong path, not "not found".
        (404, "not_found", "Not Found (ref: 3c4d)"),
        (401, "unauthorised", "Unauthorised (ref: 5e6f)"),
        (403, "forbidden", "Forbidden (ref: 7a8b)"),
    ],
)
def test_error_bodies_raise_unexpected_status(status: int, kind: str, message: str) -> None:
    response = json_response({"status": kind, "error": message}, status)
    for request in (SEARCH, LOOKUP):
        with pytest.raises(UnexpectedStatus, match=re.escape(f"({kind}: {message})")) as raised:
            ADAPTER.parse(request, response)
        assert raised.value.http_status == status


def test_html_error_page_raises_unexpected_status() -> None:
    page = HttpResponse(502, b"<html>Bad gateway</html>", {"content-type": "text/html"})
    with pytest.raises(UnexpectedStatus, match=r"^doaj: HTTP 502$"):
        ADAPTER.parse(SEARCH, page)


def test_cloudflare_page_with_200_is_malformed() -> None:
    page = HttpResponse(200, b"<html>Just a moment...</html>", {"content-type": "text/html"})
    with pytest.raises(MalformedResponse, match="text/html"):
        ADAPTER.parse(SEARCH, page)


@pytest.mark.parametrize(
    "body",
    [
        [article()],
        {"total": 1, "results": {"id": "x"}},
        {"status": "bad_request", "error": "reported inside a 200"},
        envelope({"bibjson": {"title": "No id"}}),
        envelope("not an article"),  # type: ignore[arg-type]
    ],
)
def test_wrong_shapes_in_a_200_are_malformed(body: Any) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(SEARCH, json_response(body))


# --- fields built by hand -------------------------------------------------------------


def test_upper_case_identifier_types_of_older_records() -> None:
    record = parse_one(
        envelope(
            article(
                identifier=[
                    {"type": "DOI", "id": "https://doi.org/10.1590/S0102-311X2020000100001"},
                    {"type": "PISSN", "id": "0102311x"},
                    {"type": "other", "id": "ignored"},
                ],
                journal={"issns": ["0102-311X", "1678-4464"]},
            )
        )
    )
    assert record.identifiers == Identifiers(
        doi="10.1590/s0102-311x2020000100001", issn=("0102-311X", "1678-4464")
    )


def test_missing_fields_read_as_unknown() -> None:
    record = parse_one(envelope(article(year="n.d.", link=[{"type": "homepage", "url": "x"}])))
    assert record.year is None
    assert record.authors == ()
    assert (record.container, record.volume, record.issue, record.pages) == ("", "", "", "")
    # No full-text link: the DOAJ article page.
    assert record.url == "https://doaj.org/article/abc123"
    assert record.identifiers == Identifiers()


def test_year_given_as_a_number() -> None:
    assert parse_one(envelope(article(year=2019))).year == 2019


def test_retracted_title_prefix_is_stripped_and_marks_the_record() -> None:
    record = parse_one(envelope(article(title="RETRACTED ARTICLE: Cell growth")))
    assert (record.title, record.retracted) == ("Cell growth", True)


def test_markup_in_titles_is_stripped() -> None:
    record = parse_one(envelope(article(title="Growth of <i>E. coli</i> &amp; yeast")))
    assert record.title == "Growth of E. coli & yeast"


def test_no_rate_hint() -> None:
    assert ADAPTER.rate_hint(load_sample("doaj", "search_articles.json")) is None
