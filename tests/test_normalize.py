from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.citations.models import Author
from verifier.citations.normalize import (
    author_families,
    family_key,
    family_variants,
    initials,
    normalize_title,
    split_title,
    strip_markup,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("The Boer War", "the boer war"),
        ("  Stonehenge:   The Story So Far. ", "stonehenge the story so far"),
        ("The <i>Café</i> &amp; the Bar", "the cafe and the bar"),
        ("<jats:title>Self-efficacy</jats:title>", "self efficacy"),
        ("Effects of &lt;i&gt;p53&lt;/i&gt; loss", "effects of p53 loss"),
        (
            "Growth of <mml:math><mml:mi>x</mml:mi><mml:annotation encoding='TeX'>x^2"
            "</mml:annotation></mml:math> cells",
            "growth of x cells",
        ),
        ("Flaubert’s “Madame Bovary”", "flauberts madame bovary"),
        ("Flaubert's Madame Bovary", "flauberts madame bovary"),
        ("Brontë and Łódź: STRAßE", "bronte and lodz strasse"),
        ("p < 0.05 matters", "p 0 05 matters"),
        ("???", ""),
    ],
)
def test_normalize_title(raw: str, expected: str) -> None:
    assert normalize_title(raw) == expected


def test_strip_markup_keeps_comparisons() -> None:
    assert strip_markup("a < b and <b>c</b>").split() == ["a", "<", "b", "and", "c"]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Stonehenge: The Story So Far", ("Stonehenge", "The Story So Far")),
        (
            "Body and Soul - the Rise of The Body Shop",
            ("Body and Soul", "the Rise of The Body Shop"),
        ),
        ("Climate—a review", ("Climate", "a review")),
        (
            "Who was buried at Stonehenge? New evidence",
            ("Who was buried at Stonehenge?", "New evidence"),
        ),
        ("Who was buried at Stonehenge?", ("Who was buried at Stonehenge?", "")),
        ("The South African War, 1899–1902", ("The South African War, 1899–1902", "")),
        ("Moby-Dick; or, The Whale", ("Moby-Dick; or, The Whale", "")),
        ("Mammoth 2.0: will genome editing work?", ("Mammoth 2.0", "will genome editing work?")),
        (": leading colon", (": leading colon", "")),
    ],
)
def test_split_title(title: str, expected: tuple[str, str]) -> None:
    assert split_title(title) == expected


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("van der Berg", "vanderberg"),
        ("Van der Berg", "vanderberg"),
        ("Darling-Hammond", "darlinghammond"),
        ("O’Rourke", "orourke"),
        ("O'Rourke", "orourke"),
        ("Brontë", "bronte"),
        ("Strømman", "stromman"),
        ("Parker Pearson", "parkerpearson"),
        ("", ""),
    ],
)
def test_family_key(name: str, key: str) -> None:
    assert family_key(name) == key


def test_family_variants_with_and_without_particles() -> None:
    assert family_variants("van der Berg") == {"vanderberg", "berg"}
    assert family_variants("De Groot") == {"degroot", "groot"}
    assert family_variants("Parker Pearson") == {"parkerpearson", "pearson", "parker"}
    assert family_variants("Smith") == {"smith"}
    assert family_variants("") == frozenset()
    # Cited with and without the particle, the names share a variant.
    assert family_variants("van Engen") & family_variants("Engen")
    assert not family_variants("Berg") & family_variants("Bergman")


def test_author_families() -> None:
    authors = [
        Author(family="van der Berg", given="J."),
        Author(literal="World Health Organization"),
        Author(family="Müller"),
        Author(),
    ]
    assert author_families(authors) == ["vanderberg", "world health organization", "muller"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [("J.", "j"), ("John Ronald", "jr"), ("J.-P.", "jp"), ("M.R.", "mr"), ("JA", "ja"), ("", "")],
)
def test_initials(given: str, expected: str) -> None:
    assert initials(given) == expected


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_normalize_title_never_raises_and_is_idempotent(text: str) -> None:
    once = normalize_title(text)
    assert normalize_title(once) == once
    assert once == once.strip()
    assert "  " not in once


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_split_title_never_raises(text: str) -> None:
    main, subtitle = split_title(text)
    assert main or not subtitle


def test_inline_markup_inside_a_word_leaves_the_word_whole() -> None:
    assert normalize_title("Splitting H<sub>2</sub>O with <i>E. coli</i>") == (
        "splitting h2o with e coli"
    )
