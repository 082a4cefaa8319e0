"""SemanticScholarAdapter: requests it builds, and parsing of every recorded S2 response.

The recordings were made with narrower ``fields`` lists than the adapter sends, so some
records lack year, type or venue: the tests check that absent fields read as unknown.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson
import pytest
from recorded import SAMPLES, load_sample

from adapters.base import Identity
from adapters.semanticscholar import FIELDS, SemanticScholarAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = SemanticScholarAdapter()
KEYED = Identity(mailto="you@example.org", api_key="s2-secret")
BASE = "https://api.semanticscholar.org/graph/v1"

LOOKUP = HttpRequest(path="/paper/DOI:10.1073/pnas.1414271111", request_class="single")
MATCH = HttpRequest(path="/paper/search/match", params=(("query", "x"),))
SEARCH = HttpRequest(path="/paper/search", params=(("query", "turing"),))
BATCH = HttpRequest(path="/paper/batch", request_class="list")


def json_response(body: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(status, orjson.dumps(body), {"content-type": "application/json"})


def paper(**fields: Any) -> dict[str, Any]:
    return {"paperId": "0123456789abcdef0123456789abcdef01234567", "title": "A paper", **fields}


def parse_one(body: Any, request: HttpRequest = LOOKUP) -> Any:
    records = ADAPTER.parse(request, json_response(body))
    assert len(records) == 1
    return records[0]


def lookup_path(**ids: Any) -> str | None:
    request = ADAPTER.lookup_request(Citation(identifiers=Identifiers(**ids)), Identity())
    return None if request is None else request.path


# --- requests -------------------------------------------------------------------------


def test_lookup_request_by_doi_with_fields_and_the_key_in_a_header() -> None:
    citation = Citation(identifiers=Identifiers(doi="https://doi.org/10.1073/PNAS.1414271111"))
    request = ADAPTER.lookup_request(citation, KEYED)
    assert request is not None
    assert request.path == "/paper/DOI:10.1073/pnas.1414271111"
    assert request.request_class == "single"
    assert request.params == (("fields", FIELDS),)
    assert request.headers == (("x-api-key", "s2-secret"),)
    assert request.identity_params == ()
    url = request.url(BASE)
    assert "s2-secret" not in url and "s2-secret" not in request.cache_key()
    assert "example.org" not in url  # S2 takes no contact address
    assert urlsplit(url).path == "/graph/v1/paper/DOI:10.1073/pnas.1414271111"


def test_fields_name_what_the_records_are_built_from() -> None:
    assert FIELDS.split(",") == [
        "title",
        "authors",
        "year",
        "publicationDate",
        "venue",
        "publicationVenue",
        "journal",
        "externalIds",
        "publicationTypes",
        "url",
        "isOpenAccess",
    ]


def test_no_key_no_header() -> None:
    request = ADAPTER.lookup_request(
        Citation(identifiers=Identifiers(doi="10.1073/pnas.1414271111")), Identity()
    )
    assert request is not None
    assert request.headers == ()


def test_lookup_request_percent_encodes_odd_doi_characters_but_not_the_slash() -> None:
    assert lookup_path(doi="10.1234/a b#c?d%e") == "/paper/DOI:10.1234/a%20b%23c%3Fd%25e"
    sici = "10.1002/(SICI)1097-4636(199706)35:4<441::AID>3.0.CO;2-N"
    path = lookup_path(doi=sici)
    assert path == "/paper/DOI:10.1002/(sici)1097-4636(199706)35%3A4%3C441%3A%3Aaid%3E3.0.co%3B2-n"
    request = HttpRequest(path=path, params=(("fields", FIELDS),))
    parts = urlsplit(request.url(BASE))
    assert parts.fragment == "" and parts.path.count("/") == 5
    assert dict(parse_qsl(parts.query)) == {"fields": FIELDS}


def test_lookup_prefers_the_doi_then_arxiv_then_pmid() -> None:
    assert lookup_path(doi="10.1038/s42256-024-00832-8", arxiv="2304.05376", pmid="38799228") == (
        "/paper/DOI:10.1038/s42256-024-00832-8"
    )
    assert lookup_path(arxiv="2304.05376", pmid="38799228") == "/paper/ARXIV:2304.05376"
    assert lookup_path(arxiv="hep-th/9901001") == "/paper/ARXIV:hep-th/9901001"
    assert lookup_path(pmid=" 25349395 ") == "/paper/PMID:25349395"


def test_arxiv_doi_is_looked_up_as_an_arxiv_id() -> None:
    # S2 often lacks arXiv's DataCite DOIs: a DOI lookup would 404 for a paper it holds.
    assert lookup_path(doi="10.48550/arXiv.1706.03762") == "/paper/ARXIV:1706.03762"
    both = lookup_path(doi="10.48550/arxiv.1706.03762", arxiv="1706.03762")
    assert both == "/paper/ARXIV:1706.03762"


def test_no_lookup_without_a_usable_identifier() -> None:
    assert lookup_path() is None
    assert lookup_path(pmid="n/a") is None
    assert lookup_path(isbn=("9780262033848",), pmcid="PMC4234579") is None


def test_search_request_uses_title_match_with_dashes_as_spaces() -> None:
    citation = Citation(
        title="  Community- and trophic-level responses — a  re‐analysis ",
        authors=(Author(family="Peralta"),),
        year=2020,
    )
    request = ADAPTER.search_request(citation, KEYED)
    assert request is not None
    assert request.path == "/paper/search/match"
    assert request.request_class == "list"
    assert request.params == (
        ("query", "Community and trophic level responses a re analysis"),
        ("fields", FIELDS),
    )
    assert request.headers == (("x-api-key", "s2-secret"),)
    query = dict(parse_qsl(urlsplit(request.url(BASE)).query))
    assert query["query"] == "Community and trophic level responses a re analysis"


def test_search_request_keeps_other_punctuation_for_the_service() -> None:
    citation = Citation(title="What's in a name? 50% of #tags & more")
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    assert dict(request.params)["query"] == "What's in a name? 50% of #tags & more"
    assert request.headers == ()
    query = dict(parse_qsl(urlsplit(request.url(BASE)).query))
    assert query["query"] == "What's in a name? 50% of #tags & more"


def test_no_search_without_a_title() -> None:
    assert ADAPTER.search_request(Citation(authors=(Author(family="Bran"),)), KEYED) is None
    assert ADAPTER.search_request(Citation(title=" - — "), KEYED) is None


# --- recorded responses ---------------------------------------------------------------


def test_title_match_sample() -> None:
    records = ADAPTER.parse(MATCH, load_sample("semanticscholar", "paper_search_match.json"))
    assert len(records) == 1
    record = records[0]
    assert record.source == "semanticscholar"
    assert record.source_id == "354dcdebf3f8b5feeed5c62090e0bc1f0c28db06"
    # fields=authors,externalIds,title: no url, so the paper page is built from the id.
    assert record.url == (
        "https://www.semanticscholar.org/paper/354dcdebf3f8b5feeed5c62090e0bc1f0c28db06"
    )
    assert record.title == "Augmenting large language models with chemistry tools"
    assert record.authors == (
        Author(family="Bran", given="Andrés M"),
        Author(family="Cox", given="Sam"),
        Author(family="Schilter", given="Oliver"),
        Author(family="Baldassari", given="Carlo"),
        Author(family="White", given="Andrew D."),
        Author(family="Schwaller", given="P."),
    )
    assert record.identifiers == Identifiers(
        doi="10.1038/s42256-024-00832-8",
        arxiv="2304.05376",
        pmid="38799228",
        pmcid="PMC11116106",
    )
    assert (record.year, record.container, record.type) == (None, "", WorkType.UNKNOWN)
    assert record.retracted is None
    assert record.open_access is None


def test_title_match_full_fields_sample_conference_paper() -> None:
    response = load_sample("semanticscholar", "paper_search_match_full_fields.json")
    record = ADAPTER.parse(MATCH, response)[0]
    assert record.source_id == "204e3073870fae3d05bcbc2f6a8e263d9b72e776"
    assert record.url == (
        "https://www.semanticscholar.org/paper/204e3073870fae3d05bcbc2f6a8e263d9b72e776"
    )
    assert record.title == "Attention is All you Need"
    assert [a.family for a in record.authors] == [
        "Vaswani",
        "Shazeer",
        "Parmar",
        "Uszkoreit",
        "Jones",
        "Gomez",
        "Kaiser",
        "Polosukhin",
    ]
    assert record.authors[1] == Author(family="Shazeer", given="Noam M.")
    assert record.year == 2017
    # journal has only pages here: the venue names the container.
    assert record.container == "Neural Information Processing Systems"
    assert (record.volume, record.issue, record.pages) == ("", "", "5998-6008")
    # ["JournalArticle", "Conference"]: the more specific type wins.
    assert record.type is WorkType.PROCEEDINGS
    # An arXiv-first paper: no DOI in externalIds.
    assert record.identifiers == Identifiers(arxiv="1706.03762")
    assert record.open_access is False
    assert record.retracted is None


def test_title_match_not_found_sample_is_an_empty_answer() -> None:
    response = load_sample("semanticscholar", "paper_search_match_not_found.json")
    assert response.status == 404
    assert ADAPTER.parse(MATCH, response) == []


def test_relevance_search_sample() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("semanticscholar", "paper_search.json"))
    assert [r.source_id for r in records] == [
        "7cbc2a7843411a1768ab762930707af0a3c33a19",
        "6b0f06617d9f5256a80ed62d9398acb92a55a6bd",
        "fdbe8d1896b754125c6255f07bd9fecc2ea59127",
    ]
    assert records[1].title == (
        "Quantum theory, the Church–Turing principle and the universal quantum computer"
    )
    assert records[2].title == "Putting ChatGPT's Medical Advice to the (Turing) Test"
    # fields=title: nothing else is known.
    assert {(r.authors, r.year, r.type) for r in records} == {((), None, WorkType.UNKNOWN)}


def test_empty_relevance_search_sample_without_data_key() -> None:
    response = load_sample("semanticscholar", "paper_search_empty.json")
    assert orjson.loads(response.body) == {"total": 0, "offset": 0}
    assert ADAPTER.parse(SEARCH, response) == []


def test_doi_lookup_sample() -> None:
    records = ADAPTER.parse(LOOKUP, load_sample("semanticscholar", "paper_doi.json"))
    assert len(records) == 1
    record = records[0]
    assert record.source_id == "db3720c812a462ef955d5654b65ca9189d4b8372"
    assert record.url == (
        "https://www.semanticscholar.org/paper/db3720c812a462ef955d5654b65ca9189d4b8372"
    )
    assert record.title == (
        "Developing functional musculoskeletal tissues through hypoxia and lysyl "
        "oxidase-induced collagen cross-linking"
    )
    assert record.authors[:4] == (
        Author(family="Makris", given="Eleftherios"),
        Author(family="Responte", given="D."),
        Author(family="Paschos", given="N."),
        Author(family="Hu", given="Jerry C."),
    )
    # Recorded as "Kyriacos, Κυριάκος, Athanasiou, Αθανασίου": the Latin parts are the name.
    assert record.authors[4] == Author(family="Athanasiou", given="Kyriacos")
    assert record.year == 2014
    # journal.name wins over the longer venue string.
    assert record.container == "Proceedings of the National Academy of Sciences"
    assert (record.volume, record.issue) == ("111", "")
    assert record.pages == "E4832-E4841"  # recorded as "E4832 - E4841"
    assert record.type is WorkType.ARTICLE
    assert record.identifiers == Identifiers(doi="10.1073/pnas.1414271111", pmid="25349395")
    assert record.open_access is True
    assert record.retracted is None


def test_doi_not_found_sample_is_an_empty_answer() -> None:
    response = load_sample("semanticscholar", "paper_doi_not_found.json")
    assert response.status == 404
    request = HttpRequest(path="/paper/DOI:10.1101/2024.04.01.587366", request_class="single")
    assert ADAPTER.parse(request, response) == []


def test_bare_doi_path_sample_with_title_only() -> None:
    request = HttpRequest(path="/paper/10.1093/mind/lix.236.433", request_class="single")
    records = ADAPTER.parse(request, load_sample("semanticscholar", "paper_by_doi_path.json"))
    assert len(records) == 1
    record = records[0]
    assert record.source_id == "2d5673caa9e6af3a7b82a43f19ee920992db07ad"
    assert record.title == "Computing Machinery and Intelligence"
    assert (record.authors, record.year, record.identifiers) == ((), None, Identifiers())


def test_batch_sample_skips_unknown_ids() -> None:
    response = load_sample("semanticscholar", "paper_batch_with_missing.json")
    assert orjson.loads(response.body)[0] is None
    records = ADAPTER.parse(BATCH, response)
    assert [r.identifiers.doi for r in records] == [
        "10.2139/ssrn.288970",
        "10.2139/ssrn.2250500",
        "10.1257/rct.1355",
    ]
    trust, miracle, audits = records
    assert trust.title == "How Much Should We Trust Differences-in-Differences Estimates?"
    assert trust.authors == (
        Author(family="Bertrand", given="Marianne"),
        Author(family="Duflo", given="E."),
        Author(family="Mullainathan", given="S."),
    )
    assert trust.year == 2001
    # venue is "": the journal name is the container.
    assert trust.container == "Experimental & Empirical Studies eJournal"
    assert trust.type is WorkType.ARTICLE  # publicationTypes ["Review"]
    assert trust.open_access is True
    assert miracle.type is WorkType.UNKNOWN  # publicationTypes null
    assert miracle.container == "ERN: Credit Risk (Topic)"
    assert miracle.year == 2013
    assert audits.container == ""  # journal null, venue ""
    assert audits.year == 2023
    assert audits.url == (
        "https://www.semanticscholar.org/paper/0f40b1f08821e22e859c6050916cec3667778613"
    )
    assert audits.authors[-1] == Author(family="Ryan", given="Nick")


@pytest.mark.parametrize(
    ("filename", "status", "detail"),
    [
        ("error_bad_fields.json", 400, r"HTTP 400 \(Unrecognized or unsupported fields"),
        ("error_forbidden.json", 403, r"HTTP 403 \(Forbidden\)"),
        # The engine handles 429 before parse; should one reach parse, it is no answer.
        ("error_429.quoted.json", 429, r"HTTP 429 \(Too Many Requests"),
    ],
)
def test_error_samples_raise_unexpected_status(filename: str, status: int, detail: str) -> None:
    response = load_sample("semanticscholar", filename)
    assert response.status == status
    for request in (LOOKUP, MATCH):
        with pytest.raises(UnexpectedStatus, match=detail) as raised:
            ADAPTER.parse(request, response)
        assert raised.value.http_status == status


COVERED = {
    "paper_search_match.json",
    "paper_search_match_full_fields.json",
    "paper_search_match_not_found.json",
    "paper_search.json",
    "paper_search_empty.json",
    "paper_doi.json",
    "paper_doi_not_found.json",
    "paper_by_doi_path.json",
    "paper_batch_with_missing.json",
    "error_bad_fields.json",
    "error_forbidden.json",
    "error_429.quoted.json",
}


def test_every_recorded_semanticscholar_sample_is_covered() -> None:
    load_sample("semanticscholar", "paper_doi.json")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "semanticscholar").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- "not found", errors and malformed answers ----------------------------------------


@pytest.mark.parametrize(
    "response",
    [
        # An API-gateway 404 (wrong route) is not S2 saying "no such paper".
        json_response({"message": "Not Found"}, 404),
        json_response({"error": "Endpoint removed"}, 404),
        HttpResponse(404, b"<html>Not Found</html>", {"content-type": "text/html"}),
    ],
)
def test_other_404s_are_not_read_as_not_found(response: HttpResponse) -> None:
    with pytest.raises(UnexpectedStatus) as raised:
        ADAPTER.parse(LOOKUP, response)
    assert raised.value.http_status == 404


def test_not_found_text_outside_the_paper_routes_is_an_error() -> None:
    response = json_response({"error": "Author with id 1 not found"}, 404)
    with pytest.raises(UnexpectedStatus, match="Author with id 1 not found"):
        ADAPTER.parse(HttpRequest(path="/author/1"), response)


def test_html_page_with_200_is_malformed() -> None:
    page = HttpResponse(
        200, b"<html><body>Bad gateway</body></html>", {"content-type": "text/html"}
    )
    with pytest.raises(MalformedResponse, match="text/html"):
        ADAPTER.parse(MATCH, page)


def test_truncated_json_is_malformed() -> None:
    body = load_sample("semanticscholar", "paper_doi.json").body
    truncated = HttpResponse(200, body[: len(body) // 2], {"content-type": "application/json"})
    with pytest.raises(MalformedResponse, match="not JSON"):
        ADAPTER.parse(LOOKUP, truncated)


@pytest.mark.parametrize(
    "body",
    [
        {"error": "Internal error reported in a 200"},
        {"total": 3, "offset": 0},
        {"data": {"paperId": "x"}},
        {"data": [{"title": "No paperId"}]},
        {"data": ["not a paper"]},
        [None, "not a paper"],
        "just a string",
    ],
)
def test_wrong_shapes_in_a_200_are_malformed(body: Any) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(SEARCH, json_response(body))


def test_match_and_search_pages_with_empty_data() -> None:
    assert ADAPTER.parse(MATCH, json_response({"data": []})) == []
    assert ADAPTER.parse(SEARCH, json_response({"total": 0, "offset": 0, "data": []})) == []
    assert ADAPTER.parse(BATCH, json_response([None, None])) == []


# --- fields built by hand -------------------------------------------------------------


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        (["JournalArticle"], WorkType.ARTICLE),
        (["Review"], WorkType.ARTICLE),
        (["JournalArticle", "Review"], WorkType.ARTICLE),
        (["Conference"], WorkType.PROCEEDINGS),
        (["JournalArticle", "Conference"], WorkType.PROCEEDINGS),
        (["Book"], WorkType.BOOK),
        (["BookSection"], WorkType.CHAPTER),
        (["Book", "BookSection"], WorkType.CHAPTER),
        (["Editorial"], WorkType.ARTICLE),
        (["LettersAndComments"], WorkType.ARTICLE),
        (["MetaAnalysis"], WorkType.ARTICLE),
        (["CaseReport"], WorkType.ARTICLE),
        (["ClinicalTrial"], WorkType.ARTICLE),
        (["Study"], WorkType.ARTICLE),
        (["Dataset"], WorkType.OTHER),
        (["News"], WorkType.OTHER),
        ([], WorkType.UNKNOWN),
        (None, WorkType.UNKNOWN),
    ],
)
def test_type_mapping(types: list[str] | None, expected: WorkType) -> None:
    assert parse_one(paper(publicationTypes=types)).type is expected


def test_year_falls_back_to_the_publication_date() -> None:
    assert parse_one(paper(year=None, publicationDate="2019-05-02")).year == 2019
    assert parse_one(paper(year=None, publicationDate=None)).year is None
    assert parse_one(paper(year=2020, publicationDate="2019-12-30")).year == 2020


def test_publication_venue_gives_the_issn_and_a_last_resort_container() -> None:
    record = parse_one(
        paper(
            venue="",
            journal=None,
            publicationVenue={"id": "v1", "name": "Ecology Letters", "issn": "1461-023X"},
        )
    )
    assert record.container == "Ecology Letters"
    assert record.identifiers.issn == ("1461-023X",)


def test_external_ids_normalised() -> None:
    record = parse_one(
        paper(
            externalIds={
                "DOI": "10.1016/S0140-6736(97)11096-0",
                "ArXiv": "Hep-Th/9901001",
                "PubMed": 9500320,
                "PubMedCentral": "PMC123",
                "CorpusId": 1,
            }
        )
    )
    assert record.identifiers == Identifiers(
        doi="10.1016/s0140-6736(97)11096-0",
        arxiv="hep-th/9901001",
        pmid="9500320",
        pmcid="PMC123",
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Andrés M Bran", Author(family="Bran", given="Andrés M")),
        ("Ludwig van Beethoven", Author(family="van Beethoven", given="Ludwig")),
        ("Smith, John", Author(family="Smith", given="John")),
        ("Κυριάκος Αθανασίου", Author(family="Αθανασίου", given="Κυριάκος")),
        (
            "Kyriacos, Κυριάκος, Athanasiou, Αθανασίου",
            Author(family="Athanasiou", given="Kyriacos"),
        ),
    ],
)
def test_author_names(name: str, expected: Author) -> None:
    assert parse_one(paper(authors=[{"authorId": "1", "name": name}])).authors == (expected,)


def test_authors_without_names_are_skipped() -> None:
    record = parse_one(paper(authors=[{"authorId": "1", "name": None}, {"name": " "}, "x"]))
    assert record.authors == ()


def test_retracted_title_prefix_is_stripped_and_marks_the_record() -> None:
    record = parse_one(paper(title="RETRACTED: A study of things"))
    assert (record.title, record.retracted) == ("A study of things", True)
    assert parse_one(paper(title="A study of things")).retracted is None


def test_markup_in_titles_is_stripped() -> None:
    record = parse_one(paper(title="Effects of CO<sub>2</sub> on <i>Drosophila</i>"))
    assert record.title == "Effects of CO2 on Drosophila"


def test_no_rate_hint() -> None:
    assert ADAPTER.rate_hint(load_sample("semanticscholar", "paper_doi.json")) is None
    assert ADAPTER.follow_up(LOOKUP, load_sample("semanticscholar", "paper_doi.json")) is None
