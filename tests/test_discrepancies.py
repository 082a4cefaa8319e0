"""Discrepancies between a citation and the records of the sources that match it."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import pytest

from verifier.citations.discrepancies import (
    authors_agree,
    consensus,
    containers_agree,
    discrepancies,
    initials_display,
    numbers_agree,
    pages_agree,
    parse_pages,
    publishers_agree,
)
from verifier.citations.matching import score_record
from verifier.citations.models import (
    Author,
    Citation,
    Discrepancy,
    Identifiers,
    SourceResult,
    SourceStatus,
    WorkRecord,
    WorkType,
)
from verifier.citations.parsing import parse_citation

WW = Path(__file__).resolve().parents[2] / "shared" / "data" / "walters_wilder_2023"


def _record(source: str = "crossref", **fields: object) -> WorkRecord:
    base: dict[str, object] = {"source_id": f"{source}-1", "url": "", "title": "A title"}
    base.update(fields)
    return WorkRecord(source=source, **base)  # type: ignore[arg-type]


def _like(citation: Citation, source: str, **changes: object) -> WorkRecord:
    """The record of the work ``citation`` cites, as ``source`` gives it, with ``changes``."""
    record = WorkRecord(
        source=source,
        source_id=f"{source}-1",
        url="",
        title=citation.title,
        authors=citation.authors,
        year=citation.year,
        container=citation.container,
        volume=citation.volume,
        issue=citation.issue,
        pages=citation.pages,
        publisher=citation.publisher,
        editors=citation.editors,
        type=citation.type,
        identifiers=citation.identifiers,
    )
    return replace(record, **changes)  # type: ignore[arg-type]


def _check(citation: Citation, *records: WorkRecord) -> tuple[Discrepancy, ...]:
    results = {r.source: SourceResult(SourceStatus.MATCH, record=r) for r in records}
    return discrepancies(citation, results, tuple(results))


def _fields(found: tuple[Discrepancy, ...]) -> dict[str, str]:
    return {d.field: d.found for d in found}


ARTICLE = Citation(
    authors=(Author("Granovetter", "M. S."),),
    year=1973,
    title="The strength of weak ties",
    container="American Journal of Sociology",
    volume="78",
    issue="6",
    pages="1360-1380",
    type=WorkType.ARTICLE,
    identifiers=Identifiers(doi="10.1086/225469"),
)


# ---------------------------------------------------------------------------------------
# Walters & Wilder: real works cited with errors, checked against the authors' notes


@dataclass(frozen=True)
class _WWCase:
    row: str
    note_says: str
    """Text of the row's ww_note that states the correct value(s)."""
    record: dict[str, object]
    """What the real record has that the citation gets wrong."""
    expected: dict[str, str] = field(default_factory=dict)
    """field -> found value; the fields must be exactly these."""


_A = Author
WW_CASES = (
    _WWCase("walters_0005", "1993", {"year": 1993}, {"year": "1993"}),
    _WWCase("walters_0086", "86(2)", {"issue": "2"}, {"issue": "2"}),
    _WWCase("walters_0117", "62-71", {"pages": "62–71"}, {"pages": "62–71"}),
    _WWCase(
        "walters_0163",
        "15(1), 13-32",
        {"issue": "1", "pages": "13-32"},
        {"issue": "1", "pages": "13-32"},
    ),
    _WWCase(
        "walters_0183",
        "meta-analysis",
        {
            "title": "Sleep Duration and All-Cause Mortality: A Systematic Review and "
            "Meta-Analysis of Prospective Studies"
        },
        {
            "title": "Sleep Duration and All-Cause Mortality: A Systematic Review and "
            "Meta-Analysis of Prospective Studies"
        },
    ),
    _WWCase(
        "walters_0228",
        "K. Welham",
        {
            "authors": (
                _A("Parker Pearson", "Mike"),
                _A("Chamberlain", "Andrew"),
                _A("Jay", "Mandy"),
                _A("Marshall", "Peter"),
                _A("Pollard", "Joshua"),
                _A("Richards", "Colin"),
                _A("Thomas", "Julian"),
                _A("Tilley", "Christopher"),
                _A("Welham", "Kate"),
            )
        },
        {
            "authors": "Parker Pearson, M.; Chamberlain, A.; Jay, M.; Marshall, P.; "
            "Pollard, J.; Richards, C.; Thomas, J.; Tilley, C.; Welham, K."
        },
    ),
    _WWCase(
        "walters_0302",
        "1999.  Vol. 19(6), 717-740",
        # Crossref's spelling of the journal ("and" for "&") is no discrepancy.
        {"year": 1999, "volume": "19", "container": "Ageing and Society"},
        {"year": "1999", "volume": "19"},
    ),
    _WWCase("walters_0340", "226-241", {"pages": "226-41"}, {"pages": "226-41"}),
    _WWCase(
        "walters_0362",
        "2003.  Vol. 12(3)",
        {"year": 2003, "volume": "12"},
        {"year": "2003", "volume": "12"},
    ),
    _WWCase(
        "walters_0379",
        "MERLOT Journal of Online Learning and Teaching",
        {"container": "MERLOT Journal of Online Learning and Teaching"},
        {"container": "MERLOT Journal of Online Learning and Teaching"},
    ),
    _WWCase("walters_0534", "2019", {"year": 2019}, {"year": "2019"}),
    _WWCase(
        "walters_0585",
        "orang-utan",
        {
            "title": "Distribution and conservation status of the orang-utan (Pongo spp.) on "
            "Borneo and Sumatra: how many remain?"
        },
        {
            "title": "Distribution and conservation status of the orang-utan (Pongo spp.) on "
            "Borneo and Sumatra: how many remain?"
        },
    ),
    _WWCase(
        "walters_0159",
        "C.A. Anderson, D.A. Gentile, & K.E. Buckley",
        {
            "authors": (
                _A("Anderson", "Craig A."),
                _A("Gentile", "Douglas A."),
                _A("Buckley", "Katherine E."),
            )
        },
        {"authors": "Anderson, C. A.; Gentile, D. A.; Buckley, K. E."},
    ),
    _WWCase(
        "walters_0131",
        "1997.  Hart Publishing",
        {"year": 1997, "publisher": "Hart Publishing"},
        {"year": "1997", "publisher": "Hart Publishing"},
    ),
    _WWCase(
        "walters_0178",
        "one more author",
        {"authors": (_A("Albandar", "J. M."), _A("Brunelle", "J. A."), _A("Kingman", "A."))},
        {"authors": "Albandar, J. M.; Brunelle, J. A.; Kingman, A."},
    ),
    # Same book, same publisher under another spelling: only the year is wrong.
    _WWCase(
        "walters_0235",
        "1993",
        {"year": 1993, "publisher": "Weidenfeld and Nicolson"},
        {"year": "1993"},
    ),
)


@cache
def _ww_rows() -> dict[str, dict[str, str]]:
    path = WW / "ww2023_citations.csv"
    if not path.is_file():
        pytest.skip(f"Walters & Wilder data not available: {path}")
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["id"]: row for row in csv.DictReader(handle)}


@pytest.mark.parametrize("case", WW_CASES, ids=lambda case: case.row)
def test_walters_wilder_errors_are_found_as_the_authors_noted(case: _WWCase) -> None:
    row = _ww_rows()[case.row]
    assert row["fabricated"] == "0"
    assert case.note_says in row["ww_note"]
    citation = parse_citation(row["citation_text"])
    crossref = _like(citation, "crossref", **case.record)
    openalex = _like(citation, "openalex", **case.record)
    # The shape of a verified citation: both records match it despite the errors.
    assert score_record(citation, crossref).is_match

    found = _check(citation, openalex, crossref)

    assert _fields(found) == case.expected
    assert all(d.sources == ("crossref", "openalex") for d in found)


# ---------------------------------------------------------------------------------------
# Fields one by one


def test_a_citation_that_is_right_has_no_discrepancy() -> None:
    record = _like(ARTICLE, "crossref", title="The Strength of Weak Ties", pages="1360–80")
    assert _check(ARTICLE, record, _like(ARTICLE, "openalex")) == ()


@pytest.mark.parametrize("delta", [-1, 1, 4])
def test_any_year_difference_is_reported(delta: int) -> None:
    found = _check(ARTICLE, _like(ARTICLE, "crossref", year=1973 + delta))
    assert found == (Discrepancy("year", "1973", str(1973 + delta), ("crossref",)),)


def test_a_missing_subtitle_and_a_near_miss_word_are_title_discrepancies() -> None:
    cited = replace(ARTICLE, title="Getting a job")
    full = "Getting a job: A study of contacts and careers"
    assert _fields(_check(cited, _like(cited, "crossref", title=full))) == {"title": full}
    near = replace(ARTICLE, title="The strength of weak ties")
    found = _check(near, _like(near, "crossref", title="The strength of weak tie"))
    assert [d.field for d in found] == ["title"]


def test_markup_case_and_punctuation_are_no_title_discrepancy() -> None:
    cited = replace(ARTICLE, title="Cafe society: the <i>Paris</i> years")
    record = _like(cited, "crossref", title="Café Society — The Paris Years")
    assert _check(cited, record) == ()


def test_authors_differing_only_in_initials_or_particles_agree() -> None:
    cited = replace(ARTICLE, authors=(Author("Berg", "J."), Author("Smith", "M. R.")), et_al=False)
    record = _like(
        cited, "crossref", authors=(Author("van der Berg", "Jan"), Author("Smith", "Mary Rose"))
    )
    assert _check(cited, record) == ()


def test_a_misspelt_family_name_is_an_authors_discrepancy() -> None:
    cited = replace(ARTICLE, authors=(Author("Granoveter", "M."),))
    found = _check(cited, _like(cited, "crossref", authors=(Author("Granovetter", "Mark"),)))
    assert found == (Discrepancy("authors", "Granoveter, M.", "Granovetter, M.", ("crossref",)),)


def test_a_database_that_swapped_family_and_given_name_is_no_discrepancy() -> None:
    cited = replace(ARTICLE, authors=(Author("Zhang", "J."), Author("Smith", "A.")))
    swapped = (Author("Jun", "Zhang"), Author("Smith", "Alan"))
    assert _check(cited, _like(cited, "crossref", authors=swapped)) == ()


def test_another_person_with_the_same_family_name_is_an_authors_discrepancy() -> None:
    cited = replace(ARTICLE, authors=(Author("Freedman", "D."),))
    record = _like(cited, "crossref", authors=(Author("Freedman", "Lawrence"),))
    assert _fields(_check(cited, record)) == {"authors": "Freedman, L."}


def test_missing_extra_and_reordered_authors() -> None:
    two = (Author("Smith", "J."), Author("Jones", "K."))
    three = (*two, Author("Brown", "L."))
    cited = replace(ARTICLE, authors=two)
    # A record author the citation leaves out.
    assert _fields(_check(cited, _like(cited, "crossref", authors=three))) == {
        "authors": "Smith, J.; Jones, K.; Brown, L."
    }
    # ... is no discrepancy when the citation says "et al."
    assert _check(replace(cited, et_al=True), _like(cited, "crossref", authors=three)) == ()
    # A cited author the record does not have.
    cited_three = replace(ARTICLE, authors=three)
    assert _fields(_check(cited_three, _like(cited, "crossref", authors=two))) == {
        "authors": "Smith, J.; Jones, K."
    }
    # The same people in another order.
    found = _check(cited, _like(cited, "crossref", authors=two[::-1]))
    assert found == (
        Discrepancy("authors", "Smith, J.; Jones, K.", "Jones, K.; Smith, J.", ("crossref",)),
    )


def test_an_apa_ellipsis_list_is_checked_against_first_and_last_authors() -> None:
    record_authors = tuple(Author(f"Author{chr(65 + i)}", "X.") for i in range(25))
    cited = replace(ARTICLE, authors=(*record_authors[:19], record_authors[-1]), et_al=True)
    assert _check(cited, _like(cited, "crossref", authors=record_authors)) == ()
    wrong_last = replace(cited, authors=(*record_authors[:19], Author("Zed", "Q.")))
    found = _check(wrong_last, _like(cited, "crossref", authors=record_authors))
    assert [d.field for d in found] == ["authors"]
    assert found[0].cited.endswith("Zed, Q.; et al.")


@pytest.mark.parametrize(
    ("short", "full"),
    [
        ("J. Biol. Chem.", "Journal of Biological Chemistry"),
        ("J Appl Psychol", "Journal of Applied Psychology"),
        (
            "Proc. Natl. Acad. Sci. U.S.A.",
            "Proceedings of the National Academy of Sciences of the United States of America",
        ),
        ("PNAS", "Proceedings of the National Academy of Sciences"),
        ("Lancet", "The Lancet"),
        ("Ageing & Society", "Ageing and Society"),
        ("Phil. Trans. R. Soc. B", "Philosophical Transactions of the Royal Society B"),
        (
            "Philosophical Transactions of the Royal Society B",
            "Philosophical Transactions of the Royal Society B: Biological Sciences",
        ),
    ],
)
def test_journal_abbreviations_are_no_container_discrepancy(short: str, full: str) -> None:
    assert containers_agree(short, full)
    assert containers_agree(full, short)
    cited = replace(ARTICLE, container=short)
    assert _check(cited, _like(cited, "crossref", container=full)) == ()


@pytest.mark.parametrize(
    ("cited", "found"),
    [
        ("Nature", "Nature Communications"),
        ("Science", "Science Advances"),
        ("Psychological Bulletin", "Psychological Review"),
        (
            "Journal of Personality and Social Psychology",
            "Personality and Social Psychology Bulletin",
        ),
        ("Soc. Sci. Med.", "Journal of Social Science"),
    ],
)
def test_other_journals_are_container_discrepancies(cited: str, found: str) -> None:
    assert not containers_agree(cited, found)
    assert not containers_agree(found, cited)
    citation = replace(ARTICLE, container=cited)
    record = _like(citation, "crossref", container=found)
    assert _fields(_check(citation, record)) == {"container": found}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("45–67", "45-67"),
        ("pp. 45-67", "45-67"),
        ("45-7", "45-47"),
        ("1573-86", "1573-1586"),
        ("p. 45", "45-67"),
        ("45--67", "45 — 67"),
        ("S12-19", "S12-S19"),
        ("e24295", "E24295"),
        ("xi-xv", "XI–XV"),
    ],
)
def test_page_formats_that_agree(a: str, b: str) -> None:
    assert pages_agree(a, b)
    assert pages_agree(b, a)


@pytest.mark.parametrize(
    ("a", "b"), [("45-67", "45-69"), ("45-67", "46-67"), ("e24295", "e24296"), ("45", "")]
)
def test_page_statements_that_differ(a: str, b: str) -> None:
    assert not pages_agree(a, b)


def test_parse_pages() -> None:
    assert parse_pages("pp. 1573–86.") is not None
    assert parse_pages("pp. 1573–86.") == parse_pages("1573-1586")
    assert parse_pages("913") == parse_pages("913-913")
    assert parse_pages("  ") is None
    # A dash alone states no page (a source's empty range); it once raised IndexError,
    # failing the whole report.
    assert parse_pages("-") is None and parse_pages("pp. –") is None
    assert pages_agree("-", "-") and not pages_agree("-", "45")


def test_volume_and_issue_labels_and_dashes() -> None:
    assert numbers_agree("Vol. 12", "12")
    assert numbers_agree("No. 3–4", "3-4")
    assert numbers_agree("03", "3")
    assert numbers_agree("1-2", "1/2")
    assert not numbers_agree("12", "21")
    cited = replace(ARTICLE, volume="Vol. 78", issue="no. 6")
    assert _check(cited, _like(ARTICLE, "crossref")) == ()


def test_publisher_is_compared_for_books_only_and_tolerantly() -> None:
    assert publishers_agree("Routledge", "Routledge, Taylor & Francis Group")
    assert publishers_agree("MIT Press", "The MIT Press")
    assert publishers_agree("Simon & Schuster", "Simon and Schuster, Inc.")
    assert not publishers_agree("Oxford University Press", "Cambridge University Press")
    book = Citation(
        authors=(Author("Anheier", "H. K."),),
        year=2014,
        title="Nonprofit organizations: Theory, management, policy",
        publisher="Routledge",
        type=WorkType.BOOK,
    )
    same = _like(book, "openlibrary", publisher="Routledge, Taylor & Francis Group")
    assert _check(book, same) == ()
    other = _like(book, "openlibrary", publisher="Oxford University Press")
    assert _fields(_check(book, other)) == {"publisher": "Oxford University Press"}
    # An article's publisher is not a citation field worth a discrepancy.
    article = replace(ARTICLE, publisher="Chicago")
    assert _check(article, _like(article, "crossref", publisher="UChicago Press")) == ()


def test_a_wrong_doi_is_a_doi_discrepancy() -> None:
    cited = replace(ARTICLE, identifiers=Identifiers(doi="10.1086/999999"))
    record = _like(ARTICLE, "crossref", identifiers=Identifiers(doi="10.1086/225469"))
    assert _check(cited, record) == (
        Discrepancy("doi", "10.1086/999999", "10.1086/225469", ("crossref",)),
    )
    upper = replace(ARTICLE, identifiers=Identifiers(doi="https://doi.org/10.1086/225469"))
    assert _check(upper, record) == ()


def test_a_cited_arxiv_doi_of_the_published_version_is_no_discrepancy() -> None:
    cited = replace(ARTICLE, identifiers=Identifiers(doi="10.48550/arxiv.2101.00001"))
    record = _like(
        ARTICLE, "crossref", identifiers=Identifiers(doi="10.1000/journal.1", arxiv="2101.00001")
    )
    assert _check(cited, record) == ()


def test_fields_the_citation_or_every_record_leaves_out_are_not_compared() -> None:
    bare = Citation(authors=ARTICLE.authors, title=ARTICLE.title)
    assert _check(bare, _like(ARTICLE, "crossref")) == ()
    sparse = _record(title=ARTICLE.title, authors=ARTICLE.authors)
    assert _check(ARTICLE, sparse) == ()


def test_sources_that_disagree_the_majority_is_reported_with_its_sources() -> None:
    cited = replace(ARTICLE, year=1971)
    found = _check(
        cited,
        _like(cited, "semanticscholar", year=1972),
        _like(cited, "openalex", year=1973),
        _like(cited, "crossref", year=1973),
    )
    assert found == (Discrepancy("year", "1971", "1973", ("crossref", "openalex")),)
    # One agreeing source supports the cited value (the arXiv version's year, say):
    # no discrepancy, even against the majority.
    cited = replace(ARTICLE, year=1972)
    assert _check(
        cited,
        _like(cited, "semanticscholar", year=1972),
        _like(cited, "openalex", year=1973),
        _like(cited, "crossref", year=1973),
    ) == ()
    # The cited value is the majority's: no discrepancy even though one source differs.
    assert (
        _check(
            cited,
            _like(cited, "crossref", year=1973),
            _like(cited, "openalex", year=1972),
            _like(cited, "semanticscholar", year=1972),
        )
        == ()
    )


def test_sources_that_disagree_a_tie_goes_to_the_most_authoritative() -> None:
    cited = replace(ARTICLE, pages="1-10")
    found = _check(
        cited,
        _like(cited, "openalex", pages="1361-1380"),
        _like(cited, "crossref", pages="1360-1380"),
    )
    assert found == (Discrepancy("pages", "1-10", "1360-1380", ("crossref",)),)


def test_a_source_that_cuts_the_author_list_short_sides_with_the_full_list() -> None:
    three = (Author("Smith", "J."), Author("Jones", "K."), Author("Brown", "L."))
    cited = replace(ARTICLE, authors=three, type=WorkType.BOOK)
    found = _check(
        cited,
        _like(cited, "openlibrary", authors=three[:1]),
        _like(cited, "googlebooks", authors=three),
    )
    assert found == ()
    # Both lists count for the full one; the citation that drops an author is wrong.
    short = replace(cited, authors=three[:2])
    assert _check(
        short,
        _like(cited, "openlibrary", authors=three[:1]),
        _like(cited, "googlebooks", authors=three),
    ) == (
        Discrepancy(
            "authors",
            "Smith, J.; Jones, K.",
            "Smith, J.; Jones, K.; Brown, L.",
            ("openlibrary", "googlebooks"),
        ),
    )


def test_consensus_groups_equivalent_values() -> None:
    values = [("openalex", "45-7"), ("semanticscholar", "45-47"), ("crossref", "50-60")]
    assert consensus(values, pages_agree) == ("45-7", ("openalex", "semanticscholar"))
    assert consensus([], pages_agree) is None


def test_only_agreeing_sources_with_a_record_count() -> None:
    cited = replace(ARTICLE, year=1972)
    results = {
        "crossref": SourceResult(SourceStatus.MATCH, record=_like(cited, "crossref", year=1973)),
        "openalex": SourceResult(SourceStatus.NO_MATCH, record=_like(cited, "openalex", year=1990)),
        "pubmed": SourceResult(SourceStatus.TIMED_OUT),
    }
    assert discrepancies(cited, results, ("crossref", "pubmed")) == (
        Discrepancy("year", "1972", "1973", ("crossref",)),
    )
    assert discrepancies(cited, results, ()) == ()


def test_discrepancies_come_in_field_order() -> None:
    cited = replace(ARTICLE, year=1970, volume="1", pages="1-2", title="Weak ties")
    record = _like(ARTICLE, "crossref", authors=(Author("Smith", "A."),))
    assert [d.field for d in _check(cited, record)] == [
        "title",
        "authors",
        "year",
        "volume",
        "pages",
    ]


def test_authors_agree_directly() -> None:
    who = (Author(literal="World Health Organization"),)
    assert authors_agree((Author(literal="WHO"),), who)
    assert not authors_agree((Author("Smith", "J."),), ())


def test_initials_display() -> None:
    assert initials_display("John Ronald") == "J. R."
    assert initials_display("Jean-Paul") == "J.-P."
    assert initials_display("JA") == "J. A."
    assert initials_display("M.R.") == "M. R."
    assert initials_display("Émile") == "É."
    assert initials_display("") == ""
