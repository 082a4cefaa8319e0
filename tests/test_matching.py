from __future__ import annotations

from dataclasses import replace

import pytest

from verifier.citations.matching import (
    STANDALONE_TITLE,
    TITLE_THRESHOLD,
    author_overlap,
    best_candidate,
    is_title_by_other_authors,
    score_record,
    title_similarity,
)
from verifier.citations.models import Author, Citation, WorkRecord, WorkType
from verifier.citations.parsing import parse_citation


def person(family: str, given: str = "") -> Author:
    return Author(family=family, given=given)


def record(
    title: str, *authors: Author, year: int | None = None, source_id: str = "r"
) -> WorkRecord:
    return WorkRecord(
        source="test", source_id=source_id, url="", title=title, authors=authors, year=year
    )


# ---------------------------------------------------------------------------------------
# Titles


@pytest.mark.parametrize(
    ("cited", "found"),
    [
        (
            "THE NEED TO BELONG: desire for interpersonal attachments",
            "The need to belong: Desire for interpersonal attachments.",
        ),
        ("Effects of <i>p53</i> loss &amp; repair", "Effects of p53 loss and repair"),
        ("Krahé’s study of Möller’s data", "Krahe's Study of Moller's Data"),
        ("The Boer War", "Boer War"),
        ("Self-efficacy: toward a unifying theory", "Self efficacy - toward a unifying theory"),
    ],
)
def test_title_variants_that_are_the_same_title(cited: str, found: str) -> None:
    assert title_similarity(cited, found) == 1.0


def test_missing_subtitle_matches_when_the_main_title_is_long_enough() -> None:
    score = title_similarity(
        "Graphs, Maps, Trees", "Graphs, Maps, Trees: Abstract Models for a Literary History"
    )
    assert TITLE_THRESHOLD <= score < 1.0
    # Symmetric: an extra subtitle on the citation's side.
    assert title_similarity(
        "Graphs, Maps, Trees: Abstract Models for a Literary History", "Graphs, Maps, Trees"
    ) == pytest.approx(score)


@pytest.mark.parametrize(
    ("cited", "found"),
    [
        # A one-word or three-short-word main title names many books.
        ("Stonehenge", "Stonehenge: The Story So Far"),
        ("The Boer War", "The Boer War: A History"),
        ("Self-efficacy", "Self-efficacy: The exercise of control"),
        # Same main title, different subtitles: different books.
        ("Stonehenge: A New Understanding", "Stonehenge: The Story So Far"),
        (
            "The impact of fans' behavior on the outcome of a football game: A regression analysis",
            "The impact of fans' behavior on the outcome of a football game: An experimental study",
        ),
    ],
)
def test_titles_that_are_not_the_same_work(cited: str, found: str) -> None:
    assert title_similarity(cited, found) < TITLE_THRESHOLD


def test_title_similarity_edges() -> None:
    assert title_similarity("", "Anything") == 0.0
    assert title_similarity("???", "Anything") == 0.0
    assert 0.0 < title_similarity("Minimum Wages", "Minimum Wage") < 1.0


# ---------------------------------------------------------------------------------------
# Authors


def test_author_overlap_is_order_insensitive_and_initials_tolerant() -> None:
    cited = [person("Smith", "J."), person("Jones", "A. B.")]
    found = [person("Jones", "Alice"), person("Smith", "John")]
    assert author_overlap(cited, found, et_al=False) == 1.0


def test_conflicting_initials_do_not_pair() -> None:
    assert author_overlap([person("Smith", "J.")], [person("Smith", "Mary")], et_al=False) == 0.0
    # A middle name in use is not a conflict.
    assert author_overlap([person("Smith", "J. A.")], [person("Smith", "Alan")], et_al=False) == 1.0
    # No given name on one side: nothing to conflict with.
    assert author_overlap([person("Smith")], [person("Smith", "Mary")], et_al=False) == 1.0


@pytest.mark.parametrize(
    ("cited", "found"),
    [
        (person("van Engen", "M. L."), person("Engen", "Marloes L.")),
        (person("Van der Meijden", "W. P."), person("van der Meijden", "Wisse")),
        (person("Parker Pearson", "M."), person("Pearson", "Mike Parker")),
        (person("Darling-Hammond", "L."), person("Darling Hammond", "Linda")),
        (person("Krahé", "B."), person("Krahe", "Barbara")),
        (person("O'Rourke", "K. H."), person("O’Rourke", "Kevin H.")),
        (person("Zhang", "J."), person("Jun", "Zhang")),  # family and given swapped
    ],
)
def test_name_forms_that_are_the_same_person(cited: Author, found: Author) -> None:
    assert author_overlap([cited], [found], et_al=False) == 1.0


def test_different_people_do_not_pair() -> None:
    assert author_overlap([person("Berg", "J.")], [person("Bergman", "J.")], et_al=False) == 0.0
    assert (
        author_overlap([person("Darvill", "T.")], [person("Chippindale", "C.")], et_al=False) == 0
    )


def test_partial_overlap_is_the_share_of_cited_authors() -> None:
    cited = [person("Smith", "J."), person("Jones", "A."), person("Brown", "K.")]
    found = [
        person("Smith", "John"),
        person("Jones", "Ann"),
        person("Green", "P."),
        person("Li", "X."),
    ]
    assert author_overlap(cited, found, et_al=False) == pytest.approx(2 / 3)


def test_truncated_record_is_judged_on_the_names_it_shows() -> None:
    cited = [
        person("Wich", "S. A."),
        person("Utami Atmoko", "S. S."),
        person("van Schaik", "C. P."),
    ]
    assert author_overlap(cited, [person("Wich", "Serge A.")], et_al=False) == 1.0
    assert author_overlap(cited, [person("Someone", "E.")], et_al=False) == 0.0


def test_et_al_citation_against_a_long_author_list() -> None:
    found = [person(name, "X.") for name in ("Smith", "Jones", "Brown", "Green", "White")]
    assert author_overlap([person("Smith", "X.")], found, et_al=True) == 1.0
    assert author_overlap([person("Black", "X.")], found, et_al=True) == 0.0


def test_each_record_author_pairs_once() -> None:
    cited = [person("Kim", "Y."), person("Kim", "Y.")]
    assert author_overlap(cited, [person("Kim", "Y."), person("Lee", "J.")], et_al=False) == 0.5
    assert author_overlap(cited, [person("Kim", "Y."), person("Kim", "Yun")], et_al=False) == 1.0


def test_corporate_authors_compare_by_name_and_acronym() -> None:
    who = [Author(literal="World Health Organization")]
    assert author_overlap(who, [Author(literal="World Health Organisation")], et_al=False) == 1.0
    assert author_overlap(who, [Author(literal="WHO")], et_al=False) == 1.0
    assert author_overlap(who, [Author(literal="World Bank")], et_al=False) == 0.0


def test_empty_lists() -> None:
    assert author_overlap([], [person("Smith")], et_al=False) == 0.0
    assert author_overlap([person("Smith")], [], et_al=False) == 0.0


# ---------------------------------------------------------------------------------------
# One record against one citation


DARVILL = parse_citation(
    "Darvill, T., & Wainwright, G. (2009). Stonehenge: The Story So Far. English Heritage."
)


def test_same_title_entirely_different_authors_is_flagged_not_matched() -> None:
    # Walters & Wilder: "There's a book with this title, but the author(s) are entirely
    # different."
    found = record("Stonehenge: The Story So Far", person("Chippindale", "Christopher"), year=2004)
    scores = score_record(DARVILL, found)
    assert scores.title_match
    assert not scores.authors_match
    assert scores.authors == 0.0
    assert not scores.is_match
    assert is_title_by_other_authors(scores, DARVILL, found)
    assert is_title_by_other_authors(scores)


def test_partial_author_overlap_on_the_title_is_a_match() -> None:
    cited = parse_citation(
        "Eagly, A. H., Johannesen-Schmidt, M. C., & Smith, P. (2003). Transformational, "
        "transactional, and laissez-faire leadership styles. Psychological Bulletin, 129(4), "
        "569-591."
    )
    found = record(
        "Transformational, transactional, and laissez-faire leadership styles",
        person("Eagly", "Alice H."),
        person("Johannesen-Schmidt", "Mary C."),
        person("van Engen", "Marloes L."),
        year=2003,
    )
    scores = score_record(cited, found)
    assert scores.is_match
    assert scores.authors == pytest.approx(2 / 3)
    assert scores.year_delta == 0
    assert not is_title_by_other_authors(scores, cited, found)


def test_one_of_three_authors_is_not_enough_but_is_not_other_authors() -> None:
    cited = Citation(
        title="A study of things",
        authors=(person("Smith", "J."), person("Jones", "A."), person("Brown", "K.")),
    )
    found = record(
        "A study of things", person("Smith", "J."), person("Green", "P."), person("White", "Q.")
    )
    scores = score_record(cited, found)
    assert scores.title_match and not scores.authors_match
    assert not is_title_by_other_authors(scores, cited, found)


def test_year_off_by_one_is_still_a_match_with_a_delta() -> None:
    cited = parse_citation("Pakenham, T. (1991). The Boer War. New York: Random House.")
    found = record("The Boer War", person("Pakenham", "Thomas"), year=1992)
    scores = score_record(cited, found)
    assert scores.is_match
    assert scores.year_delta == 1
    far = score_record(cited, record("The Boer War", person("Pakenham", "Thomas"), year=1979))
    assert far.is_match
    assert far.year_delta == -12


def test_unknown_year_gives_no_delta() -> None:
    cited = Citation(title="The Boer War", authors=(person("Pakenham", "T."),))
    scores = score_record(cited, record("The Boer War", person("Pakenham", "Thomas"), year=1979))
    assert scores.year_delta is None
    assert scores.is_match


def test_citation_without_authors_matches_a_record_without_authors() -> None:
    cited = Citation(title="National School Lunch Program", type=WorkType.WEB)
    scores = score_record(cited, record("National School Lunch Program"))
    assert scores.is_match
    assert scores.authors == 1.0


def test_citation_without_authors_needs_a_near_exact_title_against_named_authors() -> None:
    web = Citation(title="Preventing suicide: A global imperative", type=WorkType.WEB)
    exact = score_record(web, record("Preventing Suicide: A Global Imperative", person("Smith")))
    assert exact.is_match
    assert exact.authors == 1.0
    close = record("Preventing suicide: a global imperatives review", person("Smith"))
    assert TITLE_THRESHOLD <= score_record(web, close).title < STANDALONE_TITLE
    assert not score_record(web, close).is_match
    # An article cited without authors does not stand on its title alone.
    article = Citation(title="Preventing suicide: A global imperative", type=WorkType.ARTICLE)
    scores = score_record(
        article, record("Preventing suicide: A global imperative", person("Smith"))
    )
    assert not scores.is_match
    # ... and it is not "other authors" either: nobody was cited.
    assert not is_title_by_other_authors(scores, article)


def test_corporate_citation() -> None:
    cited = parse_citation(
        "World Health Organization. (2014). Preventing suicide: A global imperative. "
        "World Health Organization."
    )
    same_org = record("Preventing suicide: a global imperative", Author(literal="WHO"))
    assert score_record(cited, same_org).is_match
    by_editors = record("Preventing suicide: a global imperative", person("Saxena", "S."))
    assert score_record(cited, by_editors).is_match
    other_title = record("Preventing suicide: a global review", person("Saxena", "S."))
    assert not score_record(cited, other_title).is_match


def test_record_without_authors_cannot_confirm_cited_people() -> None:
    found = record("Stonehenge: The Story So Far")
    scores = score_record(DARVILL, found)
    assert scores.title_match and not scores.authors_match
    assert not is_title_by_other_authors(scores, DARVILL, found)


# ---------------------------------------------------------------------------------------
# Choosing among records


def test_best_candidate_prefers_a_full_match_to_a_closer_title() -> None:
    cited = Citation(
        title="The need to belong: desire for interpersonal attachments",
        authors=(person("Baumeister", "R. F."), person("Leary", "M. R.")),
    )
    exact_title_wrong_authors = record(
        "The need to belong: desire for interpersonal attachments",
        person("Someone", "E."),
        source_id="wrong",
    )
    near_title_right_authors = record(
        "The need to belong: desire for interpersonal attachment",
        person("Baumeister", "Roy F."),
        person("Leary", "Mark R."),
        source_id="right",
    )
    best = best_candidate(cited, [exact_title_wrong_authors, near_title_right_authors])
    assert best is not None
    assert best[0].source_id == "right"
    assert best[1].is_match


def test_best_candidate_without_match_takes_the_closest_title_then_authors() -> None:
    cited = Citation(title="Stonehenge: The Story So Far", authors=(person("Darvill", "T."),))
    candidates = [
        record("Stonehenge Decoded", person("Hawkins"), source_id="far"),
        record("Stonehenge: The Story So Far", person("Chippindale"), source_id="title"),
        record("Stonehenge: A Story", person("Darvill"), source_id="author"),
    ]
    best = best_candidate(cited, candidates)
    assert best is not None
    assert best[0].source_id == "title"
    assert is_title_by_other_authors(best[1], cited, best[0])
    tie = best_candidate(cited, [candidates[1], record(candidates[1].title, source_id="second")])
    assert tie is not None
    assert tie[0].source_id == "title"


def test_best_candidate_of_nothing() -> None:
    assert best_candidate(DARVILL, []) is None


def test_one_typing_slip_in_a_long_family_name_still_pairs() -> None:
    cited = [Author(family="Granoveter", given="M. S.")]
    found = [Author(family="Granovetter", given="Mark")]
    assert author_overlap(cited, found, et_al=False) == 1.0


def test_short_family_names_one_letter_apart_are_different_people() -> None:
    cited = [Author(family="Li", given="J.")]
    found = [Author(family="Lu", given="J.")]
    assert author_overlap(cited, found, et_al=False) == 0.0


def test_a_slip_does_not_pair_names_with_conflicting_initials() -> None:
    cited = [Author(family="Granoveter", given="J.")]
    found = [Author(family="Granovetter", given="Mark")]
    assert author_overlap(cited, found, et_al=False) == 0.0


def test_a_catalogue_record_without_the_subtitle_matches_when_the_authors_agree() -> None:
    cited = Citation(title="Settler Capitalism: The Dynamics of Dependent Development",
                     authors=(Author(family="Denoon", given="D."),), year=1983)
    same = WorkRecord(source="googlebooks", source_id="x", url="", title="Settler Capitalism",
                      authors=(Author(family="Denoon", given="Donald"),), year=1983)
    other = WorkRecord(source="googlebooks", source_id="y", url="", title="Settler Capitalism",
                       authors=(Author(family="Smith", given="A."),), year=1983)
    assert score_record(cited, same).is_match
    assert not score_record(cited, other).is_match
    # Another subtitle on a main title of two words is another work (a scholar's other
    # book on the subject); on a main title of three words or more by the same authors it
    # is the same work with a garbled subtitle; by other authors it never is.
    renamed = WorkRecord(source="googlebooks", source_id="z", url="",
                         title="Settler Capitalism: A History",
                         authors=(Author(family="Denoon", given="Donald"),), year=1983)
    assert not score_record(cited, renamed).is_match
    longer = Citation(title="Type D personality and burnout: The mediating effects of coping",
                      authors=cited.authors, year=1983, container="Health Psychology")
    garbled = replace(renamed, title="Type D personality and burnout: The role of support",
                      container="Health Psychology")
    assert score_record(longer, garbled).is_match  # year and journal back it up
    assert not score_record(longer, replace(garbled, container="Other Journal")).is_match
    assert not score_record(longer, replace(garbled, authors=other.authors)).is_match
    # A one-word main title never stands for the work alone.
    one_word = Citation(title="Flaubert: A Life", authors=cited.authors)
    assert not score_record(one_word, replace(same, title="Flaubert")).is_match
    # Without any subtitle on either side, a different title stays different.
    plain = Citation(title="Settler Capitalism", authors=cited.authors)
    assert not score_record(plain, replace(same, title="Settler Colonialism")).is_match


def test_same_family_names_with_other_initials_on_the_same_title_is_the_same_work() -> None:
    cited = Citation(title="Strategy: A History", authors=(Author(family="Freedman", given="D."),))
    record = WorkRecord(source="openlibrary", source_id="x", url="", title="Strategy: A History",
                        authors=(Author(family="Freedman", given="Lawrence"),))
    assert score_record(cited, record).is_match
    near = WorkRecord(source="openlibrary", source_id="y", url="",
                      title="Strategy: A Short History",
                      authors=(Author(family="Freedman", given="Lawrence"),))
    assert not score_record(cited, near).authors_match  # only on an all-but-identical title


def test_a_near_title_by_the_same_author_needs_the_reference_to_back_it_up() -> None:
    """The same scholar's other paper on the subject: a near title, another year and
    journal. Crossref's validated matching asks for more signals than title and author."""
    cited = Citation(title="The future of drone warfare", authors=(Author(family="Woolf"),),
                     year=2012, container="Survival", volume="54", pages="105-122")
    other_paper = WorkRecord(source="crossref", source_id="x", url="",
                             title="Future as Drone Warfare", authors=(Author(family="Woolf"),),
                             year=2014, container="Journal of Strategic Studies")
    assert title_similarity(cited.title, other_paper.title) >= TITLE_THRESHOLD
    assert not score_record(cited, other_paper).is_match
    assert score_record(cited, replace(other_paper, year=2013)).is_match  # year within one
    assert score_record(cited, replace(other_paper, container="Survival")).is_match
    exact = replace(other_paper, title="The Future of Drone Warfare")
    assert score_record(cited, exact).is_match  # an exact title needs no support


@pytest.mark.parametrize(
    ("source", "sample"),
    [("crossref", "works_doi.json"), ("openalex", "works_doi.json"),
     ("openalex", "works_title_search_single.json")],
)
def test_a_recorded_record_matches_its_own_apa_citation_and_not_a_fabricated_twin(
    source: str, sample: str
) -> None:
    """Pairs built from real recorded responses: the record against an APA citation of
    itself (matches, whatever the casing and markup), against the same title by other
    authors (does not, and is flagged), and against a shifted year (still matches)."""
    from recorded import load_sample

    from adapters import adapter_for
    from verifier.http.transport import HttpRequest

    adapter = adapter_for(source)
    path = "/works/x" if sample == "works_doi.json" else "/works"
    record = adapter.parse(HttpRequest(path=path), load_sample(source, sample))[0]
    names = ", ".join(f"{a.family}, {a.given[:1]}." for a in record.authors[:3] if a.family)
    apa = f"{names} ({record.year}). {record.title.upper()}. {record.container}."
    cited = parse_citation(apa)
    assert score_record(cited, record).is_match
    twin = replace(cited, authors=(Author(family="Invented", given="A."),
                                   Author(family="Madeup", given="B.")))
    twin_scores = score_record(twin, record)
    assert not twin_scores.is_match and is_title_by_other_authors(twin_scores, twin, record)
    shifted = replace(cited, year=(record.year or 2000) + 1)
    scores = score_record(shifted, record)
    assert scores.is_match and scores.year_delta == -1
