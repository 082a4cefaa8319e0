"""Crossref REST API stand-in: the ``/works`` routes over a corpus.

Routes (also under ``/v1``, as on the real service):

- ``GET /works`` — search and filter: ``query``, ``query.<field>``, ``filter``, ``rows``
  (≤ 1000), ``offset`` (≤ 10000), ``cursor``, ``select``, ``sort``/``order``, ``mailto``.
- ``GET /works/{doi}`` — one work; an unknown DOI is a 404 ``text/plain`` "Resource not
  found." (not JSON), as recorded.
- ``GET /works/{doi}/agency`` — the DOI's registration agency.

Parameter validation follows Crossref's own (``cayenne.api.v1.validate``): failures are
collected and returned together as a 400 ``validation-failure`` with Crossref's types and
messages. Every response carries the pool headers of the caller's identification:
``Crossref-Plus-API-Token`` header → plus, ``mailto`` parameter or ``mailto:`` in the
User-Agent → polite, else public.

:data:`SERVICE` gives the world the published limits of each pool (from 1 Dec 2025):
a single record (``/works/{doi}``, ``/agency``) and a list (``/works?...``) are separate
classes — public 5/s and 1/s, one at a time; polite 10/s and 3/s, three at a time; plus
150/s. Excess gets the load balancer's HTML 429 page, without Retry-After, as reported.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

import orjson
from aiohttp import web
from multidict import MultiMapping

from .corpus import Clause, Corpus, Hit, Person, RenderedWork, SourceView
from .limits import clock_of
from .service import Limit, ServiceSpec, framing

NAME = "crossref"

POOL_HEADERS: Mapping[str, Mapping[str, str]] = {
    # Published figures from 1 Dec 2025; the headers show the single-record figure.
    "public": {"x-rate-limit-limit": "5", "x-rate-limit-interval": "1s",
               "x-concurrency-limit": "1"},
    "polite": {"x-rate-limit-limit": "10", "x-rate-limit-interval": "1s",
               "x-concurrency-limit": "3"},
    # The recorded plus responses carry no x-concurrency-limit.
    "plus": {"x-rate-limit-limit": "150", "x-rate-limit-interval": "1s"},
}
_COMMON_HEADERS: Mapping[str, str] = {
    "access-control-allow-origin": "*",
    "access-control-allow-headers": "X-Requested-With, Accept, Accept-Encoding, "
    "Accept-Charset, Accept-Language, Accept-Ranges, Cache-Control",
    "access-control-expose-headers": "Link",
    "permissions-policy": "interest-cohort=()",
    "Server": "Jetty(9.4.40.v20210413)",
}
LIMITS: Mapping[str, Mapping[str, Limit]] = {
    "public": {"single": Limit(5, concurrency=1), "list": Limit(1, concurrency=1)},
    "polite": {"single": Limit(10, concurrency=3), "list": Limit(3, concurrency=3)},
    "plus": {"single": Limit(150), "list": Limit(150)},  # no concurrency limit published
}
"""Published limits by pool and request class (Crossref blog, 5 Nov 2025)."""
THROTTLED_BODY = (b"<html><body><h1>429 Too Many Requests</h1>\nYou have sent too many "
                  b"requests in a given amount of time.\n</body></html>\n")
"""The load balancer's 429 page, as quoted in rest-api-doc issues #159, #237, #562."""
NOT_FOUND_BODY = "Resource not found."
MAX_ROWS = 1000
MAX_OFFSET = 10000
DEFAULT_ROWS = 20

TYPES: Mapping[str, str] = {
    "article": "journal-article",
    "book": "book",
    "chapter": "book-chapter",
    "proceedings": "proceedings-article",
    "thesis": "dissertation",
    "report": "report",
    "web": "other",
    "preprint": "posted-content",
    "other": "other",
}
# Crossref's type ids (the type filter validates against these).
_TYPE_IDS = frozenset({
    "book-section", "monograph", "report-component", "report", "peer-review", "book-track",
    "journal-article", "book-part", "other", "book", "journal-volume", "book-set",
    "reference-entry", "proceedings-article", "journal", "component", "book-chapter",
    "proceedings-series", "report-series", "proceedings", "database", "standard",
    "reference-book", "posted-content", "journal-issue", "dissertation", "grant", "dataset",
    "book-series", "edited-book",
})
_AVAILABLE_PARAMS = frozenset({
    "query", "rows", "offset", "sample", "facet", "filter", "sort", "order", "cursor",
    "select", "mailto",
})
# query.<field> the service accepts, and the corpus fields each one searches (None: a
# field the corpus does not model, so nothing matches it).
_FIELD_QUERIES: Mapping[str, frozenset[str] | None] = {
    "bibliographic": frozenset({"title", "author", "editor", "year", "container"}),
    "title": frozenset({"title"}),
    "author": frozenset({"author"}),
    "editor": frozenset({"editor"}),
    "contributor": frozenset({"author", "editor"}),
    "container-title": frozenset({"container"}),
    "publisher-name": frozenset({"publisher"}),
    "affiliation": None, "chair": None, "translator": None, "degree": None,
    "description": None, "event-name": None, "event-theme": None, "event-location": None,
    "event-sponsor": None, "event-acronym": None, "funder-name": None,
    "publisher-location": None, "standards-body-name": None,
    "standards-body-acronym": None,
}
_ALL_FIELDS = frozenset({"title", "author", "editor", "year", "container", "publisher"})
_SELECTABLE = (
    "abstract", "URL", "resource", "member", "posted", "score", "created", "degree",
    "update-policy", "short-title", "license", "ISSN", "container-title", "issued",
    "update-to", "issue", "prefix", "approved", "indexed", "article-number",
    "clinical-trial-number", "accepted", "author", "group-title", "DOI",
    "is-referenced-by-count", "updated-by", "event", "chair", "standards-body",
    "original-title", "funder", "translator", "archive", "published-print",
    "alternative-id", "subject", "subtitle", "published-online", "publisher-location",
    "content-domain", "reference", "title", "link", "type", "publisher", "volume",
    "references-count", "ISBN", "issn-type", "isbn-type", "assertion", "deposited", "page",
    "content-created", "short-container-title", "relation", "editor", "published",
    "journal-issue", "institution", "review",
)
_SORT_FIELDS = frozenset({
    "score", "relevance", "updated", "deposited", "indexed", "published", "published-print",
    "published-online", "issued", "is-referenced-by-count", "references-count", "created",
})
_SORT_ORDERS = ("asc", "desc", "1", "-1")
_FILTERS = (
    "from-pub-date", "until-pub-date", "from-issued-date", "until-issued-date", "type",
    "doi", "isbn", "issn", "container-title", "has-update",
)
_INDEXED = {"date-parts": [[2026, 6, 1]], "date-time": "2026-06-01T00:00:00Z",
            "timestamp": 1780272000000}


# ----------------------------------------------------------------------------- identity


def identify_pool(headers: Mapping[str, str], query: Mapping[str, str]) -> str:
    """The pool a request lands in: ``plus``, ``polite`` or ``public``."""
    if headers.get("Crossref-Plus-API-Token", "").strip():
        return "plus"
    if query.get("mailto", "").strip() or "mailto:" in headers.get("User-Agent", "").lower():
        return "polite"
    return "public"


def request_class(request: web.Request) -> str:
    """``single`` for a record (``/works/{doi}`` and its ``/agency``), ``list`` for
    ``/works?...`` (and anything else: unknown routes are answered like lists)."""
    route = request.match_info.route
    name = (route.name or "") if route is not None else ""
    return "single" if name.removeprefix("v1.") in ("work", "agency") else "list"


def throttled(retry_after: float | None) -> web.Response:
    """Crossref's 429: the HTML load-balancer page, no Retry-After, connection closed.
    ``retry_after`` is ignored: Crossref was never seen sending one."""
    response = web.Response(status=429, body=THROTTLED_BODY,
                            headers={"Content-Type": "text/html", "Cache-Control": "no-cache"})
    response.force_close()
    return response


# ----------------------------------------------------------------------------- rendering


def _date(year: int | None) -> dict[str, Any]:
    return {"date-parts": [[year]]}


def _person(index: int, person: Person) -> dict[str, Any]:
    sequence = "first" if index == 0 else "additional"
    if person.literal:
        return {"name": person.literal, "sequence": sequence, "affiliation": []}
    out: dict[str, Any] = {}
    if person.given:
        out["given"] = person.given
    out.update(family=person.family, sequence=sequence, affiliation=[])
    return out


def _member(prefix: str) -> str:
    return str(int(hashlib.sha256(prefix.encode()).hexdigest()[:6], 16) % 40000 + 1)


def work_json(record: RenderedWork, *, score: float) -> dict[str, Any]:
    """A work as Crossref's ``message`` (a list item or the singleton's message)."""
    work = record.work
    doi = record.doi or ""
    prefix = doi.split("/", 1)[0]
    url = f"https://doi.org/{doi}"
    created_year = max(work.year or 2002, 2002)  # Crossref began registering in 2000s
    out: dict[str, Any] = {
        "indexed": _INDEXED,
        "reference-count": 0,
        "publisher": work.publisher or "",
    }
    if work.issue:
        out["issue"] = work.issue
    out["content-domain"] = {"domain": [], "crossmark-restriction": False}
    out["short-container-title"] = []
    if work.year is not None:
        out["published-print"] = _date(work.year)
    out.update({
        "DOI": doi,
        "type": TYPES[work.type],
        "created": {"date-parts": [[created_year, 1, 1]],
                    "date-time": f"{created_year}-01-01T00:00:00Z",
                    "timestamp": 0},
    })
    if work.pages:
        out["page"] = work.pages.replace("\u2013", "-").replace("\u2014", "-")
    out.update({
        "source": "Crossref",
        "is-referenced-by-count": 0,
        "title": [record.title],
        "prefix": prefix,
    })
    if work.volume:
        out["volume"] = work.volume
    if record.authors:
        out["author"] = [_person(i, p) for i, p in enumerate(record.authors)]
    if work.editors:
        out["editor"] = [_person(i, p) for i, p in enumerate(work.editors)]
    out["member"] = _member(prefix)
    out["container-title"] = [work.container] if work.container else []
    out["deposited"] = out["created"]
    out["score"] = score
    out["resource"] = {"primary": {"URL": url}}
    out["subtitle"] = [record.subtitle] if record.subtitle else []
    out["issued"] = _date(record.year)
    out["references-count"] = 0
    out["URL"] = url
    if work.issn:
        out["ISSN"] = list(work.issn)
        out["issn-type"] = [{"value": v, "type": "print"} for v in work.issn]
    if work.isbn:
        out["ISBN"] = list(work.isbn)
        out["isbn-type"] = [{"value": v, "type": "print"} for v in work.isbn]
    out["published"] = _date(record.year)
    if work.retracted:
        notice = work.retraction
        year = notice.year if notice and notice.year else record.year
        update: dict[str, Any] = {}
        if notice and notice.doi:
            update["DOI"] = notice.doi
        update.update({
            "type": "retraction",
            "label": "Retraction",
            "source": notice.source if notice else "publisher",
            "updated": {"date-parts": [[year, 1, 1]], "date-time": f"{year}-01-01T00:00:00Z",
                        "timestamp": 0},
        })
        out["updated-by"] = [update]
    for other in work.notices:
        # As Crossref records them: one updated-by entry per notice, typed.
        when = other.year or record.year
        entry: dict[str, Any] = {"DOI": other.doi} if other.doi else {}
        entry.update({
            "type": other.kind,
            "label": _NOTICE_LABELS[other.kind],
            "source": other.source,
            "updated": {"date-parts": [[when, 1, 1]], "date-time": f"{when}-01-01T00:00:00Z",
                        "timestamp": 0},
        })
        out.setdefault("updated-by", []).append(entry)
    return out


_NOTICE_LABELS = {"correction": "Correction", "expression_of_concern": "Expression of Concern"}


# ----------------------------------------------------------------------------- responses


def _json(status: int, body: Any, content_type: str = "application/json") -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body),
                        headers={"Content-Type": content_type})


def not_found() -> web.Response:
    """Crossref's "not found": a text/plain 404, not JSON."""
    # Bytes and an explicit header: aiohttp would add "; charset=utf-8" to text=.
    return web.Response(status=404, body=NOT_FOUND_BODY.encode(),
                        headers={"Content-Type": "text/plain"})


def _validation_failure(failures: list[dict[str, Any]]) -> web.Response:
    return _json(400, {"status": "failed", "message-type": "validation-failure",
                       "message": failures}, "application/json;charset=utf-8")


def _failure(kind: str, value: Any, message: str) -> dict[str, Any]:
    return {"type": kind, "value": value, "message": message}


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"world-offset:{offset}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int | None:
    if cursor == "*":
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    tag, _, number = raw.partition(":")
    return int(number) if tag == "world-offset" and number.isdigit() else None


# ----------------------------------------------------------------------------- validation


def _integer(params: MultiMapping[str], name: str, maximum: int | None,
             failures: list[dict[str, Any]], suffix: str = "") -> int | None:
    raw = params.get(name)
    if raw is None:
        return None
    if raw.isdigit() and (maximum is None or int(raw) <= maximum):
        return int(raw)
    bound = f" less than or equal to {maximum}" if maximum is not None else ""
    failures.append(_failure("integer-not-valid", raw,
                             f"Integer specified as {raw} but must be a positive integer"
                             f"{bound}. {suffix}"))
    return None


def _year_of(date: str) -> int | None:
    head = date.split("-", 1)[0]
    parts = date.split("-")
    if (len(head) == 4 and head.isdigit() and len(parts) <= 3
            and all(p.isdigit() for p in parts)):
        return int(head)
    return None


def _parse_filters(raw: str, failures: list[dict[str, Any]]
                   ) -> Callable[[RenderedWork], bool] | None:
    """Crossref's ``key:val,...`` filter as a predicate (same key: OR; keys: AND)."""
    pairs: list[tuple[str, str]] = []
    for piece in raw.split(","):
        key, sep, value = piece.partition(":")
        if not sep:
            failures.append(_failure(
                "pair-list-form-invalid", raw,
                f"Pair list form specified as '{raw}' but should be of the form: "
                "key:val,...,keyN:valN"))
            return None
        pairs.append((key, value))
    groups: dict[str, list[Callable[[RenderedWork], bool]]] = {}
    for key, value in pairs:
        test = _filter_test(key, value, failures)
        if test is not None:
            groups.setdefault(key, []).append(test)
    return lambda rec: all(any(t(rec) for t in tests) for tests in groups.values())


def _filter_test(key: str, value: str, failures: list[dict[str, Any]]
                 ) -> Callable[[RenderedWork], bool] | None:
    if key not in _FILTERS:
        failures.append(_failure(
            "filter-not-available", key,
            f"Filter {key} specified but there is no such filter for this route. "
            f"Valid filters for this route are: {', '.join(_FILTERS)}"))
        return None
    if key.endswith(("-pub-date", "-issued-date")):
        year = _year_of(value)
        if year is None:
            failures.append(_failure("date-not-valid", value,
                                     f"Date specified as {value} but must be of the form: "
                                     "yyyy or yyyy-MM or yyyy-MM-dd"))
            return None
        # The corpus holds years only, so dates compare by year.
        if key.startswith("from-"):
            return lambda rec: rec.year is not None and rec.year >= year
        return lambda rec: rec.year is not None and rec.year <= year
    if key == "type":
        if value not in _TYPE_IDS:
            failures.append(_failure("type-not-valid", value,
                                     f"Type specified as {value} but must be one of: "
                                     f"{', '.join(sorted(_TYPE_IDS))}"))
            return None
        return lambda rec: TYPES[rec.work.type] == value
    if key == "doi":
        wanted = value.lower()
        return lambda rec: (rec.doi or "").lower() == wanted
    if key == "isbn":
        isbn = value.replace("-", "").upper()
        return lambda rec: isbn in rec.work.isbn
    if key == "issn":
        return lambda rec: value.upper() in rec.work.issn
    if key == "container-title":
        wanted = value.casefold()
        return lambda rec: (rec.work.container or "").casefold() == wanted
    # has-update: the work has an update notice (here: a retraction)
    flag = value.lower() in ("t", "true", "1")
    return lambda rec: rec.work.retracted == flag


# ----------------------------------------------------------------------------- handlers


def _path_doi(request: web.Request) -> str:
    """The DOI of a ``/works/{doi}`` path as Jetty sees it: a bare ``;`` starts a path
    parameter, which is dropped up to the end of its segment (``%3B`` is kept)."""
    raw = request.raw_path.split("?", 1)[0]
    _, _, tail = raw.partition("/works/")
    segments = [segment.split(";", 1)[0] for segment in tail.split("/")]
    return unquote("/".join(segments))


class CrossrefService:
    """Request handlers over one source view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.view: SourceView = corpus.source(NAME)

    async def works(self, request: web.Request) -> web.Response:
        params = request.query
        failures: list[dict[str, Any]] = []
        for name in params:
            if not name.startswith("query.") and name not in _AVAILABLE_PARAMS:
                failures.append(_failure(
                    "unknown-parameter", name,
                    f"Parameter {name} specified but there is no such parameter available "
                    "on any route"))
        rows = _integer(params, "rows", MAX_ROWS, failures)
        sample = _integer(params, "sample", 100, failures)
        offset = _integer(params, "offset", MAX_OFFSET, failures,
                          " Use the cursor parameter to page further into result sets.")
        if "sample" in params and ("rows" in params or "offset" in params):
            failures.append(_failure("sample-with-rows-or-offset", "sample",
                                     "Sample cannot be combined with rows or offset"))
        cursor = params.get("cursor")
        if cursor is not None and ("offset" in params or "sample" in params):
            failures.append(_failure("cursor-with-offset-or-sample", "cursor",
                                     "Cursor cannot be combined with offset or sample"))
        order = params.get("order")
        if order is not None and order not in _SORT_ORDERS:
            failures.append(_failure("sort-order-not-valid", order,
                                     f"Sort order specified as {order} but must be one of: "
                                     f"{', '.join(_SORT_ORDERS)}"))
        sort = params.get("sort")
        if sort is not None and sort not in _SORT_FIELDS:
            failures.append(_failure("sort-field-not-valid", sort,
                                     f"Sort field specified as {sort} but must be one of: "
                                     f"{', '.join(sorted(_SORT_FIELDS))}"))
        select: list[str] | None = None
        if "select" in params:
            select = params["select"].split(",")
            for name in select:
                if name not in _SELECTABLE:
                    failures.append(_failure(
                        "select-not-available", name,
                        f"Select {name} specified but there is no such select for this "
                        f"route. Valid selects for this route are: {', '.join(_SELECTABLE)}"))
        where = _parse_filters(params["filter"], failures) if "filter" in params else None
        clauses: list[Clause] = []
        impossible = False
        for name, value in params.items():
            if not name.startswith("query.") or not value.strip():
                continue
            field = name.removeprefix("query.")
            if field not in _FIELD_QUERIES:
                failures.append(_failure(
                    "field-query-not-available", field,
                    # sic: "byt" is in Crossref's own message
                    f"Field query {field} specified byt there is no such field query for "
                    f"this route. Valid field queries for this route are: "
                    f"{', '.join(_FIELD_QUERIES)}"))
                continue
            fields = _FIELD_QUERIES[field]
            if fields is None:
                impossible = True
            else:
                clauses.append(Clause(fields, value))
        if failures:
            return _validation_failure(failures)

        start = offset or 0
        if cursor is not None:
            decoded = _decode_cursor(cursor)
            if decoded is None:
                return _json(404, {"status": "failed", "message-type": "resource-failure",
                                   "message": [{"type": "cursor-invalid", "value": cursor,
                                                "message": "Cursor specified but it is "
                                                           "invalid"}]})
            start = decoded
        terms = params.get("query")
        if terms is not None and terms.strip():
            clauses.insert(0, Clause(_ALL_FIELDS, terms))
        hits = [] if impossible else await self.view.asearch(clauses, where)
        if sort in ("published", "published-print", "published-online", "issued", "created"):
            hits.sort(key=lambda h: h.record.year or 0, reverse=order in (None, "desc", "-1"))
        elif order in ("asc", "1") and sort in ("score", "relevance"):
            hits.reverse()
        size = sample if sample is not None else (DEFAULT_ROWS if rows is None else rows)
        page = hits[start:start + size]
        message: dict[str, Any] = {
            "facets": {},
            "total-results": len(hits),
            "items": [self._item(h, select, bool(clauses)) for h in page],
            "items-per-page": size,
            "query": {"start-index": start, "search-terms": terms or None},
        }
        if cursor is not None:
            message["next-cursor"] = _encode_cursor(start + size)
        return _json(200, {"status": "ok", "message-type": "work-list",
                           "message-version": "1.0.0", "message": message})

    def _item(self, hit: Hit, select: list[str] | None, scored: bool) -> dict[str, Any]:
        # Crossref scores are unbounded bm25 floats; without a query every item scores 1.
        score = float(f"{hit.score:.8g}") if scored else 1.0
        item = work_json(hit.record, score=score)
        if select is not None:
            # Selected fields come back in the order they were asked for, as recorded.
            item = {k: item[k] for k in dict.fromkeys(select) if k in item}
        return item

    async def work(self, request: web.Request) -> web.Response:
        failures = self._singleton_failures(request.query)
        if failures:
            return _validation_failure(failures)
        record = self.view.by_doi(_path_doi(request))
        if record is None:
            return not_found()
        return _json(200, {"status": "ok", "message-type": "work", "message-version": "1.0.0",
                           "message": work_json(record, score=1.0)})

    async def agency(self, request: web.Request) -> web.Response:
        failures = self._singleton_failures(request.query)
        if failures:
            return _validation_failure(failures)
        doi = _path_doi(request).removesuffix("/agency")
        work = self.corpus.find_doi(doi)
        agency = work.agency if work is not None else None
        if work is None or agency is None:
            return not_found()
        label = {"crossref": "Crossref", "datacite": "DataCite", "medra": "mEDRA"}.get(
            agency, agency)
        return _json(200, {"status": "ok", "message-type": "work-agency",
                           "message-version": "1.0.0",
                           "message": {"DOI": work.doi.lower() if work.doi else doi,
                                       "agency": {"id": agency, "label": label}}})

    @staticmethod
    def _singleton_failures(params: MultiMapping[str]) -> list[dict[str, Any]]:
        failures = []
        if any(name.startswith("query.") for name in params):
            failures.append(_failure("parameter-not-allowed", "query.*",
                                     "This route does not support field query parameters"))
        for name in params:
            if name.startswith("query.") or name == "mailto":
                continue
            if name in _AVAILABLE_PARAMS:
                failures.append(_failure("parameter-not-allowed", name,
                                         f"This route does not support {name}"))
            else:
                failures.append(_failure(
                    "unknown-parameter", name,
                    f"Parameter {name} specified but there is no such parameter available "
                    "on any route"))
        return failures


def _unrouted(request: web.Request, exc: web.HTTPException) -> web.Response:
    """Crossref's not-found body for unknown routes; other HTTP errors as plain text."""
    if isinstance(exc, web.HTTPNotFound):
        return not_found()
    return web.Response(status=exc.status, text=exc.text or exc.reason,
                        content_type="text/plain")


def _headers(request: web.Request) -> dict[str, str]:
    """The common headers and the caller's pool headers, on everything."""
    pool = identify_pool(request.headers, request.query)
    return {**_COMMON_HEADERS,
            **_advertised(POOL_HEADERS[pool], clock_of(request).time_scale),
            "x-api-pool": pool}


_crossref_frame = framing(_unrouted, catch=(web.HTTPException,), headers=_headers)


def _advertised(headers: Mapping[str, str], time_scale: float) -> dict[str, str]:
    """The pool's rate headers as this world enforces them: a sped-up world advertises its
    sped-up limit, so a client that obeys the headers keeps the world's pace."""
    advertised = dict(headers)
    if time_scale != 1.0:
        for name in ("x-rate-limit-limit", "x-rate-limit"):
            if name in advertised:
                advertised[name] = f"{float(advertised[name]) * time_scale:g}"
    return advertised


def create_app(corpus: Corpus) -> web.Application:
    """The Crossref stand-in as an aiohttp application (mounted under a prefix)."""
    service = CrossrefService(corpus)
    app = web.Application(middlewares=[_crossref_frame])
    for base, prefix in (("", ""), ("/v1", "v1.")):
        # Route names are the endpoints the world's request log reports.
        app.router.add_get(f"{base}/works", service.works, name=f"{prefix}works")
        app.router.add_get(f"{base}/works/{{doi:.+}}/agency", service.agency,
                           name=f"{prefix}agency")
        app.router.add_get(f"{base}/works/{{doi:.+}}", service.work, name=f"{prefix}work")
    return app


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=lambda request: identify_pool(request.headers, request.query),
    request_class=request_class,
    limits=LIMITS,
    throttled=throttled,
)
"""Crossref's routes and rules of engagement, for the world server."""
