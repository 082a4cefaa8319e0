"""Discrepancies users can trust: venue identity by the alias table, preprint servers
never contradicting a venue (and the preprint_cited_as_published flag), the
doi_not_found flag, and no field discrepancy where an agreeing source supports the
cited value."""

from __future__ import annotations

from dataclasses import replace

import pytest

from verifier.citations.discrepancies import (
    discrepancies,
    doi_not_found,
    is_preprint_server,
    preprint_cited_as_published,
)
from verifier.citations.models import (
    Author,
    Citation,
    Identifiers,
    SourceResult,
    SourceStatus,
    WorkRecord,
    WorkType,
)
from verifier.citations.venues import containers_agree, venue_identity

PAPER = Citation(authors=(Author("Vaswani", "A."),), year=2017, title="Attention is all you need",
                 container="NeurIPS", type=WorkType.PROCEEDINGS)


def _rec(source: str, **changes: object) -> WorkRecord:
    base = WorkRecord(source=source, source_id=f"{source}-1", url="", title=PAPER.title,
                      authors=(Author("Vaswani", "Ashish"),), year=2017,
                      container="Advances in Neural Information Processing Systems 30")
    return replace(base, **changes)  # type: ignore[arg-type]


def _results(*records: WorkRecord, status: SourceStatus = SourceStatus.MATCH
             ) -> dict[str, SourceResult]:
    return {r.source: SourceResult(status, record=r) for r in records}


@pytest.mark.parametrize(("cited", "found"), [
    ("NeurIPS", "Advances in Neural Information Processing Systems 33"),
    ("NIPS 2017", "Neural Information Processing Systems"),
    ("CVPR", "2019 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)"),
    ("AAAI", "Proceedings of the AAAI Conference on Artificial Intelligence"),
    ("ICLR", "International Conference on Learning Representations"),
    ("ICML 2020", "Proceedings of the 37th International Conference on Machine Learning"),
    ("Proc. of ACL", "Proceedings of the 58th Annual Meeting of the Association for "
                     "Computational Linguistics"),
])
def test_a_venue_under_its_acronym_and_official_names_is_one_venue(cited: str, found: str
                                                                   ) -> None:
    assert containers_agree(cited, found)


@pytest.mark.parametrize(("cited", "found"), [
    ("ICLR", "ICML"), ("NeurIPS", "Nature"), ("EMNLP", "ACL"),
    ("CVPR", "International Conference on Computer Vision"),
])
def test_other_venues_stay_other(cited: str, found: str) -> None:
    assert not containers_agree(cited, found)
    assert venue_identity("A journal of sociology") is None


def test_a_preprint_server_never_contradicts_the_cited_venue() -> None:
    results = _results(_rec("semanticscholar", container="ArXiv"),
                       _rec("openalex", container="arXiv (Cornell University)"))
    assert [d.field for d in discrepancies(PAPER, results, tuple(results))] == []
    assert is_preprint_server("arXiv (Cornell University)") and not is_preprint_server("Nature")


def test_a_venue_cited_for_a_work_every_source_shows_as_a_preprint_is_flagged() -> None:
    preprints = _results(_rec("arxiv", container="", type=WorkType.PREPRINT),
                         _rec("semanticscholar", container="ArXiv"))
    assert preprint_cited_as_published(PAPER, preprints, tuple(preprints))
    published = _results(_rec("arxiv", container="", type=WorkType.PREPRINT),
                         _rec("crossref"))
    assert not preprint_cited_as_published(PAPER, published, tuple(published))
    as_preprint = replace(PAPER, container="arXiv preprint arXiv:1706.03762")
    assert not preprint_cited_as_published(as_preprint, preprints, tuple(preprints))


def test_a_cited_year_one_agreeing_source_gives_is_no_discrepancy() -> None:
    results = _results(_rec("arxiv", year=2017), _rec("crossref", year=2018),
                       _rec("openalex", year=2018))
    assert "year" not in [d.field for d in discrepancies(PAPER, results, tuple(results))]
    wrong = replace(PAPER, year=2015)
    assert "year" in [d.field for d in discrepancies(wrong, results, tuple(results))]


def test_a_cited_doi_no_registry_resolves_is_flagged() -> None:
    cited = replace(PAPER, identifiers=Identifiers(doi="10.9999/invented.2017"))
    found = _rec("crossref", identifiers=Identifiers(doi="10.5555/real.2017"))
    results = {"crossref": SourceResult(SourceStatus.MATCH, record=found),
               "openalex": SourceResult(SourceStatus.NO_MATCH)}
    assert doi_not_found(cited, results)
    real = replace(PAPER, identifiers=Identifiers(doi="10.5555/REAL.2017"))
    assert not doi_not_found(real, results)


def test_doi_not_found_needs_every_registry_asked_to_have_answered() -> None:
    cited = replace(PAPER, identifiers=Identifiers(doi="10.9999/invented.2017"))
    results = {"crossref": SourceResult(SourceStatus.NO_MATCH),
               "openalex": SourceResult(SourceStatus.TIMED_OUT)}
    assert not doi_not_found(cited, results)
    assert not doi_not_found(PAPER, {"crossref": SourceResult(SourceStatus.NO_MATCH)})
    arxiv_doi = replace(PAPER, identifiers=Identifiers(doi="10.48550/arXiv.1706.03762"))
    only_crossref = {"crossref": SourceResult(SourceStatus.NO_MATCH),
                     "openalex": SourceResult(SourceStatus.SKIPPED)}
    assert not doi_not_found(arxiv_doi, only_crossref)


def test_an_arxiv_record_without_venue_counts_as_a_preprint() -> None:
    bare = _results(_rec("openalex", container="",
                         identifiers=Identifiers(doi="10.48550/arXiv.1706.03762")),
                    _rec("semanticscholar", container="", identifiers=Identifiers(
                        arxiv="1706.03762")))
    assert preprint_cited_as_published(PAPER, bare, tuple(bare))
    unknown = _results(_rec("openalex", container=""), _rec("semanticscholar", container=""))
    assert not preprint_cited_as_published(PAPER, unknown, tuple(unknown))


def test_an_arxiv_doi_cited_with_a_version_suffix_is_found() -> None:
    cited = replace(PAPER, identifiers=Identifiers(doi="10.48550/arXiv.2602.12233v1"))
    found = _rec("openalex", identifiers=Identifiers(doi="10.48550/arxiv.2602.12233"))
    results = {"openalex": SourceResult(SourceStatus.MATCH, record=found),
               "crossref": SourceResult(SourceStatus.NO_MATCH)}
    assert not doi_not_found(cited, results)
