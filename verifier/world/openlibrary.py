"""Open Library stand-in (``https://openlibrary.org``): search, the Books API, editions.

Routes (mounted under ``/openlibrary``):

- ``GET /search.json`` — ``q`` (free text, or ``title:… author:… publisher:… isbn:…``),
  ``title``, ``author``, ``publisher``, ``isbn``, ``fields`` (``*`` for every field,
  ``editions`` nests the matching edition), ``limit`` (default 100), ``page``,
  ``offset``, ``sort`` (``new``, ``old``, ``title``, ``editions``). As on the real
  service every word must match: the words of ``title`` against the title (subtitle
  included), of ``author`` against the author names, of ``q`` against title, authors,
  publisher and year (the corpus search's ``all`` match: Porter-stemmed words, as Open
  Library's Solr stems English), ranked by its bm25. Docs are *works*
  (``key`` ``/works/OL…W``) in the current envelope ``{numFound, start, numFoundExact,
  num_found, documentation_url, q, offset, docs}``; missing fields are omitted, not null.
- ``GET /api/books?bibkeys=ISBN:…[,ISBN:…,OLID:OL…M]&jscmd=data|details|viewapi&format=json``
  — a dict keyed by each bibkey *as sent*; unknown keys are simply absent, so nothing
  known is ``{}`` with HTTP 200. Without ``format=json`` the answer is JavaScript
  (``var _OLBookInfo = {...};``), as on the real service.
- ``GET /isbn/{isbn}.json`` — 302 to ``/books/OL…M.json`` (the edition), or 404.
- ``GET /books/{OL…M}.json``, ``/works/{OL…W}.json``, ``/authors/{OL…A}.json`` — the
  records; an unknown id is a 404 ``{"error": "notfound", "key": ...}``.

Each corpus work is one work with one edition holding every ISBN of the work (ISBN-10
forms are added for ``978`` ISBN-13s, as Open Library lists both). Keys are stable
hashes of the corpus id (an ``id`` rendering option of the form ``OL…W`` is used as the
work key). Rendering extras: ``duplicate: true`` adds the near-duplicate work Open
Library often holds (title in another case, ``edition_count`` 0, no editions) to search
results; ``number_of_pages`` (int).

Identification (``shared/docs/apis.md`` §5): a User-Agent carrying a contact e-mail or
``mailto:`` is in the ``identified`` pool (3 req/s), anything else ``anonymous``
(1 req/s). A User-Agent naming an app (``name/version``) with no contact at all (no
e-mail, no URL) gets nginx's HTML 403, as recorded; a browser User-Agent or none at all
is anonymous. Throttling is nginx's HTML 429 page (no ``Retry-After``: nginx sends none).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson
from aiohttp import web

from verifier.identifiers import isbn10_to_13, isbn13_to_10, isbn_is_valid

from .corpus import Clause, Corpus, Hit, Person, RenderedWork, SourceView, tokens
from .service import Limit, ServiceSpec, framing

NAME = "openlibrary"
SITE = "https://openlibrary.org"
DEFAULT_LIMIT = 100
DOCUMENTATION_URL = "https://openlibrary.org/dev/docs/api/search"

_NGINX_PAGE = (
    "<html><head><title>{status}</title></head><body><center><h1>{status}</h1></center>"
    "<hr><center>nginx/1.30.1</center></body></html>\n"
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://", re.I)
_PRODUCT = re.compile(r"^[\w.-]+/\S+")
# User-Agent substrings Open Library blocks outright with 429 (openlibrary#13146).
BLOCKED_AGENTS: tuple[str, ...] = ("obsidian",)
_QUERY_TERM = re.compile(r'(?:(?P<field>[a-z_]+):)?(?:"(?P<phrase>[^"]*)"?|(?P<word>\S+))')
_ISBNISH = re.compile(r"^(?:\d{9}[\dXx]|\d{13})$")
_OLID = re.compile(r"^OL\d+[MWA]$", re.I)
_SLUG_UNSAFE = re.compile(r"[^\w]+")
_CREATED = {"type": "/type/datetime", "value": "2009-02-12T16:29:58.929717"}
_MODIFIED = {"type": "/type/datetime", "value": "2026-05-01T10:00:00.000000"}
_ALL_FIELDS = frozenset({"title", "author", "publisher", "year"})
# q= field prefixes and what they search (None: an identifier filter, not words).
_Q_FIELDS: Mapping[str, frozenset[str] | None] = {
    "title": frozenset({"title"}),
    "subtitle": frozenset({"title"}),
    "title_suggest": frozenset({"title"}),
    "author": frozenset({"author"}),
    "author_name": frozenset({"author"}),
    "publisher": frozenset({"publisher"}),
    "first_publish_year": frozenset({"year"}),
    "publish_year": frozenset({"year"}),
    "isbn": None,
}
DEFAULT_FIELDS = (
    "key", "type", "title", "subtitle", "title_suggest", "title_sort", "edition_count",
    "edition_key", "publish_date", "publish_year", "first_publish_year",
    "number_of_pages_median", "isbn", "publisher", "language", "author_key", "author_name",
    "cover_edition_key", "has_fulltext", "ebook_access", "ebook_count_i", "public_scan_b",
    "last_modified_i",
)


# ----------------------------------------------------------------------------- identity


def identify_pool(user_agent: str) -> str:
    """``identified`` for a User-Agent carrying a contact e-mail (or ``mailto:``), else
    ``anonymous``."""
    return "identified" if _EMAIL.search(user_agent) or "mailto:" in user_agent.lower() \
        else "anonymous"


def refused_agent(user_agent: str) -> bool:
    """True for a User-Agent that names an app but gives no way to reach anyone (no
    e-mail, no URL): Open Library answers those with a 403 (apis.md §5)."""
    agent = user_agent.strip()
    if not agent or agent.startswith("Mozilla/"):
        return False
    if _EMAIL.search(agent) or "mailto:" in agent.lower() or _URL.search(agent):
        return False
    return bool(_PRODUCT.match(agent))


def pool_of(request: web.Request) -> str:
    return identify_pool(request.headers.get("User-Agent", ""))


def request_class(request: web.Request) -> str:
    # One limit covers every endpoint: a per-client request rate.
    return "all"


def _nginx(status: int, reason: str) -> web.Response:
    body = _NGINX_PAGE.format(status=f"{status} {reason}").encode()
    return web.Response(status=status, body=body, headers={"Content-Type": "text/html"})


def throttled(retry_after: float | None) -> web.Response:
    """nginx's HTML 429 page; nginx sends no ``Retry-After``, so ``retry_after`` is
    not shown."""
    return _nginx(429, "Too Many Requests")


# ----------------------------------------------------------------------------- ids


def _number(*parts: str) -> int:
    digest = hashlib.sha256("\0".join(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") % 90_000_000 + 10_000_000


def isbn13(value: str) -> str:
    """An ISBN as ISBN-13 digits for comparison (an ISBN-10 gains ``978`` and a new check
    digit even when its own check digit is wrong; other strings come back stripped)."""
    digits = re.sub(r"[\s-]", "", value).upper()
    if len(digits) == 10 and digits[:9].isdigit():
        core = "978" + digits[:9]
        total = sum((3 if i % 2 else 1) * int(c) for i, c in enumerate(core))
        return core + str(-total % 10)
    return digits


def isbn_forms(isbns: Iterable[str]) -> tuple[list[str], list[str]]:
    """(ISBN-13s, ISBN-10s) of a work: each listed ISBN plus its other form where it has
    one (Open Library editions list both)."""
    thirteen: list[str] = []
    ten: list[str] = []
    for raw in isbns:
        value = raw.upper()
        if len(value) == 13:
            if value not in thirteen:
                thirteen.append(value)
            short = isbn13_to_10(value) if isbn_is_valid(value) else None
            if short and short not in ten:
                ten.append(short)
        else:
            if value not in ten:
                ten.append(value)
            long = isbn10_to_13(value) if isbn_is_valid(value) else None
            if long and long not in thirteen:
                thirteen.append(long)
    return thirteen, ten


def _slug(text: str) -> str:
    return _SLUG_UNSAFE.sub("_", text).strip("_")


class Book:
    """One corpus work as Open Library holds it: a work, its edition, its authors."""

    __slots__ = ("author_keys", "edition", "isbn10", "isbn13", "record", "work_key")

    def __init__(self, record: RenderedWork) -> None:
        self.record = record
        work = record.work
        given = work.sources[NAME].source_id if NAME in work.sources else None
        if given and _OLID.match(given) and given.upper().endswith("W"):
            self.work_key = given.upper()
        else:
            self.work_key = f"OL{_number('work', work.id)}W"
        self.edition = f"OL{_number('edition', work.id)}M"
        self.author_keys = [f"OL{_number('author', p.display)}A" for p in record.authors]
        self.isbn13, self.isbn10 = isbn_forms(work.isbn)

    @property
    def isbns(self) -> list[str]:
        return self.isbn13 + self.isbn10

    @property
    def pages(self) -> int | None:
        options = self.record.work.sources.get(NAME)
        value = options.extra.get("number_of_pages") if options else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def duplicated(self) -> bool:
        options = self.record.work.sources.get(NAME)
        return bool(options and options.extra.get("duplicate"))

    def edition_url(self) -> str:
        return f"{SITE}/books/{self.edition}/{_slug(self.record.title)}"


def _names(record: RenderedWork) -> list[str]:
    return [p.display for p in record.authors]


def _by_statement(people: tuple[Person, ...]) -> str | None:
    names = [p.display for p in people]
    return ", ".join(names) + "." if names else None


# ----------------------------------------------------------------------------- rendering


def search_doc(book: Book) -> dict[str, Any]:
    """A search doc (a *work*) with every field this stand-in knows."""
    record = book.record
    work = record.work
    doc: dict[str, Any] = {"key": f"/works/{book.work_key}", "type": "work",
                           "title": record.title}
    if record.subtitle:
        doc["subtitle"] = record.subtitle
    doc.update(title_suggest=record.title, title_sort=record.title, edition_count=1,
               edition_key=[book.edition])
    if record.year is not None:
        doc.update(publish_date=[str(record.year)], publish_year=[record.year],
                   first_publish_year=record.year)
    if book.pages is not None:
        doc["number_of_pages_median"] = book.pages
    if book.isbns:
        doc["isbn"] = book.isbns
    if work.publisher:
        doc["publisher"] = [work.publisher]
    language = work.sources[NAME].extra.get("language") if NAME in work.sources else None
    doc["language"] = [language if isinstance(language, str) else "eng"]
    if record.authors:
        doc["author_key"] = book.author_keys
        doc["author_name"] = _names(record)
    doc.update(cover_edition_key=book.edition, has_fulltext=False, ebook_access="no_ebook",
               ebook_count_i=0, public_scan_b=False, last_modified_i=1777600000)
    return doc


def duplicate_doc(book: Book) -> dict[str, Any]:
    """The near-duplicate work Open Library often holds for one book: another key, the
    title in another case, no editions (``edition_count`` 0), as recorded."""
    record = book.record
    title = record.title.title() if record.title != record.title.title() else record.title.lower()
    doc: dict[str, Any] = {"key": f"/works/OL{_number('duplicate', record.work.id)}W",
                           "type": "work", "title": title, "title_suggest": title,
                           "edition_count": 0}
    if record.authors:
        doc["author_key"] = book.author_keys
        doc["author_name"] = _names(record)
    doc.update(has_fulltext=False, ebook_access="no_ebook", ebook_count_i=0,
               last_modified_i=1561998020)
    return doc


def edition_json(book: Book) -> dict[str, Any]:
    """The edition record (``/books/OL…M.json``): authors are keys only, as recorded."""
    record = book.record
    work = record.work
    out: dict[str, Any] = {"identifiers": {}, "title": record.title}
    if record.subtitle:
        out["subtitle"] = record.subtitle
        out["full_title"] = record.full_title
    by = _by_statement(record.authors)
    if by:
        out["by_statement"] = by
    out.update(type={"key": "/type/edition"}, revision=3, latest_revision=3)
    if work.publisher:
        out["publishers"] = [work.publisher]
    out.update(last_modified=_MODIFIED, key=f"/books/{book.edition}")
    if record.authors:
        out["authors"] = [{"key": f"/authors/{k}"} for k in book.author_keys]
    out["created"] = _CREATED
    if book.pages is not None:
        out["number_of_pages"] = book.pages
    if book.isbn10:
        out["isbn_10"] = book.isbn10
    if book.isbn13:
        out["isbn_13"] = book.isbn13
    if record.year is not None:
        out["publish_date"] = str(record.year)
    out["works"] = [{"key": f"/works/{book.work_key}"}]
    return out


def work_json(book: Book) -> dict[str, Any]:
    """The work record (``/works/OL…W.json``)."""
    record = book.record
    out: dict[str, Any] = {"title": record.title}
    if record.subtitle:
        out["subtitle"] = record.subtitle
    out["key"] = f"/works/{book.work_key}"
    out["authors"] = [{"author": {"key": f"/authors/{k}"}, "type": {"key": "/type/author_role"}}
                      for k in book.author_keys]
    out["type"] = {"key": "/type/work"}
    if record.year is not None:
        out["first_publish_date"] = str(record.year)
    out.update(latest_revision=3, revision=3, created=_CREATED, last_modified=_MODIFIED)
    return out


def books_api_data(book: Book) -> dict[str, Any]:
    """One ``jscmd=data`` entry: authors with names, publishers as ``{name}``."""
    record = book.record
    work = record.work
    out: dict[str, Any] = {"url": book.edition_url(), "key": f"/books/{book.edition}",
                           "title": record.title}
    if record.subtitle:
        out["subtitle"] = record.subtitle
    if record.authors:
        out["authors"] = [
            {"url": f"{SITE}/authors/{key}/{_slug(person.display)}", "name": person.display}
            for key, person in zip(book.author_keys, record.authors, strict=True)
        ]
    if book.pages is not None:
        out["number_of_pages"] = book.pages
    by = _by_statement(record.authors)
    if by:
        out["by_statement"] = by
    identifiers: dict[str, list[str]] = {}
    if book.isbn10:
        identifiers["isbn_10"] = book.isbn10
    if book.isbn13:
        identifiers["isbn_13"] = book.isbn13
    identifiers["openlibrary"] = [book.edition]
    out["identifiers"] = identifiers
    if work.publisher:
        out["publishers"] = [{"name": work.publisher}]
    if record.year is not None:
        out["publish_date"] = str(record.year)
    return out


def books_api_view(bibkey: str, book: Book) -> dict[str, Any]:
    """One ``jscmd=viewapi`` entry (the Books API default)."""
    url = book.edition_url()
    return {"bib_key": bibkey, "info_url": url, "preview": "noview", "preview_url": url}


# ----------------------------------------------------------------------------- search


class _Search:
    """A ``/search.json`` request: one all-words clause per searched field, ISBN
    filters."""

    def __init__(self, params: Mapping[str, str]) -> None:
        self.clauses: list[Clause] = []
        self.isbns: list[str] = []
        for name, fields in (("title", frozenset({"title"})), ("author", frozenset({"author"})),
                             ("publisher", frozenset({"publisher"}))):
            self._words(fields, params.get(name, ""))
        if params.get("isbn", "").strip():
            self.isbns.append(isbn13(params["isbn"]))
        self._query(params.get("q", ""))

    def _words(self, fields: frozenset[str], text: str) -> None:
        if tokens(text):
            # Every word must match, as on Open Library (Solr's default AND).
            self.clauses.append(Clause(fields, text, match="all"))

    def _query(self, q: str) -> None:
        free: list[str] = []
        for match in _QUERY_TERM.finditer(q):
            field = match.group("field")
            value = match.group("phrase") if match.group("phrase") is not None \
                else match.group("word")
            if field is not None and field in _Q_FIELDS:
                fields = _Q_FIELDS[field]
                if fields is None:
                    self.isbns.append(isbn13(value))
                else:
                    self._words(fields, value)
            elif field is None and _ISBNISH.match(value.replace("-", "")):
                self.isbns.append(isbn13(value))  # a bare ISBN searches the isbn field
            else:
                free.append(f"{field} {value}" if field else value)
        self._words(_ALL_FIELDS, " ".join(free))

    @property
    def empty(self) -> bool:
        return not self.clauses and not self.isbns


class OpenLibraryService:
    """Request handlers over the Open Library view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.view: SourceView = corpus.source(NAME)
        self.books = [Book(r) for r in self.view.records]
        self._by_work = {id(b.record): b for b in self.books}
        self._by_isbn: dict[str, Book] = {}
        for book in self.books:
            for isbn in book.isbns:
                self._by_isbn.setdefault(isbn13(isbn), book)
        self._by_key: dict[str, Book] = {}
        for book in self.books:
            self._by_key.setdefault(book.edition.upper(), book)
            self._by_key.setdefault(book.work_key.upper(), book)
        self._authors: dict[str, Person] = {}
        for book in self.books:
            for key, person in zip(book.author_keys, book.record.authors, strict=True):
                self._authors.setdefault(key, person)

    def book_of(self, record: RenderedWork) -> Book:
        return self._by_work[id(record)]

    # ------------------------------------------------------------------ /search.json

    async def search(self, request: web.Request) -> web.Response:
        params = request.query
        query = _Search(params)
        limit = _int(params.get("limit"), DEFAULT_LIMIT)
        page = max(_int(params.get("page"), 1), 1)
        offset_param = params.get("offset")
        start = max(_int(offset_param, 0), 0) if offset_param is not None \
            else (page - 1) * limit
        hits = [] if query.empty else await self.view.asearch(query.clauses,
                                                              self._where(query))
        hits = _sorted(hits, params.get("sort"))
        docs: list[dict[str, Any]] = []
        for hit in hits:
            book = self.book_of(hit.record)
            docs.append(search_doc(book))
            if book.duplicated:
                docs.append(duplicate_doc(book))
        fields = _fields(params.get("fields"))
        page_docs = [self._shown(doc, fields) for doc in docs[start:start + max(limit, 0)]]
        return _json(200, {
            "numFound": len(docs),
            "start": start,
            "numFoundExact": True,
            "num_found": len(docs),
            "documentation_url": DOCUMENTATION_URL,
            "q": params.get("q", ""),
            "offset": int(offset_param) if offset_param and offset_param.isdigit() else None,
            "docs": page_docs,
        })

    def _where(self, query: _Search) -> Callable[[RenderedWork], bool] | None:
        if not query.isbns:
            return None

        def where(record: RenderedWork) -> bool:
            held = {isbn13(i) for i in self.book_of(record).isbns}
            return all(isbn in held for isbn in query.isbns)
        return where

    def _shown(self, doc: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
        if fields is None:
            return doc
        out = {k: doc[k] for k in fields if k in doc}
        if "editions" in fields and doc.get("edition_count"):
            book = self._by_key[doc["key"].rsplit("/", 1)[1].upper()]
            edition: dict[str, Any] = {"key": f"/books/{book.edition}",
                                       "title": book.record.title}
            if book.isbns:
                edition["isbn"] = book.isbns
            out["editions"] = {"numFound": 1, "start": 0, "numFoundExact": True,
                               "docs": [edition]}
        return out

    # ------------------------------------------------------------------ /api/books

    async def books_api(self, request: web.Request) -> web.Response:
        params = request.query
        jscmd = params.get("jscmd", "viewapi")
        result: dict[str, Any] = {}
        for bibkey in (k.strip() for k in params.get("bibkeys", "").split(",")):
            book = self._bibkey(bibkey)
            if book is None:
                continue  # unknown keys are simply absent
            if jscmd == "data":
                result[bibkey] = books_api_data(book)
            elif jscmd == "details":
                result[bibkey] = {**books_api_view(bibkey, book), "details": edition_json(book)}
            else:
                result[bibkey] = books_api_view(bibkey, book)
        if params.get("format") == "json":
            return _json(200, result)
        callback = params.get("callback")
        body = orjson.dumps(result).decode()
        text = f"{callback}({body});" if callback else f"var _OLBookInfo = {body};"
        return web.Response(status=200, body=text.encode(),
                            headers={"Content-Type": "application/javascript"})

    def _bibkey(self, bibkey: str) -> Book | None:
        kind, sep, value = bibkey.partition(":")
        if not sep:
            kind, value = "ISBN", bibkey
        kind = kind.strip().upper()
        if kind == "ISBN":
            return self._by_isbn.get(isbn13(value))
        if kind == "OLID":
            book = self._by_key.get(value.strip().upper())
            return book if book is not None and book.edition == value.strip().upper() else None
        return None  # LCCN, OCLC: the corpus has none

    # ------------------------------------------------------------------ records

    async def isbn(self, request: web.Request) -> web.StreamResponse:
        raw = request.match_info["isbn"]
        book = self._by_isbn.get(isbn13(raw))
        if book is None:
            return _not_found(f"/isbn/{raw}")
        # url_for carries the mount prefix, so the redirect stays inside the world.
        location = request.app.router["edition"].url_for(olid=book.edition)
        return web.Response(status=302, headers={"Location": str(location)})

    async def edition(self, request: web.Request) -> web.Response:
        olid = request.match_info["olid"]
        book = self._by_key.get(olid.upper())
        if book is None or book.edition != olid.upper():
            return _not_found(f"/books/{olid}")
        return _json(200, edition_json(book))

    async def work(self, request: web.Request) -> web.Response:
        olid = request.match_info["olid"]
        book = self._by_key.get(olid.upper())
        if book is None or book.work_key != olid.upper():
            return _not_found(f"/works/{olid}")
        return _json(200, work_json(book))

    async def author(self, request: web.Request) -> web.Response:
        olid = request.match_info["olid"]
        person = self._authors.get(olid.upper())
        if person is None:
            return _not_found(f"/authors/{olid}")
        out: dict[str, Any] = {"name": person.display, "personal_name": person.display,
                               "key": f"/authors/{olid.upper()}",
                               "type": {"key": "/type/author"}}
        out.update(latest_revision=2, revision=2, created=_CREATED, last_modified=_MODIFIED)
        return _json(200, out)


def _sorted(hits: list[Hit], sort: str | None) -> list[Hit]:
    if sort == "new":
        return sorted(hits, key=lambda h: -(h.record.year or 0))
    if sort == "old":
        return sorted(hits, key=lambda h: h.record.year or 10**6)
    if sort == "title":
        return sorted(hits, key=lambda h: h.record.title.casefold())
    return hits  # relevance (and "editions": every work has one edition here)


def _fields(raw: str | None) -> list[str] | None:
    """The requested fields, or None for the default set; ``*`` asks for all."""
    if raw is None or not raw.strip():
        return None
    names = [f.strip() for f in raw.split(",") if f.strip()]
    if "*" in names:
        return [*DEFAULT_FIELDS, *(n for n in names if n == "editions")]
    return names


def _int(raw: str | None, default: int) -> int:
    try:
        return int(raw) if raw is not None else default
    except ValueError:
        return default


def _json(status: int, body: Any) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body),
                        headers={"Content-Type": "application/json"})


def _not_found(key: str) -> web.Response:
    """Open Library's "not found" for a record path: a JSON 404 naming the key."""
    return _json(404, {"error": "notfound", "key": key})


def _refuse(request: web.Request) -> web.Response | None:
    """The User-Agent rules: 403 for an app without contact, 429 for blocked agents."""
    agent = request.headers.get("User-Agent", "")
    if refused_agent(agent):
        return _nginx(403, "Forbidden")
    if any(blocked in agent.lower() for blocked in BLOCKED_AGENTS):
        return _nginx(429, "Too Many Requests")
    return None


# nginx's 404 for unknown paths, and the service's common headers.
_openlibrary_frame = framing(
    lambda request, exc: _nginx(404, "Not Found"), refuse=_refuse,
    headers={"Server": "nginx/1.30.1", "Access-Control-Allow-Origin": "*"})


def create_app(corpus: Corpus) -> web.Application:
    """The Open Library stand-in as an aiohttp application (mounted under a prefix)."""
    service = OpenLibraryService(corpus)
    app = web.Application(middlewares=[_openlibrary_frame])
    # Route names are the endpoints the world's request log reports.
    app.router.add_get("/search.json", service.search, name="search")
    app.router.add_get("/api/books", service.books_api, name="books_api")
    app.router.add_get("/isbn/{isbn}.json", service.isbn, name="isbn")
    app.router.add_get("/books/{olid}.json", service.edition, name="edition")
    app.router.add_get("/works/{olid}.json", service.work, name="work")
    app.router.add_get("/authors/{olid}.json", service.author, name="author")
    return app


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=pool_of,
    request_class=request_class,
    limits={
        # apis.md §5: about 1 req/s unidentified, 3 req/s with a contact; no published
        # concurrency limit.
        "anonymous": {"all": Limit(1.0)},
        "identified": {"all": Limit(3.0)},
    },
    throttled=throttled,
)
