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

from verifier.citations.models import Author
from verifier.citations.parsing import imprint, names, source, tail, text
from verifier.citations.parsing.journal import has_content
from verifier.citations.parsing.parsed import Parsed

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


def slow_plausible(family: str, given: str, form: str, value: str, end: int) -> bool:
    if form in "DE":
        words = [w.lower().strip(".") for w in f"{given} {family}".split() if len(w.strip(".")) > 1]
        if any(w in names._NOT_NAMES for w in words):
            return False
    family_words = family.split()
    first, last = family_words[0], family_words[-1]
    if first in ("In", "IN") and " " in family:
        return False
    if form in "ACa" and last.lower() in names._NOT_NAMES:
        return False
    if form == "E" and len(family_words) == 2 and len(given.split()) >= 2 and "-" not in family:
        return False
    if value.startswith(".", end) and last.lower() in text.ABBREVIATIONS and form in "ADa":
        return False
    return not (form == "D" and len(family) < 2)


@settings(max_examples=800, deadline=None)
@given(
    st.lists(st.sampled_from(["In", "IN", "in", "Inge", "Smith", "Journal", "Phys", "J", "de",
                              "van", "Le", "The", "-", "Rev"]), min_size=1, max_size=3)
    .map(" ".join),
    st.sampled_from(["", "J.", "John", "Mary Ann", "Minima Moralia", "A. B."]),
    st.sampled_from(list("BCAEDKaL")),
    st.sampled_from(["", ".", ", ", ". Title"]),
)
@example("In Bouma", "H.", "B", "")
@example("In", "H.", "B", "")
def test_a_name_is_judged_plausible_as_before(
    family: str, given: str, form: str, after: str
) -> None:
    value = f"{family}, {given}{after}"
    end = len(value) - len(after)
    assert names._plausible(family, given, form, value, end) == slow_plausible(
        family, given, form, value, end
    )


def slow_drop_sentence_period(entries: list[names._Entry]) -> list[names._Entry]:
    entries = list(entries)
    bare = [e for e in entries if e.form in "CL" and "." not in e.author.given]
    last = entries[-1]
    if bare and last.form in "CL" and re.fullmatch(r"[A-Z]{1,3}\.", last.author.given):
        entries[-1] = names._Entry(
            Author(family=last.author.family, given=last.author.given[:-1]),
            last.form, last.end, last.joined_by_conjunction,
        )
    return entries


def slow_drop_unjoined(value: str, entries: list[names._Entry], et_al: bool) -> list[names._Entry]:
    if et_al or any(e.joined_by_conjunction for e in entries[1:]):
        return entries
    kept = list(entries)
    end = names._QUOTE_AFTER if entries[0].form in "ABC" else names._CLEAN_LIST_END
    while len(kept) > 1 and kept[-1].form == "D" and not end.match(value, kept[-1].end):
        kept.pop()
    return kept


ENTRIES = st.lists(
    st.builds(
        names._Entry,
        st.builds(Author, family=st.sampled_from(["Smith", "Torres"]),
                  given=st.sampled_from(["A", "M.", "AB.", "John", "J. R."])),
        st.sampled_from(list("ABCDEL")),
        st.integers(min_value=0, max_value=12),
        st.booleans(),
    ),
    min_size=1, max_size=4,
)


@settings(max_examples=800, deadline=None)
@given(ENTRIES, st.booleans(), st.sampled_from(["Smith A, Torres M. Title", "A and B, “T”",
                                                 "x. 2019 y", "Name, Other (1991)"]))
def test_the_ends_of_a_name_list_are_dropped_as_before(
    entries: list[names._Entry], et_al: bool, value: str
) -> None:
    kept = names._drop_unjoined_given_first(value, list(entries), et_al)
    assert kept == slow_drop_unjoined(value, list(entries), et_al)
    expected = slow_drop_sentence_period(kept)
    names._drop_sentence_period(kept)
    assert kept == expected


# ---------------------------------------------------------------------------------------
# Numeric tails: none after the last word when only stops follow it; roman numerals


def slow_peel_tail(value: str, known_year: int | None) -> tail.Tail:
    stripped = tail.strip_trailing_notes(value)
    match = tail._TAIL.search(stripped, slow_tail_search_start(stripped))
    if match is None:
        return tail.Tail(stripped)
    found = tail._interpret(match.group("tail"), stripped[: match.start()], known_year)
    if found.pages and not found.volume and tail.is_year_range(found.pages):
        return tail.Tail(stripped)
    return found


def slow_tail_search_start(value: str) -> int:
    start = max(0, len(value) - tail._TAIL_WINDOW)
    if "(" in value:
        value = tail._PAREN_WITH_DIGIT.sub(lambda m: " " * len(m.group(0)), value)
    end = len(value)
    while (word := tail._LAST_WORD.match(value, start, end)) is not None:
        token = word.group(1)
        if token.lower() not in tail._TAIL_WORDS and not tail._ROMAN_WORD.fullmatch(token):
            return word.end(1)
        end = word.start(1)
    return start


TAIL_TEXTS = st.lists(st.sampled_from([
    "Vendome Press", "Energy Policy", "Phys. Rev. D", " ", ", ", ".", ";", ":", "\n", "\t",
    "50", "e26439", "12(3)", "45-67", "vol.", "IV", "XII", "Suppl", "(May)", "May", "(2004)",
    "no", "pp.", "제22권", "x", "É", "ab", "Ⅳ",
]), max_size=10).map("".join)


@settings(max_examples=800, deadline=None)
@given(TAIL_TEXTS, st.sampled_from([None, 1999, 2004]))
@example("Nationality. Vendome Press", None)
@example("Energy Policy, 50, e26439.", 1996)
@example("Studies, vol. IV.", None)
@example("\te26439e26439e26439e26439\t\te26439e26439Ⅳ", 1999)  # once exponential
def test_a_tail_is_peeled_as_by_the_full_pattern(value: str, known_year: int | None) -> None:
    assert tail._tail_search_start(value) == slow_tail_search_start(value)
    assert tail.peel_tail(value, known_year) == slow_peel_tail(value, known_year)


# ---------------------------------------------------------------------------------------
# Markers of links: words grouped by their first character


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([
    "http", "htt", "www.", "ww", "doi", "do", "10.", "10", "arxiv", "arx", "pmid", "pmc",
    "pm", "isbn", "issn", "is", "/", "retriev", "availab", "online", "accessed", "url", "ur",
    "preprint", "pre", " ", "a", "x",
])).map("".join))
def test_a_marker_is_found_as_by_the_plain_alternation(value: str) -> None:
    for words, pattern in (
        (text._ID_MARKERS, text._ID_MARKER),
        (text._LINK_MARKERS, text._LINK_MARKER),
        (text._ID_MARKERS + text._LINK_MARKERS, text._ANY_MARKER),
    ):
        assert bool(pattern.search(value)) == any(word in value for word in words)


# ---------------------------------------------------------------------------------------
# Imprints: searches skipped without the character every match holds


IMPRINT_TEXTS = st.lists(st.sampled_from([
    "London", ": ", ":", "Verso", "New York, NY", "Press", "1951", "2008", "May", "May 3, ",
    "(", ")", "(Penguin, 1999)", " ", ", ", ".", "٢", "12", "Vendome Press", "x",
]), max_size=8).map("".join)


@settings(max_examples=600, deadline=None)
@given(IMPRINT_TEXTS)
@example("London: Verso")
@example("Vendome Press, 1951")
@example("Title (London: Verso, 1991)")
def test_imprint_searches_are_skipped_only_where_they_cannot_match(value: str) -> None:
    expected = imprint._PLACE_PUBLISHER.match(value)
    if expected is not None and (
        len(expected.group("pub").split()) > 10
        or has_content(expected.group("pub"))
        or not all(
            imprint._PLACE_WORD.match(p.strip()) and len(p.strip().split()) <= 4
            for p in expected.group("place").split(",")
        )
    ):
        expected = None
    found = imprint._place_publisher(value)
    assert (found and found.span()) == (expected and expected.span())
    parsed, slow = Parsed(), Parsed()
    year = imprint._TRAILING_YEAR.search(value)
    slow_rest = value.strip() if year is None else value[: year.start()].strip(" ,.;")
    if year is not None:
        slow.year = int(year.group(1))
    assert imprint.take_year(value, parsed) == slow_rest
    assert parsed.year == slow.year
    # The characters the skipped searches need: without them, no match.
    if ")" not in value:
        assert imprint._FINAL_PAREN.search(value) is None
    if ":" not in value:
        assert imprint._PLACE_PUBLISHER.match(value) is None
    if "1" not in value and "2" not in value:
        assert imprint._TRAILING_YEAR.search(value) is None


def slow_reading(value: str, match: re.Match[str], form: str) -> object:
    family = " ".join(match.group("family").split())
    read = match.group("given") if form in names._WITH_GIVEN else None
    given = " ".join((read or "").strip("()").split())
    end = match.end()
    if not names._plausible(family, given, form, value, end):
        return None
    return Author(family=family, given=given), end, form


@settings(max_examples=600, deadline=None)
@given(NAME_TEXTS)
@example("Savage, N., Ihori")
@example("Galli SJ, Tsai M")
@example("Shen et al.")
def test_a_name_is_read_as_before(value: str) -> None:
    for form in "BCAEDKaSL":
        match = names._FORMS[form].match(value)
        if match is not None:
            assert names._reading(value, match, form) == slow_reading(value, match, form)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["1", "2", "9", "0", "5", "D", "A", "Z", "a", "١", "\n", "-",
                                 "."]), max_size=6).map("".join),
       st.sampled_from(["", "1-9"]))
@example("1999", "")
@example("D95", "1-9")
@example("2039\n", "")
def test_years_and_series_letters_are_read_as_by_their_patterns(value: str, pages: str) -> None:
    assert tail._year_only(value) == bool(tail._YEAR_ONLY.match(value))
    moved = tail.Tail("Phys. Rev.", volume=value, pages=pages)
    tail._move_series_letter(moved)
    lettered = tail._LETTERED_VOLUME.fullmatch(value)
    if lettered and pages:
        assert (moved.pre, moved.volume) == (f"Phys. Rev. {lettered.group(1)}", lettered.group(2))
    else:
        assert (moved.pre, moved.volume) == ("Phys. Rev.", value)
