"""The planner's fast paths give what the plain computation gives: word lists searched on
lower-cased ASCII, plans kept by the traits they depend on."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.citations import planner
from verifier.citations.models import Citation, Identifiers, WorkType
from verifier.citations.planner import (
    DEFAULT_TABLES,
    PlanTables,
    WordList,
    plan_sources,
    traits_of,
)
from verifier.settings import SOURCE_NAMES

# Pieces of text near the lists' words: prefixes, case, word edges, non-ASCII letters
# (Kelvin sign, long s, dotted I, ß), digits and punctuation.
_PIECES = st.sampled_from([
    "medic", "Medicine", "CLINICAL", "health", "public health", "Public  health", "nih",
    "NIHR", "sleep", "sleepy", "cell", "cells", "Cell", "quantum", "QUANTUM", "comput",
    "learning", "machine", "artificial intelligence", "language models", "ieee", "acm",
    "plos", "PLOS ONE", "frontiers in", "bmc", "mdpi", "optimise", "optimization",
    "\u212aelvin", "\u017fleep", "\u0130mmun", "stra\u00dfe", "caf\u00e9", "x", "2019",
    " ", "-", ":", ".", "_", "'", "é",
])
_TEXTS = st.lists(_PIECES, max_size=12).map("".join) | st.text(max_size=40)
_LISTS = [planner._BIOMEDICAL, planner._ARXIV_FIELDS, planner._OPEN_ACCESS_CONTAINERS]


@given(_TEXTS)
def test_a_word_list_finds_exactly_what_its_case_insensitive_pattern_finds(text: str) -> None:
    for words in _LISTS:
        assert words.found_in(text) == (words.pattern.search(text) is not None)


def test_a_word_list_finds_words_in_any_case() -> None:
    words = WordList(("public health", r"medic\w*", "mmwr"))
    assert words.found_in("Journal of PUBLIC Health")
    assert words.found_in("Médecine et MEDICINE")
    assert not words.found_in("biomedicine")
    assert words.found_in("MMWR weekly") and not words.found_in("mmwrx")


def test_a_word_list_groups_its_words_by_their_first_letter() -> None:
    # What makes it cheap: the engine tries a letter's words only where a word starts
    # with that letter. The grouping must keep every word whole (tested above).
    words = WordList(("medic\\w*", "molecular", "cell"))
    assert words._lower.pattern == r"\b(?:m(?:edic\w*|olecular)|cell)\b"
    assert words.pattern.pattern == r"\b(?:medic\w*|molecular|cell)\b"


def test_a_word_must_start_with_a_lower_case_letter() -> None:
    for bad in ("Medic", "(?:a|b)", "", r"\bx"):
        with pytest.raises(ValueError, match="lower-case ASCII letter"):
            WordList(("cell", bad))


def _article(title: str, container: str = "", doi: str | None = None) -> Citation:
    return Citation(title=title, container=container, type=WorkType.ARTICLE,
                    identifiers=Identifiers(doi=doi))


def test_citations_alike_in_their_traits_share_one_plan() -> None:
    first = _article("Sleep and memory in adolescents", "Journal of Sleep Research")
    second = _article("Sleep loss and cognition", "Sleep Medicine", doi=None)
    assert traits_of(first) == traits_of(second)
    assert plan_sources(first, SOURCE_NAMES) is plan_sources(second, SOURCE_NAMES)


def test_a_trait_that_differs_gives_the_plan_it_calls_for() -> None:
    plain = _article("Trade and tariffs", "Economic Journal")
    biomedical = replace(plain, container="Journal of Clinical Oncology")
    with_doi = replace(plain, identifiers=Identifiers(doi="10.1000/xyz"))
    sources = [[step.source for step in plan_sources(c, SOURCE_NAMES).steps]
               for c in (plain, biomedical, with_doi)]
    assert "pubmed" not in sources[0] and "pubmed" in sources[1]
    assert len(sources[2]) > len(sources[0])  # the DOI's lookups come first


def test_other_tables_are_not_served_the_default_tables_plan() -> None:
    citation = _article("An invented study of nothing", "Journal of Things")
    bare = PlanTables(if_none={})
    assert plan_sources(citation, SOURCE_NAMES, DEFAULT_TABLES).if_none
    assert plan_sources(citation, SOURCE_NAMES, bare).if_none == ()


def test_the_enabled_sources_are_part_of_what_a_plan_is_kept_by() -> None:
    citation = _article("An invented study of nothing", "Journal of Things")
    everything = plan_sources(citation, SOURCE_NAMES)
    fewer = plan_sources(citation, [s for s in SOURCE_NAMES if s != "crossref"])
    assert any(step.source == "crossref" for step in everything.steps)
    assert all(step.source != "crossref" for step in (*fewer.steps, *fewer.fallback))
