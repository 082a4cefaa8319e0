"""Relevance search for one source's view of the corpus: SQLite FTS5 ranked by bm25.

Each searchable field (:data:`FIELD_WEIGHTS`) has its own in-memory FTS5 table, so
bm25's length normalisation is per field, as in Elasticsearch (a long author list does
not push a record's title match down). A query is a list of clauses, AND-ed; a clause
matches its text against the union of its fields:

- ``any`` (the default): the record holds *any* of the clause's words in one of the
  fields — OR-of-terms, as the real engines match a free-text query;
- ``all``: every word is in one of the fields (not necessarily the same one);
- ``phrase``: the words appear in this order, adjacent, within one field.

A record's score is the sum over clauses and fields of ``weight(field) × bm25``, higher
is better; results come best first, ties in corpus order. Words are the corpus's own
tokens (markup stripped, accents folded, case-folded; :func:`~verifier.world.corpus.tokens`),
then Porter-stemmed by FTS5 ("learning" finds "learn"). Every token is quoted before it
reaches FTS5, so no user text can be read as FTS5 syntax (``AND``, ``*``, ``:``,
``"``, ``NEAR``, parentheses) and no query can fail to parse.

What this means for callers: a query with a word some record holds returns hits — in a
realistic corpus everyday words ("the", "of", "learning") always do, so real-word
queries return plausible, possibly irrelevant, top hits — while a query none of whose
words occurs (gibberish) returns none. bm25 gives almost no weight to a word found in
over half the records, so such words widen the hit list without moving the ranking.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

FIELD_WEIGHTS: Mapping[str, float] = {
    "title": 1.0,
    "author": 0.6,
    "editor": 0.3,
    "container": 0.4,
    "publisher": 0.3,
    "year": 0.3,
}
"""Searchable fields and the weight of a match in each (a title match counts most)."""
MATCH_MODES: frozenset[str] = frozenset({"any", "all", "phrase"})
_TOKENIZER = "porter unicode61"


@dataclass(frozen=True, slots=True)
class Query:
    """One clause as the index runs it: ``words`` (already tokenised) against ``fields``."""

    fields: frozenset[str]
    words: tuple[str, ...]
    match: str = "any"


def _quoted(word: str) -> str:
    # Tokens hold letters and digits only, so quoting makes each one an FTS5 string
    # (never an operator); the doubling is belt and braces.
    return '"' + word.replace('"', '""') + '"'


def _expression(words: Sequence[str], match: str) -> str:
    if match == "phrase":
        return _quoted(" ".join(words))
    return (" AND " if match == "all" else " OR ").join(_quoted(w) for w in words)


class SearchIndex:
    """An in-memory FTS5 index over documents ``{field: text}`` (rowid = position + 1).

    Built once; :meth:`search` may be called from any thread (one lock serialises the
    connection, and SQLite releases the GIL while it runs a query).
    """

    __slots__ = ("__weakref__", "_db", "_fields", "_lock", "size")

    def __init__(self, documents: Iterable[Mapping[str, str]]) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        self._fields = tuple(FIELD_WEIGHTS)
        for name in self._fields:
            self._db.execute(
                f"CREATE VIRTUAL TABLE f_{name} USING fts5(text, tokenize='{_TOKENIZER}')"
            )
        rows: dict[str, list[tuple[int, str]]] = {name: [] for name in self._fields}
        size = 0
        for size, document in enumerate(documents, start=1):
            for name in self._fields:
                text = document.get(name, "")
                # Only records with the field are rows of its table, so its document
                # count and average length (idf, length norm) are over those records.
                if text:
                    rows[name].append((size, text))
        for name, values in rows.items():
            self._db.executemany(f"INSERT INTO f_{name}(rowid, text) VALUES (?, ?)", values)
        self._db.commit()
        self.size = size
        weakref.finalize(self, self._db.close)

    def __repr__(self) -> str:
        return f"<SearchIndex {self.size} documents>"

    def search(self, queries: Sequence[Query]) -> list[tuple[int, float]]:
        """``(document index, score)`` of every document matching all ``queries``, best
        first. A query without words matches nothing."""
        if not queries or any(not q.words or not q.fields & FIELD_WEIGHTS.keys()
                              for q in queries):
            return []
        sql, params = self._sql(queries)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [(doc - 1, score) for doc, score in rows]

    def _sql(self, queries: Sequence[Query]) -> tuple[str, list[str]]:
        ctes: list[str] = []
        params: list[str] = []
        # bm25 is the costly part: when other clauses (or an "all" across fields) will
        # drop rows, find the surviving rows first, unscored, and score only those.
        narrowed = len(queries) > 1 or any(
            q.match == "all" and len(self._fields_of(q)) > 1 for q in queries)
        if narrowed:
            sets = [f"SELECT doc FROM ({self._matching(q, params)})" for q in queries]
            ctes.append(f"keep AS MATERIALIZED ({' INTERSECT '.join(sets)})")
        scored = []
        for c, query in enumerate(queries):
            fields = self._fields_of(query)
            # A field need not hold every word of an "all" clause across fields (the
            # AND is in `keep`), so each field scores the words it holds.
            mode = query.match if query.match != "all" or len(fields) == 1 else "any"
            expression = _expression(query.words, mode)
            for f in fields:
                ctes.append(
                    f"c{c}{f} AS MATERIALIZED (SELECT rowid AS doc, "
                    f"-bm25(f_{f}) * {FIELD_WEIGHTS[f]!r} AS s FROM f_{f} "
                    f"WHERE f_{f} MATCH ?{' AND +rowid IN keep' if narrowed else ''})"
                )
                params.append(expression)
                scored.append(f"SELECT doc, s FROM c{c}{f}")
        sql = (f"WITH {', '.join(ctes)} SELECT doc, SUM(s) AS score "
               f"FROM ({' UNION ALL '.join(scored)}) GROUP BY doc ORDER BY score DESC, doc")
        return sql, params

    def _fields_of(self, query: Query) -> list[str]:
        return [f for f in self._fields if f in query.fields]

    def _matching(self, query: Query, params: list[str]) -> str:
        """A SELECT of the ``doc`` ids matching ``query``, unscored; adds its parameters."""
        fields = self._fields_of(query)
        if query.match == "all" and len(fields) > 1:
            words = []
            for word in query.words:
                params.extend([_quoted(word)] * len(fields))
                words.append("SELECT doc FROM (" + " UNION ".join(
                    f"SELECT rowid AS doc FROM f_{f} WHERE f_{f} MATCH ?" for f in fields) + ")")
            return " INTERSECT ".join(words)
        params.extend([_expression(query.words, query.match)] * len(fields))
        return " UNION ".join(f"SELECT rowid AS doc FROM f_{f} WHERE f_{f} MATCH ?"
                              for f in fields)
