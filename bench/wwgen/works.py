"""What a work of the world is before rendering (:class:`Spec`), its class, and the
name pools generated works draw their people, journals and publishers from.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass, field

from wwgen.extract import Extracted, Row
from wwgen.model import FIRST_NAMES, GIVEN_EXPANSION_RATE, REPORT_PUBLISHER
from wwgen.text import Person, fold

# ============================================================================ works


@dataclass
class Spec:
    """A work before rendering. ``key`` and ``role`` never reach the corpus."""

    key: str
    role: str
    cls: str
    topic: int
    field_code: str
    title: str
    subtitle: str | None = None
    authors: list[Person] = field(default_factory=list)
    editors: list[Person] = field(default_factory=list)
    year: int | None = None
    container: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    doi: str | None = None
    doi_agency: str | None = None
    isbn: list[str] = field(default_factory=list)
    issn: list[str] = field(default_factory=list)
    corpus_type: str | None = None
    forced: dict[str, float] = field(default_factory=dict)
    rows: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def classify_b(ex: Extracted, note: str) -> str:
    if note.startswith("Early work"):
        return "early"
    blob = f"{ex.publisher or ''} {ex.title}"
    people = [p for p in ex.authors if "family" in p]
    if (ex.publisher and REPORT_PUBLISHER.search(ex.publisher)
            and not re.search(r"University Press|Press$", ex.publisher)):
        return "report"
    if not people and ex.authors:
        return "report"
    if re.search(r"Working Paper|Report\b|Guideline|Inventory", blob):
        return "report"
    return "book"


def classify(row: Row, ex: Extracted) -> str:
    if row.pub_type == "A":
        return "article"
    if row.pub_type == "B":
        return classify_b(ex, row.note)
    if row.pub_type == "C":
        blob = f"{ex.container or ''}"
        if re.search(r"Proceedings|Conference|Workshop|Symposium", blob):
            return "proceedings"
        return "chapter"
    return "web"


# ---------------------------------------------------------------------------- name pools


class NamePool:
    """Family names (seen in the data plus a fixed list), journals and publishers by field."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.families: list[str] = []
        self.journals_by_field: dict[str, list[str]] = defaultdict(list)
        self.journals_by_topic: dict[int, list[str]] = defaultdict(list)
        self.publishers_by_field: dict[str, list[str]] = defaultdict(list)
        self.vocab_words: list[str] = []

    def person(self, rng: random.Random, avoid: frozenset[str] = frozenset()) -> Person:
        for _ in range(50):
            family = rng.choice(self.families)
            if fold(family) not in avoid:
                break
        letter = rng.choice("ABCDEFGHIJKLMNOPRSTW")
        if rng.random() < GIVEN_EXPANSION_RATE:
            given = rng.choice(FIRST_NAMES[letter])
            if rng.random() < 0.4:
                given += f" {rng.choice('ABCDEFGHJKLMNPRSTW')}."
        else:
            given = f"{letter}." + (f" {rng.choice('ABCDEFGHJKLMNPRSTW')}."
                                    if rng.random() < 0.4 else "")
        return {"family": family, "given": given}

    def people(self, rng: random.Random, n: int, avoid: frozenset[str] = frozenset()
               ) -> list[Person]:
        out: list[Person] = []
        taken = set(avoid)
        for _ in range(n):
            p = self.person(rng, frozenset(taken))
            taken.add(fold(p["family"]))
            out.append(p)
        return out

    def other_journal(self, rng: random.Random, field_code: str, current: str | None) -> str:
        pool = [j for j in self.journals_by_field.get(field_code, []) if j != current]
        return rng.choice(pool) if pool else (current or "Journal of Applied Research")


