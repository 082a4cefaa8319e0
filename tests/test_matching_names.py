"""Forgiving names without forgiving fabrications: slips, transpositions and
transliterations of a real work's authors pair; the decoys that exploit such leniency
(same title by other authors, a near name with other initials, a short slip without
backing, one real co-author in an invented list) do not."""

from __future__ import annotations

import pytest

from verifier.citations.matching import author_overlap, is_title_by_other_authors, score_record
from verifier.citations.models import Author, Citation, WorkRecord, WorkType
from verifier.citations.normalize import family_key, transliteration_key

TITLE = "Cultural evolution of cooperation in small-scale societies"


def person(family: str, given: str = "") -> Author:
    return Author(family=family, given=given)


def cite(*authors: Author, year: int | None = 2015, container: str = "Nature",
         title: str = TITLE) -> Citation:
    return Citation(title=title, authors=authors, year=year, container=container,
                    type=WorkType.ARTICLE)


def rec(*authors: Author, year: int | None = 2015, container: str = "Nature",
        title: str = TITLE) -> WorkRecord:
    return WorkRecord(source="test", source_id="r", url="", title=title, authors=authors,
                      year=year, container=container)


@pytest.mark.parametrize(("cited", "found"), [
    ("Jonhson", "Johnson"),  # neighbours swapped: one edit, not two
    ("Graonvetter", "Granovetter"),
    ("Ohnson", "Hohnson"),  # not a slip: other first letter (checked below as False)
])
def test_a_transposition_in_a_long_name_is_one_slip(cited: str, found: str) -> None:
    share = author_overlap([person(cited, "M.")], [person(found, "Mary")], et_al=False)
    assert share == (0.0 if cited == "Ohnson" else 1.0)


def test_a_transposition_of_the_first_two_letters_is_one_slip() -> None:
    assert author_overlap([person("Hcristakis", "N.")], [person("Christakis", "Nicholas")],
                          et_al=False) == 1.0


@pytest.mark.parametrize(("cited", "found"), [
    ("Müller", "Mueller"), ("Tchaikovsky", "Chaikovskii"), ("Dostoevsky", "Dostoyevsky"),
    ("Tolstoi", "Tolstoy"), ("Tsvetaeva", "Tsvetayeva"), ("Schroeder", "Schröder"),
])
def test_transliteration_variants_are_the_same_name(cited: str, found: str) -> None:
    assert transliteration_key(family_key(cited)) == transliteration_key(family_key(found))
    assert author_overlap([person(cited, "A.")], [person(found, "Anna")], et_al=False) == 1.0


@pytest.mark.parametrize(("a", "b"), [("Hansen", "Hanson"), ("Smith", "Schmidt"),
                                      ("Meyer", "Mayer"), ("Li", "Lee")])
def test_different_names_are_not_transliterations(a: str, b: str) -> None:
    ka, kb = transliteration_key(family_key(a)), transliteration_key(family_key(b))
    assert not ka or ka != kb


@pytest.mark.parametrize("slip", ["Smtih", "Smih", "Smitth", "Snith"])
def test_a_short_name_with_one_slip_matches_an_exact_backed_title(slip: str) -> None:
    scores = score_record(cite(person(slip, "J.")), rec(person("Smith", "John")))
    assert scores.is_match


def test_a_short_slip_needs_the_year_or_container_to_back_it() -> None:
    unbacked = score_record(cite(person("Smtih", "J."), year=None, container=""),
                            rec(person("Smith", "John")))
    assert not unbacked.is_match
    contradicted = score_record(cite(person("Smtih", "J."), year=2001, container="Science"),
                                rec(person("Smith", "John"), year=2015, container="Nature"))
    assert not contradicted.is_match
    by_container = score_record(cite(person("Smtih", "J."), year=None),
                                rec(person("Smith", "John")))
    assert by_container.is_match


def test_a_short_slip_needs_an_exact_title() -> None:
    near = score_record(cite(person("Smtih", "J."),
                             title="Cultural evolution of cooperation in small societies"),
                        rec(person("Smith", "John")))
    assert not near.is_match


def test_a_short_slip_never_pairs_conflicting_initials_or_two_letter_names() -> None:
    assert not score_record(cite(person("Smtih", "J.")), rec(person("Smith", "Mary"))).is_match
    assert not score_record(cite(person("Lu", "J.")), rec(person("Li", "Jun"))).is_match


def test_decoy_same_title_other_authors_stays_other_authors() -> None:
    citation = cite(person("Okafor", "C."), person("Lindqvist", "P."))
    record = rec(person("Henrich", "Joseph"), person("Boyd", "Robert"))
    scores = score_record(citation, record)
    assert not scores.is_match
    assert is_title_by_other_authors(scores, citation, record)


def test_decoy_one_real_coauthor_in_an_invented_list_is_not_a_match() -> None:
    citation = cite(person("Okafor", "C."), person("Lindqvist", "P."), person("Boyd", "R."),
                    person("Ferreira", "T."))
    record = rec(person("Henrich", "Joseph"), person("Boyd", "Robert"),
                 person("Richerson", "Peter"))
    assert not score_record(citation, record).is_match


def test_decoy_a_real_scholar_with_a_new_title_is_not_a_match() -> None:
    citation = cite(person("Henrich", "J."), title="Ritual synchrony and trust among herders")
    assert not score_record(citation, rec(person("Henrich", "Joseph"))).is_match


def test_decoy_a_near_short_name_with_other_initials_is_not_a_match() -> None:
    citation = cite(person("Boyf", "T."))
    assert not score_record(citation, rec(person("Boyd", "Robert"))).is_match


def test_decoy_a_real_single_author_at_the_end_of_an_invented_list_is_not_a_match() -> None:
    # The record lists one author; the citation four, the real one last. That is not a
    # catalogue's truncated list (which keeps the first author) but an invented list.
    citation = cite(person("Okafor", "C."), person("Lindqvist", "P."), person("Ferreira", "T."),
                    person("Henrich", "J."))
    assert not score_record(citation, rec(person("Henrich", "Joseph"))).is_match


def test_a_truncated_record_that_keeps_the_first_author_still_matches() -> None:
    citation = cite(person("Henrich", "J."), person("Boyd", "R."), person("Richerson", "P."))
    assert score_record(citation, rec(person("Henrich", "Joseph"))).is_match


def test_decoy_an_unsplit_personal_name_on_a_real_title_is_not_an_organisation() -> None:
    citation = cite(Author(literal="Gregory the Great"))
    scores = score_record(citation, rec(person("Schunk", "Dale H.")))
    assert not scores.is_match


def test_an_organisation_on_the_exact_title_still_matches_a_record_of_people() -> None:
    citation = cite(Author(literal="World Health Organization"), container="")
    assert score_record(citation, rec(person("Chan", "Margaret"))).is_match


def test_decoy_one_shared_family_with_other_initials_among_other_authors_is_not_a_match() -> None:
    # "Miller, R. E., & Blair, P. D." on a title by Cappuccio ... Miller, M. A.: one family
    # in common with other initials is not the same authors cited with wrong initials.
    citation = cite(person("Miller", "R. E."), person("Blair", "P. D."))
    record = rec(person("Cappuccio", "Frank P."), person("Strazzullo", "Pablo"),
                 person("Miller", "Michael A."))
    assert not score_record(citation, record).is_match


def _book(title: str, year: int = 1984, publisher: str = "Harvard University Press"
          ) -> tuple[Citation, WorkRecord]:
    citation = Citation(title="Distinction", authors=(person("Bourdieu", "P."),), year=1984,
                        publisher="Harvard University Press", type=WorkType.BOOK)
    record = WorkRecord(source="test", source_id="r", url="", title=title,
                        authors=(person("Bourdieu", "Pierre"),), year=year,
                        publisher=publisher)
    return citation, record


def test_a_short_main_title_matches_when_authors_year_and_publisher_agree() -> None:
    citation, record = _book("Distinction: A Social Critique of the Judgement of Taste")
    assert score_record(citation, record).is_match


def test_a_short_main_title_without_the_year_or_publisher_agreeing_is_not_a_match() -> None:
    citation, record = _book("Distinction: A Social Critique of the Judgement of Taste",
                             year=1996)
    assert not score_record(citation, record).is_match
    citation, record = _book("Distinction: A Social Critique of the Judgement of Taste",
                             publisher="Routledge")
    assert not score_record(citation, record).is_match
    citation, record = _book("Distinction and power: Essays")
    assert not score_record(citation, record).is_match


def test_a_catalogue_record_keeping_one_author_matches_whatever_the_cited_order() -> None:
    # Google Books shows only "Anderson"; the citation lists Gentile, Anderson, Buckley.
    citation = cite(person("Gentile", "D. A."), person("Anderson", "C. A."),
                    person("Buckley", "K. E."))
    catalogue = WorkRecord(source="googlebooks", source_id="g", url="", title=TITLE,
                           authors=(person("Anderson", "Craig A."),), year=2015)
    journal = WorkRecord(source="crossref", source_id="c", url="", title=TITLE,
                         authors=(person("Anderson", "Craig A."),), year=2015)
    assert score_record(citation, catalogue).is_match
    assert not score_record(citation, journal).is_match


def test_decoy_a_real_author_last_in_an_invented_list_fails_on_a_catalogue_too() -> None:
    citation = cite(person("Okafor", "C."), person("Lindqvist", "P."), person("Ferreira", "T."),
                    person("Anderson", "C. A."))
    catalogue = WorkRecord(source="googlebooks", source_id="g", url="", title=TITLE,
                           authors=(person("Anderson", "Craig A."),), year=2015)
    assert not score_record(citation, catalogue).is_match
