"""DOAJ (Directory of Open Access Journals) API stand-in: article search and lookup.

Mounted at ``/doaj`` (standing for ``https://doaj.org/api``). Routes, as in DOAJ's
``portality`` (``view/api_v4.py``, ``api/current/discovery.py``):

- ``GET /search/articles/{query}`` (v4; also under ``/v4``, and ``/v3``, ``/v2``, which
  DOAJ still forwards to the same handler) — the query is an Elasticsearch query string
  in the path, percent-decoded once. ``page`` (default 1), ``pageSize`` (default 10,
  capped at 100, < 1 reads as 10), ``sort`` (``field`` or ``field:asc|desc``).
- ``GET /articles/{id}`` — one article; an unknown id is a 404 ``not_found`` whose
  message is empty but for the reference (DOAJ raises a bare ``Api404Error``).

Query syntax: ``field:term``, ``field:"phrase"``, ``field:(…)``, bare words and phrases
(any field), ``AND``/``OR``/``NOT`` (``&&``, ``||``, ``!``, ``+``/``-`` prefixes),
parentheses; the default operator is AND. Backslash escapes read literally (``\\:``,
``\\/``, ``\\"``). DOAJ's field shortcuts apply (``title`` → ``bibjson.title``, ``doi`` →
``bibjson.identifier.id.exact``, ``issn``, ``publisher``, ``journal``, ``abstract``), and
``bibjson.author.name``, ``bibjson.year``, ``bibjson.journal.*``, ``bibjson.identifier.id``,
``id`` are searched; an unknown field matches nothing (no error, as in Elasticsearch).
DOAJ's own guard is reproduced exactly: an unescaped ``*`` or ``?`` (even inside a
phrase) or a ``~`` fuzzy/proximity operator is a 400 "Query contains disallowed Lucene
features"; ``/`` is escaped by DOAJ before parsing, so it is always literal (there is no
regex syntax to refuse). Paging from record 1000 on is the 400 with DOAJ's message.
A query the parser cannot read (unbalanced parentheses or quotes) is DOAJ's generic
"There was an error executing your query" 400 — with two refs, as DOAJ nests them.

Envelope ``{total, page, pageSize, timestamp, query, results, prev?, next?, last?,
sort?}`` (``last`` even for no hits: DOAJ computes one page), links pointing back at
this server, ``Link`` and ``X-Total-Count`` headers. Errors are JSON ``{"status":
"bad_request"|"not_found", "error": "… (ref: <uuid>)"}``.

Rate limiting is nginx's (DOAJ's production config: ``limit_req zone=api rate=2r/s
burst=5 nodelay; limit_req_status 429``): 2 req/s per client, a burst of 5 more
admitted at once (``nodelay``: not delayed, despite the FAQ's "queued"), beyond that a
429 with nginx's HTML error page — not JSON. User-Agents matching ``bot``/``spider``
get nginx's 403 on every API route, as in that config.

Articles: only works in the ``doaj`` source (open-access journal articles), rendered
with that source's options; ``id`` is the rendering ``id`` or a derived 32-hex id. The
rendering object may carry DOAJ-only extras: ``seal`` (bool), ``license`` ("CC BY"),
``language`` (list), ``country``, ``month``, ``url`` (full text), ``keywords`` (list).

Simplified: no journal search, no analysers beyond lower-cased word tokens (no stemming),
no abstracts or subjects; relevance is the world's token-overlap score.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote, urlencode

import orjson
from aiohttp import web

from . import pubmed
from .corpus import Clause, Corpus, RenderedWork, SourceView, tokens
from .service import Limit, ServiceSpec, framing

NAME = "doaj"

LIMITS: Mapping[str, Mapping[str, Limit]] = {
    # Published: 2 req/s on every API route, for everyone (no keys for reading).
    "public": {"any": Limit(2.0)},
}
BURST = 5
"""Requests nginx admits above the rate at once (``burst=5 nodelay``). The shared limit
has no burst notion yet: tell the world's enforcer when it has one."""
DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 100
MAX_RECORDS = 1000
BASE_URL = "https://doaj.org"
DISALLOWED = "Query contains disallowed Lucene features"
QUERY_FAILED = "There was an error executing your query"
PAGE_NOT_INTEGER = "Page number was not an integer"
PAGE_SIZE_NOT_INTEGER = "Page size was not an integer"
# DOAJ's Messages.PREVENT_DEEP_PAGING_IN_API, indentation of its triple-quoted string
# included.
DEEP_PAGING = (
    "You cannot access results beyond {max_records} records via this API.\n"
    "    If you would like to see more results, you can download all of our data from\n"
    "    {data_dump_url}. You can also harvest from our OAI-PMH endpoints; articles: "
    "{oai_article_url}, journals: {oai_journal_url}"
)
NGINX_429 = (
    "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n"
    "<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)
NGINX_403 = (
    "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n"
    "<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)
# discovery.allowed(): the same expressions DOAJ runs over the raw query.
_WILDCARD = re.compile(r"(.+[^\\][\?\*]+.*)")
_FUZZY = re.compile(r"(.+[^\\]~[0-9]{0,1}[\.]{0,1}[0-9]{0,1})")
_BLOCKED_AGENT = re.compile(r"bot|spider", re.IGNORECASE)
_ALLOWED_AGENT = re.compile(r"UptimeRobot", re.IGNORECASE)
_VERSION_PREFIX = re.compile(r"/v\d+$")

# DISCOVERY_ARTICLE_SEARCH_SUBS
_SUBSTITUTIONS: Mapping[str, str] = {
    "title": "bibjson.title",
    "doi": "bibjson.identifier.id.exact",
    "issn": "index.issn.exact",
    "publisher": "bibjson.journal.publisher",
    "journal": "bibjson.journal.title",
    "abstract": "bibjson.abstract",
}
_TEXT_FIELDS: Mapping[str, str] = {
    # Elasticsearch field -> what it holds in a rendered record (analysed text).
    "bibjson.title": "title",
    "bibjson.author.name": "author",
    "bibjson.journal.title": "journal",
    "bibjson.journal.publisher": "publisher",
    "bibjson.identifier.id": "identifiers",
    "bibjson.keywords": "keywords",
    "bibjson.abstract": "abstract",
}
_EXACT_FIELDS: Mapping[str, str] = {
    "bibjson.identifier.id.exact": "identifiers",
    "index.issn.exact": "issn",
    "bibjson.journal.issns": "issn",
    "bibjson.year": "year",
    "bibjson.journal.volume": "volume",
    "bibjson.journal.number": "number",
    "bibjson.start_page": "start_page",
    "id": "id",
}
_SORT_FIELDS = frozenset({
    "index.unpunctitle.exact", "bibjson.title", "year", "bibjson.year", "created_date",
    "last_updated", "id",
})
_LICENSE_URLS: Mapping[str, str] = {
    "CC BY": "https://creativecommons.org/licenses/by/4.0/",
    "CC BY-SA": "https://creativecommons.org/licenses/by-sa/4.0/",
    "CC BY-NC": "https://creativecommons.org/licenses/by-nc/4.0/",
    "CC BY-NC-ND": "https://creativecommons.org/licenses/by-nc-nd/4.0/",
    "CC0": "https://creativecommons.org/publicdomain/zero/1.0/",
}


class DiscoveryError(Exception):
    """A request DOAJ answers with a 400 ``bad_request`` (its ``DiscoveryException``)."""


# ----------------------------------------------------------------------------- identity


def identify_pool(request: web.Request) -> str:
    return "public"  # one limit for everyone, per client address


def request_class(request: web.Request) -> str:
    return "any"


def throttled(retry_after: float | None) -> web.Response:
    """nginx's 429 page (``limit_req_status 429``): HTML, no ``Retry-After``."""
    return web.Response(status=429, body=NGINX_429.encode(),
                        headers={"Content-Type": "text/html", "Server": "cloudflare"})


# ----------------------------------------------------------------------------- rendering


def article_id(record: RenderedWork) -> str:
    given = (record.work.sources[record.source].source_id or "").strip()
    if given:
        return given
    return hashlib.sha256(f"doaj\0{record.work.id}".encode()).hexdigest()[:32]


def _extra(record: RenderedWork, key: str) -> Any:
    return record.work.sources[record.source].extra.get(key)


def _dates(record: RenderedWork) -> tuple[str, str]:
    year = min(max(record.work.year or 2015, 2003), 2025)  # DOAJ began in 2003
    return f"{year}-06-01T00:00:00Z", "2026-06-01T00:00:00Z"


def _identifiers(record: RenderedWork) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    if record.doi:
        out.append({"type": "doi", "id": record.doi})
    issns = record.work.issn
    if len(issns) == 1:
        out.append({"type": "eissn", "id": issns[0]})  # most OA journals are online-only
    elif issns:
        out.append({"type": "pissn", "id": issns[0]})
        out.append({"type": "eissn", "id": issns[1]})
    return out


def _fulltext(record: RenderedWork) -> str:
    url = _extra(record, "url")
    if isinstance(url, str) and url.strip():
        return url.strip()
    if record.doi:
        return f"https://doi.org/{record.doi}"
    return f"{BASE_URL}/article/{article_id(record)}"


def bibjson(record: RenderedWork) -> dict[str, Any]:
    work = record.work
    out: dict[str, Any] = {"title": record.full_title}  # DOAJ has no subtitle field
    if record.year is not None:
        out["year"] = str(record.year)  # years and months are strings
    month = _extra(record, "month")
    if month is not None:
        out["month"] = str(month)
    journal: dict[str, Any] = {}
    if work.volume:
        journal["volume"] = work.volume
    if work.issue:
        journal["number"] = work.issue
    if work.publisher:
        journal["publisher"] = work.publisher
    journal["title"] = work.container or ""
    country = _extra(record, "country")
    if isinstance(country, str):
        journal["country"] = country
    language = _extra(record, "language")
    journal["language"] = list(language) if isinstance(language, list) else ["EN"]
    journal["issns"] = list(work.issn)
    license_type = _extra(record, "license")
    license_type = license_type if isinstance(license_type, str) else "CC BY"
    journal["license"] = [{"open_access": True, "title": license_type, "type": license_type,
                           "url": _LICENSE_URLS.get(license_type, "")}]
    out["journal"] = journal
    out["identifier"] = _identifiers(record)
    out["link"] = [{"type": "fulltext", "url": _fulltext(record), "content_type": "HTML"}]
    out["author"] = [{"name": p.display} for p in record.authors]
    if work.pages:
        start, end = pubmed.page_range(work.pages)
        out["start_page"] = start
        if end:
            out["end_page"] = end
    keywords = _extra(record, "keywords")
    if isinstance(keywords, list):
        out["keywords"] = [str(k) for k in keywords]
    return out


def article_json(record: RenderedWork, *, in_search: bool) -> dict[str, Any]:
    """One article, keys in the recorded order of a search result or of a lookup."""
    created, updated = _dates(record)
    seal = _extra(record, "seal")
    parts: dict[str, Any] = {
        "id": article_id(record),
        "created_date": created,
        "last_updated": updated,
        "admin": {"seal": seal is True},
        "bibjson": bibjson(record),
    }
    order = (("last_updated", "bibjson", "admin", "id", "created_date") if in_search
             else ("id", "created_date", "last_updated", "admin", "bibjson"))
    return {k: parts[k] for k in order}


# ----------------------------------------------------------------------------- queries


@dataclass(frozen=True, slots=True)
class Leaf:
    """``text`` in ``field`` (None: any field); ``phrase`` for a quoted phrase."""

    field: str | None
    text: str
    phrase: bool = False


@dataclass(frozen=True, slots=True)
class Node:
    """``op`` (AND, OR, NOT) over ``items`` (NOT has one)."""

    op: str
    items: tuple[Leaf | Node, ...]


_OPS = {"AND": "AND", "&&": "AND", "OR": "OR", "||": "OR", "NOT": "NOT", "!": "NOT"}


def _lex(query: str) -> list[tuple[str, str, str | None]]:
    """(kind, text, field) tokens: ``(``, ``)``, ``op``, ``term``, ``phrase``, ``field(``."""
    out: list[tuple[str, str, str | None]] = []
    i, n = 0, len(query)

    def phrase_at(start: int) -> tuple[str, int]:
        chars: list[str] = []
        j = start + 1
        while j < n:
            c = query[j]
            if c == "\\" and j + 1 < n:
                chars.append(query[j + 1])
                j += 2
                continue
            if c == '"':
                return "".join(chars), j + 1
            chars.append(c)
            j += 1
        raise DiscoveryError("unterminated phrase")

    while i < n:
        c = query[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append((c, c, None))
            i += 1
        elif c == '"':
            text, i = phrase_at(i)
            out.append(("phrase", text, None))
        else:
            chars: list[str] = []
            colon: int | None = None
            j = i
            while j < n and not query[j].isspace() and query[j] not in '()"':
                if query[j] == "\\" and j + 1 < n:
                    chars.append(query[j + 1])
                    j += 2
                    continue
                if query[j] == ":" and colon is None:
                    colon = len(chars)
                chars.append(query[j])
                j += 1
            i = j
            word = "".join(chars)
            if word in _OPS:
                out.append(("op", _OPS[word], None))
                continue
            prefix = ""
            if word[:1] in "+-!" and len(word) > 1:
                prefix, word = word[0], word[1:]
                colon = None if colon is None else colon - 1
                out.append(("op", "NOT" if prefix in "-!" else "AND", None))
            if colon is None:
                out.append(("term", word, None))
                continue
            fld, value = word[:colon], word[colon + 1:]
            if value:
                out.append(("term", value, fld))
            elif i < n and query[i] == '"':
                text, i = phrase_at(i)
                out.append(("phrase", text, fld))
            elif i < n and query[i] == "(":
                out.append(("field(", "(", fld))
                i += 1
            else:
                raise DiscoveryError("a field without a value")
    return out


def parse_query(query: str) -> Leaf | Node:
    """An Elasticsearch query string (DOAJ's subset) as a tree: NOT binds tightest, then
    AND (also between adjacent clauses: DOAJ's default operator), then OR."""
    lexed = _lex(query)
    pos = 0

    def peek() -> tuple[str, str, str | None] | None:
        return lexed[pos] if pos < len(lexed) else None

    def or_expr(fld: str | None) -> Leaf | Node:
        nonlocal pos
        items = [and_expr(fld)]
        while (tok := peek()) is not None and tok[0] == "op" and tok[1] == "OR":
            pos += 1
            items.append(and_expr(fld))
        return items[0] if len(items) == 1 else Node("OR", tuple(items))

    def and_expr(fld: str | None) -> Leaf | Node:
        nonlocal pos
        items = [unary(fld)]
        while (tok := peek()) is not None and tok[0] != ")" and not (
                tok[0] == "op" and tok[1] == "OR"):
            if tok[0] == "op" and tok[1] == "AND":
                pos += 1
            items.append(unary(fld))
        return items[0] if len(items) == 1 else Node("AND", tuple(items))

    def unary(fld: str | None) -> Leaf | Node:
        nonlocal pos
        tok = peek()
        if tok is None:
            raise DiscoveryError("unexpected end of query")
        if tok[0] == "op":
            pos += 1
            if tok[1] == "NOT":
                return Node("NOT", (unary(fld),))
            return unary(fld)  # "+term", or AND/OR where a clause should be
        return primary(fld)

    def primary(fld: str | None) -> Leaf | Node:
        nonlocal pos
        kind, text, own = lexed[pos]
        pos += 1
        if kind in ("(", "field("):
            inner = or_expr(own if kind == "field(" else fld)
            if peek() is None or lexed[pos][0] != ")":
                raise DiscoveryError("unbalanced parentheses")
            pos += 1
            return inner
        if kind == ")":
            raise DiscoveryError("unbalanced parentheses")
        return Leaf(own if own is not None else fld, text, kind == "phrase")

    if not lexed:
        raise DiscoveryError("empty query")
    tree = or_expr(None)
    if pos != len(lexed):
        raise DiscoveryError("unbalanced parentheses")
    return tree


@dataclass(frozen=True, slots=True)
class _Doc:
    """A record's searchable values."""

    record: RenderedWork
    text: Mapping[str, tuple[tuple[str, ...], ...]]
    """Analysed field -> token sequences (one per value: each author name, ...)."""
    exact: Mapping[str, frozenset[str]]


def _doc(record: RenderedWork) -> _Doc:
    work = record.work
    ids = [i["id"] for i in _identifiers(record)]
    keywords = _extra(record, "keywords")
    start, _ = pubmed.page_range(work.pages) if work.pages else ("", "")
    text: dict[str, tuple[tuple[str, ...], ...]] = {
        "title": (tuple(tokens(record.full_title)),),
        "author": tuple(tuple(tokens(p.display)) for p in record.authors),
        "journal": (tuple(tokens(work.container or "")),),
        "publisher": (tuple(tokens(work.publisher or "")),),
        "identifiers": tuple(tuple(tokens(i)) for i in ids),
        "keywords": tuple(tuple(tokens(str(k))) for k in keywords)
        if isinstance(keywords, list) else (),
        "abstract": (),
    }
    exact = {
        "identifiers": frozenset(i.lower() for i in ids),
        "issn": frozenset(i.lower() for i in work.issn),
        "year": frozenset([str(record.year)] if record.year is not None else []),
        "volume": frozenset([work.volume.lower()] if work.volume else []),
        "number": frozenset([work.issue.lower()] if work.issue else []),
        "start_page": frozenset([start.lower()] if start else []),
        "id": frozenset([article_id(record).lower()]),
    }
    return _Doc(record, text, exact)


def _text_match(sequences: Sequence[tuple[str, ...]], words: list[str], phrase: bool) -> bool:
    if not words:
        return False
    if phrase:
        n = len(words)
        target = tuple(words)
        return any(seq[i:i + n] == target for seq in sequences for i in range(len(seq) - n + 1))
    # Analysed term: every word of the term in one value (ES splits "a-b" into a AND b).
    return any(all(w in seq for w in words) for seq in sequences)


def _leaf_matches(leaf: Leaf, doc: _Doc) -> bool:
    fld = _SUBSTITUTIONS.get(leaf.field, leaf.field) if leaf.field is not None else None
    words = tokens(leaf.text)
    if fld is None:
        # Default field: any analysed value, or an identifier / year as typed.
        if any(_text_match(seqs, words, leaf.phrase) for seqs in doc.text.values()):
            return True
        value = leaf.text.strip().lower()
        return value in doc.exact["identifiers"] or value in doc.exact["year"]
    if fld in _EXACT_FIELDS:
        return leaf.text.strip().lower() in doc.exact[_EXACT_FIELDS[fld]]
    if fld in _TEXT_FIELDS:
        return _text_match(doc.text[_TEXT_FIELDS[fld]], words, leaf.phrase)
    return False  # a field the index does not have matches nothing


def _matches(node: Leaf | Node, doc: _Doc) -> bool:
    if isinstance(node, Leaf):
        return _leaf_matches(node, doc)
    if node.op == "NOT":
        return not _matches(node.items[0], doc)
    positive = [i for i in node.items if not (isinstance(i, Node) and i.op == "NOT")]
    if node.op == "OR":
        # A pure negation inside OR still excludes (Lucene's "must_not").
        negative = [i for i in node.items if i not in positive]
        return (not positive or any(_matches(i, doc) for i in positive)) and all(
            _matches(i, doc) for i in negative)
    return all(_matches(i, doc) for i in node.items)


def _scored_words(node: Leaf | Node) -> list[str]:
    if isinstance(node, Leaf):
        fld = _SUBSTITUTIONS.get(node.field, node.field) if node.field else None
        return tokens(node.text) if fld is None or fld in _TEXT_FIELDS else []
    if node.op == "NOT":
        return []
    return [w for item in node.items for w in _scored_words(item)]


# ----------------------------------------------------------------------------- handlers


def _ref() -> str:
    return f"(ref: {uuid.uuid4()})"


def _respond(body: Any, status: int = 200, headers: Mapping[str, str] | None = None
             ) -> web.Response:
    out = {"Content-Type": "application/json", "Access-Control-Allow-Origin": "*"}
    out.update(headers or {})
    return web.Response(status=status, body=orjson.dumps(body), headers=out)


def bad_request(message: str) -> web.Response:
    return _respond({"status": "bad_request", "error": f"{message} {_ref()}"}, 400)


def not_found(message: str = "") -> web.Response:
    # DOAJ appends the reference to whatever message it has, even none.
    return _respond({"status": "not_found", "error": f"{message} {_ref()}"}, 404)


def _timestamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _service_base(request: web.Request) -> str:
    """This service's own base URL (``http://host/doaj``), for the envelope's links."""
    raw = request.raw_path.split("?", 1)[0]
    head = raw.split("/search/articles/", 1)[0].split("/articles/", 1)[0]
    return f"{request.scheme}://{request.host}{_VERSION_PREFIX.sub('', head)}"


class DoajService:
    """Request handlers over the ``doaj`` view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.view: SourceView = corpus.source(NAME)
        self.docs = tuple(_doc(r) for r in self.view.records)
        self._by_id = {article_id(r): r for r in self.view.records}
        self._order = {article_id(r): i for i, r in enumerate(self.view.records)}

    async def search(self, request: web.Request) -> web.Response:
        raw = request.raw_path.split("?", 1)[0]
        query = unquote(raw.split("/search/articles/", 1)[1])
        params = request.query
        try:
            page = int(params.get("page", "1"))
        except ValueError:
            return bad_request(PAGE_NOT_INTEGER)
        try:
            page_size = int(params.get("pageSize", str(DEFAULT_PAGE_SIZE)))
        except ValueError:
            return bad_request(PAGE_SIZE_NOT_INTEGER)
        sort = params.get("sort")
        try:
            ranked = await self._run(query, sort)
        except DiscoveryError as exc:
            return bad_request(str(exc))
        # DiscoveryApi._sanitise: clamp, then refuse deep paging.
        page = max(page, 1)
        page_size = MAX_PAGE_SIZE if page_size > MAX_PAGE_SIZE else (
            DEFAULT_PAGE_SIZE if page_size < 1 else page_size)
        start = (page - 1) * page_size
        if start >= MAX_RECORDS:
            return bad_request(DEEP_PAGING.format(
                max_records=MAX_RECORDS, data_dump_url=f"{BASE_URL}/docs/public-data-dump/",
                oai_article_url=f"{BASE_URL}/oai.article", oai_journal_url=f"{BASE_URL}/oai"))
        total = len(ranked)
        results = [article_json(r, in_search=True) for r in ranked[start:start + page_size]]
        body: dict[str, Any] = {"total": total, "page": page, "pageSize": page_size,
                                "timestamp": _timestamp(), "query": query, "results": results}
        last = max((total - 1) // page_size + 1, 1)  # one page even when there are no hits
        base = f"{_service_base(request)}/search/articles/{quote(query, safe='/:')}"

        def link(number: int) -> str:
            link_params = [("page", str(number)), ("pageSize", str(page_size))]
            if sort is not None:
                link_params.append(("sort", sort))
            return f"{base}?{urlencode(link_params)}"

        links: dict[str, str] = {}
        if page > 1:
            links["prev"] = link(page - 1)
        if page < last:
            links["next"] = link(page + 1)
        links["last"] = link(last)
        body.update(links)
        if sort is not None:
            body["sort"] = sort
        header_links = ", ".join(f"<{url}>; rel={rel}" for rel, url in links.items())
        return _respond(body, headers={"Link": header_links, "X-Total-Count": str(total)})

    def _scan(self, tree: Leaf | Node) -> list[RenderedWork]:
        return [d.record for d in self.docs if _matches(tree, d)]

    async def _run(self, query: str, sort: str | None) -> list[RenderedWork]:
        if _WILDCARD.search(query) or _FUZZY.search(query):
            raise DiscoveryError(DISALLOWED)
        sort_key = _sort_spec(sort)
        try:
            tree = parse_query(query)
        except DiscoveryError as exc:
            # Elasticsearch's parse failure, wrapped twice by DOAJ: two refs.
            raise DiscoveryError(f"{QUERY_FAILED} {_ref()}") from exc
        # A scan of every record: in a worker thread, so the loop keeps serving meanwhile.
        matching = await asyncio.to_thread(self._scan, tree)
        words = _scored_words(tree)
        scores: dict[str, float] = {}
        if words:
            fields = frozenset({"title", "author", "container", "publisher"})
            wanted = {article_id(r) for r in matching}
            for hit in await self.view.asearch([Clause(fields, " ".join(words))],
                                               lambda r: article_id(r) in wanted):
                scores[article_id(hit.record)] = hit.score
        matching.sort(key=lambda r: (-scores.get(article_id(r), 0.0),
                                     self._order[article_id(r)]))
        if sort_key is not None:
            key, descending = sort_key
            matching.sort(key=key, reverse=descending)
        return matching

    async def article(self, request: web.Request) -> web.Response:
        record = self._by_id.get(request.match_info["article_id"])
        if record is None:
            return not_found()
        return _respond(article_json(record, in_search=False))


def _sort_spec(sort: str | None) -> tuple[Callable[[RenderedWork], Any], bool] | None:
    """DOAJ's sort parameter as (key, descending); the default direction is asc."""
    if sort is None:
        return None
    bits = sort.split(":")
    if len(bits) > 2:
        raise DiscoveryError("Malformed sort parameter")
    field_name = {"title": "index.unpunctitle.exact"}.get(bits[0], bits[0])
    if len(bits) == 2 and bits[1] not in ("asc", "desc"):
        raise DiscoveryError("Sort direction must be 'asc' or 'desc'")
    descending = len(bits) == 2 and bits[1] == "desc"
    if field_name not in _SORT_FIELDS:
        raise DiscoveryError(f"{QUERY_FAILED} {_ref()}")  # Elasticsearch refuses the field
    if field_name in ("index.unpunctitle.exact", "bibjson.title"):
        return (lambda r: " ".join(tokens(r.full_title))), descending
    if field_name in ("year", "bibjson.year"):
        return (lambda r: r.year or 0), descending
    if field_name == "id":
        return article_id, descending
    return (lambda r: _dates(r)[0 if field_name == "created_date" else 1]), descending


# ----------------------------------------------------------------------------- app

def _bot_block(request: web.Request) -> web.Response | None:
    """nginx's bot block."""
    agent = request.headers.get("User-Agent", "")
    if _BLOCKED_AGENT.search(agent) and not _ALLOWED_AGENT.search(agent):
        return web.Response(status=403, body=NGINX_403.encode(),
                            headers={"Content-Type": "text/html"})
    return None


def _no_endpoint(request: web.Request, exc: web.HTTPException) -> web.Response:
    """DOAJ's JSON 404 for unknown API paths."""
    # The path below the API root (the server mounts this app at /doaj).
    path = request.path.removeprefix(f"/{NAME}").lstrip("/")
    return not_found(f"No endpoint at {path}. See {BASE_URL}/api/swagger.json for valid "
                     f"paths or read the documentation at {BASE_URL}/api/docs.")


# nginx's bot block, DOAJ's JSON 404 for unknown API paths, Cloudflare's header.
_doaj_frame = framing(_no_endpoint, catch=(web.HTTPNotFound, web.HTTPMethodNotAllowed),
                      refuse=_bot_block, headers={"Server": "cloudflare"})


def create_app(corpus: Corpus) -> web.Application:
    """The DOAJ stand-in as an aiohttp application (mounted under a prefix)."""
    service = DoajService(corpus)
    app = web.Application(middlewares=[_doaj_frame])
    # Route names are the endpoints the world's request log reports.
    for version in ("", "/v4", "/v3", "/v2"):
        label = version.strip("/") + "." if version else ""
        app.router.add_get(f"{version}/search/articles/{{query:.+}}", service.search,
                           name=f"{label}search_articles")
        app.router.add_get(f"{version}/articles/{{article_id}}", service.article,
                           name=f"{label}retrieve_article")
    return app


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=identify_pool,
    request_class=request_class,
    limits=LIMITS,
    throttled=throttled,
)
