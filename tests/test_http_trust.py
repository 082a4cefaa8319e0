"""What a user meets when a source is down, queues are long, or a budget is spent,
checked on the virtual clock (``tests/virtual_clock.py``) over ``MockTransport``:

- a down source is named by its real cause in every report and in one notice, and costs
  the run one rest, not a minute per citation (issue 9, item 8);
- waiting for our own rate limiter never counts against a citation's deadline (item 9);
- an OpenAlex budget spent by an earlier process is named once, "daily budget spent
  until ...", and the source is skipped, never asked again (item 10).
"""

from __future__ import annotations

import asyncio
import collections
from dataclasses import replace

import orjson
import pytest
from shapes import CITATION, crossref_list, openalex_list
from virtual_clock import run_virtual

from adapters.openalex import OpenAlexAdapter
from verifier import Verifier
from verifier.citations.models import SourceStatus, Status
from verifier.errors import ConnectFailed
from verifier.http.deadline import Deadline
from verifier.http.mock import MockTransport
from verifier.http.policy import RateClass, SourcePolicy
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.settings import Settings
from verifier.sources import PolicyTable

JSON = {"content-type": "application/json"}
REFUSED = "Cannot connect to host api.crossref.org:443 [Connection refused]"


def settings(**changes: object) -> Settings:
    base = Settings(mailto="me@example.org", sources=("crossref", "openalex"),
                    api_keys={"openalex": "k-openalex"}, cache_dir=None,
                    base_urls={"crossref": "http://crossref.test",
                               "openalex": "http://openalex.test"})
    return replace(base, **changes)  # type: ignore[arg-type]


def citations(count: int) -> list[str]:
    return [CITATION.replace("checks", f"checks {i}") for i in range(count)]


# ----------------------------------------------------------------------------- item 8


def crossref_down(base: str, request: HttpRequest) -> HttpResponse:
    if "crossref" in base:
        raise ConnectFailed(f"could not connect: {REFUSED}")
    return HttpResponse(200, orjson.dumps(openalex_list()), JSON)


def test_a_down_source_costs_the_run_one_rest_and_every_report_names_the_cause() -> None:
    """Crossref refuses every connection through a 636-citation run at the published
    limits (breaker: 5 failures, 30 s rest). The run must not wait a rest per citation
    (before: 4,561 virtual seconds, 591 reports saying only "circuit open")."""

    async def main() -> tuple[float, list[str], list[str], collections.Counter[str], int]:
        transport = MockTransport(crossref_down)
        loop = asyncio.get_running_loop()
        async with Verifier(settings(), transport=transport) as verifier:
            started = loop.time()
            errors, statuses = [], collections.Counter[str]()
            async for report in verifier.verify_many(citations(636), concurrency=16):
                errors.append(report.sources["crossref"].error or "")
                statuses[report.status.value] += 1
                assert report.sources["crossref"].status is SourceStatus.ERROR
            took = loop.time() - started
            notices = list(verifier.stats.notices)
        sent = sum(1 for s in transport.sent if "crossref" in s.base_url)
        return took, errors, notices, statuses, sent

    took, errors, notices, statuses, sent = run_virtual(main())
    assert all(REFUSED in error for error in errors), collections.Counter(errors)
    down = [n for n in notices if n.startswith("crossref:")]
    assert len(down) == 1 and REFUSED in down[0]
    assert statuses == {"inconclusive": 636}  # an error is never a miss
    # One rest (30 s) and the retries before it; then the source fails at once.
    assert took < 120.0
    assert sent <= 20  # and it is not hammered


def test_html_instead_of_json_is_the_cause_named_when_the_breaker_opens() -> None:
    def html(base: str, request: HttpRequest) -> HttpResponse:
        if "crossref" in base:
            return HttpResponse(200, b"<html><body>Maintenance</body></html>",
                                {"content-type": "text/html"})
        return HttpResponse(200, orjson.dumps(openalex_list()), JSON)

    async def main() -> tuple[list[str], list[str]]:
        async with Verifier(settings(), transport=MockTransport(html)) as verifier:
            reports = [r async for r in verifier.verify_many(citations(40), concurrency=8)]
            return [r.sources["crossref"].error or "" for r in reports], verifier.stats.notices

    errors, notices = run_virtual(main())
    opened = [e for e in errors if "circuit open" in e]
    assert opened, errors  # the breaker did open ...
    cause = opened[0].split(" (circuit open")[0]
    assert "circuit open" not in cause and len(cause) > len("crossref: ")  # ... with a cause
    assert any(cause.removeprefix("crossref: ") in n for n in notices)


def test_a_403_on_every_request_opens_the_breaker_with_the_status_as_cause() -> None:
    def forbidden(base: str, request: HttpRequest) -> HttpResponse:
        if "crossref" in base:
            return HttpResponse(403, b"Forbidden", {"content-type": "text/plain"})
        return HttpResponse(200, orjson.dumps(openalex_list()), JSON)

    async def main() -> tuple[list[str], int]:
        transport = MockTransport(forbidden)
        async with Verifier(settings(), transport=transport) as verifier:
            reports = [r async for r in verifier.verify_many(citations(60), concurrency=4)]
        sent = sum(1 for s in transport.sent if "crossref" in s.base_url)
        return [r.sources["crossref"].error or "" for r in reports], sent

    errors, sent = run_virtual(main())
    assert all("403" in e for e in errors), errors
    assert sent < 20  # not one refused request per citation


# ----------------------------------------------------------------------------- item 9


def test_queueing_for_our_own_rate_limit_never_makes_a_citation_inconclusive() -> None:
    """1,000 citations at --concurrency 1000 against one source at 1 request a second,
    with a 10 s deadline: every citation waits its turn, none is cut off for it."""
    one_per_second = SourcePolicy({"all": RateClass(1, 1.0, 1)}, max_concurrency=1)

    def answer(base: str, request: HttpRequest) -> HttpResponse:
        return HttpResponse(200, orjson.dumps(crossref_list()), JSON)

    async def main() -> tuple[collections.Counter[str], float, int]:
        transport = MockTransport(answer)
        loop = asyncio.get_running_loop()
        only = settings(sources=("crossref",), deadline_s=10.0)
        async with Verifier(only, transport=transport,
                            policies={"crossref": one_per_second}) as verifier:
            started = loop.time()
            statuses = collections.Counter(
                [r.status.value async for r in verifier.verify_many(citations(1000),
                                                                    concurrency=1000)])
            return statuses, loop.time() - started, len(transport.sent)

    statuses, took, sent = run_virtual(main())
    assert statuses == {"no_trace": 1000}
    assert sent == 1000 and took == pytest.approx(999.0, abs=2.0)  # paced at 1/s


def test_a_citation_answered_by_a_fast_source_still_queues_freely_for_a_slow_one() -> None:
    """Two sources: OpenAlex answers at once, Crossref serves 1 a second. After its
    OpenAlex answer, each citation only queues for Crossref: that is not its deadline's
    time either (a deadline that merely started at the first request would cut it off)."""
    one_per_second = SourcePolicy({"all": RateClass(1, 1.0, 1)}, max_concurrency=1)

    def answer(base: str, request: HttpRequest) -> HttpResponse:
        body = crossref_list() if "crossref" in base else openalex_list()
        return HttpResponse(200, orjson.dumps(body), JSON)

    async def main() -> collections.Counter[str]:
        async with Verifier(settings(deadline_s=10.0), transport=MockTransport(answer),
                            policies={"crossref": one_per_second}) as verifier:
            return collections.Counter(
                [r.status.value async for r in verifier.verify_many(citations(200),
                                                                    concurrency=200)])

    assert run_virtual(main()) == {"no_trace": 200}


def test_a_slow_source_still_times_out_once_the_citation_has_started() -> None:
    """The deadline still bounds the service's own time: a source that answers after
    the deadline is timed out, queueing or not."""

    async def slow(base: str, request: HttpRequest) -> HttpResponse:
        await asyncio.sleep(30.0)
        return HttpResponse(200, orjson.dumps(crossref_list()), JSON)

    policy = SourcePolicy({"all": RateClass(1, 1.0, 4)}, max_concurrency=4,
                          request_timeout_s=60.0)

    async def main() -> list[Status]:
        only = settings(sources=("crossref",), deadline_s=10.0)
        async with Verifier(only, transport=MockTransport(slow),
                            policies={"crossref": policy}) as verifier:
            return [r.status async for r in verifier.verify_many(citations(3), concurrency=3)]

    assert run_virtual(main()) == [Status.INCONCLUSIVE] * 3


# ----------------------------------------------------------------------------- item 10


def budget_spent_answer(request: HttpRequest) -> HttpResponse:
    """OpenAlex's answer once the day's credits are gone (as the world sends it)."""
    body = {"error": "Rate limit exceeded",
            "message": "Insufficient budget. This request costs $0.001 but you only have "
                       "$0 remaining. Resets at midnight UTC.",
            "retryAfter": 36000, "creditsRequired": 10, "creditsRemaining": 0}
    return HttpResponse(429, orjson.dumps(body), {
        "content-type": "application/json", "retry-after": "36000",
        "x-ratelimit-limit": "1000", "x-ratelimit-remaining": "0",
        "x-ratelimit-credits-required": "10", "x-ratelimit-reset": "36000"})


@pytest.mark.parametrize("headers", [True, False], ids=["headers", "body-only"])
def test_a_budget_spent_by_an_earlier_process_is_named_once_and_skipped(
        headers: bool) -> None:
    def handler(base: str, request: HttpRequest) -> HttpResponse:
        if "openalex" in base:
            spent = budget_spent_answer(request)
            if not headers:  # the body alone says so
                spent = HttpResponse(429, spent.body, {"content-type": "application/json"})
            return spent
        return HttpResponse(200, orjson.dumps(crossref_list()), JSON)

    async def main() -> tuple[list[SourceStatus], list[str], list[str], int]:
        transport = MockTransport(handler)
        keyless = settings(api_keys={})
        async with Verifier(keyless, transport=transport) as verifier:
            reports = [await verifier.verify(text) for text in citations(5)]
            notices = list(verifier.stats.notices)
        sent = sum(1 for s in transport.sent if "openalex" in s.base_url)
        return ([r.sources["openalex"].status for r in reports],
                [r.sources["openalex"].reason or "" for r in reports], notices, sent)

    statuses, reasons, notices, sent = run_virtual(main())
    assert statuses == [SourceStatus.SKIPPED] * 5  # never a miss, never "rate limited"
    assert sent == 1  # asked once; then known to be spent
    budget = [n for n in notices if "daily budget spent until" in n]
    assert len(budget) == 1 and "UTC" in budget[0] and "OPENALEX_API_KEY" in budget[0]
    assert all("daily budget spent until" in r for r in reasons)


def test_the_openalex_adapter_reads_a_spent_budget_from_the_body_alone() -> None:
    spent = budget_spent_answer(HttpRequest("/works"))
    hint = OpenAlexAdapter().rate_hint(HttpResponse(429, spent.body, {}))
    assert hint is not None and hint.remaining == 0 and hint.reset_s == 36000
    assert OpenAlexAdapter().rate_hint(HttpResponse(429, b'{"error":"slow down"}', {})) is None


def test_the_published_openalex_policy_has_a_budget_the_gate_can_name() -> None:
    policy = PolicyTable.for_settings(settings(api_keys={}))["openalex"]
    assert policy.daily_budget is not None and "OPENALEX_API_KEY" in policy.budget_hint


def test_a_deadlines_clock_stops_only_while_every_request_is_queued() -> None:
    async def main() -> list[float]:
        deadline = Deadline(10.0)
        seen = [deadline.when]
        with deadline.request(), deadline.queued():
            await asyncio.sleep(5.0)  # only queued: the clock stands still
            seen.append(deadline.when)
        seen.append(deadline.when)
        with deadline.request(), deadline.request(), deadline.queued():
            await asyncio.sleep(3.0)  # one queued, one at the service: it runs
        seen.append(deadline.when)
        fixed = Deadline.fixed(50.0)
        with fixed.request(), fixed.queued():
            await asyncio.sleep(1.0)
        seen.append(fixed.when)
        return seen

    assert run_virtual(main()) == pytest.approx([10.0, 15.0, 15.0, 15.0, 50.0])


def test_a_deadline_scope_fires_at_the_moved_deadline_not_before() -> None:
    async def main() -> float:
        loop = asyncio.get_running_loop()
        deadline = Deadline(10.0)
        try:
            async with deadline.scope(grace_s=1.0):
                with deadline.request():
                    with deadline.queued():
                        await asyncio.sleep(20.0)  # 20 s queued: not counted
                    await asyncio.sleep(100.0)  # at the service: cut at 10 + 20 + 1
        except TimeoutError:
            return loop.time()
        raise AssertionError("the scope never fired")

    assert run_virtual(main()) == pytest.approx(31.0)
