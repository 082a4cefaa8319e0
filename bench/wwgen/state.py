"""The builder's state, shared by its parts: the rows and their extractions, the name
pools, the topic vocabulary, the works made so far, and the helpers every part uses
(seeded draws, host books, venues, article numbers).
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wwgen.extract import (
    Extracted,
    clean_journal,
    extract_citation,
    hallmark_people,
    load_hallmark,
    load_rows,
)
from wwgen.identifiers import make_isbn
from wwgen.model import (
    ACADEMIC_PUBLISHERS,
    EXTRA_FAMILY_NAMES,
    MISSING_ISSUE_RATE,
    ORGANISATIONS,
    TRADE_PUBLISHERS,
)
from wwgen.text import Person, family_set, fold, rng_for, split_title, title_key
from wwgen.vocab import TopicVocab, capitalize_title, phrase_case, proper_words, title_chunks
from wwgen.works import NamePool, Spec


@dataclass
class Built:
    specs: list[Spec]
    lines: list[dict[str, Any]]
    manifest: list[dict[str, Any]]


def _real_scholar_known(families_real: frozenset[str], person: Person) -> bool:
    return fold(person.get("family", "")) in families_real




class WorldState:
    """What the parts of the builder share; :class:`~wwgen.builder.Builder` is all of them."""

    def __init__(self, data_dir: Path, seed: int, background: int) -> None:
        self.seed = seed
        self.background = background
        self.rows = load_rows(data_dir)
        self.hallmark = load_hallmark(data_dir)
        self.names = NamePool(seed)
        self.specs: list[Spec] = []
        self.extracted: dict[str, Extracted] = {}
        self.fabricated_keys: set[tuple[str, frozenset[str]]] = set()
        self.cited_title_keys: set[str] = set()
        self.used_dois: set[str] = set()
        self.used_isbns: set[str] = set()
        self.topic_field: dict[int, str] = {}
        self.known_given: dict[tuple[str, str], str] = {}

    # -------------------------------------------------------------------- preparation

    def prepare(self) -> None:
        families: set[str] = set()
        known_given: dict[tuple[str, str], str] = {}
        chunks: dict[int, list[str]] = defaultdict(list)
        cited_titles: dict[int, list[str]] = defaultdict(list)
        vocab: Counter[str] = Counter()
        for row in self.rows:
            self.topic_field[row.topic] = row.field
            early = row.note.startswith("Early work")
            ex = extract_citation(row.text, row.pub_type, early=early)
            for p in ex.authors:
                given = p.get("given") or ""
                first = given.split()[0] if given else ""
                if p.get("family") and len(first) > 2 and not first.endswith("."):
                    known_given[(fold(p["family"]), first[0])] = first
            if row.hallmark_key and row.hallmark_key in self.hallmark:
                fields = self.hallmark[row.hallmark_key]
                people, elided = hallmark_people(fields["author"])
                if people:
                    ex.authors = people
                    if elided and not ex.elided:
                        ex.elided = "end"
                ex.title = fields["title"].strip()
                ex.year = int(fields["year"]) if fields["year"].isdigit() else ex.year
                ex.container = clean_journal(fields["journal"])
            self.extracted[row.id] = ex
            for p in ex.authors:
                if p.get("family") and re.fullmatch(r"[A-Z][\w'’ -]+", p["family"]):
                    if len(p["family"]) <= 20:
                        families.add(p["family"])
            chunks[row.topic].extend(title_chunks(ex.title))
            cited_titles[row.topic].append(ex.title)
            vocab.update(fold(w) for w in ex.title.split() if len(fold(w)) > 5)
            self.cited_title_keys.add(title_key(ex.title))
            if not row.fabricated and row.pub_type == "A" and ex.container:
                if ex.container not in self.names.journals_by_topic[row.topic]:
                    self.names.journals_by_topic[row.topic].append(ex.container)
                if ex.container not in self.names.journals_by_field[row.field]:
                    self.names.journals_by_field[row.field].append(ex.container)
            if (not row.fabricated and ex.publisher and row.pub_type in "BC"
                    and (ex.year or 0) >= 1950 and not re.search(r"\d", ex.publisher)):
                pubs = self.names.publishers_by_field[row.field]
                if ex.publisher not in pubs and len(ex.publisher) < 60:
                    pubs.append(ex.publisher)
            if row.fabricated:
                persons = [p for p in ex.authors if p.get("family")]
                self.fabricated_keys.add((title_key(ex.title), family_set(persons)))
        self.known_given = known_given
        self.names.families = sorted(families | set(EXTRA_FAMILY_NAMES))
        self.names.vocab_words = sorted(w for w, _ in vocab.most_common(400) if w.isalpha())
        self.vocab = TopicVocab(
            {t: sorted(set(c)) for t, c in chunks.items()},
            {t: list(v) for t, v in cited_titles.items()},
            frozenset(proper_words(t for v in cited_titles.values() for t in v)),
        )
        self.real_families = frozenset(
            fold(p["family"])
            for row in self.rows if not row.fabricated
            for p in self.extracted[row.id].authors if p.get("family")
        )

    # -------------------------------------------------------------------- cited works

    def rng(self, *parts: object) -> random.Random:
        return rng_for(self.seed, *parts)

    def _host_book(self, chapter: Spec, role: str, *, year: int | None = None,
                   key_suffix: str = "") -> Spec:
        rng = self.rng("host", chapter.key, key_suffix)
        container = re.sub(r",\s*Paper No\..*$", "", chapter.container or "Collected essays")
        title, subtitle = split_title(container)
        publisher = chapter.publisher
        if publisher is None and re.search(r"Proceedings|Conference|Workshop", container):
            publisher = proceedings_publisher(container)
        book = Spec(
            key=f"host:{chapter.key}{key_suffix}", role=role, cls="book", topic=chapter.topic,
            field_code=chapter.field_code, title=title, subtitle=subtitle,
            editors=[dict(p) for p in chapter.editors] or self.names.people(rng, 2),
            year=year if year is not None else chapter.year,
            publisher=publisher or rng.choice(ACADEMIC_PUBLISHERS), rows=list(chapter.rows),
        )
        isbn = self._isbn(rng, book.publisher)
        book.isbn = [isbn]
        chapter.isbn = [isbn]
        self.specs.append(book)
        return book

    def _isbn(self, rng: random.Random, publisher: str | None) -> str:
        for _ in range(100):
            isbn = make_isbn(rng, publisher)
            if isbn not in self.used_isbns:
                self.used_isbns.add(isbn)
                return isbn
        raise RuntimeError("could not make a unique ISBN")


    def _fill_venue(self, spec: Spec, rng: random.Random, *, host_allowed: bool = True
                    ) -> None:
        topic_journals = self.names.journals_by_topic.get(spec.topic) or []
        field_journals = (self.names.journals_by_field.get(spec.field_code)
                          or ["Journal of Research"])
        publishers = (self.names.publishers_by_field.get(spec.field_code)
                      or list(ACADEMIC_PUBLISHERS))
        if spec.cls == "article":
            pool = topic_journals if topic_journals and rng.random() < 0.85 else field_journals
            spec.container = rng.choice(pool)
            self._article_numbers(spec, rng)
        elif spec.cls in ("book", "early"):
            spec.publisher = rng.choice(
                publishers if rng.random() < 0.6 else
                (ACADEMIC_PUBLISHERS if rng.random() < 0.7 else TRADE_PUBLISHERS))
        elif spec.cls == "report":
            spec.publisher = rng.choice(ORGANISATIONS)
        elif spec.cls == "chapter":
            spec.editors = self.names.people(rng, rng.randint(1, 3))
            house = rng.choice(("Routledge", "Oxford", "Cambridge", "Palgrave", "SAGE"))
            subject = phrase_case(self._chunk(rng, spec.topic), self.vocab.proper)
            book_title = capitalize_title(
                rng.choice((f"The {house} handbook of {subject}",
                            self.vocab.title(rng, spec.topic, year=spec.year))), "title")
            spec.container = book_title
            spec.publisher = rng.choice(publishers if rng.random() < 0.5
                                        else ACADEMIC_PUBLISHERS)
            first = rng.randint(1, 500)
            spec.pages = f"{first}-{first + rng.randint(10, 35)}"
            if rng.random() < 0.5 and host_allowed:
                self._host_book(spec, role="background" if spec.role == "background"
                                else "host_book")
        elif spec.cls == "proceedings":
            kind = rng.choice(("Annual", "International", "European"))
            subject = capitalize_title(
                phrase_case(self._chunk(rng, spec.topic), self.vocab.proper), "title")
            spec.container = f"Proceedings of the {kind} Conference on {subject}"
            first = rng.randint(1, 900)
            spec.pages = f"{first}-{first + rng.randint(4, 12)}"
            spec.publisher = rng.choice(("ACM", "IEEE", "Association for Computational "
                                         "Linguistics", "AAAI Press", "Springer"))
        elif spec.cls == "web":
            spec.publisher = spec.authors[0].get("literal") if spec.authors else None

    def _chunk(self, rng: random.Random, topic: int) -> str:
        return rng.choice(self.vocab.chunks.get(topic) or ["research"])

    def _article_numbers(self, spec: Spec, rng: random.Random) -> None:
        age = max(1, (spec.year or 2010) - 1950)
        spec.volume = str(max(1, int(age * rng.uniform(0.5, 1.5))))
        if rng.random() >= MISSING_ISSUE_RATE:
            spec.issue = str(rng.randint(1, 12))
        if rng.random() < 0.1:
            spec.pages = f"e{rng.randint(100, 99999)}"
        else:
            first = rng.randint(1, 1800)
            spec.pages = f"{first}-{first + rng.randint(5, 30)}"


def proceedings_publisher(container: str) -> str:
    if re.search(r"NAACL|\bACL\b|Computational Linguistics", container):
        return "Association for Computational Linguistics"
    if re.search(r"AAAI|ACM", container):
        return "ACM"
    if re.search(r"\bESV\b", container):
        return "National Highway Traffic Safety Administration"
    return "IEEE"
