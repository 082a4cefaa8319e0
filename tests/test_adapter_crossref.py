"""CrossrefAdapter: requests it builds, and parsing of every recorded Crossref response.

Retraction shapes are built by hand from apis.md section 1: no recorded sample has a
retraction in ``updated-by`` or an ``update-to`` notice.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson
import pytest
from recorded import SAMPLES, load_sample

from adapters import ADAPTERS, CrossrefAdapter, OpenAlexAdapter, adapter_for
from adapters.base import Identity
from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = CrossrefAdapter()
POLITE = Identity(mailto="you@example.org")
PLUS = Identity(mailto="you@example.org", api_key="plus-secret")

DOI_LOOKUP = HttpRequest(path="/works/10.1371/journal.pone.0033693", request_class="single")
SEARCH = HttpRequest(path="/works", params=(("query.bibliographic", "ecology"),))


def json_response(body: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(status, orjson.dumps(body), {"content-type": "application/json"})


def work(**fields: Any) -> HttpResponse:
    """A single-work envelope around a hand-built item (DOI filled in when omitted)."""
    item = {"DOI": "10.1000/hand.1", "title": ["A hand-built work"], **fields}
    return json_response(
        {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": item}
    )


def parse_one(response: HttpResponse, request: HttpRequest = DOI_LOOKUP) -> Any:
    records = ADAPTER.parse(request, response)
    assert len(records) == 1
    return records[0]


# --- requests -------------------------------------------------------------------------


def test_lookup_request_keeps_the_slash_and_identity_out_of_the_cache_key() -> None:
    citation = Citation(identifiers=Identifiers(doi="10.1371/journal.pone.0033693"))
    request = ADAPTER.lookup_request(citation, POLITE)
    assert request is not None
    assert request.path == "/works/10.1371/journal.pone.0033693"
    assert request.request_class == "single"
    assert request.params == ()
    assert request.identity_params == (("mailto", "you@example.org"),)
    assert request.headers == ()
    assert "mailto" not in request.cache_key()
    assert request.url("https://api.crossref.org") == (
        "https://api.crossref.org/works/10.1371/journal.pone.0033693?mailto=you%40example.org"
    )


def test_lookup_request_normalises_a_doi_url_and_case() -> None:
    citation = Citation(identifiers=Identifiers(doi="https://doi.org/10.1371/JOURNAL.PONE.0033693"))
    request = ADAPTER.lookup_request(citation, Identity())
    assert request is not None
    assert request.path == "/works/10.1371/journal.pone.0033693"
    assert request.identity_params == ()


def test_lookup_request_percent_encodes_unsafe_characters_but_not_the_slash() -> None:
    odd = Citation(identifiers=Identifiers(doi="10.1234/a b#c?d%e"))
    request = ADAPTER.lookup_request(odd, Identity())
    assert request is not None
    assert request.path == "/works/10.1234/a%20b%23c%3Fd%25e"


def test_lookup_request_encodes_sici_dois_so_jetty_does_not_cut_at_the_semicolon() -> None:
    sici = Citation(
        identifiers=Identifiers(doi="10.1002/(SICI)1097-4636(199706)35:4<441::AID>3.0.CO;2-N")
    )
    request = ADAPTER.lookup_request(sici, Identity())
    assert request is not None
    assert request.path == (
        "/works/10.1002/(sici)1097-4636(199706)35%3A4%3C441%3A%3Aaid%3E3.0.co%3B2-n"
    )
    assert urlsplit(request.url("https://api.crossref.org")).path.count("/") == 3


def test_plus_token_goes_in_its_header_not_in_the_url() -> None:
    citation = Citation(identifiers=Identifiers(doi="10.1371/journal.pone.0033693"))
    request = ADAPTER.lookup_request(citation, PLUS)
    assert request is not None
    assert request.headers == (("Crossref-Plus-API-Token", "Bearer plus-secret"),)
    assert "plus-secret" not in request.url("https://api.crossref.org")
    assert "plus-secret" not in request.cache_key()


def test_no_lookup_without_a_crossref_doi() -> None:
    assert ADAPTER.lookup_request(Citation(title="Some title"), POLITE) is None
    # DataCite DOIs (arXiv, Zenodo) are a 404 on /works/{doi}; search finds them instead.
    arxiv = Citation(identifiers=Identifiers(doi="10.48550/arXiv.2304.05376"))
    zenodo = Citation(identifiers=Identifiers(doi="10.5281/zenodo.1234"))
    assert ADAPTER.lookup_request(arxiv, POLITE) is None
    assert ADAPTER.lookup_request(zenodo, POLITE) is None


def test_search_request_sends_a_whole_reference_to_query_bibliographic() -> None:
    citation = Citation(
        title="The forecast trap",
        authors=(
            Author(family="Boettiger", given="Carl"),
            Author(family="Munch", given="S."),
            Author(literal="Ecology Team"),
            Author(family="Fourth", given="F."),
        ),
        year=2022,
    )
    request = ADAPTER.search_request(citation, PLUS)
    assert request is not None
    assert request.path == "/works"
    assert request.request_class == "list"
    params = dict(request.params)
    assert params["query.bibliographic"] == "The forecast trap Boettiger Munch Ecology Team 2022"
    assert "query.author" not in params  # a misspelled name must not filter the work out
    assert params["rows"] == "5"
    assert params["select"].split(",") == [
        "DOI",
        "title",
        "subtitle",
        "author",
        "editor",
        "issued",
        "published",
        "container-title",
        "type",
        "ISBN",
        "ISSN",
        "volume",
        "issue",
        "page",
        "publisher",
        "update-to",
        "updated-by",
        "relation",
        "score",
    ]
    assert request.identity_params == (("mailto", "you@example.org"),)
    assert request.headers == (("Crossref-Plus-API-Token", "Bearer plus-secret"),)
    assert "mailto" not in request.cache_key()
    query = dict(parse_qsl(urlsplit(request.url("https://api.crossref.org")).query))
    assert query["mailto"] == "you@example.org"


def test_search_request_without_authors_or_year_sends_the_title_alone() -> None:
    request = ADAPTER.search_request(Citation(title="  Fire   Ecology "), Identity())
    assert request is not None
    assert [key for key, _ in request.params] == ["query.bibliographic", "rows", "select"]
    assert dict(request.params)["query.bibliographic"] == "Fire Ecology"


def test_no_search_without_a_title() -> None:
    cited = Citation(authors=(Author(family="Boettiger"),), year=2022)
    assert ADAPTER.search_request(cited, POLITE) is None
    assert ADAPTER.search_request(Citation(title="   "), POLITE) is None


# --- recorded responses ---------------------------------------------------------------


def test_doi_lookup_sample() -> None:
    record = parse_one(load_sample("crossref", "works_doi.json"))
    assert record.source == "crossref"
    assert record.source_id == "10.1371/journal.pone.0033693"
    assert record.url == "https://doi.org/10.1371/journal.pone.0033693"
    assert record.title == (
        "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia "
        "in the Basal Ganglia of Mice"
    )
    assert [a.family for a in record.authors] == [
        "Sadasivan",
        "Pond",
        "Pani",
        "Qu",
        "Jiao",
        "Smeyne",
    ]
    assert record.authors[1] == Author(family="Pond", given="Brooks B.")
    assert record.year == 2012
    assert record.container == "PLoS ONE"
    assert (record.volume, record.issue, record.pages) == ("7", "3", "e33693")
    assert record.publisher == "Public Library of Science (PLoS)"
    assert record.type is WorkType.ARTICLE
    assert record.identifiers.doi == "10.1371/journal.pone.0033693"
    assert record.identifiers.issn == ("1932-6203",)
    # This record's updated-by holds a correction: noted, and not a retraction.
    assert record.retracted is False
    assert record.notices == ("correction",)


def test_doi_not_found_sample_is_an_empty_answer() -> None:
    response = load_sample("crossref", "works_doi_not_found.txt")
    assert response.status == 404
    request = HttpRequest(path="/works/10.1371/notarealdoi", request_class="single")
    assert ADAPTER.parse(request, response) == []


def test_query_sample_reference_entries() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("crossref", "works_query.json"))
    assert [r.title for r in records] == ["Communicating Ecology", "Chemical Ecology"]
    first, second = records
    assert first.authors == ()
    assert second.authors == (Author(family="Kessler", given="André"),)
    assert (first.year, second.year) == (2022, 2012)
    assert first.type is WorkType.CHAPTER  # reference-entry
    assert first.container == "Ecology"
    assert first.publisher == "Oxford University Press"
    assert first.identifiers.isbn == ("9780199830060",)
    assert second.source_id == "10.1093/obo/9780199830060-0023"


def test_author_query_sample_journal_articles() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("crossref", "works_query_author.json"))
    assert [r.identifiers.doi for r in records] == [
        "10.1111/ele.14024",
        "10.1111/ele.13085",
        "10.1007/s12080-020-00477-4",
    ]
    top = records[0]
    assert top.title == "The forecast trap"
    assert top.authors == (Author(family="Boettiger", given="Carl"),)
    # issued (2022-05-30) wins over published-print (2022-07).
    assert top.year == 2022
    assert (top.container, top.volume, top.issue, top.pages) == (
        "Ecology Letters",
        "25",
        "7",
        "1655-1664",
    )
    assert top.identifiers.issn == ("1461-023X", "1461-0248")
    assert top.type is WorkType.ARTICLE
    last = records[2]
    # issued 2020 although published-print is 2021: the year Crossref calls "issued".
    assert last.year == 2020
    assert last.container == "Theoretical Ecology"
    assert last.pages == "663-671"


def test_select_sample_without_issued_or_type_falls_back_and_leaves_retraction_unknown() -> None:
    request = HttpRequest(
        path="/works",
        params=(("query", "ecology"), ("rows", "3"), ("select", "DOI,title,author,published")),
    )
    records = ADAPTER.parse(request, load_sample("crossref", "works_query_select.json"))
    assert [r.title for r in records] == [
        "Communicating Ecology",
        "Fire Ecology",
        "Ecosystem Ecology",
    ]
    # No "issued" in this projection: the year comes from "published".
    assert [r.year for r in records] == [2022, 2012, 2018]
    assert records[2].authors == (Author(family="Moore", given="J.C."),)
    assert {r.type for r in records} == {WorkType.UNKNOWN}
    # updated-by was not selected, so the answer says nothing about retraction.
    assert {r.retracted for r in records} == {None}


def test_irrelevant_top_hit_sample_is_returned_for_the_caller_to_reject() -> None:
    record = parse_one(load_sample("crossref", "works_query_irrelevant_top_hit.json"), SEARCH)
    assert record.title == "Andy Warhol"
    assert record.authors == (Author(family="Knecht", given="Johannes Vincent"),)
    assert record.year == 2021
    assert record.type is WorkType.CHAPTER
    assert record.container == "Joseph Beuys-Handbuch"
    assert record.pages == "220-222"
    assert record.identifiers.isbn == ("9783476057914", "9783476057921")


def test_no_results_sample_is_an_empty_answer() -> None:
    assert ADAPTER.parse(SEARCH, load_sample("crossref", "works_query_no_results.json")) == []


@pytest.mark.parametrize(
    ("filename", "request_", "status", "detail"),
    [
        ("error_field_query_on_doi_route.json", DOI_LOOKUP, 400, "parameter-not-allowed"),
        ("error_rows_invalid.json", SEARCH, 400, "integer-not-valid"),
        # A JSON 404 is a failed request, never the text/plain "no such DOI".
        ("error_cursor_invalid.json", SEARCH, 404, "cursor-invalid"),
        ("error_cursor_invalid.json", DOI_LOOKUP, 404, "cursor-invalid"),
        # The engine handles 429 before parse; should one reach parse, it is no answer.
        ("error_429_html.quoted.html", SEARCH, 429, "HTTP 429"),
    ],
)
def test_error_samples_raise_unexpected_status(
    filename: str, request_: HttpRequest, status: int, detail: str
) -> None:
    with pytest.raises(UnexpectedStatus, match=detail) as raised:
        ADAPTER.parse(request_, load_sample("crossref", filename))
    assert raised.value.http_status == status


COVERED = {
    "works_doi.json",
    "works_doi_not_found.txt",
    "works_query.json",
    "works_query_author.json",
    "works_query_select.json",
    "works_query_irrelevant_top_hit.json",
    "works_query_no_results.json",
    "error_field_query_on_doi_route.json",
    "error_rows_invalid.json",
    "error_cursor_invalid.json",
    "error_429_html.quoted.html",
}


def test_every_recorded_crossref_sample_is_covered() -> None:
    load_sample("crossref", "works_doi.json")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "crossref").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- "not found" and malformed answers ------------------------------------------------


def test_plain_text_404_on_the_search_route_is_not_read_as_not_found() -> None:
    response = HttpResponse(404, b"Resource not found.", {"content-type": "text/plain"})
    with pytest.raises(UnexpectedStatus):
        ADAPTER.parse(SEARCH, response)


def test_truncated_json_is_malformed() -> None:
    body = load_sample("crossref", "works_doi.json").body
    truncated = HttpResponse(200, body[: len(body) // 2], {"content-type": "application/json"})
    with pytest.raises(MalformedResponse, match="not JSON"):
        ADAPTER.parse(DOI_LOOKUP, truncated)


def test_html_page_with_200_is_malformed() -> None:
    page = HttpResponse(
        200, b"<html><body><h1>Maintenance</h1></body></html>", {"content-type": "text/html"}
    )
    with pytest.raises(MalformedResponse, match="text/html"):
        ADAPTER.parse(SEARCH, page)


@pytest.mark.parametrize(
    "body",
    [
        {"status": "failed", "message-type": "validation-failure", "message": []},
        {"status": "ok", "message-type": "work-agency", "message": {"DOI": "10.1/x"}},
        {"status": "ok", "message-type": "work-list", "message": {"total-results": 3}},
        {"status": "ok", "message-type": "work-list", "message": {"items": ["10.1/x"]}},
        {"status": "ok", "message-type": "work", "message": {"title": ["No DOI"]}},
        ["not", "an", "envelope"],
    ],
)
def test_wrong_shapes_in_a_200_are_malformed(body: Any) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(SEARCH, json_response(body))


# --- fields built by hand -------------------------------------------------------------


def test_markup_is_stripped_from_titles_and_subtitle_joined() -> None:
    record = parse_one(
        work(
            title=[
                "Effects of CO<sub>2</sub> on <i>Drosophila</i> &amp; "
                '<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mi>α</mml:mi>'
                '<mml:annotation encoding="application/x-tex">\\alpha</mml:annotation>'
                "</mml:math>-cells"
            ],
            subtitle=["A <scp>field</scp> study"],
        )
    )
    assert record.title == "Effects of CO2 on Drosophila & α-cells: A field study"


def test_entity_escaped_markup_and_comparisons_in_titles() -> None:
    record = parse_one(work(title=["Growth of &lt;i&gt;E. coli&lt;/i&gt; at p &lt; 0.05"]))
    assert record.title == "Growth of E. coli at p < 0.05"


def test_subtitle_already_in_the_title_is_not_repeated() -> None:
    record = parse_one(work(title=["Deep learning: a review"], subtitle=["A review"]))
    assert record.title == "Deep learning: a review"
    question = parse_one(work(title=["Is it real?"], subtitle=["Checking citations"]))
    assert question.title == "Is it real? Checking citations"


def test_corporate_and_partial_authors() -> None:
    record = parse_one(
        work(
            author=[
                {"name": "WHO Collaborative Group", "sequence": "first", "affiliation": []},
                {"given": "Ana", "family": "García Márquez", "sequence": "additional"},
                {"family": "Plato", "sequence": "additional"},
                {"given": "Jan van der Berg", "sequence": "additional"},
                "not an author",
            ]
        )
    )
    assert record.authors == (
        Author(literal="WHO Collaborative Group"),
        Author(family="García Márquez", given="Ana"),
        Author(family="Plato"),
        Author(family="van der Berg", given="Jan"),
    )


def test_null_date_parts_fall_back_to_the_next_date() -> None:
    record = parse_one(
        work(
            issued={"date-parts": [[None]]},
            **{
                "published-print": {"date-parts": [[2015, 4]]},
                "published": {"date-parts": [[2014]]},
            },
        )
    )
    assert record.year == 2015
    assert parse_one(work(issued={"date-parts": [[None]]})).year is None


@pytest.mark.parametrize(
    ("crossref_type", "expected"),
    [
        ("journal-article", WorkType.ARTICLE),
        ("book", WorkType.BOOK),
        ("monograph", WorkType.BOOK),
        ("edited-book", WorkType.BOOK),
        ("reference-book", WorkType.BOOK),
        ("book-chapter", WorkType.CHAPTER),
        ("reference-entry", WorkType.CHAPTER),
        ("proceedings-article", WorkType.PROCEEDINGS),
        ("posted-content", WorkType.PREPRINT),
        ("dissertation", WorkType.THESIS),
        ("report", WorkType.REPORT),
        ("dataset", WorkType.OTHER),
        ("peer-review", WorkType.OTHER),
    ],
)
def test_type_mapping(crossref_type: str, expected: WorkType) -> None:
    assert parse_one(work(type=crossref_type)).type is expected


def test_doi_is_kept_as_registered_and_isbn_issn_kept() -> None:
    # Crossref registers DOIs: its case is the DOI's, and corrections show it so
    # (comparisons normalise case, see verifier.identifiers.normalize_doi).
    record = parse_one(
        work(DOI="10.1016/S0140-6736(97)11096-0", ISBN=["978-0-19-983006-0"], ISSN=["0140-6736"])
    )
    assert record.identifiers == Identifiers(
        doi="10.1016/S0140-6736(97)11096-0", isbn=("978-0-19-983006-0",), issn=("0140-6736",)
    )
    assert record.source_id == "10.1016/S0140-6736(97)11096-0"
    assert record.url == "https://doi.org/10.1016/S0140-6736(97)11096-0"


# --- retraction and update notices (shapes from apis.md: Wakefield 1998) ---------------

RETRACTION_NOTICE_DOI = "10.1016/S0140-6736(10)60175-4"


def updated_by(kind: str, source: str = "publisher") -> dict[str, Any]:
    return {
        "DOI": RETRACTION_NOTICE_DOI,
        "type": kind,
        "label": kind.replace("_", " ").title(),
        "source": source,
        "updated": {
            "date-parts": [[2010, 2, 2]],
            "date-time": "2010-02-02T00:00:00Z",
            "timestamp": 1265068800000,
        },
    }


def original(
    *updates: dict[str, Any], title: str = "Ileal-lymphoid-nodular hyperplasia"
) -> HttpResponse:
    return work(
        DOI="10.1016/S0140-6736(97)11096-0",
        title=[title],
        type="journal-article",
        **{"updated-by": list(updates)},
    )


def test_original_with_a_retraction_in_updated_by_is_retracted() -> None:
    record = parse_one(
        original(updated_by("retraction"), updated_by("retraction", "retraction-watch"))
    )
    assert record.retracted is True
    assert record.notices == ()


@pytest.mark.parametrize(
    "kind", ["partial_retraction", "Partial-Retraction", "WITHDRAWAL", "removal"]
)
def test_retraction_kinds_compare_case_insensitively_with_either_separator(kind: str) -> None:
    assert parse_one(original(updated_by(kind))).retracted is True


def test_other_updates_are_notices_not_retractions() -> None:
    record = parse_one(
        original(
            updated_by("correction"),
            updated_by("expression-of-concern", "retraction-watch"),
            updated_by("Expression_of_Concern"),
            updated_by("new_version"),
        )
    )
    assert record.retracted is False
    assert record.notices == ("correction", "expression_of_concern", "new_version")


def test_retraction_alongside_a_correction_keeps_both() -> None:
    record = parse_one(original(updated_by("erratum"), updated_by("retraction")))
    assert record.retracted is True
    assert record.notices == ("erratum",)


def test_the_retraction_notice_itself_is_not_retracted() -> None:
    notice = work(
        DOI=RETRACTION_NOTICE_DOI,
        title=["Retraction—Ileal-lymphoid-nodular hyperplasia"],
        type="journal-article",
        **{"update-to": [{**updated_by("retraction"), "DOI": "10.1016/s0140-6736(97)11096-0"}]},
    )
    record = parse_one(notice)
    assert record.retracted is False
    assert record.notices == ()


def test_retracted_title_prefix_marks_and_is_stripped() -> None:
    record = parse_one(original(title="RETRACTED: Ileal-lymphoid-nodular hyperplasia"))
    assert record.retracted is True
    assert record.title == "Ileal-lymphoid-nodular hyperplasia"
    springer = parse_one(original(title="RETRACTED ARTICLE: Cell growth"))
    assert (springer.title, springer.retracted) == ("Cell growth", True)


def test_no_updates_means_not_retracted() -> None:
    assert parse_one(original()).retracted is False


def test_retraction_is_unknown_when_select_left_updated_by_out() -> None:
    request = HttpRequest(path="/works", params=(("select", "DOI,title,author"),))
    assert parse_one(original(), request).retracted is None
    # A RETRACTED: prefix is evidence even then.
    prefixed = original(title="RETRACTED: Something")
    assert parse_one(prefixed, request).retracted is True
    # The adapter's own search selects updated-by, so its answers are definite.
    own = ADAPTER.search_request(Citation(title="Ileal hyperplasia"), POLITE)
    assert own is not None
    assert parse_one(original(), own).retracted is False


# --- rate headers ---------------------------------------------------------------------


def test_rate_hint_public_pool() -> None:
    hint = ADAPTER.rate_hint(load_sample("crossref", "works_doi.json"))
    assert hint is not None
    assert (hint.request_class, hint.limit, hint.interval_s, hint.concurrency, hint.pool) == (
        "single",
        5.0,
        1.0,
        1,
        "public",
    )
    assert (hint.remaining, hint.reset_s) == (None, None)


def test_rate_hint_polite_pool() -> None:
    hint = ADAPTER.rate_hint(load_sample("crossref", "works_query_author.json"))
    assert hint is not None
    assert (hint.limit, hint.interval_s, hint.concurrency, hint.pool) == (10.0, 1.0, 3, "polite")


def test_rate_hint_plus_pool_spelled_x_rate_limit() -> None:
    hint = ADAPTER.rate_hint(load_sample("crossref", "works_query_irrelevant_top_hit.json"))
    assert hint is not None
    assert (hint.limit, hint.interval_s, hint.concurrency, hint.pool) == (150.0, 1.0, None, "plus")
    other = ADAPTER.rate_hint(load_sample("crossref", "works_query_no_results.json"))
    assert other is not None
    assert (other.limit, other.pool) == (150.0, "plus")


def test_rate_hint_absent_on_the_html_429() -> None:
    assert ADAPTER.rate_hint(load_sample("crossref", "error_429_html.quoted.html")) is None
    assert ADAPTER.rate_hint(HttpResponse(200, b"{}", {})) is None


def test_rate_hint_interval_units() -> None:
    hint = ADAPTER.rate_hint(
        HttpResponse(200, b"", {"x-rate-limit-limit": "2", "x-rate-limit-interval": "500ms"})
    )
    assert hint is not None
    assert (hint.limit, hint.interval_s, hint.concurrency) == (2.0, 0.5, None)


# --- registry -------------------------------------------------------------------------


def test_adapter_for_known_and_unknown_names() -> None:
    assert isinstance(adapter_for("crossref"), CrossrefAdapter)
    assert isinstance(adapter_for(" OpenAlex "), OpenAlexAdapter)
    with pytest.raises(ValueError, match="unknown source 'crossreff'.*crossref, openalex"):
        adapter_for("crossreff")


def test_registry_names_are_unique_and_exports_sorted() -> None:
    import adapters

    names = [adapter.name for adapter in ADAPTERS]
    assert len(names) == len(set(names))
    assert adapters.__all__ == sorted(adapters.__all__)
    assert all(hasattr(adapters, name) for name in adapters.__all__)
