"""The cache key's query string is exactly urlencode's, with or without its fast path."""

from __future__ import annotations

from urllib.parse import quote_plus, urlencode

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier.http import transport
from verifier.http.transport import HttpRequest, query_string

WORDS = st.one_of(
    st.text(),
    st.text(alphabet="abcXYZ019_.~-", max_size=8),
    st.sampled_from(["", "a b", "intitle:\"x y\"", "é", "&=+%", "10.1000/xyz", "q"]),
)


@settings(max_examples=400)
@given(st.lists(st.tuples(WORDS, WORDS), max_size=6))
@example([("query", "plain"), ("rows", "5")])
@example([("q", 'intitle:"A b" inauthor:"Ç"'), ("mailto", "x@y.org")])
def test_query_string_is_urlencode(params: list[tuple[str, str]]) -> None:
    assert query_string(params) == urlencode(params)


def test_cache_key_sorts_parameters_and_quotes_like_before() -> None:
    request = HttpRequest("/works", (("rows", "5"), ("query", "a b&c")))
    assert request.cache_key() == "/works?query=a+b%26c&rows=5"


class _Text(str):
    """A str subclass: quoted as its text, never through the remembered pairs."""


def test_values_that_are_not_plain_strings_quote_as_urlencode_does() -> None:
    params: list[tuple[object, object]] = [
        ("rows", 5), (_Text("q"), _Text("a b")), ("x", 2.5), (3, "é"), ("rows", "5")]
    for _ in range(2):  # the second time through, plain pairs come from the memo
        assert query_string(params) == urlencode(params)  # type: ignore[arg-type]


def test_the_quoting_memos_stay_bounded_and_keep_quoting_as_urlencode_does() -> None:
    params: list[tuple[str, str]] = []
    for i in range(transport.QUOTED_MEMO_SIZE * 2 + 3):
        params = [("q", f"title {i}: a/b"), ("rows", "5")]
        assert query_string(params) == urlencode(params)
        assert len(transport._quoted_values) <= transport.QUOTED_MEMO_SIZE
    # A value met again after the memo was emptied is quoted anew, the same way.
    assert query_string(params) == urlencode(params)
    assert transport._quoted_values["5"] == "5"
    assert transport._quoted_names["q"] == "q="


# Every ASCII character (safe, the space, "%" and "+" among them, each of which the fast
# path treats on its own), a few characters of two, three and four UTF-8 bytes, and runs.
QUOTING_ALPHABET = [chr(c) for c in range(128)] + ["é", "ü", "–", "€", "😀", "  ", "%25", "+ +"]
quoted_texts = st.lists(st.sampled_from(QUOTING_ALPHABET), max_size=30).map("".join) | st.text()


@settings(max_examples=1000)
@given(quoted_texts)
@example("")
@example("plain")
@example("a b  c")
@example("%2B+ %")
@example('unmanned[ti] AND law[ti] AND baumeister j[au]')
@example('intitle:"Will shift to remote teaching be boon or bane?" inauthor:"Lederman"')
def test_quote_text_is_quote_plus(text: str) -> None:
    assert transport._quote_text(text) == quote_plus(text)


def test_a_lone_surrogate_raises_as_quote_plus_does() -> None:
    with pytest.raises(UnicodeEncodeError):
        quote_plus("a\ud800")
    with pytest.raises(UnicodeEncodeError):
        transport._quote_text("a\ud800")
