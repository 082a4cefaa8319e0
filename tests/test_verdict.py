"""The agreement rule, independence, and retraction status."""

from __future__ import annotations

import pytest

from verifier.citations.models import (
    Identifiers,
    Retraction,
    SourceResult,
    SourceStatus,
    Status,
    WorkRecord,
)
from verifier.citations.verdict import decide, independent_groups, retraction_status


def match(source: str, doi: str | None = "10.1/a", retracted: bool | None = None,
          pmid: str | None = None) -> SourceResult:
    record = WorkRecord(source=source, source_id="x", url="", title="T",
                        identifiers=Identifiers(doi=doi, pmid=pmid), retracted=retracted)
    return SourceResult(SourceStatus.MATCH, record)


MISS = SourceResult(SourceStatus.NO_MATCH)
DOWN = SourceResult(SourceStatus.ERROR, error="HTTP 503")


@pytest.mark.parametrize(
    ("results", "status"),
    [
        ({"crossref": match("crossref"), "openalex": match("openalex")}, Status.VERIFIED),
        ({"crossref": match("crossref"), "openalex": MISS}, Status.UNCONFIRMED),
        ({"crossref": match("crossref"), "openalex": DOWN}, Status.UNCONFIRMED),
        ({"crossref": MISS, "openalex": MISS}, Status.NO_TRACE),
        ({"crossref": MISS, "openalex": DOWN}, Status.INCONCLUSIVE),
        ({"crossref": MISS, "googlebooks": SourceResult(SourceStatus.SKIPPED)}, Status.NO_TRACE),
        ({"googlebooks": SourceResult(SourceStatus.SKIPPED)}, Status.INCONCLUSIVE),
        ({"crossref": SourceResult(SourceStatus.RATE_LIMITED)}, Status.INCONCLUSIVE),
    ],
)
def test_the_agreement_rule(results: dict[str, SourceResult], status: Status) -> None:
    assert decide(results).status is status


@pytest.mark.parametrize(
    ("status", "answered", "failed"),
    [
        (SourceStatus.MATCH, True, False),
        (SourceStatus.NO_MATCH, True, False),
        (SourceStatus.NOT_APPLICABLE, False, False),
        (SourceStatus.SKIPPED, False, False),
        (SourceStatus.RATE_LIMITED, False, True),
        (SourceStatus.TIMED_OUT, False, True),
        (SourceStatus.ERROR, False, True),
    ],
)
def test_only_a_match_or_a_miss_is_an_answer_and_only_an_outage_is_a_failure(
    status: SourceStatus, answered: bool, failed: bool
) -> None:
    assert (status.answered, status.failed) == (answered, failed)


def test_every_source_status_is_classified_in_the_table_above() -> None:
    # A status added later must be placed deliberately: answered, failed, or neither.
    assert len(SourceStatus) == 7


def test_lineage_counts_crossref_and_openalex_through_one_doi_as_one_witness() -> None:
    results = {"crossref": match("crossref"), "openalex": match("openalex")}
    assert decide(results, "distinct").status is Status.VERIFIED
    assert decide(results, "lineage").status is Status.UNCONFIRMED
    assert independent_groups(results, "lineage") == [("crossref", "openalex")]
    # Through different DOIs (or none) they are separate witnesses even under lineage.
    apart = {"crossref": match("crossref", "10.1/a"), "openalex": match("openalex", None)}
    assert decide(apart, "lineage").status is Status.VERIFIED
    # A third, independent source makes the lineage pair verified again.
    results["semanticscholar"] = match("semanticscholar")
    assert decide(results, "lineage").status is Status.VERIFIED


def test_lineage_also_joins_pubmed_copies_through_one_pmid() -> None:
    results = {"openalex": match("openalex", None, pmid="123"),
               "pubmed": match("pubmed", None, pmid="123"),
               "semanticscholar": match("semanticscholar", None, pmid="123")}
    assert independent_groups(results, "lineage") == [("openalex", "pubmed",
                                                        "semanticscholar")]
    assert len(independent_groups(results, "distinct")) == 3


def test_two_origins_stay_two_witnesses_when_an_aggregator_copied_both() -> None:
    """Crossref (the publisher's deposit) and PubMed (NLM's indexing) are independent;
    OpenAlex and Semantic Scholar copying them through the DOI and the PMID add nothing,
    and must not merge the two origins into one witness."""
    results = {"crossref": match("crossref", "10.1/a", pmid="123"),
               "openalex": match("openalex", "10.1/a", pmid="123"),
               "pubmed": match("pubmed", "10.1/a", pmid="123"),
               "semanticscholar": match("semanticscholar", "10.1/a", pmid="123")}
    groups = independent_groups(results, "lineage")
    assert sorted(groups) == [("crossref", "openalex"), ("pubmed", "semanticscholar")]
    assert decide(results, "lineage").status is Status.VERIFIED


def test_retraction_is_never_clean_by_default() -> None:
    agreeing = ("crossref", "openalex")
    said_retracted = {"crossref": match("crossref", retracted=False),
                      "openalex": match("openalex", retracted=True)}
    assert retraction_status(said_retracted, agreeing) is Retraction.RETRACTED
    no_data = {"semanticscholar": match("semanticscholar", retracted=None)}
    assert retraction_status(no_data, ("semanticscholar",)) is Retraction.UNKNOWN
    clean = {"crossref": match("crossref", retracted=False)}
    assert retraction_status(clean, ("crossref",)) is Retraction.CLEAN
