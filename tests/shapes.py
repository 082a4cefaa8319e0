"""Hand-built bodies in the real Crossref and OpenAlex shapes (see apis.md), for scripted
servers. Only the fields the engine reads are filled in."""

from __future__ import annotations

from typing import Any

from verifier.http.policy import RateClass, SourcePolicy

CITATION = (
    "Smith, J., & Doe, A. (2019). Deep learning for citation checks. "
    "Journal of Tests, 3(2), 1-9."
)
TITLE = "Deep learning for citation checks"


def crossref_item(
    title: str = TITLE,
    authors: tuple[tuple[str, str], ...] = (("John", "Smith"), ("Alice", "Doe")),
    year: int = 2019,
    doi: str = "10.1000/test.1",
) -> dict[str, Any]:
    return {
        "DOI": doi,
        "title": [title],
        "author": [
            {"given": g, "family": f, "sequence": "first" if i == 0 else "additional"}
            for i, (g, f) in enumerate(authors)
        ],
        "issued": {"date-parts": [[year]]},
        "container-title": ["Journal of Tests"],
        "type": "journal-article",
        "volume": "3",
        "issue": "2",
        "page": "1-9",
    }


def crossref_list(*items: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": "ok",
        "message-type": "work-list",
        "message-version": "1.0.0",
        "message": {
            "items": list(items),
            "total-results": len(items),
            "items-per-page": 5,
            "query": {"start-index": 0, "search-terms": None},
        },
    }


def crossref_work(item: dict[str, Any]) -> dict[str, Any]:
    return {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": item}


def openalex_item(
    title: str = TITLE,
    authors: tuple[str, ...] = ("John Smith", "Alice Doe"),
    year: int = 2019,
    doi: str = "10.1000/test.1",
    work_id: str = "W1",
) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/{work_id}",
        "doi": f"https://doi.org/{doi}",
        "title": title,
        "display_name": title,
        "publication_year": year,
        "authorships": [
            {
                "author_position": "first" if i == 0 else "middle",
                "author": {"id": f"https://openalex.org/A{i}", "display_name": name},
                "raw_author_name": name,
            }
            for i, name in enumerate(authors)
        ],
        "primary_location": {"source": {"display_name": "Journal of Tests"}},
        "biblio": {"volume": "3", "issue": "2", "first_page": "1", "last_page": "9"},
        "type": "article",
        "ids": {"openalex": f"https://openalex.org/{work_id}", "doi": f"https://doi.org/{doi}"},
        "is_retracted": False,
    }


def openalex_list(*items: dict[str, Any]) -> dict[str, Any]:
    return {
        "meta": {"count": len(items), "db_response_time_ms": 5, "page": 1, "per_page": 5,
                 "groups_count": None},
        "results": list(items),
    }


def fast_policy(
    rate: float = 200.0,
    concurrency: int = 4,
    *,
    timeout: float = 1.0,
    attempts: int = 4,
    pause: float = 0.2,
    breaker: int = 50,
    cooldown: float = 1.0,
) -> SourcePolicy:
    """A policy fast enough for tests, with tiny backoffs."""
    rc = RateClass(rate, 1.0, concurrency)
    return SourcePolicy(
        {"single": rc, "list": rc},
        max_concurrency=concurrency,
        request_timeout_s=timeout,
        source_budget_s=30.0,
        max_attempts=attempts,
        backoff_base_s=0.01,
        backoff_cap_s=0.05,
        default_pause_s=pause,
        breaker_threshold=breaker,
        breaker_cooldown_s=cooldown,
    )
