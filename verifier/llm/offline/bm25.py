"""Okapi BM25 over the passages of one state (a paper, an abstract, an evidence excerpt).

The collection is the state's own passages: document frequencies, and so the IDF, come
from the state alone, which is all the offline model ever sees. IDF is the non-negative
Lucene form ``ln(1 + (N - n + 0.5) / (n + 0.5))``; ``k1 = 1.2``, ``b = 0.75``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

K1 = 1.2
B = 0.75


@dataclass(frozen=True, slots=True)
class Ranked:
    """One passage's place in a ranking: its index in the index's passages and score."""

    index: int
    score: float


class BM25Index:
    """An index over tokenised passages; :meth:`rank` scores a query against all of them."""

    __slots__ = ("_document_frequency", "_lengths", "_mean_length", "_term_counts", "size")

    def __init__(self, passages: Sequence[Sequence[str]]) -> None:
        self._term_counts = [Counter(passage) for passage in passages]
        self._lengths = [len(passage) for passage in passages]
        self.size = len(passages)
        self._mean_length = (sum(self._lengths) / self.size) if self.size else 0.0
        frequency: Counter[str] = Counter()
        for counts in self._term_counts:
            frequency.update(counts.keys())
        self._document_frequency = frequency

    def idf(self, term: str) -> float:
        """The term's inverse document frequency in this collection (0 < idf)."""
        n = self._document_frequency.get(term, 0)
        return math.log(1.0 + (self.size - n + 0.5) / (n + 0.5))

    def score(self, query: Sequence[str], index: int) -> float:
        """BM25 of ``query`` (terms, repeats counted once) against passage ``index``."""
        counts = self._term_counts[index]
        length_norm = 1.0 - B + B * (self._lengths[index] / self._mean_length
                                     if self._mean_length else 1.0)
        total = 0.0
        for term in dict.fromkeys(query):
            frequency = counts.get(term, 0)
            if frequency:
                total += self.idf(term) * frequency * (K1 + 1) / (frequency + K1 * length_norm)
        return total

    def ceiling(self, query: Sequence[str]) -> float:
        """The score of a mean-length passage holding every query term once (the sum of
        their IDFs): the scale :meth:`score` is divided by to compare across states.
        Repeated terms or short passages can score above it."""
        return sum(self.idf(term) for term in dict.fromkeys(query))

    def rank(self, query: Sequence[str]) -> list[Ranked]:
        """All passages, best first; ties keep passage order (deterministic)."""
        scored = [Ranked(index, self.score(query, index)) for index in range(self.size)]
        return sorted(scored, key=lambda ranked: (-ranked.score, ranked.index))
