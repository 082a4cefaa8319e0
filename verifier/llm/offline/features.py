"""What the offline model measures about a statement against a state: the feature vector.

:func:`index_state` splits the state into sentence passages and indexes them for BM25;
:func:`features` ranks them against the statement's content terms and turns the statement
and its best passages into the fixed, named values :data:`FEATURES` that the logistic
calibration weighs. Every feature is on a 0–1 scale (most are shares or flags):

=================  ==================================================================
``cov_top1``       share of the statement's content terms found in the best passage
``cov_top3``       … in the best three passages together
``cov_all``        … anywhere in the state
``idf_cov_top1``   ``cov_top1`` weighted by each term's IDF in the state (terms absent
                   from the state weigh as the rarest)
``bigram_top3``    share of the statement's adjacent content-term pairs found adjacent
                   in one of the best three passages
``bm25_top1``      the best passage's BM25 divided by the sum of the query's IDFs
                   (capped at 1)
``neg_statement``  the statement contains a negation cue
``neg_top1``       the best passage contains one
``neg_mismatch``   exactly one of the two is negated (odd count against even count)
``num_statement``  the statement states a number
``num_unmatched``  share of the statement's numbers that appear nowhere in the state
``dir_agree``      share of the statement's direction axes (increase/decrease,
                   higher/lower, …) on which the best three passages agree
``dir_oppose``     share on which they assert the opposite direction
``length``         the statement's content terms / 30, capped at 1
=================  ==================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifier.llm.offline.bm25 import BM25Index
from verifier.llm.offline.text import (
    bigrams,
    directions,
    negations,
    numbers,
    numbers_agree,
    sentences,
    terms,
)

FEATURES: tuple[str, ...] = (
    "cov_top1", "cov_top3", "cov_all", "idf_cov_top1", "bigram_top3", "bm25_top1",
    "neg_statement", "neg_top1", "neg_mismatch", "num_statement", "num_unmatched",
    "dir_agree", "dir_oppose", "length",
)
TOP_K = 3


@dataclass(frozen=True, slots=True)
class IndexedState:
    """A state split into sentence passages, tokenised and indexed once, so that many
    statements can be judged against it."""

    passages: tuple[str, ...]
    passage_terms: tuple[tuple[str, ...], ...]
    index: BM25Index
    numbers: frozenset[str]

    def best(self, query: Sequence[str], k: int = TOP_K) -> list[int]:
        """Indices of the ``k`` passages ranking highest for ``query`` terms."""
        return [ranked.index for ranked in self.index.rank(query)[:k]]


def index_state(state: str) -> IndexedState:
    """``state`` read as sentence passages with their terms, BM25 index and numbers."""
    passages = tuple(sentences(state))
    passage_terms = tuple(tuple(terms(passage)) for passage in passages)
    return IndexedState(passages, passage_terms, BM25Index(passage_terms),
                        frozenset(numbers(state)))


def features(statement: str, state: str | IndexedState) -> dict[str, float]:
    """The features named by :data:`FEATURES`, in that order, for ``statement`` judged
    against ``state`` (text, or a state indexed once by :func:`index_state`)."""
    indexed = index_state(state) if isinstance(state, str) else state
    passages, passage_terms, index = indexed.passages, indexed.passage_terms, indexed.index
    query = list(dict.fromkeys(terms(statement)))
    ranking = index.rank(query)
    top = [ranking[i].index for i in range(min(TOP_K, len(ranking)))]
    top1_terms = set(passage_terms[top[0]]) if top else set()
    top3_terms = {term for i in top for term in passage_terms[i]}
    all_terms = {term for passage in passage_terms for term in passage}

    def share(found: set[str]) -> float:
        return sum(1 for term in query if term in found) / len(query) if query else 0.0

    idf = {term: index.idf(term) for term in query}
    idf_total = sum(idf.values())
    idf_cov = (sum(idf[term] for term in query if term in top1_terms) / idf_total
               if idf_total else 0.0)
    statement_pairs = bigrams(terms(statement))
    passage_pairs = set().union(*(bigrams(passage_terms[i]) for i in top)) if top else set()
    bigram_share = (len(statement_pairs & passage_pairs) / len(statement_pairs)
                    if statement_pairs else 0.0)
    ceiling = index.ceiling(query)
    bm25 = min(1.0, ranking[0].score / ceiling) if top and ceiling else 0.0

    best_text = passages[top[0]] if top else ""
    negated_statement = negations(statement)
    negated_best = negations(best_text)
    stated = numbers(statement)
    available = set(indexed.numbers)
    unmatched = (sum(1 for value in stated if not numbers_agree(value, available)) / len(stated)
                 if stated else 0.0)
    agree, oppose = _direction_shares(statement, [passages[i] for i in top])
    values = (
        share(top1_terms), share(top3_terms), share(all_terms), idf_cov, bigram_share, bm25,
        float(negated_statement > 0), float(negated_best > 0),
        float((negated_statement % 2) != (negated_best % 2)),
        float(bool(stated)), unmatched, agree, oppose, min(1.0, len(query) / 30),
    )
    return dict(zip(FEATURES, values, strict=True))


def _direction_shares(statement: str, best: Sequence[str]) -> tuple[float, float]:
    claimed = directions(statement)
    if not claimed:
        return 0.0, 0.0
    found = directions(" ".join(best))
    agree = sum(1 for axis, sign in claimed.items() if found.get(axis) == sign)
    oppose = sum(1 for axis, sign in claimed.items() if found.get(axis) == -sign)
    return agree / len(claimed), oppose / len(claimed)
