"""The normalisations' fast paths (verifier.citations.normalize) give what the regex forms
they skip give, on any text: those forms are kept here as the slow paths."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st
from unidecode import unidecode

from verifier.citations import normalize
from verifier.citations.normalize import (
    _NON_ALNUM,
    _QUESTION_BREAK,
    _SUBTITLE_SEPARATOR,
    _fold,
    strip_markup,
)

# What makes the paths part: ASCII or not, markup and entities, apostrophes, every
# separator, and whitespace that is not a space (including the ASCII separators
# \x1c-\x1f, which both str.split and the regex \s take for whitespace), and characters
# that show nothing (verifier.citations.invisibles), dropped on both paths.
ALPHABET = list("abcXYZ019 .,;:-?!'`&<>/i") + [
    "\u2013", "\u2014", "\u00b4", "\t", "\n", "\x1c", "\x1f", "\u00a0", "\u00e9", "\u00fc",
    "\u00df", "\u0130", "\ufb01", "\u3000", "<i>", "</i>", "&amp;", "&lt;b&gt;",
    "\x00", "\x7f", "\u00ad", "\u200b", "\ufeff",  # characters that show nothing
]
texts = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join) | st.text(max_size=40)


def slow_normalize_title(s: str) -> str:
    return " ".join(_NON_ALNUM.sub(" ", _fold(strip_markup(s))).split())


def slow_family_key(name: str) -> str:
    return _NON_ALNUM.sub("", _fold(strip_markup(name)))


def slow_name_words(name: str) -> list[str]:
    return [w for w in _NON_ALNUM.split(_fold(strip_markup(name))) if w]


def slow_split_title(s: str) -> tuple[str, str]:
    text = " ".join(strip_markup(s).split())
    cuts: list[tuple[int, int]] = []
    separator = _SUBTITLE_SEPARATOR.search(text)
    if separator:
        cuts.append((separator.start(), separator.end()))
    question = _QUESTION_BREAK.search(text)
    if question:
        cuts.append((question.start(), question.end()))
    if not cuts:
        return text, ""
    start, end = min(cuts)
    main, subtitle = text[:start].strip(), text[end:].strip()
    if not main:
        return text, ""
    return main, subtitle


def slow_initials(given: str) -> str:
    letters: list[str] = []
    for word in re.split(r"[\s.\-]+", unidecode(given)):
        if not word:
            continue
        if word.isupper() and len(word) <= 3:
            letters.extend(word.lower())
        elif word[0].isalpha():
            letters.append(word[0].lower())
    return "".join(letters)


@settings(max_examples=600, deadline=None)
@given(texts)
@example("The Cafe & the Bar: A Study")
@example("O'Brien's `quoted` word's")
@example("a \u2014b")
@example("Self-report - a test: of it? Yes")
@example("a:b:  c")
@example("a'\x00a")  # an invisible character between apostrophe and word
def test_normalize_title_as_the_regex_form(text: str) -> None:
    assert normalize.normalize_title.__wrapped__(text) == slow_normalize_title(text)


@settings(max_examples=600, deadline=None)
@given(texts)
@example("O'Rourke")
@example("van der Berg-Smith")
def test_family_key_and_name_words_as_the_regex_forms(name: str) -> None:
    assert normalize.family_key.__wrapped__(name) == slow_family_key(name)
    assert normalize._name_words(name) == slow_name_words(name)


@settings(max_examples=800, deadline=None)
@given(texts)
@example("Graphs, maps - trees")
@example("Long\u2014title")
@example("9\u2014title")
@example("Who was buried at Stonehenge? New evidence")
@example("self-report: a study")
@example(" : x")
@example("x :")
def test_split_title_as_the_regex_form(text: str) -> None:
    assert normalize.split_title.__wrapped__(text) == slow_split_title(text)


@settings(max_examples=600, deadline=None)
@given(texts)
@example("J.-P.")
@example("M.R.")
@example("John\x1cRonald")
@example("JA")
def test_initials_as_the_regex_form(given_name: str) -> None:
    assert normalize.initials(given_name) == slow_initials(given_name)


keys = st.text(alphabet="aeiouyjkhstcwpbdlm", max_size=14)


def slow_transliteration_key(key: str) -> str:
    if len(key) < normalize.TRANSLITERATION_MIN_LENGTH:
        return ""
    for pattern, replacement, _ in normalize.TRANSLITERATION_RULES:
        key = re.sub(pattern, replacement, key)
    return key


@settings(max_examples=1500, deadline=None)
@given(keys)
@example("tschaikowsky")
@example("dostoyevsky")
@example("mueller")
@example("tolstoi")
@example("yeltsin")
@example("mohammed")
@example("abcdefa")
def test_a_rule_is_skipped_only_where_it_could_not_match(key: str) -> None:
    for pattern, _, needs in normalize.TRANSLITERATION_RULES:
        if re.search(pattern, key):
            assert normalize.rule_may_apply(key, needs), (pattern, key)
    assert normalize.transliteration_key.__wrapped__(key) == slow_transliteration_key(key)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="ab\n\u00e9", max_size=8))
@example("a\n\nb")
@example("aab")
def test_the_doubled_letter_test_is_where_its_pattern_matches(text: str) -> None:
    assert normalize._has_doubled(text) == (re.search(r"(.)\1+", text) is not None)
