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

import contextvars
import hashlib
import re
import xml.etree.ElementTree as ET
from collections import OrderedDict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web
from multidict import MultiDict, MultiDictProxy

from .corpus import Corpus, Person, RenderedWork, SourceView, Work, tokens
from .limits import WorldClock, clock_of
from .service import Limit, ServiceSpec, framing

NAME = "pubmed"

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

# PubMed's stopword list: words it drops from a query (reporting them as ignored).
STOPWORDS = frozenset(
    """a about again all almost also although always among an and another any are as at
    be because been before being between both but by can could did do does done due
    during each either enough especially etc for found from further had has have having
    here how however i if in into is it its itself just kg km made mainly make may mg
    might ml mm most mostly must nearly neither no nor obtained of often on our overall
    perhaps pmid quite rather really regarding seem seen several should show showed
    shown shows significantly since so some such than that the their theirs them then
    there therefore these they this those through thus to upon use used using various
    very was we were what when which while with within without would""".split()
)

# Field tags (lower-case, as typed between brackets) -> (field, display name).
_TAGS: Mapping[str, tuple[str, str]] = {
    **dict.fromkeys(("ti", "title"), ("title", "Title")),
    **dict.fromkeys(("tiab", "title/abstract"), ("title", "Title/Abstract")),
    **dict.fromkeys(("au", "author", "auth", "fau", "full author name"), ("author", "Author")),
    **dict.fromkeys(("1au", "first author name", "author - first"),
                    ("first_author", "Author - First")),
    **dict.fromkeys(("lastau", "last author name", "author - last"),
                    ("last_author", "Author - Last")),
    **dict.fromkeys(("cn", "corporate author"), ("collective", "Corporate Author")),
    **dict.fromkeys(("dp", "pdat", "publication date", "date - publication"),
                    ("date", "Date - Publication")),
    **dict.fromkeys(("ta", "journal", "jour", "jt"), ("journal", "Journal")),
    **dict.fromkeys(("doi", "aid", "lid", "location id", "article identifier"),
                    ("doi", "doi")),
    **dict.fromkeys(("pmid", "uid", "pubmed unique identifier"), ("pmid", "uid")),
    **dict.fromkeys(("vi", "volume"), ("volume", "Volume")),
    **dict.fromkeys(("ip", "issue"), ("issue", "Issue")),
    **dict.fromkeys(("pg", "pagination"), ("page", "Pagination")),
    **dict.fromkeys(("is", "issn"), ("issn", "ISSN")),
    **dict.fromkeys(("pt", "publication type"), ("type", "Publication Type")),
    **dict.fromkeys(("la", "language"), ("language", "Language")),
    **dict.fromkeys(("all", "all fields"), ("all", "All Fields")),
}
_WORD_FIELDS = frozenset({"title", "all"})
_PUBLICATION_TYPES: Mapping[str, tuple[str, str]] = {
    "preprint": ("D000076942", "Preprint"),
    "report": ("D059025", "Technical Report"),
}
_JOURNAL_ARTICLE = ("D016428", "Journal Article")
_RETRACTED = ("D016441", "Retracted Publication")
_DATE = r"(\d{4})(?:/\d{1,2}(?:/\d{1,2})?)?"
_YEAR_RANGE = re.compile(rf"^{_DATE}(?::{_DATE})?$")


# ----------------------------------------------------------------------------- identity


def pmid_of(work: Work) -> str:
    """The PMID PubMed shows for ``work``: the ``pubmed`` rendering's ``id``, else a
    top-level ``pmid`` key of the work (kept in ``Work.extra``), else a stable 8-digit
    number derived from the corpus id (so PMIDs survive reordering the corpus)."""
    options = work.sources.get(NAME)
    for value in (options.source_id if options else None, work.extra.get("pmid")):
        text = str(value).strip() if isinstance(value, str | int) else ""
        if text.isdigit() and int(text) > 0:
            return str(int(text))
    return derived_pmid(work.id)


def derived_pmid(key: str) -> str:
    digest = hashlib.sha256(f"pubmed-pmid\0{key}".encode()).digest()
    return str(10_000_000 + int.from_bytes(digest[:8], "big") % 30_000_000)


def pmcid_of(work: Work) -> str | None:
    """The work's PMC id when the corpus gives one (a ``pmcid`` key), as ``PMC123``."""
    value = work.extra.get("pmcid")
    text = str(value).strip().upper() if isinstance(value, str | int) else ""
    if not text:
        return None
    return text if text.startswith("PMC") else f"PMC{text}"


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


# ----------------------------------------------------------------------------- term syntax


class TermError(ValueError):
    """A term the stand-in cannot read (the world's wording: NCBI's is not recorded)."""


@dataclass(frozen=True, slots=True)
class Term:
    """One search term: ``text`` searched in ``field`` (``quoted``: as a phrase)."""

    text: str
    field: str
    display: str
    quoted: bool = False


@dataclass(frozen=True, slots=True)
class Group:
    """Operands combined left to right: ``ops[i]`` joins ``items[i]`` and ``items[i+1]``."""

    items: tuple[Term | Group, ...]
    ops: tuple[str, ...]


@dataclass(slots=True)
class Parsed:
    """A parsed term and what PubMed reports about it."""

    root: Group
    ignored: list[str] = field(default_factory=list)
    fields_not_found: list[str] = field(default_factory=list)


_OPERATORS = frozenset({"AND", "OR", "NOT"})


def _lex(term: str) -> list[tuple[str, str]]:
    """(kind, text) tokens: ``(``, ``)``, ``op``, ``phrase``, ``word``, ``tag``."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(term)
    while i < n:
        c = term[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append((c, c))
            i += 1
        elif c == '"':
            close = term.find('"', i + 1)
            if close == -1:
                raise TermError("Unmatched quotation mark in term")
            out.append(("phrase", term[i + 1:close]))
            i = close + 1
        elif c == "[":
            close = term.find("]", i + 1)
            if close == -1:
                raise TermError("Unmatched bracket in term")
            out.append(("tag", term[i + 1:close]))
            i = close + 1
        else:
            j = i
            while j < n and not term[j].isspace() and term[j] not in '()"[':
                j += 1
            word = term[i:j]
            out.append(("op" if word in _OPERATORS else "word", word))
            i = j
    return out


def parse_term(term: str, default_tag: str | None = None) -> Parsed:
    """A PubMed ``term`` as a :class:`Group` tree; untagged words get ``default_tag``
    (esearch's ``field`` parameter) or search all fields. Raises :class:`TermError`."""
    lexed = _lex(term)
    parsed = Parsed(Group((), ()))
    pos = 0

    def group(depth: int) -> Group:
        nonlocal pos
        items: list[Term | Group] = []
        ops: list[str] = []
        pending_op: str | None = None
        words: list[str] = []

        def add(item: Term | Group) -> None:
            nonlocal pending_op
            if items:
                ops.append(pending_op or "AND")  # adjacent terms: implicit AND
            items.append(item)
            pending_op = None

        def flush_words(tag: str | None) -> None:
            if not words:
                return
            if tag is None:
                for word in words:
                    term_of = _make_term(word, default_tag, False, parsed)
                    if term_of is not None:
                        add(term_of)
            else:
                term_of = _make_term(" ".join(words), tag, False, parsed)
                if term_of is not None:
                    add(term_of)
            words.clear()

        while pos < len(lexed):
            kind, text = lexed[pos]
            pos += 1
            if kind == "word":
                words.append(text)
            elif kind == "tag":
                if not words:
                    continue  # a tag with nothing before it tags nothing
                flush_words(text)
            elif kind == "phrase":
                flush_words(None)
                tag = default_tag
                if pos < len(lexed) and lexed[pos][0] == "tag":
                    tag = lexed[pos][1]
                    pos += 1
                phrase = _make_term(text, tag, True, parsed)
                if phrase is not None:
                    add(phrase)
            elif kind == "op":
                flush_words(None)
                if items:
                    pending_op = text
            elif kind == "(":
                flush_words(None)
                inner = group(depth + 1)
                if inner.items:
                    add(inner)
            else:  # ")"
                if depth == 0:
                    raise TermError("Unbalanced parentheses in term")
                flush_words(None)
                return Group(tuple(items), tuple(ops))
        if depth > 0:
            raise TermError("Unbalanced parentheses in term")
        flush_words(None)
        return Group(tuple(items), tuple(ops))

    parsed.root = group(0)
    return parsed


def _make_term(text: str, tag: str | None, quoted: bool, parsed: Parsed) -> Term | None:
    text = " ".join(text.split())
    if not text:
        return None
    if tag is None:
        spec = _TAGS["all"]
    else:
        key = " ".join(tag.split()).lower()
        found = _TAGS.get(key)
        if found is None:
            # NCBI drops an unknown tag and searches the words everywhere.
            parsed.fields_not_found.append(tag)
            spec = _TAGS["all"]
        else:
            spec = found
    fld, display = spec
    if fld in _WORD_FIELDS and not quoted:
        kept = [w for w in text.split() if w.lower() not in STOPWORDS]
        parsed.ignored.extend(w for w in text.split() if w.lower() in STOPWORDS)
        if not kept:
            return None
        text = " ".join(kept)
    return Term(text, fld, display, quoted)


def translation(node: Term | Group, top: bool = True) -> str:
    """The ``querytranslation`` PubMed reports for a parsed term."""
    if isinstance(node, Term):
        text = f'"{node.text}"' if node.quoted or node.field in ("journal", "all") else node.text
        return f"{text}[{node.display}]"
    parts = [translation(node.items[0], False)] if node.items else []
    for op, item in zip(node.ops, node.items[1:], strict=True):
        parts.append(f"{op} {translation(item, False)}")
    joined = " ".join(parts)
    return joined if top or len(node.items) < 2 else f"({joined})"


# ----------------------------------------------------------------------------- matching


def _initials(given: str | None) -> str:
    """"James Dewey" -> "JD", "Jean-Paul" -> "JP", "F. H. C." -> "FHC"."""
    if not given:
        return ""
    out: list[str] = []
    for name in given.replace(".", " ").split():
        out.extend(p[0].upper() for p in name.split("-") if p)
    return "".join(out)


def _fore_name(given: str) -> str:
    """PubMed's ForeName: "J. D." (initials only) as "J D"; full names as given."""
    parts = re.sub(r"\.\s*-\s*", "-", given).replace(".", " ").split()
    if parts and all(len(p) == 1 or (len(p) <= 3 and "-" in p) for p in parts):
        return " ".join(parts)
    return given


def _author_matches(query: str, person: Person) -> bool:
    words = tokens(query)
    if not words:
        return False
    if person.literal:
        lit = tokens(person.literal)
        return _contains(lit, words)
    family = tokens(person.family or "")
    if words == family:
        return True
    if words[: len(family)] != family or len(words) != len(family) + 1:
        return False
    rest = words[-1]
    given = tokens(person.given or "")
    initials = _initials(person.given).lower()
    # "smith j" / "smith jd": initials prefix; "smith john": the first given name.
    return bool(initials.startswith(rest) or (given and given[0] == rest))


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    if not needle:
        return False
    n = len(needle)
    return any(list(haystack[i:i + n]) == list(needle) for i in range(len(haystack) - n + 1))


@dataclass(frozen=True, slots=True)
class _Doc:
    """What a term can match in one record (precomputed per record)."""

    record: RenderedWork
    pmid: str
    title: tuple[str, ...]
    everything: frozenset[str]
    journal: tuple[str, ...]
    types: frozenset[str]


def _doc(record: RenderedWork) -> _Doc:
    work = record.work
    title = tuple(tokens(record.full_title))
    people = " ".join(" ".join(x for x in (p.given, p.family, p.literal) if x)
                      for p in record.authors)
    words = set(title) | set(tokens(people)) | set(tokens(work.container or ""))
    words |= set(tokens(work.publisher or ""))
    if record.year is not None:
        words.add(str(record.year))
    return _Doc(record, pmid_of(work), title, frozenset(words),
                tuple(tokens(work.container or "")),
                frozenset(t.lower() for _, t in publication_types(work)))


def _first_page(pages: str | None) -> str:
    return re.split(r"[-\u2013\u2014]", pages or "", maxsplit=1)[0].strip().lower()


def _term_matches(term: Term, doc: _Doc) -> bool:
    record, work = doc.record, doc.record.work
    fld, text = term.field, term.text
    if fld in ("title", "all"):
        words = tokens(text)
        haystack: Sequence[str] = doc.title if fld == "title" else tuple(doc.everything)
        if term.quoted and fld == "title":
            return _contains(doc.title, words)
        if term.quoted and len(words) > 1:
            return _contains(doc.title, words) or _contains(doc.journal, words)
        return bool(words) and all(w in haystack for w in words)
    if fld in ("author", "first_author", "last_author", "collective"):
        people = record.authors
        if fld == "first_author":
            people = people[:1]
        elif fld == "last_author":
            people = people[-1:]
        elif fld == "collective":
            people = tuple(p for p in people if p.literal)
        return any(_author_matches(text, p) for p in people)
    if fld == "date":
        match = _YEAR_RANGE.match(text.replace(" ", ""))
        if match is None or record.year is None:
            return False
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        return min(low, high) <= record.year <= max(low, high)
    if fld == "journal":
        wanted = tokens(text)
        return bool(wanted) and (list(doc.journal) == wanted
                                 or text.strip().upper() in work.issn)
    if fld == "doi":
        return record.doi is not None and record.doi.lower() == text.strip().lower()
    if fld == "pmid":
        return doc.pmid == text.strip().lstrip("0")
    if fld == "volume":
        return (work.volume or "").lower() == text.strip().lower()
    if fld == "issue":
        return (work.issue or "").lower() == text.strip().lower()
    if fld == "page":
        return bool(work.pages) and _first_page(work.pages) == _first_page(text)
    if fld == "issn":
        return text.strip().upper() in work.issn
    if fld == "type":
        return " ".join(text.lower().split()) in doc.types
    if fld == "language":
        return text.strip().lower() in ("english", "eng")
    return False


def _evaluate(node: Term | Group, doc: _Doc) -> bool:
    if isinstance(node, Term):
        return _term_matches(node, doc)
    if not node.items:
        return False
    value = _evaluate(node.items[0], doc)
    for op, item in zip(node.ops, node.items[1:], strict=True):
        # Left to right, no precedence: "a OR b AND c" is "(a OR b) AND c", as in PubMed.
        if op == "AND":
            value = value and _evaluate(item, doc)
        elif op == "OR":
            value = value or _evaluate(item, doc)
        else:
            value = value and not _evaluate(item, doc)
    return value


def _positive_words(node: Term | Group, negated: bool = False) -> list[str]:
    """Title and all-field words of the term that count towards relevance."""
    if isinstance(node, Term):
        return [] if negated or node.field not in _WORD_FIELDS else tokens(node.text)
    out: list[str] = []
    for index, item in enumerate(node.items):
        out.extend(_positive_words(item, negated or (index > 0 and node.ops[index - 1] == "NOT")))
    return out


def _unmatched_phrases(node: Term | Group, docs: Sequence[_Doc]) -> list[str]:
    """Untagged words no record holds: NCBI's ``phrasesnotfound``."""
    if isinstance(node, Term):
        if node.field != "all" or node.quoted:
            return []
        return [] if any(_term_matches(node, d) for d in docs) else [node.text]
    return [p for item in node.items for p in _unmatched_phrases(item, docs)]


# ----------------------------------------------------------------------------- rendering


def publication_types(work: Work) -> list[tuple[str, str]]:
    """(UI, name) of the work's PublicationTypeList."""
    types = [_PUBLICATION_TYPES.get(work.type, _JOURNAL_ARTICLE)]
    if work.retracted:
        types.append(_RETRACTED)
    return types


def title_text(record: RenderedWork) -> str:
    """ArticleTitle: the full title, closed with a period as MEDLINE does."""
    title = record.full_title.strip()
    return title if title.endswith((".", "?", "!")) else f"{title}."


def page_range(pages: str) -> tuple[str, str]:
    """("737", "738") from "737–738"; (pages, "") for a single page or article number."""
    parts = re.split(r"\s*[-\u2013\u2014]\s*", pages.strip(), maxsplit=1)
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0], parts[1]
    return pages.strip(), ""


def medline_pages(pages: str | None) -> str:
    """MEDLINE's abbreviated page range: "737–738" -> "737-8", "e124" unchanged."""
    if not pages:
        return ""
    start, end = page_range(pages)
    if not end:
        return start
    if start.isdigit() and end.isdigit() and len(start) == len(end):
        common = 0
        while common < len(start) - 1 and start[common] == end[common]:
            common += 1
        end = end[common:]
    return f"{start}-{end}"


def _retraction_pmid(work: Work) -> str:
    return derived_pmid(f"{work.id}\0retraction")


def _retraction_year(record: RenderedWork) -> int | None:
    notice = record.work.retraction
    return notice.year if notice and notice.year else record.year


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


def _title_element(parent: ET.Element, tag: str, title: str) -> None:
    """ArticleTitle keeps inline markup (``<i>``, ``<sup>``) as elements, like PubMed."""
    try:
        element = ET.fromstring(f"<{tag}>{title}</{tag}>")
    except ET.ParseError:
        _sub(parent, tag, title)
        return
    parent.append(element)


def _author_list(parent: ET.Element, people: Sequence[Person], complete: bool,
                 kind: str | None = None) -> None:
    attrs = {"CompleteYN": "Y" if complete else "N"}
    if kind:
        attrs["Type"] = kind
    author_list = _sub(parent, "AuthorList", **attrs)
    for person in people:
        author = _sub(author_list, "Author", ValidYN="Y")
        if person.literal:
            _sub(author, "CollectiveName", person.literal)
            continue
        _sub(author, "LastName", person.family or "")
        if person.given:
            _sub(author, "ForeName", _fore_name(person.given))
            _sub(author, "Initials", _initials(person.given))


def _pub_date(parent: ET.Element, year: int | None) -> None:
    date = _sub(parent, "PubDate")
    if year is not None:
        _sub(date, "Year", str(year))


def _history(parent: ET.Element, year: int | None) -> None:
    history = _sub(parent, "History")
    stamp = max(year or 1990, 1966)  # PubMed's Entrez dates begin in the 1960s
    for status in ("pubmed", "medline", "entrez"):
        date = _sub(history, "PubMedPubDate", PubStatus=status)
        _sub(date, "Year", str(stamp))
        _sub(date, "Month", "1")
        _sub(date, "Day", "1")


def _article_ids(parent: ET.Element, record: RenderedWork, pmid: str) -> None:
    ids = _sub(parent, "ArticleIdList")
    _sub(ids, "ArticleId", pmid, IdType="pubmed")
    if record.doi:
        _sub(ids, "ArticleId", record.doi, IdType="doi")
    pmcid = pmcid_of(record.work)
    if pmcid:
        _sub(ids, "ArticleId", pmcid, IdType="pmc")


def article_element(record: RenderedWork) -> ET.Element:
    """One ``PubmedArticle`` (or ``PubmedBookArticle`` for a book or chapter)."""
    if record.work.type in ("book", "chapter"):
        return _book_element(record)
    work = record.work
    pmid = pmid_of(work)
    root = ET.Element("PubmedArticle")
    citation = _sub(root, "MedlineCitation", Status="MEDLINE", Owner="NLM")
    _sub(citation, "PMID", pmid, Version="1")
    revised = _sub(citation, "DateRevised")
    for tag, value in (("Year", "2026"), ("Month", "06"), ("Day", "01")):
        _sub(revised, tag, value)
    article = _sub(citation, "Article", PubModel="Print")
    journal = _sub(article, "Journal")
    if work.issn:
        _sub(journal, "ISSN", work.issn[0], IssnType="Print")
    issue = _sub(journal, "JournalIssue", CitedMedium="Print")
    if work.volume:
        _sub(issue, "Volume", work.volume)
    if work.issue:
        _sub(issue, "Issue", work.issue)
    _pub_date(issue, record.year)
    container = work.container or ""
    _sub(journal, "Title", container)
    _sub(journal, "ISOAbbreviation", container)
    _title_element(article, "ArticleTitle", title_text(record))
    if work.pages:
        pagination = _sub(article, "Pagination")
        # StartPage and MedlinePgn, as in the recorded records (no EndPage).
        _sub(pagination, "StartPage", page_range(work.pages)[0])
        _sub(pagination, "MedlinePgn", medline_pages(work.pages))
    if record.doi:
        _sub(article, "ELocationID", record.doi, EIdType="doi", ValidYN="Y")
    if record.authors:
        _author_list(article, record.authors, len(record.authors) == len(work.authors))
    _sub(article, "Language", "eng")
    types = _sub(article, "PublicationTypeList")
    for ui, name in publication_types(work):
        _sub(types, "PublicationType", name, UI=ui)
    info = _sub(citation, "MedlineJournalInfo")
    _sub(info, "MedlineTA", container)
    _sub(info, "NlmUniqueID", derived_pmid(f"journal\0{container}")[:7])
    if work.issn:
        _sub(info, "ISSNLinking", work.issn[0])
    if work.retracted:
        comments = _sub(citation, "CommentsCorrectionsList")
        notice = _sub(comments, "CommentsCorrections", RefType="RetractionIn")
        year = _retraction_year(record)
        _sub(notice, "RefSource", f"{container}. {year}" if year else container)
        _sub(notice, "PMID", _retraction_pmid(work), Version="1")
    data = _sub(root, "PubmedData")
    _history(data, record.year)
    _sub(data, "PublicationStatus", "ppublish")
    _article_ids(data, record, pmid)
    return root


def _book_element(record: RenderedWork) -> ET.Element:
    work = record.work
    pmid = pmid_of(work)
    root = ET.Element("PubmedBookArticle")
    document = _sub(root, "BookDocument")
    _sub(document, "PMID", pmid, Version="1")
    book = _sub(document, "Book")
    publisher = _sub(book, "Publisher")
    _sub(publisher, "PublisherName", work.publisher or "")
    chapter = work.type == "chapter"
    book_title = (work.container or "") if chapter else title_text(record)
    _sub(book, "BookTitle", book_title)
    _pub_date(book, record.year)
    complete = len(record.authors) == len(work.authors)
    if chapter and work.editors:
        _author_list(book, work.editors, True, "editors")
    if not chapter and record.authors:
        _author_list(book, record.authors, complete, "authors")
    if work.volume:
        _sub(book, "Volume", work.volume)
    for isbn in work.isbn:
        _sub(book, "Isbn", isbn)
    if chapter:
        _title_element(document, "ArticleTitle", title_text(record))
        if work.pages:
            pagination = _sub(document, "Pagination")
            _sub(pagination, "MedlinePgn", medline_pages(work.pages))
        if record.authors:
            _author_list(document, record.authors, complete, "authors")
    data = _sub(root, "PubmedBookData")
    _history(data, record.year)
    _sub(data, "PublicationStatus", "ppublish")
    _article_ids(data, record, pmid)
    return root


def _author_summary_name(person: Person) -> str:
    """esummary's "Family Initials" ("Watson JD") or the collective name."""
    if person.literal:
        return person.literal
    initials = _initials(person.given)
    return f"{person.family} {initials}" if initials else person.family or ""


def summary_json(record: RenderedWork) -> dict[str, Any]:
    """One esummary (version 0.3) entry, keys in the recorded order."""
    work = record.work
    pmid = pmid_of(work)
    container = work.container or ""
    names = [{"name": _author_summary_name(p),
              "authtype": "CollectiveName" if p.literal else "Author", "clusterid": ""}
             for p in record.authors]
    article_ids: list[dict[str, Any]] = [{"idtype": "pubmed", "idtypen": 1, "value": pmid}]
    pmcid = pmcid_of(work)
    if pmcid:
        article_ids.append({"idtype": "pmc", "idtypen": 8, "value": pmcid})
        article_ids.append({"idtype": "pmcid", "idtypen": 5, "value": f"pmc-id: {pmcid};"})
    if record.doi:
        article_ids.append({"idtype": "doi", "idtypen": 3, "value": record.doi})
    year = str(record.year) if record.year is not None else ""
    title = title_text(record)
    references: list[dict[str, Any]] = []
    if work.retracted:
        notice_year = _retraction_year(record)
        references.append({"refsource": f"{container}. {notice_year}" if notice_year
                           else container, "reftype": "Retraction in",
                           "pmid": int(_retraction_pmid(work)), "note": ""})
    book = work.type in ("book", "chapter")
    return {
        "uid": pmid,
        "pubdate": year,
        "epubdate": "",
        "source": "" if book else container,
        "authors": names,
        "lastauthor": names[-1]["name"] if names else "",
        "title": title,
        "sorttitle": " ".join(tokens(title)),
        "volume": work.volume or "",
        "issue": work.issue or "",
        "pages": medline_pages(work.pages),
        "lang": ["eng"],
        "nlmuniqueid": derived_pmid(f"journal\0{container}")[:7],
        "issn": work.issn[0] if work.issn else "",
        "essn": work.issn[1] if len(work.issn) > 1 else "",
        "pubtype": [name for _, name in publication_types(work)],
        "recordstatus": "PubMed - indexed for MEDLINE",
        "pubstatus": "4",
        "articleids": article_ids,
        "history": [{"pubstatus": s, "date": f"{year or '1990'}/01/01 00:00"}
                    for s in ("pubmed", "medline", "entrez")],
        "references": references,
        "attributes": [],
        "pmcrefcount": "",
        "fulljournalname": "" if book else container,
        "elocationid": f"doi: {record.doi}" if record.doi else "",
        "doctype": ("chapter" if work.type == "chapter" else "book") if book else "citation",
        "srccontriblist": [],
        "booktitle": (work.container or "") if work.type == "chapter" else (
            title if book else ""),
        "medium": "",
        "edition": "",
        "publisherlocation": "",
        "publishername": (work.publisher or "") if book else "",
        "srcdate": "",
        "reportnumber": "",
        "availablefromurl": "",
        "locationlabel": "",
        "doccontriblist": [],
        "docdate": "",
        "bookname": "",
        "chapter": "",
        "sortpubdate": f"{year}/01/01 00:00" if year else "",
        "sortfirstauthor": names[0]["name"] if names else "",
        "vernaculartitle": "",
    }


def _summary_docsum(root: ET.Element, record: RenderedWork) -> None:
    entry = summary_json(record)
    docsum = _sub(root, "DocSum")
    _sub(docsum, "Id", entry["uid"])

    def item(parent: ET.Element, name: str, value: str, kind: str = "String") -> ET.Element:
        return _sub(parent, "Item", value, Name=name, Type=kind)

    item(docsum, "PubDate", entry["pubdate"], "Date")
    item(docsum, "Source", entry["source"])
    authors = _sub(docsum, "Item", Name="AuthorList", Type="List")
    for author in entry["authors"]:
        item(authors, "Author", author["name"])
    item(docsum, "LastAuthor", entry["lastauthor"])
    item(docsum, "Title", entry["title"])
    item(docsum, "Volume", entry["volume"])
    item(docsum, "Issue", entry["issue"])
    item(docsum, "Pages", entry["pages"])
    item(docsum, "ISSN", entry["issn"])
    pubtypes = _sub(docsum, "Item", Name="PubTypeList", Type="List")
    for name in entry["pubtype"]:
        item(pubtypes, "PubType", name)
    ids = _sub(docsum, "Item", Name="ArticleIds", Type="List")
    for article_id in entry["articleids"]:
        item(ids, article_id["idtype"], article_id["value"])
    if record.doi:
        item(docsum, "DOI", record.doi)
    item(docsum, "FullJournalName", entry["fulljournalname"])


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
    _sub(root, "ERROR", message)
    return _xml(_ESEARCH_DOCTYPE + _to_xml(root))


def _to_xml(root: ET.Element) -> str:
    # ElementTree writes "<IdList />"; NCBI writes "<IdList/>".
    return ET.tostring(root, encoding="unicode").replace(" />", "/>")


def _esearch_xml(result: Mapping[str, Any]) -> str:
    """The XML form of an esearch result (the JSON ``esearchresult`` dict)."""
    root = ET.Element("eSearchResult")
    _sub(root, "Count", result["count"])
    _sub(root, "RetMax", result["retmax"])
    _sub(root, "RetStart", result["retstart"])
    if "querykey" in result:
        _sub(root, "QueryKey", result["querykey"])
        _sub(root, "WebEnv", result["webenv"])
    id_list = _sub(root, "IdList")
    if result["idlist"]:
        id_list.text = "\n"
        for pmid in result["idlist"]:
            _sub(id_list, "Id", pmid).tail = "\n"
    _sub(root, "TranslationSet")
    _sub(root, "QueryTranslation", result["querytranslation"])
    errors = result.get("errorlist")
    if errors:
        error_list = _sub(root, "ErrorList")
        for phrase in errors["phrasesnotfound"]:
            _sub(error_list, "PhraseNotFound", phrase)
        for name in errors["fieldsnotfound"]:
            _sub(error_list, "FieldNotFound", name)
    warnings = result.get("warninglist")
    if warnings:
        warning_list = _sub(root, "WarningList")
        for phrase in warnings["phrasesignored"]:
            _sub(warning_list, "PhraseIgnored", phrase)
        for message in warnings["outputmessages"]:
            _sub(warning_list, "OutputMessage", message)
    return _to_xml(root)


def _efetch_error(message: str) -> web.Response:
    root = ET.Element("eFetchResult")
    _sub(root, "ERROR", message)
    return _xml(_EFETCH_ERROR_DOCTYPE + _to_xml(root))


def _split_ids(raw: str) -> list[str]:
    return [part for part in re.split(r"[,\s]+", raw.strip()) if part]


def _number(params: Mapping[str, str], name: str, default: int) -> int:
    raw = params.get(name, "").strip()
    return int(raw) if raw.isdigit() else default


class PubMedService:
    """Request handlers over the ``pubmed`` view of the corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self.view: SourceView = corpus.source(NAME)
        self.docs: tuple[_Doc, ...] = tuple(_doc(r) for r in self.view.records)
        self.by_pmid: dict[str, RenderedWork] = {d.pmid: d.record for d in self.docs}
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
        ids = self._search(parsed, params.get("sort", "").strip().lower(), dates)
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
        not_found = _unmatched_phrases(parsed.root, self.docs)
        if not ids or parsed.fields_not_found or not_found:
            result["errorlist"] = {"phrasesnotfound": not_found,
                                   "fieldsnotfound": parsed.fields_not_found}
        if not ids or parsed.ignored:
            result["warninglist"] = {"phrasesignored": parsed.ignored,
                                     "quotedphrasesnotfound": [],
                                     "outputmessages": [] if ids else ["No items found."]}
        if retmode == "json":
            return _json({"header": _HEADER_ESEARCH, "esearchresult": result})
        return _xml(_ESEARCH_DOCTYPE + _esearch_xml(result))

    def _search(self, parsed: Parsed, sort: str, dates: tuple[int, int] | None = None
                ) -> list[str]:
        matching = [d for d in self.docs if _evaluate(parsed.root, d) and (
            dates is None or (d.record.year is not None
                              and dates[0] <= d.record.year <= dates[1]))]
        if sort == "relevance":
            words = set(_positive_words(parsed.root))
            scored = [(self._relevance(d, words), i, d) for i, d in enumerate(matching)]
            scored.sort(key=lambda s: (-s[0], s[1]))
            matching = [d for _, _, d in scored]
        elif sort in ("author", "first+author", "first author"):
            matching.sort(key=lambda d: _sort_name(d.record))
        elif sort in ("journal", "journalname"):
            matching.sort(key=lambda d: (d.record.work.container or "").casefold())
        else:
            # pub_date, "most recent" and the default: newest first.
            matching.sort(key=lambda d: (-(d.record.year or 0), -int(d.pmid)))
        return [d.pmid for d in matching]

    @staticmethod
    def _relevance(doc: _Doc, words: set[str]) -> float:
        if not words:
            return 0.0
        hits = len(words & set(doc.title))
        # Title coverage of the query, then how much of the title the query covers.
        return hits / len(words) + 0.5 * hits / max(len(doc.title), 1)

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
        return _xml(_EFETCH_DOCTYPE + _to_xml(root))

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
            _sub(root, "ERROR", EMPTY_IDS)
        for uid in ids or ():
            record = self.by_pmid.get(uid.lstrip("0"))
            if record is None:
                _sub(root, "ERROR", f"UID={uid}: cannot get document summary")
            else:
                _summary_docsum(root, record)
        return _xml(_ESUMMARY_DOCTYPE + _to_xml(root))


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


def _sort_name(record: RenderedWork) -> str:
    first = record.authors[0] if record.authors else None
    if first is None:
        return "\uffff"
    return (first.literal or f"{first.family} {first.given or ''}").casefold()


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


SERVICE = ServiceSpec(
    name=NAME,
    create_app=create_app,
    pool_of=identify_pool,
    request_class=request_class,
    limits=LIMITS,
    throttled=throttled,
)
