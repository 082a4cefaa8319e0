"""Answers are read as candidates: a work's title at once, its record only when the
matching scores it. Lazy candidates must give exactly what building every record at once
gave (the records, and the best match), refuse the same answers at read time, and build
no record that cannot win."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from citation_strategies import citation_and_records
from hypothesis import given, settings
from hypothesis import strategies as st
from test_record_memo import (
    CROSSREF_FIELDS,
    JSON,
    OPENALEX_FIELDS,
    OPENALEX_SEARCH,
    SEARCH,
    SELECTED,
    envelope,
    openalex_results,
)

from adapters import CrossrefAdapter, OpenAlexAdapter
from adapters.base import SourceAdapter
from verifier.citations.candidates import Candidate, ready_candidates
from verifier.citations.matching import best_candidate, best_of
from verifier.citations.models import Author, Citation, MatchScores, WorkRecord
from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse


def read_both(adapter: SourceAdapter, request: HttpRequest, response: HttpResponse
              ) -> tuple[Any, Any]:
    """``parse`` and ``candidates`` of one response, each by an adapter of its own (two
    memos), as values or the error's text."""
    try:
        parsed: Any = type(adapter)().parse(request, response)
    except MalformedResponse as exc:
        parsed = f"MalformedResponse: {exc}"
    try:
        found, follow_up = type(adapter)().candidates(request, response)
        assert follow_up is None
        offered: Any = ([c.title for c in found], [c.notice_for for c in found],
                        [c.record() for c in found])
    except MalformedResponse as exc:
        offered = f"MalformedResponse: {exc}"
    return parsed, offered


def assert_same_reading(parsed: Any, offered: Any) -> None:
    if isinstance(parsed, str):
        assert offered == parsed  # refused at read time, with the same message
        return
    assert not isinstance(offered, str)
    titles, notices, records = offered
    assert records == parsed
    assert titles == [r.title for r in parsed]
    assert notices == [r.notice_for for r in parsed]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(CROSSREF_FIELDS), JSON, max_size=8), max_size=6),
       st.sampled_from([SEARCH, SELECTED]), st.booleans())
def test_crossref_candidates_are_its_records_title_first(
    items: list[dict[str, Any]], request: HttpRequest, with_doi: bool,
) -> None:
    if with_doi:  # most items readable; without, "DOI" is whatever JSON came
        for n, item in enumerate(items):
            item["DOI"] = f"10.1000/{n}"
    parsed, offered = read_both(CrossrefAdapter(), request, envelope(items))
    assert_same_reading(parsed, offered)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(OPENALEX_FIELDS), JSON, max_size=8),
                max_size=6), st.booleans())
def test_openalex_candidates_are_its_records_title_first(
    works: list[dict[str, Any]], with_id: bool,
) -> None:
    if with_id:
        for n, work in enumerate(works):
            work["id"] = f"https://openalex.org/W{n}"
    parsed, offered = read_both(OpenAlexAdapter(), OPENALEX_SEARCH, openalex_results(works))
    assert_same_reading(parsed, offered)


def test_one_unreadable_work_refuses_the_whole_answer_at_read_time() -> None:
    # Found while the candidates are made, never later when a record is asked for: an
    # answer is read or refused whole, and a refused answer is retried, not cached.
    items = [{"DOI": "10.1000/a", "title": ["A"]}, {"title": ["No DOI"]}]
    with pytest.raises(MalformedResponse, match="without a DOI"):
        CrossrefAdapter().candidates(SEARCH, envelope(items))
    works = [{"id": "https://openalex.org/W1", "title": "A"}, {"title": "Neither id nor DOI"}]
    with pytest.raises(MalformedResponse, match="neither id nor DOI"):
        OpenAlexAdapter().candidates(OPENALEX_SEARCH, openalex_results(works))


class Counted:
    """Builds records on demand and counts the builds, by title."""

    def __init__(self) -> None:
        self.built: list[str] = []

    def candidates(self, records: list[WorkRecord]) -> list[Candidate]:
        return [Candidate(r.title, self._build, r) for r in records]

    def _build(self, record: WorkRecord) -> WorkRecord:
        self.built.append(record.title)
        return record


@given(citation_and_records())
def test_the_best_of_lazy_candidates_is_the_best_of_the_records(
    case: tuple[Citation, list[WorkRecord]],
) -> None:
    citation, records = case
    lazy = best_of(citation, Counted().candidates(records))
    eager = best_candidate(citation, records)
    if eager is None:
        assert lazy is None
        return
    assert lazy is not None
    assert lazy[0] is eager[0]  # the very record: ties keep the source's order
    assert lazy[1] == eager[1]


def test_works_ruled_out_on_their_titles_are_never_built() -> None:
    citation = Citation(title="The Structure of Scientific Revolutions",
                        authors=(Author("Kuhn", "T. S."),), year=1962)
    records = [
        WorkRecord("s", str(n), "", title, (Author("Kuhn", "Thomas"),))
        for n, title in enumerate(["Scientific revolutions in economics",
                                   "The Structure of Scientific Revolutions",
                                   "Gardening for beginners",
                                   "A history of the bicycle"])
    ]
    counted = Counted()
    best = best_of(citation, counted.candidates(records))
    assert best is not None and best[0] is records[1] and best[1].is_match
    # The first is always built (it may be a perfect match); the exact title next; the
    # two whose titles cannot reach a match, nor beat one, never.
    assert counted.built == ["Scientific revolutions in economics",
                             "The Structure of Scientific Revolutions"]


def test_a_perfect_first_match_builds_nothing_else() -> None:
    citation = Citation(title="Hydrology of the Nile", authors=(Author("Sutcliffe", "J."),))
    records = [WorkRecord("s", str(n), "", "Hydrology of the Nile",
                          (Author("Sutcliffe", "John"),)) for n in range(3)]
    counted = Counted()
    best = best_of(citation, counted.candidates(records))
    assert best is not None and best[0] is records[0]
    assert best[1] == MatchScores(1.0, 1.0, None, True, True)
    assert counted.built == ["Hydrology of the Nile"]


def test_a_record_is_built_once_and_kept() -> None:
    # The client remembers an answer, and many citations may score its candidates.
    counted = Counted()
    (candidate,) = counted.candidates([WorkRecord("s", "1", "", "T")])
    first = candidate.record()
    assert candidate.record() is first
    assert counted.built == ["T"]


def test_ready_candidates_carry_the_records_as_they_are() -> None:
    notice = WorkRecord("pubmed", "2", "", "Retraction: T", notice_for="retraction")
    records = [WorkRecord("pubmed", "1", "", "T"), notice]
    candidates = ready_candidates(records)
    assert [c.record() for c in candidates] == records
    assert [(c.title, c.notice_for) for c in candidates] == [("T", None),
                                                             ("Retraction: T", "retraction")]


def test_an_adapter_without_an_override_reads_its_records_as_candidates() -> None:
    from adapters import SemanticScholarAdapter
    body = {"data": [{"paperId": "p1", "title": "A paper", "authors": [{"name": "Ann Lee"}]}]}
    response = HttpResponse(200, orjson.dumps(body), {"content-type": "application/json"})
    request = HttpRequest("/graph/v1/paper/search", (("query", "A paper"),))
    adapter = SemanticScholarAdapter()
    found, _ = adapter.candidates(request, response)
    assert [c.record() for c in found] == adapter.parse(request, response)
    assert [c.title for c in found] == ["A paper"]


@pytest.mark.parametrize("adapter, request_, response", [
    (CrossrefAdapter(), SEARCH, envelope([{"DOI": f"10.1000/{n}", "title": [f"T{n}"],
                                           "author": [{"family": "Ng", "given": "A."}]}
                                          for n in range(5)])),
    (OpenAlexAdapter(), OPENALEX_SEARCH, openalex_results(
        [{"id": f"https://openalex.org/W{n}", "title": f"T{n}",
          "authorships": [{"author": {"display_name": "A. Ng"}}]} for n in range(5)])),
])
def test_the_big_answers_build_a_record_only_when_asked(
    adapter: Any, request_: HttpRequest, response: HttpResponse,
) -> None:
    found, _ = adapter.candidates(request_, response)
    assert [c.title for c in found] == ["T0", "T1", "T2", "T3", "T4"]
    assert len(adapter._records) == 0  # nothing built yet
    found[3].record()
    assert len(adapter._records) == 1
