"""GoogleBooksAdapter: requests it builds, and parsing of every recorded Google Books
response.

Both recordings date from 2017 and carry no headers. Error bodies follow the shapes
quoted in apis.md section 6 (no keyed error cassette exists); ``isbn:`` answers are the
recorded search read as if it had answered an ISBN query, plus hand-built volumes.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson
import pytest
from pure_modules import pure
from recorded import SAMPLES, load_sample

from adapters.base import Identity
from adapters.googlebooks import GoogleBooksAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = GoogleBooksAdapter()
BASE = "https://www.googleapis.com/books/v1"
KEYED = Identity(api_key="gb-secret")

SEARCH = HttpRequest(path="/volumes", params=(("q", "moby dick"),))
BY_ID = HttpRequest(path="/volumes/hgx0sJvphNkC", request_class="single")


def isbn_query(isbn: str) -> HttpRequest:
    return HttpRequest(path="/volumes", params=(("q", f"isbn:{isbn}"),), request_class="single")


def json_response(body: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(status, orjson.dumps(body), {"content-type": "application/json"})


def volume(volume_id: str, *identifiers: tuple[str, str], **info: Any) -> dict[str, Any]:
    """A hand-built volume with the given ``industryIdentifiers`` (type, identifier)."""
    return {
        "kind": "books#volume",
        "id": volume_id,
        "volumeInfo": {
            "title": f"Volume {volume_id}",
            "industryIdentifiers": [{"type": t, "identifier": i} for t, i in identifiers],
            **info,
        },
    }


def volumes(*items: dict[str, Any]) -> HttpResponse:
    return json_response({"kind": "books#volumes", "totalItems": len(items), "items": list(items)})


def google_error(status: int, message: str, reason: str) -> HttpResponse:
    error = {
        "code": status,
        "message": message,
        "errors": [{"message": message, "domain": "global", "reason": reason}],
    }
    return json_response({"error": error}, status)


def parse_one(response: HttpResponse, request: HttpRequest = SEARCH) -> WorkRecord:
    records = ADAPTER.parse(request, response)
    assert len(records) == 1
    return records[0]


# --- requests -------------------------------------------------------------------------


def test_lookup_request_is_an_isbn_query_with_the_key_out_of_the_cache_key() -> None:
    citation = Citation(identifiers=Identifiers(isbn=("9780141973869",)))
    request = ADAPTER.lookup_request(citation, KEYED)
    assert request is not None
    assert request.path == "/volumes"
    assert request.params == (("q", "isbn:9780141973869"),)
    assert request.request_class == "single"
    assert request.identity_params == (("key", "gb-secret"),)
    assert request.headers == ()
    assert "gb-secret" not in request.cache_key()
    assert request.url(BASE) == (
        "https://www.googleapis.com/books/v1/volumes?q=isbn%3A9780141973869&key=gb-secret"
    )


def test_lookup_request_normalises_a_hyphenated_isbn_and_skips_invalid_ones() -> None:
    citation = Citation(
        identifiers=Identifiers(isbn=("978-0-14-197386-8", "ISBN-10: 0-14-197386-2", "1439170916"))
    )
    request = ADAPTER.lookup_request(citation, KEYED)
    assert request is not None
    # The first ISBN has a wrong check digit; the first valid one is sent, as digits.
    assert request.params == (("q", "isbn:0141973862"),)


def test_no_lookup_without_a_valid_isbn() -> None:
    assert ADAPTER.lookup_request(Citation(title="Moby Dick"), KEYED) is None
    mistyped = Citation(identifiers=Identifiers(isbn=("0141973863",)))
    assert ADAPTER.lookup_request(mistyped, KEYED) is None


def test_without_a_key_no_identity_parameter_is_sent() -> None:
    citation = Citation(identifiers=Identifiers(isbn=("9780141973869",)))
    request = ADAPTER.lookup_request(citation, Identity())
    assert request is not None
    assert request.identity_params == ()
    assert "key=" not in request.url(BASE)


def test_search_request_quotes_main_title_and_author_family_name() -> None:
    citation = Citation(
        title="The Emperor of All Maladies: A Biography of Cancer",
        authors=(Author(family="Mukherjee", given="Siddhartha"), Author(family="Second")),
        year=2010,
    )
    request = ADAPTER.search_request(citation, KEYED)
    assert request is not None
    assert request.path == "/volumes"
    assert request.request_class == "list"
    assert request.params == (
        ("q", 'intitle:"The Emperor of All Maladies" inauthor:"Mukherjee"'),
        ("maxResults", "5"),
        ("printType", "books"),
    )
    assert request.identity_params == (("key", "gb-secret"),)
    assert "gb-secret" not in request.cache_key()
    url = request.url(BASE)
    assert urlsplit(url).query == (
        "q=intitle%3A%22The+Emperor+of+All+Maladies%22+inauthor%3A%22Mukherjee%22"
        "&maxResults=5&printType=books&key=gb-secret"
    )
    query = dict(parse_qsl(urlsplit(url).query))
    assert query["q"] == 'intitle:"The Emperor of All Maladies" inauthor:"Mukherjee"'


def test_search_request_removes_quotes_that_would_end_the_phrase() -> None:
    citation = Citation(
        title='The “Good” Life and "Other" Essays',
        authors=(Author(family='O"Brien'),),
    )
    request = ADAPTER.search_request(citation, KEYED)
    assert request is not None
    q = dict(request.params)["q"]
    assert q == 'intitle:"The Good Life and Other Essays" inauthor:"O Brien"'
    assert q.count('"') == 4


def test_search_request_keeps_a_colon_that_starts_no_subtitle() -> None:
    citation = Citation(title="Web 2.0:Principles", authors=(Author(family="Smith"),))
    request = ADAPTER.search_request(citation, KEYED)
    assert request is not None
    q = dict(request.params)["q"]
    assert q == 'intitle:"Web 2.0:Principles" inauthor:"Smith"'
    assert "intitle%3A%22Web+2.0%3APrinciples%22" in request.url(BASE)


def test_search_request_without_authors_adds_the_subtitle_words_unquoted() -> None:
    citation = Citation(title="Ethics: A Very Short Introduction - Revised: 2nd (ed.)")
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    # Unquoted words carry no ":" or leading "-" that Google would read as operators.
    assert dict(request.params)["q"] == 'intitle:"Ethics" A Very Short Introduction Revised 2nd ed'
    no_subtitle = ADAPTER.search_request(Citation(title="Moby Dick"), Identity())
    assert no_subtitle is not None
    assert dict(no_subtitle.params)["q"] == 'intitle:"Moby Dick"'


def test_search_request_with_an_organisation_as_author() -> None:
    citation = Citation(
        title="World report on ageing and health",
        authors=(Author(literal="World Health Organization"),),
    )
    request = ADAPTER.search_request(citation, KEYED)
    assert request is not None
    assert dict(request.params)["q"] == (
        'intitle:"World report on ageing and health" inauthor:"World Health Organization"'
    )


def test_no_search_without_a_title() -> None:
    assert ADAPTER.search_request(Citation(authors=(Author(family="Melville"),)), KEYED) is None
    assert ADAPTER.search_request(Citation(title=' " '), KEYED) is None


def test_no_rate_hint_google_books_sends_none() -> None:
    assert ADAPTER.rate_hint(load_sample("googlebooks", "volumes_search.json")) is None


# --- recorded responses ---------------------------------------------------------------


def test_search_sample_four_volumes() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("googlebooks", "volumes_search.json"))
    assert [r.source_id for r in records] == [
        "t1Ts8MjApokC",
        "XV8XAAAAYAAJ",
        "cYKYYypj8UAC",
        "jnNBh61lpjUC",
    ]
    penguin, harvard, abdo, scholarly = records
    assert penguin.source == "googlebooks"
    assert penguin.title == "Moby-Dick"
    assert penguin.authors == (Author(family="Melville", given="Herman"),)
    assert penguin.year == 2012  # publishedDate "2012-04-26"
    assert penguin.publisher == "Penguin UK"
    assert penguin.type is WorkType.BOOK
    assert penguin.identifiers == Identifiers(isbn=("9780141973869", "0141973862"))
    assert penguin.retracted is None
    # canonicalVolumeLink is a market.android.com address, infoLink a Play Store page.
    assert penguin.url == "https://books.google.com/books?id=t1Ts8MjApokC"
    # A digitised 1892 edition: year-only date, only a library scan id ("OTHER").
    assert (harvard.title, harvard.year, harvard.publisher) == (
        "Moby Dick",
        1892,
        "Starbooks Classics",
    )
    assert harvard.identifiers.isbn == ()
    # An adapter listed before the author.
    assert abdo.authors == (
        Author(family="Fields", given="Jan"),
        Author(family="Melville", given="Herman"),
    )
    assert abdo.year == 2010
    assert abdo.identifiers.isbn == ("9781603033749", "1603033742")  # ISBN-13 first
    assert abdo.url == "https://books.google.com/books/about/Moby_Dick.html?hl=&id=cYKYYypj8UAC"
    # Subtitle joined; editors listed as authors.
    assert scholarly.title == "Moby Dick, Or The Whale: Volume 6, Scholarly Edition"
    assert [a.family for a in scholarly.authors] == ["Melville", "Hayford", "Parker", "Tanselle"]
    assert scholarly.authors[3] == Author(family="Tanselle", given="G. Thomas")
    assert (scholarly.year, scholarly.publisher) == (1988, "Northwestern University Press")


def test_volume_by_id_sample_is_one_record() -> None:
    record = parse_one(load_sample("googlebooks", "volume_by_id.json"), BY_ID)
    assert record.source_id == "hgx0sJvphNkC"
    assert record.url == "https://books.google.com/books?id=hgx0sJvphNkC"
    assert record.title == "The Emperor of All Maladies: A Biography of Cancer"
    assert record.authors == (Author(family="Mukherjee", given="Siddhartha"),)
    assert record.year == 2011
    assert record.publisher == "Simon and Schuster"
    assert record.type is WorkType.BOOK
    assert record.identifiers == Identifiers(isbn=("9781439170915", "1439170916"))


COVERED = {"volumes_search.json", "volume_by_id.json"}


def test_every_recorded_googlebooks_sample_is_covered() -> None:
    load_sample("googlebooks", "volume_by_id.json")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "googlebooks").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- the fuzzy isbn: query ------------------------------------------------------------


@pytest.mark.parametrize(
    ("queried", "kept"),
    [
        ("9780810102699", "jnNBh61lpjUC"),
        ("0810102692", "jnNBh61lpjUC"),  # an ISBN-10 query finds the ISBN-13 too
        ("0141973862", "t1Ts8MjApokC"),
        ("978-1-60303-374-9", "cYKYYypj8UAC"),
    ],
)
def test_isbn_answer_keeps_only_the_volume_with_that_isbn(queried: str, kept: str) -> None:
    records = ADAPTER.parse(isbn_query(queried), load_sample("googlebooks", "volumes_search.json"))
    assert [r.source_id for r in records] == [kept]


def test_isbn_answer_without_the_isbn_is_not_found() -> None:
    # q=isbn:9780000000000 returned three unrelated books (apis.md): none is the answer.
    sample = load_sample("googlebooks", "volumes_search.json")
    assert ADAPTER.parse(isbn_query("9780000000000"), sample) == []


def test_isbn_filter_compares_isbn10_and_isbn13_forms_by_hand() -> None:
    response = volumes(
        volume("near", ("ISBN_13", "9780141973876")),  # one digit off: the "nearest" book
        volume("scan", ("OTHER", "HARVARD:HN1E4C")),
        volume("x-check", ("ISBN_10", "207042779X")),
        volume("thirteen", ("ISBN_13", "9782070427796")),
        volume("none"),
    )
    by_ten = ADAPTER.parse(isbn_query("207042779x"), response)
    assert [r.source_id for r in by_ten] == ["x-check", "thirteen"]
    by_thirteen = ADAPTER.parse(isbn_query("9782070427796"), response)
    assert [r.source_id for r in by_thirteen] == ["x-check", "thirteen"]


def test_search_answers_are_not_filtered_by_isbn() -> None:
    response = volumes(volume("a", ("ISBN_13", "9780141973869")), volume("b"))
    assert [r.source_id for r in ADAPTER.parse(SEARCH, response)] == ["a", "b"]


def test_own_lookup_request_filters_its_answer() -> None:
    citation = Citation(identifiers=Identifiers(isbn=("978-1-4391-7091-5",)))
    request = ADAPTER.lookup_request(citation, KEYED)
    assert request is not None
    response = volumes(
        volume("other", ("ISBN_13", "9780141973869")),
        volume("hgx0sJvphNkC", ("ISBN_10", "1439170916")),
    )
    assert [r.source_id for r in ADAPTER.parse(request, response)] == ["hgx0sJvphNkC"]


# --- "not found", errors and malformed answers ----------------------------------------


def test_no_matches_omits_items() -> None:
    assert ADAPTER.parse(SEARCH, json_response({"kind": "books#volumes", "totalItems": 0})) == []
    assert ADAPTER.parse(isbn_query("9780141973869"), json_response({"totalItems": 0})) == []


@pytest.mark.parametrize(
    ("response", "status", "detail"),
    [
        (
            google_error(400, "API key not valid. Please pass a valid API key.", "badRequest"),
            400,
            r"API key not valid\. Please pass a valid API key\. \[badRequest\]",
        ),
        (google_error(400, "Missing query.", "required"), 400, r"Missing query\. \[required\]"),
        (google_error(403, "Daily Limit Exceeded", "dailyLimitExceeded"), 403, "Daily Limit"),
        (google_error(403, "Cannot determine user location", "unknownLocation"), 403, "location"),
        # The engine handles 429 before parse; should one reach parse, it is no answer.
        (
            google_error(429, "Quota exceeded for quota metric 'Queries'", "rateLimitExceeded"),
            429,
            "rateLimitExceeded",
        ),
        (HttpResponse(404, b"<html>Not Found</html>", {"content-type": "text/html"}), 404, "404"),
    ],
)
def test_error_statuses_raise_unexpected_status_with_the_message(
    response: HttpResponse, status: int, detail: str
) -> None:
    with pytest.raises(UnexpectedStatus, match=detail) as raised:
        ADAPTER.parse(SEARCH, response)
    assert raised.value.http_status == status


def test_error_without_message_or_reasons_names_the_status_only() -> None:
    with pytest.raises(UnexpectedStatus, match=r"^googlebooks: HTTP 400$"):
        ADAPTER.parse(SEARCH, json_response({"error": {"code": 400}}, 400))


def test_error_inside_a_200_is_malformed() -> None:
    body = {"error": {"code": 400, "message": "Invalid value", "errors": []}}
    with pytest.raises(MalformedResponse, match="Invalid value"):
        ADAPTER.parse(SEARCH, json_response(body))


def test_non_json_and_truncated_bodies_in_a_200_are_malformed() -> None:
    page = HttpResponse(200, b"<html><body>Sorry...</body></html>", {"content-type": "text/html"})
    with pytest.raises(MalformedResponse, match="text/html"):
        ADAPTER.parse(SEARCH, page)
    body = load_sample("googlebooks", "volume_by_id.json").body
    truncated = HttpResponse(200, body[:100], {"content-type": "application/json"})
    with pytest.raises(MalformedResponse, match="not JSON"):
        ADAPTER.parse(BY_ID, truncated)


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "books#volumes", "totalItems": 1, "items": {"id": "x"}},
        {"kind": "books#volumes", "totalItems": 1, "items": ["x"]},
        {"kind": "books#volumes", "totalItems": 1, "items": [{"id": "x"}]},
        {"kind": "books#volumes", "totalItems": 1, "items": [{"volumeInfo": {"title": "T"}}]},
        {"kind": "books#bookshelf", "title": "Favorites"},
        ["not", "an", "object"],
    ],
)
def test_wrong_shapes_in_a_200_are_malformed(body: Any) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(SEARCH, json_response(body))


# --- fields built by hand -------------------------------------------------------------


def test_magazine_is_other_with_its_issn() -> None:
    magazine = volume(
        "mag",
        ("ISSN", "0028-0836"),
        ("OTHER", "STANFORD:36105"),
        printType="MAGAZINE",
        title="Nature",
        publishedDate="1998-02",
    )
    record = parse_one(volumes(magazine))
    assert record.type is WorkType.OTHER
    assert record.identifiers == Identifiers(issn=("0028-0836",))
    assert record.year == 1998


@pytest.mark.parametrize(
    ("published", "year"),
    [("1892", 1892), ("2012-04", 2012), ("2012-04-26", 2012), ("", None), ("n.d.", None)],
)
def test_year_from_published_date(published: str, year: int | None) -> None:
    assert parse_one(volumes(volume("v", publishedDate=published))).year == year


def test_missing_fields_read_as_empty() -> None:
    bare = {"kind": "books#volume", "id": "bare", "volumeInfo": {}}
    record = parse_one(volumes(bare))
    assert (record.title, record.authors, record.year, record.publisher) == ("", (), None, "")
    assert record.type is WorkType.BOOK  # no printType: Google Books holds books
    assert record.url == "https://books.google.com/books?id=bare"


def test_subtitle_without_title_and_names_written_family_first() -> None:
    record = parse_one(
        volumes(
            volume(
                "v",
                title="",
                subtitle="Only a subtitle",
                authors=["Tolkien, J. R. R.", "Ludwig van Beethoven", "", None],
                canonicalVolumeLink="https://books.google.de/books/about/X.html?id=v",
            )
        )
    )
    assert record.title == "Only a subtitle"
    assert record.authors == (
        Author(family="Tolkien", given="J. R. R."),
        Author(family="van Beethoven", given="Ludwig"),
    )
    assert record.url == "https://books.google.de/books/about/X.html?id=v"


def test_an_empty_author_search_is_followed_by_a_title_only_search() -> None:
    citation = Citation(title="Regression methods in biostatistics: linear and logistic models",
                        authors=(Author(family="Schulman", given="K."),))
    request = ADAPTER.search_request(citation, Identity(api_key="k"))
    assert request is not None and 'inauthor:"Schulman"' in dict(request.params)["q"]
    empty = HttpResponse(200, b'{"kind": "books#volumes", "totalItems": 0}')
    follow = ADAPTER.follow_up(request, empty)
    assert follow is not None
    assert dict(follow.params)["q"] == 'intitle:"Regression methods in biostatistics"'
    assert follow.identity_params == request.identity_params
    assert ADAPTER.follow_up(follow, empty) is None


def test_answer_reads_the_body_once_and_agrees_with_parse_and_follow_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    citation = Citation(title="In the wake of the crisis: Leading economists reassess policy",
                        authors=(Author(family="Blanchard", given="O."),))
    adapter = pure("adapters.googlebooks").GoogleBooksAdapter()  # its own call to parse, watched
    request = adapter.search_request(citation, Identity(api_key="k"))
    assert request is not None
    expected = {}
    for name, body in EXAMPLE_BODIES.items():
        response = HttpResponse(200, body)
        expected[name] = (adapter.parse(request, response), adapter.follow_up(request, response))
    parses = 0
    original = type(adapter).parse

    def counted(self: object, *args: object) -> object:
        nonlocal parses
        parses += 1
        return original(self, *args)

    monkeypatch.setattr(type(adapter), "parse", counted)
    for name, body in EXAMPLE_BODIES.items():
        parses = 0
        assert adapter.answer(request, HttpResponse(200, body)) == expected[name], name
        assert parses == 1, name
    assert expected["empty"][1] is not None and expected["found"][1] is None


EXAMPLE_BODIES = {
    "empty": orjson.dumps({"kind": "books#volumes", "totalItems": 0}),
    "found": volumes(volume("v1", ("ISBN_13", "9780141973869"))).body,
}
