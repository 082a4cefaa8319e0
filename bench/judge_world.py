"""The judging bench's world: a corpus built from the NeurIPS papers' reference strings.

The papers' references are not in the world's Walters & Wilder or demo corpus, so a run
against those would give the reference workload no real work (every lookup a quick
miss). This module builds a corpus *from the references themselves*, under a coverage
model stated here, before any run:

1. Each reference string is parsed by the engine's own parser
   (:func:`verifier.citations.parsing.parse_citation`). A reference without a title of at
   least three words is left out of the corpus (the engine still looks for it: it is a
   "no trace" or an input error, as it would be for any unfindable work).
2. Its *coverage* is drawn from ``u = sha256(reference string)`` read as a fraction in
   [0, 1) (deterministic, independent of order and of the run):

   ===============  ==========================================  =========================
   u                held by                                     expected verdict
   ===============  ==========================================  =========================
   [0, 0.55)        Crossref (DOI), OpenAlex, Semantic Scholar   verified
   [0.55, 0.75)     OpenAlex, Semantic Scholar                   verified
   [0.75, 0.85)     Semantic Scholar only                        unconfirmed
   [0.85, 1)        nobody                                       no trace
   ===============  ==========================================  =========================

   A reference with an arXiv id (or "arXiv" in its text) is also held by arXiv when it is
   held at all (preprints are where ML papers are). Works held with a year are shown by
   OpenAlex with the year off by one when ``u`` mod 0.1 < 0.01 (about 10 %: a
   discrepancy to report, as OpenAlex and Crossref often differ by a year).
3. The record's fields are the parsed ones (title, authors, year, venue); a work Crossref
   holds gets the reference's own DOI, or a made-up ``10.5555/nips.<hash>`` when it cites
   none (Crossref holds only DOIs; the engine never sees that DOI in the citation, so it
   finds the work by search, as it must for most ML references).

Repeated reference strings (papers citing the same work the same way) are one work.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from verifier.citations.models import Citation, WorkType
from verifier.citations.parsing import parse_citation

BANDS: tuple[tuple[float, tuple[str, ...]], ...] = (
    (0.55, ("crossref", "openalex", "semanticscholar")),
    (0.75, ("openalex", "semanticscholar")),
    (0.85, ("semanticscholar",)),
    (1.00, ()),
)
"""Upper bound of u → the sources holding the work (table in the module docstring)."""
SERVICES = ("crossref", "openalex", "semanticscholar", "arxiv")
"""The services the bench asks (the others hold none of these works)."""


def fraction(text: str) -> float:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") / 2**64


def holders(reference: str, citation: Citation) -> tuple[str, ...]:
    u = fraction(reference)
    held = next(sources for bound, sources in BANDS if u < bound)
    if held and (citation.identifiers.arxiv or "arxiv" in reference.lower()):
        held = (*held, "arxiv")
    return held


def _type(citation: Citation) -> str:
    if citation.identifiers.arxiv:
        return "preprint"
    return {WorkType.BOOK: "book", WorkType.CHAPTER: "chapter"}.get(citation.type, "article")


def _person(author: Any) -> dict[str, str]:
    if not author.family:
        return {"literal": author.literal}
    return {"family": author.family, **({"given": author.given} if author.given else {})}


def corpus_record(reference: str) -> dict[str, Any] | None:
    """The reference's corpus work under the coverage model, or None when it is left out
    (too little title, or held by nobody)."""
    citation = parse_citation(reference)
    if len(citation.title.split()) < 3:
        return None
    held = holders(reference, citation)
    if not held:
        return None
    digest = hashlib.sha256(reference.encode("utf-8")).hexdigest()[:16]
    u = fraction(reference)
    sources: dict[str, dict[str, Any]] = {name: {} for name in held}
    if citation.year and "openalex" in sources and (u % 0.1) < 0.01:
        sources["openalex"] = {"year_offset": 1}
    record: dict[str, Any] = {
        "id": f"nips-ref-{digest}",
        "type": _type(citation),
        "title": citation.title,
        "authors": [_person(a) for a in citation.authors if a.family or a.literal],
        "year": citation.year,
        "sources": sources,
    }
    if citation.container:
        record["container"] = citation.container
    if citation.identifiers.arxiv:
        record["arxiv"] = citation.identifiers.arxiv
    if "crossref" in sources:
        record["doi"] = citation.identifiers.doi or f"10.5555/nips.{digest}"
    elif citation.identifiers.doi:
        record["doi"] = citation.identifiers.doi
    return record


def build_corpus(references: Iterable[str], path: Path) -> dict[str, int]:
    """Write the corpus of ``references`` to ``path``; returns counts by band."""
    seen: set[str] = set()
    counts = {"references": 0, "distinct": 0, "in_corpus": 0, "untitled": 0, "absent": 0}
    lines: list[bytes] = []
    dois: set[str] = set()
    for reference in references:
        counts["references"] += 1
        if reference in seen:
            continue
        seen.add(reference)
        counts["distinct"] += 1
        record = corpus_record(reference)
        if record is None:
            key = "untitled" if len(parse_citation(reference).title.split()) < 3 else "absent"
            counts[key] += 1
            continue
        if record.get("doi") in dois:  # two strings citing one DOI: keep the first
            record.pop("doi")
            record["sources"].pop("crossref", None)
            if not record["sources"]:
                continue
        if "doi" in record:
            dois.add(record["doi"])
        counts["in_corpus"] += 1
        lines.append(orjson.dumps(record))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return counts
