"""Open Library (https://openlibrary.org)."""

from __future__ import annotations

import re
from typing import Any

from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.policy import SourcePolicy
from verifier.http.service import Identification, ServiceDeclaration, one_class
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.identifiers import valid_isbns

from ._memo import RecordMemo
from ._text import (
    clean_text,
    first_author_name,
    join_title,
    json_body,
    json_object,
    names_from_list,
    split_person_name,
    string_tuple,
)
from .base import Identity, SourceAdapter, retry_if_empty

_SITE = "https://openlibrary.org"
# Only fields the work-search scheme knows; without ``fields`` a popular work's record
# (every ISBN, every subject) runs to hundreds of kilobytes.
_SEARCH_FIELDS = (
    "key,title,subtitle,author_name,first_publish_year,publish_year,publisher,isbn,edition_count"
)
_SEARCH_LIMIT = "5"
_LOOKUP_ISBNS = 3
"""Cited ISBNs sent in one ``bibkeys`` lookup (a print and an e-book ISBN, say)."""
_RECORD_ISBNS = 10
"""ISBNs kept from a search doc: a work lists every edition's, sometimes hundreds."""

_YEAR = re.compile(r"(?<!\d)(1[4-9]\d\d|20\d\d)(?!\d)")
# Where a cited title's subtitle starts: a colon, a spaced dash, or after "?"/"!".
_SUBTITLE_BREAK = re.compile(r"\s*:\s+|\s+[—–]\s+|(?<=[?!])\s+")


class OpenLibraryAdapter(SourceAdapter):
    """Open Library: ISBN lookup on ``/api/books``, title and author search on
    ``/search.json``.

    Service-specific:

    - No key: identification is a User-Agent with a contact address, which the engine
      sets. A User-Agent without one gets a 403 nginx page, read as ``UnexpectedStatus``.
    - The ISBN lookup uses ``jscmd=data``, the one shape that names the authors (an
      edition record holds only author keys). An unknown ISBN is ``{}`` with HTTP 200.
    - Search docs are *works*: the year is ``first_publish_year`` (what citations
      usually give), not the year of any one edition; the publisher and ISBNs are those
      of whichever editions Open Library lists first.
    - Search sends the title without its subtitle when an author is cited: the title
      terms must all match, and a subtitle paraphrased by the citation would hide the book.
    - The same book may come back as several works (duplicates differing in case).
    """

    name = "openlibrary"

    def __init__(self) -> None:
        self._records = RecordMemo()

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        isbns = valid_isbns(citation.identifiers.isbn)[:_LOOKUP_ISBNS]
        if not isbns:
            return None
        return HttpRequest(
            path="/api/books",
            params=(
                ("bibkeys", ",".join(f"ISBN:{isbn}" for isbn in isbns)),
                ("jscmd", "data"),
                ("format", "json"),
            ),
            request_class="single",
        )

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        author = first_author_name(citation)
        title = _search_title(citation.title, with_subtitle=not author)
        if not title:
            return None
        params: list[tuple[str, str]] = [("title", title)]
        if author:
            params.append(("author", author))
        params += [("fields", _SEARCH_FIELDS), ("limit", _SEARCH_LIMIT)]
        return HttpRequest(path="/search.json", params=tuple(params), request_class="list")

    def follow_up(self, request: HttpRequest, response: HttpResponse) -> HttpRequest | None:
        """A title-only search when the search with the cited first author found nothing:
        Open Library wants every name to match, and cited author lists are often out of
        order or wrong (a real book cited with errors must still be found)."""
        return retry_if_empty(self, request, response, _title_only_search(request))

    def answer(
        self, request: HttpRequest, response: HttpResponse
    ) -> tuple[list[WorkRecord], HttpRequest | None]:
        records = self.parse(request, response)
        return records, (None if records else _title_only_search(request))

    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        if response.status == 404 and request.path.startswith("/isbn/"):
            return []  # /isbn/{isbn}.json answers an unknown ISBN with a 404
        if response.status != 200:
            raise UnexpectedStatus(
                f"openlibrary: HTTP {response.status}{_status_hint(response.status)}",
                response.status,
            )
        body = json_body(response, self.name)
        if not isinstance(body, dict):
            raise MalformedResponse("openlibrary: body is not a JSON object")
        if request.path == "/api/books":
            return self._books_api(body)
        if "docs" in body:
            docs = body["docs"]
            if not isinstance(docs, list):
                raise MalformedResponse("openlibrary: 'docs' is not a list")
            return [self._records.record(doc, self._search_doc) for doc in docs]
        if isinstance(body.get("key"), str) and body["key"].startswith("/books/"):
            return [self._edition(body)]
        error = clean_text(body.get("error"))
        raise MalformedResponse(
            f"openlibrary: neither search results nor a book{f' ({error})' if error else ''}"
        )

    def _books_api(self, body: dict[str, Any]) -> list[WorkRecord]:
        # Keyed by the bibkeys sent ("ISBN:..."); an unknown ISBN is simply absent, so
        # "{}" is the service's "not found".
        records: list[WorkRecord] = []
        for bibkey, entry in body.items():
            if not isinstance(entry, dict):
                raise MalformedResponse(f"openlibrary: {bibkey!r} is not a book object")
            record = self._books_api_entry(bibkey, entry)
            if all(r.source_id != record.source_id for r in records):
                records.append(record)  # two cited ISBNs of one edition: one record
        return records

    def _books_api_entry(self, bibkey: str, entry: dict[str, Any]) -> WorkRecord:
        key = clean_text(entry.get("key"))
        if not key:
            raise MalformedResponse(f"openlibrary: {bibkey!r} has no edition key")
        url = clean_text(entry.get("url"))
        ids = json_object(entry.get("identifiers"))
        publishers = entry.get("publishers")
        first_publisher = publishers[0] if isinstance(publishers, list) and publishers else {}
        return WorkRecord(
            source=self.name,
            source_id=key,
            url=url if url.startswith("http") else _SITE + key,
            title=join_title(entry.get("title"), entry.get("subtitle"), entry.get("full_title")),
            authors=_named_authors(entry.get("authors")),
            year=_year_in(entry.get("publish_date")),
            publisher=clean_text(json_object(first_publisher).get("name")),
            type=WorkType.BOOK,
            identifiers=Identifiers(isbn=_with_bibkey_isbn(bibkey, ids)),
        )

    def _search_doc(self, doc: object) -> WorkRecord:
        if not isinstance(doc, dict):
            raise MalformedResponse("openlibrary: a search doc is not an object")
        key = clean_text(doc.get("key"))
        if not key:
            raise MalformedResponse("openlibrary: a search doc without a key")
        return WorkRecord(
            source=self.name,
            source_id=key,
            url=_SITE + key,
            title=join_title(doc.get("title"), doc.get("subtitle")),
            authors=names_from_list(doc.get("author_name")),
            year=_work_year(doc),
            publisher=clean_text(_first_string(doc.get("publisher"))),
            type=WorkType.BOOK,
            identifiers=Identifiers(isbn=string_tuple(doc.get("isbn"))[:_RECORD_ISBNS]),
        )

    def _edition(self, edition: dict[str, Any]) -> WorkRecord:
        key = clean_text(edition.get("key"))
        # Authors are only keys ("/authors/OL…A") here: names would take another request,
        # and "by_statement" is free text, so the record says nothing rather than guess.
        return WorkRecord(
            source=self.name,
            source_id=key,
            url=_SITE + key,
            title=join_title(
                edition.get("title"), edition.get("subtitle"), edition.get("full_title")
            ),
            year=_year_in(edition.get("publish_date")),
            publisher=clean_text(_first_string(edition.get("publishers"))),
            type=WorkType.BOOK,
            identifiers=Identifiers(
                isbn=string_tuple(edition.get("isbn_13")) + string_tuple(edition.get("isbn_10"))
            ),
        )


def _status_hint(status: int) -> str:
    if status == 403:
        return " (Open Library refuses a User-Agent without a contact address)"
    return ""




def _with_bibkey_isbn(bibkey: str, ids: dict[str, Any]) -> tuple[str, ...]:
    """The edition's ISBNs, led by the one it was looked up by: Open Library resolved that
    ISBN to this edition even when its record lists only the other form."""
    listed = string_tuple(ids.get("isbn_13")) + string_tuple(ids.get("isbn_10"))
    kind, _, value = bibkey.partition(":")
    isbn = value.strip().upper()
    if kind.upper() != "ISBN" or not isbn or isbn in listed:
        return listed
    return (isbn, *listed)




def _search_title(title: str, *, with_subtitle: bool) -> str:
    title = " ".join(title.split())
    if with_subtitle:
        return title
    return _SUBTITLE_BREAK.split(title, maxsplit=1)[0].strip() or title






def _named_authors(value: object) -> tuple[Author, ...]:
    if not isinstance(value, list):
        return ()
    authors = [
        split_person_name(clean_text(entry.get("name")))
        for entry in value
        if isinstance(entry, dict)
    ]
    return tuple(a for a in authors if a is not None)


def _first_string(value: object) -> object:
    if isinstance(value, list):
        return next((v for v in value if isinstance(v, str) and v.strip()), "")
    return value


def _year_in(value: object) -> int | None:
    """The year in a free-text date ("1996", "March 2004", "c1995"), or None."""
    match = _YEAR.search(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def _work_year(doc: dict[str, Any]) -> int | None:
    first = doc.get("first_publish_year")
    if isinstance(first, int) and not isinstance(first, bool):
        return first
    listed = doc.get("publish_year")
    years = [
        y
        for y in (listed if isinstance(listed, list) else ())
        if isinstance(y, int) and not isinstance(y, bool)
    ]
    return min(years) if years else None


def _policy(who: Identification) -> SourcePolicy:
    if who.mailto:
        return SourcePolicy(one_class(3, concurrency=3), max_concurrency=3, pool="identified")
    return SourcePolicy(one_class(1, concurrency=1), max_concurrency=1, pool="anonymous")


SERVICE = ServiceDeclaration("openlibrary", "https://openlibrary.org", None, _policy)
"""The service's one declaration: name, base URL, key variable, published limits."""


def _title_only_search(request: HttpRequest) -> HttpRequest | None:
    """The search without its author for a ``/search.json`` request with one, else None."""
    if request.path != "/search.json" or all(k != "author" for k, _ in request.params):
        return None
    kept = tuple((k, v) for k, v in request.params if k != "author")
    return HttpRequest(path=request.path, params=kept, request_class=request.request_class)
