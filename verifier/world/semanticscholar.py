"""Semantic Scholar Academic Graph API stand-in: the ``/paper`` routes over a corpus.

Mounted at ``/semanticscholar`` (standing for ``https://api.semanticscholar.org/graph/v1``):

- ``GET /paper/search/match`` — ``query`` (a title), ``fields``, ``year``: at most one
  paper, ``{"data": [{..., "matchScore": x}]}``, when a title is similar enough to the
  query (see :data:`MATCH_THRESHOLD`); else **404 ``{"error": "Title match not
  found"}``**, as recorded.
- ``GET /paper/search`` — ``query``, ``fields``, ``offset`` (default 0), ``limit``
  (default 100, ≤ 100), filters ``year`` (``2019``, ``2016-2020``, ``2010-``, ``-2015``),
  ``publicationTypes``, ``venue``, ``openAccessPdf``, ``minCitationCount``,
  ``fieldsOfStudy``: ``{"total", "offset", "next"?, "data"}``; no hits is ``{"total": 0,
  "offset": 0}`` with **no** ``data`` key, as recorded. Only the first 1000 results can
  be paged to. A hyphenated query word matches nothing, as S2 documents.
- ``GET /paper/{id}`` — ``DOI:…`` (or a bare DOI), ``ARXIV:…``, ``PMID:…``, ``PMCID:…``,
  ``CorpusId:…``, ``URL:…`` (semanticscholar.org, arxiv.org, doi.org) or the 40-hex
  ``paperId``; unknown → **404 ``{"error": "Paper with id <id> not found"}``**.
- ``POST /paper/batch`` — body ``{"ids": [...]}`` (≤ 500): a list aligned with the ids,
  ``null`` for unknown ones.

``fields`` is honoured everywhere: only the requested fields, ``paperId`` always, in S2's
own order (not the order asked for, as recorded); without it a paper is ``paperId`` and
``title``. ``authors.name``-style subfields are accepted (``authorId`` always). An
unknown field is a **400 ``{"error": "Unrecognized or unsupported fields: [x]"}``**.
Errors use ``error``; the gateway's 403/429 use ``message`` (recorded bodies). An
``x-api-key`` header selects the keyed pool; a blank one is refused (403 Forbidden, the
gateway's answer to a bad key).

Rendering: the ``semanticscholar`` view of the corpus (title case, dropped subtitle —
S2 has no subtitle field, so a shown subtitle is part of ``title`` —, initials,
truncated authors, year offset, omitted DOI). ``paperId`` is the rendering ``id`` when it
is 40 hex digits, else derived from the corpus id; ``corpusId`` likewise from an all-digit
``id``. ``externalIds`` carries the DOI, an arXiv id (from an arXiv DOI, an ``arxiv``
key of the work or its ``arxiv`` rendering id) and the PubMed id when the work is in
PubMed (the same PMID the PubMed stand-in shows).

Simplified: no abstracts, citation graph or TLDRs (counts are 0, lists empty, text
fields null); no ``/paper/search/bulk``, ``/paper/{id}/citations``, author routes;
validation messages other than the recorded ones are the world's own wording.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any
from urllib.parse import unquote

import orjson
from aiohttp import web

from verifier.identifiers import strip_doi_prefix

from . import pubmed
from .corpus import Clause, Corpus, Hit, Person, RenderedWork, SourceView, tokens
from .service import Limit, ServiceSpec, framing

NAME = "semanticscholar"

LIMITS: Mapping[str, Mapping[str, Limit]] = {
    # Keyed: the introductory 1 req/s on all endpoints (S2 product page). The keyless
    # shared pool is nominally ~1000 req/s for everyone together, which in practice 429s
    # almost at once: the world models a lone caller's share of it as 1 req/s too.
    "shared": {"any": Limit(1.0)},
    "keyed": {"any": Limit(1.0)},
}
THROTTLED_MESSAGE = (
    "Too Many Requests. Please wait and try again or apply for a key for higher rate "
    "limits. https://www.semanticscholar.org/product/api#api-key-form"
)
MATCH_THRESHOLD = 0.85
"""Smallest title similarity (difflib ratio of the normalised titles, best of the full
title and the title before its subtitle, on both sides) for ``/paper/search/match`` to
answer: a misspelt word or a missing subtitle still matches, a different title does
not."""
MAX_LIMIT = 100
MAX_RESULTS = 1000
MAX_BATCH = 500
_MATCH_CANDIDATES = 25

# Every field S2 returns for a paper, in the order it returns them (recorded bodies).
PAPER_FIELDS: tuple[str, ...] = (
    "paperId", "externalIds", "corpusId", "publicationVenue", "url", "title", "abstract",
    "venue", "year", "referenceCount", "citationCount", "influentialCitationCount",
    "isOpenAccess", "openAccessPdf", "fieldsOfStudy", "s2FieldsOfStudy",
    "publicationTypes", "publicationDate", "journal", "citationStyles", "authors",
    "citations", "references", "embedding", "tldr", "textAvailability",
)
AUTHOR_FIELDS: tuple[str, ...] = (
    "authorId", "externalIds", "url", "name", "aliases", "affiliations", "homepage",
    "paperCount", "citationCount", "hIndex",
)
_NESTED_PAPER_LISTS = frozenset({"citations", "references"})
_DEFAULT_FIELDS = ("paperId", "title")
_TYPES: Mapping[str, list[str] | None] = {
    "article": ["JournalArticle"],
    "proceedings": ["Conference"],
    "book": ["Book"],
    "chapter": ["BookSection"],
}
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_VERSION = re.compile(r"v\d+$")
_HYPHENATED = re.compile(r"\w-\w")
_SUBTITLE_SPLIT = re.compile(r"\s*(?::|\s[-\u2013\u2014]\s|[?!]\s)\s*")
_YEAR = re.compile(r"^(\d{4})?(-)?(\d{4})?$")


class ApiError(Exception):
    """A request S2 refuses: ``status`` with ``{"error": message}``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


# ----------------------------------------------------------------------------- identity


def identify_pool(request: web.Request) -> str:
    """``keyed`` with an ``x-api-key`` header, else the ``shared`` keyless pool."""
    return "keyed" if request.headers.get("x-api-key", "").strip() else "shared"


def request_class(request: web.Request) -> str:
    return "any"  # the keyed rate covers every endpoint together


def throttled(retry_after: float | None) -> web.Response:
    """The gateway's 429, as quoted: ``message`` (not ``error``), no ``Retry-After``."""
    return web.Response(status=429, body=orjson.dumps(
        {"message": THROTTLED_MESSAGE, "code": "429"}),
        headers={"Content-Type": "application/json", **_COMMON_HEADERS})


_COMMON_HEADERS: Mapping[str, str] = {
    "Access-Control-Allow-Origin": "*",
    "x-amzn-Remapped-Server": "gunicorn",
}


# ----------------------------------------------------------------------------- ids


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\0".join(parts).encode()).digest()


def paper_id(record: RenderedWork) -> str:
    """The 40-hex paperId: the rendering ``id`` when it is one, else derived."""
    given = (record.work.sources[record.source].source_id or "").strip().lower()
    if _HEX40.match(given):
        return given
    return hashlib.sha1(f"s2\0{record.work.id}".encode()).hexdigest()  # an id, not a secret


def corpus_id(record: RenderedWork) -> int:
    given = (record.work.sources[record.source].source_id or "").strip()
    if given.isdigit():
        return int(given)
    return 1_000_000 + int.from_bytes(_digest("s2-corpus", record.work.id)[:8], "big") % 10**9


def arxiv_id(record: RenderedWork) -> str | None:
    """The work's arXiv id: an ``arxiv`` key, the arXiv rendering id, or its arXiv DOI."""
    work = record.work
    value = work.extra.get("arxiv")
    if isinstance(value, str) and value.strip():
        return _ARXIV_VERSION.sub("", value.strip().lower().removeprefix("arxiv:"))
    options = work.sources.get("arxiv")
    if options is not None and options.source_id:
        return _ARXIV_VERSION.sub("", options.source_id.strip().lower())
    match = _ARXIV_DOI.match(work.doi or "")
    return match.group(1).lower() if match else None


def external_ids(record: RenderedWork) -> dict[str, Any]:
    work = record.work
    out: dict[str, Any] = {}
    arxiv = arxiv_id(record)
    if arxiv:
        out["ArXiv"] = arxiv
    pmcid = pubmed.pmcid_of(work)
    if pmcid:
        out["PubMedCentral"] = pmcid.removeprefix("PMC")  # S2 gives the bare number
    if record.doi:
        out["DOI"] = record.doi
    out["CorpusId"] = corpus_id(record)
    if "pubmed" in work.sources or "pmid" in work.extra:
        out["PubMed"] = pubmed.pmid_of(work)
    return out


def _author_id(person: Person) -> str:
    key = person.literal or f"{person.given or ''} {person.family or ''}"
    return str(1_000_000 + int.from_bytes(_digest("s2-author", key)[:6], "big") % 10**9)


# ----------------------------------------------------------------------------- rendering


def _bibtex(record: RenderedWork) -> str:
    work = record.work
    first = record.authors[0] if record.authors else None
    family = (first.literal or first.family or "") if first else ""
    words = [w for w in tokens(record.title) if w not in pubmed.STOPWORDS][:2]
    key = "".join(p[:1].upper() + p[1:] for p in (
        re.sub(r"\W", "", family), str(record.year or ""), "".join(w[:1] for w in words)))
    kind = "Book" if work.type == "book" else (
        "Inproceedings" if work.type == "proceedings" else "Article")
    lines = [f"@{kind}{{{key},"]
    if record.authors:
        lines.append(f" author = {{{' and '.join(p.display for p in record.authors)}}},")
    if work.container:
        lines.append(f" journal = {{{work.container}}},")
    if work.pages:
        lines.append(f" pages = {{{_pages(work.pages)}}},")
    lines.append(f" title = {{{record.full_title}}},")
    if work.volume:
        lines.append(f" volume = {{{work.volume}}},")
    if record.year is not None:
        lines.append(f" year = {{{record.year}}}")
    return "\n".join(lines).rstrip(",") + "\n}\n"


def _pages(pages: str) -> str:
    """S2's page ranges are spaced ("E4832 - E4841"), as recorded."""
    start, end = pubmed.page_range(pages)
    return f"{start} - {end}" if end else start


def _open_access(record: RenderedWork) -> tuple[bool, dict[str, Any]]:
    work = record.work
    if "doaj" in work.sources and work.doi:
        return True, {"url": f"https://doi.org/{work.doi}", "status": "GOLD",
                      "license": "CCBY"}
    arxiv = arxiv_id(record)
    if arxiv:
        return True, {"url": f"https://arxiv.org/pdf/{arxiv}", "status": "GREEN",
                      "license": None}
    # Closed papers carry an empty URL, not null (recorded).
    return False, {"url": "", "status": None, "license": None}


def _author_json(person: Person, subfields: Sequence[str] | None) -> dict[str, Any]:
    author_id = _author_id(person)
    full: dict[str, Any] = {
        "authorId": author_id,
        "externalIds": {},
        "url": f"https://www.semanticscholar.org/author/{author_id}",
        "name": person.display,
        "aliases": None,
        "affiliations": [],
        "homepage": None,
        "paperCount": 1,
        "citationCount": 0,
        "hIndex": 0,
    }
    wanted = ("authorId", "name") if subfields is None else ("authorId", *subfields)
    return {k: full[k] for k in AUTHOR_FIELDS if k in wanted}


def paper_json(record: RenderedWork, fields: Mapping[str, list[str] | None]
               ) -> dict[str, Any]:
    """A paper with only ``fields`` (field -> requested subfields or None), paperId
    first and the rest in S2's order."""
    work = record.work
    pid = paper_id(record)
    out: dict[str, Any] = {"paperId": pid}
    is_oa, oa_pdf = _open_access(record)
    for name in PAPER_FIELDS[1:]:
        if name not in fields:
            continue
        value: Any
        if name == "externalIds":
            value = external_ids(record)
        elif name == "corpusId":
            value = corpus_id(record)
        elif name == "publicationVenue":
            value = _venue(record)
        elif name == "url":
            value = f"https://www.semanticscholar.org/paper/{pid}"
        elif name == "title":
            value = record.full_title
        elif name == "venue":
            value = work.container or ""
        elif name == "year":
            value = record.year
        elif name in ("referenceCount", "citationCount", "influentialCitationCount"):
            value = 0
        elif name == "isOpenAccess":
            value = is_oa
        elif name == "openAccessPdf":
            value = oa_pdf
        elif name == "s2FieldsOfStudy":
            value = []
        elif name == "publicationTypes":
            value = _TYPES.get(work.type)
        elif name == "journal":
            value = _journal(record)
        elif name == "citationStyles":
            value = {"bibtex": _bibtex(record)}
        elif name == "authors":
            value = [_author_json(p, fields[name]) for p in record.authors]
        elif name in _NESTED_PAPER_LISTS:
            value = []  # the corpus has no citation graph
        elif name == "textAvailability":
            value = "none"
        else:  # abstract, fieldsOfStudy, publicationDate, embedding, tldr: not modelled
            value = None
        out[name] = value
    return out


def _venue(record: RenderedWork) -> dict[str, Any] | None:
    work = record.work
    if not work.container:
        return None
    venue_id = hashlib.sha256(f"s2-venue\0{work.container}".encode()).hexdigest()
    out: dict[str, Any] = {
        "id": f"{venue_id[:8]}-{venue_id[8:12]}-{venue_id[12:16]}-{venue_id[16:20]}-"
              f"{venue_id[20:32]}",
        "name": work.container,
        "type": "conference" if work.type == "proceedings" else "journal",
    }
    if work.issn:
        out["issn"] = work.issn[0]
    out["alternate_names"] = []
    return out


def _journal(record: RenderedWork) -> dict[str, Any] | None:
    work = record.work
    if not work.container and not work.pages:
        return None
    out: dict[str, Any] = {}
    if work.container:
        out["name"] = work.container
    if work.pages:
        out["pages"] = _pages(work.pages)
    if work.volume:
        out["volume"] = work.volume
    return out


# ----------------------------------------------------------------------------- parameters


def parse_fields(raw: str | None) -> dict[str, list[str] | None]:
    """``fields`` as field -> subfields (None: the field's default). Raises
    :class:`ApiError` naming every unknown field."""
    if raw is None:
        return dict.fromkeys(_DEFAULT_FIELDS)
    fields: dict[str, list[str] | None] = {}
    unknown: list[str] = []
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        head, _, sub = item.partition(".")
        if head not in PAPER_FIELDS:
            unknown.append(item)
            continue
        if not sub:
            fields.setdefault(head, None)
            continue
        allowed = AUTHOR_FIELDS if head == "authors" else (
            PAPER_FIELDS if head in _NESTED_PAPER_LISTS else ("specter_v1", "specter_v2"))
        if sub not in allowed:
            unknown.append(item)
            continue
        current = fields.get(head)
        fields[head] = [*(current or []), sub]
    if unknown:
        raise ApiError(f"Unrecognized or unsupported fields: [{', '.join(unknown)}]")
    return fields


def _year_filter(raw: str) -> Callable[[RenderedWork], bool]:
    match = _YEAR.match(raw.strip())
    if match is None or not (match.group(1) or match.group(3)):
        raise ApiError(f"Invalid year filter: {raw}")
    low = int(match.group(1)) if match.group(1) else -(10**9)
    if match.group(2):
        high = int(match.group(3)) if match.group(3) else 10**9
    else:
        high = low
    return lambda rec: rec.year is not None and low <= rec.year <= high


def _filters(params: Mapping[str, str]) -> Callable[[RenderedWork], bool]:
    tests: list[Callable[[RenderedWork], bool]] = []
    if params.get("year", "").strip():
        tests.append(_year_filter(params["year"]))
    if params.get("publicationDateOrYear", "").strip():
        # Dates are years in the corpus: "2019-01-01:2020-12-31" compares the years.
        low, sep, high = params["publicationDateOrYear"].partition(":")
        span = f"{low[:4]}-{high[:4]}" if sep else low[:4]
        tests.append(_year_filter(span))
    if params.get("publicationTypes", "").strip():
        wanted = {t.strip() for t in params["publicationTypes"].split(",")}
        tests.append(lambda rec: bool(set(_TYPES.get(rec.work.type) or ()) & wanted))
    if params.get("venue", "").strip():
        venues = {v.strip().casefold() for v in params["venue"].split(",")}
        tests.append(lambda rec: (rec.work.container or "").casefold() in venues)
    if "openAccessPdf" in params:
        tests.append(lambda rec: _open_access(rec)[0])
    minimum = params.get("minCitationCount", "").strip()
    if minimum:
        if not minimum.isdigit():
            raise ApiError(f"Invalid minCitationCount: {minimum}")
        if int(minimum) > 0:
            tests.append(lambda rec: False)  # every corpus paper has 0 citations
    if params.get("fieldsOfStudy", "").strip():
        tests.append(lambda rec: False)  # no corpus paper has fields of study
    return lambda rec: all(test(rec) for test in tests)


def _required_query(params: Mapping[str, str]) -> str:
    query = params.get("query", "")
    if not query.strip():
        raise ApiError("Missing required parameter: 'query'")
    return query


def _integer(params: Mapping[str, str], name: str, default: int) -> int:
    raw = params.get(name)
    if raw is None or not raw.strip():
        return default
    if not raw.strip().isdigit():
        raise ApiError(f"Invalid {name}: {raw}")
    return int(raw)


# ----------------------------------------------------------------------------- matching


def _normal(text: str) -> str:
    return " ".join(tokens(text))


def _variants(text: str) -> set[str]:
    """The normalised text, and the part before a subtitle separator."""
    out = {_normal(text)}
    head = _SUBTITLE_SPLIT.split(text, maxsplit=1)[0]
    if head.strip():
        out.add(_normal(head))
    out.discard("")
    return out


def title_similarity(query: str, record: RenderedWork) -> float:
    """How alike a queried title and a record's title are, in [0, 1]."""
    mine = _variants(query)
    theirs = _variants(record.full_title) | {_normal(record.title)}
    return max((SequenceMatcher(None, a, b, autojunk=False).ratio()
                for a in mine for b in theirs if b), default=0.0)


# ----------------------------------------------------------------------------- handlers


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body),
                        headers={"Content-Type": "application/json"})


def _error(message: str, status: int) -> web.Response:
    return _json({"error": message}, status)


class SemanticScholarService:
    """Request handlers over the ``semanticscholar`` view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.view: SourceView = corpus.source(NAME)
        self._by_paper_id = {paper_id(r): r for r in self.view.records}
        self._by_corpus_id = {corpus_id(r): r for r in self.view.records}
        self._by_arxiv = {a: r for r in self.view.records if (a := arxiv_id(r))}
        self._by_pmid = {pubmed.pmid_of(r.work): r for r in self.view.records
                         if "pubmed" in r.work.sources or "pmid" in r.work.extra}
        self._by_pmcid = {p: r for r in self.view.records if (p := pubmed.pmcid_of(r.work))}

    # --- lookups -----------------------------------------------------------------------

    def lookup(self, ident: str) -> RenderedWork | None:
        """The paper an S2 id names (see the module docstring), or None."""
        ident = ident.strip()
        if ident.startswith("10."):
            return self.view.by_doi(ident)
        if _HEX40.match(ident.lower()):
            return self._by_paper_id.get(ident.lower())
        kind, sep, value = ident.partition(":")
        if not sep:
            return None
        kind, value = kind.strip().upper(), value.strip()
        if kind == "DOI":
            return self.view.by_doi(strip_doi_prefix(value))
        if kind == "ARXIV":
            return self._by_arxiv.get(_ARXIV_VERSION.sub("", value.lower()))
        if kind == "PMID":
            return self._by_pmid.get(value.lstrip("0"))
        if kind == "PMCID":
            number = value.upper().removeprefix("PMC")
            return self._by_pmcid.get(f"PMC{number}")
        if kind == "CORPUSID":
            return self._by_corpus_id.get(int(value)) if value.isdigit() else None
        if kind == "URL":
            return self._lookup_url(value)
        return None  # MAG, ACL, DBLP: the corpus has no such ids

    def _lookup_url(self, url: str) -> RenderedWork | None:
        url = url.strip().rstrip("/")
        if "semanticscholar.org/paper/" in url:
            return self._by_paper_id.get(url.rsplit("/", 1)[-1].lower())
        if "arxiv.org/" in url:
            tail = re.split(r"arxiv\.org/(?:abs|pdf)/", url, maxsplit=1)[-1]
            return self._by_arxiv.get(_ARXIV_VERSION.sub("", tail.removesuffix(".pdf").lower()))
        if "doi.org/" in url:
            return self.view.by_doi(strip_doi_prefix(url))
        return None

    # --- routes ------------------------------------------------------------------------

    async def paper(self, request: web.Request) -> web.Response:
        ident = _path_id(request)
        try:
            fields = parse_fields(request.query.get("fields"))
        except ApiError as exc:
            return _error(exc.message, exc.status)
        record = self.lookup(ident)
        if record is None:
            return _error(f"Paper with id {ident} not found", 404)
        return _json(paper_json(record, fields))

    async def match(self, request: web.Request) -> web.Response:
        params = request.query
        try:
            fields = parse_fields(params.get("fields"))
            query = _required_query(params)
            where = _filters(params)
        except ApiError as exc:
            return _error(exc.message, exc.status)
        # The search and the similarity of each candidate (difflib, milliseconds each) run
        # in a worker thread: on the loop they would delay every other request's arrival.
        best = await asyncio.to_thread(self._best_match, query, where)
        if best is None:
            return _error("Title match not found", 404)
        similarity, hit = best
        paper = paper_json(hit.record, fields)
        # Like S2's: an unnormalised engine score (recorded values run 109-178).
        paper["matchScore"] = round(hit.score * 10 + similarity * 100, 5)
        return _json({"data": [paper]})

    def _best_match(self, query: str, where: Callable[[RenderedWork], bool] | None
                    ) -> tuple[float, Hit] | None:
        """The title-searched candidate most like ``query`` at or above the threshold."""
        candidates = self.view.search([Clause(frozenset({"title"}), query)], where)
        best: tuple[float, Hit] | None = None
        for hit in candidates[:_MATCH_CANDIDATES]:
            similarity = title_similarity(query, hit.record)
            if similarity >= MATCH_THRESHOLD and (best is None or similarity > best[0]):
                best = (similarity, hit)
        return best

    async def search(self, request: web.Request) -> web.Response:
        params = request.query
        try:
            fields = parse_fields(params.get("fields"))
            query = _required_query(params)
            offset = _integer(params, "offset", 0)
            limit = _integer(params, "limit", MAX_LIMIT)
            if limit > MAX_LIMIT:
                raise ApiError(f"The limit parameter must be less than or equal to {MAX_LIMIT}")
            where = _filters(params)
        except ApiError as exc:
            return _error(exc.message, exc.status)
        if _HYPHENATED.search(query):
            hits: list[Hit] = []  # S2: "hyphenated query terms yield no matches"
        else:
            fields_searched = frozenset({"title", "author", "container"})
            hits = await self.view.asearch([Clause(fields_searched, query)], where)
        if not hits:
            return _json({"total": 0, "offset": 0})
        reachable = min(len(hits), MAX_RESULTS)
        if offset >= reachable:
            return _error("Requested data for this limit and/or offset is not available", 400)
        page = hits[offset:min(offset + limit, reachable)]
        body: dict[str, Any] = {"total": len(hits), "offset": offset}
        end = offset + len(page)
        if end < reachable:
            body["next"] = end
        body["data"] = [paper_json(h.record, fields) for h in page]
        return _json(body)

    async def batch(self, request: web.Request) -> web.Response:
        try:
            fields = parse_fields(request.query.get("fields"))
            try:
                payload = orjson.loads(await request.read())
            except orjson.JSONDecodeError as exc:
                raise ApiError("Request body is not valid JSON") from exc
            ids = payload.get("ids") if isinstance(payload, dict) else None
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise ApiError("Request body must be an object with a list of string 'ids'")
            if len(ids) > MAX_BATCH:
                raise ApiError(f"Cannot process more than {MAX_BATCH} ids in one request")
        except ApiError as exc:
            return _error(exc.message, exc.status)
        papers = []
        for ident in ids:
            record = self.lookup(ident)
            papers.append(None if record is None else paper_json(record, fields))
        return _json(papers)


def _path_id(request: web.Request) -> str:
    """The id of ``/paper/{id}``, percent-decoded once (DOIs keep their slashes)."""
    raw = request.raw_path.split("?", 1)[0]
    _, _, tail = raw.partition("/paper/")
    return unquote(tail)


# ----------------------------------------------------------------------------- app

KEY_SHAPE = re.compile(r"[A-Za-z0-9]{40}")
"""What a Semantic Scholar API key looks like (40 letters and digits). The real gateway
answers 403 ``{"message":"Forbidden"}`` for a key it did not issue (recorded
``error_forbidden.json``); the world, having issued none, refuses every key of another
shape and accepts any key of this one."""


def _bad_key(request: web.Request) -> web.Response | None:
    """The gateway's answer to a blank or invalid API key."""
    if "x-api-key" in request.headers and \
            not KEY_SHAPE.fullmatch(request.headers["x-api-key"].strip()):
        return web.Response(status=403, body=b'{"message":"Forbidden"}',
                            headers={"Content-Type": "application/json",
                                     "x-amzn-ErrorType": "ForbiddenException"})
    return None


def _undefined_route(request: web.Request, exc: web.HTTPException) -> web.Response:
    """API Gateway's answer for a route it does not define (not S2's own 404)."""
    return web.Response(status=403, body=b'{"message":"Missing Authentication Token"}',
                        headers={"Content-Type": "application/json",
                                 "x-amzn-ErrorType": "MissingAuthenticationTokenException"})


# The gateway's answers (bad key, unknown route) and its common headers.
_s2_frame = framing(_undefined_route, catch=(web.HTTPNotFound, web.HTTPMethodNotAllowed),
                    refuse=_bad_key, headers=_COMMON_HEADERS)


def create_app(corpus: Corpus) -> web.Application:
    """The Semantic Scholar stand-in as an aiohttp application (mounted under a prefix)."""
    service = SemanticScholarService(corpus)
    app = web.Application(middlewares=[_s2_frame])
    # Route names are the endpoints the world's request log reports; the fixed routes
    # come before /paper/{id}, which would otherwise swallow them.
    app.router.add_get("/paper/search/match", service.match, name="match")
    app.router.add_get("/paper/search", service.search, name="search")
    app.router.add_post("/paper/batch", service.batch, name="batch")
    app.router.add_get("/paper/{paper_id:.+}", service.paper, name="paper")
    return app


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=identify_pool,
    request_class=request_class,
    limits=LIMITS,
    throttled=throttled,
)
