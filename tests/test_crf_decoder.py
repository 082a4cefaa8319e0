"""The CRF parser's C decoder (``crf/_decode.c`` over the tables ``crf/model_file.py``
reads) labels exactly as python-crfsuite's tagger does with the same model: on every
text of the parsing gold data, and on feature lists made up to hit what a reference
rarely has (unknown features, repeats, tokens with no known feature, one token). Read
from a reference's layout as attribute ids (``TableTagger.label``), it adds the very
features ``featurize`` gives, in its order, for every gold text and for made-up text."""

from __future__ import annotations

import json
import sys
from array import array
from pathlib import Path
from typing import TYPE_CHECKING

import pycrfsuite
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.citations.parsing.crf import features as crf_features
from verifier.citations.parsing.crf import word_ids
from verifier.citations.parsing.crf.features import featurize, lay_out
from verifier.citations.parsing.crf.model import MODEL_PATH, LibraryTagger, tagger
from verifier.citations.parsing.crf.model_file import ModelTables, read_model
from verifier.citations.parsing.crf.parse import author_end
from verifier.citations.parsing.crf.tokens import Token, tokenize
from verifier.citations.parsing.text import prepare
from verifier.native import is_compiled
from verifier.value_memos import forget_all

if TYPE_CHECKING:
    from verifier.citations.parsing.crf.decode import TableTagger

GOLD = Path(__file__).resolve().parents[2] / "shared" / "data" / "parsing_gold"


@pytest.fixture(scope="module")
def library() -> pycrfsuite.Tagger:
    opened = pycrfsuite.Tagger()
    opened.open(str(MODEL_PATH))
    return opened


@pytest.fixture(scope="module")
def tables() -> ModelTables:
    return read_model(MODEL_PATH)


@pytest.fixture(scope="module")
def decoder(tables: ModelTables) -> TableTagger:
    # Importing the decoder fails where the C extension is not built (a pure install).
    decode = pytest.importorskip("verifier.citations.parsing.crf.decode")
    tagging: TableTagger = decode.TableTagger(tables)
    return tagging


def test_a_compiled_install_labels_with_the_c_decoder() -> None:
    if not is_compiled(crf_features):
        pytest.skip("a pure-Python install labels through python-crfsuite")
    from verifier.citations.parsing.crf.decode import TableTagger

    assert isinstance(tagger(), TableTagger)


def test_the_tables_hold_the_models_labels_attributes_and_weights(
        library: pycrfsuite.Tagger, tables: ModelTables) -> None:
    info = library.info()
    assert list(tables.labels) == library.labels()
    assert set(tables.attributes) == set(info.attributes)
    width = len(tables.labels)
    label_id = {name: n for n, name in enumerate(tables.labels)}
    attribute_id = {name: n for n, name in enumerate(tables.attributes)}
    state = {(attribute_id[a], label_id[lab]): w for (a, lab), w in info.state_features.items()}
    # The library's dump prints weights to six decimals; the file holds them exactly.
    assert all(abs(tables.state_weights[a * width + lab] - w) <= 5e-7
               for (a, lab), w in state.items())
    assert sum(1 for w in tables.state_weights if w != 0.0) == len(state)
    moves = {(label_id[a], label_id[b]): w for (a, b), w in info.transitions.items()}
    assert all(abs(tables.transitions[a * width + b] - w) <= 5e-7
               for (a, b), w in moves.items())
    assert len(tables.state_weights) == len(tables.attributes) * width


def _gold_texts() -> list[str]:
    if not GOLD.is_dir():
        pytest.skip(f"parsing_gold not available: {GOLD}")
    texts: list[str] = []
    for name in ("anystyle_dev.jsonl", "grobid_dev.jsonl"):
        with (GOLD / name).open(encoding="utf-8") as handle:
            texts.extend(json.loads(line)["text"] for line in handle if line.strip())
    return texts


def test_every_gold_reference_gets_the_librarys_labels(
        library: pycrfsuite.Tagger, decoder: TableTagger) -> None:
    texts = _gold_texts()
    differ = []
    for text in texts:
        prepared = prepare(text)
        xseq = featurize(tokenize(prepared), author_end(prepared))
        if decoder.tag(xseq) != library.tag(xseq):
            differ.append(text)
    assert len(texts) > 8000
    assert differ == []


def test_every_feature_string_is_interned_as_the_decoders_keys_are(
        decoder: TableTagger) -> None:
    # A look-up then finds its key by identity; a string built anew each time would be
    # found only by comparing characters, a fifth of the decoder's time.
    for text in _gold_texts()[:400]:
        prepared = prepare(text)
        for token in featurize(tokenize(prepared), author_end(prepared)):
            assert all(sys.intern(feature) is feature for feature in token), token
    assert all(sys.intern(key) is key for key in decoder._ids)


def test_pairs_of_classes_are_the_same_features_after_their_memo_empties() -> None:
    tokens = tokenize("Smith, J. 2004. “A title.” Journal of Things 3: 1–9.")
    before = featurize(tokens)
    crf_features._forget_pairs()
    for n in range(crf_features._PAIRS_MAX + 5):  # fills the memo past its bound
        crf_features._pair(f"class{n // 100}", f"class{n % 100}")
        assert sum(map(len, crf_features._PAIRS.values())) <= crf_features._PAIRS_MAX
    assert featurize(tokens) == before
    assert {"-1|0:c=,|X", "0|+1:c=X|."} <= set(featurize(tokens)[2])  # ", J ."


def test_words_are_the_same_features_when_their_memo_is_small(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = tokenize("Smith, John, and Ann Jones. “A Title of Many Words.” Journal of "
                      "Things, vol. 3, no. 2, 2004, pp. 1–9.")
    crf_features._SPACED_WORDS.clear()
    crf_features._GLUED_WORDS.clear()
    roomy = featurize(tokens)
    monkeypatch.setattr(crf_features, "_WORDS_MAX", 4)  # emptied again and again
    crf_features._SPACED_WORDS.clear()
    crf_features._GLUED_WORDS.clear()
    assert featurize(tokens) == roomy
    assert 0 < len(crf_features._SPACED_WORDS) <= 4
    assert 0 < len(crf_features._GLUED_WORDS) <= 4


_FEATURE = st.one_of(st.sampled_from(["w=smith", "s=Xx", "year", "first", "last", "L=pub",
                                      "-1:w=.", "1:c=year", "in_quote", "pos=0"]),
                     st.text(max_size=8))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_FEATURE, max_size=12), max_size=25), st.data())
def test_made_up_feature_lists_get_the_librarys_labels(
        library: pycrfsuite.Tagger, decoder: TableTagger, tables: ModelTables,
        xseq: list[list[str]], data: st.DataObject) -> None:
    # Mix in real attributes, repeated, so the scores are not all from a few features.
    known = data.draw(st.lists(st.sampled_from(tables.attributes), max_size=40))
    for n, feature in enumerate(known):
        if xseq:
            xseq[n % len(xseq)].append(feature)
    assert decoder.tag(xseq) == library.tag(xseq)


def test_no_tokens_no_labels(decoder: TableTagger) -> None:
    assert decoder.tag([]) == []


def test_the_decoder_refuses_tables_that_do_not_fit_and_items_that_are_not_lists(
        decoder: TableTagger, tables: ModelTables) -> None:
    from verifier.citations.parsing.crf import _decode  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="label count"):
        _decode.decode([["year"]], {}, tables.state_weights, array("d", [0.0]), 26)
    with pytest.raises(TypeError, match="token 0"):
        _decode.decode([("year",)], {}, tables.state_weights, tables.transitions, 26)
    with pytest.raises(ValueError, match="out of range"):
        _decode.decode([["x"]], {"x": len(tables.attributes)}, tables.state_weights,
                       tables.transitions, 26)


def test_a_file_that_is_not_a_model_is_named_in_the_error(tmp_path: Path) -> None:
    broken = tmp_path / "parser.crfsuite"
    broken.write_bytes(b"lCRF" + bytes(20))
    with pytest.raises(ValueError, match="parser.crfsuite"):
        read_model(broken)
    broken.write_bytes(MODEL_PATH.read_bytes()[:5000])  # cut short
    with pytest.raises(ValueError, match="parser.crfsuite"):
        read_model(broken)
    with pytest.raises(OSError):
        read_model(tmp_path / "missing.crfsuite")


def _known_ids(decoder: TableTagger, text: str) -> tuple[list[list[int]], list[list[int]]]:
    """The ids the layout path adds for ``text``'s tokens, and those of featurize's
    strings the model knows, in order."""
    prepared = prepare(text)
    tokens, end = tokenize(prepared), author_end(prepared)
    ids = decoder._ids
    expected = [[ids[f] for f in token if f in ids] for token in featurize(tokens, end)]
    return _decode_ids(decoder, tokens, end), expected


def test_the_layout_path_adds_featurizes_features_in_its_order_for_every_gold_text(
        library: pycrfsuite.Tagger, decoder: TableTagger) -> None:
    texts = _gold_texts()
    differ = []
    for text in texts:
        got, expected = _known_ids(decoder, text)
        if got != expected:
            differ.append(text)
    assert differ == []
    mislabelled = []
    for text in texts:
        prepared = prepare(text)
        tokens, end = tokenize(prepared), author_end(prepared)
        if decoder.label(tokens, end) != library.tag(featurize(tokens, end)):
            mislabelled.append(text)
    assert mislabelled == []


_MADE_UP = st.lists(st.sampled_from([*"Aa Zz.,;:\"“”„«»‘’'`()[]{}-–0129ivx&/", "In ", "in ",
                                     "eds.", "Ed.", "http://x.org/a", "10.1000/x", "2004",
                                     "Journal", "Press", "London", "Smith", "pp.", "  "]),
                    max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(_MADE_UP, st.integers(min_value=0, max_value=130))
def test_made_up_text_gets_the_same_features_and_labels_from_its_layout(
        library: pycrfsuite.Tagger, decoder: TableTagger, text: str, end: int) -> None:
    # Quotes opened and never closed, brackets closed before they open, sentence ends
    # everywhere: the flags the layout carries must say what featurize says.
    tokens = tokenize(text)
    got = _decode_ids(decoder, tokens, end)
    ids = decoder._ids
    assert got == [[ids[f] for f in token if f in ids] for token in featurize(tokens, end)]
    assert decoder.label(tokens, end) == library.tag(featurize(tokens, end))


def _decode_ids(decoder: TableTagger, tokens: list[Token], end: int) -> list[list[int]]:
    from verifier.citations.parsing.crf import _decode  # type: ignore[attr-defined]

    ids: list[list[int]] = _decode.layout_ids(*decoder.layout_args(lay_out(tokens, end)))
    return ids


def test_the_library_tagger_labels_as_the_decoder_does(decoder: TableTagger) -> None:
    # The pure-Python install's tagger: the same labels through the library.
    pure = LibraryTagger(MODEL_PATH)
    for text in _gold_texts()[:300]:
        prepared = prepare(text)
        tokens, end = tokenize(prepared), author_end(prepared)
        assert pure.label(tokens, end) == decoder.label(tokens, end)
    assert pure.label([]) == [] == decoder.label([])


def test_word_blobs_are_bounded_emptied_with_the_value_memos_and_the_same_anew(
        decoder: TableTagger, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("Smith, John, and Ann Jones. “A Title of Many Words.” Journal of Things, vol. 3, "
            "no. 2, 2004, pp. 1–9.")
    tokens = tokenize(text)
    forget_all()
    assert len(decoder._words) == 0
    first = _decode_ids(decoder, tokens, 0)
    assert 0 < len(decoder._words) <= len(tokens)
    forget_all()
    assert len(decoder._words) == 0
    monkeypatch.setattr(word_ids, "WORDS_MAX", 3)  # emptied again and again
    assert _decode_ids(decoder, tokens, 0) == first
    assert 0 < len(decoder._words) <= 3


def test_a_word_blob_leaves_out_what_the_model_lacks_and_marks_the_rest(
        decoder: TableTagger) -> None:
    info = lay_out(tokenize("Zqxjkvb"), 0).infos[0]
    ids = decoder._ids
    blob = array("i")
    blob.frombytes(decoder._words.blob(info))
    own = [ids[f] for f in info.own if f in ids]
    assert len(own) < len(info.own)  # "w=zqxjkvb" is no attribute of the model
    assert list(blob) == [len(own), *own, *(ids.get(f, -1) for f in info.ends),
                          *(ids.get(f, -1) for pair in info.window for f in pair)]
    assert -1 in blob


def test_the_layout_decoder_refuses_what_does_not_fit(
        decoder: TableTagger, tables: ModelTables) -> None:
    from verifier.citations.parsing.crf import _decode  # type: ignore[attr-defined]

    tokens = tokenize("Smith, J. 2004. A title. Journal 3: 1–9.")
    words, flags, chunk_of, placed, pairs, ids, constants = decoder.layout_args(
        lay_out(tokens, 0))
    weights = (tables.state_weights, tables.transitions, len(tables.labels))

    def tag(*args: object) -> list[int]:
        labels: list[int] = _decode.tag_layout(*args, *weights)
        return labels

    assert len(tag(words, flags, chunk_of, placed, pairs, ids, constants)) == len(tokens)
    with pytest.raises(ValueError, match="token 0's word blob has the wrong length"):
        tag([words[0][:-4], *words[1:]], flags, chunk_of, placed, pairs, ids, constants)
    with pytest.raises(TypeError, match="token 1's word blob is not bytes"):
        tag([words[0], "x", *words[2:]], flags, chunk_of, placed, pairs, ids, constants)
    with pytest.raises(ValueError, match="token 2's flags are out of range"):
        tag(words, [*flags[:2], 5 << 10, *flags[3:]], chunk_of, placed, pairs, ids, constants)
    with pytest.raises(ValueError, match="token 0's chunk is out of range"):
        tag(words, flags, [len(placed), *chunk_of[1:]], placed, pairs, ids, constants)
    with pytest.raises(ValueError, match="one token count"):
        tag(words, flags, chunk_of, placed, pairs[:-1], ids, constants)
    with pytest.raises(ValueError, match="29 ints"):
        tag(words, flags, chunk_of, placed, pairs, ids, constants[:-4])
    with pytest.raises(TypeError, match="pair 0"):
        tag(words, flags, chunk_of, placed, [("a",), *pairs[1:]], ids, constants)
    with pytest.raises(ValueError, match="out of range"):
        tag(words, flags, chunk_of, placed, pairs, {pairs[0][0]: len(tables.attributes)},
            constants)
