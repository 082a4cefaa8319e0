"""Crossref REST API (https://api.crossref.org)."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Final

from verifier.citations.candidates import Candidate
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, UnexpectedStatus
from verifier.http.policy import RateClass, SourcePolicy
from verifier.http.service import Identification, ServiceDeclaration, one_class
from verifier.http.transport import HttpRequest, HttpResponse

from ._lazy_json import crossref_works, work_item
from ._memo import RecordMemo, item_key
from ._text import (
    bare_doi,
    clean_text,
    doi_path,
    header_number,
    json_body,
    json_object,
    registered_doi,
    split_person_name,
    string_tuple,
    strip_retracted_prefix,
)
from .base import Identity, RateHint, SourceAdapter

if TYPE_CHECKING:
    from msgspec import Raw

_SELECT = (
    "DOI,title,subtitle,author,editor,issued,published,container-title,type,ISBN,ISSN,"
    "volume,issue,page,publisher,update-to,updated-by,relation,score"
)
_SEARCH_ROWS = "5"
_SEARCH_NAMES = 3
"""Cited family names added to the search: enough to rank the right work first."""

# DataCite DOIs (arXiv, Zenodo) are a 404 on /works/{doi}: a lookup would read as "no
# such work" when Crossref simply does not hold it. Leave these to search.
_NOT_CROSSREF_PREFIXES = ("10.48550/", "10.5281/")

_DATE_FIELDS = ("issued", "published-print", "published-online", "published")
_RETRACTION_UPDATES = frozenset({"retraction", "partial_retraction", "withdrawal", "removal"})
_TYPES = {
    "journal-article": WorkType.ARTICLE,
    "book": WorkType.BOOK,
    "monograph": WorkType.BOOK,
    "edited-book": WorkType.BOOK,
    "reference-book": WorkType.BOOK,
    "book-set": WorkType.BOOK,
    "book-chapter": WorkType.CHAPTER,
    "book-section": WorkType.CHAPTER,
    "book-part": WorkType.CHAPTER,
    "reference-entry": WorkType.CHAPTER,
    "proceedings-article": WorkType.PROCEEDINGS,
    "proceedings": WorkType.PROCEEDINGS,
    "posted-content": WorkType.PREPRINT,
    "dissertation": WorkType.THESIS,
    "report": WorkType.REPORT,
    "report-component": WorkType.REPORT,
}
_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.I)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


class CrossrefAdapter(SourceAdapter):
    """Crossref: DOI lookup on ``/works/{doi}``, reference search on ``/works``.

    Service-specific:

    - ``mailto`` (polite pool) travels as an identity parameter; a Metadata Plus token
      goes in the ``Crossref-Plus-API-Token`` header.
    - Search uses ``query.bibliographic``, the field Crossref meant for whole references.
      It never answers "no" for real words: the top hit must be checked by the caller.
    - An unknown DOI is a 404 with a ``text/plain`` body, which reads as ``[]``.
    - Retractions (publisher and Retraction Watch) are ``updated-by`` entries on the
      retracted work, so ``retracted`` is True or False; it is None only when the
      request's ``select`` left ``updated-by`` out. A notice (an item with ``update-to``)
      is never itself retracted.
    - Rate headers state the single-record class's figures, even on list calls.
    """

    name = "crossref"

    def __init__(self) -> None:
        self._records = RecordMemo()

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        doi = bare_doi(citation.identifiers.doi)
        if doi is None or doi.startswith(_NOT_CROSSREF_PREFIXES):
            return None
        return HttpRequest(
            path="/works/" + doi_path(doi),
            request_class="single",
            headers=_headers(identity),
            identity_params=_identity_params(identity),
        )

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        title = " ".join(citation.title.split())
        if not title:
            return None
        names = [a.family or a.literal for a in citation.authors if a.family or a.literal]
        names = names[:_SEARCH_NAMES]
        year = [str(citation.year)] if citation.year else []
        # No query.author: field queries must match, so one misspelled cited name would
        # hide the real work; query.bibliographic already weighs the names in.
        params: list[tuple[str, str]] = [("query.bibliographic", " ".join([title, *names, *year]))]
        params += [("rows", _SEARCH_ROWS), ("select", _SELECT)]
        return HttpRequest(
            path="/works",
            params=tuple(params),
            request_class="list",
            headers=_headers(identity),
            identity_params=_identity_params(identity),
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
            if _is_plain_not_found(response):
                return []
        if response.status != 200:
            raise UnexpectedStatus(
                f"crossref: HTTP {response.status}{_error_detail(response)}", response.status
            )
        retraction_known = _selects(request, "updated-by")
        works = crossref_works(response.body)
        if works is None:  # not a well-formed answer: read whole, to say what is wrong
            return [self._candidate(item, retraction_known) for item in _items(response)]
        return [self._lazy_candidate(head.DOI, head.title, head.subtitle, raw, retraction_known)
                for head, raw in works]

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        # Plus responses have been seen spelling the limit "x-rate-limit".
        limit = header_number(response.header("x-rate-limit-limit"))
        if limit is None:
            limit = header_number(response.header("x-rate-limit"))
        interval = _interval_seconds(response.header("x-rate-limit-interval"))
        concurrency = header_number(response.header("x-concurrency-limit"))
        pool = response.header("x-api-pool") or None
        if limit is None and interval is None and concurrency is None and pool is None:
            return None
        return RateHint(
            request_class="single",
            limit=limit,
            interval_s=interval,
            concurrency=int(concurrency) if concurrency else None,
            pool=pool,
        )

    def _candidate(self, item: object, retraction_known: bool) -> Candidate:
        """One work of an answer read whole (see :meth:`_candidates`): refused when it is
        not an object or has no DOI; its record is built when asked."""
        if not isinstance(item, dict):
            raise MalformedResponse("crossref: a work is not an object")
        return self._lazy_candidate(item.get("DOI"), item.get("title"), item.get("subtitle"),
                                    item, retraction_known)

    def _lazy_candidate(self, doi_value: object, title_value: object, subtitle_value: object,
                        work: dict[str, Any] | Raw, retraction_known: bool) -> Candidate:
        """One work read far enough to refuse it (no DOI) and to know its title; ``work``
        is the work itself, decoded or as its JSON bytes (``msgspec.Raw``, decoded by
        :meth:`_memoised_record` if the record is asked for)."""
        doi = registered_doi(doi_value)  # Crossref registers it: its case is the DOI's
        if doi is None:
            raise MalformedResponse("crossref: a work without a DOI")
        title, prefixed = strip_retracted_prefix(_title(title_value, subtitle_value))
        return Candidate(title, self._memoised_record,
                         _Work(work, retraction_known, doi, title, prefixed))

    def _memoised_record(self, work: _Work) -> WorkRecord:
        """``_record(work)``, from the memo when the same item (its search ``score``
        aside: the record never reads it) was built before.

        Takes ``score`` out of the item itself: the item is the answer's own, freshly
        decoded and read by nothing else (no copy made for the key)."""
        found = work.item
        if isinstance(found, dict):
            item, memoisable = found, True
        else:
            item, memoisable = work_item(found)
        # The answer's ranking, not the work's: left out of the key.
        item.pop("score", None)
        if not memoisable:
            return self._record(work, item)
        key = (work.retraction_known, item_key(item))
        record = self._records.get(key)
        if record is None:
            record = self._records.put(key, self._record(work, item))
        return record

    def _record(self, work: _Work, item: dict[str, Any]) -> WorkRecord:
        """The record of a work :meth:`_lazy_candidate` read, ``item`` its JSON object
        (never raises)."""
        doi = work.doi
        retracted: bool | None
        retracted, notices = _updates(item)
        if item.get("update-to"):
            retracted = False  # a notice about another work, not a retracted work
        elif work.prefixed:
            retracted = True
        elif not work.retraction_known:
            retracted = None
        return WorkRecord(
            source=self.name,
            source_id=doi,
            url=f"https://doi.org/{doi}",
            title=work.title,
            authors=_authors(item.get("author")),
            year=_year(item),
            container=clean_text(_first(item.get("container-title"))),
            volume=clean_text(item.get("volume")),
            issue=clean_text(item.get("issue")),
            pages=clean_text(item.get("page")),
            publisher=clean_text(item.get("publisher")),
            type=_work_type(item.get("type")),
            identifiers=Identifiers(
                doi=doi, isbn=string_tuple(item.get("ISBN")), issn=string_tuple(item.get("ISSN"))
            ),
            retracted=retracted,
            notices=notices,
        )


class _Work:
    """What :meth:`CrossrefAdapter._lazy_candidate` read of one work, for its record;
    ``item`` is the work's decoded object or its JSON bytes."""

    __slots__ = ("item", "retraction_known", "doi", "title", "prefixed")

    def __init__(self, item: dict[str, Any] | Raw, retraction_known: bool, doi: str, title: str,
                 prefixed: bool) -> None:
        self.item: Final = item
        self.retraction_known: Final = retraction_known
        self.doi: Final = doi
        self.title: Final = title
        self.prefixed: Final = prefixed


def _items(response: HttpResponse) -> list[Any]:
    """The works of a 200 answer decoded whole; ``MalformedResponse`` saying what is
    wrong with an answer that is not an ``ok`` work or work list."""
    envelope = json_body(response, "crossref")
    if not isinstance(envelope, dict) or envelope.get("status") != "ok":
        raise MalformedResponse(f"crossref: not an 'ok' envelope{_error_detail(response)}")
    kind, message = envelope.get("message-type"), envelope.get("message")
    if kind == "work" and isinstance(message, dict):
        return [message]
    if kind == "work-list" and isinstance(message, dict):
        found = message.get("items")
        if not isinstance(found, list):
            raise MalformedResponse("crossref: work-list without an items list")
        return found
    raise MalformedResponse(f"crossref: unexpected message-type {kind!r}")


def _headers(identity: Identity) -> tuple[tuple[str, str], ...]:
    if identity.api_key:
        return (("Crossref-Plus-API-Token", f"Bearer {identity.api_key}"),)
    return ()


def _identity_params(identity: Identity) -> tuple[tuple[str, str], ...]:
    return (("mailto", identity.mailto),) if identity.mailto else ()


def _is_plain_not_found(response: HttpResponse) -> bool:
    # Crossref's own "no such DOI" is plain text; a JSON 404 (e.g. a bad cursor) is not.
    return response.content_type == "text/plain" or response.body.strip().startswith(
        b"Resource not found"
    )


def _error_detail(response: HttpResponse) -> str:
    """ " (type: message)" from a Crossref error envelope, or "" when there is none."""
    if response.content_type != "application/json":
        return ""
    try:
        envelope = json_body(response, "crossref")
    except MalformedResponse:
        return ""
    messages = envelope.get("message") if isinstance(envelope, dict) else None
    if isinstance(messages, list) and messages and isinstance(messages[0], dict):
        first = messages[0]
        return f" ({first.get('type', 'error')}: {first.get('message', '')})"
    return ""


def _selects(request: HttpRequest, field: str) -> bool:
    """Whether answers to ``request`` carry ``field`` (every field when nothing is selected)."""
    selected = [value for key, value in request.params if key == "select"]
    return not selected or field in _fields(selected[-1])


@functools.lru_cache(maxsize=64)
def _fields(select: str) -> frozenset[str]:
    """The field names of a ``select`` value, remembered: every search selects the same."""
    return frozenset(select.split(","))


def _first(value: object) -> object:
    if isinstance(value, list):
        for v in value:
            if isinstance(v, str) and v.strip():
                return v
        return ""
    return value


def _title(title_value: object, subtitle_value: object) -> str:
    title = clean_text(_first(title_value))
    subtitle = clean_text(_first(subtitle_value))
    # Some publishers already put the subtitle into the title.
    if not subtitle or subtitle.lower() in title.lower():
        return title
    if not title:
        return subtitle
    return f"{title} {subtitle}" if title[-1] in ":?!." else f"{title}: {subtitle}"


def _authors(value: object) -> tuple[Author, ...]:
    if not isinstance(value, list):
        return ()
    authors: list[Author] = []
    for entry in value:
        if not isinstance(entry, dict):
            continue
        family, given = clean_text(entry.get("family")), clean_text(entry.get("given"))
        if family:
            authors.append(Author(family=family, given=given))
        elif literal := clean_text(entry.get("name")):  # corporate authors: only "name"
            authors.append(Author(literal=literal))
        elif given and (author := split_person_name(given)) is not None:
            authors.append(author)
    return tuple(authors)


def _year(item: dict[str, Any]) -> int | None:
    for field in _DATE_FIELDS:
        parts = json_object(item.get(field)).get("date-parts")
        # date-parts is [[Y, M, D]], [[Y]] or, rarely, [[null]].
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            year = parts[0][0]
            if isinstance(year, int) and not isinstance(year, bool):
                return year
            if isinstance(year, str) and year.strip().isdigit():
                return int(year)
    return None


def _work_type(value: object) -> WorkType:
    if not isinstance(value, str) or not value:
        return WorkType.UNKNOWN
    return _TYPES.get(value.lower(), WorkType.OTHER)


def _updates(item: dict[str, Any]) -> tuple[bool, tuple[str, ...]]:
    """Whether an ``updated-by`` entry retracts the work, and the other update kinds."""
    retracted = False
    notices: list[str] = []
    entries = item.get("updated-by")
    for entry in entries if isinstance(entries, list) else ():
        raw = entry.get("type") if isinstance(entry, dict) else None
        if not isinstance(raw, str) or not raw.strip():
            continue
        kind = raw.strip().lower().replace("-", "_").replace(" ", "_")
        if kind in _RETRACTION_UPDATES:
            retracted = True
        elif kind not in notices:
            notices.append(kind)
    return retracted, tuple(notices)


def _interval_seconds(value: str | None) -> float | None:
    match = _INTERVAL.match(value) if value else None
    if match is None:
        return None
    return float(match.group(1)) * _UNIT_SECONDS[(match.group(2) or "s").lower()]


def _policy(who: Identification) -> SourcePolicy:
    if who.api_key:
        return SourcePolicy(one_class(150, concurrency=10), max_concurrency=10, pool="plus")
    if who.mailto:
        classes = {"single": RateClass(10, 1, 3), "list": RateClass(3, 1, 3)}
        return SourcePolicy(classes, max_concurrency=3, pool="polite")
    classes = {"single": RateClass(5, 1, 1), "list": RateClass(1, 1, 1)}
    return SourcePolicy(classes, max_concurrency=1, pool="public")


SERVICE = ServiceDeclaration("crossref", "https://api.crossref.org", "CROSSREF_PLUS_TOKEN", _policy)
"""The service's one declaration: name, base URL, key variable, published limits."""
