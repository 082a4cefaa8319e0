"""OpenAlex API stand-in: the ``/works`` routes over a corpus.

Routes:

- ``GET /works`` — ``filter`` (``title.search``, ``display_name.search``,
  ``title_and_abstract.search``, ``default.search``, ``raw_author_name.search``,
  ``publication_year``, ``doi``, ``type``, ``is_retracted``, ``has_doi``, ``openalex``),
  ``search``, ``per_page``/``per-page`` (≤ 100), ``page``, ``cursor``, ``select``,
  ``sort``; ``api_key`` and ``mailto`` are accepted.
- ``GET /works/{id}`` — ``doi:10.x/y``, ``https://doi.org/10.x/y``, a bare DOI, ``W123``
  or ``https://openalex.org/W123``; ``select`` honoured. An unknown id is a 404 with
  werkzeug's HTML page, not JSON, as recorded.

Parameter errors are 400 JSON ``{"error": ..., "message": ...}`` with the service's own
messages (``openalex-elastic-api``). Filter values are split on commas the way OpenAlex
splits them: a comma followed by ``something:`` starts a new filter unless the value is
in double quotes, so an unquoted title with a comma and a colon is a 400.

Rules of engagement (:data:`SERVICE`), after OpenAlex's 2026 gateway:

- 100 requests per second for everyone, no concurrency limit; excess gets a JSON 429
  with Retry-After ("Rate limit exceeded: 100 requests per second. Please slow down.");
- a daily credit budget per identity: keyless callers share 1,000 credits, each API key
  (``api_key=`` or ``Authorization: Bearer``; the world accepts any key) has 10,000. A
  singleton costs 0 credits, a list or filter 1, a search (``search=``, ``search.*``,
  or a ``*.search`` filter) 10; 1 credit = $0.0001. Charged before the request is
  served, whatever its outcome. Every response carries ``X-RateLimit-Limit``,
  ``-Remaining``, ``-Credits-Used``, ``-Reset`` (seconds until the world day ends) and
  the USD forms; a request the budget cannot cover gets a JSON 429 with the budget
  fields and a Retry-After until the day ends.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from aiohttp import web
from aiohttp.typedefs import Handler

from verifier.identifiers import strip_doi_prefix

from .corpus import Clause, Corpus, Hit, Person, RenderedWork, SourceView
from .limits import (
    BUDGETS_ENFORCED,
    THROTTLED,
    DailyBudget,
    clock_of,
    retry_after_header,
    whole_world_seconds,
)
from .pubmed_records import pmcid_of, pmid_of
from .service import Limit, ServiceSpec, framing

NAME = "openalex"

NOT_FOUND_HTML = (
    "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n"
    "<p>The requested URL was not found on the server. If you entered the URL manually "
    "please check your spelling and try again.</p>\n"
)
LIMITS: Mapping[str, Mapping[str, Limit]] = {
    "keyless": {"all": Limit(100)},
    "keyed": {"all": Limit(100)},
}
"""100 requests per second for everyone, one counter for every kind of request."""
DAILY_CREDITS: Mapping[str, int] = {"keyless": 1_000, "keyed": 10_000}
"""Daily credit allowance by pool (keyless callers share one)."""
CREDIT_USD = 0.0001
CREDITS_SINGLETON, CREDITS_LIST, CREDITS_SEARCH = 0, 1, 10
DEFAULT_PER_PAGE = 25
MAX_PER_PAGE = 100
MAX_RESULTS = 10000

TYPES: Mapping[str, str] = {
    "article": "article",
    "book": "book",
    "chapter": "book-chapter",
    "proceedings": "article",
    "thesis": "dissertation",
    "report": "report",
    "web": "other",
    "preprint": "preprint",
    "other": "other",
}
TYPES_CROSSREF: Mapping[str, str] = {
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
_SOURCE_TYPES: Mapping[str, str] = {
    "article": "journal",
    "proceedings": "conference",
    "preprint": "repository",
    "chapter": "book series",
    "book": "book series",
}
_VALID_PARAMS = (
    "api_key", "cursor", "filter", "format", "mailto", "page", "per_page", "per-page",
    "sample", "seed", "search", "select", "sort",
)
_SELECTABLE = (
    "id", "doi", "title", "display_name", "relevance_score", "publication_year",
    "publication_date", "ids", "language", "primary_location", "type", "type_crossref",
    "indexed_in", "open_access", "authorships", "institution_assertions",
    "countries_distinct_count", "institutions_distinct_count", "corresponding_author_ids",
    "corresponding_institution_ids", "apc_list", "apc_paid", "fwci", "has_fulltext",
    "fulltext_origin", "cited_by_count", "citation_normalized_percentile",
    "cited_by_percentile_year", "biblio", "is_retracted", "is_paratext", "primary_topic",
    "topics", "keywords", "concepts", "mesh", "locations_count", "locations",
    "best_oa_location", "sustainable_development_goals", "grants", "datasets", "versions",
    "referenced_works_count", "referenced_works", "related_works", "abstract_inverted_index",
    "cited_by_api_url", "counts_by_year", "updated_date", "created_date",
)
# Search filters and the corpus fields they search (None: text the corpus lacks).
_SEARCH_FILTERS: Mapping[str, frozenset[str] | None] = {
    "title.search": frozenset({"title"}),
    "display_name.search": frozenset({"title"}),
    "title_and_abstract.search": frozenset({"title"}),
    "default.search": frozenset({"title"}),
    "raw_author_name.search": frozenset({"author"}),
    "abstract.search": None,
    "fulltext.search": None,
}
SEARCH_STOPWORDS = frozenset(
    "a an and are as at be by for from has in is it its of on or that the to was were will "
    "with".split()
)
"""Words a ``.search`` filter drops before requiring the rest: OpenAlex's search filters
match *every* remaining word (stemmed), as its documentation describes and the recorded
``works_title_search.json`` shows (two results for a six-word title, not thousands)."""


def _without_stopwords(text: str) -> str:
    return " ".join(w for w in re.findall(r"[^\W_]+", text) if w.lower() not in SEARCH_STOPWORDS)


_VALUE_FILTERS = ("publication_year", "doi", "type", "is_retracted", "has_doi", "openalex",
                  "ids.openalex")
_FILTER_NAMES = sorted([*_SEARCH_FILTERS, *_VALUE_FILTERS])
_NEW_FILTER = re.compile(r",(?=[^,]+?:)")
_YEAR_RANGE = re.compile(r"^(\d+)?-(\d+)?$")
_OPENALEX_ID = re.compile(r"^(?:https?://openalex\.org/)?(W\d{2,})$", re.IGNORECASE)
_DATE = "2026-06-01T00:00:00.000000"


class QueryError(Exception):
    """A request OpenAlex refuses: becomes a 400 JSON body."""

    def __init__(self, message: str, error: str = "Invalid query parameters error.") -> None:
        super().__init__(message)
        self.error = error
        self.message = message


# ----------------------------------------------------------------------------- rendering


def _entity_id(letter: str, key: str) -> str:
    digits = int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) % 10**10
    return f"https://openalex.org/{letter}{digits:010d}"


def _openalex_id(record: RenderedWork) -> str:
    sid = record.source_id
    return f"https://openalex.org/{sid if sid[:1] in 'Ww' else 'W' + sid}"


def _authorship(index: int, count: int, person: Person) -> dict[str, Any]:
    if index == 0:
        position = "first"
    elif index == count - 1:
        position = "last"
    else:
        position = "middle"
    name = person.display
    return {
        "author_position": position,
        "author": {"id": _entity_id("A", name), "display_name": name, "orcid": None},
        "institutions": [],
        "countries": [],
        "is_corresponding": False,
        "raw_author_name": name,
        "raw_affiliation_strings": [],
        "affiliations": [],
    }


def _pages(pages: str | None) -> tuple[str | None, str | None]:
    if not pages:
        return None, None
    first, _, last = pages.replace("\u2013", "-").replace("\u2014", "-").partition("-")
    return first.strip() or None, (last.strip() or first.strip()) or None


def _location(record: RenderedWork, doi_url: str | None) -> dict[str, Any]:
    work = record.work
    source = None
    if work.container:
        source = {
            "id": _entity_id("S", work.container),
            "display_name": work.container,
            "issn_l": work.issn[0] if work.issn else None,
            "issn": list(work.issn) or None,
            "is_oa": False,
            "is_in_doaj": False,
            "is_indexed_in_scopus": False,
            "is_core": True,
            "host_organization": _entity_id("P", work.publisher) if work.publisher else None,
            "host_organization_name": work.publisher,
            "host_organization_lineage": [],
            "host_organization_lineage_names": [],
            "type": _SOURCE_TYPES.get(work.type, "other"),
        }
    return {
        "is_oa": False,
        "landing_page_url": doi_url,
        "pdf_url": None,
        "source": source,
        "license": None,
        "license_id": None,
        "version": "publishedVersion",
        "is_accepted": True,
        "is_published": True,
    }


def work_json(record: RenderedWork, *, relevance: float | None = None) -> dict[str, Any]:
    """A work as OpenAlex shows it (``relevance`` only in search results)."""
    work = record.work
    oid = _openalex_id(record)
    doi_url = f"https://doi.org/{record.doi.lower()}" if record.doi else None
    title = record.full_title  # OpenAlex has no subtitle field: it is part of the title
    first_page, last_page = _pages(work.pages)
    location = _location(record, doi_url)
    ids: dict[str, Any] = {"openalex": oid}
    if doi_url:
        ids["doi"] = doi_url
    if "pubmed" in work.sources:
        # As recorded (works_doi.json): PubMed's URL, and PMC's without the "PMC".
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{pmid_of(work)}"
        pmcid = pmcid_of(work)
        if pmcid:
            ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid.removeprefix('PMC')}"
    out: dict[str, Any] = {"id": oid, "doi": doi_url, "title": title, "display_name": title}
    if relevance is not None:
        out["relevance_score"] = relevance
    out.update({
        "publication_year": record.year,
        "publication_date": f"{record.year}-01-01" if record.year is not None else None,
        "ids": ids,
        "primary_location": location,
        "type": TYPES[work.type],
        "type_crossref": TYPES_CROSSREF[work.type],
        "indexed_in": [s for s in ("crossref", "pubmed") if s in work.sources],
        "open_access": {"is_oa": False, "oa_status": "closed", "oa_url": None,
                        "any_repository_has_fulltext": False},
        "authorships": [_authorship(i, len(record.authors), p)
                        for i, p in enumerate(record.authors)],
        "cited_by_count": 0,
        "biblio": {"volume": work.volume, "issue": work.issue, "first_page": first_page,
                   "last_page": last_page},
        "is_retracted": work.retracted,
        "is_paratext": False,
        "locations_count": 1,
        "locations": [location],
        "best_oa_location": None,
        "referenced_works_count": 0,
        "referenced_works": [],
        "related_works": [],
        "cited_by_api_url": f"https://api.openalex.org/works?filter=cites:{oid.rsplit('/', 1)[1]}",
        "counts_by_year": [],
        "updated_date": _DATE,
        "created_date": _DATE[:10],
    })
    return out


# ----------------------------------------------------------------------------- parameters


def split_filter(raw: str) -> list[tuple[str, str]]:
    """``key:value,...`` as OpenAlex reads it (see the module docstring)."""
    pairs: list[tuple[str, str]] = []
    i, n = 0, len(raw)
    while i < n:
        colon = raw.find(":", i)
        comma = raw.find(",", i)
        if colon == -1 or (comma != -1 and comma < colon):
            end = n if comma == -1 else comma
            raise QueryError(f"Invalid query parameter in {raw[i:end]}.")
        key = raw[i:colon].replace("-", "_")
        j = colon + 1
        if raw.startswith('"', j):
            close = raw.find('"', j + 1)
            end = n if close == -1 else close + 1
            value = raw[j:end]
            nxt = raw.find(",", end)
            i = n if nxt == -1 else nxt + 1
        else:
            match = _NEW_FILTER.search(raw, j)
            end = match.start() if match else n
            value = raw[j:end]
            i = end + 1 if match else n
        pairs.append((key, value))
    return pairs


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value.strip('"')


def _check_wildcards(text: str) -> None:
    if "*" in text or "?" in text:
        raise QueryError("Wildcards (* or ?) require exact (no-stem) search. Use the "
                         "search.exact= parameter instead.")


def _year_test(value: str) -> Callable[[RenderedWork], bool]:
    """``2019``, ``2019-2021``, ``>2019``, ``<2019``, OR-ed with ``|``."""
    spans: list[tuple[int, int]] = []
    for part in (p.strip() for p in value.split("|")):
        try:
            if part.startswith(">"):
                spans.append((int(part[1:]) + 1, 10**9))
            elif part.startswith("<"):
                spans.append((-(10**9), int(part[1:]) - 1))
            elif (m := _YEAR_RANGE.match(part)) and (m.group(1) or m.group(2)):
                spans.append((int(m.group(1) or -(10**9)), int(m.group(2) or 10**9)))
            else:
                spans.append((int(part), int(part)))
        except ValueError as exc:
            raise QueryError("Value for param publication_year must be a number.") from exc
    return lambda rec: rec.year is not None and any(lo <= rec.year <= hi for lo, hi in spans)


def _bool(key: str, value: str) -> bool:
    if value.lower() not in ("true", "false"):
        raise QueryError(f"Value for param {key} must be true or false.")
    return value.lower() == "true"


def _bare_doi(value: str) -> str:
    return strip_doi_prefix(value)


def _value_test(key: str, value: str) -> Callable[[RenderedWork], bool]:
    negate = value.startswith("!")
    value = _unquote(value.removeprefix("!"))
    test: Callable[[RenderedWork], bool]
    if key == "publication_year":
        test = _year_test(value)
    elif key == "doi":
        dois = {_bare_doi(v) for v in value.split("|")}
        test = lambda rec: rec.doi is not None and rec.doi.lower() in dois  # noqa: E731
    elif key == "type":
        types = {v.strip() for v in value.split("|")}
        test = lambda rec: TYPES[rec.work.type] in types  # noqa: E731
    elif key == "is_retracted":
        flag = _bool(key, value)
        test = lambda rec: rec.work.retracted == flag  # noqa: E731
    elif key == "has_doi":
        flag = _bool(key, value)
        test = lambda rec: (rec.doi is not None) == flag  # noqa: E731
    else:  # openalex / ids.openalex
        ids = {v.strip().rsplit("/", 1)[-1].upper() for v in value.split("|")}
        test = lambda rec: _openalex_id(rec).rsplit("/", 1)[1].upper() in ids  # noqa: E731
    return (lambda rec: not test(rec)) if negate else test


class _Query:
    """A validated ``/works`` list request."""

    def __init__(self, params: Mapping[str, str]) -> None:
        for name in params:
            if name not in _VALID_PARAMS:
                raise QueryError(f"{name} is not a valid parameter. Valid parameters are: "
                                 f"{', '.join(_VALID_PARAMS)}.")
        self.clauses: list[Clause] = []
        self.impossible = False
        self.tests: list[Callable[[RenderedWork], bool]] = []
        search = params.get("search")
        if search is not None and search.strip():
            if any(w.startswith("!") for w in search.split()):
                raise QueryError("The search parameter does not support the ! operator. "
                                 f"Problem value: {search}")
            if "|" in search:
                raise QueryError("The search parameter does not support the | operator. "
                                 f"Problem value: {search}")
            _check_wildcards(search)
            self.clauses.append(Clause(frozenset({"title"}), search))
        if "filter" in params:
            self._filters(params["filter"])
        self.searching = bool(self.clauses) or self.impossible
        self.per_page = self._number(params, "per-page", DEFAULT_PER_PAGE)
        if not 1 <= self.per_page <= MAX_PER_PAGE:
            raise QueryError(f"per-page parameter must be between 1 and {MAX_PER_PAGE}",
                             "Pagination error.")
        self.page = self._number(params, "page", 1)
        self.cursor = params.get("cursor")
        if self.page < 1 or self.page * self.per_page > MAX_RESULTS:
            raise QueryError(f"Maximum results size of {MAX_RESULTS:,} records is exceeded. "
                             "Cursor pagination is required for records beyond "
                             f"{MAX_RESULTS:,}.", "Pagination error.")
        self.select = _select(params)
        self.sort = params.get("sort")
        if self.sort and self.sort.split(":")[0] == "relevance_score" and not self.searching:
            raise QueryError("Must include a search query (such as ?search=example or "
                             "/filter=display_name.search:example) in order to sort by "
                             "relevance_score.")

    def _filters(self, raw: str) -> None:
        for key, value in split_filter(raw):
            if key in _SEARCH_FILTERS:
                text = _unquote(value)
                _check_wildcards(text)
                fields = _SEARCH_FILTERS[key]
                if fields is None:
                    self.impossible = True
                elif text.strip():
                    words = _without_stopwords(text)
                    if words.strip():
                        self.clauses.append(Clause(fields, words, match="all"))
                    else:
                        self.impossible = True
            elif key in _VALUE_FILTERS:
                self.tests.append(_value_test(key, value))
            else:
                raise QueryError(f"{key} is not a valid field. Valid fields are underscore or "
                                 f"hyphenated versions of: {', '.join(_FILTER_NAMES)}")

    @staticmethod
    def _number(params: Mapping[str, str], name: str, default: int) -> int:
        raw = params.get(name) or params.get(name.replace("-", "_"))
        if not raw:
            return default
        try:
            return int(raw)
        except ValueError as exc:
            raise QueryError(f"Param {name} must be a number.") from exc

    def where(self, record: RenderedWork) -> bool:
        return all(test(record) for test in self.tests)


def _select(params: Mapping[str, str]) -> list[str] | None:
    raw = params.get("select")
    if raw is None:
        return None
    fields = [f.strip() for f in raw.split(",")]
    for name in fields:
        if name not in _SELECTABLE:
            raise QueryError(f"{name} is not a valid select field. Valid fields for select "
                             f"are: {', '.join(_SELECTABLE)}.")
    return fields


def _selected(item: dict[str, Any], select: list[str] | None) -> dict[str, Any]:
    """Only the selected fields, in the order they were asked for (as recorded)."""
    if select is None:
        return item
    return {k: item[k] for k in dict.fromkeys(select) if k in item}


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"world-offset:{offset}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> int:
    if cursor == "*":
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise QueryError("Invalid cursor value.", "Pagination error.") from exc
    tag, _, number = raw.partition(":")
    if tag != "world-offset" or not number.isdigit():
        raise QueryError("Invalid cursor value.", "Pagination error.")
    return int(number)


# ----------------------------------------------------------------------------- handlers


def _json(status: int, body: Any) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body),
                        headers={"Content-Type": "application/json"})


def not_found() -> web.Response:
    """OpenAlex's "not found": werkzeug's HTML 404 page, not JSON."""
    return web.Response(status=404, text=NOT_FOUND_HTML,
                        headers={"Content-Type": "text/html; charset=utf-8"})


class OpenAlexService:
    """Request handlers over one source view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.view: SourceView = corpus.source(NAME)

    async def works(self, request: web.Request) -> web.Response:
        started = time.perf_counter()
        try:
            query = _Query(request.query)
            start = (query.page - 1) * query.per_page
            if query.cursor is not None:
                start = _decode_cursor(query.cursor)
        except QueryError as exc:
            return _json(400, {"error": exc.error, "message": exc.message})
        hits = [] if query.impossible else await self.view.asearch(query.clauses,
                                                                   query.where)
        if query.sort:
            hits = _sorted(hits, query.sort)
        page = hits[start:start + query.per_page]
        results = [self._result(h, query) for h in page]
        meta: dict[str, Any] = {
            "count": len(hits),
            "db_response_time_ms": int((time.perf_counter() - started) * 1000),
            "page": None if query.cursor is not None else query.page,
            "per_page": query.per_page,
            "groups_count": None,
        }
        if query.cursor is not None:
            end = start + query.per_page
            meta["next_cursor"] = _encode_cursor(end) if end < len(hits) else None
        return _json(200, {"meta": meta, "results": results, "group_by": []})

    def _result(self, hit: Hit, query: _Query) -> dict[str, Any]:
        # relevance_score is only present when the request searched.
        relevance = float(f"{hit.score * 100:.8g}") if query.searching else None
        item = work_json(hit.record, relevance=relevance)
        return _selected(item, query.select)

    async def work(self, request: web.Request) -> web.Response:
        try:
            for name in request.query:
                if name not in _VALID_PARAMS:
                    raise QueryError(f"{name} is not a valid parameter. Valid parameters "
                                     f"are: {', '.join(_VALID_PARAMS)}.")
            select = _select(request.query)
        except QueryError as exc:
            return _json(400, {"error": exc.error, "message": exc.message})
        record = self._lookup(request.match_info["id"])
        if record is None:
            return not_found()
        return _json(200, _selected(work_json(record), select))

    def _lookup(self, ident: str) -> RenderedWork | None:
        ident = ident.strip()
        match = _OPENALEX_ID.match(ident)
        if match:
            wanted = match.group(1).upper()
            return next((r for r in self.view.records
                         if _openalex_id(r).rsplit("/", 1)[1].upper() == wanted), None)
        doi = _bare_doi(ident)
        return self.view.by_doi(doi) if doi.startswith("10.") else None


def _sorted(hits: list[Hit], sort: str) -> list[Hit]:
    key, _, direction = sort.partition(":")
    reverse = direction != "asc" if key == "relevance_score" else direction == "desc"
    if key == "relevance_score":
        return sorted(hits, key=lambda h: h.score, reverse=reverse)
    if key in ("publication_year", "publication_date"):
        return sorted(hits, key=lambda h: h.record.year or 0, reverse=reverse)
    if key == "display_name":
        return sorted(hits, key=lambda h: h.record.full_title.casefold(), reverse=reverse)
    return hits  # cited_by_count etc.: every corpus work has the same count


# werkzeug's HTML 404 for unknown routes too, and the service's common headers.
_openalex_frame = framing(lambda request, exc: not_found(),
                          headers={"Access-Control-Allow-Origin": "*", "Server": "gunicorn"})


# ----------------------------------------------------------------------------- budget


def api_key(request: web.Request) -> str | None:
    """The caller's API key (``api_key`` parameter or ``Authorization: Bearer``)."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.query.get("api_key", "").strip() or None


def pool_of(request: web.Request) -> str:
    """``keyed`` with an API key (any key: the world does not check them), else
    ``keyless``. ``mailto`` is ignored: the polite pool was retired in 2026."""
    return "keyed" if api_key(request) else "keyless"


def credit_cost(request: web.Request) -> int:
    """Credits a request costs: singleton 0, list or filter 1, search 10."""
    route = request.match_info.route
    if route is not None and route.name == "work":
        return CREDITS_SINGLETON
    params = request.query
    if "search" in params or any(name.startswith("search.") for name in params):
        return CREDITS_SEARCH
    if any(".search" in value for value in params.getall("filter", [])):
        return CREDITS_SEARCH  # a .search filter bills as a search, whatever its syntax
    return CREDITS_LIST


def _usd(credits: float) -> str:
    return f"{round(credits * CREDIT_USD, 4):g}"


def _json_number(seconds: float) -> float | int:
    return int(seconds) if seconds == int(seconds) else round(seconds, 3)


def throttled(retry_after: float | None) -> web.Response:
    """OpenAlex's 429 for more than 100 requests per second (JSON, with Retry-After)."""
    body: dict[str, Any] = {
        "error": "Rate limit exceeded",
        "message": "Rate limit exceeded: 100 requests per second. Please slow down.",
    }
    headers = {"Content-Type": "application/json", "Access-Control-Allow-Origin": "*"}
    if retry_after is not None:
        body["retryAfter"] = _json_number(retry_after)
        headers["Retry-After"] = retry_after_header(retry_after)
    return web.Response(status=429, body=orjson.dumps(body), headers=headers)


BUDGET = web.AppKey("openalex_budget", DailyBudget)


@web.middleware
async def _charge_credits(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The gateway's daily credit budget: charge first, then serve; headers on all. A
    world served without limits charges nothing."""
    if not request.config_dict.get(BUDGETS_ENFORCED, True):
        return await handler(request)
    clock = clock_of(request)
    pool = pool_of(request)
    allowance = DAILY_CREDITS[pool]
    cost = credit_cost(request)
    charge = request.app[BUDGET].charge(clock, api_key(request) or "", allowance, cost)
    reset = whole_world_seconds(clock, charge.reset_after)
    remaining = int(charge.remaining)
    headers = {
        "X-RateLimit-Limit": str(allowance),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Onetime-Remaining": "0",
        "X-RateLimit-Reset": retry_after_header(reset),
        "X-RateLimit-Limit-USD": _usd(allowance),
        "X-RateLimit-Remaining-USD": _usd(remaining),
        "X-RateLimit-Prepaid-Remaining-USD": "0",
    }
    if not charge.accepted:
        request[THROTTLED] = "budget"
        body = {
            "error": "Rate limit exceeded",
            "message": f"Insufficient budget. This request costs ${_usd(cost)} but you only "
                       f"have ${_usd(remaining)} remaining. Resets at midnight UTC. Need more? "
                       "Add funds at https://openalex.org/pricing",
            "retryAfter": _json_number(reset),
            "costUsd": float(_usd(cost)),
            "dailyRemainingUsd": float(_usd(remaining)),
            "prepaidRemainingUsd": 0,
            "creditsRequired": cost,
            "creditsRemaining": remaining,
            "onetimeCreditsRemaining": 0,
        }
        headers.update({"Content-Type": "application/json", "Retry-After": headers[
            "X-RateLimit-Reset"], "X-RateLimit-Credits-Required": str(cost),
            "X-RateLimit-Cost-Required-USD": _usd(cost), "Access-Control-Allow-Origin": "*"})
        return web.Response(status=429, body=orjson.dumps(body), headers=headers)
    response = await handler(request)
    headers.update({"X-RateLimit-Credits-Used": str(cost), "X-RateLimit-Cost-USD": _usd(cost)})
    response.headers.update(headers)
    return response


def create_app(corpus: Corpus) -> web.Application:
    """The OpenAlex stand-in as an aiohttp application (mounted under a prefix), with its
    own daily credit budget (one per application: per world)."""
    service = OpenAlexService(corpus)
    app = web.Application(middlewares=[_charge_credits, _openalex_frame])
    app[BUDGET] = DailyBudget()
    # Route names are the endpoints the world's request log reports.
    app.router.add_get("/works", service.works, name="works")
    app.router.add_get("/works/{id:.+}", service.work, name="work")
    return app


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=pool_of,
    request_class=lambda request: "all",
    limits=LIMITS,
    throttled=throttled,
)
"""OpenAlex's routes and rules of engagement, for the world server."""
