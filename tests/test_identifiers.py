from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.citations.identifiers import find_identifiers
from verifier.identifiers import (
    find_arxiv,
    find_arxiv_versioned,
    find_doi,
    find_isbns,
    find_issns,
    find_pmcid,
    find_pmid,
    find_url,
    isbn10_to_13,
    isbn13_to_10,
    isbn_is_valid,
    issn_is_valid,
    normalize_doi,
    normalize_isbn,
    normalize_issn,
    split_arxiv_version,
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


# ---------------------------------------------------------------------------------------
# DOI: links with query strings, brackets


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://doi.org/10.1038/35038010?utm_source=feed&x=1", "10.1038/35038010"),
        ("https://doi.org/10.1038/35038010#abstract", "10.1038/35038010"),
        (
            "https://onlinelibrary.wiley.com/doi/full/10.1111/j.1752-7325.2006.tb02578.x?af=R",
            "10.1111/j.1752-7325.2006.tb02578.x",
        ),
        ("(see doi:10.1000/xyz123).", "10.1000/xyz123"),
        ("[https://doi.org/10.1000/ABC]", "10.1000/abc"),
        ("DOI 10.1000/abc;", "10.1000/abc"),
    ],
)
def test_find_doi_in_links_and_brackets(text: str, expected: str) -> None:
    assert find_doi(text) == expected


def test_a_question_mark_outside_a_link_stays_with_the_doi() -> None:
    # Only a link has a query string; "?" may be part of a DOI written out.
    assert find_doi("doi:10.1000/a?b") == "10.1000/a?b"


def test_normalize_doi_drops_a_links_query() -> None:
    assert normalize_doi("https://doi.org/10.1038/ABC?via=x") == "10.1038/abc"
    assert normalize_doi(" HTTPS://DX.DOI.ORG/10.1038/abc# ") == "10.1038/abc"


# ---------------------------------------------------------------------------------------
# ISBN


def test_isbn_conversions() -> None:
    assert isbn10_to_13("0-306-40615-2") == "9780306406157"
    assert isbn10_to_13("080442957X") == "9780804429573"
    assert isbn10_to_13("0306406153") is None  # bad check digit
    assert isbn10_to_13("9780306406157") is None  # not an ISBN-10
    assert isbn13_to_10("978-0-306-40615-7") == "0306406152"
    assert isbn13_to_10("9780804429573") == "080442957X"
    assert isbn13_to_10("9791234567896") is None  # 979: no ISBN-10 exists
    assert isbn13_to_10("9780306406158") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0-306-40615-2", "9780306406157"),
        ("ISBN 0 306 40615 2", "9780306406157"),
        ("978-0-306-40615-7", "9780306406157"),
        ("ISBN-13: 978 0 306 40615 7", "9780306406157"),
        ("0-8044-2957-x", "9780804429573"),
        ("9791234567896", "9791234567896"),
        ("0-306-40615-3", None),
        ("12345", None),
        ("", None),
    ],
)
def test_normalize_isbn(text: str, expected: str | None) -> None:
    assert normalize_isbn(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Labelled, with or without hyphens or spaces, an ISBN-10 ending in X.
        ("ISBN: 0-8044-2957-X.", ("080442957X",)),
        ("ISBN 978 0 306 40615 7", ("9780306406157",)),
        ("ISBN-13 (pbk.): 9780306406157", ("9780306406157",)),
        ("ISBN 0306406152", ("0306406152",)),
        # A labelled list.
        ("ISBN 978-0-306-40615-7, 0-8044-2957-X", ("9780306406157", "080442957X")),
        # Unlabelled: a 978/979 ISBN-13, or an ISBN-10 in its hyphenated four groups.
        ("London: Plenum, 1994. 978-0-306-40615-7.", ("9780306406157",)),
        ("Plenum 9780306406157", ("9780306406157",)),
        ("Plenum, 0-306-40615-2", ("0306406152",)),
        # ... but not ten bare digits that happen to check.
        ("Call 0306406152 for details", ()),
        # A year before an unlabelled ISBN is not swallowed.
        ("London 2003 978-0-306-40615-7", ("9780306406157",)),
        # An ISBN inside a Springer chapter DOI belongs to the DOI.
        ("https://doi.org/10.1007/978-3-319-24277-4_9", ()),
    ],
)
def test_find_isbns_forms(text: str, expected: tuple[str, ...]) -> None:
    assert find_isbns(text) == expected


def test_a_phone_number_is_not_an_isbn() -> None:
    # Thirteen digits that start like an ISBN-13 but fail its check digit.
    phone = "Tel. 978-555-0123-45-6"
    assert not isbn_is_valid("9785550123456")
    assert find_isbns(phone) == ()
    assert find_isbns("ISBN 978-555-0123-45-6") == ()
    # Shaped like a hyphenated ISBN-10: only the check digit tells them apart.
    assert find_isbns("Freephone 0-800-12345-6") == ()
    assert find_isbns("Freephone 0-800-12345-X") == ("080012345X",)


# ---------------------------------------------------------------------------------------
# ISSN


def test_normalize_issn() -> None:
    assert normalize_issn("0028-0836") == "0028-0836"
    assert normalize_issn("00280836") == "0028-0836"
    assert normalize_issn("ISSN 1476-4687") == "1476-4687"
    assert normalize_issn("2434-561x") == "2434-561X"
    assert normalize_issn("2434-5610") is None
    assert normalize_issn("0028-083") is None
    assert issn_is_valid("2434-561X")


def test_find_issns_labels_and_page_ranges() -> None:
    assert find_issns("ISSN (online): 2434-561x") == ("2434-561X",)
    assert find_issns("p-ISSN 0028-0836; e-ISSN 1476-4687") == ("0028-0836", "1476-4687")
    # An unlabelled ISSN-shaped number is a page range as often as not.
    assert find_issns("Nature, 407, 0028-0836") == ()


# ---------------------------------------------------------------------------------------
# arXiv


@pytest.mark.parametrize(
    ("text", "bare", "versioned"),
    [
        ("arXiv:2101.00001v3", "2101.00001", "2101.00001v3"),
        ("arXiv 0704.0001", "0704.0001", "0704.0001"),
        ("https://arxiv.org/pdf/2101.00001v2.pdf", "2101.00001", "2101.00001v2"),
        ("https://doi.org/10.48550/arXiv.2101.00001", "2101.00001", "2101.00001"),
        ("arXiv:hep-th/9901001v2", "hep-th/9901001", "hep-th/9901001v2"),
        ("arXiv:math.AG/0601001", "math/0601001", "math/0601001"),
        ("arXiv:cond-mat.stat-mech/0601001", "cond-mat/0601001", "cond-mat/0601001"),
    ],
)
def test_arxiv_ids_and_versions(text: str, bare: str, versioned: str) -> None:
    assert find_arxiv(text) == bare
    assert find_arxiv_versioned(text) == versioned
    assert split_arxiv_version(versioned)[0] == bare


@pytest.mark.parametrize(
    "text",
    [
        "arXiv:2113.00001",  # no 13th month
        "arXiv:2101.000012",  # six digits
        "2101.00001 without a label",
        "arXiv:hep-th/99010",
    ],
)
def test_not_arxiv_ids(text: str) -> None:
    assert find_arxiv(text) is None
    assert find_arxiv_versioned(text) is None


def test_split_arxiv_version() -> None:
    assert split_arxiv_version("1810.04805v2") == ("1810.04805", 2)
    assert split_arxiv_version("1810.04805") == ("1810.04805", None)
    assert split_arxiv_version("hep-th/9901001v10") == ("hep-th/9901001", 10)


# ---------------------------------------------------------------------------------------
# PubMed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PMID: 30612345", "30612345"),
        ("PMID 30612345.", "30612345"),
        ("pmid:30612345", "30612345"),
        ("https://www.ncbi.nlm.nih.gov/pubmed/30612345", "30612345"),
        ("Lancet 2019; 393: 30612345", None),
        ("30612345", None),
    ],
)
def test_pmid_only_when_labelled(text: str, expected: str | None) -> None:
    assert find_pmid(text) == expected


def test_pmcid() -> None:
    assert find_pmcid("PMCID: pmc10484980") == "PMC10484980"
    assert find_pmcid("no id 10484980") is None


def test_find_identifiers_fills_every_kind() -> None:
    ids = find_identifiers(
        "Walters, W. H., & Wilder, E. I. (2023). Fabrication and errors in the bibliographic "
        "citations generated by ChatGPT. Scientific Reports, 13, 14045. "
        "https://doi.org/10.1038/s41598-023-41032-5 PMID: 37679513 PMCID: PMC10484980 "
        "ISSN 2045-2322 arXiv:2101.00001v2 ISBN 978-0-306-40615-7 "
        "https://www.nature.com/articles/s41598-023-41032-5"
    )
    assert ids.doi == "10.1038/s41598-023-41032-5"
    assert ids.pmid == "37679513"
    assert ids.pmcid == "PMC10484980"
    assert ids.issn == ("2045-2322",)
    assert ids.arxiv == "2101.00001"
    assert ids.isbn == ("9780306406157",)
    assert ids.url == "https://www.nature.com/articles/s41598-023-41032-5"


def test_valid_isbns_keeps_the_valid_ones_in_order_without_repeats() -> None:
    from verifier.identifiers import valid_isbns

    assert valid_isbns(["ISBN 0-306-40615-2", "978-0-306-40615-7", "0306406152",
                        "0-306-40615-3", "not an isbn"]) == ["0306406152", "9780306406157"]


_DOI_FIELD_PIECES = st.sampled_from([
    "10.1000/ABC", "https://", "http://", "HTTPS://", "dx.", "DX.", "doi.org/", "DOI.ORG/",
    "doi:", "DOI: ", "doi ", "hdl:", "d", "h", " ", "\t", "\u00a0", "\u212a", "\u017f",
    "\u0130", "ǅ", "x", "/", ".",
])


@given(st.lists(_DOI_FIELD_PIECES, max_size=6).map("".join) | st.text(max_size=20),
       st.booleans())
def test_a_bare_doi_skips_the_prefix_search_and_gives_what_it_would(text: str,
                                                                     lower: bool) -> None:
    from verifier.identifiers import _DOI_PREFIX, strip_doi_prefix
    slow = _DOI_PREFIX.sub("", text.strip(), count=1).strip()
    assert strip_doi_prefix(text, lower=lower) == (slow.lower() if lower else slow)
