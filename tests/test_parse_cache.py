"""Parses of identical texts are cached, bounded, and equal to a fresh parse."""

from __future__ import annotations

import pytest
from pure_modules import pure

from verifier.citations.parsing.combined import PARSE_CACHE_SIZE, parse_citation

TEXTS = [
    "Smith, J. (2019). A study of things. Journal of Stuff, 3(2), 1-10.",
    "J. Smith, \u201cA study of things,\u201d J. Stuff, vol. 3, pp. 1\u201310, 2019.",
]


def test_an_identical_text_is_parsed_once_and_gives_the_fresh_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    combined = pure("verifier.citations.parsing.combined")  # its own call to _parse, watched
    combined.parse_citation.cache_clear()
    calls: list[str] = []
    original = combined._parse

    def counted(text: str) -> object:
        calls.append(text)
        return original(text)

    monkeypatch.setattr(combined, "_parse", counted)
    first = [combined.parse_citation(t) for t in TEXTS]
    again = [combined.parse_citation(t) for t in TEXTS]
    assert calls == TEXTS
    assert again == first == [original(t) for t in TEXTS]
    assert first[0].title == "A study of things"


def test_the_parse_cache_is_bounded() -> None:
    assert parse_citation.cache_info().maxsize == PARSE_CACHE_SIZE
