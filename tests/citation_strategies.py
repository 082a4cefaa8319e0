"""Hypothesis strategies for citations, records and source results rich in near misses.

For the fast-path property tests (``tests/test_*_fast_paths.py``): shared main titles
and subtitles, leading articles, markup and LaTeX specials, capitals outside ASCII,
slips in family names, organisations and their acronyms, catalogue sources, author
lists reordered, cut short or extended, and years, venues, volumes and pages that back
or contradict a record.
"""

from __future__ import annotations

from hypothesis import strategies as st

from verifier.citations.models import (
    Author,
    Citation,
    Identifiers,
    SourceResult,
    SourceStatus,
    WorkRecord,
    WorkType,
)
from verifier.citations.normalize import split_title

MAINS = st.sampled_from([
    "Graphs, Maps, Trees", "The Boer War", "Stonehenge", "The need to belong",
    "The need to belong again", "Social capital in the creation of human capital",
    "Distinction", "Preventing suicide", "Effects of <i>p53</i> loss &amp; repair",
    "THE STRENGTH OF WEAK TIES", "A Study", "", "Costs & {benefits} of 50% R_0 ~ $x^2$ #1",
    "Éire and the ǅemal question", "DNA repair in  E. coli", "Über Bäume",
])
SUBS = st.sampled_from([
    "", "", "Abstract models for a literary history", "A global imperative",
    "The story so far", "A social critique of the judgement of taste", "New evidence",
    "an NHS case", "ÉTUDES",
])
SEPARATORS = st.sampled_from([": ", " - ", "? ", " — ", ":"])


@st.composite
def titles(draw: st.DrawFn) -> str:
    main, sub = draw(MAINS), draw(SUBS)
    title = f"{main}{draw(SEPARATORS)}{sub}" if sub else main
    case = draw(st.integers(0, 3))
    if case == 0:
        title = title.lower()
    elif case == 1:
        title = title.upper()
    if draw(st.integers(0, 5)) == 0:
        title = title[: draw(st.integers(0, len(title)))]
    return title


FAMILIES = st.sampled_from([
    "Granovetter", "Granoveter", "Grnaovetter", "Smith", "Smtih", "Li", "Lu", "Zhang",
    "Jun", "van der Berg", "Berg", "Parker Pearson", "Pearson", "Baumeister", "Leary",
    "Darvill", "Müller", "Mueller", "Chippindale", "O'Brien", "-", "",
])
GIVENS = st.sampled_from([
    "", "M. S.", "Mark", "J.", "John", "Mary", "Zhang", "R. F.", "Jun", "Jean-Paul", "JA",
])
LITERALS = st.sampled_from([
    "World Health Organization", "WHO", "Gregory the Great", "UNESCO", "Mark Granovetter",
    "Anonymous", "R&D {Group}",
])


@st.composite
def authors(draw: st.DrawFn) -> Author:
    if draw(st.integers(0, 6)) == 0:
        return Author(literal=draw(LITERALS))
    return Author(family=draw(FAMILIES), given=draw(GIVENS))


AUTHOR_LISTS = st.lists(authors(), max_size=4).map(tuple)
YEARS = st.one_of(st.none(), st.integers(1999, 2003))
VENUES = st.sampled_from([
    "", "Journal of Things", "J. Things", "Polity", "Routledge", "arXiv", "Nature & Co",
])
VOLUMES = st.sampled_from(["", "12", "Vol. 12", "13", "LIX"])
PAGES = st.sampled_from(["", "45-67", "pp. 45–7", "45", "46", "e24295", "45-69"])
SOURCES = ("crossref", "pubmed", "openalex", "semanticscholar", "openlibrary", "googlebooks")
TYPES = st.sampled_from(list(WorkType))
DOIS = st.sampled_from([None, "10.1000/ABC", "10.1000/abc", "10.48550/arXiv.2101.00001v2",
                        "10.1000/x{y} z"])


@st.composite
def citations(draw: st.DrawFn) -> Citation:
    return Citation(
        title=draw(titles()), authors=draw(AUTHOR_LISTS), et_al=draw(st.booleans()),
        year=draw(YEARS), container=draw(VENUES), publisher=draw(VENUES),
        volume=draw(VOLUMES), issue=draw(st.sampled_from(["", "3", "No. 3"])),
        pages=draw(PAGES), type=draw(TYPES),
        identifiers=Identifiers(doi=draw(DOIS)),
    )


@st.composite
def author_lists_like(draw: st.DrawFn, cited: tuple[Author, ...]) -> tuple[Author, ...]:
    """The cited list as a record may give it: as cited, reordered, cut short, extended,
    with given names written out, or another list."""
    how = draw(st.integers(0, 6))
    if how == 0:
        return cited
    if how == 1:
        return tuple(draw(st.permutations(cited)))
    if how == 2:
        return cited[: draw(st.integers(0, len(cited)))]
    if how == 3:
        return cited + draw(AUTHOR_LISTS)
    if how == 4:
        return tuple(Author(a.family, draw(GIVENS), a.literal) for a in cited)
    if how == 5:
        return tuple(draw(st.sampled_from([a, *_RELATED.get(a.family or a.literal, ())]))
                     for a in cited)
    return draw(AUTHOR_LISTS)


_RELATED: dict[str, tuple[Author, ...]] = {
    "Granovetter": (Author("Granoveter", "Mark"), Author("Grnaovetter", "M.")),
    "Granoveter": (Author("Granovetter", "M. S."),),
    "Smith": (Author("Smtih", "J."), Author("Smith", "Mary")),
    "Zhang": (Author("Jun", "Zhang"),),
    "Jun": (Author("Zhang", "J."),),
    "Berg": (Author("van der Berg", "J."),),
    "van der Berg": (Author("Berg", "J."),),
    "Müller": (Author("Mueller", "M."),),
    "Pearson": (Author("Parker Pearson", "M."),),
    "WHO": (Author(literal="World Health Organization"),),
    "World Health Organization": (Author(literal="WHO"),),
    "Mark Granovetter": (Author("Granovetter", "Mark"),),
}
"""Other forms of a name: a slip, particles, a compound, swapped family and given, an
acronym, the person split."""


@st.composite
def records_for(draw: st.DrawFn, citation: Citation) -> WorkRecord:
    """A record, often built on the citation (its title, its authors) to make matches."""
    title = draw(st.sampled_from([
        citation.title,
        draw(titles()),
        # The citation's main title with another subtitle, or none.
        f"{split_title(citation.title)[0]}{draw(SEPARATORS)}{draw(SUBS)}".rstrip(": "),
    ]))
    return WorkRecord(
        source=draw(st.sampled_from(SOURCES)), source_id=str(draw(st.integers(0, 9))), url="",
        title=title, authors=draw(author_lists_like(citation.authors)), year=draw(YEARS),
        container=draw(VENUES), publisher=draw(VENUES), volume=draw(VOLUMES),
        issue=draw(st.sampled_from(["", "3", "03", "4"])), pages=draw(PAGES),
        editors=draw(st.one_of(st.just(()), AUTHOR_LISTS)), type=draw(TYPES),
        identifiers=Identifiers(
            doi=draw(DOIS), isbn=draw(st.sampled_from([(), ("9780000000001",)])),
            issn=draw(st.sampled_from([(), ("1234-5678",)])),
            arxiv=draw(st.sampled_from([None, "2101.00001"])),
            pmid=draw(st.sampled_from([None, "123"])), url=draw(st.sampled_from([None, "u"])),
        ),
        retracted=draw(st.sampled_from([None, True, False])),
    )


@st.composite
def citation_and_records(draw: st.DrawFn) -> tuple[Citation, list[WorkRecord]]:
    citation = draw(citations())
    records = draw(st.lists(records_for(citation), max_size=7))
    if draw(st.booleans()) and records:
        records.append(records[draw(st.integers(0, len(records) - 1))])  # a duplicate
    return citation, records


STATUSES = st.sampled_from(list(SourceStatus))


@st.composite
def citation_and_results(draw: st.DrawFn) -> tuple[Citation, dict[str, SourceResult]]:
    """A citation and the sources' answers: matches with records, misses with or
    without one, failures."""
    citation = draw(citations())
    names = draw(st.lists(st.sampled_from(SOURCES), unique=True, max_size=len(SOURCES)))
    results: dict[str, SourceResult] = {}
    for name in names:
        status = draw(st.sampled_from([SourceStatus.MATCH] * 3 + list(SourceStatus)))
        record = draw(st.one_of(st.none(), records_for(citation))) \
            if status is not SourceStatus.MATCH else draw(records_for(citation))
        results[name] = SourceResult(status, record)
    return citation, results
