"""The rule parser's fast paths give exactly what the plain computations give.

Each fast path either skips a search that a cheap test proves would find nothing, or
searches less of the text where a match cannot lie; these properties compare each with
the plain computation (the code before the fast path) on text generated to hit the
tests' edges: the words and marks the cheap tests look for, spaces of every kind, a
final newline (which ``$`` may stand before), and non-ASCII letters that
case-insensitive matching reads as ASCII ("ſ" as "s", the Kelvin sign as "k").
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier import identifiers as ids
from verifier.citations.models import Identifiers, WorkType
from verifier.citations.parsing import core, imprint, tail, text
from verifier.citations.parsing.imprint import take_title_details
from verifier.citations.parsing.parsed import Parsed
from verifier.citations.parsing.text import ascii_lower, ends_with_abbreviation, may_mention

PIECES = st.sampled_from([
    " ", "  ", "\t", "\n", "\u00a0", "\u2003", ",", ";", ":", ".", "(", ")", "[", "]", "&",
    "?", "-", "–", "/", "and", "et", "andR", "etA", "J", "A", "Ab", "abc", "É", "é", "ſ",
    "\u212a", "ı", "İ", "1", "12", "2004", "1999a", "Phys", "Rev", "U.S", "al", "et al",
    "vs", "Proc", "thesis", "Thesis", "PhD thesis", "Diss.", "dissertation", "thèse",
    "Technical Report", "tech. rep.", "Working Paper", "policy brief", "report no",
    "arXiv", "bioRxiv", "preprint", "SSRN", "ed.", "Ed.", "2nd edn", "3rd ed.", "Aufl.",
    "revised edition", "Vol. 2", "vol 3", "Volume IV", "(pp. 1-20)", "(Vol. 2)",
    "(2nd ed.)", "(Eds.)", "(Trans.)", "(Doctoral dissertation)", "(Technical Report)",
    "[in Russian]", "(in German)", ", translated by Smith", ", ed. by Jones", "(2008)",
    ". 1990", "Title", "A Long Title of Things", "Smith, J.", "LM(1,p)Nucl", "glance.J",
])
TEXTS = st.one_of(st.text(), st.lists(PIECES | st.text(max_size=3)).map("".join))


# ---------------------------------------------------------------------------------------
# Spacing repair: the split suspect patterns find what the one pattern finds


@settings(max_examples=400)
@given(TEXTS)
@example("Phys .Rev .D 70 ,036003 ( 2004)")
@example("LM(1,p)Nucl")
@example("x\u2003)")
@example("andÉ")
@example("plain text without suspects")
def test_the_split_spacing_suspects_find_what_the_single_pattern_finds(value: str) -> None:
    assert text.spacing_suspect(value) == (text._SPACING_SUSPECT.search(value) is not None)


# ---------------------------------------------------------------------------------------
# Abbreviations: the last word is searched for after the last space or bracket only


def slow_ends_with_abbreviation(left: str) -> bool:
    word = text._LAST_WORD.search(left)
    if word is None or left.endswith((")", "]")):
        return False
    token = word.group(1)
    if "." in token.strip(".") and not token.strip(".")[-1:].isdigit():
        return True
    letters = token.strip(".,;:\"'“”")
    if len(letters) == 1 and letters.isalpha() and letters.isupper():
        return True
    if letters == "al":
        return bool(text._ENDS_ET_AL.search(left))
    lower = letters.lower()
    return lower in text.GENERAL_ABBREVIATIONS or (
        letters[:1].isupper() and lower in text.JOURNAL_ABBREVIATIONS
    )


@settings(max_examples=400)
@given(TEXTS)
@example("J. Am")
@example("Smith et al")
@example("word\n")
@example("U.S\u2003Phys\n")
@example("(Proc")
def test_abbreviations_are_found_as_before(value: str) -> None:
    assert ends_with_abbreviation(value) == slow_ends_with_abbreviation(value)


# ---------------------------------------------------------------------------------------
# Searches skipped when a word every match holds is absent

WORD_TESTS = [
    (core._THESIS_TEXT, core._THESIS_WORDS),
    (core._REPORT_TEXT, core._REPORT_WORDS),
    (core._PREPRINT_TEXT, core._PREPRINT_WORDS),
    (imprint._EDITION, imprint._EDITION_WORDS),
    (imprint._TITLE_VOLUME, ("vol",)),
]


@settings(max_examples=400)
@given(TEXTS)
@example("PhD thesis")
@example("Diſſertation")
@example("Vol. 2")
@example("2nd \u212aed")
def test_a_search_is_skipped_only_when_it_cannot_match(value: str) -> None:
    lower = ascii_lower(value)
    for pattern, words in WORD_TESTS:
        if not may_mention(lower, words):
            assert pattern.search(value) is None, pattern.pattern


def test_the_word_tests_still_let_matching_text_through() -> None:
    thesis = "A. Smith. Some title. PhD thesis, MIT"
    assert core.work_type(Parsed(), "", "", Identifiers(), thesis) is WorkType.THESIS
    report = "A. Smith. Some title. Working Paper 12"
    assert core.work_type(Parsed(), "", "", Identifiers(), report) is WorkType.REPORT
    preprint = "A. Smith. Some title. bioRxiv"
    assert core.work_type(Parsed(), "", "", Identifiers(), preprint) is WorkType.PREPRINT
    assert not may_mention(ascii_lower("An ASCII title"), imprint._EDITION_WORDS)
    assert may_mention(ascii_lower("Title, 2nd Ed."), imprint._EDITION_WORDS)
    assert may_mention(ascii_lower("Titre ſ"), ("zzz",))  # not ASCII: never skipped


def slow_take_title_details(title: str, parsed: Parsed) -> str:
    """take_title_details before its fast paths."""
    details = imprint._TITLE_DETAILS.search(title)
    if details:
        imprint.apply_details(details.group("inner"), parsed)
        after = title[details.end() :]
        title = title[: details.start()] + ("" if after.strip()[:1].isupper() else after)
    role = imprint._TITLE_ROLE.search(title)
    if role and role.start() > 0:
        title = title[: role.start()] + title[role.end() :]
    edition = imprint._EDITION.search(title)
    if edition and edition.end() >= len(title.rstrip(" .")) - 1:
        parsed.edition = parsed.edition or edition.group("ed").strip()
        title = title[: edition.start()]
    genre = imprint._TITLE_GENRE.search(title)
    if genre and (imprint._THESIS.search(genre.group(1)) or imprint._REPORT.search(genre.group(1))):
        imprint._apply_genre(genre.group(1), parsed)
        title = title[: genre.start()]
    dated = imprint._TITLE_DATE.search(title)
    if dated and dated.start() > 10:
        parsed.year = parsed.year or int(dated.group(1) or dated.group(2))
        title = title[: dated.start()]
    title = imprint._LANGUAGE_NOTE.sub("", title)
    translator = imprint._TITLE_TRANSLATOR.search(title)
    if translator and translator.start() > 10:
        title = title[: translator.start()]
    volume = imprint._TITLE_VOLUME.search(title)
    if volume and volume.start() > 10:
        parsed.volume = parsed.volume or volume.group("v")
        title = title[: volume.start()]
    return title.strip(" ,;")


@settings(max_examples=400)
@given(TEXTS)
@example("A Long Title of Things (Vol. 2, pp. 1-20) (2nd ed.)")
@example("A Long Title of Things (Doctoral dissertation)")
@example("A Long Title of Things [in Russian]")
@example("A Long Title of Things, translated by Smith")
@example("A Long Title of Things, Volume IV")
@example("A Long Title of Things (Eds.) 3rd ed.")
@example("A Long Title of Things. 1990a")
@example("A Long Title of Things (2008)\n")
@example("A Long Title of Things. 1990\n")
def test_title_details_are_taken_as_before(title: str) -> None:
    fast, slow = Parsed(), Parsed()
    assert take_title_details(title, fast) == slow_take_title_details(title, slow)
    assert fast == slow


@settings(max_examples=400)
@given(TEXTS)
@example("(2010)")
@example("a1b")
def test_two_letters_are_counted_as_before(value: str) -> None:
    assert core._two_letters(value) == (len(core._LETTER.findall(value)) >= 2)


# ---------------------------------------------------------------------------------------
# The numeric tail: its last word is looked for near the end first


def slow_tail_search_start(value: str) -> int:
    start = max(0, len(value) - tail._TAIL_WINDOW)
    if "(" in value:
        value = tail._PAREN_WITH_DIGIT.sub(lambda m: " " * len(m.group(0)), value)
    for word in reversed(list(tail._WORD.finditer(value, start))):
        token = word.group(0)
        if token.lower() not in tail._TAIL_WORDS and not tail._ROMAN_WORD.fullmatch(token):
            return word.end()
    return start


TAIL_PIECES = st.sampled_from([
    " ", ", ", ".", "(", ")", "12", "2004", "45-67", "vol", "Vol.", "no.", "pp.", "Suppl",
    "XIV", "IV", "May", "Journal", "Physics", "ab", "a", "Phys. Rev. D", "(serial no. 220)",
    "É", "é1", "_", "x" * 30,
])
TAILS = st.one_of(st.text(), st.lists(TAIL_PIECES | st.text(max_size=2)).map("".join))


@settings(max_examples=400)
@given(TAILS)
@example("Nature, 12(3), 45-67")
@example("Journal " + "vol. 3, no. 2, pp. 1-9, " * 6)
@example("Phys. Rev. D 70, 036003 (2004) Suppl IV")
def test_the_tail_search_starts_where_it_did(value: str) -> None:
    assert tail._tail_search_start(value) == slow_tail_search_start(value)


# ---------------------------------------------------------------------------------------
# ISBN runs: the look-behind moved after the first digit finds the same runs

OLD_ISBN_RUN = re.compile(r"(?<![\w/.\-‐])\d(?:[ \-‐]?\d){8,}(?:[ \-‐]?[Xx])?(?![\w/\-‐])")
DIGIT_PIECES = st.sampled_from([
    "0", "3", "9", "978", "0-306-40615-2", " ", "-", "‐", "/", ".", "x", "X", "a", "_",
    "ISBN ", "10.1007/978-3-16-148410-0", "１", "٣",
])
DIGITS = st.one_of(st.text(), st.lists(DIGIT_PIECES).map("".join))


@settings(max_examples=400)
@given(DIGITS)
@example("ISBN 978-0-306-40615-7, 0-306-40615-2")
@example("a0306406152 /0306406152 .0306406152")
def test_isbn_runs_are_found_as_before(value: str) -> None:
    assert [m.span() for m in ids._ISBN_RUN.finditer(value)] == [
        m.span() for m in OLD_ISBN_RUN.finditer(value)
    ]


# ---------------------------------------------------------------------------------------
# tidy: the substitution runs only when a stop follows a space


@settings(max_examples=400)
@given(TEXTS)
@example("Smith , J .")
@example("a\u00a0; b\t.")
@example("no space before stops.")
def test_tidy_is_as_before(value: str) -> None:
    assert text.tidy(value) == text._SPACE_BEFORE_STOP.sub("", value).strip(" ,;:")


# ---------------------------------------------------------------------------------------
# The CRF's tokens and features


@settings(max_examples=300)
@given(TEXTS)
@example("Phys.Rev (2004a). https://doi.org/10.1/x “Title” J.-P. Serre")
def test_tokens_are_made_as_before(value: str) -> None:
    from verifier.citations.parsing.crf.tokens import _TOKEN, Token, tokenize

    tokens = tokenize(value)
    assert tokens == [Token(m.group(), *m.span()) for m in _TOKEN.finditer(value)]
    assert all(type(t) is Token for t in tokens)


@settings(max_examples=300)
@given(st.lists(PIECES, min_size=1, max_size=12).map(" ".join))
@example('Smith, J. In "Title", ed. by Jones, 2004.')
def test_the_word_flags_say_what_the_own_features_say(value: str) -> None:
    from verifier.citations.parsing.crf.features import _word

    for word in value.split():
        info = _word(word, True)
        assert info.flags == ("year" in info.own, "L=in" in info.own, "L=editor" in info.own)


# ---------------------------------------------------------------------------------------
# Trailing notes: a publisher's "Press" is no "in press"

NOTE_PIECES = st.sampled_from([
    " ", "  ", "\u00a0", "\n", ".", ",", "in", "In", "IN", "ın", "İn", "Berlin", "n",
    "press", "Press", "PRESS", "preſs", "Express", "University", "(in press)", "[x]",
    "to appear", "submitted", "Russian", "é",
])
NOTES = st.one_of(st.text(), st.lists(NOTE_PIECES | st.text(max_size=2)).map("".join))


@settings(max_examples=600)
@given(NOTES)
@example("Oxford University Press")
@example("Oxford University Press.")
@example("A. Smith, Title, in press.")
@example("Title. Berlin Press")
@example("Title. ın press")
@example("in\u00a0Press .")
def test_a_text_said_to_end_without_a_note_has_none(value: str) -> None:
    if not tail.may_end_in_note(value):
        assert tail._TRAILING_NOTE.search(value) is None


def test_a_university_press_skips_the_note_pattern_and_in_press_does_not() -> None:
    assert not tail.may_end_in_note("Title. Oxford University Press.")
    assert tail.may_end_in_note("Title. In Press.")
    assert tail.strip_trailing_notes("A Title, in press.") == "A Title"


# ---------------------------------------------------------------------------------------
# Small substitutions done without a regex, or skipped when they cannot apply


@settings(max_examples=400)
@given(TEXTS)
@example("d'Italia l’Economia D' L")
@example("Annales de l'Institut Fourier")
def test_journal_like_is_as_before(value: str) -> None:
    from verifier.citations.parsing import journal

    def slow(segment: str) -> bool:
        words = segment.replace("(", " ").replace(")", " ").split()
        if not words or len(words) > 12:
            return False
        for word in words:
            bare = journal._ELIDED_ARTICLE.sub("", word.strip(".,:;'’\"“”"))
            if bare and bare[0].islower() and bare.lower() not in journal._CONNECTORS:
                return False
        return True

    assert journal.journal_like(value) == slow(value)


@settings(max_examples=400)
@given(st.one_of(TEXTS, st.lists(st.sampled_from(["12", " ", "-", "–", "—", "‐", ".", ","]))
                 .map("".join)))
@example(" 12 -- 15 .")
def test_pages_are_cleaned_as_before(value: str) -> None:
    assert text.clean_pages(value) == text._PAGE_DASHES.sub("-", value.strip(" .,"))


COLLABORATION_PIECES = st.sampled_from([
    "ATLAS", "Collaboration", "collab", "COLLAB", "CoIIab", "ſ", "(", ")", " ", "the ",
    "for the ", "Smith, J.", ",", ":",
])


@settings(max_examples=400)
@given(st.one_of(TEXTS, st.lists(COLLABORATION_PIECES).map("".join)))
@example("The ATLAS Collaboration, Title")
@example("Smith, J. (for the CMS Collaboration). Title")
def test_collaboration_patterns_are_skipped_only_when_they_cannot_match(value: str) -> None:
    if not may_mention(ascii_lower(value), ("collab",)):
        assert core._PAREN_COLLABORATION.search(value) is None
        assert core._COLLABORATION.match(value) is None


@settings(max_examples=300)
@given(st.one_of(TEXTS, st.lists(st.sampled_from(
    ["http", "www.", "doi", "10.", "arxiv", "pmid", "pmc", "isbn", "issn", "/", "retriev",
     "availab", "online", "accessed", "url", "preprint", "x", " "])).map("".join)))
def test_the_marker_searches_say_what_testing_each_marker_says(value: str) -> None:
    lower = value.lower()
    assert bool(text._ID_MARKER.search(lower)) == any(m in lower for m in text._ID_MARKERS)
    assert bool(text._LINK_MARKER.search(lower)) == any(m in lower for m in text._LINK_MARKERS)


@settings(max_examples=400)
@given(TEXTS)
@example("Katsuda ,S")
@example("sandA bandB andC")
@example("a?B")
def test_the_crf_spacing_test_finds_what_the_plain_pattern_finds(value: str) -> None:
    from verifier.citations.parsing.crf import assemble

    fast = assemble._PDF_SPACING_FAST.search(value) is not None
    assert fast == (assemble._PDF_SPACING.search(value) is not None)


# ---------------------------------------------------------------------------------------
# Name forms: the rewritten word and particle patterns match exactly as before


def _old_forms() -> dict[str, re.Pattern[str]]:
    from verifier.citations.parsing import names
    from verifier.citations.parsing.text import LETTER, LOWER, UPPER

    old_word = rf"(?:{UPPER}(?:{LETTER}|{names._APOSTROPHE}(?={LETTER}))*{LETTER})"
    old_particle = (
        rf"(?:(?:{names._PARTICLE_WORDS})\s|(?:[dDlL]|dell)['’]\s?|['’]t\s)"
    )
    old_given = rf"(?:{UPPER}{LOWER}+(?:[-‐]{UPPER}?{LOWER}+)?)"
    forms = {}
    for form, pattern in names._FORMS.items():
        source = pattern.pattern.replace(names._WORD, old_word)
        source = source.replace(rf"{LOWER}{{2,}}+", rf"{LOWER}{{2,}}")
        source = source.replace(names._GIVEN, old_given)
        forms[form] = re.compile(source.replace(names._PARTICLE, old_particle), pattern.flags)
    return forms


OLD_FORMS = _old_forms()


def test_the_old_forms_are_the_plain_patterns() -> None:
    from verifier.citations.parsing import names

    for form in "ABCDES":  # the forms built from words and particles
        assert OLD_FORMS[form].pattern != names._FORMS[form].pattern
        assert "++" not in OLD_FORMS[form].pattern and "}+" not in OLD_FORMS[form].pattern
NAME_PIECES = st.sampled_from([
    "Smith", "O'Brien", "O’", "d'Alembert", "D’", "l'", "'t Hooft", "van", "Van", "de la",
    "von", "St.", "Mac", "Le", "Ste.", "der", "Jean-Paul", "-", "‐", "Ab", "A", "J.", "J.-P.",
    "SJ", "K", "É", "ñ", "'", "’", "`", "´", " ", ", ", "; ", " and ", " & ", ".", "(", ")",
    "1999", "Jr.", "III", "Ouellett, M. L", "Kai Ming", "김영기", "al", "el", "zu", "'s",
    "Man's", "“",
])
NAME_TEXTS = st.lists(NAME_PIECES | st.text(max_size=2), max_size=14).map("".join)


@settings(max_examples=500)
@given(NAME_TEXTS, st.integers(min_value=0, max_value=6))
@example("O'Brien, J. and van der Berg, K.", 0)
@example("Smith'', J.", 0)
@example("Jean-Paul O’Neill-Mac Donald SJ", 0)
@example("Comparing Boston's Charter as Diffusion", 0)  # "Boston" before the quote "'"
@example("Assessing White Man's Burden: The Role", 0)
@example("Nakayama, K., Eklund, O., Brenner, H. (1995)", 0)
def test_every_name_form_matches_as_before(value: str, start: int) -> None:
    from verifier.citations.parsing import names

    for form, pattern in names._FORMS.items():
        new, old = pattern.match(value, start), OLD_FORMS[form].match(value, start)
        assert (new and (new.span(), new.groupdict())) == (old and (old.span(), old.groupdict()))
