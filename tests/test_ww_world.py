"""The Walters & Wilder world generator (bench/ww_world.py, rules in bench/WW_WORLD.md).

The data live outside the repository (``../shared/data/walters_wilder_2023``); the tests
that need them skip when they are absent. Builds use ``background=500`` to stay fast.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from verifier.world.corpus import Corpus

ROOT = Path(__file__).resolve().parents[1]
WW = Path(__file__).resolve().parents[2] / "shared" / "data" / "walters_wilder_2023"
BACKGROUND = 500


def _load_module() -> ModuleType:
    name = "ww_world"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "ww_world.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


ww = _load_module()

needs_data = pytest.mark.skipif(
    not (WW / "ww2023_citations.csv").is_file(),
    reason=f"Walters & Wilder data not available: {WW}",
)


@pytest.fixture(scope="module")
def built() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if not (WW / "ww2023_citations.csv").is_file():
        pytest.skip(f"Walters & Wilder data not available: {WW}")
    lines, manifest = ww.build_world_with_manifest(WW, background=BACKGROUND)
    return lines, manifest


def _rows() -> dict[str, Any]:
    return {row.id: row for row in ww.load_rows(WW)}


def _work_for(built: Any, row_id: str) -> dict[str, Any]:
    lines, manifest = built
    found = [line for line, m in zip(lines, manifest, strict=True)
             if row_id in m["rows"] and m["role"] in ("real", "corrected")]
    assert len(found) == 1, f"{row_id}: {len(found)} real works"
    result: dict[str, Any] = found[0]
    return result


def _families(people: list[dict[str, str]]) -> set[str]:
    return {ww.fold(p.get("family") or p.get("literal") or "") for p in people} - {""}


# --------------------------------------------------------------------------- determinism


@needs_data
def test_two_builds_are_byte_identical(built: Any, tmp_path: Path) -> None:
    lines, _ = built
    again = ww.build_world(WW, background=BACKGROUND)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    ww.write_world(lines, first)
    ww.write_world(again, second)
    assert first.read_bytes() == second.read_bytes()


@needs_data
def test_another_seed_gives_another_world(built: Any) -> None:
    lines, _ = built
    other = ww.build_world(WW, seed=7, background=BACKGROUND)
    assert [line["id"] for line in other] != [line["id"] for line in lines]


# --------------------------------------------------------------------------- format


@needs_data
def test_corpus_loads_with_the_world_reader(built: Any, tmp_path: Path) -> None:
    lines, _ = built
    path = tmp_path / "world.jsonl"
    ww.write_world(lines, path)
    corpus = Corpus.load(path)
    assert len(corpus) == len(lines)
    assert set(corpus.source_names) == set(ww.SOURCES)
    # Crossref holds only works with a DOI (the loader enforces it too).
    assert all(w.doi for w in corpus if "crossref" in w.sources)


@needs_data
def test_lines_reveal_nothing_about_why_a_work_is_there(built: Any) -> None:
    lines, _ = built
    known = {"id", "type", "title", "subtitle", "authors", "editors", "year", "container",
             "volume", "issue", "pages", "publisher", "doi", "isbn", "issn", "doi_agency",
             "sources"}
    options = {"id", "title_case", "drop_subtitle", "initials", "max_authors",
               "year_offset", "omit_doi"}
    ids = [line["id"] for line in lines]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for line in lines:
        assert set(line) <= known, line["id"]
        assert re.fullmatch(r"ww[0-9a-f]{14}", line["id"])
        for opts in line["sources"].values():
            assert set(opts) <= options


@needs_data
def test_identifiers_are_valid_and_unique(built: Any) -> None:
    lines, _ = built
    isbns = [i for line in lines for i in line.get("isbn", [])]
    assert isbns and all(ww.isbn_valid(i) for i in isbns)
    for line in lines:
        for issn in line.get("issn", []):
            assert ww.issn_check(issn.replace("-", "")[:7]) == issn[-1]
    dois = [line["doi"].lower() for line in lines if line.get("doi")]
    assert len(dois) == len(set(dois))
    arxiv = [line["sources"]["arxiv"]["id"] for line in lines if "arxiv" in line["sources"]]
    assert len(arxiv) == len(set(arxiv))


def test_isbn_check_digits() -> None:
    assert ww.isbn_valid("9780306406157")
    assert not ww.isbn_valid("9780306406158")
    assert ww.isbn_valid("0306406152")
    assert ww.issn_check("0028083") == "6"  # Nature, 0028-0836


@needs_data
def test_size_is_background_plus_cited_and_decoys(built: Any) -> None:
    lines, manifest = built
    roles = Counter(m["role"] for m in manifest)
    assert roles["background"] == BACKGROUND
    real = roles["real"] + roles["corrected"]
    assert 400 <= real <= 441  # 441 real rows, a few of them the same work cited twice
    assert BACKGROUND + real < len(lines) < BACKGROUND + 3 * 636


# --------------------------------------------------------------------------- coverage


@needs_data
def test_realised_coverage_follows_the_documented_model(built: Any) -> None:
    """Per class and source, the share of works a source holds is within sampling error of
    the model's probability for those works (WW_WORLD.md section 1)."""
    lines, manifest = built
    count: Counter[str] = Counter()
    held: dict[tuple[str, str], float] = defaultdict(float)
    expected: dict[tuple[str, str], float] = defaultdict(float)
    for line, m in zip(lines, manifest, strict=True):
        count[m["class"]] += 1
        for source in ww.SOURCES:
            held[m["class"], source] += source in line["sources"]
            expected[m["class"], source] += m["p"][source]
    for (cls, source), total in expected.items():
        n = count[cls]
        if n < 30:
            continue
        p = total / n
        share = held[cls, source] / n
        tolerance = 0.03 + 3 * math.sqrt(max(p * (1 - p), 0.0025) / n)
        assert abs(share - p) <= tolerance, (cls, source, n, share, p)


def test_model_figures_are_the_documented_ones() -> None:
    spec = ww.Spec(key="x", role="background", cls="article", topic=23, field_code="S",
                   title="t", container="Journal of Things", year=2010)
    p = ww.presence_model(spec, 2023)
    assert p["crossref"] == pytest.approx(0.70)
    assert p["openalex"] == pytest.approx(0.70 * 0.97 + 0.30 * 0.65)
    assert p["semanticscholar"] == pytest.approx(p["openalex"] * 0.88
                                                 + (1 - p["openalex"]) * 0.25)
    assert p["pubmed"] == pytest.approx(0.02) and p["arxiv"] == 0.0
    medline = ww.Spec(key="y", role="background", cls="article", topic=36, field_code="N",
                      title="t", container="Sleep", year=2010)
    assert ww.presence_model(medline, 2023)["pubmed"] == pytest.approx(0.95)
    book = ww.Spec(key="z", role="background", cls="book", topic=3, field_code="H",
                   title="t", publisher="Yale University Press", year=2001)
    pb = ww.presence_model(book, 2023)
    assert (pb["openlibrary"], pb["crossref"]) == (0.88, 0.35)
    assert pb["googlebooks"] == pytest.approx(0.88 * 0.92 + 0.12 * 0.50)
    trade = ww.Spec(key="w", role="background", cls="book", topic=3, field_code="H",
                    title="t", publisher="Penguin Books", year=2001)
    assert ww.presence_model(trade, 2023)["crossref"] == pytest.approx(0.05)


# --------------------------------------------------------------------------- fabrications


@needs_data
def test_no_fabricated_work_is_in_the_world(built: Any) -> None:
    lines, _ = built
    by_title: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        full = ww.join_title(line["title"], line.get("subtitle"))
        by_title[ww.fold(full)].append(line)
    checked = 0
    for row in _rows().values():
        if not row.fabricated:
            continue
        ex = ww.extract_citation(row.text, row.pub_type)
        cited = _families(ex.authors)
        if not ex.title or not cited:
            continue
        for line in by_title.get(ww.fold(ex.title), []):
            assert not (cited & _families(line.get("authors", []))), (row.id, line["id"])
        checked += 1
    assert checked > 180


@needs_data
def test_same_title_by_other_authors_where_the_note_says_so(built: Any) -> None:
    lines, _ = built
    rows = [r for r in _rows().values() if r.fabricated and re.search(
        r"with this title.*, but the author\(s\) are entirely different", r.note)]
    assert len(rows) >= 10
    for row in rows:
        ex = ww.extract_citation(row.text, row.pub_type)
        cited = _families(ex.authors)
        twins = [line for line in lines
                 if ww.fold(ww.join_title(line["title"], line.get("subtitle")))
                 == ww.fold(ex.title)]
        assert twins, row.id
        assert all(not (cited & _families(t.get("authors", []))) for t in twins), row.id


@needs_data
def test_real_scholars_of_fabricated_citations_have_other_works(built: Any) -> None:
    """Darvill & Wainwright (2009), "Stonehenge: The Story So Far", is fabricated; both are
    real archaeologists (cited for a real 2009 article), so an author search finds other
    works of theirs — never the fabricated title."""
    lines, manifest = built
    scholar = [(line, m) for line, m in zip(lines, manifest, strict=True)
               if m["role"] == "scholar_work"]
    assert scholar
    fabricated = ww.fold("Stonehenge: The Story So Far")
    for family in ("Darvill", "Wainwright"):
        theirs = [line for line, m in scholar
                  if "walters_0001" in m["rows"]
                  and family in {a.get("family") for a in line.get("authors", [])}]
        assert 1 <= len(theirs) <= 3, family
        assert all(ww.fold(ww.join_title(line["title"], line.get("subtitle"))) != fabricated
                   for line in theirs)


# --------------------------------------------------------------------------- corrections


@needs_data
def test_world_holds_the_corrected_fields(built: Any) -> None:
    pakenham = _work_for(built, "walters_0005")  # note: 1993
    assert pakenham["year"] == 1993
    pajares = _work_for(built, "walters_0086")  # note: Vol. 86(2), 193-203
    assert (pajares["volume"], pajares["issue"], pajares["pages"]) == ("86", "2", "193-203")
    dunning = _work_for(built, "walters_0362")  # note: 2003. Vol. 12(3), 83-87
    assert (dunning["year"], dunning["volume"], dunning["issue"]) == (2003, "12", "3")
    donner = _work_for(built, "walters_0617")  # note: 2017. Vol. 12(4), e0175490
    assert (donner["year"], donner["volume"], donner["pages"]) == (2017, "12", "e0175490")
    eagly = _work_for(built, "walters_0120")  # truncated note, fixed in NOTE_FIXES
    assert eagly["container"] == "Journal of Personality and Social Psychology"
    lanphear = _work_for(built, "walters_0144")  # note: Final author is R. Roberts
    assert lanphear["authors"][-1]["family"] == "Roberts"
    assert lanphear["authors"][0]["family"] == "Lanphear"
    multon = _work_for(built, "walters_0085")  # authors, year, title, volume from the note
    assert [a["family"] for a in multon["authors"]] == ["Multon", "Brown", "Lent"]
    assert multon["year"] == 1991 and multon["volume"] == "38"
    assert ww.join_title(multon["title"], multon.get("subtitle")) == (
        "Relation of self-efficacy beliefs to academic outcomes: "
        "A meta-analytic investigation")
    wilmut = _work_for(built, "walters_0194")  # a real DOI the citation gives is kept
    assert wilmut["doi"] == "10.1038/385810a0" and "crossref" in wilmut["sources"]
    oshea = _work_for(built, "walters_0418")  # wrong venue: the note gives the journal
    assert oshea["container"] == "Teaching in Higher Education" and oshea["year"] == 2011


@pytest.mark.parametrize(
    ("title", "fragment", "expected"),
    [
        ("Sleep duration and all-cause mortality: a systematic review of prospective studies",
         "A systematic review and meta-analysis.",
         "Sleep duration and all-cause mortality: A systematic review and meta-analysis of "
         "prospective studies"),
        ("The Golden Thread at the Heart of Tort Law: Protection from the Risk of Harm",
         "Protection of the vulnerable.",
         "The Golden Thread at the Heart of Tort Law: Protection of the vulnerable"),
        ("Distribution and conservation status of the orangutan (Pongo spp.) on Borneo",
         "orang-utan.",
         "Distribution and conservation status of the orang-utan (Pongo spp.) on Borneo"),
        ("The population and distribution of orangutans (Pongo spp.) in and around the park",
         "(Pongo pygmaeus pygmaeus).",
         "The population and distribution of orangutans (Pongo pygmaeus pygmaeus) in and "
         "around the park"),
        ("Leadership matters: Teachers' roles in improving schools",
         "in school decision making and school performance.",
         "Leadership matters: Teachers' roles in school decision making and school "
         "performance"),
    ],
)
def test_title_fragments_from_notes(title: str, fragment: str, expected: str) -> None:
    assert ww.apply_title_fragment(title, fragment) == expected


def test_extraction_of_the_three_citation_styles() -> None:
    apa = ww.extract_citation(
        "Parker Pearson, M., Cleal, R., Marshall, P., … & Welham, K. (2006). Materializing "
        "Stonehenge. Journal of Material Culture, 11(1-2), 227-261.", "A")
    assert [p["family"] for p in apa.authors] == ["Parker Pearson", "Cleal", "Marshall",
                                                   "Welham"]
    assert apa.elided == "middle"
    assert (apa.title, apa.container, apa.volume, apa.issue, apa.pages) == (
        "Materializing Stonehenge", "Journal of Material Culture", "11", "1-2", "227-261")
    chicago = ww.extract_citation(
        "Baer, D.G., G.A. Heath, and T.L. Richard. 2011. “Reducing Greenhouse Gas "
        "Emissions.” Environmental Science & Technology 45(7): 2596-2602.", "A")
    assert [p["family"] for p in chicago.authors] == ["Baer", "Heath", "Richard"]
    assert (chicago.year, chicago.container, chicago.pages) == (
        2011, "Environmental Science & Technology", "2596-2602")
    mla = ww.extract_citation(
        'Mazzoni, Cristina. "Purgatory: The Logic of Total Transformation." Harvard '
        "University Press, 2012.", "B")
    assert mla.authors == [{"family": "Mazzoni", "given": "Cristina"}]
    assert (mla.title, mla.year, mla.publisher) == (
        "Purgatory: The Logic of Total Transformation", 2012, "Harvard University Press")
    chapter = ww.extract_citation(
        "Reuter, P., & Mouzos, J. (2003). Australia: A massive buyback of low-risk guns. In "
        "J. A. Roth (Ed.), Evaluating gun policy: Effects on crime and violence (pp. 221-240)."
        " Washington, DC: Brookings Institution Press.", "C")
    assert chapter.editors == [{"family": "Roth", "given": "J. A."}]
    assert (chapter.container, chapter.pages, chapter.publisher) == (
        "Evaluating gun policy: Effects on crime and violence", "221-240",
        "Brookings Institution Press")


@needs_data
def test_cli_writes_the_world(tmp_path: Path) -> None:
    out, manifest = tmp_path / "w.jsonl", tmp_path / "m.jsonl"
    assert ww.main(["--data", str(WW), "--out", str(out), "--background", "50",
                    "--manifest", str(manifest)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(manifest.read_text(encoding="utf-8").splitlines())
    assert all(json.loads(line)["id"].startswith("ww") for line in lines)
