"""The text-cleaning fast paths give exactly the slow path's output (property-tested)."""

from __future__ import annotations

import html
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from adapters import _text
from adapters._text import clean_text, strip_retracted_prefix
from verifier.citations import normalize
from verifier.citations.normalize import strip_markup


def slow_strip_markup(text: str) -> str:
    """strip_markup without its fast path (the code before it had one)."""
    text = normalize._TAG.sub("", normalize._ANNOTATION.sub("", text))
    text = html.unescape(text)
    return normalize._TAG.sub("", text)


def slow_clean_text(value: object) -> str:
    if not isinstance(value, str):
        return ""
    return " ".join(unicodedata.normalize("NFC", slow_strip_markup(value)).split())


# Text rich in what the fast paths test for: markup, entities, combining marks, spaces.
PIECES = st.sampled_from([
    "<i>", "</i>", "<sub>", "&amp;", "&lt;i&gt;", "&#233;", "&", "<", ">", " ", "\t", "\n",
    "e\u0301", "é", "Å", "\u00a0", "p < 0.05", "<mml:annotation>x</mml:annotation>", "a",
    "Title", ":", ".", "\u2003", "ﬁ",
])
TEXTS = st.one_of(st.text(), st.lists(PIECES | st.text(max_size=3)).map("".join))


@settings(max_examples=400)
@given(TEXTS)
@example("plain ascii title")
@example("Caf\u00e9 e\u0301 &amp; <i>x</i>")
def test_strip_markup_fast_path_is_the_slow_path(text: str) -> None:
    assert strip_markup(text) == slow_strip_markup(text)


@settings(max_examples=400)
@given(TEXTS)
@example("  spaced   ascii\ttitle ")
@example("Cafe\u0301\u00a0bar")
def test_clean_text_fast_path_is_the_slow_path(text: str) -> None:
    assert clean_text(text) == slow_clean_text(text)


def test_the_fast_path_returns_plain_text_unchanged_and_still_strips_markup() -> None:
    plain = "A plain title: no markup"
    assert strip_markup(plain) is plain
    assert strip_markup("H<sub>2</sub>O &amp; CO") == "H2O & CO"
    assert clean_text("  Cafe\u0301  <b>bar</b> ") == "Café bar"


def slow_strip_retracted_prefix(title: str) -> tuple[str, bool]:
    """strip_retracted_prefix without its fast path: the pattern on every title."""
    stripped = _text._RETRACTED_PREFIX.sub("", title, count=1)
    return stripped, stripped != title


@settings(max_examples=400)
@given(st.one_of(TEXTS, st.lists(st.sampled_from(
    ["RETRACTED", "retracted", "Retracted article", "ARTICLE", ":", " ", "\u00a0", "\t",
     "R", "r", "\u0280", "x", "Title"])).map("".join)))
@example("RETRACTED: A title")
@example("\u00a0 Retracted Article : x")
@example("Rather not retracted")
@example("")
def test_strip_retracted_prefix_fast_path_is_the_pattern(title: str) -> None:
    assert strip_retracted_prefix(title) == slow_strip_retracted_prefix(title)


def test_a_retracted_prefix_is_still_stripped_and_other_titles_come_back_as_they_are() -> None:
    assert strip_retracted_prefix("  RETRACTED ARTICLE:  Cells") == ("Cells", True)
    title = "A plain title"
    assert strip_retracted_prefix(title)[0] is title
