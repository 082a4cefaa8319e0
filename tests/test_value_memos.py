"""The registry of the process's value memos (verifier.value_memos): forget_all empties
every memo keyed by citation or answer text, and no such memo is left out of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.citations import matching, normalize
from verifier.citations.corrections import apa_reference
from verifier.citations.models import Author, WorkRecord
from verifier.citations.parsing import parse_citation
from verifier.citations.parsing.crf import features as crf_features
from verifier.http import transport
from verifier.http.transport import HttpRequest
from verifier.value_memos import forget_all, keep, value_memo

ROOT = Path(__file__).resolve().parents[1]

CONFIGURATION_MEMOS = {
    "verifier/citations/planner.py",  # plans by citation traits (a few dozen kinds)
    "verifier/citations/parsing/crf/model.py",  # the loaded model
    "verifier/citations/parse_store.py",  # the parser's fingerprint
    "verifier/citations/inputs/latex.py",  # the LaTeX decoder object (its names: value_memo)
    "verifier/http/stats.py",  # redacted error texts, by the run's secrets
    "verifier/http/cache.py",  # an origin's normal form
    "verifier/llm/offline/weights.py",  # the offline model's weights
    "adapters/crossref.py",  # the field names of a select parameter
}
"""Files whose memos hold configuration, not values of citations or answers: left out
of the registry on purpose (emptying them would time set-up, not checking)."""


def test_forget_all_empties_the_memos_a_check_fills() -> None:
    text = "Smith, J., & Jones, K. (2001). Memos considered harmful. Journal of Tests, 3, 1-9."
    citation = parse_citation(text)
    normalize.normalize_title("A Title: With a Subtitle")
    matching.title_similarity("A Title", "Another Title")
    record = WorkRecord(source="crossref", source_id="10.1/x", url="https://doi.org/10.1/x",
                        title="Memos",
                        authors=(Author(family="Smith", given="J."),), year=2001)
    matching.best_candidate(citation, [record])
    apa_reference(record)
    HttpRequest(path="/works", params=(("query", "memos considered harmful"),)).cache_key()
    assert parse_citation.cache_info().currsize > 0
    assert normalize.normalize_title.cache_info().currsize > 0
    assert matching._named_memo and transport._quoted_values
    # A reference without an author-date lead is read by the CRF, whose features keep
    # memos of their own.
    parse_citation('Smith, John. "Memos Considered Harmful." Journal of Tests, vol. 3, 2001.')
    assert crf_features._SPACED_WORDS and crf_features._GLUED_WORDS and crf_features._PAIRS

    assert forget_all() >= 20

    for memo in (parse_citation, normalize.normalize_title, normalize.split_title,
                 normalize.family_key, matching._title_form, matching._name_of):
        assert memo.cache_info().currsize == 0, memo
    assert not matching._named_memo
    assert not transport._quoted_values and not transport._quoted_names
    assert not (crf_features._SPACED_WORDS or crf_features._GLUED_WORDS
                or crf_features._PAIRS)
    # Emptied, not broken: the same calls give the same values.
    assert parse_citation(text) == citation


def test_a_value_memo_is_a_bounded_lru_cache() -> None:
    calls: list[str] = []

    @value_memo(2)
    def shout(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert [shout("a"), shout("a"), shout("b"), shout("c"), shout("a")] == list("AABCA")
    assert calls == ["a", "b", "c", "a"]  # "a" went when "c" came (two kept)
    assert shout.cache_info().maxsize == 2
    forget_all()
    shout("b")
    assert calls[-1] == "b"


def test_a_value_memo_needs_a_positive_size() -> None:
    with pytest.raises(ValueError, match="positive size"):
        value_memo(0)


def test_every_text_keyed_memo_is_registered() -> None:
    """A new ``lru_cache`` or ``functools.cache`` in the engine is either a value memo
    (registered, so the distinct-citation benchmark does not read its own warm-up back)
    or named above as configuration."""
    stray = []
    for folder in ("verifier", "adapters"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative == "verifier/value_memos.py":
                continue  # the registry itself
            source = path.read_text()
            if re.search(r"\blru_cache\b|@(?:functools\.)?cache\b", source) and (
                    relative not in CONFIGURATION_MEMOS):
                stray.append(relative)
    assert stray == []


def test_keep_starts_a_full_memo_over_and_returns_the_value() -> None:
    memo: dict[str, int] = {}
    assert [keep(memo, k, n, 2) for n, k in enumerate("abc")] == [0, 1, 2]
    assert memo == {"c": 2}  # full at "c": emptied, then kept
    keep(memo, "d", 3, 2)
    assert memo == {"c": 2, "d": 3}
