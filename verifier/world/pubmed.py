"""PubMed (NCBI E-utilities) stand-in: ``esearch``, ``efetch`` and ``esummary`` over a corpus.

Mounted at ``/pubmed`` (standing for ``https://eutils.ncbi.nlm.nih.gov/entrez/eutils``),
with the real paths below it. Every route takes GET or POST (form body), like NCBI's:

- ``/esearch.fcgi`` — ``db`` (``pubmed``), ``term``, ``retmode`` (``xml`` default, or
  ``json``), ``retmax`` (default 20, ≤ 10000), ``retstart`` (≤ 9998), ``sort``
  (``relevance``, ``pub_date``, ``author``, ``journal``; default most recent first),
  ``field`` (the tag of untagged words), ``mindate``/``maxdate`` (years),
  ``usehistory=y`` (``querykey``/``webenv`` for a later efetch). All numbers in the JSON
  are strings; ``retmax`` reports the number of ids returned.
- ``/efetch.fcgi`` — ``id`` (comma list) or ``WebEnv`` + ``query_key``: a
  ``PubmedArticleSet`` (XML whatever ``retmode`` says: PubMed has no JSON efetch).
  Unknown ids are left out; none known is an empty set.
- ``/esummary.fcgi`` — ``id``: JSON (``retmode=json``, version 0.3) keyed by uid with a
  ``uids`` list, an unknown uid as ``{"uid", "error": "cannot get document summary"}``;
  legacy ``DocSum`` XML otherwise.

Term syntax: field tags ``[ti]`` ``[tiab]`` ``[au]`` ``[1au]`` ``[lastau]`` ``[doi]``
(``[aid]``, ``[lid]``) ``[pmid]`` (``[uid]``) ``[dp]`` (``2019``, ``2019:2021``) ``[ta]``
(``[journal]``) ``[vi]`` ``[ip]`` ``[pg]`` ``[is]`` ``[pt]`` ``[la]`` ``[all]``, their long
names (``[Title]``, ``[Author]``), quoted phrases, upper-case ``AND``/``OR``/``NOT``
evaluated left to right (as PubMed does, without precedence), parentheses, and implicit
AND between terms. A tag applies to all the words since the last operator
(``smith j[au]``). ``smith j[au]`` matches family "Smith" with initials starting "J".
Stopwords are ignored (``phrasesignored``); an unknown tag searches all fields and is
reported in ``fieldsnotfound``, as NCBI does.

Errors come back inside HTTP 200 bodies, as NCBI sends them: an empty term ("Empty term
and query_key - nothing todo"), an unknown ``db`` ("Invalid db name specified: …"),
``retstart`` > 9998 (NCBI's message, with its raw newline that makes the JSON invalid),
and — not recorded, the world's own wording — unbalanced parentheses or quotes.

Every response carries ``X-RateLimit-Limit`` (3, or 10 with ``api_key``; times the world's
``time_scale``, so that a client obeying the header keeps the world's pace) and
``X-RateLimit-Remaining`` (requests left of it in the last second).

Simplified: no automatic term mapping or stemming (untagged words search every field
word by word), no MeSH, no abstracts, dates are years only, journal abbreviations are
the full journal titles, ``rettype=medline`` text is not produced.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import re
import xml.etree.ElementTree as ET
from collections import OrderedDict, deque
from collections.abc import Mapping
from typing import Any

import orjson
from aiohttp import web
from multidict import MultiDict, MultiDictProxy

from .corpus import Corpus, RenderedWork, SourceView
from .limits import WorldClock, clock_of
from .pubmed_index import PubMedIndex
from .pubmed_records import (
    NAME,
    article_element,
    derived_pmid,
    esearch_xml,
    medline_pages,
    page_range,
    pmcid_of,
    pmid_of,
    sub_element,
    summary_docsum,
    summary_json,
    to_xml,
)
from .pubmed_terms import STOPWORDS, Parsed, TermError, parse_term, translation
from .service import Limit, ServiceSpec, framing

LIMITS: Mapping[str, Mapping[str, Limit]] = {
    # NCBI publishes per-second rates and no concurrency limit (apis.md section 3).
    "keyless": {"any": Limit(3.0)},
    "keyed": {"any": Limit(10.0)},
}
DEFAULT_RETMAX = 20
MAX_RETMAX = 10000
MAX_RETSTART = 9998
_HEADER_ESEARCH = {"type": "esearch", "version": "0.3"}
_HEADER_ESUMMARY = {"type": "esummary", "version": "0.3"}
_ESEARCH_DOCTYPE = (
    '<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD '
    'esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">\n'
)
_EFETCH_DOCTYPE = (
    '<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
    '1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'
)
_ESUMMARY_DOCTYPE = (
    '<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD '
    'esummary v1 20041029//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20041029/'
    'esummary-v1.dtd">\n'
)
_EFETCH_ERROR_DOCTYPE = (
    '<?xml version="1.0" encoding="UTF-8" ?>\n<!DOCTYPE eFetchResult PUBLIC "-//NLM//DTD '
    'efetch 20131226//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20131226/efetch.dtd">\n'
)
_XML_TYPE = "text/xml; charset=UTF-8"
_JSON_TYPE = "application/json; charset=UTF-8"
EMPTY_TERM = "Empty term and query_key - nothing todo"
EMPTY_IDS = "Empty id list - nothing todo"
# NCBI's own text, raw newline included: the JSON it sends is not valid JSON [3p].
RETSTART_ERROR = (
    "Search Backend failed: Exception:\n'retstart' cannot be larger than 9998. For PubMed, "
    "ESearch can only retrieve the first 9,999 records matching the query. To obtain more "
    "than 9,999 PubMed records, consider using EDirect that contains additional logic to "
    "batch PubMed search results automatically so that an arbitrary number can be "
    "retrieved. For details see https://www.ncbi.nlm.nih.gov/books/NBK25499/"
)
RATE_LIMIT_ERROR = "API rate limit exceeded"

# The caller of the request being limited, for the throttled body (see `throttled`).
_CALLER: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar(
    "pubmed_caller", default=("127.0.0.1", "3"))


def identify_pool(request: web.Request) -> str:
    """``keyed`` when the request carries an ``api_key`` query parameter, else
    ``keyless``. A key sent only in a POST form body is not seen here: the pool is
    decided before the body is read."""
    key = request.query.get("api_key", "").strip()
    pool = "keyed" if key else "keyless"
    limit = LIMITS[pool]["any"].rate
    _CALLER.set((key or (request.remote or "127.0.0.1"), f"{limit:g}"))
    return pool


def request_class(request: web.Request) -> str:
    return "any"  # NCBI's limits cover every E-utility together


def throttled(retry_after: float | None) -> web.Response:
    """NCBI's 429: the JSON body seen in the wild (caller's key or IP, its count and
    limit), the rate headers, no ``Retry-After`` (NCBI sends none). ``count`` is the
    first count over the limit: the world does not report how far over it was."""
    caller, limit = _CALLER.get()
    body = {"error": RATE_LIMIT_ERROR, "api-key": caller, "count": str(int(limit) + 1),
            "limit": limit}
    return web.Response(status=429, body=orjson.dumps(body), headers={
        "Content-Type": "application/json", "X-RateLimit-Limit": limit,
        "X-RateLimit-Remaining": "0", **_COMMON_HEADERS})


_COMMON_HEADERS: Mapping[str, str] = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "X-RateLimit-Limit,X-RateLimit-Remaining",
    "Cache-Control": "private",
    "Server": "Finatra",
}


# ----------------------------------------------------------------------------- responses


def _json(body: Any) -> web.Response:
    return web.Response(status=200, body=orjson.dumps(body), headers={"Content-Type": _JSON_TYPE})


def _xml(text: str) -> web.Response:
    return web.Response(status=200, body=text.encode(), headers={"Content-Type": _XML_TYPE})


def _esearch_error(message: str, retmode: str) -> web.Response:
    if retmode == "json":
        # Built by hand: NCBI puts the message in raw, newlines and all.
        body = ('{"header":{"type":"esearch","version":"0.3"},"esearchresult":{"ERROR":"'
                + message.replace("\\", "\\\\").replace('"', '\\"') + '"}}')
        return web.Response(status=200, body=body.encode(), headers={"Content-Type": _JSON_TYPE})
    root = ET.Element("eSearchResult")
    sub_element(root, "ERROR", message)
    return _xml(_ESEARCH_DOCTYPE + to_xml(root))


def _efetch_error(message: str) -> web.Response:
    root = ET.Element("eFetchResult")
    sub_element(root, "ERROR", message)
    return _xml(_EFETCH_ERROR_DOCTYPE + to_xml(root))


def _split_ids(raw: str) -> list[str]:
    return [part for part in re.split(r"[,\s]+", raw.strip()) if part]


def _number(params: Mapping[str, str], name: str, default: int) -> int:
    raw = params.get(name, "").strip()
    return int(raw) if raw.isdigit() else default


class PubMedService:
    """Request handlers over the ``pubmed`` view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.view: SourceView = corpus.source(NAME)
        # Built here, once, before the world serves (serve_world builds it off the loop).
        self.index = PubMedIndex(self.view.records)
        self.by_pmid: dict[str, RenderedWork] = self.index.by_pmid
        # WebEnv -> result sets (query_key 1, 2 ...), oldest dropped first.
        self.history: OrderedDict[str, list[list[str]]] = OrderedDict()
        self._served: dict[str, deque[float]] = {}

    # --- rate headers ------------------------------------------------------------------

    def remaining(self, pool: str, clock: WorldClock) -> tuple[str, str]:
        """(limit, remaining) for the rate headers, per real second: the published rate
        times the world's time scale (what the world enforces; a client that obeys the
        header keeps the scaled pace), and what is left of it in the last second."""
        limit = LIMITS[pool]["any"].rate * clock.time_scale
        now = clock.now()
        window = self._served.setdefault(pool, deque())
        while window and now - window[0] >= 1.0:
            window.popleft()
        window.append(now)
        return f"{limit:g}", f"{max(0.0, limit - len(window)):g}"

    # --- esearch -----------------------------------------------------------------------

    async def esearch(self, request: web.Request) -> web.Response:
        params = await _params(request)
        retmode = params.get("retmode", "xml").strip().lower()
        db = params.get("db", "pubmed").strip().lower() or "pubmed"
        if db != "pubmed":
            return _esearch_error(f"Invalid db name specified: {params.get('db', '')}", retmode)
        term = params.get("term", "")
        if not term.strip():
            return _esearch_error(EMPTY_TERM, retmode)
        retstart = _number(params, "retstart", 0)
        if retstart > MAX_RETSTART:
            return _esearch_error(RETSTART_ERROR, retmode)
        retmax = min(_number(params, "retmax", DEFAULT_RETMAX), MAX_RETMAX)
        try:
            parsed = parse_term(term, params.get("field", "").strip() or None)
            dates = _date_range(params)
        except TermError as exc:
            return _esearch_error(str(exc), retmode)
        # Both scan the whole corpus: in a worker thread, so the loop (and every other
        # service's clock) keeps running.
        ids, not_found = await asyncio.to_thread(
            self._scan, parsed, params.get("sort", "").strip().lower(), dates)
        page = ids[retstart:retstart + retmax]
        result: dict[str, Any] = {
            "count": str(len(ids)),
            "retmax": str(len(page)),
            "retstart": str(retstart),
        }
        if params.get("usehistory", "").strip().lower() == "y":
            webenv = params.get("WebEnv") or _new_webenv(term, len(self.history))
            sets = self.history.setdefault(webenv, [])
            sets.append(ids)
            self.history.move_to_end(webenv)
            while len(self.history) > 256:
                self.history.popitem(last=False)
            result["querykey"] = str(len(sets))
            result["webenv"] = webenv
        result["idlist"] = page
        result["translationset"] = []
        result["querytranslation"] = translation(parsed.root)
        if not ids or parsed.fields_not_found or not_found:
            result["errorlist"] = {"phrasesnotfound": not_found,
                                   "fieldsnotfound": parsed.fields_not_found}
        if not ids or parsed.ignored:
            result["warninglist"] = {"phrasesignored": parsed.ignored,
                                     "quotedphrasesnotfound": [],
                                     "outputmessages": [] if ids else ["No items found."]}
        if retmode == "json":
            return _json({"header": _HEADER_ESEARCH, "esearchresult": result})
        return _xml(_ESEARCH_DOCTYPE + esearch_xml(result))

    def _scan(self, parsed: Parsed, sort: str, dates: tuple[int, int] | None
              ) -> tuple[list[str], list[str]]:
        return self.index.search(parsed, sort, dates), self.index.phrases_not_found(parsed)

    # --- efetch ------------------------------------------------------------------------

    async def efetch(self, request: web.Request) -> web.Response:
        params = await _params(request)
        ids = self._requested_ids(params)
        if ids is None:
            return _efetch_error(EMPTY_IDS)
        root = ET.Element("PubmedArticleSet")
        root.text = "\n"
        for pmid in ids:
            record = self.by_pmid.get(pmid.lstrip("0"))
            if record is not None:
                element = article_element(record)
                element.tail = "\n"
                root.append(element)
        return _xml(_EFETCH_DOCTYPE + to_xml(root))

    def _requested_ids(self, params: Mapping[str, str]) -> list[str] | None:
        """The ids asked for (``id``, or a stored search), None when there are none."""
        raw = params.get("id", "")
        if raw.strip():
            return _split_ids(raw)
        webenv, key = params.get("WebEnv", ""), params.get("query_key", "")
        sets = self.history.get(webenv)
        if sets and key.isdigit() and 1 <= int(key) <= len(sets):
            start = _number(params, "retstart", 0)
            size = _number(params, "retmax", MAX_RETMAX)
            return sets[int(key) - 1][start:start + size]
        return None

    # --- esummary ----------------------------------------------------------------------

    async def esummary(self, request: web.Request) -> web.Response:
        params = await _params(request)
        retmode = params.get("retmode", "xml").strip().lower()
        ids = self._requested_ids(params)
        if retmode == "json":
            if ids is None:
                return _json({"header": _HEADER_ESUMMARY, "esummaryresult": [EMPTY_IDS]})
            result: dict[str, Any] = {"uids": ids}
            for uid in ids:
                record = self.by_pmid.get(uid.lstrip("0"))
                result[uid] = (summary_json(record) if record is not None
                               else {"uid": uid, "error": "cannot get document summary"})
            return _json({"header": _HEADER_ESUMMARY, "result": result})
        root = ET.Element("eSummaryResult")
        if ids is None:
            sub_element(root, "ERROR", EMPTY_IDS)
        for uid in ids or ():
            record = self.by_pmid.get(uid.lstrip("0"))
            if record is None:
                sub_element(root, "ERROR", f"UID={uid}: cannot get document summary")
            else:
                summary_docsum(root, record)
        return _xml(_ESUMMARY_DOCTYPE + to_xml(root))


def _date_range(params: Mapping[str, str]) -> tuple[int, int] | None:
    """``mindate``/``maxdate`` (``2019``, ``2019/05``, ``2019/05/01``) as a year range;
    NCBI needs both. The corpus holds years, so any ``datetype`` compares years."""
    low, high = params.get("mindate", "").strip(), params.get("maxdate", "").strip()
    if not low and not high:
        return None
    if not low or not high:
        raise TermError("Both mindate and maxdate must be given")  # the world's wording
    years = [part.split("/", 1)[0] for part in (low, high)]
    if not all(y.isdigit() and len(y) == 4 for y in years):
        raise TermError(f"Invalid date range: {low} to {high}")
    return int(years[0]), int(years[1])


def _new_webenv(term: str, serial: int) -> str:
    digest = hashlib.sha256(f"{serial}\0{term}".encode()).hexdigest()[:24]
    return f"MCID_{digest}"


async def _params(request: web.Request) -> MultiDictProxy[str]:
    """Query parameters and, for a POST, the form body (NCBI reads both)."""
    merged: MultiDict[str] = MultiDict(request.query)
    if request.method == "POST":
        form = await request.post()
        for key, value in form.items():
            if isinstance(value, str):
                merged.add(key, value)
    return MultiDictProxy(merged)


# ----------------------------------------------------------------------------- app

SERVICE_KEY = web.AppKey("pubmed_service", PubMedService)


def _not_found(request: web.Request, exc: web.HTTPException) -> web.Response:
    """NCBI's plain 404 for unknown paths."""
    return web.Response(status=404, text="<html><body><h1>404 Not Found</h1></body></html>",
                        content_type="text/html")


def _headers(request: web.Request) -> dict[str, str]:
    """NCBI's rate headers, on every response."""
    pool = identify_pool(request)
    limit, remaining = request.app[SERVICE_KEY].remaining(pool, clock_of(request))
    return {**_COMMON_HEADERS, "X-RateLimit-Limit": limit, "X-RateLimit-Remaining": remaining}


_pubmed_frame = framing(_not_found, headers=_headers)


def create_app(corpus: Corpus) -> web.Application:
    """The PubMed stand-in as an aiohttp application (mounted under a prefix)."""
    service = PubMedService(corpus)
    app = web.Application(middlewares=[_pubmed_frame])
    app[SERVICE_KEY] = service
    # Route names are the endpoints the world's request log reports.
    for name, handler in (("esearch", service.esearch), ("efetch", service.efetch),
                          ("esummary", service.esummary)):
        app.router.add_route("GET", f"/{name}.fcgi", handler, name=name)
        app.router.add_route("POST", f"/{name}.fcgi", handler, name=f"{name}.post")
    return app


# Re-exported: the other services (Semantic Scholar, DOAJ) and the tests read PubMed's
# identity and forms from here.
__all__ = ["LIMITS", "NAME", "SERVICE", "STOPWORDS", "PubMedService", "create_app", "derived_pmid",
           "medline_pages", "page_range", "parse_term", "pmcid_of", "pmid_of", "translation"]

SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=identify_pool,
    request_class=request_class,
    limits=LIMITS,
    throttled=throttled,
)
