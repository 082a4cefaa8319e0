"""The scoring functions of ``bench/parsing.py`` on small hand-made gold/prediction pairs.

The bench is a script (``bench/`` is not a package), so it is loaded from its path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from verifier.citations.models import Author, Citation, WorkType

BENCH = Path(__file__).resolve().parents[1] / "bench" / "parsing.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_parsing", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_parsing"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bench = _load()


def families(value: str | list[str]) -> list[str]:
    return [name.family for name in bench.gold_names(value)]


# ---------------------------------------------------------------------------------------
# Keys


def test_text_key_ignores_case_punctuation_dashes_and_spacing() -> None:
    assert bench.text_key("Phys.Rev .D") == bench.text_key("phys. rev. D") == "phys rev d"
    assert bench.text_key("82--96") == bench.text_key("82–96") == "82 96"
    assert bench.text_key("“Title,”") == "title"
    assert bench.text_key("Title one") != bench.text_key("Title two")


def test_family_key_joins_hyphen_and_pdf_spacing() -> None:
    assert bench.family_key("Martin- Facklam") == bench.family_key("Martin-Facklam")
    assert bench.family_key("van der Berg") == "vanderberg"


# ---------------------------------------------------------------------------------------
# Gold author strings


@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        (
            "Bergk, V., Haefeli, W. E., … & Martin- Facklam, M.",
            ["bergk", "haefeli", "martinfacklam"],
        ),
        ("G. Pappas, M. Rapoport", ["pappas", "rapoport"]),
        ("Torres A, El-Ebiary M, Gonzalez J", ["torres", "elebiary", "gonzalez"]),
        ("Smith, John, and Mary Jones", ["smith", "jones"]),
        ("M. Jockers and D. Witten and others", ["jockers", "witten"]),
        ("Yoon, Y. G.; Mazzoni, M. S. C.; Ihm, J.", ["yoon", "mazzoni", "ihm"]),
        ("Irmtraud Schnell/ Alfred Sander", ["schnell", "sander"]),
        ("in Sondra Higgins Matthaei (ed.)", ["matthaei"]),
        ("GIRAULT, Yannick", ["girault"]),
        ("Arnold, F. et al.", ["arnold"]),
        ("Rui Lin, Bob van der Berg", ["lin", "vanderberg"]),
        ("S .I .Bajlekov", ["bajlekov"]),
    ],
)
def test_gold_names_split_every_common_form(gold: str, expected: list[str]) -> None:
    assert families(gold) == expected


def test_gold_names_of_a_list_value_are_concatenated() -> None:
    assert families(["A. Smith", "Jones, B."]) == ["smith", "jones"]


# ---------------------------------------------------------------------------------------
# Matching and tallies


def test_names_match_one_to_one() -> None:
    gold = bench.gold_names("Lubienski, C., Lubienski, S. T., & Crane, C. C.")
    once = bench.predicted_names([Author(family="Lubienski", given="C.")])
    assert bench.match_names(gold, once) == 1
    twice = bench.predicted_names([Author(family="Lubienski")] * 2)
    assert bench.match_names(gold, twice) == 2


def test_corporate_author_matches_on_the_full_name() -> None:
    gold = bench.gold_names("World Health Organization")
    mine = bench.predicted_names([Author(literal="World Health Organization")])
    assert bench.match_names(gold, mine) == 1


def test_tally_metrics() -> None:
    metrics = bench.Tally(correct=3, predicted=4, gold=5).metrics()
    assert metrics["precision"] == pytest.approx(0.75)
    assert metrics["recall"] == pytest.approx(0.6)
    assert metrics["f1"] == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert metrics["support"] == 5
    assert bench.Tally().metrics() == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}


def test_score_citation_counts_correct_wrong_missing_and_spurious() -> None:
    gold = {
        "author": "Smith, J. & Jones, K.",
        "title": "A Title: With Subtitle",
        "container-title": "J. Appl. Phys.",
        "year": "2001",
        "volume": "12",
    }
    citation = Citation(
        authors=(Author(family="Smith", given="J."), Author(family="Brown", given="A.")),
        title="A title — with subtitle",
        container="Journal of Applied Physics",
        year=2001,
        volume="",
        pages="1-9",
    )
    scores = bench.score_citation(gold, citation)
    assert (scores["authors"].correct, scores["authors"].predicted, scores["authors"].gold) == (
        1,
        2,
        2,
    )
    assert (scores["author_list"].correct, scores["author_list"].gold) == (0, 1)
    assert (scores["title"].correct, scores["title"].predicted, scores["title"].gold) == (1, 1, 1)
    assert (scores["container"].correct, scores["container"].predicted) == (0, 1)
    assert (scores["year"].correct, scores["year"].gold) == (1, 1)
    assert (scores["volume"].predicted, scores["volume"].gold) == (0, 1)  # missed
    assert (scores["pages"].predicted, scores["pages"].gold) == (1, 0)  # spurious


def test_list_valued_gold_accepts_one_element_or_all_joined() -> None:
    assert bench.text_agrees(["Proc. X", "LNCS"], "Proc. X")
    assert bench.text_agrees(["Proc. X", "LNCS"], "Proc. X, LNCS")
    assert not bench.text_agrees(["Proc. X", "LNCS"], "Proc. Y")


def test_publisher_falls_back_to_institution() -> None:
    gold = {"institution": "MIT"}
    scores = bench.score_citation(gold, Citation(publisher="MIT"))
    assert scores["publisher"].correct == 1


def test_types_map_subtypes_to_the_gold_types() -> None:
    assert bench.predicted_type(Citation(type=WorkType.PROCEEDINGS)) == "chapter"
    assert bench.predicted_type(Citation(type=WorkType.PREPRINT)) == "report"
    assert bench.predicted_type(Citation(type=WorkType.UNKNOWN)) == "other"


def test_results_aggregate_by_dataset_and_type() -> None:
    results = bench.Results()
    article = bench.GoldRow("a", "demo", "text", "article", {"title": "One"})
    book = bench.GoldRow("b", "demo", "text", "book", {"title": "Two"})
    results.add(article, Citation(title="One", type=WorkType.ARTICLE))
    results.add(book, Citation(title="Three", type=WorkType.ARTICLE))
    summary = results.summary("demo")
    assert summary["overall"]["title"]["precision"] == pytest.approx(0.5)
    assert summary["by_type"]["article"]["title"]["f1"] == pytest.approx(1.0)
    assert summary["by_type"]["book"]["title"]["f1"] == pytest.approx(0.0)
    assert summary["type_accuracy"]["overall"] == pytest.approx(0.5)
    assert [miss.row.id for miss in results.misses if miss.field == "title"] == ["b"]
