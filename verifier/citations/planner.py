"""Which sources to ask about a citation, how, and in what order: tables, not code paths.

A plan has three tiers, each asked in order, only as many steps at a time as
independent matches are still needed, until the agreement rule holds:

1. **steps**: identifier lookups at the authorities (a cited DOI at Crossref and
   OpenAlex, a PMID at OpenAlex, an ISBN at Open Library, an arXiv id at arXiv), then
   bibliographic searches in an order chosen by the citation's type and field;
2. **if_none**: when the steps found the work nowhere, more places to look for it;
3. **fallback**: when some source found it but too few agree, where a second witness
   may be (the if_none sources not asked yet among them).

The tiers are how the plan spends the run's bottlenecks. Semantic Scholar and Google
Books allow one request a second (arXiv one per three), against Crossref's 150,
OpenAlex's 100, PubMed's 10 and DOAJ's 2 with keys: a scarce source is asked to confirm
what a cheaper one found, not to search for what nobody holds, except where it is the
likeliest holder left (Semantic Scholar for a book the cheap sources miss, Google Books
for chapters and reports).

A chapter is also checked as its book: :func:`book_plan` searches the book sources for
the container with its editors, and the report shows that check apart from the verdict.

New sources and rules are rows in the tables below, not branches in the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache

from .models import Citation, WorkType


class StepKind(Enum):
    LOOKUP = "lookup"
    SEARCH = "search"


@dataclass(frozen=True, slots=True)
class PlanStep:
    source: str
    kind: StepKind


IDENTIFIER_LOOKUPS: Mapping[str, tuple[str, ...]] = {
    # source: the identifiers it resolves directly. Order of this table = cost order:
    # free record lookups first, then services where a lookup is a search or two requests.
    "crossref": ("doi",),
    "openalex": ("doi", "pmid"),
    "openlibrary": ("isbn",),
    "semanticscholar": ("doi", "arxiv", "pmid"),
    "arxiv": ("arxiv",),
    "pubmed": ("pmid", "doi"),
    "googlebooks": ("isbn",),
    "doaj": ("doi",),
}

SECOND_WITNESS_LOOKUPS: frozenset[str] = frozenset(
    {"semanticscholar", "pubmed", "googlebooks", "doaj"})
"""Sources whose identifier lookups wait in the fallback: the authorities (Crossref and
OpenAlex for a DOI or PMID, Open Library for an ISBN, arXiv for its ids) answer first,
and an identifier neither resolves is not worth three more lookups. On W&W 22 invented
DOIs each cost three such lookups (22 at Semantic Scholar's 1 a second) and found
nothing."""

SEARCH_ORDER: Mapping[WorkType, tuple[str, ...]] = {
    # Books are thinly covered outside Open Library and Google Books; preprints live in
    # arXiv; articles in Crossref, OpenAlex and Semantic Scholar (PubMed is added for
    # biomedical citations and DOAJ for open-access journals, below). Google Books, 1
    # request a second and two for a miss, confirms a book (the fallback).
    WorkType.ARTICLE: ("crossref", "openalex"),
    WorkType.PROCEEDINGS: ("crossref", "openalex", "semanticscholar", "arxiv"),
    WorkType.PREPRINT: ("arxiv", "semanticscholar", "openalex", "crossref"),
    WorkType.BOOK: ("openlibrary", "openalex"),
    WorkType.CHAPTER: ("crossref", "openalex", "googlebooks"),
    WorkType.THESIS: ("openalex", "crossref", "openlibrary", "semanticscholar"),
    WorkType.REPORT: ("crossref", "openalex", "openlibrary", "googlebooks"),
    WorkType.WEB: ("crossref", "openalex", "openlibrary"),
    WorkType.OTHER: ("crossref", "openalex", "openlibrary"),
    WorkType.UNKNOWN: ("crossref", "openalex", "openlibrary"),
}

IF_NONE_ORDER: Mapping[WorkType, tuple[str, ...]] = {
    # Where else to look when the searches above found the work nowhere. Articles: the
    # generous PubMed (10 a second) and DOAJ (2 a second), not Semantic Scholar (1 a
    # second), so invented articles stay off the run's slowest queue; a work held by
    # PubMed or DOAJ and Semantic Scholar is still found through the first. Books:
    # Semantic Scholar, the likeliest holder left of a book the cheap sources miss.
    WorkType.ARTICLE: ("pubmed", "doaj"),
    WorkType.BOOK: ("semanticscholar",),
}

BOOK_CHECK_SOURCES: tuple[str, ...] = ("openlibrary", "crossref", "googlebooks")
"""Where a chapter's book is looked for (one witness is enough), Google Books last."""

class WordList:
    """Words found as whole words in any case. Each word is a regular-expression fragment
    that starts with a lower-case ASCII letter (``medic\\w*``, ``public health``).

    Searched cheaply: ASCII text (nearly every title) is lower-cased and searched by a
    case-sensitive pattern that groups the words by their first letter (``m(?:edic\\w*|
    olecular)``), so the regular-expression engine tries a letter's words only where a
    word starts with that letter. It finds a word exactly where the case-insensitive
    alternation of every word (:attr:`pattern`) finds one there (tested): only whether
    some word matches is asked, and grouping changes which alternative is tried first,
    never what can match. Other text is searched by :attr:`pattern` itself."""

    __slots__ = ("_any_case", "_lower")

    def __init__(self, words: Sequence[str]) -> None:
        for word in words:
            if not (word[:1].isascii() and word[:1].islower()):
                raise ValueError(f"a word must start with a lower-case ASCII letter: {word!r}")
        self._any_case = re.compile(r"\b(?:" + "|".join(words) + r")\b", re.I)
        by_letter: dict[str, list[str]] = {}
        for word in words:
            by_letter.setdefault(word[0], []).append(word[1:])
        groups = [letter + (rests[0] if len(rests) == 1 else "(?:" + "|".join(rests) + ")")
                  for letter, rests in by_letter.items()]
        self._lower = re.compile(r"\b(?:" + "|".join(groups) + r")\b")

    def found_in(self, text: str) -> bool:
        if text.isascii():
            return self._lower.search(text.lower()) is not None
        return self._any_case.search(text) is not None

    @property
    def pattern(self) -> re.Pattern[str]:
        """The case-insensitive alternation of the words (what :meth:`found_in` is
        equivalent to)."""
        return self._any_case


_BIOMEDICAL = WordList((
    r"medic\w*", r"clinic\w*", r"health\w*", r"nurs\w*", r"pharm\w*", "lancet", "bmj", "jama",
    "cell", "cancer", r"oncolog\w*", r"disease\w*", r"epidemiol\w*", r"patient\w*",
    r"therap\w*", r"surg\w*", r"psychiatr\w*", r"neuro\w*", r"genet\w*", r"genom\w*",
    r"biolog\w*", r"bioch\w*", r"immun\w*", r"infect\w*", r"vaccin\w*", r"cardio\w*",
    r"pediatr\w*", r"paediatr\w*", r"obstet\w*", r"diabet\w*", r"obes\w*", r"nutrition\w*",
    r"physiolog\w*", r"patholog\w*", r"virus\w*", "viral", r"bacteri\w*", "molecular",
    r"biomed\w*", "dental", r"dentist\w*", r"veterinar\w*", "public health", "plos", "nih",
    "mmwr",
    # PubMed indexes psychology and behavioural science too.
    r"psycholog\w*", r"behav\w*", r"cognit\w*", r"addict\w*", "sleep", r"gerontol\w*",
    r"adolesc\w*",
))

OPEN_ACCESS_DOI_PREFIXES: tuple[str, ...] = (
    # Publishers whose journals are all open access, so DOAJ is likely to hold them:
    # PLOS, Frontiers, MDPI, BMC, eLife, PeerJ, Hindawi, Copernicus, F1000, Cureus.
    "10.1371/", "10.3389/", "10.3390/", "10.1186/", "10.7554/", "10.7717/", "10.1155/",
    "10.5194/", "10.12688/", "10.7759/",
)
_OPEN_ACCESS_CONTAINERS = WordList((
    "plos", "frontiers in", "bmc", "elife", "peerj", "scientific reports",
    "nature communications", "sage open", "heliyon", "cureus", "f1000", "mdpi",
    "sustainability", "ieee access",
))


_ARXIV_FIELDS = WordList((
    r"physic\w*", "quantum", r"astro\w*", r"cosmolog\w*", r"galax\w*", r"particle\w*",
    "condensed", r"mathemat\w*", r"algebra\w*", r"topolog\w*", r"theorem\w*", "stochastic",
    r"probabilit\w*", r"statistic\w*", r"comput\w*", r"algorithm\w*", "neural", "learning",
    "machine", "artificial intelligence", r"robot\w*", r"network\w*", r"optimi[sz]\w*",
    r"graph\w*", "inference", "bayesian", r"language model\w*", "signal processing",
    "information theory", r"cryptograph\w*", r"econometric\w*", "ieee", "acm",
    "physical review", "annals of statistics", "neurips", "icml", "iclr", "jmlr",
))
"""Words of arXiv's fields (physics, mathematics, computer science, statistics,
electrical engineering, quantitative finance and economics) in a title or container."""

_ARTICLE_FALLBACK = ("semanticscholar", "pubmed", "doaj", "openalex", "crossref")
_BOOK_FALLBACK = ("semanticscholar", "openalex", "crossref", "googlebooks", "openlibrary")
FALLBACK_ORDER: Mapping[WorkType, tuple[str, ...]] = {
    # Sources worth asking for a second witness once one source has found the work:
    # those that may hold this kind of work although the main plan skipped them.
    WorkType.ARTICLE: _ARTICLE_FALLBACK,
    WorkType.UNKNOWN: _ARTICLE_FALLBACK + ("googlebooks", "openlibrary"),
    WorkType.OTHER: _ARTICLE_FALLBACK + ("googlebooks", "openlibrary"),
    WorkType.PROCEEDINGS: ("semanticscholar", "arxiv", "openalex", "crossref", "doaj"),
    WorkType.PREPRINT: ("semanticscholar", "arxiv", "openalex", "crossref"),
    WorkType.BOOK: ("googlebooks", "semanticscholar", "crossref"),
    WorkType.CHAPTER: _BOOK_FALLBACK,
    WorkType.REPORT: _BOOK_FALLBACK,
    WorkType.THESIS: _BOOK_FALLBACK,
    WorkType.WEB: _BOOK_FALLBACK,
}


@dataclass(frozen=True, slots=True)
class SourcePlan:
    steps: tuple[PlanStep, ...]
    """In order: lookups (cheapest first), then searches (best-suited, cheapest first)."""
    not_applicable: tuple[str, ...]
    """Enabled sources with no way to look for this citation."""
    fallback: tuple[PlanStep, ...] = ()
    """Lookups and searches run only when the steps found the work in some source but
    too few agree: where else a second witness may be, never spent on a citation nobody
    found."""
    if_none: tuple[PlanStep, ...] = ()
    """Searches run only when the steps found the work nowhere (their sources are in the
    fallback too, for the case where the steps found it once)."""


@dataclass(frozen=True, slots=True, eq=False)
class PlanTables:
    """Every table the planner reads, as one value: the defaults are the module's tables,
    and another value evaluates other tables with no code path of its own (``verifier
    bench plans`` replays W&W under each). Compared and hashed by identity (plans are
    kept per tables value); never change the mappings it holds."""

    searches: Mapping[WorkType, tuple[str, ...]] = field(default_factory=lambda: SEARCH_ORDER)
    if_none: Mapping[WorkType, tuple[str, ...]] = field(default_factory=lambda: IF_NONE_ORDER)
    fallback: Mapping[WorkType, tuple[str, ...]] = field(
        default_factory=lambda: FALLBACK_ORDER)
    second_witness_lookups: frozenset[str] = SECOND_WITNESS_LOOKUPS
    book_check: tuple[str, ...] = BOOK_CHECK_SOURCES


DEFAULT_TABLES = PlanTables()


def is_biomedical(citation: Citation) -> bool:
    """The citation looks biomedical or life-science (PubMed is worth asking)."""
    if citation.identifiers.pmid or citation.identifiers.pmcid:
        return True
    return _BIOMEDICAL.found_in(f"{citation.container} {citation.title}")


def is_likely_open_access(citation: Citation) -> bool:
    """The citation's journal is probably in DOAJ (an all-open-access publisher)."""
    doi = citation.identifiers.doi or ""
    return doi.startswith(OPEN_ACCESS_DOI_PREFIXES) or _OPEN_ACCESS_CONTAINERS.found_in(
        citation.container)


def in_arxiv_fields(citation: Citation) -> bool:
    """The citation's title or container is in arXiv's fields (arXiv is worth asking by
    title for a second witness)."""
    return _ARXIV_FIELDS.found_in(f"{citation.container} {citation.title}")


FALLBACK_EXTRA: tuple[tuple[str, frozenset[WorkType], str], ...] = (
    # (source, types, condition): sources the fallback adds beyond FALLBACK_ORDER, last in
    # cost order (arXiv allows one request per three seconds).
    ("arxiv", frozenset({WorkType.ARTICLE, WorkType.UNKNOWN, WorkType.OTHER,
                         WorkType.CHAPTER, WorkType.REPORT, WorkType.THESIS}), "arxiv_fields"),
    ("doaj", frozenset({WorkType.ARTICLE, WorkType.UNKNOWN, WorkType.OTHER}), "open_access"),
)

_IDENTIFIER_KINDS: tuple[str, ...] = tuple(
    dict.fromkeys(kind for kinds in IDENTIFIER_LOOKUPS.values() for kind in kinds))


@dataclass(frozen=True, slots=True)
class Traits:
    """What a citation's plan depends on besides the tables and the enabled sources:
    citations alike in these get the same plan, so plans are kept by them."""

    type: WorkType
    identifiers: frozenset[str]
    """The kinds of identifier it carries that some source looks up ("doi", "isbn", …)."""
    titled: bool
    biomedical: bool
    open_access: bool
    arxiv_fields: bool

    def __init__(
        self, type: WorkType, identifiers: frozenset[str], titled: bool, biomedical: bool,
        open_access: bool, arxiv_fields: bool,
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "identifiers", identifiers)
        object.__setattr__(self, "titled", titled)
        object.__setattr__(self, "biomedical", biomedical)
        object.__setattr__(self, "open_access", open_access)
        object.__setattr__(self, "arxiv_fields", arxiv_fields)


def _has_identifier(citation: Citation, kind: str) -> bool:
    value: object = getattr(citation.identifiers, kind, None)
    return bool(value)


def traits_of(citation: Citation) -> Traits:
    return Traits(
        type=citation.type,
        identifiers=frozenset(k for k in _IDENTIFIER_KINDS if _has_identifier(citation, k)),
        titled=bool(citation.title),
        biomedical=is_biomedical(citation),
        open_access=is_likely_open_access(citation),
        arxiv_fields=in_arxiv_fields(citation),
    )


_CONDITIONS: Mapping[str, Callable[[Traits], bool]] = {
    "arxiv_fields": lambda traits: traits.arxiv_fields,
    "open_access": lambda traits: traits.open_access,
}


def _fallback_order(traits: Traits, tables: PlanTables) -> tuple[str, ...]:
    """Every source worth asking for a second witness: the type's :data:`FALLBACK_ORDER`,
    then the :data:`FALLBACK_EXTRA` rows whose type and condition hold."""
    order = list(tables.fallback.get(traits.type, _ARTICLE_FALLBACK))
    order += [source for source, types, condition in FALLBACK_EXTRA
              if traits.type in types and _CONDITIONS[condition](traits)]
    return tuple(dict.fromkeys(order))


def _search_order(traits: Traits, tables: PlanTables) -> tuple[str, ...]:
    """The search sources for the citation's type, with PubMed and DOAJ added by field."""
    searches = tables.searches
    order = list(searches.get(traits.type, searches.get(WorkType.UNKNOWN, ())))
    article_like = traits.type in (WorkType.ARTICLE, WorkType.UNKNOWN, WorkType.OTHER)
    if traits.biomedical and traits.type not in (WorkType.BOOK, WorkType.WEB):
        order.insert(min(2, len(order)), "pubmed")  # right after Crossref and OpenAlex
    if article_like and traits.open_access:
        order.append("doaj")
    return tuple(dict.fromkeys(order))


def plan_sources(citation: Citation, enabled: Collection[str],
                 tables: PlanTables = DEFAULT_TABLES) -> SourcePlan:
    """The plan for ``citation`` over the ``enabled`` sources (the same value for every
    citation with the same :class:`Traits`: plans are kept, :data:`PLANS_KEPT` at most)."""
    return _plan(traits_of(citation), tuple(enabled), tables)


PLANS_KEPT = 1_024
"""Plans kept by (traits, enabled sources, tables), least recently used out: a few dozen
arise in practice (types × identifiers × fields)."""


@lru_cache(maxsize=PLANS_KEPT)
def _plan(traits: Traits, enabled: tuple[str, ...], tables: PlanTables) -> SourcePlan:
    lookups = [
        PlanStep(source, StepKind.LOOKUP)
        for source, kinds in IDENTIFIER_LOOKUPS.items()
        if source in enabled and any(k in traits.identifiers for k in kinds)
    ]
    later = tables.second_witness_lookups
    steps = [step for step in lookups if step.source not in later]
    fallback = [step for step in lookups if step.source in later]
    if_none: list[PlanStep] = []
    if traits.titled:
        steps += [
            PlanStep(source, StepKind.SEARCH)
            for source in _search_order(traits, tables)
            if source in enabled
        ]
        searched = {step.source for step in steps if step.kind is StepKind.SEARCH}
        if_none = [
            PlanStep(source, StepKind.SEARCH)
            for source in tables.if_none.get(traits.type, ())
            if source in enabled and source not in searched
        ]
        fallback += [
            PlanStep(source, StepKind.SEARCH)
            for source in dict.fromkeys((*_fallback_order(traits, tables),
                                         *(step.source for step in if_none)))
            if source in enabled and source not in searched
        ]
    planned = {step.source for step in (*steps, *fallback)}
    return SourcePlan(tuple(steps), tuple(s for s in enabled if s not in planned),
                      tuple(fallback), tuple(if_none))


def book_of(chapter: Citation) -> Citation | None:
    """The book a chapter citation names, as a citation of its own (None if it names
    none): the container as title, the editors as authors (the chapter's authors when no
    editors are given), same year and publisher."""
    if chapter.type is not WorkType.CHAPTER or not chapter.container:
        return None
    return replace(
        chapter,
        title=chapter.container,
        authors=chapter.editors or chapter.authors,
        editors=(),
        container="",
        pages="",
        volume="",
        issue="",
        type=WorkType.BOOK,
        identifiers=replace(chapter.identifiers, doi=None),
    )


def book_plan(book: Citation, enabled: Collection[str],
              tables: PlanTables = DEFAULT_TABLES) -> SourcePlan:
    """Where to look for a chapter's book: ISBN lookups, then book searches."""
    sources = [s for s in tables.book_check if s in enabled]
    steps = [
        PlanStep(s, StepKind.LOOKUP)
        for s in sources
        if any(_has_identifier(book, k) for k in IDENTIFIER_LOOKUPS.get(s, ()))
    ]
    steps += [PlanStep(s, StepKind.SEARCH) for s in sources]
    return SourcePlan(tuple(steps), ())
