"""The world's corpus: the works the stand-in services know, and how each one shows them.

A corpus is a JSON Lines file, one work per line (the format is documented in
``fixtures/world/README.md``). Each work names the sources that hold it in ``"sources"``;
the per-source object holds *rendering options* that make that source show the work the
way real services do (lower-cased title, dropped subtitle, initials only, a truncated
author list, a year off by one, no DOI). :class:`SourceView` is one source's view of the
corpus: its rendered records, a case-insensitive DOI index and relevance search (SQLite
FTS5 ranked by bm25, :mod:`~verifier.world.search`).

Forward compatibility: unknown top-level keys of a work and unknown rendering options are
kept (``Work.extra``, ``Rendering.extra``) rather than rejected, and any source name is
accepted in ``"sources"``, so a corpus written for a later world still loads here.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from .search import FIELD_WEIGHTS, MATCH_MODES, Query, SearchIndex

WORK_TYPES: frozenset[str] = frozenset(
    {"article", "book", "chapter", "proceedings", "thesis", "report", "web", "preprint", "other"}
)
TITLE_CASES: frozenset[str] = frozenset({"lower", "upper", "title", "sentence"})
DOI_REQUIRED_SOURCES: frozenset[str] = frozenset({"crossref"})
"""Sources that only hold works with a DOI (every Crossref record is a DOI)."""
SEARCH_FIELDS: frozenset[str] = frozenset(FIELD_WEIGHTS)
"""Fields a :class:`Clause` can search: title (with subtitle), author, editor, year,
container, publisher."""

_KNOWN_WORK_KEYS = frozenset(
    {
        "id", "type", "title", "subtitle", "authors", "year", "container", "editors",
        "volume", "issue", "pages", "publisher", "doi", "isbn", "issn", "retracted",
        "retraction", "doi_agency", "sources", "notices",
    }
)
_KNOWN_OPTIONS = frozenset(
    {"id", "title_case", "drop_subtitle", "initials", "max_authors", "year_offset", "omit_doi",
     "omit", "pages_style", "issue_style"}
)
OMITTABLE_FIELDS = frozenset({"container", "volume", "issue", "pages", "publisher", "issn",
                              "isbn", "editors"})
"""Fields a source may leave empty (``omit``) although the work has them and other
sources show them, as real records disagree."""
PAGES_STYLES = frozenset({"first", "abbreviated"})
"""``first``: only the first page ("737"); ``abbreviated``: the last page cut to the
digits that change ("1573-86")."""
ISSUE_STYLES = frozenset({"prefixed", "in_volume"})
"""``prefixed``: "no. 4"; ``in_volume``: no issue, the volume shown as "12(4)"."""
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_ISSN = re.compile(r"^\d{4}-\d{3}[\dX]$")
_ISBN = re.compile(r"^(\d{9}[\dX]|\d{13})$")
_TAG = re.compile(r"<[^>]+>")
_TOKEN = re.compile(r"[^\W_]+")
_SMALL_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "but", "by", "for", "in", "nor", "of", "on", "or",
     "the", "to", "with"}
)


class CorpusError(ValueError):
    """A corpus that cannot be read: ``line`` is the 1-based line at fault (None when the
    fault is not on one line), ``origin`` the file (or ``"<corpus>"``)."""

    def __init__(self, message: str, *, line: int | None = None, origin: str = "<corpus>") -> None:
        self.line = line
        self.origin = origin
        self.reason = message
        where = f"{origin}:{line}" if line is not None else origin
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class Person:
    """An author or editor: ``family`` and ``given`` for a person, ``literal`` alone for an
    organisation ("Open Science Collaboration")."""

    family: str | None = None
    given: str | None = None
    literal: str | None = None

    @property
    def display(self) -> str:
        """Name in reading order: "James D. Watson", or the literal name."""
        if self.literal:
            return self.literal
        return " ".join(p for p in (self.given, self.family) if p)


@dataclass(frozen=True, slots=True)
class Rendering:
    """How one source shows a work (the per-source object of ``"sources"``)."""

    source_id: str | None = None
    """The source's own id for the work (``"id"``, e.g. an OpenAlex ``W…``); derived when
    absent."""
    title_case: str | None = None
    """``lower``, ``upper``, ``title``, ``sentence`` or None (as in the corpus)."""
    drop_subtitle: bool = False
    initials: bool = False
    """Given names reduced to initials ("James Dewey" -> "J. D.")."""
    max_authors: int | None = None
    """Only the first ``max_authors`` authors are shown."""
    year_offset: int = 0
    """Added to the year (OpenAlex and Crossref often differ by one)."""
    omit_doi: bool = False
    """The source does not know the DOI: it is not shown and DOI lookups miss."""
    omit: frozenset[str] = frozenset()
    """Fields of :data:`OMITTABLE_FIELDS` the source leaves empty."""
    pages_style: str | None = None
    """One of :data:`PAGES_STYLES`, or None for the pages as in the corpus."""
    issue_style: str | None = None
    """One of :data:`ISSUE_STYLES`, or None for the issue as in the corpus."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Options this world does not know (kept for later worlds)."""


@dataclass(frozen=True, slots=True)
class Retraction:
    """The retraction notice of a retracted work, where the corpus gives it."""

    doi: str | None = None
    year: int | None = None
    source: str = "publisher"


NOTICE_KINDS = frozenset({"correction", "expression_of_concern"})
"""Update notices besides a retraction (which keeps its own ``retracted``/``retraction``
keys): an erratum or corrigendum, and an expression of concern."""


@dataclass(frozen=True, slots=True)
class Notice:
    """An update notice on a work other than a retraction (``notices`` in the corpus)."""

    kind: str
    """One of :data:`NOTICE_KINDS`."""
    doi: str | None = None
    year: int | None = None
    source: str = "publisher"


@dataclass(frozen=True, slots=True)
class Work:
    """One work as it really is (the ground truth the sources render)."""

    id: str
    type: str
    title: str
    subtitle: str | None = None
    authors: tuple[Person, ...] = ()
    year: int | None = None
    container: str | None = None
    editors: tuple[Person, ...] = ()
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    doi: str | None = None
    isbn: tuple[str, ...] = ()
    issn: tuple[str, ...] = ()
    retracted: bool = False
    retraction: Retraction | None = None
    doi_agency: str | None = None
    """Registration agency of the DOI; default ``crossref`` when Crossref holds the work."""
    notices: tuple[Notice, ...] = ()
    """Corrections and expressions of concern on the work, in the corpus's order."""
    sources: Mapping[str, Rendering] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Top-level keys this world does not know (kept for later worlds)."""
    line: int | None = None
    """The corpus line the work came from (for messages)."""

    @property
    def full_title(self) -> str:
        return f"{self.title}: {self.subtitle}" if self.subtitle else self.title

    @property
    def agency(self) -> str | None:
        """The DOI's registration agency, or None when the work has no DOI."""
        if self.doi is None:
            return None
        if self.doi_agency:
            return self.doi_agency
        return "crossref" if "crossref" in self.sources else None

    def rendered(self, source: str) -> RenderedWork | None:
        """The work as ``source`` shows it, or None when the source does not hold it."""
        options = self.sources.get(source)
        return None if options is None else render(self, source, options)


@dataclass(frozen=True, slots=True)
class RenderedWork:
    """A work as one source shows it: the fields rendering options change, plus the work
    itself for everything they do not."""

    work: Work
    source: str
    source_id: str
    title: str
    subtitle: str | None
    authors: tuple[Person, ...]
    year: int | None
    doi: str | None

    @property
    def full_title(self) -> str:
        return f"{self.title}: {self.subtitle}" if self.subtitle else self.title


class Hit(NamedTuple):
    """One search result: the record and its relevance (higher is better)."""

    record: RenderedWork
    score: float


@dataclass(frozen=True, slots=True)
class Clause:
    """One part of a query: ``text`` is matched against the union of ``fields`` (a subset
    of :data:`SEARCH_FIELDS`). ``match`` says how its words match:

    - ``"any"`` (default): any word (OR-of-terms, how engines read free text);
    - ``"all"``: every word, each in one of the fields (a default-AND query syntax);
    - ``"phrase"``: the words in order, adjacent, within one field (``ti:"..."``).

    A clause whose text has no word (only punctuation) matches nothing.
    """

    fields: frozenset[str]
    text: str
    match: str = "any"

    def __post_init__(self) -> None:
        unknown = self.fields - SEARCH_FIELDS
        if unknown or not self.fields:
            raise ValueError(f"unknown search fields {sorted(unknown)} (known: "
                             f"{sorted(SEARCH_FIELDS)})")
        if self.match not in MATCH_MODES:
            raise ValueError(f"unknown match {self.match!r} (known: {sorted(MATCH_MODES)})")


# ----------------------------------------------------------------------------- rendering


def tokens(text: str) -> list[str]:
    """Search tokens: markup stripped, accents folded, case-folded, split on non-letters."""
    text = unicodedata.normalize("NFKD", _TAG.sub(" ", text))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _TOKEN.findall(text.casefold())


def apply_case(text: str, case: str | None) -> str:
    if case is None:
        return text
    if case == "lower":
        return text.lower()
    if case == "upper":
        return text.upper()
    if case == "sentence":
        return text[:1].upper() + text[1:].lower()
    words = text.split(" ")
    out = []
    for i, word in enumerate(words):
        # Small words stay lower inside a title, as style guides (and publishers) do.
        if i and word.lower() in _SMALL_WORDS:
            out.append(word.lower())
        else:
            out.append(word[:1].upper() + word[1:])
    return " ".join(out)


def initials(given: str) -> str:
    """"James Dewey" -> "J. D.", "Jean-Paul" -> "J.-P.", "F. H. C." unchanged."""
    parts = []
    for name in given.split():
        pieces = [p for p in name.split("-") if p]
        parts.append("-".join(f"{p[0]}." for p in pieces))
    return " ".join(parts)


def render(work: Work, source: str, options: Rendering) -> RenderedWork:
    """Apply a source's rendering options to a work."""
    authors = work.authors
    if options.initials:
        authors = tuple(
            Person(p.family, initials(p.given), None) if p.given else p for p in authors
        )
    if options.max_authors is not None:
        authors = authors[: options.max_authors]
    subtitle = None if options.drop_subtitle else work.subtitle
    return RenderedWork(
        work=_as_shown(work, options),
        source=source,
        source_id=options.source_id or derived_id(source, work.id),
        title=apply_case(work.title, options.title_case),
        subtitle=apply_case(subtitle, options.title_case) if subtitle else None,
        authors=authors,
        year=None if work.year is None else work.year + options.year_offset,
        doi=None if options.omit_doi else work.doi,
    )


_PAGE_RANGE = re.compile(r"^(\d+)\s*[-–]\s*(\d+)$")


def _abbreviated(pages: str) -> str:
    match = _PAGE_RANGE.match(pages)
    if not match or len(match.group(1)) != len(match.group(2)):
        return pages
    first, last = match.groups()
    keep = next((i for i in range(len(first)) if first[i] != last[i]), len(last) - 1)
    return f"{first}-{last[keep:]}"


def _as_shown(work: Work, options: Rendering) -> Work:
    """The work with the fields this source leaves out emptied and its page and issue
    quirks applied; the work itself when the rendering has none (so every service,
    which reads the other fields from ``record.work``, shows the source's version)."""
    if not (options.omit or options.pages_style or options.issue_style):
        return work
    changes: dict[str, Any] = {}
    for name in options.omit:
        changes[name] = () if name in ("issn", "isbn", "editors") else None
    pages = changes.get("pages", work.pages)
    if pages and options.pages_style == "first":
        changes["pages"] = re.split(r"\s*[-–]\s*", pages)[0]
    elif pages and options.pages_style == "abbreviated":
        changes["pages"] = _abbreviated(pages)
    issue = changes.get("issue", work.issue)
    if issue and options.issue_style == "prefixed":
        changes["issue"] = f"no. {issue}"
    elif issue and options.issue_style == "in_volume":
        volume = changes.get("volume", work.volume)
        changes["issue"] = None
        if volume:
            changes["volume"] = f"{volume}({issue})"
    return replace(work, **changes)


def derived_id(source: str, work_id: str) -> str:
    """A stable source id for a work whose rendering gives none (10 digits from a hash,
    so ids survive reordering the corpus)."""
    digest = hashlib.sha256(f"{source}\0{work_id}".encode()).digest()
    return str(int.from_bytes(digest[:8], "big") % 10**10).rjust(10, "0")


# ----------------------------------------------------------------------------- search


class SourceView:
    """One source's view of the corpus: its records, DOI and id lookups, and search.

    Search is :class:`~verifier.world.search.SearchIndex` over the rendered records
    (title with subtitle as the source shows it, authors, editors, year, container,
    publisher), built once when the view is made: clauses are AND-ed, each ranked by
    bm25 with per-field weights. See :mod:`verifier.world.search` for what matches.
    """

    __slots__ = ("_by_doi", "_by_id", "_index", "name", "records")

    def __init__(self, name: str, records: Iterable[RenderedWork]) -> None:
        self.name = name
        self.records: tuple[RenderedWork, ...] = tuple(records)
        self._by_doi = {r.doi.lower(): r for r in self.records if r.doi}
        self._by_id = {r.source_id.lower(): r for r in self.records}
        self._index = SearchIndex(_document(r) for r in self.records) if self.records else None

    def __repr__(self) -> str:
        return f"SourceView({self.name!r}, {len(self.records)} records)"

    def __len__(self) -> int:
        return len(self.records)

    def by_doi(self, doi: str) -> RenderedWork | None:
        """The record with this DOI (case-insensitive), if the source knows the DOI."""
        return self._by_doi.get(doi.strip().lower())

    def by_source_id(self, source_id: str) -> RenderedWork | None:
        return self._by_id.get(source_id.strip().lower())

    def search(
        self,
        clauses: Sequence[Clause],
        where: Callable[[RenderedWork], bool] | None = None,
    ) -> list[Hit]:
        """Every record matching all ``clauses`` (and ``where``), best first; scores are
        positive, higher is better, comparable only within one result list.

        With no clauses every record passing ``where`` is returned, score 0, in corpus
        order. Ties are broken by corpus order, so results are deterministic.
        """
        if not clauses:
            return [Hit(r, 0.0) for r in self.records if where is None or where(r)]
        if self._index is None:
            return []
        ranked = self._index.search([_query(c) for c in clauses])
        hits = (Hit(self.records[i], score) for i, score in ranked)
        return [h for h in hits if where(h.record)] if where is not None else list(hits)

    async def asearch(
        self,
        clauses: Sequence[Clause],
        where: Callable[[RenderedWork], bool] | None = None,
    ) -> list[Hit]:
        """:meth:`search` in a worker thread, so a large search does not stall the event
        loop (and with it every other service's clock: rate limits are timed on arrival)."""
        return await asyncio.to_thread(self.search, clauses, where)


def _query(clause: Clause) -> Query:
    words = tokens(clause.text)
    # A repeated word adds nothing to OR/AND matching, but a phrase needs every word.
    unique = words if clause.match == "phrase" else list(dict.fromkeys(words))
    return Query(clause.fields, tuple(unique), clause.match)


def _people_text(people: Iterable[Person]) -> str:
    return " ".join(" ".join(tokens(" ".join(x for x in (p.given, p.family, p.literal) if x)))
                    for p in people)


def _document(record: RenderedWork) -> dict[str, str]:
    """A record's searchable text per field, as the source shows it, pre-tokenised so
    index and queries split words the same way."""
    work = record.work
    return {
        "title": " ".join(tokens(record.full_title)),
        "author": _people_text(record.authors),
        "editor": _people_text(work.editors),
        "year": str(record.year) if record.year is not None else "",
        "container": " ".join(tokens(work.container or "")),
        "publisher": " ".join(tokens(work.publisher or "")),
    }


# ----------------------------------------------------------------------------- corpus


class Corpus:
    """An immutable set of works with a :class:`SourceView` per source."""

    __slots__ = ("_by_id", "_views", "origin", "works")

    def __init__(self, works: Iterable[Work], *, origin: str = "<corpus>") -> None:
        self.origin = origin
        self.works: tuple[Work, ...] = tuple(works)
        self._by_id: dict[str, Work] = {}
        for work in self.works:
            first = self._by_id.get(work.id)
            if first is not None:
                raise CorpusError(
                    f"duplicate id {work.id!r} (first on line {first.line})",
                    line=work.line, origin=origin,
                )
            self._by_id[work.id] = work
        names = sorted({name for work in self.works for name in work.sources})
        self._views = {name: self._build_view(name) for name in names}

    @classmethod
    def load(cls, path: str | Path) -> Corpus:
        """Read a JSON Lines corpus file. Raises :class:`CorpusError` naming the line."""
        path = Path(path)
        with path.open(encoding="utf-8") as fh:
            return cls.from_lines(fh, origin=str(path))

    @classmethod
    def from_lines(cls, lines: Iterable[str], *, origin: str = "<corpus>") -> Corpus:
        """Parse JSON Lines (blank lines skipped). Raises :class:`CorpusError`."""
        works = []
        for number, line in enumerate(lines, start=1):
            if line.strip():
                works.append(parse_work(line, line_number=number, origin=origin))
        return cls(works, origin=origin)

    def __repr__(self) -> str:
        return f"Corpus({self.origin!r}, {len(self.works)} works, sources={sorted(self._views)})"

    def __len__(self) -> int:
        return len(self.works)

    def __iter__(self) -> Iterator[Work]:
        return iter(self.works)

    def get(self, work_id: str) -> Work:
        """The work with this corpus id (KeyError if none)."""
        return self._by_id[work_id]

    @property
    def source_names(self) -> tuple[str, ...]:
        """Names of the sources holding at least one work, sorted."""
        return tuple(self._views)

    def source(self, name: str) -> SourceView:
        """The view of source ``name`` (empty when no work is in it)."""
        view = self._views.get(name)
        return view if view is not None else SourceView(name, ())

    def find_doi(self, doi: str) -> Work | None:
        """The work with this DOI in any source or none (case-insensitive)."""
        wanted = doi.strip().lower()
        return next((w for w in self.works if w.doi and w.doi.lower() == wanted), None)

    def _build_view(self, name: str) -> SourceView:
        records = []
        for work in self.works:
            record = work.rendered(name)
            if record is not None:
                records.append(record)
        return SourceView(name, records)


# ----------------------------------------------------------------------------- parsing


class _Line:
    """Validation helpers bound to one line, so every message names it."""

    def __init__(self, number: int, origin: str) -> None:
        self.number = number
        self.origin = origin

    def fail(self, message: str) -> CorpusError:
        return CorpusError(message, line=self.number, origin=self.origin)

    def required(self, obj: Mapping[str, Any], key: str) -> str:
        value = self.text(obj, key)
        if value is None:
            raise self.fail(f"missing required field {key!r}")
        if not value.strip():
            raise self.fail(f"field {key!r} must not be empty")
        return value

    def text(self, obj: Mapping[str, Any], key: str, *, numeric: bool = False) -> str | None:
        value = obj.get(key)
        if value is None:
            return None
        if numeric and isinstance(value, int) and not isinstance(value, bool):
            return str(value)  # volume 171 and volume "171" mean the same
        if not isinstance(value, str):
            raise self.fail(f"field {key!r} must be a string, got {value!r}")
        return value

    def integer(self, obj: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
        value = obj.get(key, default)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(f"field {key!r} must be an integer, got {value!r}")
        return value

    def boolean(self, obj: Mapping[str, Any], key: str) -> bool:
        value = obj.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(f"field {key!r} must be true or false, got {value!r}")
        return value

    def strings(self, obj: Mapping[str, Any], key: str) -> list[str]:
        value = obj.get(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"field {key!r} must be a list of strings, got {value!r}")
        return value

    def people(self, obj: Mapping[str, Any], key: str) -> tuple[Person, ...]:
        value = obj.get(key) or []
        if not isinstance(value, list):
            raise self.fail(f"field {key!r} must be a list, got {value!r}")
        out = []
        for i, item in enumerate(value):
            where = f"{key}[{i}]"
            if not isinstance(item, dict):
                raise self.fail(f"{where} must be an object, got {item!r}")
            unknown = set(item) - {"family", "given", "literal"}
            if unknown:
                raise self.fail(f"{where} has unknown keys {sorted(unknown)}")
            family, given, literal = (item.get(k) for k in ("family", "given", "literal"))
            for k, v in (("family", family), ("given", given), ("literal", literal)):
                if v is not None and (not isinstance(v, str) or not v.strip()):
                    raise self.fail(f"{where}.{k} must be a non-empty string, got {v!r}")
            if literal is not None and (family is not None or given is not None):
                raise self.fail(f"{where} has both 'literal' and a personal name")
            if literal is None and family is None:
                raise self.fail(f"{where} needs 'family' (or 'literal' for an organisation)")
            out.append(Person(family, given, literal))
        return tuple(out)

    def rendering(self, source: str, value: Any) -> Rendering:
        where = f"sources.{source}"
        if not isinstance(value, dict):
            raise self.fail(f"{where} must be an object, got {value!r}")
        case = value.get("title_case")
        if case is not None and case not in TITLE_CASES:
            raise self.fail(f"{where}.title_case must be one of {sorted(TITLE_CASES)}, "
                            f"got {case!r}")
        max_authors = self.integer(value, "max_authors")
        if max_authors is not None and max_authors < 0:
            raise self.fail(f"{where}.max_authors must be >= 0, got {max_authors}")
        return Rendering(
            source_id=self.text(value, "id"),
            title_case=case,
            drop_subtitle=self.boolean(value, "drop_subtitle"),
            initials=self.boolean(value, "initials"),
            max_authors=max_authors,
            year_offset=self.integer(value, "year_offset", 0) or 0,
            omit_doi=self.boolean(value, "omit_doi"),
            omit=self._omit(where, value.get("omit")),
            pages_style=self._choice(where, value, "pages_style", PAGES_STYLES),
            issue_style=self._choice(where, value, "issue_style", ISSUE_STYLES),
            extra={k: v for k, v in value.items() if k not in _KNOWN_OPTIONS},
        )


    def _omit(self, where: str, value: Any) -> frozenset[str]:
        if value is None:
            return frozenset()
        if not isinstance(value, list) or not set(value) <= OMITTABLE_FIELDS:
            raise self.fail(f"{where}.omit must be a list of {sorted(OMITTABLE_FIELDS)}, "
                            f"got {value!r}")
        return frozenset(value)

    def _choice(self, where: str, value: Mapping[str, Any], key: str,
                allowed: frozenset[str]) -> str | None:
        choice = value.get(key)
        if choice is not None and choice not in allowed:
            raise self.fail(f"{where}.{key} must be one of {sorted(allowed)}, got {choice!r}")
        return None if choice is None else str(choice)


def parse_work(line: str, *, line_number: int, origin: str = "<corpus>") -> Work:
    """One corpus line as a :class:`Work`. Raises :class:`CorpusError` naming the line."""
    at = _Line(line_number, origin)
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise at.fail(f"not valid JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise at.fail(f"a work must be a JSON object, got {type(obj).__name__}")

    work_id = at.required(obj, "id")
    work_type = at.required(obj, "type")
    title = at.required(obj, "title")
    if work_type not in WORK_TYPES:
        raise at.fail(f"type {work_type!r} is not one of {sorted(WORK_TYPES)}")

    doi = at.text(obj, "doi")
    if doi is not None and not _DOI.match(doi):
        raise at.fail(f"doi {doi!r} is not a bare DOI (10.prefix/suffix)")
    isbn = [v.replace("-", "").replace(" ", "") for v in at.strings(obj, "isbn")]
    for value in isbn:
        if not _ISBN.match(value):
            raise at.fail(f"isbn {value!r} is not an ISBN-10 or ISBN-13")
    issn = at.strings(obj, "issn")
    for value in issn:
        if not _ISSN.match(value):
            raise at.fail(f"issn {value!r} is not of the form 1234-567X")

    retraction = None
    raw_retraction = obj.get("retraction")
    if raw_retraction is not None:
        if not isinstance(raw_retraction, dict):
            raise at.fail(f"field 'retraction' must be an object, got {raw_retraction!r}")
        retraction = Retraction(
            doi=at.text(raw_retraction, "doi"),
            year=at.integer(raw_retraction, "year"),
            source=at.text(raw_retraction, "source") or "publisher",
        )

    notices: list[Notice] = []
    raw_notices = obj.get("notices") or []
    if not isinstance(raw_notices, list):
        raise at.fail(f"field 'notices' must be a list, got {raw_notices!r}")
    for raw in raw_notices:
        if not isinstance(raw, dict) or raw.get("type") not in NOTICE_KINDS:
            raise at.fail(f"a notice must be an object with 'type' one of "
                          f"{sorted(NOTICE_KINDS)}, got {raw!r}")
        notices.append(Notice(kind=str(raw["type"]), doi=at.text(raw, "doi"),
                              year=at.integer(raw, "year"),
                              source=at.text(raw, "source") or "publisher"))

    raw_sources = obj.get("sources") or {}
    if not isinstance(raw_sources, dict):
        raise at.fail(f"field 'sources' must be an object, got {raw_sources!r}")
    sources = {name: at.rendering(name, value) for name, value in raw_sources.items()}
    for name in DOI_REQUIRED_SOURCES & sources.keys():
        if doi is None or sources[name].omit_doi:
            raise at.fail(f"{name} only holds works with a DOI: give 'doi' and do not "
                          f"set omit_doi for {name}")

    return Work(
        id=work_id,
        type=work_type,
        title=title,
        subtitle=at.text(obj, "subtitle"),
        authors=at.people(obj, "authors"),
        year=at.integer(obj, "year"),
        container=at.text(obj, "container"),
        editors=at.people(obj, "editors"),
        volume=at.text(obj, "volume", numeric=True),
        issue=at.text(obj, "issue", numeric=True),
        pages=at.text(obj, "pages"),
        publisher=at.text(obj, "publisher"),
        doi=doi,
        isbn=tuple(isbn),
        issn=tuple(issn),
        retracted=at.boolean(obj, "retracted"),
        retraction=retraction,
        doi_agency=at.text(obj, "doi_agency"),
        notices=tuple(notices),
        sources=sources,
        extra={k: v for k, v in obj.items() if k not in _KNOWN_WORK_KEYS},
        line=line_number,
    )
