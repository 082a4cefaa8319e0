from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.identifiers import (
    find_arxiv,
    find_doi,
    find_identifiers,
    find_isbns,
    find_issns,
    find_pmcid,
    find_pmid,
    find_url,
    isbn_is_valid,
    normalize_doi,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://doi.org/10.3102/00346543076002409", "10.3102/00346543076002409"),
        ("http://dx.doi.org/10.1038/35038010", "10.1038/35038010"),
        ("doi:10.1056/NEJMoa2001017", "10.1056/nejmoa2001017"),
        ("DOI: 10.1016/J.ENPOL.2022.111740", "10.1016/j.enpol.2022.111740"),
        ("Nature, 385(6619), 810-813. 10.1038/385810a0", "10.1038/385810a0"),
        # Trailing sentence punctuation is not part of the DOI.
        ("see https://doi.org/10.1038/35038010.", "10.1038/35038010"),
        ("10.1038/35038010, and more", "10.1038/35038010"),
        ("10.1038/35038010;", "10.1038/35038010"),
        # Balanced brackets belong to the DOI, an unbalanced closing one does not.
        ("https://doi.org/10.1016/S0140-6736(19)31146-8", "10.1016/s0140-6736(19)31146-8"),
        ("(https://doi.org/10.1016/S0169-5347(03)00080-0).", "10.1016/s0169-5347(03)00080-0"),
        ("(doi:10.1000/xyz123)", "10.1000/xyz123"),
        ("https://doi.org/10.1000%2Fabc", "10.1000/abc"),
        ("“10.1000/abc”", "10.1000/abc"),
    ],
)
def test_find_doi_forms(text: str, expected: str) -> None:
    assert find_doi(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "no identifier here", "10.12/abc (registrant too short)", "10.1234/", "v10.1234/x"],
)
def test_find_doi_none(text: str) -> None:
    assert find_doi(text) is None


def test_find_doi_takes_the_first() -> None:
    assert find_doi("10.1000/first and 10.1000/second") == "10.1000/first"


def test_normalize_doi() -> None:
    assert normalize_doi("https://doi.org/10.1038/ABC.") == "10.1038/abc"
    assert normalize_doi("doi: 10.1038/abc") == "10.1038/abc"
    assert normalize_doi("10.1038/abc") == "10.1038/abc"
    assert normalize_doi("not a doi") is None


def test_find_url_skips_doi_links_and_trims() -> None:
    text = "https://doi.org/10.1/x then see https://www.iep.utm.edu/purgatory/."
    assert find_url(text) == "https://www.iep.utm.edu/purgatory/"
    assert find_url("https://doi.org/10.1000/abc") is None


def test_arxiv_forms() -> None:
    assert find_arxiv("arXiv preprint arXiv:1810.04805v2.") == "1810.04805"
    assert find_arxiv("https://arxiv.org/abs/2101.00001") == "2101.00001"
    assert find_arxiv("arXiv:hep-th/9901001") == "hep-th/9901001"
    assert find_arxiv("version 1810.04805 of something") is None
    ids = find_identifiers("https://doi.org/10.48550/arXiv.2101.00001")
    assert ids.arxiv == "2101.00001"
    assert ids.doi == "10.48550/arxiv.2101.00001"


def test_pubmed_ids() -> None:
    assert find_pmid("Lancet. 2019;393:1-9. PMID: 30612345.") == "30612345"
    assert find_pmid("https://pubmed.ncbi.nlm.nih.gov/30612345/") == "30612345"
    assert find_pmid("page 30612345") is None
    assert find_pmcid("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1069123/") == "PMC1069123"


def test_isbn_check_digits() -> None:
    assert isbn_is_valid("9780306406157")
    assert not isbn_is_valid("9780306406158")
    assert isbn_is_valid("0306406152")
    assert isbn_is_valid("080442957X")
    assert not isbn_is_valid("0306406153")
    assert find_isbns("ISBN 978-0-306-40615-7. ISBN-10: 0-306-40615-2") == (
        "9780306406157",
        "0306406152",
    )
    # A mistyped ISBN is not reported as one.
    assert find_isbns("ISBN 978-0-306-40615-8") == ()
    # A following year is not swallowed into the number.
    assert find_isbns("ISBN 0-306-40615-2 2003") == ("0306406152",)


def test_issn_check_digits() -> None:
    assert find_issns("Nature (ISSN 0028-0836)") == ("0028-0836",)
    assert find_issns("ISSN 0028-0837") == ()
    assert find_issns("eISSN: 1476-4687") == ("1476-4687",)


def test_find_identifiers_on_a_web_citation() -> None:
    ids = find_identifiers(
        "US Department of Agriculture. (2021). National School Lunch Program. Retrieved from "
        "https://www.fns.usda.gov/nslp/national-school-lunch-program"
    )
    assert ids.doi is None
    assert ids.url == "https://www.fns.usda.gov/nslp/national-school-lunch-program"
    assert ids.is_empty()


def test_find_identifiers_on_a_dx_doi_link() -> None:
    ids = find_identifiers(
        "Pongo abelii. The IUCN Red List of Threatened Species 2017: e.T39780A115575085. "
        "https://dx.doi.org/10.2305/IUCN.UK.2017-3.RLTS.T39780A115575085.en"
    )
    assert ids.doi == "10.2305/iucn.uk.2017-3.rlts.t39780a115575085.en"
    assert ids.url is None


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_find_doi_never_raises_and_is_canonical(text: str) -> None:
    doi = find_doi(text)
    if doi is not None:
        assert doi.startswith("10.")
        assert doi == doi.lower()
        assert not doi.endswith((".", ",", ";", ":"))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("10./()[];:,. abcXISBN-PMIDarXivhttps:"), max_size=60))
def test_find_identifiers_never_raises(text: str) -> None:
    ids = find_identifiers(text)
    assert all(isbn_is_valid(isbn) for isbn in ids.isbn)


def test_a_service_doi_field_keeps_every_character_of_a_sici_doi() -> None:
    from verifier.identifiers import strip_doi_prefix

    sici = "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0"
    assert strip_doi_prefix("https://doi.org/" + sici) == sici.lower()
    assert strip_doi_prefix(" doi: 10.1/ABC ") == "10.1/abc"
