"""Characters that show nothing (verifier.citations.invisibles) change no reading of a
reference: text copied from a PDF or a web page carries zero-width spaces, byte-order
marks, word joiners and stray control bytes inside words, and a real reference must not
become "no trace" for them."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.citations.inputs import read_citations
from verifier.citations.inputs.items import visible_fields
from verifier.citations.invisibles import INVISIBLE, without_invisibles
from verifier.citations.models import Author, Citation, CitationInput
from verifier.citations.normalize import family_key, normalize_title
from verifier.citations.parsing.combined import _parse

REFERENCES = [
    "LeCun, Y., Bengio, Y., & Hinton, G. (2015). Deep learning. Nature, 521(7553), 436–444.",
    "Vaswani A, Shazeer N, Parmar N. Attention is all you need. In: Advances in Neural "
    "Information Processing Systems; 2017. p. 5998-6008.",
    "Kahneman, Daniel. Thinking, Fast and Slow. New York: Farrar, Straus and Giroux, 2011.",
]
SHOWING_NOTHING = ["\u200b", "\ufeff", "\u2060", "\u200e", "\u00ad", "\x00", "\x07", "\x7f"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(REFERENCES),
       st.lists(st.tuples(st.integers(0, 200), st.sampled_from(SHOWING_NOTHING)),
                min_size=1, max_size=6))
def test_characters_that_show_nothing_change_no_parse(
        reference: str, inserts: list[tuple[int, str]]) -> None:
    text = reference
    for position, char in inserts:
        cut = position % (len(text) + 1)
        text = text[:cut] + char + text[cut:]
    assert _parse(text) == _parse(reference)


def test_a_title_or_a_name_with_a_zero_width_space_inside_a_word_compares_whole() -> None:
    assert normalize_title("De\u200bep lea\ufeffrning") == "deep learning"
    assert normalize_title("Deep lea\x00rning") == "deep learning"
    assert normalize_title("Café\u2060s of Par\u200bis") == normalize_title("Cafés of Paris")
    assert family_key("Hin\u200bton") == family_key("Hinton") == "hinton"


def test_what_shows_or_shapes_a_script_is_kept() -> None:
    kept = "a\tb\nc d\u00a0e\u200cf\u200dg\x1ch"  # whitespace, no-break space, (non-)joiners
    assert INVISIBLE.search(kept) is None and without_invisibles(kept) == kept
    assert without_invisibles("a\u200bb\ufeffc\x00d") == "abcd"


def test_a_structured_entry_loses_them_as_a_free_text_does(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{lecun, title={De\u200bep learning}, journal={Nat\ufeffure},\n"
                   "  author={LeCun, Yann and Hin\u200bton, Geoffrey}, year={2015}}\n")
    (item,) = read_citations(bib, "bibtex")
    assert isinstance(item, CitationInput) and item.fields is not None
    assert (item.fields.title, item.fields.container) == ("Deep learning", "Nature")
    assert [a.family for a in item.fields.authors] == ["LeCun", "Hinton"]
    plain = Citation(authors=(Author("Hinton", "G."),), title="Deep learning")
    assert visible_fields(plain) is plain  # nothing to drop: the same value
