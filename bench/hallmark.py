"""HALLMARK's dev split through the engine, in an offline world made from its real papers.

    verifier bench hallmark [--json FILE] [--data FILE] [--time-scale X]
        [--write-world FILE]

The data: ``../shared/data/hallmark/dev_public.jsonl`` (1,119 BibTeX entries, 513 VALID,
606 HALLUCINATED in 14 types; see its README). Each entry goes to the engine as its
BibTeX fields (``bibtex_citation``), never its label.

**The world** (built here, deterministically, from the entries themselves):

- every VALID entry is a work, with its title, authors, year, DOI and venue;
- the original of a perturbed entry is in the world when it can be known: the VALID entry
  with the same title (most perturbations were made from dev's own VALID entries), or,
  for ``near_miss_title``, the entry with the original title its explanation gives; an
  original that cannot be known (authors replaced, a venue changed with no VALID twin)
  is absent, and so are invented works (``plausible_fabrication``, ``chimeric_title``,
  ``hybrid_fabrication``, ...). Counted as ``originals_absent`` per type;
- an entry with no venue and an arXiv DOI or URL is a preprint (type ``preprint``);
- ``preprint_as_published``: the work is held as a preprint (arXiv, and Semantic Scholar
  and OpenAlex with a preprint server as venue), unless a VALID entry cites it published;
- which sources hold a work: Semantic Scholar and OpenAlex all of them (ML venues are in
  both); Crossref those with a DOI other than arXiv's DataCite 10.48550 (Crossref holds
  only DOIs it registered); arXiv those with an arXiv DOI or an arXiv/CoRR venue;
- how they name the venue: every source shows the venue's official long name where the
  alias table knows it (``verifier.citations.venues.VENUE_ALIASES``; "CVPR" is shown as
  "IEEE/CVF Conference on Computer Vision and Pattern Recognition"), else the venue as
  the VALID entry cites it; arXiv shows none. (The world has one container per work, so
  the sources do not disagree about venues here, as real ones do.)

The alias table and the world's venue rendering come from one table, so the venue
figures measure the engine given a complete alias table, not the table's coverage of real
venue names: treat the FPR as optimistic on that axis.

**Scoring** (fixed before the run): an entry is *flagged* (predicted hallucinated) when
its status is not ``verified``, or it has a discrepancy, or a flag among
``doi_not_found``, ``doi_mismatch``, ``preprint_cited_as_published``,
``title_by_other_authors``. DR = flagged share of HALLUCINATED, FPR = flagged share of
VALID, F1 with HALLUCINATED as the positive class. HALLMARK's published live baseline
(bibtex-updater on dev: DR 0.946, FPR 0.179, F1 0.908) is printed beside; it ran against
the live services, this runs offline, so the two are not the same measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench_args import result_file, write_result
from walters_wilder import engine_settings, open_world
from ww_world import write_world

from verifier import Verifier
from verifier.citations.inputs.bibtex import bibtex_citation
from verifier.citations.models import CitationInput, Report
from verifier.citations.venues import VENUE_ALIASES, venue_identity

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "hallmark" / "dev_public.jsonl"
BASELINE = {"name": "bibtex-updater (HALLMARK, live, dev)", "dr": 0.946, "fpr": 0.179,
            "f1": 0.908}
FLAGGING = frozenset({"doi_not_found", "doi_mismatch", "preprint_cited_as_published",
                      "title_by_other_authors"})
_ORIGINAL_TITLE = re.compile(r"\(original: '(.+)'\)\s*$")
_PREPRINT_VENUE = re.compile(r"\b(?:arxiv|corr)\b", re.I)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def _people(value: str) -> list[dict[str, str]]:
    people = []
    for name in (n.strip() for n in re.split(r"\s+and\s+", value or "")):
        if not name or name.lower() in ("others", "et al.", "et al"):
            continue
        if "," in name:
            family, given = (p.strip() for p in name.split(",", 1))
        else:
            *given_parts, family = name.split()
            given = " ".join(given_parts)
        people.append({"family": family, "given": given} if given else {"family": family})
    return people


def official_name(venue: str) -> str:
    """The venue's official long name from the alias table, or the venue as given."""
    key = venue_identity(venue)
    if key is None:
        return venue
    names = VENUE_ALIASES[key]
    return max(names, key=len).title().replace("Ieee", "IEEE").replace("Cvf", "CVF")


def _work(key: str, fields: Mapping[str, str], *, preprint: bool = False,
          title: str | None = None) -> dict[str, Any]:
    venue = fields.get("booktitle") or fields.get("journal") or ""
    doi = (fields.get("doi") or "").strip()
    arxiv_doi = doi.lower().startswith("10.48550/")
    in_arxiv = preprint or arxiv_doi or bool(_PREPRINT_VENUE.search(venue))
    # No venue and an arXiv DOI or URL: the work is an arXiv preprint.
    preprint = preprint or (not venue and (arxiv_doi or "arxiv.org" in fields.get("url", "")))
    year = int(fields["year"]) if str(fields.get("year", "")).isdigit() else None
    line: dict[str, Any] = {
        "id": f"hm-{key}", "type": "preprint" if preprint else
        ("article" if fields.get("journal") else "proceedings"),
        "title": title or fields.get("title", ""), "authors": _people(fields.get("author", "")),
        "year": year,
    }
    if venue and not preprint and not _PREPRINT_VENUE.search(venue):
        line["container"] = official_name(venue)
    sources: dict[str, dict[str, Any]] = {"semanticscholar": {}, "openalex": {}}
    if arxiv_doi:
        # DataCite registers arXiv's DOIs without a version suffix.
        line["doi"] = re.sub(r"v\d+$", "", doi)
        line["doi_agency"] = "datacite"
    elif doi and not preprint:
        line["doi"] = doi
        sources["crossref"] = {}
    if in_arxiv:
        sources["arxiv"] = {}
    line["sources"] = sources
    return line


def build_world(rows: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]],
                                                            dict[str, bool]]:
    """(corpus lines, per entry key whether the work it cites is in the world)."""
    valid = {_norm(r["fields"].get("title", "")): r for r in rows if r["label"] == "VALID"}
    lines: dict[str, dict[str, Any]] = {}
    present: dict[str, bool] = {}
    for title, row in sorted(valid.items()):
        lines[title] = _work(row["bibtex_key"], row["fields"])
    for row in rows:
        if row["label"] == "VALID":
            present[row["bibtex_key"]] = True
            continue
        kind = row["hallucination_type"]
        title = _norm(row["fields"].get("title", ""))
        if kind == "preprint_as_published" and title not in lines:
            lines[title] = _work(row["bibtex_key"], row["fields"], preprint=True)
        elif kind == "near_miss_title":
            match = _ORIGINAL_TITLE.search(row.get("explanation") or "")
            original = _norm(match.group(1)) if match else ""
            if match and original not in lines:
                lines[original] = _work(row["bibtex_key"], row["fields"],
                                        title=match.group(1))
            title = original or title
        present[row["bibtex_key"]] = title in lines
    return sorted(lines.values(), key=lambda line: str(line["id"])), present


def flagged(report: Report) -> bool:
    return (str(report.status) != "verified" or bool(report.discrepancies)
            or bool(FLAGGING & set(report.flags)))


def score(rows: Sequence[Mapping[str, Any]], reports: Mapping[str, Report],
          present: Mapping[str, bool]) -> dict[str, Any]:
    tp = fp = fn = tn = 0
    by_type: dict[str, Counter[str]] = defaultdict(Counter)
    statuses: Counter[str] = Counter()
    fp_reasons: Counter[str] = Counter()
    for row in rows:
        report = reports[row["bibtex_key"]]
        statuses[str(report.status)] += 1
        hit = flagged(report)
        if row["label"] == "HALLUCINATED":
            tp += hit
            fn += not hit
            counts = by_type[row["hallucination_type"]]
            counts["n"] += 1
            counts["detected"] += hit
            counts["originals_absent"] += not present[row["bibtex_key"]]
        else:
            fp += hit
            tn += not hit
            if hit:
                reasons = ([f"status:{report.status}"] if str(report.status) != "verified"
                           else [])
                reasons += [f"discrepancy:{d.field}" for d in report.discrepancies]
                reasons += [f"flag:{f}" for f in report.flags if f in FLAGGING]
                fp_reasons.update(reasons)
    dr = tp / (tp + fn) if tp + fn else 0.0
    fpr = fp / (fp + tn) if fp + tn else 0.0
    precision = tp / (tp + fp) if tp + fp else 0.0
    f1 = 2 * precision * dr / (precision + dr) if precision + dr else 0.0
    return {
        "overall": {"dr": round(dr, 4), "fpr": round(fpr, 4), "f1": round(f1, 4),
                    "precision": round(precision, 4), "tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "by_type": {t: {"dr": round(c["detected"] / c["n"], 4), "n": c["n"],
                        "originals_absent": c["originals_absent"]}
                    for t, c in sorted(by_type.items())},
        "status_counts": dict(sorted(statuses.items())),
        "false_positive_reasons": dict(fp_reasons.most_common()),
        "baseline": BASELINE,
    }


async def run(rows: Sequence[Mapping[str, Any]], corpus: Path, time_scale: float,
              cache: Path) -> dict[str, Report]:
    items = []
    for index, row in enumerate(rows):
        fields = {k: str(v) for k, v in row["fields"].items() if v is not None}
        citation = bibtex_citation(row.get("bibtex_type") or "misc", fields)
        items.append(CitationInput(id=row["bibtex_key"], index=index,
                                   text=json.dumps(fields), fields=citation))
    reports: dict[str, Report] = {}
    async with open_world(corpus, time_scale=time_scale, in_process=True) as world:
        settings = engine_settings(world.base_urls, keyless=False, time_scale=time_scale,
                                   cache_dir=cache, independence="distinct")
        async with Verifier(settings) as verifier:
            async for report in verifier.verify_many(items, concurrency=64):
                reports[report.id] = report
    return reports


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench hallmark",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--time-scale", type=float, default=10.0)
    parser.add_argument("--write-world", help="also write the generated corpus here")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    args = parser.parse_args(argv)
    path = Path(args.data)
    if not path.is_file():
        sys.exit(f"HALLMARK data {path} not found (it lives in ../shared/data/hallmark)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    lines, present = build_world(rows)
    with tempfile.TemporaryDirectory(prefix="hallmark-") as tmp:
        corpus = Path(tmp) / "world.jsonl"
        write_world(lines, corpus)
        if args.write_world:
            write_world(lines, Path(args.write_world))
        reports = asyncio.run(run(rows, corpus, args.time_scale, Path(tmp) / "cache"))
    result = score(rows, reports, present)
    result["entries"] = len(rows)
    result["world_works"] = len(lines)
    o = result["overall"]
    print(f"HALLMARK dev, offline world of {len(lines)} works: DR {o['dr']:.3f}, "
          f"FPR {o['fpr']:.3f}, F1 {o['f1']:.3f}  (published live baseline, bibtex-updater: "
          f"DR {BASELINE['dr']}, FPR {BASELINE['fpr']}, F1 {BASELINE['f1']})")
    for kind, row in result["by_type"].items():
        print(f"  {kind:24} n={row['n']:3} DR {row['dr']:.3f} "
              f"(originals absent: {row['originals_absent']})")
    print(f"statuses: {result['status_counts']}")
    print(f"false positives by reason: {result['false_positive_reasons']}")
    if args.json:
        write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
