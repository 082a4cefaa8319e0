"""OpenLibraryAdapter: requests it builds, and parsing of every recorded Open Library
response.

The recorded search is the older envelope (``num_found``); the current one (``numFound``,
``numFoundExact``, ``q``, ``offset``) is built by hand from apis.md section 5.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson
import pytest
from pure_modules import pure
from recorded import SAMPLES, load_sample

from adapters.base import Identity
from adapters.openlibrary import OpenLibraryAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = OpenLibraryAdapter()
BASE = "https://openlibrary.org"
IDENTIFIED = Identity(mailto="you@example.org")

SEARCH = HttpRequest(path="/search.json", params=(("title", "This Is How You Lose"),))
BOOKS_API = HttpRequest(
    path="/api/books",
    params=(("bibkeys", "ISBN:9782070427796"), ("jscmd", "data"), ("format", "json")),
    request_class="single",
)
EDITION = HttpRequest(path="/books/OL22951843M.json", request_class="single")


def json_response(body: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(status, orjson.dumps(body), {"content-type": "application/json"})


def current_envelope(*docs: dict[str, Any]) -> HttpResponse:
    """A search answer in today's envelope (apis.md section 5)."""
    return json_response(
        {
            "numFound": len(docs),
            "start": 0,
            "numFoundExact": True,
            "num_found": len(docs),
            "documentation_url": "https://openlibrary.org/dev/docs/api/search",
            "q": "",
            "offset": None,
            "docs": list(docs),
        }
    )


def parse_one(response: HttpResponse, request: HttpRequest = SEARCH) -> WorkRecord:
    records = ADAPTER.parse(request, response)
    assert len(records) == 1
    return records[0]


# --- requests -------------------------------------------------------------------------


def test_lookup_request_asks_the_books_api_for_author_names() -> None:
    citation = Citation(identifiers=Identifiers(isbn=("9782070427796",)))
    request = ADAPTER.lookup_request(citation, IDENTIFIED)
    assert request is not None
    assert request.path == "/api/books"
    assert request.params == (
        ("bibkeys", "ISBN:9782070427796"),
        ("jscmd", "data"),
        ("format", "json"),
    )
    assert request.request_class == "single"
    # Identification is the engine's User-Agent: nothing of the identity in the request.
    assert (request.identity_params, request.headers) == ((), ())
    assert request.url(BASE) == (
        "https://openlibrary.org/api/books?bibkeys=ISBN%3A9782070427796&jscmd=data&format=json"
    )


def test_lookup_request_normalises_hyphenated_and_labelled_isbns() -> None:
    citation = Citation(identifiers=Identifiers(isbn=("978-2-07-042779-6", "isbn 2-07-046423-7")))
    request = ADAPTER.lookup_request(citation, Identity())
    assert request is not None
    assert dict(request.params)["bibkeys"] == "ISBN:9782070427796,ISBN:2070464237"


def test_lookup_request_sends_at_most_three_valid_isbns_once_each() -> None:
    citation = Citation(
        identifiers=Identifiers(
            isbn=(
                "9782070427797",  # wrong check digit: never sent
                "207042779x",
                "207042779X",
                "9780141973869",
                "0141973862",
                "9781439170915",
            )
        )
    )
    request = ADAPTER.lookup_request(citation, Identity())
    assert request is not None
    assert dict(request.params)["bibkeys"] == ("ISBN:207042779X,ISBN:9780141973869,ISBN:0141973862")


def test_no_lookup_without_a_valid_isbn() -> None:
    assert ADAPTER.lookup_request(Citation(title="Sabriel"), IDENTIFIED) is None
    doi_only = Citation(identifiers=Identifiers(doi="10.1000/xyz"))
    assert ADAPTER.lookup_request(doi_only, IDENTIFIED) is None
    mistyped = Citation(identifiers=Identifiers(isbn=("9782070427797",)))
    assert ADAPTER.lookup_request(mistyped, IDENTIFIED) is None


def test_search_request_with_an_author_drops_the_subtitle() -> None:
    citation = Citation(
        title="The Emperor of All Maladies: A Biography of Cancer",
        authors=(Author(family="Mukherjee", given="Siddhartha"), Author(family="Other")),
        year=2010,
    )
    request = ADAPTER.search_request(citation, IDENTIFIED)
    assert request is not None
    assert request.path == "/search.json"
    assert request.request_class == "list"
    assert request.params == (
        ("title", "The Emperor of All Maladies"),
        ("author", "Mukherjee"),
        (
            "fields",
            "key,title,subtitle,author_name,first_publish_year,publish_year,publisher,isbn,"
            "edition_count",
        ),
        ("limit", "5"),
    )
    assert (request.identity_params, request.headers) == ((), ())
    query = dict(parse_qsl(urlsplit(request.url(BASE)).query))
    assert query["title"] == "The Emperor of All Maladies"
    assert query["author"] == "Mukherjee"


@pytest.mark.parametrize(
    ("title", "searched"),
    [
        ("Who Moved My Cheese? An Amazing Way to Deal with Change", "Who Moved My Cheese?"),
        ("Sapiens — A Brief History of Humankind", "Sapiens"),
        ("Web 2.0:Principles", "Web 2.0:Principles"),  # no space after the colon: one title
        ("  This Is How   You Lose the Time War ", "This Is How You Lose the Time War"),
        (": Leading colon", ": Leading colon"),
    ],
)
def test_search_title_is_cut_at_the_subtitle_only_where_one_starts(
    title: str, searched: str
) -> None:
    citation = Citation(title=title, authors=(Author(family="Someone"),))
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    assert dict(request.params)["title"] == searched


def test_search_request_without_authors_keeps_the_whole_title() -> None:
    # A bare main title ("Ethics") would rank a hundred other works first.
    request = ADAPTER.search_request(
        Citation(title="Ethics: A Very Short Introduction"), Identity()
    )
    assert request is not None
    assert [key for key, _ in request.params] == ["title", "fields", "limit"]
    assert dict(request.params)["title"] == "Ethics: A Very Short Introduction"


def test_search_request_uses_the_first_named_author_or_organisation() -> None:
    citation = Citation(
        title="World report on ageing and health",
        authors=(Author(given="Anon"), Author(literal="World Health Organization")),
    )
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    assert dict(request.params)["author"] == "World Health Organization"
    particles = Citation(title="Title: Sub", authors=(Author(family="van der Berg", given="J."),))
    request = ADAPTER.search_request(particles, Identity())
    assert request is not None
    assert dict(request.params)["author"] == "van der Berg"


def test_no_search_without_a_title() -> None:
    assert ADAPTER.search_request(Citation(authors=(Author(family="Nix"),)), IDENTIFIED) is None
    assert ADAPTER.search_request(Citation(title="  "), IDENTIFIED) is None


def test_no_rate_hint_open_library_sends_none() -> None:
    assert ADAPTER.rate_hint(load_sample("openlibrary", "search_title_legacy.json")) is None


# --- recorded responses ---------------------------------------------------------------


def test_legacy_search_sample_two_works_of_one_book() -> None:
    records = ADAPTER.parse(SEARCH, load_sample("openlibrary", "search_title_legacy.json"))
    assert [r.source_id for r in records] == ["/works/OL20639540W", "/works/OL19859295W"]
    first, duplicate = records
    assert first.source == "openlibrary"
    assert first.url == "https://openlibrary.org/works/OL20639540W"
    assert first.title == "This Is How You Lose the Time War"
    assert first.authors == (
        Author(family="El-Mohtar", given="Amal"),
        Author(family="Gladstone", given="Max"),
    )
    assert first.year == 2019
    assert first.publisher == "Simon and Schuster"
    assert first.type is WorkType.BOOK
    assert first.identifiers == Identifiers(isbn=("9781534431003", "1534431004"))
    assert first.retracted is None
    # The near-duplicate work (other title casing, no editions) has no year or ISBN.
    assert duplicate.title == "This is How You Lose the Time War"
    assert duplicate.authors == first.authors
    assert (duplicate.year, duplicate.publisher, duplicate.identifiers.isbn) == (None, "", ())


def test_books_api_sample_adds_the_isbn_it_was_looked_up_by() -> None:
    record = parse_one(load_sample("openlibrary", "api_books_bibkeys_isbn.json"), BOOKS_API)
    assert record.source_id == "/books/OL16262504M"
    assert record.url == "https://openlibrary.org/books/OL16262504M/Les_ombres_errantes"
    assert record.title == "Les ombres errantes"
    assert record.authors == (Author(family="Quignard", given="Pascal"),)
    assert record.year == 2002
    assert record.publisher == "Gallimard"
    assert record.type is WorkType.BOOK
    # The edition lists only its ISBN-10; it was found by the ISBN-13, which leads.
    assert record.identifiers.isbn == ("9782070427796", "207042779X")


def test_books_api_jscmd_data_sample() -> None:
    request = HttpRequest(
        path="/api/books",
        params=(("bibkeys", "ISBN:2070464237"), ("jscmd", "data"), ("format", "json")),
    )
    record = parse_one(load_sample("openlibrary", "api_books_bibkeys_jscmd_data.json"), request)
    assert record.source_id == "/books/OL26210208M"
    assert record.url == "https://openlibrary.org/books/OL26210208M/La_Horde_du_Contrevent"
    assert record.title == "La Horde du Contrevent"
    assert record.authors == (Author(family="Damasio", given="Alain"),)
    assert record.year == 2015
    assert record.publisher == "Gallimard"
    assert record.identifiers.isbn == ("9782070464234", "2070464237")


def test_edition_sample_keeps_authors_empty_rather_than_guessing() -> None:
    record = parse_one(load_sample("openlibrary", "edition.json"), EDITION)
    assert record.source_id == "/books/OL22951843M"
    assert record.url == "https://openlibrary.org/books/OL22951843M"
    assert record.title == "Sabriel"
    # Only author keys here; "by_statement" ("Garth Nix.") is not read as a name.
    assert record.authors == ()
    assert record.year == 1996
    assert record.publisher == "Harper Trophy"
    assert record.type is WorkType.BOOK
    assert record.identifiers.isbn == ("0060273224", "0060273232", "0064471837")


def test_403_nginx_sample_names_the_user_agent_problem() -> None:
    with pytest.raises(UnexpectedStatus, match="HTTP 403.*User-Agent") as raised:
        ADAPTER.parse(SEARCH, load_sample("openlibrary", "error_403_nginx.html"))
    assert raised.value.http_status == 403


COVERED = {
    "search_title_legacy.json",
    "api_books_bibkeys_isbn.json",
    "api_books_bibkeys_jscmd_data.json",
    "edition.json",
    "error_403_nginx.html",
}


def test_every_recorded_openlibrary_sample_is_covered() -> None:
    load_sample("openlibrary", "edition.json")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "openlibrary").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- "not found" and malformed answers ------------------------------------------------


def test_unknown_isbn_is_an_empty_object_with_200() -> None:
    assert ADAPTER.parse(BOOKS_API, json_response({})) == []


def test_search_without_hits_in_either_envelope_is_empty() -> None:
    assert ADAPTER.parse(SEARCH, current_envelope()) == []
    legacy = json_response({"start": 0, "num_found": 0, "numFound": 0, "docs": []})
    assert ADAPTER.parse(SEARCH, legacy) == []


def test_unknown_isbn_on_the_isbn_route_is_a_404() -> None:
    request = HttpRequest(path="/isbn/9780000000000.json", request_class="single")
    not_found = HttpResponse(404, b"<html>Not Found</html>", {"content-type": "text/html"})
    assert ADAPTER.parse(request, not_found) == []
    # Elsewhere a 404 is no "not found": the route itself is wrong.
    with pytest.raises(UnexpectedStatus):
        ADAPTER.parse(BOOKS_API, not_found)


def test_json_html_and_truncated_bodies_in_a_200_are_malformed() -> None:
    page = HttpResponse(
        200, b"<html><body>Maintenance</body></html>", {"content-type": "text/html"}
    )
    with pytest.raises(MalformedResponse, match="text/html"):
        ADAPTER.parse(SEARCH, page)
    body = load_sample("openlibrary", "search_title_legacy.json").body
    truncated = HttpResponse(200, body[: len(body) // 2], {"content-type": "application/json"})
    with pytest.raises(MalformedResponse, match="not JSON"):
        ADAPTER.parse(SEARCH, truncated)


@pytest.mark.parametrize(
    ("request_", "body"),
    [
        (SEARCH, {}),  # "{}" means "not found" only for the books API
        (SEARCH, {"error": "Invalid query"}),
        (SEARCH, {"numFound": 1, "docs": {"key": "/works/OL1W"}}),
        (SEARCH, {"numFound": 1, "docs": ["/works/OL1W"]}),
        (SEARCH, {"numFound": 1, "docs": [{"title": "No key"}]}),
        (SEARCH, ["not", "an", "object"]),
        (BOOKS_API, {"ISBN:9782070427796": "not a book"}),
        (BOOKS_API, {"ISBN:9782070427796": {"title": "No edition key"}}),
        (EDITION, {"title": "Sabriel", "key": "/authors/OL382982A"}),
    ],
)
def test_wrong_shapes_in_a_200_are_malformed(request_: HttpRequest, body: Any) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(request_, json_response(body))


def test_error_message_in_a_200_is_reported() -> None:
    with pytest.raises(MalformedResponse, match="Invalid query"):
        ADAPTER.parse(SEARCH, json_response({"error": "Invalid query"}))


# --- fields built by hand -------------------------------------------------------------


def test_current_envelope_doc_with_subtitle_and_without_first_publish_year() -> None:
    doc = {
        "key": "/works/OL17930368W",
        "title": "The Emperor of All Maladies",
        "subtitle": "A Biography of Cancer",
        "author_name": ["Siddhartha Mukherjee"],
        "publish_year": [2011, 2010, 2012],
        "publisher": ["", "Scribner", "Fourth Estate"],
        "isbn": [f"97814391709{n:02d}" for n in range(14)],
        "edition_count": 14,
    }
    record = parse_one(current_envelope(doc))
    assert record.title == "The Emperor of All Maladies: A Biography of Cancer"
    assert record.authors == (Author(family="Mukherjee", given="Siddhartha"),)
    assert record.year == 2010  # the earliest edition stands in for the first publication
    assert record.publisher == "Scribner"
    assert len(record.identifiers.isbn) == 10  # a work lists every edition's ISBNs


def test_first_publish_year_wins_over_later_editions() -> None:
    doc = {
        "key": "/works/OL1W",
        "title": "Sabriel",
        "first_publish_year": 1995,
        "publish_year": [1996, 2003],
    }
    assert parse_one(current_envelope(doc)).year == 1995


def test_subtitle_already_in_the_title_and_names_with_particles_or_commas() -> None:
    doc = {
        "key": "/works/OL2W",
        "title": "Deep learning: a review",
        "subtitle": "A review",
        "author_name": ["Ludwig van Beethoven", "Tolkien, J. R. R.", " ", 7],
    }
    record = parse_one(current_envelope(doc))
    assert record.title == "Deep learning: a review"
    assert record.authors == (
        Author(family="van Beethoven", given="Ludwig"),
        Author(family="Tolkien", given="J. R. R."),
    )


@pytest.mark.parametrize(
    ("publish_date", "year"),
    [
        ("2004", 2004),
        ("March 2004", 2004),
        ("July 16, 2019", 2019),
        ("c1995", 1995),
        ("[1996?]", 1996),
        ("2012-04-26", 2012),
        ("n.d.", None),
        ("12345", None),
        (2004, None),  # not the free-text string Open Library sends
    ],
)
def test_books_api_year_from_free_text_dates(publish_date: object, year: int | None) -> None:
    entry = {"key": "/books/OL1M", "title": "T", "publish_date": publish_date}
    assert parse_one(json_response({"ISBN:9782070427796": entry}), BOOKS_API).year == year


def test_books_api_subtitle_full_title_and_missing_url() -> None:
    entries = {
        "ISBN:9780141973869": {
            "key": "/books/OL1M",
            "title": "Moby-Dick",
            "subtitle": "or, The Whale",
            "authors": [{"name": "Herman Melville"}, {"url": "no name"}, "x"],
            "publishers": [{"name": "Penguin"}, {"name": "Other"}],
            "identifiers": {"isbn_13": ["9780141973869"], "isbn_10": ["0141973862"]},
        },
        "ISBN:9781439170915": {"key": "/books/OL2M", "full_title": "Full title only"},
    }
    request = HttpRequest(
        path="/api/books",
        params=(("bibkeys", "ISBN:9780141973869,ISBN:9781439170915"),),
    )
    moby, full = ADAPTER.parse(request, json_response(entries))
    assert moby.title == "Moby-Dick: or, The Whale"
    assert moby.authors == (Author(family="Melville", given="Herman"),)
    assert moby.publisher == "Penguin"
    assert moby.url == "https://openlibrary.org/books/OL1M"
    assert moby.identifiers.isbn == ("9780141973869", "0141973862")  # no repeat of the key
    assert full.title == "Full title only"
    assert full.identifiers.isbn == ("9781439170915",)


def test_two_cited_isbns_of_one_edition_give_one_record() -> None:
    edition = {"key": "/books/OL26210208M", "title": "La Horde du Contrevent"}
    body = {"ISBN:2070464237": edition, "ISBN:9782070464234": edition}
    records = ADAPTER.parse(BOOKS_API, json_response(body))
    assert [r.source_id for r in records] == ["/books/OL26210208M"]
    assert records[0].identifiers.isbn == ("2070464237",)


def test_an_empty_author_search_is_followed_by_a_title_only_search() -> None:
    citation = Citation(title="In the wake of the crisis: Leading economists reassess policy",
                        authors=(Author(family="Blanchard", given="O."),))
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None and dict(request.params)["author"] == "Blanchard"
    empty = HttpResponse(200, b'{"numFound": 0, "num_found": 0, "start": 0, "docs": []}')
    follow = ADAPTER.follow_up(request, empty)
    assert follow is not None
    assert "author" not in dict(follow.params)
    assert dict(follow.params)["title"] == dict(request.params)["title"]
    assert ADAPTER.follow_up(follow, empty) is None  # only one retry, and only with an author


def test_answer_reads_the_body_once_and_agrees_with_parse_and_follow_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    citation = Citation(title="In the wake of the crisis: Leading economists reassess policy",
                        authors=(Author(family="Blanchard", given="O."),))
    adapter = pure("adapters.openlibrary").OpenLibraryAdapter()  # its own call to parse, watched
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
    "empty": current_envelope().body,
    "found": current_envelope({"key": "/works/OL1W", "title": "In the wake of the crisis"}).body,
}
