"""Forgiving names without forgiving fabrications: a test set of our own, and its bench.

    verifier bench names [--json FILE] [--works N] [--time-scale X] [--write-set FILE]
        [--data DIR] [--world-in-process]

The set is generated deterministically from the Walters & Wilder world
(``bench/ww_world.py``, seed 2023): its real works (roles ``real`` and ``corrected`` in
the audit manifest) that are articles or books with a person as first author and that
at least two sources hold, sorted by a SHA-256 of their id, the first ``--works`` (default
120). Each chosen work gives, as an APA reference built from the world's own record of it
(title with subtitle, authors, year, container or publisher, volume, issue, pages):

- ``control``: the reference as it is (what the slips are measured against);
- one **slip** in the first author's family name, the first kind that applies, in a
  rotating order chosen by the hash: ``transposition`` (two neighbouring letters swapped,
  names of 6+ letters), ``dropped`` (one inner letter dropped, 6+), ``doubled`` (one
  inner letter doubled, 6+), ``short`` (one inner letter substituted, names of 3-5
  letters), ``transliteration`` (ü/ö/ä spelt ue/oe/ae, -sky as -skii, -ov as -off: only
  names that have such a form);
- three **decoys**, labelled fabricated, that tempt lenient matching:
  ``same_title_other_authors`` (the work's title with the authors of another chosen
  work), ``scholar_new_title`` (the work's authors, year and venue with a title no work
  in the world has: the title of another chosen work's main title with this work's
  subtitle swapped for "a reappraisal", kept only when no world title is within 0.85
  similarity), ``coauthor_added`` (three invented authors from a fixed list of surnames
  absent from the world, and the work's last author, on the work's own title, year and
  venue).

The citations go through the normal engine against the W&W world (as in
``bench/walters_wilder.py``). Reported: per class and kind, citations and the share
``verified``. The slips' verified rate is the leniency's gain; decoys verified must be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench_args import result_file, write_result
from rapidfuzz import fuzz, process
from walters_wilder import DEFAULT_DATA, Labelled, engine_settings, run_once
from ww_world import build_world_with_manifest, write_world

SLIP_KINDS = ("transposition", "dropped", "doubled", "short", "transliteration")
DECOY_KINDS = ("same_title_other_authors", "scholar_new_title", "coauthor_added")
INVENTED_SURNAMES = ("Quarnstrom", "Vellacourt", "Oyelaran-Bisk", "Thornquist",
                     "Marchetti-Soule", "Brannagh", "Delacroix-Ibe", "Kowalczyn",
                     "Ashcombe", "Rinaldetti", "Zeleznikar", "Hollingshed")
INVENTED_GIVEN = ("A.", "B. K.", "C.", "D. M.", "E.", "F. R.")
NEW_TITLE_MAX_SIMILARITY = 85


def _h(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12], 16)


def _given_initials(given: str) -> str:
    parts = [p for p in given.replace(".", " ").replace("-", " ").split() if p]
    return " ".join(f"{p[0]}." for p in parts)


def _author_apa(author: Mapping[str, str]) -> str:
    if not author.get("family"):
        return str(author.get("literal", ""))
    initials = _given_initials(author.get("given", ""))
    return f"{author['family']}, {initials}" if initials else str(author["family"])


def _authors_apa(authors: Sequence[Mapping[str, str]]) -> str:
    names = [_author_apa(a) for a in authors][:20]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + ", & " + names[-1]


def full_title(line: Mapping[str, Any]) -> str:
    title = str(line["title"])
    return f"{title}: {line['subtitle']}" if line.get("subtitle") else title


def apa(line: Mapping[str, Any], authors: Sequence[Mapping[str, str]], title: str) -> str:
    """An APA reference of ``line`` with ``authors`` and ``title`` in place of its own."""
    year = line.get("year") or "n.d."
    head = f"{_authors_apa(authors)} ({year}). {title.rstrip('.')}."
    if line["type"] == "book":
        return f"{head} {line.get('publisher', '')}.".rstrip(". ") + "."
    tail = str(line.get("container", ""))
    if line.get("volume"):
        tail += f", {line['volume']}"
        if line.get("issue"):
            tail += f"({line['issue']})"
    if line.get("pages"):
        tail += f", {line['pages']}"
    return f"{head} {tail}." if tail else head


_TRANSLITERATIONS = (("ü", "ue"), ("ö", "oe"), ("ä", "ae"), ("sky", "skii"), ("ov", "off"))


def slip(family: str, kind: str, seed: int) -> str | None:
    """``family`` with one slip of ``kind``; None when the kind does not apply. Inner
    letters only (never the first), so a slip keeps the name's start."""
    n = len(family)
    if kind == "transliteration":
        for plain, spelt in _TRANSLITERATIONS:
            if family.endswith(plain) or (len(plain) == 1 and plain in family):
                return family[::-1].replace(plain[::-1], spelt[::-1], 1)[::-1]
        return None
    if not family.isalpha():
        return None
    long_name = n >= 6
    if kind == "short":
        if not 3 <= n <= 5:
            return None
        i = 1 + seed % (n - 1)
        letters = "aeiourtnslm"
        new = next(c for c in letters[seed % len(letters):] + letters if c != family[i])
        return family[:i] + new + family[i + 1:]
    if not long_name:
        return None
    i = 1 + seed % (n - 2)
    if kind == "transposition":
        if family[i] == family[i + 1]:
            return None
        return family[:i] + family[i + 1] + family[i] + family[i + 2:]
    if kind == "dropped":
        return family[:i] + family[i + 1:]
    if kind == "doubled":
        return family[:i] + family[i] + family[i:]
    raise ValueError(kind)


def build_set(data_dir: Path, works: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(corpus lines, citations): the W&W world and the names test set built from it.
    Each citation: ``id``, ``citation_text``, ``pub_type`` (A or B), ``fabricated``,
    ``class`` (control, slip, decoy), ``kind``, ``work``."""
    lines, manifest = build_world_with_manifest(data_dir)
    roles = {m["id"]: m["role"] for m in manifest}
    chosen = sorted(
        (line for line in lines
         if roles[line["id"]] in ("real", "corrected") and line["type"] in ("article", "book")
         and len(line["sources"]) >= 2 and line.get("authors")
         and line["authors"][0].get("family")),
        key=lambda line: _h("names", line["id"]),
    )[:works]
    surnames = {str(a.get("family", "")).lower() for line in lines for a in line.get("authors", [])}
    invented = [s for s in INVENTED_SURNAMES if s.lower() not in surnames]
    titles = [full_title(line).lower() for line in lines]
    out: list[dict[str, Any]] = []

    def add(line: Mapping[str, Any], cls: str, kind: str, text: str, fabricated: bool) -> None:
        out.append({"id": f"{cls}-{kind}-{line['id']}", "citation_text": text,
                    "pub_type": "A" if line["type"] == "article" else "B",
                    "fabricated": fabricated, "class": cls, "kind": kind,
                    "work": line["id"]})

    for number, line in enumerate(chosen):
        seed = _h("slip", line["id"])
        authors = list(line["authors"])
        title = full_title(line)
        add(line, "control", "control", apa(line, authors, title), False)
        order = SLIP_KINDS[seed % len(SLIP_KINDS):] + SLIP_KINDS[:seed % len(SLIP_KINDS)]
        for kind in order:
            slipped = slip(str(authors[0]["family"]), kind, seed)
            if slipped is not None and slipped != authors[0]["family"]:
                first = {**authors[0], "family": slipped}
                add(line, "slip", kind, apa(line, [first, *authors[1:]], title), False)
                break
        other = chosen[(number + 1 + seed % (len(chosen) - 1)) % len(chosen)]
        add(line, "decoy", "same_title_other_authors",
            apa(line, other["authors"], title), True)
        new_title = f"{other['title']}: A reappraisal"
        best = process.extractOne(new_title.lower(), titles, scorer=fuzz.ratio)
        if best is None or best[1] < NEW_TITLE_MAX_SIMILARITY:
            add(line, "decoy", "scholar_new_title", apa(line, authors, new_title), True)
        fakes = [{"family": invented[(seed + k) % len(invented)],
                  "given": INVENTED_GIVEN[(seed + k) % len(INVENTED_GIVEN)]} for k in range(3)]
        add(line, "decoy", "coauthor_added", apa(line, [*fakes, authors[-1]], title), True)
    return lines, out


def report(citations: Sequence[Mapping[str, Any]], statuses: Mapping[str, str]
           ) -> dict[str, Any]:
    """Per class and kind: n, verified, verified_rate; the headline figures."""
    by: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for c in citations:
        for key in ((c["class"], c["kind"]), (c["class"], "all")):
            by[key]["n"] += 1
            by[key]["verified"] += statuses[c["id"]] == "verified"
            by[key]["status:" + statuses[c["id"]]] += 1
    classes: dict[str, dict[str, Any]] = defaultdict(dict)
    for (cls, kind), counts in sorted(by.items()):
        classes[cls][kind] = {"n": counts["n"], "verified": counts["verified"],
                              "verified_rate": round(counts["verified"] / counts["n"], 4),
                              "statuses": {k.removeprefix("status:"): v
                                           for k, v in counts.items()
                                           if k.startswith("status:")}}
    return {
        "control_verified_rate": classes["control"]["all"]["verified_rate"],
        "slips_verified_rate": classes["slip"]["all"]["verified_rate"],
        "decoys_verified": classes["decoy"]["all"]["verified"],
        "classes": dict(classes),
        "decoys_verified_ids": [c["id"] for c in citations
                                if c["class"] == "decoy" and statuses[c["id"]] == "verified"],
        "slips_not_verified": [{"id": c["id"], "text": c["citation_text"],
                                "status": statuses[c["id"]]} for c in citations
                               if c["class"] == "slip" and statuses[c["id"]] != "verified"],
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    lines, citations = build_set(Path(args.data), args.works)
    if args.write_set:
        write_world(citations, Path(args.write_set))
    labelled = [Labelled(c["id"], c["citation_text"],
                         "article" if c["pub_type"] == "A" else "book", c["fabricated"])
                for c in citations]
    with tempfile.TemporaryDirectory(prefix="names-bench-") as tmp:
        corpus = Path(tmp) / "ww_world.jsonl"
        write_world(lines, corpus)
        settings = engine_settings({}, keyless=False, time_scale=args.time_scale,
                                   cache_dir=Path(tmp) / "cache", independence="distinct")
        run = await run_once("names", labelled, corpus, settings, time_scale=args.time_scale,
                             concurrency=64, world_in_process=args.world_in_process)
    result = report(citations, run.statuses())
    result["statuses"] = run.statuses()
    result["citations"] = len(citations)
    result["requests_per_citation"] = round(sum(run.requests_by_source.values())
                                            / len(citations), 3)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench names",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--works", type=int, default=120)
    parser.add_argument("--time-scale", type=float, default=10.0)
    parser.add_argument("--world-in-process", action="store_true")
    parser.add_argument("--write-set", help="also write the generated citations (JSONL)")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    args = parser.parse_args(argv)
    result = asyncio.run(main_async(args))
    print(f"control verified {result['control_verified_rate']:.1%}, slips verified "
          f"{result['slips_verified_rate']:.1%}, decoys verified {result['decoys_verified']} "
          f"(must be 0); {result['requests_per_citation']} requests per citation")
    for cls, kinds in result["classes"].items():
        for kind, row in kinds.items():
            print(f"  {cls:8} {kind:26} n={row['n']:4} verified {row['verified_rate']:.1%} "
                  f"{row['statuses']}")
    if args.json:
        write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
