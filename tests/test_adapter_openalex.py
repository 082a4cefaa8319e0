"""OpenAlexAdapter: requests it builds, and parsing of every recorded OpenAlex response.

The recordings predate API keys (2025), so the 2026 budget headers are built by hand
from apis.md section 2.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson
import pytest
from recorded import SAMPLES, load_sample

from adapters import OpenAlexAdapter
from adapters._text import split_person_name
from adapters.base import Identity
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = OpenAlexAdapter()
KEYED = Identity(mailto="you@example.org", api_key="oa-secret")

LOOKUP = HttpRequest(path="/works/doi:10.1073/pnas.1414271111", request_class="single")
SEARCH = HttpRequest(path="/works", params=(("filter", 'title.search:"x"'),))


def json_response(body: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(status, orjson.dumps(body), {"content-type": "application/json"})


def work(**fields: Any) -> dict[str, Any]:
    return {"id": "https://openalex.org/W1", "doi": "https://doi.org/10.1000/hand.1", **fields}


def parse_one(body: dict[str, Any], request: HttpRequest = LOOKUP) -> Any:
    records = ADAPTER.parse(request, json_response(body))
    assert len(records) == 1
    return records[0]


# --- requests -------------------------------------------------------------------------


def test_lookup_request_by_doi_with_the_key_as_identity() -> None:
    citation = Citation(identifiers=Identifiers(doi="https://doi.org/10.1073/PNAS.1414271111"))
    request = ADAPTER.lookup_request(citation, KEYED)
    assert request is not None
    assert request.path == "/works/doi:10.1073/pnas.1414271111"
    assert request.request_class == "single"
    assert request.params == ()
    assert request.identity_params == (("api_key", "oa-secret"),)
    assert "oa-secret" not in request.cache_key()
    url = request.url("https://api.openalex.org")
    assert url == "https://api.openalex.org/works/doi:10.1073/pnas.1414271111?api_key=oa-secret"
    # The mailto polite pool is retired: the address is not sent at all.
    assert "example.org" not in url and request.headers == ()


def test_lookup_request_encodes_odd_doi_characters() -> None:
    odd = Citation(identifiers=Identifiers(doi="10.1234/a b#c?d%e"))
    request = ADAPTER.lookup_request(odd, Identity())
    assert request is not None
    assert request.path == "/works/doi:10.1234/a%20b%23c%3Fd%25e"
    assert request.identity_params == ()


def test_lookup_request_falls_back_to_pmid() -> None:
    request = ADAPTER.lookup_request(Citation(identifiers=Identifiers(pmid="25349395")), KEYED)
    assert request is not None
    assert request.path == "/works/pmid:25349395"
    assert ADAPTER.lookup_request(Citation(identifiers=Identifiers(pmid="n/a")), KEYED) is None
    assert ADAPTER.lookup_request(Citation(title="Only a title"), KEYED) is None


def test_search_request_uses_a_quoted_title_filter() -> None:
    citation = Citation(title="Augmenting large language models with chemistry tools", year=2024)
    request = ADAPTER.search_request(citation, KEYED)
    assert request is not None
    assert request.path == "/works"
    assert request.request_class == "list"
    assert request.params == (
        ("filter", 'title.search:"Augmenting large language models with chemistry tools"'),
        ("per_page", "5"),
        (
            "select",
            "id,doi,title,display_name,publication_year,publication_date,authorships,"
            "primary_location,type,type_crossref,ids,biblio,is_retracted",
        ),
    )
    # No year filter: a year off by one must stay a discrepancy, never a miss.
    assert "publication_year" not in dict(request.params)["filter"]
    assert request.identity_params == (("api_key", "oa-secret"),)
    assert "api_key" not in request.cache_key()
    query = dict(parse_qsl(urlsplit(request.url("https://api.openalex.org")).query))
    assert query["filter"] == 'title.search:"Augmenting large language models with chemistry tools"'
    assert query["api_key"] == "oa-secret"


def test_search_request_removes_commas_quotes_and_curly_apostrophes() -> None:
    citation = Citation(title='Cats, dogs, and "mice": a “study” of O’Brien’s data | part 1')
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    assert dict(request.params)["filter"] == (
        'title.search:"Cats dogs and mice: a study of OBriens data part 1"'
    )
    assert request.identity_params == ()


def test_no_search_without_a_title() -> None:
    assert ADAPTER.search_request(Citation(authors=(Author(family="Bran"),)), KEYED) is None
    assert ADAPTER.search_request(Citation(title=" ,, “” "), KEYED) is None


# --- recorded responses ---------------------------------------------------------------


def test_doi_sample() -> None:
    records = ADAPTER.parse(LOOKUP, load_sample("openalex", "works_doi.json"))
    assert len(records) == 1
    record = records[0]
    assert record.source == "openalex"
    assert record.source_id == "W2109415576"
    assert record.url == "https://openalex.org/W2109415576"
    assert record.title == (
        "Developing functional musculoskeletal tissues through hypoxia and lysyl "
        "oxidase-induced collagen cross-linking"
    )
    assert [a.family for a in record.authors] == [
        "Makris",
        "Responte",
        "Paschos",
        "Hu",
        "Athanasiou",
    ]
    assert record.authors[1] == Author(family="Responte", given="Donald J.")
    assert record.year == 2014
    assert record.container == "Proceedings of the National Academy of Sciences"
    assert (record.volume, record.issue, record.pages) == ("111", "45", "")
    assert record.type is WorkType.ARTICLE
    assert record.identifiers == Identifiers(
        doi="10.1073/pnas.1414271111",
        issn=("0027-8424", "1091-6490"),
        pmid="25349395",
        pmcid="PMC4234579",
    )
    assert record.retracted is False


def test_doi_sample_without_authors() -> None:
    records = ADAPTER.parse(LOOKUP, load_sample("openalex", "works_doi_no_authors.json"))
    assert len(records) == 1
    record = records[0]
    assert record.authors == ()
    assert record.title == "Convalescent-anti-sars-cov-2-plasma/immune-globulin"
    assert record.source_id == "W4381738344"
    assert record.year == 2023
    assert record.container == "Reactions Weekly"
    # biblio first_page == last_page == "145": one page, not "145-145".
    assert (record.volume, record.issue, record.pages) == ("1962", "1", "145")
    assert record.identifiers.doi == "10.1007/s40278-023-41815-2"
    assert record.identifiers.pmid is None


def test_doi_projection_sample_keeps_what_it_has() -> None:
    # select=open_access,doi: no id, no title, no is_retracted.
    records = ADAPTER.parse(LOOKUP, load_sample("openalex", "works_doi_select.json"))
    assert len(records) == 1
    record = records[0]
    assert record.identifiers.doi == "10.1093/nar/gkw1164"
    assert record.source_id == "10.1093/nar/gkw1164"
    assert record.url == "https://doi.org/10.1093/nar/gkw1164"
    assert record.title == ""
    assert record.retracted is None


def test_doi_not_found_sample_is_an_empty_answer() -> None:
    response = load_sample("openalex", "works_doi_not_found.html")
    assert (response.status, response.content_type) == (404, "text/html")
    assert ADAPTER.parse(LOOKUP, response) == []


def test_title_search_sample_two_hits() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("openalex", "works_title_search.json"))
    assert [r.source_id for r in records] == ["W4396723768", "W4365597205"]
    journal, preprint = records
    assert journal.title == "Augmenting large language models with chemistry tools"
    assert [a.family for a in journal.authors] == [
        "Bran",
        "Cox",
        "Schilter",
        "Baldassari",
        "White",
        "Schwaller",
    ]
    assert journal.authors[4] == Author(family="White", given="Andrew Dickson")
    assert journal.year == 2024
    assert journal.container == "Nature Machine Intelligence"
    assert (journal.volume, journal.issue, journal.pages) == ("6", "5", "525-535")
    assert journal.type is WorkType.ARTICLE
    assert journal.identifiers.doi == "10.1038/s42256-024-00832-8"
    assert journal.identifiers.pmid == "38799228"
    assert preprint.title == "ChemCrow: Augmenting large-language models with chemistry tools"
    assert preprint.type is WorkType.PREPRINT
    assert preprint.year == 2023
    assert preprint.container == "arXiv (Cornell University)"
    assert preprint.identifiers.doi == "10.48550/arxiv.2304.05376"
    assert (preprint.volume, preprint.pages) == ("", "")


def test_title_search_sample_single_hit() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("openalex", "works_title_search_single.json"))
    assert len(records) == 1
    record = records[0]
    assert record.title == "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research"
    assert record.authors[:2] == (
        Author(family="Lála", given="Jakub"),
        Author(family="O’Donoghue", given="Odhran"),
    )
    assert record.authors[-1].family == "White"
    assert record.year == 2023
    assert record.type is WorkType.PREPRINT
    assert record.identifiers.doi == "10.48550/arxiv.2312.07559"
    assert record.retracted is False


COVERED = {
    "works_doi.json",
    "works_doi_no_authors.json",
    "works_doi_select.json",
    "works_doi_not_found.html",
    "works_title_search.json",
    "works_title_search_single.json",
}


def test_every_recorded_openalex_sample_is_covered() -> None:
    load_sample("openalex", "works_doi.json")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "openalex").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- "not found", errors and malformed answers ----------------------------------------


def test_empty_result_list_is_an_empty_answer() -> None:
    body = {"meta": {"count": 0, "page": 1, "per_page": 5}, "results": []}
    assert ADAPTER.parse(SEARCH, json_response(body)) == []


@pytest.mark.parametrize("status", [400, 403])
def test_json_error_statuses_raise_unexpected_status(status: int) -> None:
    body = {
        "error": "Invalid query parameters error.",
        "message": "title.serch is not a valid field. Valid fields are ...",
    }
    with pytest.raises(UnexpectedStatus, match="title.serch is not a valid field") as raised:
        ADAPTER.parse(SEARCH, json_response(body, status))
    assert raised.value.http_status == status


def test_404_on_the_list_route_is_not_read_as_not_found() -> None:
    page = load_sample("openalex", "works_doi_not_found.html")
    with pytest.raises(UnexpectedStatus) as raised:
        ADAPTER.parse(SEARCH, page)
    assert raised.value.http_status == 404


def test_html_rate_limit_page_with_200_is_malformed() -> None:
    page = HttpResponse(200, b"<html><body>Rate limit</body></html>", {"content-type": "text/html"})
    with pytest.raises(MalformedResponse, match="not JSON"):
        ADAPTER.parse(SEARCH, page)


def test_truncated_json_is_malformed() -> None:
    body = load_sample("openalex", "works_title_search.json").body
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(SEARCH, HttpResponse(200, body[:-40], {"content-type": "application/json"}))


@pytest.mark.parametrize(
    "body",
    [
        {"error": "Something went wrong", "message": "try later"},
        {"meta": {"count": 1}, "results": {"id": "https://openalex.org/W1"}},
        {"meta": {"count": 1}, "results": ["W1"]},
        {"meta": {"count": 1}, "results": [{"title": "Neither id nor DOI"}]},
        ["W1"],
    ],
)
def test_wrong_shapes_in_a_200_are_malformed(body: Any) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(SEARCH, json_response(body))


# --- fields built by hand -------------------------------------------------------------


def test_retraction_flag_and_prefix() -> None:
    assert parse_one(work(title="A study", is_retracted=True)).retracted is True
    assert parse_one(work(title="A study", is_retracted=False)).retracted is False
    prefixed = parse_one(work(title="RETRACTED: A study", is_retracted=False))
    assert (prefixed.title, prefixed.retracted) == ("A study", True)


def test_markup_in_titles_and_display_name_fallback() -> None:
    record = parse_one(work(title="<i>In vivo</i> CO<sub>2</sub> &amp; O<sub>2</sub>"))
    assert record.title == "In vivo CO2 & O2"
    fallback = parse_one(work(title=None, display_name="Shown name"))
    assert fallback.title == "Shown name"


def test_author_names_split_with_particles_and_raw_fallback() -> None:
    record = parse_one(
        work(
            authorships=[
                {"author": {"display_name": "Ludwig van Beethoven"}, "raw_author_name": "x"},
                {"author": {"display_name": "Jan van der Berg"}},
                {"author": {"display_name": "Martin Luther King Jr."}},
                {"author": {"display_name": None}, "raw_author_name": "Lála, Jakub"},
                {"author": {}, "raw_author_name": ""},
                {"author": {"display_name": "Plato"}},
            ]
        )
    )
    assert record.authors == (
        Author(family="van Beethoven", given="Ludwig"),
        Author(family="van der Berg", given="Jan"),
        Author(family="King", given="Martin Luther"),
        Author(family="Lála", given="Jakub"),
        Author(family="Plato"),
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Andrew Dickson White", Author(family="White", given="Andrew Dickson")),
        ("De Gaulle", Author(family="Gaulle", given="De")),
        ("Maria de la Cruz", Author(family="de la Cruz", given="Maria")),
        ("King, Martin Luther, Jr.", Author(family="King", given="Martin Luther")),
        ("  White,  Andrew  D ", Author(family="White", given="Andrew D")),
    ],
)
def test_split_person_name(name: str, expected: Author) -> None:
    assert split_person_name(name) == expected


def test_split_person_name_empty() -> None:
    assert split_person_name("   ") is None


@pytest.mark.parametrize(
    ("kind", "crossref_kind", "expected"),
    [
        ("article", "journal-article", WorkType.ARTICLE),
        ("article", "proceedings-article", WorkType.PROCEEDINGS),
        ("review", "journal-article", WorkType.ARTICLE),
        ("book", "monograph", WorkType.BOOK),
        ("book-chapter", "book-chapter", WorkType.CHAPTER),
        ("preprint", "posted-content", WorkType.PREPRINT),
        ("dissertation", "dissertation", WorkType.THESIS),
        ("report", "report", WorkType.REPORT),
        ("dataset", "dataset", WorkType.OTHER),
        (None, None, WorkType.UNKNOWN),
    ],
)
def test_type_mapping(kind: str | None, crossref_kind: str | None, expected: WorkType) -> None:
    assert parse_one(work(type=kind, type_crossref=crossref_kind)).type is expected


def test_pages_from_one_end_only() -> None:
    record = parse_one(
        work(biblio={"volume": "3", "issue": None, "first_page": "e12", "last_page": None})
    )
    assert (record.volume, record.issue, record.pages) == ("3", "", "e12")


# --- rate headers ---------------------------------------------------------------------


@pytest.mark.parametrize("filename", sorted(COVERED))
def test_recorded_responses_carry_no_budget_headers(filename: str) -> None:
    # 2025 recordings: only X-Api-Pool, or Cloudflare's RateLimit-*, which are not the
    # OpenAlex budget and are not read.
    assert ADAPTER.rate_hint(load_sample("openalex", filename)) is None


def test_budget_headers() -> None:
    headers = {
        "x-ratelimit-limit": "10000",
        "x-ratelimit-remaining": "9950",
        "x-ratelimit-credits-used": "10",
        "x-ratelimit-reset": "42017",
    }
    hint = ADAPTER.rate_hint(HttpResponse(200, b"{}", headers))
    assert hint is not None
    assert (hint.remaining, hint.reset_s) == (9950.0, 42017.0)
    # Credits per day, not requests per second: not reported as a rate.
    assert (hint.request_class, hint.limit, hint.interval_s) == (None, None, None)


def test_budget_too_small_for_the_next_call_reads_as_spent() -> None:
    headers = {
        "x-ratelimit-remaining": "4",
        "x-ratelimit-credits-required": "10",
        "x-ratelimit-reset": "3600",
    }
    hint = ADAPTER.rate_hint(HttpResponse(429, b"", headers))
    assert hint is not None
    assert (hint.remaining, hint.reset_s) == (0.0, 3600.0)
