"""Google Books API v1 (https://www.googleapis.com/books/v1)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from verifier.citations.models import Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.policy import SourcePolicy
from verifier.http.service import Identification, ServiceDeclaration, one_class
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.identifiers import normalize_isbn, valid_isbns

from ._memo import RecordMemo
from ._text import (
    clean_text,
    first_author_name,
    join_title,
    json_body,
    json_object,
    names_from_list,
)
from .base import Identity, SourceAdapter, retry_if_empty

_TERM = re.compile(r'\w+:"[^"]*"|\S+')
"""One term of a Google Books query: a field with a quoted phrase, or a bare word."""
_MAX_RESULTS = "5"
_ISBN_QUERY = "isbn:"
_YEAR = re.compile(r"^\s*(\d{4})")
# Where a cited title's subtitle starts: a colon, a spaced dash, or after "?"/"!".
_SUBTITLE_BREAK = re.compile(r"\s*:\s+|\s+[—–]\s+|(?<=[?!])\s+")
# A double quote would end the quoted phrase early.
_PHRASE_UNSAFE = str.maketrans({'"': " ", "“": " ", "”": " ", "„": " "})
_WORD = re.compile(r"\w[\w'’]*")
_TYPES = {"BOOK": WorkType.BOOK, "MAGAZINE": WorkType.OTHER}


class GoogleBooksAdapter(SourceAdapter):
    """Google Books: ISBN lookup and title search, both on ``/volumes``.

    Service-specific:

    - The API key travels as the ``key`` query parameter (an identity parameter, out of
      the cache key). Keyless calls are charged to an exhausted shared quota and get 429,
      so the engine leaves this source out without a key.
    - ``q=isbn:`` is a relevance search, not a lookup: it returns unrelated books for an
      unknown ISBN and the "nearest" book for a mistyped one. Answers to an ISBN query
      keep only volumes whose ``industryIdentifiers`` hold the cited ISBN (compared as
      ISBN-13), so an empty list means "no such ISBN".
    - Search is ``intitle:"<title>" inauthor:"<family name>"``. The quoted title must
      appear verbatim and Google keeps subtitles in a separate field, so with an author
      the subtitle is left out; without one, its words go in unquoted.
    - No matches is ``{"kind": "books#volumes", "totalItems": 0}``: ``items`` is omitted.
    - ``authors`` often lists editors and adapters alongside the author.
    """

    name = "googlebooks"

    def __init__(self) -> None:
        self._records = RecordMemo()

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        isbn = next(iter(valid_isbns(citation.identifiers.isbn)), None)
        if isbn is None:
            return None
        return HttpRequest(
            path="/volumes",
            params=(("q", _ISBN_QUERY + isbn),),
            request_class="single",
            identity_params=_identity_params(identity),
        )

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        title = " ".join(citation.title.translate(_PHRASE_UNSAFE).split())
        if not title:
            return None
        author = _author_phrase(citation)
        main, subtitle_words = _split_subtitle(title)
        terms = [f'intitle:"{main}"']
        if author:
            terms.append(f'inauthor:"{author}"')
        elif subtitle_words:
            terms.append(subtitle_words)  # unquoted: they rank the right volume first
        return HttpRequest(
            path="/volumes",
            params=(("q", " ".join(terms)), ("maxResults", _MAX_RESULTS), ("printType", "books")),
            request_class="list",
            identity_params=_identity_params(identity),
        )

    def follow_up(self, request: HttpRequest, response: HttpResponse) -> HttpRequest | None:
        """A title-only search when ``intitle:`` with ``inauthor:`` found nothing: cited
        author lists are often out of order or wrong (a real book cited with errors must
        still be found)."""
        return retry_if_empty(self, request, response, _title_only_query(request))

    def answer(
        self, request: HttpRequest, response: HttpResponse
    ) -> tuple[list[WorkRecord], HttpRequest | None]:
        records = self.parse(request, response)
        return records, (None if records else _title_only_query(request))

    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        if response.status != 200:
            raise UnexpectedStatus(
                f"googlebooks: HTTP {response.status}{_error_detail(response)}", response.status
            )
        body = json_body(response, self.name)
        if not isinstance(body, dict):
            raise MalformedResponse("googlebooks: body is not a JSON object")
        if "error" in body:
            raise MalformedResponse(f"googlebooks: an error in a 200{_error_detail(response)}")
        if "items" in body:
            items = body["items"]
            if not isinstance(items, list):
                raise MalformedResponse("googlebooks: 'items' is not a list")
            records = [self._records.record(item, self._record) for item in items]
        elif body.get("kind") == "books#volumes" or "totalItems" in body:
            records = []  # no matches: Google omits "items" altogether
        elif "volumeInfo" in body:
            records = [self._records.record(body, self._record)]  # /volumes/{id}
        else:
            raise MalformedResponse("googlebooks: neither a volume list nor a volume")
        wanted = _queried_isbn(request)
        if wanted is None:
            return records
        return [r for r in records
                if wanted in {normalize_isbn(i) or i for i in r.identifiers.isbn}]

    def _record(self, volume: object) -> WorkRecord:
        if not isinstance(volume, dict):
            raise MalformedResponse("googlebooks: a volume is not an object")
        volume_id = clean_text(volume.get("id"))
        info = volume.get("volumeInfo")
        if not volume_id or not isinstance(info, dict):
            raise MalformedResponse("googlebooks: a volume without id or volumeInfo")
        isbn, issn = _identifiers(info.get("industryIdentifiers"))
        print_type = clean_text(info.get("printType")).upper()
        return WorkRecord(
            source=self.name,
            source_id=volume_id,
            url=_volume_url(volume_id, info),
            title=join_title(info.get("title"), info.get("subtitle")),
            authors=names_from_list(info.get("authors")),
            year=_year(info.get("publishedDate")),
            publisher=clean_text(info.get("publisher")),
            type=_TYPES.get(print_type, WorkType.BOOK),
            identifiers=Identifiers(isbn=isbn, issn=issn),
        )


def _title_only_query(request: HttpRequest) -> HttpRequest | None:
    """The title-only search for an ``intitle:`` with ``inauthor:`` request, else None."""
    query = dict(request.params).get("q", "")
    if "inauthor:" not in query or query.startswith("isbn:"):
        return None
    title_only = " ".join(t for t in _TERM.findall(query) if not t.startswith("inauthor:"))
    params = tuple((k, title_only if k == "q" else v) for k, v in request.params)
    return replace(request, params=params)


def _identity_params(identity: Identity) -> tuple[tuple[str, str], ...]:
    return (("key", identity.api_key),) if identity.api_key else ()


def _error_detail(response: HttpResponse) -> str:
    """ " (message [reason])" from a Google API error body, or "" when there is none."""
    try:
        body = json_body(response, "googlebooks")
    except MalformedResponse:
        return ""
    error = json_object(body.get("error")) if isinstance(body, dict) else {}
    message = clean_text(error.get("message"))
    errors = error.get("errors")
    reasons = (
        [clean_text(json_object(e).get("reason")) for e in errors if json_object(e).get("reason")]
        if isinstance(errors, list)
        else []
    )
    if not message and not reasons:
        return ""
    reason = f" [{', '.join(reasons)}]" if reasons else ""
    return f" ({message}{reason})" if message else f" ({', '.join(reasons)})"






def _queried_isbn(request: HttpRequest) -> str | None:
    """The ISBN (as ISBN-13) an ``isbn:`` query asked for, or None for other requests."""
    query = dict(request.params).get("q", "").strip()
    if not query.lower().startswith(_ISBN_QUERY):
        return None
    raw = query[len(_ISBN_QUERY) :]
    return normalize_isbn(raw) or raw


def _author_phrase(citation: Citation) -> str:
    """The first cited author's name, safe inside a quoted ``inauthor:`` phrase."""
    return " ".join(first_author_name(citation).translate(_PHRASE_UNSAFE).split())


def _split_subtitle(title: str) -> tuple[str, str]:
    """(main title, the subtitle's words) of a cited title; the words are bare so none
    reads as an operator ("-word" excludes, "word:" names a field)."""
    parts = _SUBTITLE_BREAK.split(title, maxsplit=1)
    if len(parts) == 2 and parts[0].strip() and parts[1].strip():
        return parts[0].strip(), " ".join(_WORD.findall(parts[1]))
    return title, ""






def _identifiers(value: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(ISBN-13s then ISBN-10s, ISSNs) from ``industryIdentifiers``; library scan ids
    ("OTHER", e.g. "HARVARD:HN1E4C") are dropped."""
    by_type: dict[str, list[str]] = {"ISBN_13": [], "ISBN_10": [], "ISSN": []}
    for raw in value if isinstance(value, list) else ():
        entry = json_object(raw)
        kind, identifier = entry.get("type"), clean_text(entry.get("identifier"))
        if isinstance(kind, str) and kind in by_type and identifier:
            by_type[kind].append(identifier)
    return tuple(by_type["ISBN_13"] + by_type["ISBN_10"]), tuple(by_type["ISSN"])


def _year(value: object) -> int | None:
    """The year of ``publishedDate`` ("1892", "2012-04", "2012-04-26"), or None."""
    match = _YEAR.match(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def _volume_url(volume_id: str, info: dict[str, Any]) -> str:
    # canonicalVolumeLink is often a dead market.android.com address and infoLink a Play
    # Store page: keep them only when they point at books.google, else build that link.
    for field in ("canonicalVolumeLink", "infoLink"):
        link = clean_text(info.get(field))
        host = urlsplit(link).hostname or ""
        if host.startswith("books.google."):
            return link
    return f"https://books.google.com/books?id={volume_id}"


def _policy(who: Identification) -> SourcePolicy:
    if who.api_key:
        return SourcePolicy(one_class(1, concurrency=1), max_concurrency=1, pool="keyed")
    return SourcePolicy(one_class(1, concurrency=1), max_concurrency=1, pool="keyless",
                        enabled=False,
                        disabled_reason="Google Books needs GOOGLE_BOOKS_API_KEY")


SERVICE = ServiceDeclaration(
    "googlebooks", "https://www.googleapis.com/books/v1", "GOOGLE_BOOKS_API_KEY", _policy
)
"""The service's one declaration: name, base URL, key variable, published limits."""
