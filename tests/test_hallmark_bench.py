"""bench/hallmark.py: the offline world made from HALLMARK's entries, and the scoring."""

from __future__ import annotations

from typing import Any

from hallmark import build_world, official_name, score

from verifier.citations.models import (
    Citation,
    CitationInput,
    Discrepancy,
    Report,
    Retraction,
    Status,
)


def _row(key: str, label: str, title: str, kind: str | None = None, explanation: str = "",
         **fields: str) -> dict[str, Any]:
    return {"bibtex_key": key, "label": label, "hallucination_type": kind,
            "explanation": explanation,
            "fields": {"title": title, "author": "Ann Lee and Bo Kim", "year": "2020",
                       **fields}}


ROWS = [
    _row("v1", "VALID", "Deep nets for cats", booktitle="CVPR", doi="10.1109/cvpr.2020.1"),
    _row("v2", "VALID", "Arxiv only work", doi="10.48550/arXiv.2001.00001v2"),
    _row("h1", "HALLUCINATED", "Deep nets for cats", "wrong_venue", booktitle="ICML"),
    _row("h2", "HALLUCINATED", "Deep nets for dogs", "near_miss_title",
         "Title slightly modified (original: 'Deep networks for dogs')"),
    _row("h3", "HALLUCINATED", "An invented paper", "plausible_fabrication"),
]


def test_the_world_holds_valid_works_and_knowable_originals_only() -> None:
    lines, present = build_world(ROWS)
    titles = {line["title"] for line in lines}
    assert titles == {"Deep nets for cats", "Arxiv only work", "Deep networks for dogs"}
    assert present == {"v1": True, "v2": True, "h1": True, "h2": True, "h3": False}
    cats = next(line for line in lines if line["title"] == "Deep nets for cats")
    assert set(cats["sources"]) == {"crossref", "openalex", "semanticscholar"}
    assert cats["container"] == official_name("CVPR") != "CVPR"
    arxiv = next(line for line in lines if line["title"] == "Arxiv only work")
    assert arxiv["type"] == "preprint" and "crossref" not in arxiv["sources"]
    assert arxiv["doi"] == "10.48550/arXiv.2001.00001"  # DataCite's, no version


def _report(key: str, status: Status, *, discrepancy: bool = False,
            flags: tuple[str, ...] = ()) -> Report:
    item = CitationInput(id=key, index=0, text="")
    return Report(id=key, index=0, input=item.text, citation=Citation(), status=status,
                  retraction=Retraction.UNKNOWN, flags=flags,
                  discrepancies=(Discrepancy("year", "1", "2", ("x",)),) if discrepancy
                  else (), corrected=None, agreeing_sources=(), sources={}, elapsed_s=0.0)


def test_scoring_counts_flags_discrepancies_and_statuses() -> None:
    reports = {"v1": _report("v1", Status.VERIFIED),
               "v2": _report("v2", Status.VERIFIED, flags=("doi_not_found",)),
               "h1": _report("h1", Status.VERIFIED, discrepancy=True),
               "h2": _report("h2", Status.NO_TRACE),
               "h3": _report("h3", Status.VERIFIED)}
    result = score(ROWS, reports, dict.fromkeys(reports, True))
    assert result["overall"]["dr"] == round(2 / 3, 4)
    assert result["overall"]["fpr"] == 0.5
    assert result["by_type"]["plausible_fabrication"] == {"dr": 0.0, "n": 1,
                                                          "originals_absent": 0}
    assert result["status_counts"] == {"no_trace": 1, "verified": 4}
