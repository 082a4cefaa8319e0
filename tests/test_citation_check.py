"""One parsed citation's check (verifier.citations.citation_check): the pure parts, in
memory. The check itself runs against servers on loopback in test_engine_network.py."""

from __future__ import annotations

import pytest

from verifier.citations.citation_check import book_check_of, redacted
from verifier.citations.models import BookStatus, Citation, SourceResult, SourceStatus

BOOK = Citation(title="Handbook of Everything")


def _redact(text: str) -> str:
    return text.replace("sk-secret", "[redacted]")


def test_redacted_takes_credentials_out_of_errors_and_reasons() -> None:
    leaky = SourceResult(SourceStatus.ERROR, error="HTTP 401 for key sk-secret")
    skipped = SourceResult(SourceStatus.SKIPPED, reason="key sk-secret refused")
    out = redacted({"crossref": leaky, "openalex": skipped}, _redact)
    assert out["crossref"].error == "HTTP 401 for key [redacted]"
    assert out["crossref"].status is SourceStatus.ERROR
    assert out["openalex"].reason == "key [redacted] refused"
    assert "sk-secret" not in repr(out)


def test_redacted_keeps_a_clean_result_as_it_is() -> None:
    clean = SourceResult(SourceStatus.NO_MATCH, error=None, reason="not needed")
    out = redacted({"pubmed": clean}, _redact)
    assert out["pubmed"] is clean  # not copied: results are immutable


@pytest.mark.parametrize(("statuses", "expected", "found"), [
    ({"openlibrary": SourceStatus.MATCH, "googlebooks": SourceStatus.ERROR},
     BookStatus.FOUND, ("openlibrary",)),
    ({"openlibrary": SourceStatus.NO_MATCH, "crossref": SourceStatus.NO_MATCH},
     BookStatus.NOT_FOUND, ()),
    # A failure means the book may be there: never read as "not found".
    ({"openlibrary": SourceStatus.NO_MATCH, "googlebooks": SourceStatus.TIMED_OUT},
     BookStatus.INCONCLUSIVE, ()),
    # Nobody answered (only skipped or not applicable): nothing was looked at.
    ({"openlibrary": SourceStatus.SKIPPED, "pubmed": SourceStatus.NOT_APPLICABLE},
     BookStatus.INCONCLUSIVE, ()),
    ({}, BookStatus.INCONCLUSIVE, ()),
])
def test_book_check_status(statuses: dict[str, SourceStatus], expected: BookStatus,
                           found: tuple[str, ...]) -> None:
    results = {name: SourceResult(status) for name, status in statuses.items()}
    check = book_check_of(BOOK, results)
    assert check.status is expected
    assert check.agreeing_sources == found
    assert check.title == "Handbook of Everything"
    assert check.sources == results
