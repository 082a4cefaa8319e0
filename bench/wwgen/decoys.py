"""Decoys: works that look like a cited work without being it (the same title by other
authors, a DOI trap, the container of a fabricated chapter, a cited scholar's other
works), so that a title or a DOI alone cannot decide (WW_WORLD.md section 2).
"""

from __future__ import annotations

import random
import re

from wwgen.extract import Extracted, Row
from wwgen.model import ACADEMIC_PUBLISHERS, DOI_TRAP_RATE, SCHOLAR_REAL_RATE, SCHOLAR_WORKS
from wwgen.notes import near_miss_title
from wwgen.state import WorldState, _real_scholar_known
from wwgen.text import expand_given, family_set, fold, split_title, title_key, unit
from wwgen.vocab import title_chunks
from wwgen.works import Spec


class Decoys(WorldState):
    """The decoy rules, run after the cited works."""

    # -------------------------------------------------------------------- decoys

    def decoys(self) -> None:
        for row in self.rows:
            if not row.fabricated:
                continue
            ex = self.extracted[row.id]
            rng = self.rng("decoy", row.id)
            note = row.note
            cited_fams = family_set(p for p in ex.authors if p.get("family"))
            m = re.search(r"There's an? (book|documentary)[^,]* with this title(?: and an "
                          r"article in [^,]+)?, but the author\(s\) are entirely different",
                          note)
            if m:
                cls = "web" if m.group(1) == "documentary" else "book"
                self._same_title(row, ex, rng, cls, cited_fams)
            m = re.search(r"An article with (this|a very similar) title appeared in (?:the )?"
                          r"(.+?) in (\d{4}), but the author", note)
            if m:
                container = m.group(2)
                if m.group(1) == "this":
                    self._same_title(row, ex, rng, "article", cited_fams,
                                     container=container, year=int(m.group(3)))
                else:
                    self._same_title(row, ex, rng, "article", cited_fams,
                                     container=container, year=int(m.group(3)),
                                     near_miss=True)
            m = re.search(r"(.+?) published a paper with this title in (\d{4})", note)
            if m:
                self._same_title(row, ex, rng, "report", cited_fams, year=int(m.group(2)),
                                 publisher=re.sub(r"^The ", "", m.group(1)))
            m = re.search(r"There's a book with this title, but no such chapter|"
                          r"The book is real \((\d{4})\)|"
                          r"The book \(and the journal\) are real|"
                          r"The Proceedings are real|The Encylopedia is real", note)
            if m and ex.container:
                chapter = self._fab_shell(row, ex)
                year = int(m.group(1)) if m.group(1) else ex.year
                if "Encylopedia" in m.group(0):
                    self._container_web(row, ex)
                else:
                    self._host_book(chapter, role="container_decoy", year=year)
            if "several books with this title, but none with this chapter" in note and (
                ex.container
            ):
                chapter = self._fab_shell(row, ex)
                for k in range(1 + rng.randint(1, 2)):
                    book = self._host_book(chapter, role="container_decoy",
                                           year=(ex.year or 2015) - rng.randint(0, 15),
                                           key_suffix=f":{k}")
                    book.editors = self.names.people(self.rng("eds", row.id, k), 2)
            journal = None
            m = re.search(r"Elsevier publishes (.+?), but", note)
            if m:
                journal = m.group(1)
            m = re.search(r'There\'s a "(.+?)" \(singular\)', note)
            if m:
                journal = m.group(1)
            if "appears on Beall" in note:
                journal = ex.container
            if journal:
                for k in range(2):
                    self._journal_article(row, journal, k)
            self._scholar_works(row, ex)
            if ex.doi:
                self._doi_trap(row, ex, journal=journal)

    def _fab_shell(self, row: Row, ex: Extracted) -> Spec:
        """The fabricated chapter as a template for its (real) host book; never emitted."""
        return Spec(key=f"fab:{row.id}", role="shell", cls="chapter", topic=row.topic,
                    field_code=row.field, title=ex.title, editors=[dict(p) for p in ex.editors],
                    year=ex.year, container=ex.container, publisher=ex.publisher,
                    rows=[row.id])

    def _container_web(self, row: Row, ex: Extracted) -> None:
        title, subtitle = split_title(ex.container or "")
        self.specs.append(Spec(
            key=f"container-web:{row.id}", role="container_decoy", cls="web", topic=row.topic,
            field_code=row.field, title=title, subtitle=subtitle, year=None,
            authors=[{"literal": title}], rows=[row.id]))

    def _same_title(
        self, row: Row, ex: Extracted, rng: random.Random, cls: str, avoid: frozenset[str],
        *, container: str | None = None, year: int | None = None,
        publisher: str | None = None, near_miss: bool = False,
    ) -> None:
        full = ex.title
        if near_miss:
            full = near_miss_title(full, rng, self.names)
        title, subtitle = split_title(full)
        authors = self.names.people(rng, rng.randint(1, 3), avoid=avoid)
        spec = Spec(
            key=f"same-title:{row.id}", role="similar_title_decoy" if near_miss
            else "same_title_decoy", cls=cls, topic=row.topic, field_code=row.field, title=title,
            subtitle=subtitle, authors=authors,
            year=year if year is not None else (ex.year or 2010) + rng.randint(-6, 6),
            rows=[row.id],
        )
        if cls == "article":
            spec.container = container or self.names.other_journal(rng, row.field, None)
            self._article_numbers(spec, rng)
        elif cls in ("book", "report"):
            # The note says only that the authors differ: the publisher is the cited one.
            spec.publisher = publisher or ex.publisher or rng.choice(
                self.names.publishers_by_field.get(row.field) or list(ACADEMIC_PUBLISHERS))
        elif cls == "web":
            spec.publisher = "GeniusU"
        self.specs.append(spec)

    def _journal_article(self, row: Row, journal: str, k: int) -> None:
        rng = self.rng("journal-decoy", row.id, k)
        spec = Spec(
            key=f"journal:{row.id}:{k}", role="journal_decoy", cls="article", topic=row.topic,
            field_code=row.field, title="", authors=self.names.people(rng, rng.randint(1, 3)),
            year=rng.randint(2010, 2022), container=journal, rows=[row.id],
        )
        spec.title, spec.subtitle = split_title(self.vocab.title(rng, row.topic,
                                                                 year=spec.year))
        self._article_numbers(spec, rng)
        self.specs.append(spec)

    def _scholar_works(self, row: Row, ex: Extracted) -> None:
        persons = [p for p in ex.authors if p.get("family") and p.get("given")][:3]
        chunks = title_chunks(ex.title)
        for person in persons:
            ident = (fold(person["family"]), (person.get("given") or "")[:1])
            real = _real_scholar_known(self.real_families, person) or unit(
                self.seed, "scholar", *ident) < SCHOLAR_REAL_RATE
            key = f"scholar:{ident[0]}:{ident[1]}"
            if not real or any(s.key.startswith(key + ":") for s in self.specs):
                continue
            rng = self.rng("scholar", *ident)
            n = rng.randint(*SCHOLAR_WORKS)
            me = expand_given(person, self.seed, self.known_given)
            coauthors = [p for p in ex.authors if p.get("family") and p is not person]
            for k in range(n):
                cls = "article" if row.pub_type in "AW" else rng.choice(("book", "chapter"))
                if row.pub_type == "A" and rng.random() < 0.2:
                    cls = "chapter"
                must = rng.sample(chunks, min(2, len(chunks))) if k == 0 and chunks else []
                year = max(1960, min(2023, (ex.year or 2012) + rng.randint(-12, 6)))
                title = self.vocab.title(rng, row.topic, must=must, year=year)
                if title_key(title) == title_key(ex.title):
                    title = self.vocab.title(rng, row.topic, year=year)
                others = self.names.people(rng, rng.randint(0, 3),
                                           avoid=frozenset({ident[0]}))
                if coauthors and k == 0 and rng.random() < 0.5:
                    others = [expand_given(coauthors[0], self.seed, self.known_given), *others]
                authors = others[:]
                authors.insert(0 if k == 0 or rng.random() < 0.5 else len(authors), me)
                spec = Spec(
                    key=f"{key}:{k}", role="scholar_work", cls=cls, topic=row.topic,
                    field_code=row.field, title="", authors=authors, year=year, rows=[row.id],
                )
                spec.title, spec.subtitle = split_title(title)
                self._fill_venue(spec, rng)
                self.specs.append(spec)

    def _doi_trap(self, row: Row, ex: Extracted, *, journal: str | None = None) -> None:
        if unit(self.seed, "doi-trap", row.id) >= DOI_TRAP_RATE or ex.doi is None:
            return
        rng = self.rng("doi-trap", row.id)
        doi = ex.doi
        cls = "article"
        if "/B978" in doi:
            cls = "chapter"
        elif re.search(r"/97[89]\d{10}$", doi):
            cls = "book"
        spec = Spec(
            key=f"doi-trap:{row.id}", role="doi_trap", cls=cls, topic=row.topic,
            field_code=row.field, title="", authors=self.names.people(
                rng, rng.randint(1, 4), avoid=family_set(ex.authors)),
            year=ex.year, rows=[row.id], doi=doi,
        )
        spec.title, spec.subtitle = split_title(self.vocab.title(rng, row.topic, year=ex.year))
        if cls == "article":
            spec.container = journal or ex.container  # the real journal, where a note says
            self._article_numbers(spec, rng)
        else:
            self._fill_venue(spec, rng)
            spec.publisher = ex.publisher or spec.publisher
        spec.forced["crossref"] = 1.0
        self.specs.append(spec)

