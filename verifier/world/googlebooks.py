"""Google Books API v1 stand-in (``https://www.googleapis.com/books/v1``).

Routes (mounted under ``/googlebooks``):

- ``GET /volumes?q=…`` — ``intitle:``, ``inauthor:``, ``inpublisher:``, ``subject:``,
  ``isbn:`` (``lccn:``/``oclc:`` match nothing: the corpus has none), quoted phrases,
  plain words and ``-word`` exclusions; ``maxResults`` (default 10, 0–40, else 400),
  ``startIndex``, ``printType`` (``all``/``books``/``magazines``), ``orderBy``
  (``relevance``/``newest``), ``fields`` (Google's partial-response syntax,
  ``items(id,volumeInfo(title,authors)),totalItems``), ``key``. ``projection`` and
  ``langRestrict`` are accepted and ignored (the probe saw ``langRestrict`` ignored).
  The envelope is ``{"kind": "books#volumes", "totalItems": N, "items": [...]}`` with
  ``items`` **omitted** when nothing matched.
- ``GET /volumes/{id}`` — one volume; unknown → 404 Google JSON error.

Matching: qualified terms (``intitle:`` ...) and quoted phrases are required
(``intitle:"phrase"`` must appear as consecutive words of the title or of the subtitle,
which Google keeps apart; ``inauthor:`` within one author's name); plain words only
rank, except that a query of plain words alone needs one of them to match (Google's
search never says "no" to real words). Ranking is the corpus search's bm25; the phrase
conditions compare the corpus's folded words unstemmed.

``isbn:`` is fuzzy, as on the real service: the exact volume when the corpus has the
ISBN; otherwise the volume whose ISBN-13 is nearest (at most two digits differ — a
mistyped ISBN finds the right book), else, for about half of all unknown ISBNs
(deterministically, by a hash of the ISBN), up to three unrelated volumes. Clients must
check ``industryIdentifiers``.

Keys (apis.md §6): without ``key`` every request is the 429 ``RESOURCE_EXHAUSTED`` of the
exhausted shared anonymous quota (pool ``keyless``). Any key is accepted (pool
``keyed``) with a daily budget of 1,000 queries per key, reset at midnight Pacific (UTC-8
here, no daylight saving), after which each request is the "Queries per day" 429.
Google publishes no per-second limit; the world enforces 10/s per pool.

Rendering extras (the ``googlebooks`` object of a work's ``sources``): ``description``,
``categories`` (list), ``language`` (default ``en``), ``page_count``, ``print_type``
(default ``BOOK``); the ``id`` option is the volume id (else a stable 12-character id).
"""

from __future__ import annotations

import base64
import hashlib
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

import orjson
from aiohttp import web

from verifier.identifiers import isbn10_to_13, isbn13_to_10, isbn_is_valid

from .corpus import Clause, Corpus, RenderedWork, SourceView, tokens
from .limits import BUDGETS_ENFORCED
from .service import Limit, ServiceSpec, framing

NAME = "googlebooks"
API = "https://www.googleapis.com/books/v1"
DAILY_QUOTA = 1000
DEFAULT_MAX_RESULTS = 10
MAX_MAX_RESULTS = 40
ANONYMOUS_PROJECT = "624717413613"
"""The shared project keyless calls are charged to (its daily quota is 0)."""
_DAY_OFFSET_S = 8 * 3600  # Google's daily quotas reset at midnight Pacific time
_TERM = re.compile(
    r'(?P<neg>-)?(?:(?P<field>[A-Za-z]+):)?(?:"(?P<phrase>[^"]*)"?|(?P<word>[^\s"]+))'
)
_QUALIFIERS = frozenset({"intitle", "inauthor", "inpublisher", "subject", "isbn", "lccn", "oclc"})
_ALL_FIELDS = frozenset({"title", "author", "publisher"})
_FIELD_PATH = re.compile(r"\s*([\w@]+(?:/[\w@]+)*)\s*")
_PRINT_TYPES = {"all": None, "books": "BOOK", "magazines": "MAGAZINE"}
_HEADERS: Mapping[str, str] = {
    "Vary": "Origin, X-Origin, Referer",
    "Server": "ESF",
    "X-XSS-Protection": "0",
    "X-Frame-Options": "SAMEORIGIN",
    "X-Content-Type-Options": "nosniff",
}
_NOT_FOUND_HTML = (
    "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 404 (Not Found)!!1"
    "</title>\n  <p><b>404.</b> <ins>That\u2019s an error.</ins>\n  <p>The requested URL was not "
    "found on this server.  <ins>That\u2019s all we know.</ins>\n"
)


# ----------------------------------------------------------------------------- errors


def error_response(status: int, message: str, reason: str, grpc_status: str, *,
                   location: str | None = None,
                   details: list[dict[str, Any]] | None = None) -> web.Response:
    """A Google API error body: ``{"error": {code, message, errors[], status[, details]}}``."""
    item: dict[str, Any] = {"message": message, "domain": "global", "reason": reason}
    if location is not None:
        item.update(location=location, locationType="parameter")
    error: dict[str, Any] = {"code": status, "message": message, "errors": [item],
                             "status": grpc_status}
    if details:
        error["details"] = details
    return _json(status, {"error": error})


def quota_exceeded(consumer: str, limit_name: str, limit_value: int) -> web.Response:
    """The 429 of a spent quota, as quoted in the issues apis.md cites."""
    message = (f"Quota exceeded for quota metric 'Queries' and limit '{limit_name}' of service "
               f"'books.googleapis.com' for consumer 'project_number:{consumer}'.")
    details = [{
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "RATE_LIMIT_EXCEEDED",
        "domain": "googleapis.com",
        "metadata": {
            "quota_limit_value": str(limit_value),
            "quota_metric": "books.googleapis.com/default",
            "service": "books.googleapis.com",
            "consumer": f"projects/{consumer}",
            "quota_limit": "defaultPerDayPerProject" if "day" in limit_name
            else "defaultPerMinutePerUser",
            "quota_location": "global",
        },
    }]
    return error_response(429, message, "rateLimitExceeded", "RESOURCE_EXHAUSTED",
                          details=details)


def throttled(retry_after: float | None) -> web.Response:
    """Google's per-user rate 429 (JSON, no ``Retry-After``: Google sends none)."""
    return quota_exceeded(ANONYMOUS_PROJECT, "Queries per minute per user", 0)


# ----------------------------------------------------------------------------- identity


def pool_of(request: web.Request) -> str:
    """``keyed`` with a non-empty ``key`` parameter, else ``keyless``."""
    return "keyed" if request.query.get("key", "").strip() else "keyless"


def request_class(request: web.Request) -> str:
    return "all"


def project_number(key: str) -> str:
    """A stable 12-digit project number for an API key (what quota errors name)."""
    return str(int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) % 10**12).rjust(12, "1")


@dataclass
class DailyQuota:
    """Queries per key per Pacific day (the keyed pool's published default of 1,000)."""

    limit: int = DAILY_QUOTA
    clock: Callable[[], float] = time.time
    used: dict[str, tuple[int, int]] = field(default_factory=dict)

    def spend(self, key: str) -> bool:
        """Count one query against ``key``; False when the day's quota was already spent."""
        day = int((self.clock() - _DAY_OFFSET_S) // 86400)
        seen_day, count = self.used.get(key, (day, 0))
        if seen_day != day:
            count = 0
        if count >= self.limit:
            return False
        self.used[key] = (day, count + 1)
        return True


# ----------------------------------------------------------------------------- ids


def isbn13(value: str) -> str:
    """ISBN-13 digits for comparison (an ISBN-10 gains ``978`` and a new check digit even
    when its own check digit is wrong); other strings come back stripped."""
    digits = re.sub(r"[\s-]", "", value).upper()
    if len(digits) == 10 and digits[:9].isdigit():
        core = "978" + digits[:9]
        total = sum((3 if i % 2 else 1) * int(c) for i, c in enumerate(core))
        return core + str(-total % 10)
    return digits


def _hash(*parts: str) -> bytes:
    return hashlib.sha256("\0".join(parts).encode()).digest()


def _b64(data: bytes, length: int) -> str:
    return base64.b64encode(data).decode()[:length]


class Volume:
    """One corpus work as a Google Books volume."""

    __slots__ = ("etag", "id", "identifiers", "isbns13", "record")

    def __init__(self, record: RenderedWork) -> None:
        self.record = record
        work = record.work
        options = work.sources.get(NAME)
        digest = _hash(NAME, work.id)
        self.id = (options.source_id if options and options.source_id
                   else base64.urlsafe_b64encode(digest[:9]).decode())
        self.etag = _b64(_hash("etag", work.id), 11)
        self.identifiers: list[dict[str, str]] = []
        for isbn in work.isbn:
            value = isbn.upper()
            valid = isbn_is_valid(value)
            if len(value) == 13:
                other = isbn13_to_10(value) if valid else None
                pair = [("ISBN_13", value)] + ([("ISBN_10", other)] if other else [])
            else:
                other = isbn10_to_13(value) if valid else None
                pair = ([("ISBN_13", other)] if other else []) + [("ISBN_10", value)]
            if digest[0] % 2:
                pair.reverse()  # both orders occur in the recorded volumes
            self.identifiers += [{"type": t, "identifier": i} for t, i in pair
                                 if {"type": t, "identifier": i} not in self.identifiers]
        if not self.identifiers:
            # A digitised copy without ISBN carries a library scan id, as recorded.
            scan = int.from_bytes(digest[9:15], "big") % 10**9
            self.identifiers = [{"type": "OTHER", "identifier": f"UOM:39015{scan:09d}"}]
        self.isbns13 = [isbn13(i["identifier"]) for i in self.identifiers
                        if i["type"].startswith("ISBN")]

    def extra(self, name: str) -> Any:
        options = self.record.work.sources.get(NAME)
        return options.extra.get(name) if options else None

    @property
    def print_type(self) -> str:
        value = self.extra("print_type")
        return value if isinstance(value, str) else "BOOK"

    def published_date(self) -> str | None:
        year = self.record.year
        if year is None:
            return None
        digest = _hash("date", self.record.work.id)
        if digest[0] % 3 == 0:
            return str(year)  # year-only dates are common, as recorded
        return f"{year}-{digest[1] % 12 + 1:02d}-{digest[2] % 28 + 1:02d}"


# ----------------------------------------------------------------------------- rendering


def volume_json(volume: Volume, *, query: str | None = None, rank: int = 0) -> dict[str, Any]:
    """A volume as ``/volumes`` lists it (``query`` given) or ``/volumes/{id}`` shows it."""
    record = volume.record
    work = record.work
    vid = volume.id
    info: dict[str, Any] = {"title": record.title}
    if record.subtitle:
        info["subtitle"] = record.subtitle
    if record.authors:
        info["authors"] = [p.display for p in record.authors]
    if work.publisher:
        info["publisher"] = work.publisher
    published = volume.published_date()
    if published:
        info["publishedDate"] = published
    description = volume.extra("description")
    if isinstance(description, str):
        info["description"] = description
    info["industryIdentifiers"] = volume.identifiers
    info["readingModes"] = {"text": False, "image": False}
    pages = volume.extra("page_count")
    if isinstance(pages, int) and not isinstance(pages, bool):
        info["pageCount"] = pages
    info["printType"] = volume.print_type
    categories = volume.extra("categories")
    if isinstance(categories, list):
        info["categories"] = categories
    language = volume.extra("language")
    info.update({
        "maturityRating": "NOT_MATURE",
        "allowAnonLogging": False,
        "contentVersion": "0.1.0.0.preview.0",
        "panelizationSummary": {"containsEpubBubbles": False, "containsImageBubbles": False},
        "imageLinks": {
            "smallThumbnail": f"http://books.google.com/books/content?id={vid}&printsec="
                              "frontcover&img=1&zoom=5&source=gbs_api",
            "thumbnail": f"http://books.google.com/books/content?id={vid}&printsec=frontcover"
                         "&img=1&zoom=1&source=gbs_api",
        },
        "language": language if isinstance(language, str) else "en",
    })
    if query is None:
        info["previewLink"] = f"http://books.google.com/books?id={vid}&hl=&source=gbs_api"
        info["infoLink"] = f"http://books.google.com/books?id={vid}&hl=&source=gbs_api"
    else:
        dq = quote_plus(query)
        info["previewLink"] = (f"http://books.google.com/books?id={vid}&printsec=frontcover"
                               f"&dq={dq}&hl=&cd={rank}&source=gbs_api")
        info["infoLink"] = f"http://books.google.com/books?id={vid}&dq={dq}&hl=&source=gbs_api"
    slug = re.sub(r"\W+", "_", record.title).strip("_")
    info["canonicalVolumeLink"] = f"https://books.google.com/books/about/{slug}.html?hl=&id={vid}"
    out: dict[str, Any] = {
        "kind": "books#volume",
        "id": vid,
        "etag": volume.etag,
        "selfLink": f"{API}/volumes/{vid}",
        "volumeInfo": info,
        "saleInfo": {"country": "US", "saleability": "NOT_FOR_SALE", "isEbook": False},
        "accessInfo": {
            "country": "US",
            "viewability": "NO_PAGES",
            "embeddable": False,
            "publicDomain": False,
            "textToSpeechPermission": "ALLOWED",
            "epub": {"isAvailable": False},
            "pdf": {"isAvailable": False},
            "webReaderLink": f"http://play.google.com/books/reader?id={vid}&hl=&source=gbs_api",
            "accessViewStatus": "NONE",
            "quoteSharingAllowed": False,
        },
    }
    if query is not None and isinstance(description, str):
        out["searchInfo"] = {"textSnippet": description[:160]}
    return out


# ----------------------------------------------------------------------------- fields=


class FieldsError(ValueError):
    pass


FieldTree = dict[str, "FieldTree | None"]


def parse_fields(text: str) -> FieldTree:
    """Google's partial-response selector (``a,b/c,d(e,f/g)``) as a tree; None leaves
    select the whole value."""
    tree, end = _field_list(text, 0)
    if end != len(text):
        raise FieldsError(text)
    return tree


def _field_list(text: str, i: int) -> tuple[FieldTree, int]:
    tree: FieldTree = {}
    while True:
        match = _FIELD_PATH.match(text, i)
        if match is None:
            raise FieldsError(text)
        path = match.group(1).split("/")
        i = match.end()
        sub: FieldTree | None = None
        if text.startswith("(", i):
            sub, i = _field_list(text, i + 1)
            if not text.startswith(")", i):
                raise FieldsError(text)
            i += 1
        _merge(tree, path, sub)
        if not text.startswith(",", i):
            return tree, i
        i += 1


def _merge(tree: FieldTree, path: list[str], sub: FieldTree | None) -> None:
    head, rest = path[0], path[1:]
    if not rest:
        existing = tree.get(head)
        if head in tree and (existing is None or sub is None):
            tree[head] = None
        elif isinstance(existing, dict) and sub is not None:
            for key, value in sub.items():
                _merge(existing, [key], value)
        else:
            tree[head] = sub
        return
    child = tree.get(head, {})
    if child is None:
        return  # the whole value is already selected
    tree[head] = child
    _merge(child, rest, sub)


def select(value: Any, tree: FieldTree | None) -> Any:
    """``value`` reduced to the selected fields (in the response's own order)."""
    if tree is None:
        return value
    if isinstance(value, list):
        return [select(v, tree) for v in value]
    if isinstance(value, dict):
        return {k: select(v, tree[k]) for k, v in value.items() if k in tree}
    return value


# ----------------------------------------------------------------------------- search


@dataclass
class _Query:
    """A parsed ``q``."""

    clauses: list[Clause] = field(default_factory=list)
    tests: list[Callable[[Volume], bool]] = field(default_factory=list)
    plain: list[str] = field(default_factory=list)
    isbns: list[str] = field(default_factory=list)
    impossible: bool = False

    @property
    def qualified(self) -> bool:
        return bool(self.clauses or self.tests or self.isbns or self.impossible)


def _phrase_in(words: list[str], texts: Iterable[str]) -> bool:
    n = len(words)
    for text in texts:
        have = tokens(text)
        if any(have[i:i + n] == words for i in range(len(have) - n + 1)):
            return True
    return False


def _phrase_test(words: list[str], texts: Callable[[Volume], list[str]], *,
                 negate: bool = False) -> Callable[[Volume], bool]:
    """A test that ``words`` appear, in order, in one of the volume's ``texts``."""
    def test(volume: Volume) -> bool:
        return _phrase_in(words, texts(volume)) != negate
    return test


def _titles(volume: Volume) -> list[str]:
    # Google keeps the subtitle apart: a phrase matches within one of them.
    return [volume.record.title, volume.record.subtitle or ""]


def _authors(volume: Volume) -> list[str]:
    return [p.display for p in volume.record.authors]


def _publisher(volume: Volume) -> list[str]:
    return [volume.record.work.publisher or ""]


def _volume_texts(volume: Volume) -> list[str]:
    record = volume.record
    return [record.title, record.subtitle or "", *(p.display for p in record.authors),
            record.work.publisher or ""]


def parse_query(q: str) -> _Query:
    query = _Query()
    for match in _TERM.finditer(q):
        negative = bool(match.group("neg"))
        qualifier = (match.group("field") or "").lower()
        value = match.group("phrase") if match.group("phrase") is not None \
            else match.group("word")
        if qualifier and qualifier not in _QUALIFIERS:
            value, qualifier = f"{match.group('field')} {value}", ""  # not an operator
        words = tokens(value)
        if qualifier == "isbn":
            query.isbns.append(isbn13(value))
        elif qualifier in ("lccn", "oclc"):
            query.impossible = True  # the corpus has no LCCN or OCLC numbers
        elif not words:
            continue
        elif negative:
            query.tests.append(_phrase_test(words, _volume_texts, negate=True))
        elif qualifier == "intitle":
            query.clauses.append(Clause(frozenset({"title"}), value, match="phrase"))
            query.tests.append(_phrase_test(words, _titles))
        elif qualifier == "inauthor":
            query.clauses.append(Clause(frozenset({"author"}), value, match="phrase"))
            query.tests.append(_phrase_test(words, _authors))
        elif qualifier == "inpublisher":
            query.clauses.append(Clause(frozenset({"publisher"}), value, match="phrase"))
            query.tests.append(_phrase_test(words, _publisher))
        elif qualifier == "subject":
            query.tests.append(_phrase_test(words, _categories))
        elif match.group("phrase") is not None:
            query.tests.append(_phrase_test(words, _volume_texts))
            query.plain.append(value)
        else:
            query.plain.append(value)
    return query


def _categories(volume: Volume) -> list[str]:
    value = volume.extra("categories")
    return [c for c in value if isinstance(c, str)] if isinstance(value, list) else []


class GoogleBooksService:
    """Request handlers over the Google Books view of the corpus."""

    def __init__(self, corpus: Corpus, daily_quota: int = DAILY_QUOTA) -> None:
        self.view: SourceView = corpus.source(NAME)
        self.volumes = [Volume(r) for r in self.view.records]
        self._by_record = {id(v.record): v for v in self.volumes}
        self._by_id = {v.id: v for v in self.volumes}
        self._by_isbn: dict[str, Volume] = {}
        for volume in self.volumes:
            for isbn in volume.isbns13:
                self._by_isbn.setdefault(isbn, volume)
        self.quota = DailyQuota(daily_quota)

    def gate(self, request: web.Request) -> web.Response | None:
        """The key check every request passes first: keyless → 429, spent key → 429."""
        key = request.query.get("key", "").strip()
        if not key:
            return quota_exceeded(ANONYMOUS_PROJECT, "Queries per day", 0)
        limited = request.config_dict.get(BUDGETS_ENFORCED, True)
        if limited and not self.quota.spend(key):
            return quota_exceeded(project_number(key), "Queries per day", self.quota.limit)
        return None

    async def volumes_list(self, request: web.Request) -> web.Response:
        refused = self.gate(request)
        if refused is not None:
            return refused
        params = request.query
        q = params.get("q", "")
        if not q.strip():
            return error_response(400, "Missing query.", "queryRequired", "INVALID_ARGUMENT",
                                  location="q")
        max_results = _ranged(params, "maxResults", DEFAULT_MAX_RESULTS, MAX_MAX_RESULTS)
        start = _ranged(params, "startIndex", 0, 2**31 - 1)
        if isinstance(max_results, web.Response):
            return max_results
        if isinstance(start, web.Response):
            return start
        print_type = params.get("printType", "all").lower()
        if print_type not in _PRINT_TYPES:
            return _invalid("printType", params["printType"],
                            "Allowed values: [all, books, magazines]")
        order = params.get("orderBy", "relevance").lower()
        if order not in ("relevance", "newest"):
            return _invalid("orderBy", params["orderBy"], "Allowed values: [newest, relevance]")
        tree = _fields_tree(params.get("fields"))
        if isinstance(tree, web.Response):
            return tree

        query = parse_query(q)
        wanted_type = _PRINT_TYPES[print_type]
        matches = await self._search(query, wanted_type)
        if order == "newest":
            matches.sort(key=lambda v: -(v.record.year or 0))
        page = matches[start:start + max_results]
        body: dict[str, Any] = {"kind": "books#volumes", "totalItems": len(matches)}
        if page:  # no matches: "items" is omitted, not empty
            body["items"] = [volume_json(v, query=q, rank=start + i + 1)
                             for i, v in enumerate(page)]
        return _json(200, select(body, tree))

    async def _search(self, query: _Query, print_type: str | None) -> list[Volume]:
        if query.impossible:
            return []
        allowed: set[int] | None = None
        if query.isbns:
            allowed = set.intersection(*({id(v) for v in self._isbn_matches(i)}
                                         for i in query.isbns))

        def where(record: RenderedWork) -> bool:
            volume = self._by_record[id(record)]
            if allowed is not None and id(volume) not in allowed:
                return False
            if print_type is not None and volume.print_type != print_type:
                return False
            return all(test(volume) for test in query.tests)

        hits = await self.view.asearch(query.clauses, where)
        if not query.plain:
            return [self._by_record[id(h.record)] for h in hits]
        # Plain words rank the required matches (or, alone, need one word to match).
        plain = Clause(_ALL_FIELDS, " ".join(query.plain))
        candidates = {id(h.record) for h in hits}
        bonus = {id(h.record): h.score
                 for h in await self.view.asearch([plain], lambda r: id(r) in candidates)}
        if not query.qualified:
            hits = [h for h in hits if id(h.record) in bonus]
        ranked = sorted(enumerate(hits),
                        key=lambda p: (-(p[1].score + bonus.get(id(p[1].record), 0.0)), p[0]))
        return [self._by_record[id(h.record)] for _, h in ranked]

    def _isbn_matches(self, wanted: str) -> list[Volume]:
        """The fuzzy ``isbn:`` search (module docstring)."""
        exact = self._by_isbn.get(wanted)
        if exact is not None:
            return [exact]
        best: tuple[int, int, Volume] | None = None
        for index, volume in enumerate(self.volumes):
            for isbn in volume.isbns13:
                if len(isbn) != len(wanted):
                    continue
                distance = sum(a != b for a, b in zip(isbn, wanted, strict=True))
                if distance <= 2 and (best is None or (distance, index) < best[:2]):
                    best = (distance, index, volume)
        if best is not None:
            return [best[2]]
        seed = _hash("isbn", wanted)
        if seed[0] % 2 or not self.volumes:
            return []
        # An unknown ISBN sometimes brings back unrelated books, as probed.
        shuffled = sorted(self.volumes, key=lambda v: _hash(wanted, v.record.work.id))
        return shuffled[: seed[1] % 3 + 1]

    async def volume(self, request: web.Request) -> web.Response:
        refused = self.gate(request)
        if refused is not None:
            return refused
        tree = _fields_tree(request.query.get("fields"))
        if isinstance(tree, web.Response):
            return tree
        volume = self._by_id.get(request.match_info["volume_id"])
        if volume is None:
            return error_response(404, "The volume ID could not be found.", "notFound",
                                  "NOT_FOUND")
        return _json(200, select(volume_json(volume), tree))


def _invalid(name: str, raw: str, rule: str) -> web.Response:
    return error_response(400, f"Invalid value '{raw}'. {rule}", "invalid",
                          "INVALID_ARGUMENT", location=name)


def _ranged(params: Mapping[str, str], name: str, default: int, maximum: int
            ) -> int | web.Response:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        return _invalid(name, raw, f"Values must be within the range: [0, {maximum}]")
    if not 0 <= value <= maximum:
        return _invalid(name, raw, f"Values must be within the range: [0, {maximum}]")
    return value


def _fields_tree(raw: str | None) -> FieldTree | None | web.Response:
    if raw is None or not raw.strip():
        return None
    try:
        return parse_fields(raw)
    except FieldsError:
        return error_response(400, f"Invalid field selection {raw}", "invalidParameter",
                              "INVALID_ARGUMENT", location="fields")


def _json(status: int, body: Any) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(body),
                        headers={"Content-Type": "application/json; charset=UTF-8"})


def _not_found(request: web.Request, exc: web.HTTPException) -> web.Response:
    """Google's HTML 404 for unknown paths."""
    return web.Response(status=404, body=_NOT_FOUND_HTML.encode(),
                        headers={"Content-Type": "text/html; charset=UTF-8"})


# The front end's common headers on everything.
_google_frame = framing(_not_found, headers=_HEADERS)


def create_app(corpus: Corpus, *, daily_quota: int = DAILY_QUOTA) -> web.Application:
    """The Google Books stand-in as an aiohttp application (mounted under a prefix).
    ``daily_quota`` is the queries each key may make per day."""
    service = GoogleBooksService(corpus, daily_quota)
    app = web.Application(middlewares=[_google_frame])
    # Route names are the endpoints the world's request log reports.
    app.router.add_get("/volumes", service.volumes_list, name="volumes")
    app.router.add_get("/volumes/{volume_id}", service.volume, name="volume")
    return app


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=pool_of,
    request_class=request_class,
    limits={
        # Keyless requests are all answered 429 by the service itself; the figure only
        # bounds how fast they come back. Keyed: Google publishes 1,000 queries a day
        # (enforced by the service) and no per-second figure; Google APIs' usual per-user
        # quota is 100 requests per 100 seconds, so 1/s, as the engine's policy assumes.
        "keyed": {"all": Limit(1.0)},
        "keyless": {"all": Limit(10.0)},
    },
    throttled=throttled,
)
