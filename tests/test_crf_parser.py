"""The trained reference parser: tokens, features, gold labels, the split, assembly, the
shipped model on real-shaped references, training determinism and the side-by-side bench.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.citations.models import Author, Identifiers, WorkType
from verifier.citations.parsing import DEFAULT_PARSER, parse_citation
from verifier.citations.parsing.crf import parse_trained
from verifier.citations.parsing.crf.assemble import (
    build,
    infer_type,
    read_names,
    spans,
)
from verifier.citations.parsing.crf.features import featurize
from verifier.citations.parsing.crf.gold import remember_outside, token_labels
from verifier.citations.parsing.crf.labels import LABELS, is_outside
from verifier.citations.parsing.crf.model import MODEL_PATH, label
from verifier.citations.parsing.crf.split import bucket, is_validation, split_key
from verifier.citations.parsing.crf.tokens import Token, tokenize

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT.parent / "shared" / "data" / "parsing_gold"


def _bench(name: str) -> ModuleType:
    path = ROOT / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"bench_{name}"] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------
# Tokens and features


def test_tokens_split_letters_digits_and_punctuation_but_keep_links_whole() -> None:
    text = "Phys.Rev. D87, 036003 (2004a). https://doi.org/10.1/x.y"
    tokens = tokenize(text)
    words = [t.text for t in tokens]
    assert words[:7] == ["Phys", ".", "Rev", ".", "D", "87", ","]
    assert ["(", "2004", "a", ")", "."] == words[8:13]
    assert words[-1] == "https://doi.org/10.1/x.y"
    assert all(text[t.start : t.end] == t.text for t in tokens)
    assert "".join(words) == text.replace(" ", "")
    assert all(type(t) is Token for t in tokens)


def _features_of(text: str, word: str, author_end: int = 0) -> list[str]:
    tokens = tokenize(text)
    index = next(i for i, t in enumerate(tokens) if t.text == word)
    return featurize(tokens, author_end)[index]


def test_features_mark_years_initials_lexicons_and_shapes() -> None:
    text = "Smith, J. (2004). A study. Journal of Things, London: Penguin Press, 12."
    assert {"w=2004", "s=d4", "year", "in_bracket"} <= set(_features_of(text, "2004"))
    assert {"initial", "s=X", "glued"} - {"glued"} <= set(_features_of(text, "J"))
    assert "L=journal" in _features_of(text, "Journal")
    assert "L=place" in _features_of(text, "London")
    assert "L=pub" in _features_of(text, "Press")
    study = set(_features_of(text, "study"))
    assert {"after_year", "ends=1", "-1:w=a", "1:w=.", "S:first=a"} <= study
    assert "year" not in study and "in_bracket" not in study
    assert "num" in _features_of(text, "12") and "S:last" not in study


def test_features_say_where_the_rule_author_scan_ends() -> None:
    text = "Smith, J. A study."
    assert "rule_author" in _features_of(text, "Smith", author_end=9)
    assert "rule_author" not in _features_of(text, "study", author_end=9)


# ---------------------------------------------------------------------------------------
# Gold labels


def test_gold_labels_leave_edge_punctuation_and_leading_in_outside() -> None:
    text = "Smith, J. (2004). Title: sub. In: Book."
    segments = [
        ["author", "Smith, J.", 0, 9],
        ["date", "(2004).", 10, 17],
        ["title", "Title: sub.", 18, 29],
        ["container-title", "In: Book.", 30, 39],
    ]
    tokens, labels = token_labels(text, segments)
    assert list(zip([t.text for t in tokens], labels, strict=True)) == [
        ("Smith", "author"), (",", "author"), ("J", "author"), (".", "O>author"),
        ("(", "O>author"), ("2004", "date"), (")", "O"), (".", "O"),
        ("Title", "title"), (":", "title"), ("sub", "title"), (".", "O>title"),
        ("In", "O>title"), (":", "O>title"), ("Book", "container"), (".", "O>container"),
    ]


def test_grobid_monograph_title_is_container_only_beside_an_article_title() -> None:
    chapter = [["title[level=a]", "A", 0, 1], ["title[level=m]", "B", 3, 4]]
    _, labels = token_labels("A, B", chapter)
    assert [lab for lab in labels if not is_outside(lab)] == ["title", "container"]
    _, labels = token_labels("B", [["title[level=m]", "B", 0, 1]])
    assert labels == ["title"]


def test_outside_tokens_remember_the_field_before_them() -> None:
    labels = ["O", "author", "O", "date", "O", "title", "O", "journal"]
    assert remember_outside(labels) == [
        "O", "author", "O>author", "date", "O", "title", "O>title", "journal",
    ]
    assert set(remember_outside(labels)) <= set(LABELS)


# ---------------------------------------------------------------------------------------
# Split


def test_split_depends_on_the_normalised_text_only() -> None:
    text = "Smith, J. (2004). A Study of Things. Journal, 12, 3-4."
    assert split_key(text) == "smith j 2004 a study of things journal 12 3 4"
    digest = hashlib.sha1(split_key(text).encode()).hexdigest()
    assert bucket(text) == int(digest, 16) % 10
    assert is_validation(text) == is_validation(text.upper().replace(",", " ;"))


def test_split_puts_about_a_fifth_in_validation() -> None:
    texts = [f"Author {n}. Title number {n}. Journal {n * 7}." for n in range(2000)]
    share = sum(is_validation(t) for t in texts) / len(texts)
    assert 0.17 < share < 0.23


def test_split_of_the_gold_data_is_disjoint_by_normalised_text() -> None:
    if not GOLD.is_dir():
        pytest.skip(f"parsing_gold not available: {GOLD}")
    sides: dict[bool, set[str]] = {True: set(), False: set()}
    for name in ("anystyle_dev.jsonl", "grobid_dev.jsonl"):
        with (GOLD / name).open(encoding="utf-8") as handle:
            for line in handle:
                text = json.loads(line)["text"]
                sides[is_validation(text)].add(split_key(text))
    assert not sides[True] & sides[False]
    assert 0.17 < len(sides[True]) / (len(sides[True]) + len(sides[False])) < 0.23


# ---------------------------------------------------------------------------------------
# Assembly


def test_runs_never_join_across_an_outside_token() -> None:
    tokens = tokenize("A B, C. D E")
    labels = ["author", "author", "O>author", "title", "O>title", "title", "journal"]
    assert [(s.label, s.start, s.end) for s in spans(tokens, labels)] == [
        ("author", 0, 3), ("title", 5, 6), ("title", 8, 9), ("journal", 10, 11),
    ]


def test_names_are_read_from_noisy_spans_and_role_words_dropped() -> None:
    assert read_names("Yamaguchi,H .,& Katsuda ,S")[0] == [
        Author(family="Yamaguchi", given="H."), Author(family="Katsuda", given="S"),
    ]
    authors, et_al = read_names("In J. Foran (ed.)")
    assert [a.family for a in authors] == ["Foran"] and not et_al
    assert read_names("Smith, J., et al.")[1] is True


def test_assembly_cleans_values_and_infers_the_type() -> None:
    text = "Pappas G. Loop groups. Adv. Math. 219(3), 118-198 (2008)."
    tokens = tokenize(text)
    labels = [
        "author", "author", "O>author", "title", "title", "O>title", "journal", "journal",
        "journal", "O>journal", "volume", "volume", "volume", "O", "O", "pages", "pages",
        "pages", "O", "date", "O", "O",
    ]
    citation = build(text, tokens, labels, Identifiers())
    assert citation.container == "Adv. Math."
    assert (citation.volume, citation.issue, citation.pages) == ("219", "3", "118-198")
    assert (citation.title, citation.year, citation.type) == ("Loop groups", 2008, "article")
    assert citation.authors == (Author(family="Pappas", given="G."),)


def test_type_follows_the_labels_present() -> None:
    none = Identifiers()
    assert infer_type({"genre": "PhD thesis"}, none) is WorkType.THESIS
    assert infer_type({"genre": "Tech. Rep. 95-50"}, none) is WorkType.REPORT
    assert infer_type({"journal": "Nature", "genre": "thesis"}, none) is WorkType.ARTICLE
    assert infer_type({"container": "Proc. of the Workshop"}, none) is WorkType.PROCEEDINGS
    assert infer_type({"container": "Handbook"}, none) is WorkType.CHAPTER
    assert infer_type({"publisher": "Wiley"}, none) is WorkType.BOOK
    assert infer_type({}, Identifiers(url="https://x.org")) is WorkType.WEB
    assert infer_type({}, Identifiers(arxiv="1234.5678")) is WorkType.PREPRINT
    assert infer_type({"title": "T"}, none) is WorkType.UNKNOWN


# ---------------------------------------------------------------------------------------
# The shipped model


def test_the_model_ships_small_with_its_licence_notice() -> None:
    assert MODEL_PATH.is_file() and MODEL_PATH.stat().st_size < 4_000_000
    notice = (MODEL_PATH.parent / "NOTICE.md").read_text(encoding="utf-8")
    assert "Sylvester Keil" in notice and "CC BY" in notice and "GROBID" in notice


@pytest.mark.parametrize(
    ("text", "title", "container", "year"),
    [
        (  # APA article
            "Smith, J. A., & Doe, R. (2019). Sleep and memory in older adults. "
            "Journal of Aging Research, 12(3), 45-67.",
            "Sleep and memory in older adults", "Journal of Aging Research", 2019,
        ),
        (  # Vancouver
            "Knaus WA, Draper EA, Wagner DP. APACHE II: a severity of disease classification "
            "system. Crit Care Med. 1985;13(10):818-29.",
            "APACHE II: a severity of disease classification system", "Crit Care Med", 1985,
        ),
        (  # physics, no title
            "D. Diakonov, N. Gromov, and V. Petrov, Phys. Rev. D 70, 036003 (2004).",
            "", "Phys. Rev. D", 2004,
        ),
        (  # IEEE conference paper
            'K. He, X. Zhang, S. Ren, and J. Sun, "Deep residual learning for image '
            'recognition," in Proc. IEEE Conf. Computer Vision and Pattern Recognition, '
            "2016, pp. 770-778.",
            "Deep residual learning for image recognition",
            "Proc. IEEE Conf. Computer Vision and Pattern Recognition", 2016,
        ),
        (  # Chicago book
            "Bourdieu, Pierre. Distinction: A Social Critique of the Judgement of Taste. "
            "Cambridge, MA: Harvard University Press, 1984.",
            "Distinction: A Social Critique of the Judgement of Taste", "", 1984,
        ),
        (  # APA chapter in an edited book
            "Nichols, B. (1993). Getting to know you. In M. Renov (Ed.), Theorizing documentary "
            "(pp. 174-191). New York: Routledge.",
            "Getting to know you", "Theorizing documentary", 1993,
        ),
        (  # chapter, editor before the book
            "Miller, G. A. Toward a science of mind. In: Smith, R. (ed.) Handbook of Cognition. "
            "Oxford University Press, Oxford, 1990, pp. 12-40.",
            "Toward a science of mind", "Handbook of Cognition", 1990,
        ),
    ],
)
def test_the_shipped_model_reads_references_of_several_styles(
    text: str, title: str, container: str, year: int
) -> None:
    citation = parse_trained(text)
    assert (citation.title, citation.container, citation.year) == (title, container, year)
    assert citation.authors


def test_labels_come_from_the_label_set() -> None:
    tokens = tokenize("Doe, J. (2001). A title. Some Journal 3: 1-2.")
    assert set(label(tokens)) <= set(LABELS)
    assert label([]) == []


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_the_trained_parser_never_raises(text: str) -> None:
    citation = parse_trained(text)
    assert citation.year is None or 1500 <= citation.year <= 2039


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("Ab1 .,;:()[]“”\"'-&J")), max_size=200))
def test_the_default_parser_never_raises_on_punctuation_soup(text: str) -> None:
    parse_citation(text)


# ---------------------------------------------------------------------------------------
# Training and the bench


def test_training_is_deterministic(tmp_path: Path) -> None:
    train = _bench("train_parser")
    rows = []
    for text, segments in [
        ("Smith, J. (2001). Title one. Journal, 1, 2-3.",
         [["author", "Smith, J.", 0, 9], ["date", "(2001).", 10, 17],
          ["title", "Title one.", 18, 28], ["journal", "Journal,", 29, 37]]),
        ("Doe, A. 1999. Book two. London: Press.",
         [["author", "Doe, A.", 0, 7], ["date", "1999.", 8, 13],
          ["title", "Book two.", 14, 23], ["location", "London:", 24, 31],
          ["publisher", "Press.", 32, 38]]),
    ]:
        tokens, labels = token_labels(text, segments)
        rows.append((featurize(tokens), labels))
    first, second = tmp_path / "a.crfsuite", tmp_path / "b.crfsuite"
    train.train(rows, first, iterations=20, c1=0.1, c2=0.05)
    train.train(rows, second, iterations=20, c1=0.1, c2=0.05)
    assert first.read_bytes() == second.read_bytes()


def _write_gold(folder: Path) -> None:
    rows = []
    candidates = [
        ("Smith, J. (2019). Sleep and memory. Journal of Aging, 12(3), 45-67.", "article"),
        ("Doe, R. (2001). A book of things. London: Penguin.", "book"),
        ("Roe, A. (1999). Quiet rivers. Water Letters, 3, 1-9.", "article"),
        ("Poe, E. (1845). The raven and others. New York: Wiley.", "book"),
        ("Lee, K. (2010). Small worlds. Nature Physics, 6, 10-12.", "article"),
    ]
    for n in range(40):
        text, type_ = candidates[n % len(candidates)]
        text = text.replace("(", f"({n} ", 0) + f" Note {n}."
        rows.append({"id": f"x:{n}", "text": text, "type": type_,
                     "fields": {"title": "t", "year": "2019"}, "segments": []})
    (folder / "parsing_gold").mkdir(parents=True)
    with (folder / "parsing_gold" / "anystyle_dev.jsonl").open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


def test_the_bench_reports_every_parser_side_by_side_on_validation_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench("parsing")
    _write_gold(tmp_path)
    report_path = tmp_path / "report.json"
    code = bench.main(
        ["--data", str(tmp_path), "--dataset", "anystyle_dev", "--json", str(report_path)]
    )
    assert code == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["default"] == DEFAULT_PARSER
    assert set(report["parsers"]) == {"combined", "trained", "rules"}
    for key in ("overall", "by_type", "type_accuracy", "timing"):
        assert report[key] == report["parsers"][DEFAULT_PARSER][key] or key == "timing"
    for parsed in report["parsers"].values():
        assert set(parsed["overall"]["title"]) == {"precision", "recall", "f1", "support"}
        assert parsed["timing"]["per_second"] > 0
    texts = [json.loads(line)["text"] for line in
             (tmp_path / "parsing_gold" / "anystyle_dev.jsonl").read_text().splitlines()]
    validation = sum(is_validation(t) for t in texts)
    assert 0 < validation < len(texts)
    assert report["parsers"]["trained"]["timing"]["citations"] == validation
    assert "side by side" in capsys.readouterr().out
