"""The per-citation fast paths give exactly what the code without them gives.

Each fast path skips work only when a cheap test proves the work changes nothing; these
properties compare it with the plain computation on text generated to hit the tests'
edges (spaces before stops, brackets, notes at the end, capitals, non-ASCII letters that
case-insensitive matching reads as ASCII).
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import OSA

from verifier import identifiers as ids
from verifier.citations import corrections, matching
from verifier.citations.corrections import ALL_CAPS_SHARE, is_all_caps
from verifier.citations.models import Author
from verifier.citations.normalize import transliteration_key
from verifier.citations.parsing import tail, text
from verifier.citations.parsing.tail import may_end_in_note, strip_trailing_notes
from verifier.citations.parsing.text import fix_spacing


def slow_fix_spacing(value: str) -> str:
    for pattern, replacement in text._SPACING_FIXES:
        value = pattern.sub(replacement, value)
    return " ".join(value.split())


def slow_strip_trailing_notes(value: str) -> str:
    value = value.strip(" .,;")
    for _ in range(3):
        stripped = tail._TRAILING_NOTE.sub("", value)
        if stripped == value:
            break
        value = stripped.strip(" .,;")
    return value


def slow_is_all_caps(title: str) -> bool:
    letters = [c for c in title if c.isalpha()]
    return len(letters) >= 8 and sum(c.isupper() for c in letters) >= ALL_CAPS_SHARE * len(
        letters)


REFERENCE_PIECES = st.sampled_from([
    " ", "  ", "\t", "\n", "\u00a0", ",", ";", ":", ".", "(", ")", "[", "]", "&", "?", "-",
    "and", "et", "andR", "Phys", "Rev", "J", "A", "Ab", "Abc", "abc", "É", "é", "ſ", "K",
    "1", "2004", "in press", "In Press", "to appear", "(in Russian)", "[Sov. Phys. 7]",
    "submitted", "resubmitted", "forthcoming", "accepted", "in preparation",
    "and references therein", "Portuguese", "(2nd ed.)", "(reprint 1990)", "PRESſ",
    "preſs", "(erratum)", "Title", "Smith, J.", "LM(1,p)Nucl", "glance.J",
])
REFERENCES = st.one_of(st.text(), st.lists(REFERENCE_PIECES | st.text(max_size=2)).map("".join))


@settings(max_examples=600)
@given(REFERENCES)
@example("Phys .Rev .D 70 ,036003 ( 2004)")
@example("Muir,T.L. andR. H. Smith & Jones?Title.Next glance.J Cell LM(1,p)Nucl. Phys.56")
@example("A plain reference. Journal, 12(3), 45-67.")
def test_fix_spacing_fast_path_is_the_slow_path(value: str) -> None:
    assert fix_spacing(value) == slow_fix_spacing(value)


# One text per fix, each with nothing else a fix would change.
EACH_FIX = ["Smith ,J", "Phys .Rev", "end .", "( 2004", "2004 )", "Muir,T", "andR. H",
            "Smith &Jones", "why?Then", "Phys.Rev", "glance.J", "p)Nucl", "Phys.56"]


def test_each_fix_alone_is_still_applied() -> None:
    for value in EACH_FIX:
        assert fix_spacing(value) == slow_fix_spacing(value) != " ".join(value.split()), value


@settings(max_examples=600)
@given(REFERENCES)
@example("A title (in Russian).")
@example("A title, in preſs")
@example("A title, to appear\n")
@example("A title [Sov. Phys. JETP 7, 172 (1958)]")
@example("A title, resubmitted \t.")
def test_a_text_said_to_end_without_a_note_has_none(value: str) -> None:
    if not may_end_in_note(value):
        assert tail._TRAILING_NOTE.search(value) is None


@settings(max_examples=600)
@given(REFERENCES)
@example("Smith, J. A title. Journal 7, 172 (1958) [in Russian] (to appear).")
def test_strip_trailing_notes_fast_path_is_the_slow_path(value: str) -> None:
    assert strip_trailing_notes(value) == slow_strip_trailing_notes(value)


def test_notes_are_still_stripped_and_plain_endings_skip_the_pattern() -> None:
    assert strip_trailing_notes("Nature 7, 172 (1958) (in Russian).") == "Nature 7, 172 (1958)"
    assert strip_trailing_notes("A title, in press.") == "A title"
    assert not may_end_in_note("Journal, 12(3), 45-67")
    assert not may_end_in_note("New York: Basic Books")
    assert may_end_in_note("New York: Basic Books, in press")


@settings(max_examples=600)
@given(st.one_of(st.text(), st.lists(st.sampled_from(
    ["A", "a", "B", "z", " ", "É", "é", "1", ":", "Ⅷ", "ǅ", "ß", "ADAPTIVE", "Rates"]
)).map("".join)))
@example("ADAPTIVE RATES OF THINGS")
@example("ADAPTIVE rates")
@example("ÉTUDES DES CHOSES")
def test_is_all_caps_fast_path_is_the_slow_path(title: str) -> None:
    assert is_all_caps(title) == slow_is_all_caps(title)


def test_the_ascii_count_reads_letters_only() -> None:
    assert corrections.is_all_caps("ADAPTIVE RATES 2019: A-B")
    assert not corrections.is_all_caps("ADAPTIVE RATES of things")
    assert not corrections.is_all_caps("ABC 123")  # fewer than 8 letters
    assert re.fullmatch(r"[A-Za-z]+", corrections._ASCII_LETTERS.decode())


# ---------------------------------------------------------------------------------------
# Author pairing: the loops over precomputed name keys pair exactly as before.


def slow_compatible(cited: matching._Name, found: matching._Name, slip_min: int) -> bool:
    """``_compatible`` as it was: transliteration keys recomputed, sets intersected."""
    if cited.organisation and found.organisation:
        return matching._organisations_agree(cited.organisation, found.organisation)
    ta = transliteration_key(cited.key)
    if (
        cited.variants & found.variants
        or (min(len(cited.key), len(found.key)) >= slip_min and cited.key != found.key
            and (cited.key[:2] == found.key[1::-1] and cited.key[2:] == found.key[2:]
                 if cited.key[0] != found.key[0]
                 else OSA.distance(cited.key, found.key, score_cutoff=1) <= 1))
        or (bool(ta) and ta == transliteration_key(found.key))
    ):
        return matching._initials_agree(cited.initials, found.initials)
    swapped = cited.variants & found.given_keys
    return bool(swapped) and (
        not cited.initials or any(v.startswith(cited.initials[0]) for v in found.variants)
    )


def slow_count_shared(cited: list[Author], found: list[Author], slip_min: int
                      ) -> tuple[int, bool]:
    """``_count_shared`` as it was (generator scans over a set of used indices)."""
    cited_names = [matching._name(a) for a in cited]
    found_names = [matching._name(a) for a in found]
    used: set[int] = set()
    unmatched = []
    for name in cited_names:
        exact = next((i for i, other in enumerate(found_names) if i not in used and name.key
                      and name.key == other.key and name.initials[:1] == other.initials[:1]),
                     None)
        if exact is None:
            unmatched.append(name)
        else:
            used.add(exact)
    shared = len(cited_names) - len(unmatched)
    first_paired = not unmatched or unmatched[0] is not cited_names[0]
    for name in unmatched:
        loose = next((i for i, other in enumerate(found_names)
                      if i not in used and slow_compatible(name, other, slip_min)), None)
        if loose is not None:
            used.add(loose)
            shared += 1
            first_paired = first_paired or name is cited_names[0]
    return shared, first_paired


FAMILIES = ["Smith", "Smyth", "Smiht", "mSith", "Smithson", "Zhang", "Jun", "Li", "Lu",
            "van der Berg", "Berg", "Tchaikovsky", "Chaikovskii", "Granovetter",
            "Granoveter", "Kim", "Müller", "Mueller", "Parker Pearson", "Pearson", ""]
GIVENS = ["", "J.", "John", "Mary", "M. R.", "Jun", "Zhang", "Y.", "Alan J."]
LITERALS = ["World Health Organization", "WHO", "Gregory the Great", "John Smith",
            "Zhang Jun", "UNESCO", ""]
AUTHORS = st.one_of(
    st.builds(lambda f, g: Author(family=f, given=g), st.sampled_from(FAMILIES),
              st.sampled_from(GIVENS)),
    st.builds(lambda lit: Author(literal=lit), st.sampled_from(LITERALS)),
)


@settings(max_examples=800)
@given(st.lists(AUTHORS, max_size=6), st.lists(AUTHORS, max_size=6),
       st.sampled_from([matching.SLIP_MIN_LENGTH, matching.SHORT_SLIP_MIN_LENGTH]))
def test_author_pairing_counts_as_before(cited: list[Author], found: list[Author],
                                         slip_min: int) -> None:
    cited = [a for a in cited if a.family or a.literal]
    found = [a for a in found if a.family or a.literal]
    if cited and found:
        assert matching._count_shared(cited, found, slip_min) == \
            slow_count_shared(cited, found, slip_min)


def test_pairing_is_one_to_one_and_exact_pairs_first() -> None:
    # "Kim, Y." must pair with the record's "Kim, Y.", not be used up by "Kim, J.".
    cited = [Author(family="Kim", given="J."), Author(family="Kim", given="Y.")]
    found = [Author(family="Kim", given="Y."), Author(family="Kim", given="J.")]
    assert matching._count_shared(cited, found) == (2, True)
    # One record author pairs with one cited author only.
    assert matching._count_shared(cited, found[:1]) == (1, False)


def test_the_names_memo_never_answers_for_another_author_list() -> None:
    # Tuples freed and made anew often reuse an id: the memo must see they differ.
    for n in range(300):
        first = (Author(family=f"Family{n}", given="A."),)
        assert [x.key for x in matching._names(first)] == [f"family{n}"]
        del first
        second = (Author(family=f"Other{n}", given="B."), Author(literal="WHO"))
        assert [x.key for x in matching._names(second)] == [f"other{n}", "who"]
    # A list may change after it was seen: it is never remembered.
    authors = [Author(family="Smith")]
    assert [x.key for x in matching._names(authors)] == ["smith"]
    authors[0] = Author(family="Jones")
    assert [x.key for x in matching._names(authors)] == ["jones"]


def test_the_names_memo_stays_bounded() -> None:
    kept = [(Author(family=f"F{n}"),) for n in range(matching._NAMED_MEMO_SIZE * 2)]
    for authors in kept:
        matching._names(authors)
    assert len(matching._named_memo) <= matching._NAMED_MEMO_SIZE


# ---------------------------------------------------------------------------------------
# Identifier finders: a pattern is skipped only when it cannot match.

ID_PIECES = st.sampled_from([
    "10.", "10.1038/", "10.48550/arXiv.", "1038", "%2F", "%2f", "/", "://", "https", "HTTP",
    "arXiv:", "ARXIV ", "arxiv.org/abs/", "arxıv:", "arxİv", "2101.00001", "hep-th/9901001",
    "PMID: ", "pmid", "pubmed.ncbi.nlm.nih.gov/", "ncbi.nlm.nih.gov/pubmed/", "NCBI",
    "PMC", "pmc", "PMC1069123", "ISSN ", "eISSN: ", "iſſn", "IßN", "0028-0836", "1234567",
    "K", "ſ", "ı", "İ", " ", ".", "(", ")", "x", "é",
])
ID_TEXTS = st.one_of(st.text(), st.lists(ID_PIECES | st.text(max_size=2)).map("".join))


@settings(max_examples=800)
@given(ID_TEXTS)
@example("see arxıv:2101.00001")
@example("eIſſN 0028-0836")
@example("pmc1069123")
def test_identifier_patterns_are_skipped_only_when_they_cannot_match(value: str) -> None:
    if "10." not in value:
        assert ids._DOI.search(ids._ENCODED_SLASH.sub("/", value)) is None
    if "://" not in value:
        assert ids._URL.search(value) is None
    if not ids._may_hold(value, "arxiv"):
        assert ids._ARXIV.search(value) is None
    if not ids._may_hold(value, "pmid", "ncbi"):
        assert ids._PMID.search(value) is None
    if not ids._may_hold(value, "pmc"):
        assert ids._PMCID.search(value) is None
    if not ids._may_hold(value, "issn"):
        assert ids._ISSN.search(value) is None


def test_identifiers_are_still_found_through_the_fast_paths() -> None:
    text = ("Nature 407. https://doi.org/10.1038/35038010. arXiv:2101.00001v2 PMID: 123 "
            "PMC1069123 ISSN 0028-0836")
    assert ids.find_doi(text) == "10.1038/35038010"
    assert ids.find_url("x http://example.org/a") == "http://example.org/a"
    assert ids.find_arxiv(text) == "2101.00001"
    assert ids.find_arxiv("arxıv:2101.00001") == ids._arxiv_id(
        ids._ARXIV.search("arxıv:2101.00001"))  # type: ignore[arg-type]
    assert ids.find_pmid(text) == "123"
    assert ids.find_pmcid(text) == "PMC1069123"
    assert ids.find_issns(text) == ("0028-0836",)
