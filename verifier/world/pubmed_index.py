"""The PubMed stand-in's search: every record of the ``pubmed`` view as a document a
parsed term can match, and the full scan that answers esearch.

:class:`PubMedIndex` is built once, when the service is made (before the world serves);
:meth:`PubMedIndex.search` and :meth:`PubMedIndex.phrases_not_found` scan every record,
so the service calls them in a worker thread. Both only read the index: safe to run
from several threads at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .corpus import Person, RenderedWork, tokens
from .pubmed_records import initials_of, pmid_of, publication_types
from .pubmed_terms import WORD_FIELDS, Group, Parsed, Term

_DATE = r"(\d{4})(?:/\d{1,2}(?:/\d{1,2})?)?"
_YEAR_RANGE = re.compile(rf"^{_DATE}(?::{_DATE})?$")


def _author_matches(query: str, person: Person) -> bool:
    words = tokens(query)
    if not words:
        return False
    if person.literal:
        lit = tokens(person.literal)
        return _contains(lit, words)
    family = tokens(person.family or "")
    if words == family:
        return True
    if words[: len(family)] != family or len(words) != len(family) + 1:
        return False
    rest = words[-1]
    given = tokens(person.given or "")
    initials = initials_of(person.given).lower()
    # "smith j" / "smith jd": initials prefix; "smith john": the first given name.
    return bool(initials.startswith(rest) or (given and given[0] == rest))


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    if not needle:
        return False
    n = len(needle)
    return any(list(haystack[i:i + n]) == list(needle) for i in range(len(haystack) - n + 1))


@dataclass(frozen=True, slots=True)
class _Doc:
    """What a term can match in one record (precomputed per record)."""

    record: RenderedWork
    pmid: str
    title: tuple[str, ...]
    everything: frozenset[str]
    journal: tuple[str, ...]
    types: frozenset[str]


def _doc(record: RenderedWork) -> _Doc:
    work = record.work
    title = tuple(tokens(record.full_title))
    people = " ".join(" ".join(x for x in (p.given, p.family, p.literal) if x)
                      for p in record.authors)
    words = set(title) | set(tokens(people)) | set(tokens(work.container or ""))
    words |= set(tokens(work.publisher or ""))
    if record.year is not None:
        words.add(str(record.year))
    return _Doc(record, pmid_of(work), title, frozenset(words),
                tuple(tokens(work.container or "")),
                frozenset(t.lower() for _, t in publication_types(work)))


def _first_page(pages: str | None) -> str:
    return re.split(r"[-\u2013\u2014]", pages or "", maxsplit=1)[0].strip().lower()


def _term_matches(term: Term, doc: _Doc) -> bool:
    record, work = doc.record, doc.record.work
    fld, text = term.field, term.text
    if fld in ("title", "all"):
        words = tokens(text)
        haystack: Sequence[str] = doc.title if fld == "title" else tuple(doc.everything)
        if term.quoted and fld == "title":
            return _contains(doc.title, words)
        if term.quoted and len(words) > 1:
            return _contains(doc.title, words) or _contains(doc.journal, words)
        return bool(words) and all(w in haystack for w in words)
    if fld in ("author", "first_author", "last_author", "collective"):
        people = record.authors
        if fld == "first_author":
            people = people[:1]
        elif fld == "last_author":
            people = people[-1:]
        elif fld == "collective":
            people = tuple(p for p in people if p.literal)
        return any(_author_matches(text, p) for p in people)
    if fld == "date":
        match = _YEAR_RANGE.match(text.replace(" ", ""))
        if match is None or record.year is None:
            return False
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        return min(low, high) <= record.year <= max(low, high)
    if fld == "journal":
        wanted = tokens(text)
        return bool(wanted) and (list(doc.journal) == wanted
                                 or text.strip().upper() in work.issn)
    if fld == "doi":
        return record.doi is not None and record.doi.lower() == text.strip().lower()
    if fld == "pmid":
        return doc.pmid == text.strip().lstrip("0")
    if fld == "volume":
        return (work.volume or "").lower() == text.strip().lower()
    if fld == "issue":
        return (work.issue or "").lower() == text.strip().lower()
    if fld == "page":
        return bool(work.pages) and _first_page(work.pages) == _first_page(text)
    if fld == "issn":
        return text.strip().upper() in work.issn
    if fld == "type":
        return " ".join(text.lower().split()) in doc.types
    if fld == "language":
        return text.strip().lower() in ("english", "eng")
    return False


def _evaluate(node: Term | Group, doc: _Doc) -> bool:
    if isinstance(node, Term):
        return _term_matches(node, doc)
    if not node.items:
        return False
    value = _evaluate(node.items[0], doc)
    for op, item in zip(node.ops, node.items[1:], strict=True):
        # Left to right, no precedence: "a OR b AND c" is "(a OR b) AND c", as in PubMed.
        if op == "AND":
            value = value and _evaluate(item, doc)
        elif op == "OR":
            value = value or _evaluate(item, doc)
        else:
            value = value and not _evaluate(item, doc)
    return value


def _positive_words(node: Term | Group, negated: bool = False) -> list[str]:
    """Title and all-field words of the term that count towards relevance."""
    if isinstance(node, Term):
        return [] if negated or node.field not in WORD_FIELDS else tokens(node.text)
    out: list[str] = []
    for index, item in enumerate(node.items):
        out.extend(_positive_words(item, negated or (index > 0 and node.ops[index - 1] == "NOT")))
    return out


def _unmatched_phrases(node: Term | Group, docs: Sequence[_Doc]) -> list[str]:
    """Untagged words no record holds: NCBI's ``phrasesnotfound``."""
    if isinstance(node, Term):
        if node.field != "all" or node.quoted:
            return []
        return [] if any(_term_matches(node, d) for d in docs) else [node.text]
    return [p for item in node.items for p in _unmatched_phrases(item, docs)]


class PubMedIndex:
    """The records as term-matchable documents, and the scans over them."""

    def __init__(self, records: Iterable[RenderedWork]) -> None:
        self.docs: tuple[_Doc, ...] = tuple(_doc(r) for r in records)
        self.by_pmid: dict[str, RenderedWork] = {d.pmid: d.record for d in self.docs}

    def phrases_not_found(self, parsed: Parsed) -> list[str]:
        """Untagged words of ``parsed`` that no record holds (``phrasesnotfound``)."""
        return _unmatched_phrases(parsed.root, self.docs)

    def search(self, parsed: Parsed, sort: str, dates: tuple[int, int] | None = None
               ) -> list[str]:
        """PMIDs of every record matching ``parsed`` (and the year range ``dates``), in
        esearch's ``sort`` order. Scans every record: run it off the event loop."""
        matching = [d for d in self.docs if _evaluate(parsed.root, d) and (
            dates is None or (d.record.year is not None
                              and dates[0] <= d.record.year <= dates[1]))]
        if sort == "relevance":
            words = set(_positive_words(parsed.root))
            scored = [(self._relevance(d, words), i, d) for i, d in enumerate(matching)]
            scored.sort(key=lambda s: (-s[0], s[1]))
            matching = [d for _, _, d in scored]
        elif sort in ("author", "first+author", "first author"):
            matching.sort(key=lambda d: _sort_name(d.record))
        elif sort in ("journal", "journalname"):
            matching.sort(key=lambda d: (d.record.work.container or "").casefold())
        else:
            # pub_date, "most recent" and the default: newest first.
            matching.sort(key=lambda d: (-(d.record.year or 0), -int(d.pmid)))
        return [d.pmid for d in matching]

    @staticmethod
    def _relevance(doc: _Doc, words: set[str]) -> float:
        if not words:
            return 0.0
        hits = len(words & set(doc.title))
        # Title coverage of the query, then how much of the title the query covers.
        return hits / len(words) + 0.5 * hits / max(len(doc.title), 1)


def _sort_name(record: RenderedWork) -> str:
    first = record.authors[0] if record.authors else None
    if first is None:
        return "\uffff"
    return (first.literal or f"{first.family} {first.given or ''}").casefold()
