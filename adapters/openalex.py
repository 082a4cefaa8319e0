"""OpenAlex (https://api.openalex.org)."""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import quote

from verifier.citations.candidates import Candidate
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.policy import SourcePolicy
from verifier.http.service import Identification, ServiceDeclaration, one_class
from verifier.http.transport import HttpRequest, HttpResponse

from ._memo import RecordMemo, item_key
from ._text import (
    bare_doi,
    clean_text,
    doi_path,
    header_number,
    json_body,
    json_object,
    split_person_name,
    string_tuple,
    strip_retracted_prefix,
)
from .base import Identity, RateHint, SourceAdapter

_SELECT = (
    "id,doi,title,display_name,publication_year,publication_date,authorships,"
    "primary_location,type,type_crossref,ids,biblio,is_retracted"
)
_PER_PAGE = "5"
_SEARCH_CREDITS = 10.0
"""A title.search filter is billed as a search: 10 credits (a plain list is 1)."""
# A comma ends a filter value and "|" means OR, whatever the quoting; quotes would end
# the quoted phrase and curly apostrophes have broken title search.
# "?" and "*" are wildcards that OpenAlex refuses in a quoted search (HTTP 400).
_FILTER_UNSAFE = str.maketrans(
    {",": " ", "|": " ", "?": " ", "*": " ", '"': None, "“": None, "”": None, "„": None,
     "‘": None, "’": None}
)
_TYPES = {
    "article": WorkType.ARTICLE,
    "review": WorkType.ARTICLE,
    "letter": WorkType.ARTICLE,
    "editorial": WorkType.ARTICLE,
    "book": WorkType.BOOK,
    "book-chapter": WorkType.CHAPTER,
    "reference-entry": WorkType.CHAPTER,
    "preprint": WorkType.PREPRINT,
    "dissertation": WorkType.THESIS,
    "report": WorkType.REPORT,
}
_PMID_PREFIX = "https://pubmed.ncbi.nlm.nih.gov/"
_PMCID_PREFIX = "https://www.ncbi.nlm.nih.gov/pmc/articles/"


class OpenAlexAdapter(SourceAdapter):
    """OpenAlex: singleton lookup by DOI (or PMID), title search via ``title.search``.

    Service-specific:

    - Identification is an ``api_key`` parameter; ``mailto`` is retired and not sent.
    - Singleton lookups are free; a ``title.search`` costs search credits from a daily
      budget. The search has no year filter on purpose: OpenAlex years can be off by one.
    - Commas, ``|`` and quotes are removed from the searched title: a comma splits a
      filter value even inside quotes.
    - An unknown id is a 404 with an HTML body, which reads as ``[]``.
    - ``retracted`` is OpenAlex's ``is_retracted`` flag (Retraction Watch data).
    - Rate headers count credits of a daily budget, not requests per second: only
      ``remaining`` and ``reset_s`` are reported.
    """

    name = "openalex"

    def __init__(self) -> None:
        self._records = RecordMemo()

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        ids = citation.identifiers
        doi = bare_doi(ids.doi)
        if doi is not None:
            path = "/works/doi:" + doi_path(doi)
        elif ids.pmid and ids.pmid.strip().isdigit():
            path = "/works/pmid:" + quote(ids.pmid.strip(), safe="")
        else:
            return None
        # Singleton lookups are free of OpenAlex's daily credit budget.
        return HttpRequest(
            path=path,
            request_class="single",
            identity_params=_identity_params(identity),
            cost=0.0,
        )

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        title = " ".join(citation.title.translate(_FILTER_UNSAFE).split())
        if not title:
            return None
        return HttpRequest(
            path="/works",
            params=(
                ("filter", f'title.search:"{title}"'),
                ("per_page", _PER_PAGE),
                ("select", _SELECT),
            ),
            request_class="list",
            identity_params=_identity_params(identity),
            cost=_SEARCH_CREDITS,
        )

    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        return [candidate.record() for candidate in self._candidates(request, response)]

    def candidates(
        self, request: HttpRequest, response: HttpResponse
    ) -> tuple[list[Candidate], HttpRequest | None]:
        """Each work's title at once, its record when asked (see ``parse``)."""
        return self._candidates(request, response), None

    def _candidates(self, request: HttpRequest, response: HttpResponse) -> list[Candidate]:
        if response.status == 404 and request.path.startswith("/works/"):
            return []  # unknown id: an HTML "Not Found" page, not JSON
        if response.status != 200:
            raise UnexpectedStatus(
                f"openalex: HTTP {response.status}{_error_detail(response)}", response.status
            )
        body = json_body(response, self.name)
        if not isinstance(body, dict):
            raise MalformedResponse("openalex: body is not a JSON object")
        if "results" in body:
            results = body["results"]
            if not isinstance(results, list):
                raise MalformedResponse("openalex: 'results' is not a list")
            return [self._candidate(work) for work in results]
        if "id" in body or "doi" in body:
            return [self._candidate(body)]
        raise MalformedResponse(f"openalex: neither a work nor a list{_error_detail(response)}")

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        remaining = header_number(response.header("x-ratelimit-remaining"))
        reset = header_number(response.header("x-ratelimit-reset"))
        if remaining is None and reset is None:
            return _budget_body_hint(response)
        required = header_number(response.header("x-ratelimit-credits-required"))
        if remaining is not None and required is not None and remaining < required:
            remaining = 0.0  # credits left, but fewer than a call costs: the budget is spent
        # x-ratelimit-reset counts seconds to midnight UTC (not an epoch).
        return RateHint(remaining=remaining, reset_s=reset)

    def _candidate(self, work: object) -> Candidate:
        """One work of an answer: read far enough to refuse it (not an object, neither
        id nor DOI) and to know its title; the rest is :meth:`_record`'s, when asked."""
        if not isinstance(work, dict):
            raise MalformedResponse("openalex: a work is not an object")
        found = work.get("id")
        openalex_url = found if isinstance(found, str) else ""
        ids = json_object(work.get("ids"))
        doi = bare_doi(work.get("doi") or ids.get("doi"))
        if not openalex_url and doi is None:
            raise MalformedResponse("openalex: a work with neither id nor DOI")
        title, prefixed = strip_retracted_prefix(
            clean_text(work.get("title") or work.get("display_name"))
        )
        return Candidate(title, self._memoised_record,
                         _Work(work, openalex_url, ids, doi, title, prefixed))

    def _memoised_record(self, work: _Work) -> WorkRecord:
        """``_record(work)``, from the memo when the same item was built before."""
        key = item_key(work.item)
        record = self._records.get(key)
        if record is None:
            record = self._records.put(key, self._record(work))
        return record

    def _record(self, work: _Work) -> WorkRecord:
        """The record of a work :meth:`_candidate` read (never raises)."""
        item, openalex_url, doi = work.item, work.openalex_url, work.doi
        flag = item.get("is_retracted")
        source = _source(item)
        biblio = json_object(item.get("biblio"))
        return WorkRecord(
            source=self.name,
            source_id=openalex_url.rsplit("/", 1)[-1] if openalex_url else doi or "",
            url=openalex_url or f"https://doi.org/{doi}",
            title=work.title,
            authors=_authors(item.get("authorships")),
            year=_year(item.get("publication_year")),
            container=clean_text(source.get("display_name")),
            volume=clean_text(biblio.get("volume")),
            issue=clean_text(biblio.get("issue")),
            pages=_pages(biblio.get("first_page"), biblio.get("last_page")),
            type=_work_type(item.get("type"), item.get("type_crossref")),
            identifiers=Identifiers(
                doi=doi,
                issn=string_tuple(source.get("issn")),
                pmid=_strip_prefix(work.ids.get("pmid"), _PMID_PREFIX) or None,
                pmcid=_pmcid(work.ids.get("pmcid")),
            ),
            retracted=True if work.prefixed else flag if isinstance(flag, bool) else None,
        )


class _Work:
    """What :meth:`OpenAlexAdapter._candidate` read of one work, for its record."""

    __slots__ = ("item", "openalex_url", "ids", "doi", "title", "prefixed")

    def __init__(self, item: dict[str, Any], openalex_url: str, ids: dict[str, Any],
                 doi: str | None, title: str, prefixed: bool) -> None:
        self.item: Final = item
        self.openalex_url: Final = openalex_url
        self.ids: Final = ids
        self.doi: Final = doi
        self.title: Final = title
        self.prefixed: Final = prefixed


def _identity_params(identity: Identity) -> tuple[tuple[str, str], ...]:
    return (("api_key", identity.api_key),) if identity.api_key else ()


def _error_detail(response: HttpResponse) -> str:
    """ " (message)" from an OpenAlex JSON error body, or "" when there is none."""
    if response.content_type != "application/json":
        return ""
    try:
        body = json_body(response, "openalex")
    except MalformedResponse:
        return ""
    if isinstance(body, dict) and ("error" in body or "message" in body):
        return f" ({body.get('error', '')} {body.get('message', '')})".replace("( ", "(")
    return ""


def _source(work: dict[str, Any]) -> dict[str, Any]:
    return json_object(json_object(work.get("primary_location")).get("source"))


def _authors(value: object) -> tuple[Author, ...]:
    if not isinstance(value, list):
        return ()
    authors: list[Author] = []
    for authorship in value:
        if not isinstance(authorship, dict):
            continue
        person = authorship.get("author")
        name = clean_text(person.get("display_name")) if isinstance(person, dict) else ""
        author = split_person_name(name or clean_text(authorship.get("raw_author_name")))
        if author is not None:
            authors.append(author)
    return tuple(authors)


def _year(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _pages(first: object, last: object) -> str:
    first_page, last_page = clean_text(first), clean_text(last)
    if first_page and last_page and first_page != last_page:
        return f"{first_page}-{last_page}"
    return first_page or last_page


def _work_type(kind: object, crossref_kind: object) -> WorkType:
    if not isinstance(kind, str) or not kind:
        return WorkType.UNKNOWN
    # OpenAlex files conference papers under "article"; Crossref's type tells them apart.
    if kind == "article" and crossref_kind == "proceedings-article":
        return WorkType.PROCEEDINGS
    return _TYPES.get(kind, WorkType.OTHER)


def _strip_prefix(value: object, prefix: str) -> str:
    if not isinstance(value, str):
        return ""
    value = value.strip()
    return value[len(prefix) :] if value.startswith(prefix) else value


def _pmcid(value: object) -> str | None:
    # OpenAlex gives the PMC URL with the bare number; the usual form is "PMC<number>".
    number = _strip_prefix(value, _PMCID_PREFIX).rstrip("/")
    if not number:
        return None
    return number if number.upper().startswith("PMC") else f"PMC{number}"


def _policy(who: Identification) -> SourcePolicy:
    # Credits: a record lookup is free, a list 1, a search 10. Keyless: $0.10/day
    # (1,000 credits, about 100 searches); a free key: $1/day (10,000 credits).
    if who.api_key:
        return SourcePolicy(one_class(100, concurrency=10), max_concurrency=10, pool="keyed",
                            daily_budget=10_000)
    return SourcePolicy(one_class(100, concurrency=10), max_concurrency=10, pool="keyless",
                        daily_budget=1_000, budget_hint="set OPENALEX_API_KEY")


SERVICE = ServiceDeclaration("openalex", "https://api.openalex.org", "OPENALEX_API_KEY", _policy)
"""The service's one declaration: name, base URL, key variable, published limits."""


def _budget_body_hint(response: HttpResponse) -> RateHint | None:
    """A 429 whose JSON body says the daily budget is spent ("Insufficient budget",
    ``retryAfter`` seconds to midnight UTC), when no rate headers came with it."""
    if response.status != 429 or b"Insufficient budget" not in response.body:
        return None
    try:
        body = json_body(response, "openalex")
    except MalformedResponse:
        return None
    retry = body.get("retryAfter") if isinstance(body, dict) else None
    reset = retry if isinstance(retry, int | float) and not isinstance(retry, bool) else None
    if reset is None:
        reset = header_number(response.header("retry-after"))
    return RateHint(remaining=0.0, reset_s=float(reset) if reset is not None else None)
