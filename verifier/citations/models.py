"""The data the engine reads, passes around and reports.

Every model is a frozen, slotted dataclass that ``orjson`` serialises directly
(``orjson.dumps(report)``), so the JSONL output is the models themselves, not a copy of
them kept in sync by hand. Enumerations are ``StrEnum`` so they serialise as their value.

Each model writes out the ``__init__`` the dataclass decorator would write (the fields in
order with their defaults, each set by ``object.__setattr__``; a default factory's field
defaults to :data:`_FACTORY`, shown as ``<factory>``, and gets a new value): the
decorator keeps an ``__init__`` the class defines. Compiled with mypyc (the module is in
``native-modules.txt``), each model is then a native class: that ``__init__`` fills the
object's C struct and compiled code reads a field straight from it, where the
decorator's ``__init__`` ran as Python and every field was read by name. Equality,
hashing, ``repr``, ``dataclasses.replace`` and ``fields`` and the frozen ``__setattr__``
stay the dataclass's own; ``__reduce__`` rebuilds a pickled model through its
``__init__``. ``tests/test_models_init.py`` holds every ``__init__`` to the stock one.

A model with an ``int`` or ``float`` field stays a plain class (``native_class=False``):
a native class keeps such a field unboxed and makes a new object each time it is read,
and ``orjson`` serialises a dataclass without a ``__dict__`` by reading each field and
dropping its reference at once, as if the object held one: a new float or large int
would be freed before it is written (tested). Its written-out ``__init__`` still runs
compiled.

The flow is::

    CitationInput --parse--> Citation --adapters--> WorkRecord(s)
        --matching--> SourceResult (one per source) --verdict--> Report
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from mypy_extensions import mypyc_attr

INPUT_ERROR_FLAG = "input_error"
"""Flag of a report whose input item could not be checked at all (its ``error`` says why)."""


class _Factory:
    """The default of a parameter filled by a default factory (shown as the stock
    dataclass ``__init__`` shows it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY: Any = _Factory()


def _reduced(value: Any) -> tuple[Any, ...]:
    """What ``pickle`` needs to make ``value`` again: its class and its fields in order
    (the ``__init__``'s parameters). A compiled frozen value is rebuilt by its
    ``__init__``; pickle's default would set its fields one by one, which a frozen class
    refuses."""
    return type(value), tuple(getattr(value, f.name) for f in dataclasses.fields(value))


class Status(StrEnum):
    """The verdict on one citation (see ``verifier.verdict``)."""

    VERIFIED = "verified"
    """At least two independent sources match the cited title and authorship."""
    UNCONFIRMED = "unconfirmed"
    """Exactly one source matches."""
    NO_TRACE = "no_trace"
    """Every applicable source answered and none matched. Never read as "fabricated"."""
    INCONCLUSIVE = "inconclusive"
    """No match, and at least one applicable source could not answer."""


class SourceStatus(StrEnum):
    """What one source said about one citation."""

    MATCH = "match"
    NO_MATCH = "no_match"
    NOT_APPLICABLE = "not_applicable"
    """The source has no way to look for this kind of citation."""
    SKIPPED = "skipped"
    """Not asked: disabled, missing a key, or not needed because the verdict was reached."""
    RATE_LIMITED = "rate_limited"
    TIMED_OUT = "timed_out"
    ERROR = "error"

    @property
    def answered(self) -> bool:
        """True when the source gave a usable answer (a match or a definite miss)."""
        return self in _ANSWERED

    @property
    def failed(self) -> bool:
        """True when the source could not be checked: never to be read as "not found"."""
        return self in _FAILED


# Sets, not tuples of ``SourceStatus.X``: reading an enum member off its class costs more
# than the whole test (these are read for every source of every citation).
_ANSWERED = frozenset({SourceStatus.MATCH, SourceStatus.NO_MATCH})
_FAILED = frozenset({SourceStatus.RATE_LIMITED, SourceStatus.TIMED_OUT, SourceStatus.ERROR})


class Retraction(StrEnum):
    RETRACTED = "retracted"
    CLEAN = "clean"
    UNKNOWN = "unknown"


class WorkType(StrEnum):
    ARTICLE = "article"
    BOOK = "book"
    CHAPTER = "chapter"
    PROCEEDINGS = "proceedings"
    THESIS = "thesis"
    REPORT = "report"
    WEB = "web"
    PREPRINT = "preprint"
    OTHER = "other"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Author:
    """One person or organisation. ``family`` is the surname, ``given`` the given names or
    initials as written; a corporate author has only ``literal``."""

    family: str = ""
    given: str = ""
    literal: str = ""

    def __init__(
        self, family: str = "", given: str = "", literal: str = "",
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "given", given)
        object.__setattr__(self, "literal", literal)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)

    @property
    def display(self) -> str:
        if self.literal:
            return self.literal
        return f"{self.family}, {self.given}" if self.given else self.family


@dataclass(frozen=True, slots=True)
class Identifiers:
    doi: str | None = None
    isbn: tuple[str, ...] = ()
    issn: tuple[str, ...] = ()
    arxiv: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    url: str | None = None

    def __init__(
        self, doi: str | None = None, isbn: tuple[str, ...] = (), issn: tuple[str, ...] = (),
        arxiv: str | None = None, pmid: str | None = None, pmcid: str | None = None,
        url: str | None = None,
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "doi", doi)
        object.__setattr__(self, "isbn", isbn)
        object.__setattr__(self, "issn", issn)
        object.__setattr__(self, "arxiv", arxiv)
        object.__setattr__(self, "pmid", pmid)
        object.__setattr__(self, "pmcid", pmcid)
        object.__setattr__(self, "url", url)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)

    def is_empty(self) -> bool:
        return not (self.doi or self.isbn or self.issn or self.arxiv or self.pmid or self.pmcid)


@dataclass(frozen=True, slots=True)
class Citation:
    """A citation as parsed from the text the user gave. Empty strings and ``None`` mean
    "not given", never "given as empty"."""

    authors: tuple[Author, ...] = ()
    et_al: bool = False
    """The cited author list ends in "et al." (it is truncated on purpose)."""
    year: int | None = None
    title: str = ""
    container: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    publisher: str = ""
    editors: tuple[Author, ...] = ()
    type: WorkType = WorkType.UNKNOWN
    identifiers: Identifiers = field(default_factory=Identifiers)
    place: str = ""
    """Place of publication ("London")."""
    edition: str = ""

    def __init__(
        self, authors: tuple[Author, ...] = (), et_al: bool = False, year: int | None = None,
        title: str = "", container: str = "", volume: str = "", issue: str = "", pages: str = "",
        publisher: str = "", editors: tuple[Author, ...] = (), type: WorkType = WorkType.UNKNOWN,
        identifiers: Identifiers | _Factory = _FACTORY, place: str = "", edition: str = "",
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "authors", authors)
        object.__setattr__(self, "et_al", et_al)
        object.__setattr__(self, "year", year)
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "container", container)
        object.__setattr__(self, "volume", volume)
        object.__setattr__(self, "issue", issue)
        object.__setattr__(self, "pages", pages)
        object.__setattr__(self, "publisher", publisher)
        object.__setattr__(self, "editors", editors)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "identifiers",
                           Identifiers() if isinstance(identifiers, _Factory) else identifiers)
        object.__setattr__(self, "place", place)
        object.__setattr__(self, "edition", edition)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)


@mypyc_attr(native_class=False)  # an int or float field: see the module docstring
@dataclass(frozen=True, slots=True)
class CitationInput:
    """One item of the input, before parsing: its id, position and text as given.

    ``fields`` carries structured fields when the input format had them (BibTeX, CSV ...);
    they take precedence over what is parsed from ``text``.
    """

    id: str
    index: int
    text: str
    fields: Citation | None = None
    notices: tuple[str, ...] = ()
    """Doubts the reader had about this item that did not stop it (a pasted line joined
    to or split from the entry above on a guess), in words, for the user to check."""
    key: str = ""
    """The citation key the input gave (a BibTeX key, a CSL ``id``), kept as the key of
    the corrected BibTeX entry; "" when the input gave none."""

    def __init__(
        self, id: str, index: int, text: str, fields: Citation | None = None,
        notices: tuple[str, ...] = (), key: str = "",
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "notices", notices)
        object.__setattr__(self, "key", key)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)


@dataclass(frozen=True, slots=True)
class WorkRecord:
    """A work as one source describes it."""

    source: str
    source_id: str
    url: str
    title: str
    authors: tuple[Author, ...] = ()
    year: int | None = None
    container: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    publisher: str = ""
    editors: tuple[Author, ...] = ()
    type: WorkType = WorkType.UNKNOWN
    identifiers: Identifiers = field(default_factory=Identifiers)
    retracted: bool | None = None
    """True or False only where the source carries retraction data; None otherwise."""
    notices: tuple[str, ...] = ()
    """Update notices the source attaches (e.g. "correction", "expression_of_concern")."""
    notice_for: str | None = None
    """Set when the record is itself a notice (retraction, correction ...) about another
    work: the kind of notice. A notice is never the cited work and never "retracted"."""
    open_access: bool | None = None

    def __init__(
        self, source: str, source_id: str, url: str, title: str, authors: tuple[Author, ...] = (),
        year: int | None = None, container: str = "", volume: str = "", issue: str = "",
        pages: str = "", publisher: str = "", editors: tuple[Author, ...] = (),
        type: WorkType = WorkType.UNKNOWN, identifiers: Identifiers | _Factory = _FACTORY,
        retracted: bool | None = None, notices: tuple[str, ...] = (),
        notice_for: str | None = None, open_access: bool | None = None,
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "source_id", source_id)
        object.__setattr__(self, "url", url)
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "authors", authors)
        object.__setattr__(self, "year", year)
        object.__setattr__(self, "container", container)
        object.__setattr__(self, "volume", volume)
        object.__setattr__(self, "issue", issue)
        object.__setattr__(self, "pages", pages)
        object.__setattr__(self, "publisher", publisher)
        object.__setattr__(self, "editors", editors)
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "identifiers",
                           Identifiers() if isinstance(identifiers, _Factory) else identifiers)
        object.__setattr__(self, "retracted", retracted)
        object.__setattr__(self, "notices", notices)
        object.__setattr__(self, "notice_for", notice_for)
        object.__setattr__(self, "open_access", open_access)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)


@mypyc_attr(native_class=False)  # an int or float field: see the module docstring
@dataclass(frozen=True, slots=True)
class MatchScores:
    """How well one record fits the citation. Similarities are in [0, 1]."""

    title: float
    authors: float
    """Share of the cited family names found in the record (1.0 when none were cited and
    the title match is exact enough to stand alone)."""
    year_delta: int | None
    """Record year minus cited year, or None when either is unknown."""
    title_match: bool
    authors_match: bool

    def __init__(
        self, title: float, authors: float, year_delta: int | None, title_match: bool,
        authors_match: bool,
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "authors", authors)
        object.__setattr__(self, "year_delta", year_delta)
        object.__setattr__(self, "title_match", title_match)
        object.__setattr__(self, "authors_match", authors_match)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)

    @property
    def is_match(self) -> bool:
        return self.title_match and self.authors_match


@mypyc_attr(native_class=False)  # an int or float field: see the module docstring
@dataclass(frozen=True, slots=True)
class SourceResult:
    """One source's answer for one citation: a value, never an exception."""

    status: SourceStatus
    record: WorkRecord | None = None
    """The best candidate the source returned (kept as evidence even when it is no match)."""
    scores: MatchScores | None = None
    requests: int = 0
    """Requests sent to the network for this citation (cache hits excluded)."""
    cached: bool = False
    """True when every answer came from the cache."""
    error: str | None = None
    reason: str | None = None
    """Why the source was skipped or not applicable, in words."""

    def __init__(
        self, status: SourceStatus, record: WorkRecord | None = None,
        scores: MatchScores | None = None, requests: int = 0, cached: bool = False,
        error: str | None = None, reason: str | None = None,
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "record", record)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "requests", requests)
        object.__setattr__(self, "cached", cached)
        object.__setattr__(self, "error", error)
        object.__setattr__(self, "reason", reason)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)


@dataclass(frozen=True, slots=True)
class Discrepancy:
    field: str
    cited: str
    found: str
    sources: tuple[str, ...]

    def __init__(
        self, field: str, cited: str, found: str, sources: tuple[str, ...],
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "field", field)
        object.__setattr__(self, "cited", cited)
        object.__setattr__(self, "found", found)
        object.__setattr__(self, "sources", sources)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)


class BookStatus(StrEnum):
    FOUND = "found"
    NOT_FOUND = "not_found"
    """Every book source asked answered, and none holds the book."""
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class BookCheck:
    """A chapter checked as its book: the cited container looked for, with its editors,
    in the book sources. Shown beside the verdict; the verdict itself is the chapter's."""

    status: BookStatus
    title: str
    agreeing_sources: tuple[str, ...]
    sources: dict[str, SourceResult]

    def __init__(
        self, status: BookStatus, title: str, agreeing_sources: tuple[str, ...],
        sources: dict[str, SourceResult],
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "agreeing_sources", agreeing_sources)
        object.__setattr__(self, "sources", sources)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)


@dataclass(frozen=True, slots=True)
class Correction:
    """The cited work as the agreeing sources describe it, ready to paste."""

    apa: str
    bibtex: str

    def __init__(
        self, apa: str, bibtex: str,
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "apa", apa)
        object.__setattr__(self, "bibtex", bibtex)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)


@mypyc_attr(native_class=False)  # an int or float field: see the module docstring
@dataclass(frozen=True, slots=True)
class Report:
    """The verdict on one citation: one JSON line of the output."""

    id: str
    index: int
    input: str
    citation: Citation
    status: Status
    retraction: Retraction
    flags: tuple[str, ...]
    discrepancies: tuple[Discrepancy, ...]
    corrected: WorkRecord | None
    agreeing_sources: tuple[str, ...]
    sources: dict[str, SourceResult]
    elapsed_s: float
    error: str | None = None
    """Set when the item itself could not be checked (unreadable input): a per-item error
    that does not stop the batch."""
    correction: Correction | None = None
    """The corrected citation (APA and BibTeX) of a work a source matched, else None."""
    book: BookCheck | None = None
    """For a chapter that is not verified, the check of the book it says it is in."""

    def __init__(
        self, id: str, index: int, input: str, citation: Citation, status: Status,
        retraction: Retraction, flags: tuple[str, ...], discrepancies: tuple[Discrepancy, ...],
        corrected: WorkRecord | None, agreeing_sources: tuple[str, ...],
        sources: dict[str, SourceResult], elapsed_s: float, error: str | None = None,
        correction: Correction | None = None, book: BookCheck | None = None,
    ) -> None:
        # The dataclass's own __init__, written out (see the module's docstring).
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "input", input)
        object.__setattr__(self, "citation", citation)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "retraction", retraction)
        object.__setattr__(self, "flags", flags)
        object.__setattr__(self, "discrepancies", discrepancies)
        object.__setattr__(self, "corrected", corrected)
        object.__setattr__(self, "agreeing_sources", agreeing_sources)
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "elapsed_s", elapsed_s)
        object.__setattr__(self, "error", error)
        object.__setattr__(self, "correction", correction)
        object.__setattr__(self, "book", book)

    def __reduce__(self) -> tuple[Any, ...]:
        return _reduced(self)

    def to_json(self) -> bytes:
        """This report as one JSON object (UTF-8 bytes, no newline): exactly a line of
        ``verifier check``'s output, keys in field order. ``orjson.loads`` reads it back."""
        return report_to_json(self)


def report_to_json(report: Report) -> bytes:
    """``report`` as one JSON object, UTF-8 bytes without a newline (:meth:`Report.to_json`):
    the output line of ``verifier check``; enums as their values, tuples as lists."""
    import orjson  # here: the value types stay importable without the JSON library

    return orjson.dumps(report)
