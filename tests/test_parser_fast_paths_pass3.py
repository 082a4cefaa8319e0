"""The rule parser's third-pass fast paths give exactly what the plain computations give.

Each property compares a fast path with the computation it replaced (kept here as the
"slow" version, or the original pattern) on text generated to reach the edges of the
fast path's condition.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier.citations.parsing import imprint, names, source, text

# ---------------------------------------------------------------------------------------
# Folded twins: a case-insensitive search as a case-sensitive one on the lower case


def _random_case(pieces: list[tuple[str, list[bool]]]) -> str:
    return "".join(
        "".join(c.upper() if up else c for c, up in zip(piece, flags, strict=False))
        + piece[len(flags) :]
        for piece, flags in pieces
    )


FOLD_PIECES = st.sampled_from([
    "press", "publishing", "publications", "university", "universitat", "inc.", "co.",
    "s.a.", "OUP", "oup", "Cup", "MIT", "mit", "organisation", "organization", "journal",
    "j.", "J.", "review", "times", "news", "2nd", "3rd ", "ed", "ed.", "edn", "edition",
    "aufl", "Auflage", "first", "revised", "rev.", "student", "thesis", "phd", "Ph.D.",
    "diss.", "doctoral dissertation", "tech", "technical report", "tr-12", "TR 5",
    "cmu-cs", "working paper", "memorandum", "report", "preprint", "ème", "Dissertação",
    " ", ", ", ". ", "(", ")", "1", "12", "-", "a", "x", "k", "s", "i", "ſ", "K", "İ", "ı",
    "\n", "ab", "ABC", "WHO",
])
FOLD_TEXTS = st.one_of(
    st.text(max_size=30),
    st.lists(
        st.tuples(FOLD_PIECES, st.lists(st.booleans(), max_size=12)), max_size=10
    ).map(_random_case),
)

TWINS = [
    (imprint._EDITION, imprint._EDITION_FOLDED),
    (imprint._THESIS, imprint._THESIS_FOLDED),
    (imprint._REPORT, imprint._REPORT_FOLDED),
    (source._JOURNAL_NAME, source._JOURNAL_NAME_FOLDED),
]


def _spans(match: re.Match[str] | None) -> object:
    if match is None:
        return None
    return match.span(), [match.span(g) for g in range(1, (match.re.groups or 0) + 1)]


@settings(max_examples=600, deadline=None)
@given(FOLD_TEXTS)
@example("Second Edition")
@example("2nd ED.")
@example("J. Phys")
@example("WHO")
@example("Technical Report TR-12")
def test_a_folded_twin_matches_the_lower_case_where_and_as_its_pattern_matches(
    value: str,
) -> None:
    if not value.isascii():
        value = value.encode("ascii", "ignore").decode()
    for pattern, twin in TWINS:
        assert _spans(twin.search(value.lower())) == _spans(pattern.search(value))
        assert _spans(twin.match(value.lower())) == _spans(pattern.match(value))


@settings(max_examples=600, deadline=None)
@given(FOLD_TEXTS)
@example("Oxford: OUP")
@example("oup")
@example("The MIT Press")
@example("Verlag ſ")
def test_a_publisher_word_is_found_as_the_full_pattern_finds_it(value: str) -> None:
    assert imprint.publisher_word(value) == bool(imprint.PUBLISHER_WORDS.search(value))
    assert text.folded_search(
        source._JOURNAL_NAME, source._JOURNAL_NAME_FOLDED, value
    ) == bool(source._JOURNAL_NAME.search(value))


def test_a_pattern_with_a_scoped_flag_has_no_folded_twin() -> None:
    with pytest.raises(ValueError, match="scoped flag"):
        text.ascii_folded(imprint.PUBLISHER_WORDS)


def test_a_folded_twin_keeps_escapes_and_group_names() -> None:
    twin = text.ascii_folded(re.compile(r"(?P<Big>A\S+)\B", re.I))
    assert twin.pattern == r"(?P<Big>a\S+)\B"
    assert not twin.flags & re.IGNORECASE


def slow_strong_imprint(segment: str) -> bool:
    return bool(
        imprint.PUBLISHER_WORDS.search(segment)
        or imprint._place_publisher(segment.strip(" .,;"))
        or imprint._EDITION.search(segment)
        or imprint._THESIS.search(segment)
        or imprint._REPORT.search(segment)
    )


@settings(max_examples=500, deadline=None)
@given(FOLD_TEXTS)
@example("London: Verso")
@example("2nd édition")
def test_a_strong_imprint_is_recognised_as_before(value: str) -> None:
    assert imprint.strong_imprint(value) == slow_strong_imprint(value)


# ---------------------------------------------------------------------------------------
# Name lists: "et al." or a separator in one match; forms skipped after "Word,"

NAME_PIECES = st.sampled_from([
    "Savage", "N.", "N", "Ihori", "L.", "J.-P.", "J-P.", "Ch.", "Mc", "McDermott", "O'Brien",
    "d'", "De", "van", "Van", "der", "St.", "San", "Le", "Quéré", "Élodie", "İ", "ǅ", "K",
    "高倉洋章", "김영기", "Jr", "III", "and", "&", "et", "al.", "et al.", "…", "...", "u. a.",
    "and others", "y", "e", "и", "др.", "/", "，", "、", "·", "AB", "WHO", "Smith", "John",
    "Mary", "Kai", "Ming", "-", "‐", "’", "'", "(", ")", "(1996)", "1996", "Eds.", "(Eds.)",
    ",", ", ", ";", "; ", " ", " ", ". ", ".", ":", "\u00a0", "\t", "ab", "x",
])
NAME_TEXTS = st.one_of(
    st.text(max_size=20), st.lists(NAME_PIECES, max_size=14).map("".join)
)


def slow_et_al_or_separator(value: str, pos: int) -> tuple[str, tuple[int, int]] | None:
    more = names._ET_AL.match(value, pos)
    if more is not None:
        return "etal", more.span()
    separator = names._SEPARATOR.match(value, pos)
    if separator is None:
        return None
    return "sep", separator.span()


@settings(max_examples=800, deadline=None)
@given(NAME_TEXTS, st.integers(min_value=0, max_value=6))
@example("Savage, N., et al. (1996)", 9)
@example("A, … B", 1)
@example("A; and B", 1)
def test_et_al_or_a_separator_is_matched_as_the_two_patterns_in_turn(
    value: str, pos: int
) -> None:
    pos = min(pos, len(value))
    fused = names._ET_AL_OR_SEPARATOR.match(value, pos)
    expected = slow_et_al_or_separator(value, pos)
    if expected is None:
        assert fused is None
        return
    assert fused is not None
    assert ("etal" if fused.group("etal") is not None else "sep", fused.span()) == expected
    if expected[0] == "sep":
        separator = names._SEPARATOR.match(value, pos)
        assert separator is not None
        for group in ("c1", "c2", "c3", "slash", "dot", "semi"):
            assert fused.group(group) == separator.group(group)


@settings(max_examples=1500, deadline=None)
@given(NAME_TEXTS)
@example("Savage, N., Ihori, L.")
@example("Antonetta, Susanne")
@example("Triner, G. D. Title")
@example("AB, C.")
@example("A, B.")
@example("Mc, Donald")
def test_after_a_first_word_and_a_comma_only_forms_b_and_e_can_start(value: str) -> None:
    word_comma = names._FIRST_WORD_COMMA.match(value)
    if word_comma is None:
        return
    allowed = "BE" if word_comma.group("given") is not None else "B"
    for form in names._FIRST_FORMS:
        if form not in allowed:
            assert names._FORMS[form].match(value) is None, form


def slow_scan_authors(value: str, start: int = 0) -> names.AuthorScan | None:
    best: names.AuthorScan | None = None
    for form in names._FIRST_FORMS:
        first = names._FORMS[form].match(value, start)
        if first is None:
            continue
        scan = names._scan(value, start, form, first)
        if scan is not None and form in names._LONG_LIST_ONLY and len(scan.authors) < 3:
            continue
        if scan is not None and (best is None or names._rank(scan) > names._rank(best)):
            best = scan
    if best is None:
        best = names._scan_surnames(value, start)
    return best


@settings(max_examples=800, deadline=None)
@given(NAME_TEXTS)
@example("Savage, N., Ihori, L., Rossi, O. (1996). Title.")
@example("Smith, John, and Mary Jones. Title")
def test_an_author_list_is_scanned_as_before(value: str) -> None:
    assert names.scan_authors(value) == slow_scan_authors(value)


# ---------------------------------------------------------------------------------------
# Pages: a single hyphen left alone


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([
    "1716", "-", "--", "–", "—", "‐", " ", "\u00a0", "e", "A", "12", ".", ",", "x", "²", "١",
])).map("".join))
@example("1716-1726")
@example("-")
@example("e1-e9")
def test_pages_are_cleaned_as_before(value: str) -> None:
    pages = value.strip(" .,")
    expected = text._PAGE_DASHES.sub("-", pages) if any(d in pages for d in "-–—‐") else pages
    assert text.clean_pages(value) == expected


# ---------------------------------------------------------------------------------------
# The first sentence end among known boundaries


def slow_first_boundary(value: str, *, periods_first: bool) -> text.Cut | None:
    cuts = list(text.boundaries(value))
    if not cuts:
        return None
    if periods_first:
        periods = [c for c in cuts if c.mark == "."]
        if periods:
            return periods[0]
    return cuts[0]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([". ", "? ", "! ", "Title", "J. Am. ", " ", "A"])).map("".join))
@example("Why? Title. Press")
def test_the_first_cut_of_known_boundaries_is_the_first_boundary(value: str) -> None:
    cuts = list(text.boundaries(value))
    for periods_first in (True, False):
        expected = slow_first_boundary(value, periods_first=periods_first)
        assert text.first_of(cuts, periods_first=periods_first) == expected
        assert text.first_boundary(value, periods_first=periods_first) == expected
