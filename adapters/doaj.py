"""DOAJ, the Directory of Open Access Journals (https://doaj.org/api, v4)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.policy import SourcePolicy
from verifier.http.service import Identification, ServiceDeclaration, one_class
from verifier.http.transport import HttpRequest, HttpResponse

from ._text import (
    bare_doi,
    clean_text,
    json_body,
    json_object,
    split_person_name,
    strip_retracted_prefix,
)
from .base import Identity, SourceAdapter

_SEARCH_PATH = "/search/articles/"
_PAGING = (("pageSize", "5"), ("page", "1"))
_SHORT_TITLE_WORDS = 3
"""Titles of at most this many words also name the first author: alone they match too
many articles for the right one to be among the first five. Longer titles do not, so a
misspelled cited name cannot hide the work."""

# Characters the Elasticsearch query-string syntax reserves. Inside a quoted phrase only
# '"' and '\' matter to the parser, but DOAJ rewrites the query before parsing it
# (it escapes "/" and ":" by its own rules and refuses any unescaped "*", "?" or "~"
# with a 400), so every reserved character is escaped: escaped, each reads literally.
_RESERVED = frozenset('+-=&|><!(){}[]^"~*?:\\/')
# Dropped from titles before escaping: quotes would end the phrase, a backslash would
# escape the closing quote, and wildcard, fuzzy and regex characters are refused by
# DOAJ. The words around them are what the phrase matches on.
_TITLE_DROPPED = re.compile(r'["“”„‟«»\\*?~/]')
_ISSN = re.compile(r"^(\d{4})-?(\d{3}[\dX])$")


class DoajAdapter(SourceAdapter):
    """DOAJ: articles in open-access journals, searched with a query in the URL path.

    Service-specific:

    - No key or identification: ``Identity`` is not used.
    - The query is Elasticsearch query-string syntax in the path, percent-encoded whole
      ("/", "?", "#" and "%" included): ``bibjson.title:"…"`` (with
      ``AND bibjson.author.name:"…"`` for short titles) for search, ``doi:"…"`` for a
      DOI lookup. Reserved characters are escaped; wildcard, fuzzy and regex syntax,
      which DOAJ refuses with a 400, is never sent.
    - "No hits" is ``total: 0`` with a 200; a 404 (``{"status": "not_found"}``) on a
      search path is an error, never "not found".
    - Years are strings; identifier types are "doi"/"pissn"/"eissn" (older records:
      "DOI"). ``url`` is the full-text link. Every article is open access.
    - DOAJ has no retraction data: ``retracted`` is None unless the title says
      "RETRACTED:". No rate-limit headers.
    """

    name = "doaj"

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        doi = bare_doi(citation.identifiers.doi)
        if doi is None:
            return None
        # DOAJ lower-cases stored DOIs (v4.0.1), so the lower-case DOI matches exactly.
        return _search(f"doi:{_phrase(doi)}", request_class="single")

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        title = " ".join(_TITLE_DROPPED.sub(" ", citation.title).split())
        if not title:
            return None
        query = f"bibjson.title:{_phrase(title)}"
        family = _first_family(citation.authors)
        if family and len(title.split()) <= _SHORT_TITLE_WORDS:
            query += f" AND bibjson.author.name:{_phrase(family)}"
        return _search(query, request_class="list")

    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        if response.status != 200:
            raise UnexpectedStatus(
                f"doaj: HTTP {response.status}{_error_detail(response)}", response.status
            )
        body = json_body(response, self.name)
        if not isinstance(body, dict):
            raise MalformedResponse("doaj: body is not a JSON object")
        if "results" in body:
            results = body["results"]
            if not isinstance(results, list):
                raise MalformedResponse("doaj: 'results' is not a list")
            if body.get("total") == 0:
                return []
            return [self._record(article) for article in results]
        if "bibjson" in body:
            return [self._record(body)]  # one article, as /articles/{id} gives it
        raise MalformedResponse(
            f"doaj: neither a search envelope nor an article{_error_detail(response)}"
        )

    def _record(self, article: object) -> WorkRecord:
        if not isinstance(article, dict):
            raise MalformedResponse("doaj: an article is not an object")
        doaj_id = article.get("id")
        if not isinstance(doaj_id, str) or not doaj_id.strip():
            raise MalformedResponse("doaj: an article without an id")
        doaj_id = doaj_id.strip()
        bibjson = json_object(article.get("bibjson"))
        journal = json_object(bibjson.get("journal"))
        title, prefixed = strip_retracted_prefix(clean_text(bibjson.get("title")))
        doi, issns = _identifiers(bibjson.get("identifier"), journal.get("issns"))
        return WorkRecord(
            source=self.name,
            source_id=doaj_id,
            url=_fulltext_url(bibjson.get("link")) or f"https://doaj.org/article/{doaj_id}",
            title=title,
            authors=_authors(bibjson.get("author")),
            year=_year(bibjson.get("year")),
            container=clean_text(journal.get("title")),
            volume=clean_text(journal.get("volume")),
            issue=clean_text(journal.get("number")),
            pages=_pages(bibjson.get("start_page"), bibjson.get("end_page")),
            publisher=clean_text(journal.get("publisher")),
            type=WorkType.ARTICLE,
            identifiers=Identifiers(doi=doi, issn=issns),
            retracted=True if prefixed else None,
            open_access=True,
        )


def _search(query: str, request_class: str) -> HttpRequest:
    # safe="": the query is one path segment; "/" "?" "#" "%" must not be read as URL syntax.
    return HttpRequest(
        path=_SEARCH_PATH + quote(query, safe=""), params=_PAGING, request_class=request_class
    )


def _phrase(value: str) -> str:
    """``value`` as a quoted query-string phrase, every reserved character escaped."""
    return '"' + "".join(f"\\{c}" if c in _RESERVED else c for c in value) + '"'


def _first_family(authors: tuple[Author, ...]) -> str:
    for author in authors:
        family = " ".join(_TITLE_DROPPED.sub(" ", author.family).split())
        if family:
            return family
    return ""


def _error_detail(response: HttpResponse) -> str:
    """ " (status: message)" from a DOAJ error body, or "" when there is none."""
    try:
        body = json_body(response, "doaj")
    except MalformedResponse:
        return ""
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return ""
    return f" ({body.get('status') or 'error'}: {body['error']})"


def _authors(value: object) -> tuple[Author, ...]:
    if not isinstance(value, list):
        return ()
    authors: list[Author] = []
    for entry in value:
        name = clean_text(entry.get("name")) if isinstance(entry, dict) else ""
        author = split_person_name(name)
        if author is not None:
            authors.append(author)
    return tuple(authors)


def _year(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _pages(start: object, end: object) -> str:
    first, last = clean_text(start), clean_text(end)
    if first and last and first != last:
        return f"{first}-{last}"
    return first or last


def _identifiers(entries: object, journal_issns: object) -> tuple[str | None, tuple[str, ...]]:
    """The article's DOI and its journal's ISSNs (identifier list first, then ``issns``)."""
    doi: str | None = None
    issns: list[str] = []
    for entry in entries if isinstance(entries, list) else ():
        entry = json_object(entry)
        kind = entry.get("type")
        kind = kind.strip().lower() if isinstance(kind, str) else ""
        if kind == "doi" and doi is None:
            doi = bare_doi(entry.get("id"))
        elif kind in ("pissn", "eissn"):
            issns.append(_issn(entry.get("id")))
    for value in journal_issns if isinstance(journal_issns, list) else ():
        issns.append(_issn(value))
    return doi, tuple(dict.fromkeys(issn for issn in issns if issn))


def _issn(value: object) -> str:
    if not isinstance(value, str):
        return ""
    match = _ISSN.match(value.strip().upper())
    return f"{match.group(1)}-{match.group(2)}" if match else ""


def _fulltext_url(links: object) -> str:
    for link in links if isinstance(links, list) else ():
        entry: dict[str, Any] = json_object(link)
        url = entry.get("url")
        if (
            str(entry.get("type", "")).lower() == "fulltext"
            and isinstance(url, str)
            and url.strip()
        ):
            return url.strip()
    return ""


def _policy(who: Identification) -> SourcePolicy:
    return SourcePolicy(one_class(2, concurrency=5), max_concurrency=5, pool="public")


SERVICE = ServiceDeclaration("doaj", "https://doaj.org/api", None, _policy)
"""The service's one declaration: name, base URL, key variable, published limits."""
