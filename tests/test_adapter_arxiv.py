"""ArxivAdapter: requests it builds, and parsing of every recorded arXiv API response.

The withdrawn comment, the empty-feed glitch, the plain-text throttling body and the
namespace-prefix variants are built by hand from apis.md section 8.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from recorded import SAMPLES, load_sample

from adapters.arxiv import ArxivAdapter
from adapters.base import Identity
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, RateLimited, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = ArxivAdapter()
BASE = "https://export.arxiv.org/api"
LOOKUP = HttpRequest(path="/query", params=(("id_list", "1707.08567"),), request_class="single")
SEARCH = HttpRequest(path="/query", params=(("search_query", 'ti:"testing"'),))

ATOM = "http://www.w3.org/2005/Atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"
ARXIV = "http://arxiv.org/schemas/atom"


def feed(entries: str = "", total: int | None = None, status: int = 200) -> HttpResponse:
    """A 2026-style feed around hand-built entries."""
    count = entries.count("<entry>") if total is None else total
    body = f"""<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns:opensearch="{OPENSEARCH}" xmlns:arxiv="{ARXIV}" xmlns="{ATOM}">
  <id>https://arxiv.org/api/hand-built</id>
  <title>arXiv Query: hand-built</title>
  <opensearch:itemsPerPage>5</opensearch:itemsPerPage>
  <opensearch:totalResults>{count}</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  {entries}
</feed>"""
    return HttpResponse(status, body.encode(), {"content-type": "application/atom+xml"})


def entry(comment: str = "", title: str = "A hand-built preprint") -> str:
    return f"""<entry>
    <id>http://arxiv.org/abs/2101.00001v3</id>
    <title>{title}</title>
    <published>2021-01-01T00:00:01Z</published>
    <link href="https://arxiv.org/abs/2101.00001v3" rel="alternate" type="text/html"/>
    <arxiv:comment>{comment}</arxiv:comment>
    <author><name>Ada Lovelace</name></author>
  </entry>"""


def parse_one(response: HttpResponse, request: HttpRequest = LOOKUP) -> WorkRecord:
    records = ADAPTER.parse(request, response)
    assert len(records) == 1
    return records[0]


# --- requests -------------------------------------------------------------------------


def test_lookup_by_arxiv_id_keeps_the_version_and_sends_no_identity() -> None:
    citation = Citation(identifiers=Identifiers(arxiv="1706.03762v5"))
    request = ADAPTER.lookup_request(citation, Identity(mailto="you@example.org", api_key="k"))
    assert request is not None
    assert request.path == "/query"
    assert request.request_class == "single"
    assert request.params == (("id_list", "1706.03762v5"), ("max_results", "1"))
    assert request.identity_params == ()
    assert request.headers == ()
    assert request.url(BASE) == f"{BASE}/query?id_list=1706.03762v5&max_results=1"


def test_lookup_by_old_style_id_and_by_arxiv_doi() -> None:
    old = ADAPTER.lookup_request(
        Citation(identifiers=Identifiers(arxiv="arXiv:astro-ph/0601001")), Identity()
    )
    assert old is not None
    assert dict(old.params)["id_list"] == "astro-ph/0601001"
    doi = Citation(identifiers=Identifiers(doi="https://doi.org/10.48550/arXiv.1707.08567"))
    by_doi = ADAPTER.lookup_request(doi, Identity())
    assert by_doi is not None
    assert by_doi.params == (("id_list", "1707.08567"), ("max_results", "1"))


def test_no_lookup_without_a_usable_arxiv_id() -> None:
    assert ADAPTER.lookup_request(Citation(title="Attention"), Identity()) is None
    publisher_doi = Citation(identifiers=Identifiers(doi="10.1109/ICSTW55395.2022.00035"))
    assert ADAPTER.lookup_request(publisher_doi, Identity()) is None
    # A malformed id would only earn a 400 error feed.
    assert (
        ADAPTER.lookup_request(Citation(identifiers=Identifiers(arxiv="abc")), Identity()) is None
    )


def test_search_request_quotes_the_title_and_names_the_first_author() -> None:
    citation = Citation(
        title='Testing Deep Learning Models: A "First" Comparative Study (of Multiple) '
        "Testing Techniques",
        authors=(Author(family="Ahuja", given="M. K."), Author(family="Gotlieb", given="A.")),
    )
    request = ADAPTER.search_request(citation, Identity(mailto="you@example.org"))
    assert request is not None
    assert request.path == "/query"
    assert request.request_class == "list"
    assert request.identity_params == ()
    params = dict(request.params)
    assert params["search_query"] == (
        'ti:"testing deep learning models a first comparative study of multiple testing '
        'techniques" AND au:ahuja'
    )
    assert (params["max_results"], params["sortBy"]) == ("5", "relevance")
    query = dict(parse_qsl(urlsplit(request.url(BASE)).query))
    assert query["search_query"] == params["search_query"]


def test_search_author_with_particles_and_accents_and_operator_words_in_titles() -> None:
    citation = Citation(
        title="Learning-to-Rank AND Explainability OR Not",
        authors=(Author(literal="The Team"), Author(family="van der Sommen", given="Fons")),
    )
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    assert dict(request.params)["search_query"] == (
        'ti:"learning to rank and explainability or not" AND au:van_der_sommen'
    )
    accented = Citation(title="Towards Explainable TCP", authors=(Author(family="Ramírez"),))
    request = ADAPTER.search_request(accented, Identity())
    assert request is not None
    assert dict(request.params)["search_query"].endswith(" AND au:ramirez")


def test_search_without_author_is_title_only_and_none_without_a_title() -> None:
    request = ADAPTER.search_request(Citation(title="Active Fuzzing"), Identity())
    assert request is not None
    assert dict(request.params)["search_query"] == 'ti:"active fuzzing"'
    cited = Citation(authors=(Author(family="Chen", given="Y."),), year=2020)
    assert ADAPTER.search_request(cited, Identity()) is None
    assert ADAPTER.search_request(Citation(title=' "" () '), Identity()) is None


# --- recorded responses ---------------------------------------------------------------


def test_query_search_sample_entries_with_doi_and_journal_ref() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("arxiv", "query_search.xml"))
    assert [r.source_id for r in records] == ["2202.12139v1", "2405.13786v1", "2005.14124v2"]
    first = records[0]
    assert first.source == "arxiv"
    assert first.title == (
        "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
    )
    assert first.authors == (
        Author(family="Ahuja", given="Mohit Kumar"),
        Author(family="Gotlieb", given="Arnaud"),
        Author(family="Spieker", given="Helge"),
    )
    assert first.year == 2022
    assert first.container.startswith("Artificial Intelligence in Software Testing @ 2022 IEEE")
    assert first.identifiers == Identifiers(doi="10.1109/icstw55395.2022.00035", arxiv="2202.12139")
    assert first.url == "https://arxiv.org/abs/2202.12139v1"
    assert first.type is WorkType.PREPRINT
    assert first.retracted is None
    assert first.open_access is True
    second = records[1]
    assert second.authors[0] == Author(family="Ramírez", given="Aurora")
    assert second.year == 2024
    assert second.identifiers.doi == "10.1109/icstw58534.2023.00023"
    third = records[2]
    # Year of the first version (published), not of the v2 update.
    assert third.year == 2020
    assert third.identifiers.arxiv == "2005.14124"
    assert third.identifiers.doi == "10.1145/3395363.3397376"
    assert {r.notices for r in records} == {()}


def test_id_list_lookup_sample() -> None:
    record = parse_one(load_sample("arxiv", "id_list_lookup.xml"))
    assert record.source_id == "1707.08567v1"
    assert record.identifiers == Identifiers(arxiv="1707.08567")
    assert record.title == (
        "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"
    )
    assert len(record.authors) == 34
    assert record.authors[0] == Author(family="Immink", given="Kees A. Schouhamer")
    assert record.authors[4] == Author(family="de With", given="Peter H. N.")
    assert record.authors[-2] == Author(family="Wübben", given="Dirk")
    assert record.year == 2017
    assert record.container == ""
    assert record.url == "https://arxiv.org/abs/1707.08567v1"


def test_id_list_lookup_old_style_sample() -> None:
    record = parse_one(load_sample("arxiv", "id_list_lookup_old_style.xml"))
    assert record.source_id == "astro-ph/0601001v1"
    assert record.identifiers.arxiv == "astro-ph/0601001"
    assert record.title == (
        "Frequency of Hot Jupiters and Very Hot Jupiters from the OGLE-III Transit Surveys "
        "Toward the Galactic Bulge and Carina"
    )
    assert [a.family for a in record.authors] == ["Gould", "Dorsher", "Gaudi", "Udalski"]
    assert record.authors[2] == Author(family="Gaudi", given="B. Scott")
    assert record.year == 2006
    assert record.container == "ActaAstron.56:1-50,2006"
    assert record.identifiers.doi is None


def test_id_list_partial_sample_returns_the_known_id_only() -> None:
    request = HttpRequest(path="/query", params=(("id_list", "0808.05394,1707.08567"),))
    record = parse_one(load_sample("arxiv", "id_list_partial.xml"), request)
    assert record.identifiers.arxiv == "1707.08567"
    assert record.authors[-1] == Author(family="Yamamoto", given="Hirosuke")


def test_id_list_not_found_sample_is_an_empty_answer() -> None:
    assert ADAPTER.parse(LOOKUP, load_sample("arxiv", "id_list_not_found.xml")) == []


def test_error_bad_id_sample_is_unexpected_status_with_arxivs_message() -> None:
    response = load_sample("arxiv", "error_bad_id.xml")
    assert response.status == 400
    with pytest.raises(UnexpectedStatus, match="incorrect id format for abc") as raised:
        ADAPTER.parse(LOOKUP, response)
    assert raised.value.http_status == 400


def test_error_entry_inside_a_200_is_malformed() -> None:
    bad = load_sample("arxiv", "error_bad_id.xml")
    with pytest.raises(MalformedResponse, match="incorrect id format for abc"):
        ADAPTER.parse(LOOKUP, HttpResponse(200, bad.body, bad.headers))


COVERED = {
    "error_bad_id.xml",
    "id_list_lookup.xml",
    "id_list_lookup_old_style.xml",
    "id_list_not_found.xml",
    "id_list_partial.xml",
    "query_search.xml",
}


def test_every_recorded_arxiv_sample_is_covered() -> None:
    load_sample("arxiv", "query_search.xml")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "arxiv").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- built by hand --------------------------------------------------------------------


def test_title_line_breaks_collapse_and_latex_is_kept() -> None:
    title = "Bounds on $\\alpha_s$ for\n      $N &lt; 100$   and  $x^{2}$"
    record = parse_one(feed(entry(title=title)))
    assert record.title == "Bounds on $\\alpha_s$ for $N < 100$ and $x^{2}$"
    assert record.authors == (Author(family="Lovelace", given="Ada"),)
    assert record.year == 2021
    assert record.source_id == "2101.00001v3"
    assert record.identifiers.arxiv == "2101.00001"


def test_withdrawn_comment_is_a_notice() -> None:
    record = parse_one(
        feed(entry(comment="This paper has been withdrawn by the author due to an error"))
    )
    assert record.notices == ("withdrawn",)
    assert record.retracted is None
    assert record.notice_for is None
    plain = parse_one(feed(entry(comment="12 pages, 3 figures")))
    assert plain.notices == ()


def test_other_namespace_prefixes_and_attribute_order_read_the_same() -> None:
    body = f"""<?xml version="1.0" encoding="UTF-8"?>
<atom:feed xmlns:atom="{ATOM}" xmlns:os="{OPENSEARCH}" xmlns:ax="{ARXIV}">
  <os:totalResults>1</os:totalResults>
  <atom:entry>
    <atom:id>http://arxiv.org/abs/hep-th/9901001v2</atom:id>
    <atom:title>Old-style paper</atom:title>
    <atom:published>1999-01-04T00:00:00Z</atom:published>
    <atom:link type="text/html" rel="alternate" href="https://arxiv.org/abs/hep-th/9901001v2"/>
    <atom:author><atom:name>Juan Maldacena</atom:name></atom:author>
    <ax:doi>10.1023/A:1026654312961</ax:doi>
    <ax:journal_ref>Int.J.Theor.Phys.38:1113-1133,1999</ax:journal_ref>
  </atom:entry>
</atom:feed>"""
    record = parse_one(HttpResponse(200, body.encode(), {"content-type": "application/atom+xml"}))
    assert record.identifiers == Identifiers(doi="10.1023/a:1026654312961", arxiv="hep-th/9901001")
    assert record.url == "https://arxiv.org/abs/hep-th/9901001v2"
    assert record.container == "Int.J.Theor.Phys.38:1113-1133,1999"
    assert record.authors == (Author(family="Maldacena", given="Juan"),)


def test_empty_feed_claiming_results_is_malformed_so_the_engine_retries() -> None:
    with pytest.raises(MalformedResponse, match="claims 7 results"):
        ADAPTER.parse(SEARCH, feed(total=7))


def test_empty_feed_with_zero_results_is_not_found() -> None:
    assert ADAPTER.parse(SEARCH, feed(total=0)) == []


@pytest.mark.parametrize("status", [200, 429])
def test_plain_text_rate_exceeded_is_rate_limited(status: int) -> None:
    response = HttpResponse(status, b"Rate exceeded.", {"content-type": "text/plain"})
    with pytest.raises(RateLimited, match="Rate exceeded"):
        ADAPTER.parse(SEARCH, response)


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"Service temporarily unavailable",
        b"<feed xmlns='http://www.w3.org/2005/Atom'><entry>",
        b"<html><body>Maintenance</body></html>",
        b"<feed xmlns='http://www.w3.org/2005/Atom'><entry><id>urn:x</id></entry></feed>",
    ],
)
def test_bodies_that_are_not_a_readable_feed_are_malformed(body: bytes) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(SEARCH, HttpResponse(200, body, {"content-type": "text/html"}))


@pytest.mark.parametrize("status", [400, 403, 404])
def test_other_client_errors_are_unexpected(status: int) -> None:
    with pytest.raises(UnexpectedStatus) as raised:
        ADAPTER.parse(SEARCH, HttpResponse(status, b"<html>Forbidden</html>", {}))
    assert raised.value.http_status == status
    with pytest.raises(UnexpectedStatus):
        ADAPTER.parse(SEARCH, feed(total=0, status=status))


def test_no_follow_up_and_no_rate_headers() -> None:
    response = load_sample("arxiv", "id_list_lookup.xml")
    assert ADAPTER.follow_up(LOOKUP, response) is None
    assert ADAPTER.rate_hint(response) is None
