"""Vocabulary of generated titles: title chunks per topic, capitalisation styles, and
the topic vocabulary background works are titled from.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence

from wwgen.model import GENRE_TAILS, METHODS, PLACES, STOPWORDS
from wwgen.text import fold, split_title

# ============================================================================ vocabulary


def title_chunks(title: str) -> list[str]:
    """Content phrases of a title: runs of 1-4 non-stopwords between stopwords/punctuation."""
    chunks: list[str] = []
    for piece in re.split(r"[:;,.?!()\[\]“”\"—–]|\s-\s", title):
        run: list[str] = []
        for word in piece.split():
            bare = word.strip("'’\"“”")
            if not bare or fold(bare) in STOPWORDS or re.fullmatch(r"\d+", bare):
                if run:
                    chunks.append(" ".join(run))
                run = []
            else:
                run.append(bare)
                if len(run) == 4:
                    chunks.append(" ".join(run))
                    run = []
        if run:
            chunks.append(" ".join(run))
    return [c for c in chunks if len(fold(c)) >= 5 and not re.search(r"\d[-–]\d|^\d", c)
            and not PARTICIPLE_ENDING.search(c) and (" " in c or not ADJECTIVE_ENDING.search(c))]


PARTICIPLE_ENDING = re.compile(r"(?:ing|ed)$", re.I)


ADJECTIVE_ENDING = re.compile(r"(?:al|ic|ive|ous|ful|less|able|ible|ary|ed|ing|ly)$", re.I)


def proper_words(titles: Iterable[str]) -> set[str]:
    """Words written capitalised inside sentence-case titles (names, places: "Ohio")."""
    out: set[str] = set()
    for title in titles:
        words = title.split()
        lower = sum(1 for w in words[1:] if w[:1].islower())
        if lower < max(2, len(words) // 3):
            continue  # a Title Case title says nothing about names
        for prev, word in zip(words, words[1:], strict=False):
            bare = word.strip("'’\"“”(),.:;?")
            if bare[:1].isupper() and not prev.endswith(":"):
                out.add(bare)
    return out


def phrase_case(phrase: str, proper: frozenset[str] = frozenset()) -> str:
    """Lower-case a phrase unless a word looks like a proper noun or acronym."""
    out = []
    for w in phrase.split():
        if (re.fullmatch(r"[A-Z0-9]{2,}s?|[A-Z][a-z]+[A-Z]\w*", w) or w in _PROPER_HINTS
                or w.strip("'’") in proper):
            out.append(w)
        else:
            out.append(w.lower())
    return " ".join(out)


_PROPER_HINTS = frozenset(
    """China Chinese America American Americans US U.S. UK Europe European Britain British
    Australia Australian Borneo Sumatra Indonesia Indonesian Bangladesh Netherlands Dutch
    Stonehenge Boer Africa African English Christian Christianity Catholic Gothic Victorian
    Brexit EU Uber Chicago Boston Michigan Jersey Washington Mary Kay Oprah Chanel Body
    Shop Lauder Boeing Japan Japanese Flaubert Dostoevsky Tolstoy Austen Bronte Brontë
    Kalimantan Mexico Jamaica Caribbean Pacific Ming Progressive Great Depression New Deal
    Purgatory God Middle Ages""".split()
)


def capitalize_title(text: str, style: str) -> str:
    if style == "title":
        small = {"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or",
                 "the", "to", "with", "from"}
        words = text.split()
        out = []
        for i, w in enumerate(words):
            prev = words[i - 1] if i else ""
            if i and w.lower() in small and not prev.endswith(":"):
                out.append(w.lower())
            else:
                out.append(w[:1].upper() + w[1:])
        return " ".join(out)
    text = text[:1].upper() + text[1:]
    return re.sub(r"([:?]\s+)(\w)", lambda m: m.group(1) + m.group(2).upper(), text)


TEMPLATES: tuple[str, ...] = (
    "{A} and {B}: {C} in {P}",
    "The {A} of {B}",
    "{A} and the {B} of {C}",
    "{A}: Evidence from {P}",
    "Rethinking {A}: {B} and {C}",
    "{A}, {B}, and {C}",
    "Towards a {M} understanding of {A}",
    "{A} in {B}: {G}",
    "The impact of {A} on {B}",
    "Understanding {A}: A {M} approach",
    "A comparative study of {A} and {B}",
    "{A} revisited",
    "{A} and {B} in {P}",
    "Beyond {A}: {B} and the politics of {C}",
    "{A}: {G}",
    "Does {A} affect {B}? {M} evidence from {P}",
    "From {A} to {B}: {C} since {Y}",
    "{A} as {B}",
    "Assessing {A}: the role of {B}",
    "{A}, {B} and {C} in {P}, {Y}-{Y2}",
    "{A} and {B} in comparative perspective",
    "What drives {A}? {B} and {C}",
    "{A} after {B}: {G}",
)


class TopicVocab:
    """Each topic's title phrases (from its citation titles), recombined by templates."""

    def __init__(self, chunks_by_topic: Mapping[int, list[str]],
                 cited_titles: Mapping[int, list[str]], proper: frozenset[str]) -> None:
        self.chunks = chunks_by_topic
        self.cited = cited_titles
        self.proper = proper

    def title(self, rng: random.Random, topic: int, *, must: Sequence[str] = (),
              year: int | None = None) -> str:
        chunks = self.chunks.get(topic) or ["research", "theory", "practice"]
        picks: list[str] = []
        for chunk in [*must, *rng.sample(chunks, min(len(chunks), 6))]:
            if fold(chunk) not in {fold(p) for p in picks}:
                picks.append(chunk)
        while len(picks) < 3:
            picks.append(rng.choice(("policy", "practice", "theory", "evidence")))
        a, b, c = (phrase_case(x, self.proper) for x in picks[:3])
        end = (year or 2020) - rng.randint(5, 30)
        start = end - rng.randint(5, 60)
        text = rng.choice(TEMPLATES).format(
            A=a, B=b, C=c, P=rng.choice(PLACES), M=rng.choice(METHODS).lower(),
            G=rng.choice(GENRE_TAILS).lower(), Y=start, Y2=end,
        )
        text = re.sub(r"\s+", " ", text).strip()
        text = re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", r"\1n ", text)
        return capitalize_title(text, rng.choice(("sentence", "sentence", "title")))

    def near_title(self, rng: random.Random, topic: int) -> str | None:
        titles = self.cited.get(topic) or []
        if not titles:
            return None
        main, _ = split_title(rng.choice(titles))
        chunks = self.chunks.get(topic) or ["research"]
        tail = capitalize_title(
            rng.choice((f"{rng.choice(GENRE_TAILS)}", f"Evidence from {rng.choice(PLACES)}",
                        f"The role of {phrase_case(rng.choice(chunks), self.proper)}")),
            "sentence")
        return f"{main}: {tail}"


