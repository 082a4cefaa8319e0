"""Verdicts users act on: retracted works said so in the report and the correction,
citations without authors verified on their other fields, and corrections that are
never worse than what was cited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters._text import registered_doi
from verifier.citations.corrections import correction_from_results
from verifier.citations.discrepancies import containers_agree, discrepancies, numbers_agree
from verifier.citations.inputs import read_citations
from verifier.citations.matching import score_record
from verifier.citations.models import (
    Author,
    Citation,
    CitationInput,
    Identifiers,
    Retraction,
    SourceResult,
    SourceStatus,
    Status,
    WorkRecord,
    WorkType,
)
from verifier.citations.parsing import parse_citation
from verifier.citations.results_report import report_from_results


def record(source: str = "crossref", **fields: Any) -> WorkRecord:
    base: dict[str, Any] = {"source_id": f"{source}-1", "url": "", "title": "A title"}
    base.update(fields)
    return WorkRecord(source=source, **base)


def matched(*records: WorkRecord) -> dict[str, SourceResult]:
    return {r.source: SourceResult(SourceStatus.MATCH, r) for r in records}


WAKEFIELD: dict[str, Any] = {
    "title": "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive "
          "developmental disorder in children",
    "authors": (Author("Wakefield", "A. J."), Author("Murch", "S. H.")),
    "year": 1998, "container": "The Lancet", "volume": "351", "issue": "9103", "pages": "637-641",
    "type": WorkType.ARTICLE, "identifiers": Identifiers(doi="10.1016/S0140-6736(97)11096-0"),
}


# -- item 12: retractions ----------------------------------------------------------------


def test_a_retracted_work_is_flagged_and_noted_in_the_correction() -> None:
    cited = parse_citation("Wakefield, A. J., & Murch, S. H. (1998). Ileal-lymphoid-nodular "
                           "hyperplasia, non-specific colitis, and pervasive developmental "
                           "disorder in children. The Lancet, 351(9103), 637-641.")
    results = matched(record(retracted=True, **WAKEFIELD),
                      record("openalex", retracted=None, **WAKEFIELD))
    report = report_from_results(CitationInput("w", 0, "w"), cited, results)
    assert report.status is Status.VERIFIED
    assert report.retraction is Retraction.RETRACTED
    assert "retracted" in report.flags
    assert report.correction is not None
    assert "[Retracted]" in report.correction.apa
    assert "note = {Retracted}" in report.correction.bibtex


def test_a_clean_work_carries_no_retraction_flag_or_note() -> None:
    cited = parse_citation("Wakefield, A. J. (1998). Ileal-lymphoid-nodular hyperplasia, "
                           "non-specific colitis, and pervasive developmental disorder in "
                           "children. The Lancet.")
    results = matched(record(retracted=False, **WAKEFIELD), record("openalex", **WAKEFIELD))
    report = report_from_results(CitationInput("w", 0, "w"), cited, results)
    assert report.retraction is Retraction.CLEAN
    assert "retracted" not in report.flags
    assert report.correction is not None and "etracted" not in report.correction.apa


# -- item 13: citations without authors --------------------------------------------------

ANON: dict[str, Any] = {
    "title": "Adverse effects of sodium valproate in pregnancy: a cohort study",
    "authors": (Author("Smith", "J."), Author("Doe", "A.")),
    "year": 2011, "container": "Journal of Neurology", "volume": "12", "pages": "45-67",
    "type": WorkType.ARTICLE,
}


def test_an_authorless_citation_matched_exactly_on_its_other_fields_is_verified() -> None:
    cited = parse_citation("Adverse effects of sodium valproate in pregnancy: a cohort study. "
                           "(2011). Journal of Neurology.")
    assert not cited.authors and cited.year == 2011 and cited.container
    results = matched(record(**ANON), record("openalex", **ANON))
    report = report_from_results(CitationInput("a", 0, "a"), cited, results)
    assert score_record(cited, record(**ANON)).is_match
    assert report.status is Status.VERIFIED
    assert "no_authors_cited" in report.flags


def test_an_authorless_citation_with_a_real_title_but_wrong_year_and_journal_is_no_match(
) -> None:
    cited = Citation(title=str(ANON["title"]), year=2019, container="Lancet Oncology",
                     type=WorkType.ARTICLE)
    assert not score_record(cited, record(**ANON)).is_match
    # ... nor on the title alone, nor with one field of two wrong.
    assert not score_record(Citation(title=str(ANON["title"])), record(**ANON)).is_match
    wrong_year = Citation(title=str(ANON["title"]), year=2019, container="J. Neurol.")
    assert not score_record(wrong_year, record(**ANON)).is_match


def test_an_authorless_citation_needs_a_near_exact_title() -> None:
    cited = Citation(title="Adverse effects of sodium valproate in pregnancy: a cohort review",
                     year=2011, container="Journal of Neurology", type=WorkType.ARTICLE)
    assert not score_record(cited, record(**ANON)).is_match


# -- item 14: corrections no worse than the input ----------------------------------------


def correct(cited: Citation, *records: WorkRecord, key: str = "") -> tuple[str, str]:
    correction = correction_from_results(cited, matched(*records), [r.source for r in records],
                                         key=key)
    assert correction is not None
    return correction.apa, correction.bibtex


def test_the_cited_bibtex_key_is_kept() -> None:
    cited = Citation(title="A title", authors=(Author("Lanza", "R."),))
    _, bibtex = correct(cited, record(authors=(Author("Lanza", "R."),), year=1999),
                        key="lanza-nature-99")
    assert bibtex.startswith("@misc{lanza-nature-99,\n")
    _, derived = correct(cited, record(authors=(Author("Lanza", "R."),), year=1999))
    assert derived.startswith("@misc{Lanza1999Title,\n")


def test_an_all_caps_record_title_is_not_copied_when_the_cited_words_are_the_same() -> None:
    cited = Citation(title="Adaptive rates of things in the NHS", type=WorkType.ARTICLE)
    apa, bibtex = correct(cited, record(title="ADAPTIVE RATES OF THINGS IN THE NHS"))
    assert "Adaptive rates of things in the {NHS}" in bibtex
    assert "Adaptive rates of things in the NHS." in apa
    assert "ADAPTIVE" not in apa + bibtex


def test_an_all_caps_title_with_other_words_is_not_braced_in_capitals() -> None:
    cited = Citation(title="Adaptive rate of thing", type=WorkType.ARTICLE)
    apa, bibtex = correct(cited, record(title="ADAPTIVE RATES OF THINGS"))
    assert "{ADAPTIVE}" not in bibtex and "ADAPTIVE" not in apa
    assert "title = {Adaptive rates of things}" in bibtex


def test_the_cited_casing_is_kept_when_the_words_agree() -> None:
    cited = Citation(title="Prospects for the Use of Nuclear Transfer in Human Transplantation")
    apa, _ = correct(cited, record(
        title="Prospects for the use of nuclear transfer in human transplantation"))
    assert "Prospects for the Use of Nuclear Transfer in Human Transplantation." in apa


def test_a_longer_matching_title_is_not_replaced_by_a_shorter_one() -> None:
    full = "Graphs, maps, trees: Abstract models for a literary history"
    cited = Citation(title=full, authors=(Author("Moretti", "F."),), type=WorkType.BOOK)
    short = record("openlibrary", title="Graphs, maps, trees", type=WorkType.BOOK,
                   authors=(Author("Moretti", "Franco"),))
    apa, bibtex = correct(cited, short)
    assert full in apa and "{Abstract} models for a literary history" in bibtex
    # Between records too: the record that gives the subtitle wins over a shorter best.
    apa, _ = correct(Citation(title="Graphs, maps, trees"), short,
                     record("googlebooks", title=full))
    assert full in apa


def test_a_thesis_is_a_thesis_entry_with_its_school() -> None:
    cited = Citation(title="On things", type=WorkType.THESIS)
    _, bibtex = correct(cited, record(title="On things", type=WorkType.THESIS,
                                      publisher="University of Oxford", year=2001,
                                      authors=(Author("Roe", "C."),)))
    assert bibtex.startswith("@phdthesis{")
    assert "school = {University of Oxford}" in bibtex and "publisher" not in bibtex
    _, masters = correct(cited, record(title="On things", type=WorkType.THESIS,
                                       container="Master's thesis",
                                       publisher="University of Oxford"))
    assert masters.startswith("@mastersthesis{")


def test_a_doi_is_kept_as_registered() -> None:
    registered = "10.1037/0003-066X.59.1.29"
    assert registered_doi(f"https://doi.org/{registered}") == registered
    cited = Citation(title="A title")
    apa, bibtex = correct(cited, record(identifiers=Identifiers(doi="10.1037/0003-066X.59.1.29")))
    assert "doi = {10.1037/0003-066X.59.1.29}" in bibtex
    assert "https://doi.org/10.1037/0003-066X.59.1.29" in apa


@pytest.mark.parametrize(("cited", "found"), [("LIX", "59"), ("vol. XII", "12"), ("iv", "4")])
def test_roman_volume_numbers_agree_with_arabic(cited: str, found: str) -> None:
    assert numbers_agree(cited, found)
    assert not numbers_agree("LIX", "58")


@pytest.mark.parametrize("found", [
    "Proceedings of the National Academy of Sciences",
    "Proceedings of the National Academy of Sciences of the United States of America",
])
def test_pnas_abbreviated_with_its_country_is_the_same_journal(found: str) -> None:
    assert containers_agree("Proc. Natl. Acad. Sci. U.S.A.", found)
    assert containers_agree("Proc Natl Acad Sci USA", found)
    assert not containers_agree("Proc. Natl. Acad. Sci. U.S.A.", "Proceedings of the Royal "
                                                                  "Society B")


def test_volume_and_journal_forms_are_not_discrepancies() -> None:
    cited = Citation(title="A title", authors=(Author("Roe", "C."),), volume="LIX",
                     container="Proc. Natl. Acad. Sci. U.S.A.")
    found = record(title="A title", authors=(Author("Roe", "C."),), volume="59",
                   container="Proceedings of the National Academy of Sciences")
    assert discrepancies(cited, matched(found), ("crossref",)) == ()



def test_the_key_of_a_bibtex_item_is_the_key_of_its_correction(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{wakefield-lancet-1998, title = {Ileal-lymphoid-nodular "
                   "hyperplasia, non-specific colitis, and pervasive developmental disorder "
                   "in children}, author = {Wakefield, A. J. and Murch, S. H.}, year = 1998}\n")
    [item] = list(read_citations(bib))
    assert isinstance(item, CitationInput) and item.fields is not None
    assert item.key == "wakefield-lancet-1998"
    report = report_from_results(item, item.fields, matched(record(**WAKEFIELD),
                                                            record("openalex", **WAKEFIELD)))
    assert report.correction is not None
    assert report.correction.bibtex.startswith("@article{wakefield-lancet-1998,\n")
