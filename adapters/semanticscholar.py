"""Semantic Scholar Academic Graph API (https://api.semanticscholar.org/graph/v1)."""

from __future__ import annotations

import re
import unicodedata
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
    doi_path,
    json_body,
    json_object,
    split_person_name,
    strip_retracted_prefix,
)
from .base import Identity, SourceAdapter

FIELDS = (
    "title,authors,year,publicationDate,venue,publicationVenue,journal,externalIds,"
    "publicationTypes,url,isOpenAccess"
)
"""The ``fields`` every request asks for: without it S2 answers paperId and title only."""

_MATCH_PATH = "/paper/search/match"
# arXiv's DataCite DOIs are often missing from S2's externalIds: a DOI lookup would be a
# 404 ("no such paper") for a paper S2 holds under its arXiv id.
_ARXIV_DOI_PREFIX = "10.48550/arxiv."
# S2 documents that hyphenated query terms match nothing; dashes read as spaces instead.
_DASHES = re.compile(r"[-‐‑‒–—]+")
_SPACED_HYPHEN = re.compile(r"\s+-\s+")
# Most specific first: S2 tags conference papers "JournalArticle" *and* "Conference", and
# book chapters may carry "Book" too.
_TYPE_PRIORITY: tuple[tuple[str, WorkType], ...] = (
    ("BookSection", WorkType.CHAPTER),
    ("Book", WorkType.BOOK),
    ("Conference", WorkType.PROCEEDINGS),
    ("JournalArticle", WorkType.ARTICLE),
    ("Review", WorkType.ARTICLE),
    ("MetaAnalysis", WorkType.ARTICLE),
    ("Editorial", WorkType.ARTICLE),
    ("LettersAndComments", WorkType.ARTICLE),
    ("CaseReport", WorkType.ARTICLE),
    ("ClinicalTrial", WorkType.ARTICLE),
    ("Study", WorkType.ARTICLE),
)


class SemanticScholarAdapter(SourceAdapter):
    """Semantic Scholar: paper lookup by DOI (else arXiv id, else PMID), title search on
    ``/paper/search/match``.

    Service-specific:

    - The API key travels in the ``x-api-key`` header (kept out of the cache key).
    - Lookups use ``/paper/DOI:{doi}``; an arXiv DataCite DOI (10.48550/arXiv.…) is
      looked up as ``ARXIV:{id}`` because S2 often lacks those DOIs.
    - Search is the title-match endpoint: at most one paper, or a 404
      ``{"error": "Title match not found"}``. Dashes in the title are sent as spaces.
    - "Not found" is a JSON 404 whose ``error`` says "not found" (title match, unknown
      paper id): ``[]``. Other 4xx (400 bad fields, 403 bad key) raise
      ``UnexpectedStatus`` with the service's ``error``/``message`` text.
    - ``parse`` also reads relevance-search pages (an empty one has no ``data`` key) and
      batch arrays (unknown ids are ``null``).
    - Author names are single display strings; no issue number is given. S2 has no
      retraction data: ``retracted`` is None unless the title says "RETRACTED:".
    - No rate-limit headers are sent: ``rate_hint`` stays None.
    """

    name = "semanticscholar"

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        paper_id = _paper_id(citation.identifiers)
        if paper_id is None:
            return None
        return HttpRequest(
            path="/paper/" + paper_id,
            params=(("fields", FIELDS),),
            request_class="single",
            headers=_headers(identity),
        )

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        title = " ".join(_DASHES.sub(" ", citation.title).split())
        if not title:
            return None
        # No year filter: cited years are often a year off the record's.
        return HttpRequest(
            path=_MATCH_PATH,
            params=(("query", title), ("fields", FIELDS)),
            request_class="list",
            headers=_headers(identity),
        )

    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        if response.status == 404 and request.path.startswith("/paper/"):
            if _is_not_found(response):
                return []
        if response.status != 200:
            raise UnexpectedStatus(
                f"semanticscholar: HTTP {response.status}{_error_detail(response)}",
                response.status,
            )
        body = json_body(response, self.name)
        if isinstance(body, list):
            # A batch answer: aligned with the ids asked for, unknown ids are null.
            return [self._record(paper) for paper in body if paper is not None]
        if not isinstance(body, dict):
            raise MalformedResponse("semanticscholar: body is neither an object nor a list")
        if "data" in body:
            data = body["data"]
            if not isinstance(data, list):
                raise MalformedResponse("semanticscholar: 'data' is not a list")
            return [self._record(paper) for paper in data]
        if "paperId" in body:
            return [self._record(body)]
        if body.get("total") == 0:
            return []  # an empty search has "total" and "offset" but no "data" key
        raise MalformedResponse(
            f"semanticscholar: neither a paper nor a list{_error_detail(response)}"
        )

    def _record(self, paper: object) -> WorkRecord:
        if not isinstance(paper, dict):
            raise MalformedResponse("semanticscholar: a paper is not an object")
        paper_id = paper.get("paperId")
        if not isinstance(paper_id, str) or not paper_id.strip():
            raise MalformedResponse("semanticscholar: a paper without a paperId")
        paper_id = paper_id.strip()
        title, prefixed = strip_retracted_prefix(clean_text(paper.get("title")))
        journal = json_object(paper.get("journal"))
        venue = json_object(paper.get("publicationVenue"))
        url = clean_text(paper.get("url")) or f"https://www.semanticscholar.org/paper/{paper_id}"
        open_access = paper.get("isOpenAccess")
        return WorkRecord(
            source=self.name,
            source_id=paper_id,
            url=url,
            title=title,
            authors=_authors(paper.get("authors")),
            year=_year(paper.get("year"), paper.get("publicationDate")),
            container=clean_text(journal.get("name"))
            or clean_text(paper.get("venue"))
            or clean_text(venue.get("name")),
            volume=clean_text(journal.get("volume")),
            pages=_SPACED_HYPHEN.sub("-", clean_text(journal.get("pages"))),
            type=_work_type(paper.get("publicationTypes")),
            identifiers=_identifiers(json_object(paper.get("externalIds")), venue),
            retracted=True if prefixed else None,
            open_access=open_access if isinstance(open_access, bool) else None,
        )


def _headers(identity: Identity) -> tuple[tuple[str, str], ...]:
    return (("x-api-key", identity.api_key),) if identity.api_key else ()


def _paper_id(ids: Identifiers) -> str | None:
    """The ``/paper/{id}`` segment for the best identifier, or None when there is none."""
    doi = bare_doi(ids.doi)
    arxiv = (ids.arxiv or "").strip().lower()
    if doi is not None and doi.startswith(_ARXIV_DOI_PREFIX):
        arxiv = arxiv or doi[len(_ARXIV_DOI_PREFIX) :]
        doi = None
    if doi is not None:
        return "DOI:" + doi_path(doi)
    if arxiv:
        # Old-style ids keep their slash ("hep-th/9901001"), as DOIs do.
        return "ARXIV:" + quote(arxiv, safe="/")
    pmid = (ids.pmid or "").strip()
    if pmid.isdigit():
        return "PMID:" + pmid
    return None


def _is_not_found(response: HttpResponse) -> bool:
    # S2's own "not found" names itself in "error"; a gateway 404 for a wrong route
    # would not, and must not read as "no such paper".
    try:
        body = json_body(response, "semanticscholar")
    except MalformedResponse:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, str) and "not found" in error.lower()


def _error_detail(response: HttpResponse) -> str:
    """ " (text)" from an S2 error body ("error" on 400/404, "message" on 403/429)."""
    try:
        body = json_body(response, "semanticscholar")
    except MalformedResponse:
        return ""
    if not isinstance(body, dict):
        return ""
    for key in ("error", "message"):
        text = body.get(key)
        if isinstance(text, str) and text.strip():
            return f" ({text.strip()})"
    return ""


def _authors(value: object) -> tuple[Author, ...]:
    if not isinstance(value, list):
        return ()
    authors: list[Author] = []
    for entry in value:
        name = clean_text(entry.get("name")) if isinstance(entry, dict) else ""
        author = split_person_name(_latin_display_name(name))
        if author is not None:
            authors.append(author)
    return tuple(authors)


def _latin_display_name(name: str) -> str:
    """A display name without the non-Latin duplicates S2 sometimes splices in.

    S2 names are "Given Family". A few arrive as "Kyriacos, Κυριάκος, Athanasiou,
    Αθανασίου": Latin and native spellings by turns. Read with its commas it would make
    "Kyriacos" the family name; the Latin parts alone, in order, give the display name.
    """
    if "," not in name:
        return name
    parts = [part.strip() for part in name.split(",") if part.strip()]
    latin = [part for part in parts if _is_latin(part)]
    if not latin or len(latin) == len(parts):
        return name  # an ordinary "Family, Given" (or all non-Latin): leave it to the split
    return " ".join(latin)


def _is_latin(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and all(unicodedata.name(c, "").startswith("LATIN") for c in letters)


def _year(year: object, date: object) -> int | None:
    if isinstance(year, int) and not isinstance(year, bool):
        return year
    # publicationDate is "YYYY-MM-DD" (or null) when year is missing.
    if isinstance(date, str) and date[:4].isdigit():
        return int(date[:4])
    return None


def _work_type(value: object) -> WorkType:
    if not isinstance(value, list):
        return WorkType.UNKNOWN
    kinds = {v for v in value if isinstance(v, str)}
    if not kinds:
        return WorkType.UNKNOWN
    for kind, work_type in _TYPE_PRIORITY:
        if kind in kinds:
            return work_type
    return WorkType.OTHER  # Dataset, News ...


def _identifiers(external: dict[str, Any], venue: dict[str, Any]) -> Identifiers:
    pmcid = _text_id(external.get("PubMedCentral"))
    if pmcid and not pmcid.upper().startswith("PMC"):
        pmcid = f"PMC{pmcid}"  # S2 gives the bare number
    issn = _text_id(venue.get("issn"))
    return Identifiers(
        doi=bare_doi(external.get("DOI")),
        arxiv=_text_id(external.get("ArXiv")).lower() or None,
        pmid=_text_id(external.get("PubMed")) or None,
        pmcid=pmcid.upper() or None,
        issn=(issn,) if issn else (),
    )


def _text_id(value: object) -> str:
    """An id S2 gives as a string (or, for some, a number), stripped; "" when absent."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _policy(who: Identification) -> SourcePolicy:
    return SourcePolicy(one_class(1, concurrency=1), max_concurrency=1,
                        pool="keyed" if who.api_key else "shared")


SERVICE = ServiceDeclaration(
    "semanticscholar", "https://api.semanticscholar.org/graph/v1", "S2_API_KEY", _policy
)
"""The service's one declaration: name, base URL, key variable, published limits."""
