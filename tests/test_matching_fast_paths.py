"""The matching fast paths give exactly the slow paths' results (property-tested).

:func:`best_candidate` scores only the records that can still win (a bound from the
titles); the slow path scores every record and takes ``max``. :func:`title_similarity`
works from per-title forms; the slow path is the code before it had them.
:func:`same_author` is :func:`author_overlap` of two one-author lists. The authorship
verdict's shortcut for the same names in the same order gives what the overlap gives.
"""

from __future__ import annotations

import pytest
from citation_strategies import (
    AUTHOR_LISTS,
    author_lists_like,
    authors,
    citation_and_records,
    titles,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pure_modules import pure

from verifier.citations import matching
from verifier.citations.matching import (
    author_overlap,
    best_candidate,
    same_author,
    score_record,
    title_similarity,
)
from verifier.citations.models import Author, Citation, MatchScores, WorkRecord
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


def slow_person_verdict(citation: Citation, record: WorkRecord) -> tuple[float, bool]:
    """:func:`matching._authors_verdict` for a citation naming a person, before the
    in-order shortcut."""
    share, shared = matching._overlap_names(
        matching._named(citation.authors), matching._named(record.authors),
        catalogue=record.source in matching.CATALOGUE_SOURCES)
    return share, shared >= 1 and share >= matching.AUTHOR_THRESHOLD


# ---------------------------------------------------------------------------------------
# The properties


@settings(max_examples=600)
@given(titles(), titles())
@example("Graphs, Maps, Trees", "Graphs, Maps, Trees: Abstract Models for a Literary History")
@example("The Boer War", "Boer War")
@example("", "Boer War")
def test_title_similarity_is_the_slow_paths(cited: str, found: str) -> None:
    assert title_similarity(cited, found) == slow_title_similarity(cited, found)


@settings(max_examples=300, deadline=None)
@given(citation_and_records())
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


@settings(max_examples=800)
@given(authors(), authors())
@example(Author("Smith", "J."), Author("Smith", "Mary"))
@example(Author(literal="WHO"), Author(literal="World Health Organization"))
@example(Author("Zhang", "Jun"), Author("Jun", "Zhang"))
@example(Author("Granoveter", "M."), Author("Granovetter", "Mark"))
@example(Author(), Author("Smith"))
def test_same_author_is_the_overlap_of_two_one_author_lists(cited: Author, found: Author
                                                            ) -> None:
    assert same_author(cited, found) is (author_overlap((cited,), (found,), et_al=False) == 1.0)


@st.composite
def cited_and_listed(draw: st.DrawFn) -> tuple[tuple[Author, ...], tuple[Author, ...]]:
    cited = draw(AUTHOR_LISTS.filter(lambda a: any(x.family for x in a)))
    return cited, draw(author_lists_like(cited))


@settings(max_examples=1000)
@given(cited_and_listed(), st.sampled_from(["crossref", "openlibrary"]))
@example(((Author("Smith", "J."), Author("Smith", "John")),
          (Author("Smith", "John"), Author("Smith", "J."))), "crossref")
@example(((Author("-", "J."),), (Author("-", "J."),)), "crossref")
@example(((Author("Smith", "J."), Author(literal="WHO")),
          (Author("Smith", "Jo"), Author(literal="World Health Organization"))), "crossref")
def test_the_authors_verdict_for_names_in_order_is_the_overlaps(
    lists: tuple[tuple[Author, ...], tuple[Author, ...]], source: str
) -> None:
    cited, found = lists
    citation = Citation(authors=cited, title="A title")
    record = WorkRecord(source=source, source_id="1", url="", title="A title", authors=found)
    assert matching._authors_verdict(citation, record, 1.0) == \
        slow_person_verdict(citation, record)


def test_a_perfect_first_record_is_taken_without_scoring_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    citation = Citation(title="The Boer War", authors=(Author("Pakenham", "T."),))
    first = WorkRecord("crossref", "1", "", "The Boer War", (Author("Pakenham", "Thomas"),))
    twin = WorkRecord("crossref", "2", "", "The Boer War", (Author("Pakenham", "Thomas"),))
    other = WorkRecord("crossref", "3", "", "The Boer War", (Author("Smith", "J."),))
    matching = pure("verifier.citations.matching")  # its own call to _scored, watched
    best_candidate = matching.best_candidate
    scored: list[WorkRecord] = []
    real = matching._scored

    def counting(citation: Citation, record: WorkRecord, title: float) -> MatchScores:
        scored.append(record)
        scores: MatchScores = real(citation, record, title)
        return scores

    monkeypatch.setattr(matching, "_scored", counting)
    best = best_candidate(citation, [first, twin, other])
    assert best is not None and best[0] is first
    assert best[1].title == 1.0 and best[1].authors == 1.0 and best[1].is_match
    assert scored == [first]
    # A first record that is not perfect leaves the others to be scored.
    scored.clear()
    best = best_candidate(citation, [other, first, twin])
    assert best is not None and best[0] is first
    assert scored[0] is other and first in scored
