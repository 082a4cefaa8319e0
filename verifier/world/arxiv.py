"""arXiv API stand-in (``https://export.arxiv.org/api``): ``/query``, an Atom 1.0 feed.

One route, ``GET /query`` (``POST`` with a form too, as on the real service):

- ``search_query`` — ``ti:``, ``au:``, ``abs:``, ``co:``, ``jr:``, ``cat:``, ``id:``,
  ``rn:`` and ``all:`` terms (an unprefixed term is ``all:``), ``"quoted phrases"``,
  ``AND``, ``OR``, ``ANDNOT`` and parentheses. Adjacent terms without an operator are
  AND-ed (what the live API does, 2026); AND/ANDNOT bind tighter than OR. ``au:del_maestro``
  is the phrase "del maestro". Matching is on case- and accent-folded words; the query
  is echoed in canonical form in the feed title (``testing`` → ``all:testing``).
- ``id_list`` — comma-separated ids, versions allowed (``1707.08567v1``,
  ``hep-th/9901001``); unknown ids and versions beyond the latest are dropped silently,
  a malformed id is an HTTP 400 Atom error feed (entry "Error", id
  ``https://arxiv.org/api/errors#incorrect_id_format_for_<id>``). With ``search_query``
  too, the answer is the intersection. Results keep the ``id_list`` order.
- ``start``, ``max_results`` (default 10; more than 2000 is served as 2000),
  ``sortBy`` (``relevance``, ``lastUpdatedDate``, ``submittedDate``), ``sortOrder``
  (``descending`` by default); a bad value is a 400 error feed.

Feeds have the 2026 shape (feed ``id`` ``https://arxiv.org/api/<hash>``, no
``rel="self"`` link, ``opensearch:*``); entries carry ``id`` ``http://arxiv.org/abs/<id>v<N>``,
``title`` (long titles are sometimes wrapped with a newline and two spaces, as the real
feed does), ``summary``, ``published``/``updated``, ``author/name``, ``link``
``alternate`` and ``related``/``pdf``, ``arxiv:comment``, ``arxiv:primary_category``,
``category``, ``arxiv:journal_ref`` and ``arxiv:doi`` (+ its ``doi`` link) when known.
An empty result is a feed with ``totalResults`` 0 and no entry.

The corpus: only works with an ``arxiv`` key in ``sources``. A work's arXiv id is the
``id`` rendering option (``"1706.03762"`` or ``"1706.03762v5"``; the version given is
the latest), else an ``arxiv`` top-level key, else the id in an arXiv DataCite DOI
(``10.48550/arXiv.<id>``), else a stable id derived from the corpus id (new style
``YYMM.NNNNN`` from 2007 on, old style ``archive/YYMMNNN`` before). The DataCite DOI is
arXiv's own, so it is never shown as ``arxiv:doi`` (that is the publisher's DOI).
Rendering extras of the ``arxiv`` object (or top-level keys of the work): ``categories``
(list, primary first), ``abstract``, ``comment``, ``versions`` (int), ``withdrawn``
(the latest version's comment says so).

Everyone shares one pool, ``public``: 1 request per 3 s and one connection at a time
(the Terms of Use). Throttling is a 429 ``text/plain`` "Rate exceeded." (no Atom).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from xml.sax.saxutils import escape

from aiohttp import web

from .corpus import Corpus, RenderedWork, SourceView, tokens
from .service import Limit, ServiceSpec, framing

NAME = "arxiv"
ATOM_NS = "http://www.w3.org/2005/Atom"
OPENSEARCH_NS = "http://a9.com/-/spec/opensearch/1.1/"
ARXIV_NS = "http://arxiv.org/schemas/atom"
CONTENT_TYPE = "application/atom+xml; charset=utf-8"
DEFAULT_MAX_RESULTS = 10
MAX_RESULTS = 2000
RATE_EXCEEDED = "Rate exceeded."
SORT_BY = ("relevance", "lastUpdatedDate", "submittedDate")
SORT_ORDER = ("ascending", "descending")

_NEW_ID = re.compile(r"^(\d{2})(\d{2})\.(\d{4,5})$")
_OLD_ID = re.compile(r"^([a-z]+(?:-[a-z]+)?)(?:\.[a-z]{2})?/(\d{7})$", re.I)
_VERSION = re.compile(r"^(?P<id>.+?)v(?P<version>\d+)$")
_ARXIV_DOI = "10.48550/arxiv."
_TOKEN = re.compile(
    r'\s*(?:(?P<open>\()|(?P<close>\))|(?:(?P<field>[A-Za-z]+):)?'
    r'(?:"(?P<phrase>[^"]*)"?|(?P<word>[^\s()"]+)))'
)
_OPERATORS = frozenset({"AND", "OR", "ANDNOT"})
_FIELDS = frozenset({"ti", "au", "abs", "co", "jr", "cat", "rn", "id", "all"})
_TEXT_FIELDS = ("ti", "au", "abs", "co", "jr")
_CATEGORIES = ("cs.LG", "cs.CL", "cs.CV", "stat.ML", "math.ST", "physics.soc-ph", "q-bio.QM",
               "hep-th", "cond-mat.stat-mech", "econ.GN", "astro-ph.CO", "quant-ph")
_NO_JOURNAL = frozenset({"arxiv", "arxiv preprint", "arxiv e-prints", "corr"})


# ----------------------------------------------------------------------------- ids


def parse_id(raw: str) -> tuple[str, int | None] | None:
    """(canonical id, version or None) of an ``id_list`` item; None when malformed.

    New style ``YYMM.NNNN`` (four digits only before 2015) or ``YYMM.NNNNN``; old style
    ``archive(.XX)/YYMMNNN`` (the subject class is not part of the id)."""
    text = raw.strip()
    version: int | None = None
    match = _VERSION.match(text)
    if match:
        text, version = match.group("id"), int(match.group("version"))
    new = _NEW_ID.match(text)
    if new:
        if len(new.group(3)) == 4 and int(new.group(1) + new.group(2)) >= 1501:
            return None  # from 2015 on, new-style numbers have five digits
        return text, version
    old = _OLD_ID.match(text)
    if old:
        return f"{old.group(1).lower()}/{old.group(2)}", version
    return None


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\0".join(parts).encode()).digest()


def _extra(record: RenderedWork, name: str) -> Any:
    options = record.work.sources.get(NAME)
    if options is not None and name in options.extra:
        return options.extra[name]
    return record.work.extra.get(name)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ----------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Preprint:
    """One corpus work as arXiv holds it."""

    record: RenderedWork
    arxiv_id: str
    versions: int
    categories: tuple[str, ...]
    published: datetime
    title: str
    """As the feed shows it (possibly wrapped)."""
    summary: str
    comment: str | None
    journal_ref: str | None
    doi: str | None
    fields: Mapping[str, tuple[tuple[str, ...], ...]]
    """Searchable word sequences per field prefix."""

    def updated(self, version: int) -> datetime:
        # Later versions follow the first every few weeks.
        return self.published + timedelta(days=37 * (version - 1), hours=5 * (version - 1))

    def comment_of(self, version: int) -> str | None:
        if version == self.versions and _extra(self.record, "withdrawn") is True:
            return "This paper has been withdrawn by the authors"
        return self.comment


def build_preprint(record: RenderedWork) -> Preprint:
    work = record.work
    digest = _digest(NAME, work.id)
    categories = _categories(record, digest)
    arxiv_id, latest = _identity(record, digest, categories[0])
    versions = latest or (_extra(record, "versions") if _is_int(_extra(record, "versions"))
                          else 1 + digest[3] % 3)
    year = record.year if record.year is not None else 2010
    new = _NEW_ID.match(arxiv_id)
    month = int(new.group(2)) if new and 1 <= int(new.group(2)) <= 12 else digest[4] % 12 + 1
    published = datetime(max(year, 1), month, digest[5] % 28 + 1, digest[6] % 24,
                         digest[7] % 60, digest[8] % 60, tzinfo=UTC)
    full_title = record.full_title
    title = full_title
    if len(full_title) > 60 and digest[9] % 2:
        # The real feed sometimes wraps long titles: a newline and two spaces.
        cut = full_title.rfind(" ", 0, 60)
        if cut > 0:
            title = f"{full_title[:cut]}\n  {full_title[cut + 1:]}"
    abstract = _extra(record, "abstract")
    summary = abstract if isinstance(abstract, str) else \
        f"We present {full_title[:1].lower()}{full_title[1:]}."
    comment = _extra(record, "comment")
    if not isinstance(comment, str):
        comment = (f"{digest[10] % 40 + 6} pages, {digest[11] % 9 + 1} figures"
                   if digest[12] % 3 else None)
    journal_ref = _journal_ref(record)
    doi = record.doi if record.doi and not record.doi.lower().startswith(_ARXIV_DOI) else None
    authors = tuple(tuple(tokens(p.display)) for p in record.authors)
    fields: dict[str, tuple[tuple[str, ...], ...]] = {
        "ti": (tuple(tokens(full_title)),),
        "au": authors,
        "abs": (tuple(tokens(summary)),),
        "co": (tuple(tokens(comment or "")),),
        "jr": (tuple(tokens(journal_ref or "")),),
        "id": ((arxiv_id.lower(),),),
        "rn": (),
    }
    fields["all"] = tuple(seq for name in _TEXT_FIELDS for seq in fields[name])
    return Preprint(record=record, arxiv_id=arxiv_id, versions=max(int(versions), 1),
                    categories=categories, published=published, title=title,
                    summary=summary, comment=comment, journal_ref=journal_ref, doi=doi,
                    fields=fields)


def _categories(record: RenderedWork, digest: bytes) -> tuple[str, ...]:
    given = _extra(record, "categories")
    if isinstance(given, list) and given and all(isinstance(c, str) for c in given):
        return tuple(given)
    primary = _CATEGORIES[digest[0] % len(_CATEGORIES)]
    second = _CATEGORIES[digest[1] % len(_CATEGORIES)]
    return (primary,) if second == primary or digest[2] % 2 else (primary, second)


def _identity(record: RenderedWork, digest: bytes, primary: str) -> tuple[str, int | None]:
    """(arXiv id, latest version if the corpus names it) — see the module docstring."""
    work = record.work
    options = work.sources.get(NAME)
    candidates = [options.source_id if options else None, work.extra.get("arxiv")]
    if work.doi and work.doi.lower().startswith(_ARXIV_DOI):
        candidates.append(work.doi[len(_ARXIV_DOI):])
    for candidate in candidates:
        if isinstance(candidate, str):
            parsed = parse_id(re.sub(r"^\s*arxiv:\s*", "", candidate, flags=re.I))
            if parsed is not None:
                return parsed
    year = record.year if record.year is not None else 2010
    month = digest[13] % 12 + 1
    number = int.from_bytes(digest[14:18], "big")
    if 2007 <= year <= 2099:
        width = 5 if year >= 2015 else 4
        return f"{year % 100:02d}{month:02d}.{number % (10**width - 1) + 1:0{width}d}", None
    archive = primary.split(".", 1)[0]
    return f"{archive}/{year % 100:02d}{month:02d}{number % 999 + 1:03d}", None


def _journal_ref(record: RenderedWork) -> str | None:
    work = record.work
    if not work.container or work.container.strip().lower() in _NO_JOURNAL:
        return None
    ref = work.container
    if work.volume:
        ref += f" {work.volume}"
    if work.pages:
        ref += f", {work.pages.replace(chr(0x2013), '-')}"
    return ref  # as stored: arXiv keeps the author's text, no year appended


# ----------------------------------------------------------------------------- query


@dataclass(frozen=True, slots=True)
class Term:
    field: str
    text: str
    phrase: bool

    def __str__(self) -> str:
        return f'{self.field}:"{self.text}"' if self.phrase else f"{self.field}:{self.text}"


@dataclass(frozen=True, slots=True)
class Op:
    op: str
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True, slots=True)
class Group:
    inner: Node

    def __str__(self) -> str:
        return f"({self.inner})"


Node = Term | Op | Group


class _Parser:
    """Recursive descent over ``search_query`` tokens; lenient like the real service
    (a dangling operator or parenthesis is ignored, an open quote runs to the end)."""

    def __init__(self, text: str) -> None:
        self.items: list[tuple[str, Any]] = []
        for match in _TOKEN.finditer(text):
            if match.group("open"):
                self.items.append(("(", None))
            elif match.group("close"):
                self.items.append((")", None))
            else:
                field, phrase, word = match.group("field", "phrase", "word")
                if field is None and phrase is None and word in _OPERATORS:
                    self.items.append(("op", word))
                    continue
                value = phrase if phrase is not None else word
                name = (field or "all").lower()
                if name not in _FIELDS:
                    name, value = "all", f"{field}:{value}"
                if value.strip():
                    self.items.append(("term", Term(name, value, phrase is not None)))
        self.pos = 0

    def parse(self) -> Node | None:
        node = None
        while self.pos < len(self.items):
            node = _join("OR", node, self._or())
            self.pos += 1  # skip a stray ")" or operator and go on
        return node

    def _peek(self) -> tuple[str, Any] | None:
        return self.items[self.pos] if self.pos < len(self.items) else None

    def _or(self) -> Node | None:
        left = self._and()
        while self._peek() == ("op", "OR"):
            self.pos += 1
            left = _join("OR", left, self._and())
        return left

    def _and(self) -> Node | None:
        left = self._unary()
        while (item := self._peek()) is not None:
            if item[0] == "op" and item[1] in ("AND", "ANDNOT"):
                self.pos += 1
                left = _join(item[1], left, self._unary())
            elif item[0] in ("term", "("):
                left = _join("AND", left, self._unary())  # adjacency is AND
            else:
                break
        return left

    def _unary(self) -> Node | None:
        item = self._peek()
        if item is None:
            return None
        if item[0] == "term":
            self.pos += 1
            term: Term = item[1]
            return term
        if item[0] == "(":
            self.pos += 1
            inner = self._or()
            if self._peek() == (")", None):
                self.pos += 1
            return Group(inner) if inner is not None else None
        return None


def _join(op: str, left: Node | None, right: Node | None) -> Node | None:
    if left is None:
        return None if op == "ANDNOT" else right
    if right is None:
        return left
    return Op(op, left, right)


def parse_query(text: str) -> Node | None:
    """``search_query`` as a tree (None when it holds no term)."""
    return _Parser(text).parse()


def _term_words(term: Term) -> tuple[str, ...]:
    if term.field in ("cat", "id"):
        return (term.text.strip().lower(),)
    return tuple(tokens(term.text))


def _contains(sequence: tuple[str, ...], words: tuple[str, ...]) -> bool:
    n = len(words)
    if n == 1:
        return words[0] in sequence
    return any(sequence[i:i + n] == words for i in range(len(sequence) - n + 1))


def term_matches(term: Term, preprint: Preprint) -> bool:
    words = _term_words(term)
    if not words:
        return False
    if term.field == "cat":
        return words[0] in {c.lower() for c in preprint.categories}
    return any(_contains(seq, words) for seq in preprint.fields[term.field])


def matches(node: Node, preprint: Preprint) -> bool:
    if isinstance(node, Term):
        return term_matches(node, preprint)
    if isinstance(node, Group):
        return matches(node.inner, preprint)
    if node.op == "AND":
        return matches(node.left, preprint) and matches(node.right, preprint)
    if node.op == "OR":
        return matches(node.left, preprint) or matches(node.right, preprint)
    return matches(node.left, preprint) and not matches(node.right, preprint)


def _positive_terms(node: Node) -> Iterator[Term]:
    if isinstance(node, Term):
        yield node
    elif isinstance(node, Group):
        yield from _positive_terms(node.inner)
    else:
        yield from _positive_terms(node.left)
        if node.op != "ANDNOT":
            yield from _positive_terms(node.right)


# ----------------------------------------------------------------------------- feeds


def _attr(value: str) -> str:
    """An attribute value, always in double quotes (as the real feed writes them)."""
    return '"' + escape(value, {'"': "&quot;"}) + '"'


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _feed_head(feed_id: str, title: str, updated: str) -> list[str]:
    return [
        "<?xml version='1.0' encoding='UTF-8'?>",
        f'<feed xmlns:opensearch="{OPENSEARCH_NS}" xmlns:arxiv="{ARXIV_NS}" '
        f'xmlns="{ATOM_NS}">',
        f"  <id>{escape(feed_id)}</id>",
        f"  <title>{escape(title)}</title>",
        f"  <updated>{updated}</updated>",
    ]


def entry_xml(preprint: Preprint, version: int) -> list[str]:
    """One ``<entry>``, elements in the order of the 2026 recordings."""
    versioned = f"{preprint.arxiv_id}v{version}"
    lines = [
        "  <entry>",
        f"    <id>http://arxiv.org/abs/{escape(versioned)}</id>",
        f"    <title>{escape(preprint.title)}</title>",
        f"    <updated>{_time(preprint.updated(version))}</updated>",
        f'    <link href={_attr("https://arxiv.org/abs/" + versioned)} rel="alternate" '
        'type="text/html"/>',
        f'    <link href={_attr("https://arxiv.org/pdf/" + versioned)} rel="related" '
        'type="application/pdf" title="pdf"/>',
        f"    <summary>{escape(preprint.summary)}</summary>",
    ]
    lines += [f"    <category term={_attr(c)} scheme={_attr(ARXIV_NS)}/>"
              for c in preprint.categories]
    lines.append(f"    <published>{_time(preprint.published)}</published>")
    comment = preprint.comment_of(version)
    if comment:
        lines.append(f"    <arxiv:comment>{escape(comment)}</arxiv:comment>")
    lines.append(f"    <arxiv:primary_category term={_attr(preprint.categories[0])}/>")
    if preprint.journal_ref:
        lines.append(f"    <arxiv:journal_ref>{escape(preprint.journal_ref)}</arxiv:journal_ref>")
    for person in preprint.record.authors:
        lines += ["    <author>", f"      <name>{escape(person.display)}</name>", "    </author>"]
    if preprint.doi:
        lines.append(f"    <arxiv:doi>{escape(preprint.doi)}</arxiv:doi>")
        lines.append(f'    <link rel="related" href={_attr("https://doi.org/" + preprint.doi)}'
                     ' title="doi"/>')
    lines.append("  </entry>")
    return lines


def _atom(status: int, lines: list[str]) -> web.Response:
    return web.Response(status=status, body=("\n".join(lines) + "\n").encode(),
                        headers={"Content-Type": CONTENT_TYPE})


def error_feed(message: str) -> web.Response:
    """arXiv's 400: an Atom feed holding one "Error" entry (as recorded)."""
    now = _time(datetime.now(UTC))
    anchor = f"https://arxiv.org/api/errors#{message.replace(' ', '_')}"
    lines = _feed_head("https://arxiv.org/", "arXiv Search Results", now)
    lines += [
        "  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>",
        "  <opensearch:totalResults>1</opensearch:totalResults>",
        "  <opensearch:startIndex>0</opensearch:startIndex>",
        "  <entry>",
        f"    <id>{escape(anchor)}</id>",
        "    <title>Error</title>",
        f"    <updated>{now}</updated>",
        f'    <link href={_attr(anchor)} rel="alternate" type="text/html"/>',
        f"    <summary>{escape(message)}</summary>",
        "    <author>",
        "      <name>arXiv api core</name>",
        "    </author>",
        "  </entry>",
        "</feed>",
    ]
    return _atom(400, lines)


def throttled(retry_after: float | None) -> web.Response:
    """The 429 arXiv sends: plain text "Rate exceeded.", no Atom and no ``Retry-After``."""
    return web.Response(status=429, body=RATE_EXCEEDED.encode(),
                        headers={"Content-Type": "text/plain"})


def pool_of(request: web.Request) -> str:
    return "public"  # no keys: one pool for everyone


def request_class(request: web.Request) -> str:
    return "all"


# ----------------------------------------------------------------------------- handler


class _BadRequest(Exception):
    pass


def _number(params: Mapping[str, str], name: str, default: int) -> int:
    raw = params.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise _BadRequest(f"{name} must be an integer") from None
    if value < 0:
        raise _BadRequest(f"{name} must be non-negative")
    return value


class ArxivService:
    """The ``/query`` handler over the arXiv view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.view: SourceView = corpus.source(NAME)
        self.preprints = [build_preprint(r) for r in self.view.records]
        self._by_id: dict[str, Preprint] = {}
        for preprint in self.preprints:
            self._by_id.setdefault(preprint.arxiv_id.lower(), preprint)
        count: dict[str, int] = {}
        for preprint in self.preprints:
            for word in {w for seq in preprint.fields["all"] for w in seq}:
                count[word] = count.get(word, 0) + 1
        n = len(self.preprints)
        self._idf = {w: math.log(1.0 + n / c) for w, c in count.items()}

    async def query(self, request: web.Request) -> web.Response:
        params: dict[str, str] = dict(request.query)
        if request.method == "POST":
            form = await request.post()
            params.update({k: v for k, v in form.items() if isinstance(v, str)})
        try:
            # In a worker thread: a search over a large corpus must not stall the event
            # loop (and with it the world's rate-limit clocks).
            lines = await asyncio.to_thread(self._answer, params)
        except _BadRequest as exc:
            return error_feed(str(exc))
        return _atom(200, lines)

    def _answer(self, params: Mapping[str, str]) -> list[str]:
        """The feed's lines; raises :class:`_BadRequest` for arXiv's 400s."""
        raw_ids = params.get("id_list", "")
        wanted: list[tuple[str, int | None]] = []
        for item in (i.strip() for i in raw_ids.split(",")):
            if not item:
                continue
            parsed = parse_id(item)
            if parsed is None:
                raise _BadRequest(f"incorrect id format for {item}")
            wanted.append(parsed)
        start = _number(params, "start", 0)
        max_results = min(_number(params, "max_results", DEFAULT_MAX_RESULTS), MAX_RESULTS)
        sort_by = params.get("sortBy") or "relevance"
        if sort_by not in SORT_BY:
            raise _BadRequest(f"sortBy must be in {', '.join(SORT_BY)}")
        sort_order = params.get("sortOrder") or "descending"
        if sort_order not in SORT_ORDER:
            raise _BadRequest(f"sortOrder must be in {', '.join(SORT_ORDER)}")
        tree = parse_query(params.get("search_query", ""))

        found: list[tuple[Preprint, int]] = []
        if wanted:
            for arxiv_id, version in wanted:
                preprint = self._by_id.get(arxiv_id.lower())
                if preprint is None or (version is not None and version > preprint.versions):
                    continue  # unknown ids are dropped silently
                if tree is None or matches(tree, preprint):
                    found.append((preprint, version or preprint.versions))
            if sort_by != "relevance":
                found = self._sorted(found, sort_by, sort_order)
        elif tree is not None:
            scored = [(self._score(tree, p), i, p) for i, p in enumerate(self.preprints)
                      if matches(tree, p)]
            scored.sort(key=lambda s: (-s[0], s[1]))
            if sort_order == "ascending" and sort_by == "relevance":
                scored.reverse()
            found = [(p, p.versions) for _, _, p in scored]
            if sort_by != "relevance":
                found = self._sorted(found, sort_by, sort_order)

        page = found[start:start + max_results]
        echo = str(tree) if tree is not None else ""
        title = (f"arXiv Query: search_query={echo}&id_list={raw_ids}&start={start}"
                 f"&max_results={max_results}")
        link = (f"https://arxiv.org/api/query?search_query={echo}&start={start}"
                f"&max_results={max_results}&id_list={raw_ids}")
        digest = hashlib.sha1(title.encode(), usedforsecurity=False).digest()
        feed_id = "https://arxiv.org/api/" + base64.b64encode(digest).decode().rstrip("=")
        lines = _feed_head(feed_id, title, _time(datetime.now(UTC)))
        lines += [
            f'  <link href={_attr(link)} type="application/atom+xml"/>',
            f"  <opensearch:itemsPerPage>{max_results}</opensearch:itemsPerPage>",
            f"  <opensearch:totalResults>{len(found)}</opensearch:totalResults>",
            f"  <opensearch:startIndex>{start}</opensearch:startIndex>",
        ]
        for preprint, version in page:
            lines += entry_xml(preprint, version)
        lines.append("</feed>")
        return lines

    def _score(self, tree: Node, preprint: Preprint) -> float:
        total = 0.0
        for term in _positive_terms(tree):
            if term.field != "cat" and term_matches(term, preprint):
                total += sum(self._idf.get(w, 0.0) for w in _term_words(term))
        return total

    @staticmethod
    def _sorted(found: list[tuple[Preprint, int]], sort_by: str, order: str
                ) -> list[tuple[Preprint, int]]:
        def key(item: tuple[Preprint, int]) -> datetime:
            preprint, version = item
            return preprint.published if sort_by == "submittedDate" else preprint.updated(version)
        return sorted(found, key=key, reverse=order == "descending")


def _not_found(request: web.Request, exc: web.HTTPException) -> web.Response:
    """A short HTML 404 for paths other than ``/query``."""
    return web.Response(status=404, body=b"<html><body><h1>Not Found</h1></body></html>",
                        headers={"Content-Type": "text/html; charset=utf-8"})


_arxiv_frame = framing(_not_found)


def create_app(corpus: Corpus) -> web.Application:
    """The arXiv stand-in as an aiohttp application (mounted under a prefix)."""
    service = ArxivService(corpus)
    app = web.Application(middlewares=[_arxiv_frame])
    # Route names are the endpoints the world's request log reports.
    app.router.add_get("/query", service.query, name="query")
    app.router.add_post("/query", service.query, name="query_post")
    return app


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=pool_of,
    request_class=request_class,
    # Terms of Use: no more than 1 request every 3 seconds, one connection at a time.
    limits={"public": {"all": Limit(1.0, period_s=3.0, concurrency=1)}},
    throttled=throttled,
)
