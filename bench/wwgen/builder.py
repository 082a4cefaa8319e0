"""The builder: the cited works from the rows, then the decoys and the background
(:mod:`wwgen.decoys`, :mod:`wwgen.background`), then the final corpus lines with their
audit manifest.
"""

from __future__ import annotations

import difflib
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from wwgen.background import Background
from wwgen.coverage import draw_presence, presence_model, render_options
from wwgen.decoys import Decoys
from wwgen.extract import Extracted
from wwgen.identifiers import make_arxiv_id, make_doi, make_issn
from wwgen.model import CORPUS_TYPE, DATACITE_REPORT_RATE, ELIDED_EXTRA_AUTHORS, ISBN_RATE, SOURCES
from wwgen.notes import apply_note
from wwgen.state import Built
from wwgen.text import (
    Person,
    corpus_id,
    expand_given,
    family_set,
    fold,
    join_title,
    split_title,
    title_key,
)
from wwgen.works import Spec, classify


class Builder(Decoys, Background):
    """Builds the world: ``prepare``, ``real_works``, ``decoys``, ``background_works``,
    ``finalize``, in this order."""

    def real_works(self) -> None:
        by_family: dict[str, list[Spec]] = defaultdict(list)
        # GPT-4 rows first: when two citations of one real work disagree and no note says
        # which is right, the GPT-4 citation (W&W: far fewer errors) gives the fields.
        for row in sorted(self.rows, key=lambda r: (r.gpt != "4", r.id)):
            if row.fabricated:
                continue
            ex = self.extracted[row.id]
            rng = self.rng("real", row.id)
            cls = classify(row, ex)
            title, subtitle = split_title(ex.title)
            spec = Spec(
                key=f"real:{row.id}", role="real", cls=cls, topic=row.topic, field_code=row.field,
                title=title, subtitle=subtitle, authors=[dict(p) for p in ex.authors],
                editors=[dict(p) for p in ex.editors], year=ex.year, container=ex.container,
                volume=ex.volume, issue=ex.issue, pages=ex.pages, publisher=ex.publisher,
                rows=[row.id],
            )
            if ex.editors_are_authors and not ex.editors:
                spec.editors, spec.authors = spec.authors, []
            if ex.elided:
                self._restore_elided(spec, ex, rng)
            before = self._fingerprint(spec)
            if row.note or row.hallmark_type or "incorrect" in row.hallmark_explanation:
                apply_note(spec, row, rng, self.names)
            after = self._fingerprint(spec)
            if before != after:
                spec.role = "corrected"
            # A DOI the citation gives is kept unless the note moved the work to another
            # journal or volume (then the cited DOI is another work's or none): 2.8.
            venue_moved = (before[3], before[4]) != (after[3], after[4])
            if spec.doi is None and ex.doi and not venue_moved:
                spec.doi = ex.doi
            spec.authors = [expand_given(p, self.seed, self.known_given) for p in spec.authors]
            spec.editors = [expand_given(p, self.seed, self.known_given) for p in spec.editors]
            lead = (spec.authors or spec.editors or [{"family": ""}])[0]
            family = fold(lead.get("family") or lead.get("literal") or "")
            same = self._same_work(by_family[family], spec)
            if same is not None:
                same.rows.append(row.id)
                same.doi = same.doi or spec.doi
                if same.doi:
                    same.forced["crossref"] = 1.0
                continue
            if spec.doi:
                spec.forced["crossref"] = 1.0  # a real DOI is a Crossref DOI (2.8)
            by_family[family].append(spec)
            self.specs.append(spec)
            if cls == "chapter" and spec.container:
                self._host_book(spec, role="host_book")

    @staticmethod
    def _same_work(candidates: Sequence[Spec], spec: Spec) -> Spec | None:
        """A real work already built that this citation also points at: same first author,
        same class, titles at least 0.9 alike, and (books) years at most one apart (2.6)."""
        key = title_key(join_title(spec.title, spec.subtitle))
        for other in candidates:
            other_key = title_key(join_title(other.title, other.subtitle))
            if other.cls != spec.cls or difflib.SequenceMatcher(
                    None, key, other_key).ratio() < 0.9:
                continue
            if spec.cls in ("article", "early") or spec.year is None or other.year is None:
                return other
            if abs(spec.year - other.year) <= 1:
                return other
            # more than a year apart: two editions of the book, both real
        return None

    @staticmethod
    def _fingerprint(spec: Spec) -> tuple[object, ...]:
        return (spec.title, spec.subtitle, spec.year, spec.container, spec.volume,
                spec.issue, spec.pages, spec.publisher, spec.cls, spec.corpus_type,
                json.dumps(spec.authors), json.dumps(spec.editors))

    def _restore_elided(self, spec: Spec, ex: Extracted, rng: random.Random) -> None:
        n = rng.randint(*ELIDED_EXTRA_AUTHORS)
        extra = self.names.people(rng, n, avoid=family_set(spec.authors))
        if ex.elided == "middle" and len(spec.authors) >= 2:
            spec.authors = spec.authors[:-1] + extra + spec.authors[-1:]
        else:
            spec.authors = spec.authors + extra

    # -------------------------------------------------------------------- rendering

    def finalize(self) -> Built:
        lines: list[dict[str, Any]] = []
        manifest: list[dict[str, Any]] = []
        ids: set[str] = set()
        arxiv_ids: set[str] = set()
        # DOIs of cited real works and traps are fixed: reserve them first.
        for spec in self.specs:
            if spec.doi:
                self.used_dois.add(spec.doi.lower())
        for spec in sorted(self.specs, key=lambda s: s.key):
            if spec.role == "shell":
                continue
            persons = [p for p in spec.authors if p.get("family")]
            if spec.role not in ("real", "corrected") and (
                title_key(join_title(spec.title, spec.subtitle)), family_set(persons)
            ) in self.fabricated_keys:
                continue  # never let a generated work be a fabricated citation
            rng = self.rng("final", spec.key)
            self._identifiers(spec, rng)
            present = draw_presence(spec, self.seed)
            if present["crossref"] and not spec.doi:
                spec.doi = self._doi(spec, rng)
            if not present["crossref"] and spec.doi and spec.role not in (
                "real", "corrected", "doi_trap"
            ):
                spec.doi = None
            if (not spec.doi and spec.cls == "report" and not present["crossref"]
                    and (spec.year or 0) >= 2014 and rng.random() < DATACITE_REPORT_RATE):
                spec.doi = f"10.5281/zenodo.{rng.randint(1000000, 9999999)}"
                spec.doi_agency = "datacite"
            wid = corpus_id(self.seed, spec.key)
            if wid in ids:
                raise RuntimeError(f"corpus id collision for {spec.key}")
            ids.add(wid)
            sources: dict[str, dict[str, Any]] = {}
            for source in SOURCES:
                if not present[source]:
                    continue
                opts = render_options(spec, source, self.rng("render", spec.key, source))
                if source == "arxiv":
                    year = (spec.year or 2015) + int(opts.get("year_offset", 0))
                    for _ in range(100):
                        aid = make_arxiv_id(self.rng("arxiv", spec.key, _), year, spec.topic)
                        if aid not in arxiv_ids:
                            break
                    arxiv_ids.add(aid)
                    opts["id"] = aid
                sources[source] = opts
            line = self._line(wid, spec, sources)
            lines.append(line)
            manifest.append({
                "id": wid, "role": spec.role, "class": spec.cls, "topic": spec.topic,
                "field": spec.field_code, "rows": spec.rows,
                "p": {s: round(p, 6) for s, p in presence_model(spec, self.seed).items()},
                "notes": spec.notes,
            })
        order = sorted(range(len(lines)), key=lambda i: lines[i]["id"])
        return Built(self.specs, [lines[i] for i in order], [manifest[i] for i in order])

    def _identifiers(self, spec: Spec, rng: random.Random) -> None:
        if spec.cls == "article" and spec.container and not spec.issn:
            spec.issn = [make_issn(self.seed, spec.container)]
        if spec.cls in ("book", "early", "report") and not spec.isbn:
            modern = spec.year is None or spec.year >= 1970
            rate = ISBN_RATE["early" if spec.cls == "early" else "report" if spec.cls ==
                             "report" else "book_modern" if modern else "book_old"]
            if rng.random() < rate:
                spec.isbn = [self._isbn(rng, spec.publisher)]

    def _doi(self, spec: Spec, rng: random.Random) -> str:
        for _ in range(200):
            doi = make_doi(rng, spec)
            if doi.lower() not in self.used_dois:
                self.used_dois.add(doi.lower())
                return doi
        raise RuntimeError(f"could not make a unique DOI for {spec.key}")

    def _line(self, wid: str, spec: Spec, sources: dict[str, dict[str, Any]]
              ) -> dict[str, Any]:
        line: dict[str, Any] = {
            "id": wid, "type": spec.corpus_type or CORPUS_TYPE[spec.cls], "title": spec.title,
        }
        if spec.subtitle:
            line["subtitle"] = spec.subtitle
        if spec.authors:
            line["authors"] = [_person_out(p) for p in spec.authors]
        if spec.editors:
            line["editors"] = [_person_out(p) for p in spec.editors]
        for key in ("year", "container", "volume", "issue", "pages", "publisher", "doi"):
            value = getattr(spec, key)
            if value is not None and value != "":
                line[key] = value
        if spec.isbn:
            line["isbn"] = list(spec.isbn)
        if spec.issn:
            line["issn"] = list(spec.issn)
        if spec.doi and spec.doi_agency and spec.doi_agency != "crossref":
            line["doi_agency"] = spec.doi_agency
        line["sources"] = sources
        return line



def _person_out(p: Person) -> dict[str, str]:
    if "literal" in p:
        return {"literal": p["literal"]}
    out = {"family": p["family"]}
    if p.get("given"):
        out["given"] = p["given"]
    return out


