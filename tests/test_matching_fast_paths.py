"""The matching fast paths give exactly the slow paths' results (property-tested).

:func:`best_candidate` scores only the records that can still win (a bound from the
titles); the slow path scores every record and takes ``max``. :func:`title_similarity`
works from per-title forms; the slow path is the code before it had them.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier.citations import matching
from verifier.citations.matching import (
    best_candidate,
    score_record,
    title_similarity,
)
from verifier.citations.models import (
    Author,
    Citation,
    MatchScores,
    WorkRecord,
    WorkType,
)
from verifier.citations.normalize import split_title

# ---------------------------------------------------------------------------------------
# Slow paths (the code before the fast paths)


def slow_title_similarity(cited: str, found: str) -> float:
    comparable = matching._comparable
    a, b = comparable(cited), comparable(found)
    if not a or not b:
        return 0.0
    best = matching._ratio(a, b)
    cited_main, cited_sub = split_title(cited)
    found_main, found_sub = split_title(found)
    if cited_sub and not found_sub:
        best = max(best, matching._main_title_score(comparable(cited_main), b))
    elif found_sub and not cited_sub:
        best = max(best, matching._main_title_score(comparable(found_main), a))
    return best


def slow_best_candidate(
    citation: Citation, records: list[WorkRecord]
) -> tuple[WorkRecord, MatchScores] | None:
    scored = [(record, score_record(citation, record)) for record in records]
    if not scored:
        return None
    return max(scored, key=lambda pair: (pair[1].is_match, pair[1].title, pair[1].authors))


# ---------------------------------------------------------------------------------------
# Citations and records rich in near misses: shared main titles, subtitles, articles,
# slips in family names, organisations, catalogue sources, years and venues that back
# or contradict.

MAINS = st.sampled_from([
    "Graphs, Maps, Trees", "The Boer War", "Stonehenge", "The need to belong",
    "The need to belong again", "Social capital in the creation of human capital",
    "Distinction", "Preventing suicide", "Effects of <i>p53</i> loss &amp; repair",
    "THE STRENGTH OF WEAK TIES", "A Study", "",
])
SUBS = st.sampled_from([
    "", "", "Abstract models for a literary history", "A global imperative",
    "The story so far", "A social critique of the judgement of taste", "New evidence",
])
SEPARATORS = st.sampled_from([": ", " - ", "? ", " — ", ":"])


@st.composite
def titles(draw: st.DrawFn) -> str:
    main, sub = draw(MAINS), draw(SUBS)
    title = f"{main}{draw(SEPARATORS)}{sub}" if sub else main
    if draw(st.booleans()):
        title = title.lower()
    if draw(st.integers(0, 5)) == 0:
        title = title[: draw(st.integers(0, len(title)))]
    return title


FAMILIES = st.sampled_from([
    "Granovetter", "Granoveter", "Grnaovetter", "Smith", "Smtih", "Li", "Lu", "Zhang",
    "Jun", "van der Berg", "Berg", "Parker Pearson", "Pearson", "Baumeister", "Leary",
    "Darvill", "Müller", "Mueller", "Chippindale", "",
])
GIVENS = st.sampled_from(["", "M. S.", "Mark", "J.", "John", "Mary", "Zhang", "R. F.", "Jun"])
LITERALS = st.sampled_from([
    "World Health Organization", "WHO", "Gregory the Great", "UNESCO", "Mark Granovetter",
    "Anonymous",
])


@st.composite
def authors(draw: st.DrawFn) -> Author:
    if draw(st.integers(0, 6)) == 0:
        return Author(literal=draw(LITERALS))
    return Author(family=draw(FAMILIES), given=draw(GIVENS))


AUTHOR_LISTS = st.lists(authors(), max_size=4).map(tuple)
YEARS = st.one_of(st.none(), st.integers(1999, 2003))
VENUES = st.sampled_from(["", "Journal of Things", "J. Things", "Polity", "Routledge"])
SOURCES = st.sampled_from(["crossref", "openalex", "openlibrary", "googlebooks"])
TYPES = st.sampled_from([WorkType.UNKNOWN, WorkType.WEB, WorkType.BOOK, WorkType.ARTICLE])


@st.composite
def citations(draw: st.DrawFn) -> Citation:
    return Citation(
        title=draw(titles()), authors=draw(AUTHOR_LISTS), et_al=draw(st.booleans()),
        year=draw(YEARS), container=draw(VENUES), publisher=draw(VENUES),
        volume=draw(st.sampled_from(["", "12", "13"])),
        pages=draw(st.sampled_from(["", "45-67", "46"])), type=draw(TYPES),
    )


@st.composite
def records_for(draw: st.DrawFn, citation: Citation) -> WorkRecord:
    """A record, often built on the citation (its title, its authors) to make matches."""
    title = draw(st.sampled_from([
        citation.title,
        draw(titles()),
        # The citation's main title with another subtitle, or none.
        f"{split_title(citation.title)[0]}{draw(SEPARATORS)}{draw(SUBS)}".rstrip(": "),
    ]))
    listed = citation.authors if draw(st.booleans()) else draw(AUTHOR_LISTS)
    return WorkRecord(
        source=draw(SOURCES), source_id=str(draw(st.integers(0, 9))), url="", title=title,
        authors=listed, year=draw(YEARS), container=draw(VENUES), publisher=draw(VENUES),
        volume=draw(st.sampled_from(["", "12"])), pages=draw(st.sampled_from(["", "45"])),
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[Citation, list[WorkRecord]]:
    citation = draw(citations())
    records = draw(st.lists(records_for(citation), max_size=7))
    if draw(st.booleans()) and records:
        records.append(records[draw(st.integers(0, len(records) - 1))])  # a duplicate
    return citation, records


# ---------------------------------------------------------------------------------------
# The properties


@settings(max_examples=600)
@given(titles(), titles())
@example("Graphs, Maps, Trees", "Graphs, Maps, Trees: Abstract Models for a Literary History")
@example("The Boer War", "Boer War")
@example("", "Boer War")
def test_title_similarity_is_the_slow_paths(cited: str, found: str) -> None:
    assert title_similarity(cited, found) == slow_title_similarity(cited, found)


@settings(max_examples=1500)
@given(cases())
def test_best_candidate_is_the_max_over_all_scored_records(
    case: tuple[Citation, list[WorkRecord]],
) -> None:
    citation, records = case
    fast, slow = best_candidate(citation, records), slow_best_candidate(citation, records)
    if slow is None:
        assert fast is None
        return
    assert fast is not None
    assert fast[0] is slow[0]  # the very record, not only an equal one: ties keep order
    assert fast[1] == slow[1]


def test_best_candidate_keeps_the_earlier_of_two_equal_records() -> None:
    citation = Citation(title="The Boer War", authors=(Author("Pakenham", "T."),))
    first = WorkRecord("crossref", "1", "", "The Boer War", (Author("Pakenham", "Thomas"),))
    second = WorkRecord("crossref", "2", "", "The Boer War", (Author("Pakenham", "Thomas"),))
    near = WorkRecord("crossref", "0", "", "The Boer Wars", (Author("Pakenham", "Thomas"),))
    best = best_candidate(citation, [near, first, second])
    assert best is not None and best[0] is first


def test_a_shared_main_title_lifts_a_far_title_into_contention() -> None:
    # The whole titles are far apart, but the main titles agree and the authors do: the
    # bound must not drop the record that wins on its shared main title.
    citation = Citation(
        title="Graphs, Maps, Trees: Abstract Models for a Literary History",
        authors=(Author("Moretti", "F."),), year=2005, publisher="Verso",
    )
    shared = WorkRecord("openlibrary", "s", "", "Graphs, maps, trees: something else entirely",
                        (Author("Moretti", "Franco"),), year=2005, publisher="Verso")
    closer = WorkRecord("openlibrary", "c", "", "Graphs and Models for Literary History",
                        (Author("Other", "A."),), year=2005)
    assert title_similarity(citation.title, closer.title) > \
        title_similarity(citation.title, shared.title)
    best = best_candidate(citation, [closer, shared])
    assert best == slow_best_candidate(citation, [closer, shared])
    assert best is not None and best[0] is shared and best[1].is_match
