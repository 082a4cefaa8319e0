"""Corrected citations in APA 7 and BibTeX, built from the agreeing records."""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from typing import Any

import pytest

from verifier.citations.corrections import (
    apa_authors,
    apa_reference,
    bibtex_entry,
    bibtex_escape,
    bibtex_key,
    correction_for,
    correction_from_results,
)
from verifier.citations.merging import merge_records, work_kind
from verifier.citations.models import (
    Author,
    Citation,
    Identifiers,
    SourceResult,
    SourceStatus,
    WorkRecord,
    WorkType,
)


def _record(source: str = "crossref", **fields: Any) -> WorkRecord:
    base: dict[str, Any] = {"source_id": f"{source}-1", "url": "", "title": "A title"}
    base.update(fields)
    return WorkRecord(source=source, **base)


LANZA = _record(
    title="Prospects for the use of nuclear transfer in human transplantation",
    authors=(Author("Lanza", "Robert P."), Author("Cibelli", "Jose B."), Author("West", "M. D.")),
    year=1999,
    container="Nature Biotechnology",
    volume="17",
    issue="12",
    pages="1171-1174",
    type=WorkType.ARTICLE,
    identifiers=Identifiers(doi="10.1038/70171"),
)
PAKENHAM = _record(
    "openlibrary",
    title="The Boer War",
    authors=(Author("Pakenham", "Thomas"),),
    year=1979,
    publisher="Weidenfeld & Nicolson",
    type=WorkType.BOOK,
)
REUTER = _record(
    title="Australia: A massive buyback of low-risk guns",
    authors=(Author("Reuter", "Peter"), Author("Mouzos", "Jenny")),
    year=2003,
    container="Evaluating gun policy: Effects on crime and violence",
    editors=(Author("Ludwig", "Jens"), Author("Cook", "Philip J.")),
    pages="121-56",
    publisher="Brookings Institution Press",
    type=WorkType.CHAPTER,
)
WHO = _record(
    title="Global oral health data bank",
    authors=(Author(literal="World Health Organization"),),
    publisher="World Health Organization",
    type=WorkType.BOOK,
)


# ---------------------------------------------------------------------------------------
# APA 7


def test_apa_article() -> None:
    assert apa_reference(LANZA) == (
        "Lanza, R. P., Cibelli, J. B., & West, M. D. (1999). Prospects for the use of nuclear "
        "transfer in human transplantation. Nature Biotechnology, 17(12), 1171–1174. "
        "https://doi.org/10.1038/70171"
    )


def test_apa_article_number_and_missing_issue() -> None:
    record = replace(
        LANZA, container="PLoS ONE", volume="8", issue="", pages="e73008", identifiers=Identifiers()
    )
    assert apa_reference(record).endswith("PLoS ONE, 8, Article e73008.")


def test_apa_book() -> None:
    assert apa_reference(PAKENHAM) == "Pakenham, T. (1979). The Boer War. Weidenfeld & Nicolson."


def test_apa_chapter() -> None:
    assert apa_reference(REUTER) == (
        "Reuter, P., & Mouzos, J. (2003). Australia: A massive buyback of low-risk guns. "
        "In J. Ludwig & P. J. Cook (Eds.), Evaluating gun policy: Effects on crime and "
        "violence (pp. 121–156). Brookings Institution Press."
    )
    one_editor = replace(REUTER, editors=(Author("Roth", "Jeffrey A."),), pages="12")
    assert "In J. A. Roth (Ed.), Evaluating gun policy" in apa_reference(one_editor)
    assert "(p. 12)" in apa_reference(one_editor)


def test_apa_proceedings_paper_is_cited_like_a_chapter() -> None:
    paper = _record(
        title="Deep residual learning for image recognition",
        authors=(Author("He", "Kaiming"), Author("Zhang", "Xiangyu")),
        year=2016,
        container="Proceedings of the IEEE Conference on Computer Vision and Pattern Recognition",
        pages="770-778",
        publisher="IEEE",
        type=WorkType.PROCEEDINGS,
    )
    assert apa_reference(paper).endswith(
        "In Proceedings of the IEEE Conference on Computer Vision and Pattern Recognition "
        "(pp. 770–778). IEEE."
    )


def test_apa_corporate_author_without_year_omits_itself_as_publisher() -> None:
    assert apa_reference(WHO) == (
        "World Health Organization. (n.d.). Global oral health data bank."
    )
    other_publisher = replace(WHO, year=2013, publisher="WHO Press")
    assert apa_reference(other_publisher) == (
        "World Health Organization. (2013). Global oral health data bank. WHO Press."
    )


def test_apa_edited_book_and_work_without_author() -> None:
    edited = _record(
        title="TIMSS 2019 encyclopedia",
        editors=(Author("Kelly", "Dana L."), Author("Mullis", "Ina V. S.")),
        year=2020,
        publisher="TIMSS & PIRLS International Study Center",
        type=WorkType.BOOK,
    )
    assert apa_reference(edited) == (
        "Kelly, D. L., & Mullis, I. V. S. (Eds.). (2020). TIMSS 2019 encyclopedia. "
        "TIMSS & PIRLS International Study Center."
    )
    anonymous = _record(title="Beowulf", publisher="Penguin", type=WorkType.BOOK)
    assert apa_reference(anonymous) == "Beowulf. (n.d.). Penguin."


def test_apa_title_ending_in_a_question_mark_gets_no_period() -> None:
    record = replace(LANZA, title="Who was buried at Stonehenge?")
    assert "(1999). Who was buried at Stonehenge? Nature" in apa_reference(record)


def test_apa_author_list_rules() -> None:
    people = [Author(f"Family{i}", "Given Middle") for i in range(1, 22)]
    assert apa_authors(people[:1]) == "Family1, G. M."
    assert apa_authors(people[:2]) == "Family1, G. M., & Family2, G. M."
    assert apa_authors(people[:3]) == "Family1, G. M., Family2, G. M., & Family3, G. M."
    twenty = apa_authors(people[:20])
    assert twenty.count("&") == 1 and twenty.endswith("& Family20, G. M.")
    twenty_one = apa_authors(people)
    assert "&" not in twenty_one
    assert twenty_one.endswith("Family19, G. M., … Family21, G. M.")
    assert "Family20" not in twenty_one
    assert apa_authors([Author("Sartre", "Jean-Paul")]) == "Sartre, J.-P."
    assert apa_authors([Author("Ctesias")]) == "Ctesias"


def test_apa_strips_markup_from_titles() -> None:
    record = replace(LANZA, title="Orangutans (<i>Pongo abelii</i>) in H<sub>2</sub>O")
    assert "Orangutans (Pongo abelii) in H2O." in apa_reference(record)


# ---------------------------------------------------------------------------------------
# Completing the best record from the others


def test_merge_fills_only_what_the_best_record_lacks() -> None:
    best = replace(LANZA, pages="1171", issue="", identifiers=Identifiers())
    other = _record(
        "openalex",
        title="Another spelling of the title",
        year=2000,
        issue="12",
        pages="1171-1174",
        identifiers=Identifiers(doi="10.1038/70171", pmid="10581713"),
    )
    merged = merge_records(best, [other])
    assert merged.title == LANZA.title
    assert merged.year == 1999
    assert merged.issue == "12"
    assert merged.pages == "1171-1174"
    assert merged.identifiers.doi == "10.1038/70171"
    assert merged.identifiers.pmid == "10581713"
    assert merged.source == "crossref"


def test_merge_keeps_a_first_page_that_no_range_extends() -> None:
    best = replace(LANZA, pages="1171")
    assert merge_records(best, [_record("openalex", pages="1200-1210")]).pages == "1171"


@pytest.mark.parametrize("dash", ["-", "pp. –"])
def test_a_record_whose_pages_are_a_dash_alone_is_corrected_without_pages(dash: str) -> None:
    # It once raised IndexError, and the citation's whole report failed with it.
    citation = Citation(title="A title", type=WorkType.ARTICLE)
    correction = correction_for(citation, replace(LANZA, pages=dash),
                                [_record("openalex", pages=dash)])
    assert "1171" not in correction.apa and "pages" not in correction.bibtex
    assert correction.apa.startswith("Lanza, R. P.")


def test_correction_takes_nothing_from_the_citation_but_the_type() -> None:
    citation = Citation(
        authors=(Author("Lanza", "R. P."),),
        year=2000,
        title="Prospects for nuclear transfer",
        container="Nature",
        volume="407",
        pages="913-918",
        type=WorkType.ARTICLE,
    )
    untyped = replace(LANZA, type=WorkType.UNKNOWN, year=None, volume="")
    correction = correction_for(citation, untyped)
    assert correction.apa.startswith("Lanza, R. P., Cibelli, J. B., & West, M. D. (n.d.).")
    assert "Nature Biotechnology, (12), 1171–1174." in correction.apa
    for wrong in ("2000", "407", "913", "Prospects for nuclear transfer."):
        assert wrong not in correction.apa
        assert wrong not in correction.bibtex
    assert correction.bibtex.startswith("@article{")


def test_work_kind_falls_back_to_the_fields() -> None:
    bare = _record()
    assert work_kind(replace(bare, container="Journal")) is WorkType.ARTICLE
    assert work_kind(replace(bare, container="Book", editors=(Author("E", "D."),))) is (
        WorkType.CHAPTER
    )
    assert work_kind(replace(bare, publisher="Penguin")) is WorkType.BOOK
    assert work_kind(bare) is WorkType.OTHER
    assert work_kind(bare, Citation(type=WorkType.WEB)) is WorkType.WEB


def test_correction_from_results_prefers_the_most_authoritative_record() -> None:
    crossref = replace(LANZA, pages="")
    openalex = replace(LANZA, source="openalex", year=2000, pages="1171-4")
    results = {
        "openalex": SourceResult(SourceStatus.MATCH, record=openalex),
        "crossref": SourceResult(SourceStatus.MATCH, record=crossref),
        "pubmed": SourceResult(SourceStatus.NO_MATCH, record=replace(LANZA, year=1900)),
    }
    correction = correction_from_results(Citation(), results, ("openalex", "crossref"))
    assert correction is not None
    assert "(1999)" in correction.apa
    assert "1171–1174" in correction.apa
    assert correction_from_results(Citation(), results, ()) is None


# ---------------------------------------------------------------------------------------
# BibTeX


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


_ENTRY = re.compile(r"\A@(?P<type>\w+)\{(?P<key>[^,\s{}]+),\n(?P<body>.*)\n\}\Z", re.S)
_FIELD = re.compile(r"\A  (?P<name>[a-z]+) = \{(?P<value>.*)\}\Z")


def _fields(entry: str) -> tuple[str, str, dict[str, str]]:
    """(type, key, fields) of one entry in the layout bibtex_entry writes, every field's
    braces checked to balance."""
    match = _ENTRY.match(entry)
    assert match is not None, entry
    fields: dict[str, str] = {}
    for line in match.group("body").split(",\n"):
        field = _FIELD.match(line)
        assert field is not None, line
        assert _balanced(field.group("value")), line
        fields[field.group("name")] = field.group("value")
    return match.group("type"), match.group("key"), fields


REQUIRED = {
    "article": {"author", "title", "journal", "year"},
    "book": {"title", "publisher", "year"},
    "incollection": {"author", "title", "booktitle", "publisher", "year"},
    "inproceedings": {"author", "title", "booktitle", "year"},
    "misc": {"title"},
}


def test_bibtex_article() -> None:
    assert bibtex_entry(LANZA) == (
        "@article{Lanza1999Prospects,\n"
        "  author = {Lanza, Robert P. and Cibelli, Jose B. and West, M. D.},\n"
        "  title = {Prospects for the use of nuclear transfer in human transplantation},\n"
        "  journal = {Nature Biotechnology},\n"
        "  year = {1999},\n"
        "  volume = {17},\n"
        "  number = {12},\n"
        "  pages = {1171--1174},\n"
        "  doi = {10.1038/70171}\n"
        "}"
    )


@pytest.mark.parametrize(
    ("record", "entry_type"),
    [
        (LANZA, "article"),
        (PAKENHAM, "book"),
        (REUTER, "incollection"),
        (replace(REUTER, type=WorkType.PROCEEDINGS), "inproceedings"),
        (replace(WHO, type=WorkType.WEB, year=2013), "misc"),
        (replace(LANZA, type=WorkType.PREPRINT), "misc"),
    ],
)
def test_bibtex_entry_types_and_required_fields(record: WorkRecord, entry_type: str) -> None:
    kind, _, fields = _fields(bibtex_entry(record))
    assert kind == entry_type
    assert REQUIRED[entry_type] <= set(fields)


def test_bibtex_chapter_fields() -> None:
    _, key, fields = _fields(bibtex_entry(REUTER))
    assert key == "Reuter2003Australia"
    assert fields["editor"] == "Ludwig, Jens and Cook, Philip J."
    # Styles do not change the case of a book title: no braces needed.
    assert fields["booktitle"] == "Evaluating gun policy: Effects on crime and violence"
    assert fields["pages"] == "121--156"


def test_bibtex_keys() -> None:
    manberger = _record(title="The global metal flows", authors=(Author("Månberger", "A."),))
    assert bibtex_key(replace(manberger, year=2018)) == "Manberger2018Global"
    assert bibtex_key(manberger) == "ManbergerndGlobal"
    assert bibtex_key(replace(WHO, year=2013)) == "World2013Global"
    assert bibtex_key(_record(title="On the origin of species")) == "AnonndOrigin"
    assert bibtex_key(replace(LANZA, authors=(Author("D'Elia", "L."),))) == ("DElia1999Prospects")
    # An organisation whose name is only blanks is no name: the next author's is taken.
    blank = (Author(literal="  "), Author("Lanza", "R. P."))
    assert bibtex_key(replace(LANZA, authors=blank)) == "Lanza1999Prospects"
    assert bibtex_key(replace(LANZA, authors=(Author(literal=" "),))) == "Anon1999Prospects"


def test_bibtex_escapes_latex_specials_and_keeps_braces_balanced() -> None:
    nasty = "50% of R&D {costs} in $ for C# and snake_case ~ ^ \\ DNA"
    record = replace(LANZA, title=nasty, authors=(Author(literal="R & D Group"),))
    _, _, fields = _fields(bibtex_entry(record))
    assert fields["title"] == (
        r"50\% of {R\&D} \textbraceleft{}costs\textbraceright{} in \$ for {C\#} and "
        r"snake\_case \textasciitilde{} \textasciicircum{} \textbackslash{} {DNA}"
    )
    # A corporate author is one name, not a family name "Group" with given names "R & D".
    assert fields["author"] == r"{R \& D Group}"
    assert bibtex_escape("a_b") == r"a\_b"


def test_bibtex_protects_capitals_except_a_plain_first_word() -> None:
    record = replace(LANZA, title="Stonehenge and CRISPR in the iPhone era")
    _, _, fields = _fields(bibtex_entry(record))
    assert fields["title"] == "Stonehenge and {CRISPR} in the {iPhone} era"


def test_bibtex_leaves_out_what_the_record_lacks() -> None:
    _, _, fields = _fields(bibtex_entry(WHO))
    assert set(fields) == {"author", "title", "publisher"}


def _parse_with_bibtexparser(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """Entries as (type, key, fields) by bibtexparser, v2 or v1 API."""
    module: Any = pytest.importorskip("bibtexparser")
    if hasattr(module, "parse_string"):
        middlewares: Any = importlib.import_module("bibtexparser.middlewares")
        library = module.parse_string(
            text, append_middleware=[middlewares.LatexDecodingMiddleware()]
        )
        assert not library.failed_blocks
        return [(e.entry_type, e.key, {f.key: f.value for f in e.fields}) for e in library.entries]
    database = module.loads(text)
    return [
        (e["ENTRYTYPE"], e["ID"], {k: v for k, v in e.items() if k not in ("ENTRYTYPE", "ID")})
        for e in database.entries
    ]


def test_bibtex_parses_back_with_bibtexparser() -> None:
    records = [
        LANZA,
        PAKENHAM,
        REUTER,
        WHO,
        replace(LANZA, title="Costs & benefits: 50% of the C# snake_case budget"),
    ]
    text = "\n\n".join(bibtex_entry(r) for r in records)
    parsed = _parse_with_bibtexparser(text)
    assert [(kind, key) for kind, key, _ in parsed] == [
        ("article", "Lanza1999Prospects"),
        ("book", "Pakenham1979Boer"),
        ("incollection", "Reuter2003Australia"),
        ("book", "WorldndGlobal"),
        ("article", "Lanza1999Costs"),
    ]
    assert parsed[1][2]["publisher"].replace("\\&", "&") == "Weidenfeld & Nicolson"
    last_title = parsed[-1][2]["title"]
    for text_part in ("Costs", "&", "50%", "#", "snake_case"):
        assert text_part in last_title
