"""The engine against real HTTP servers on loopback: retries, Retry-After, pauses, pacing,
timeouts, broken connections, the cache, cancellation and the verdict under failures.

Timing asserts are bounded from both sides where they matter and generous, so a loaded
machine cannot turn them into false failures; no test asserts a wall-clock goal.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from scripted_server import Reply, ScriptedServer, max_in_window, scripted_server
from shapes import (
    CITATION,
    crossref_item,
    crossref_list,
    crossref_work,
    fast_policy,
    openalex_item,
    openalex_list,
)

from verifier import Verifier
from verifier.citations.models import SourceStatus, Status
from verifier.http.policy import SourcePolicy
from verifier.settings import Settings

CROSSREF_OK = Reply(body=crossref_list(crossref_item()))
OPENALEX_OK = Reply(body=openalex_list(openalex_item()))
CROSSREF_EMPTY = Reply(body=crossref_list())
OPENALEX_EMPTY = Reply(body=openalex_list())


def engine_tasks() -> list[asyncio.Task[object]]:
    """Tasks still alive other than this test's own and the loopback server's handlers."""
    mine = asyncio.current_task()
    alive = []
    for task in asyncio.all_tasks():
        code = getattr(task.get_coro(), "cr_code", None)
        where = code.co_filename if code else ""
        if task is not mine and "aiohttp/web_" not in where and "scripted_server" not in where:
            alive.append(task)
    return alive


def settings_for(server: ScriptedServer, cache_dir: Path | None = None, **kw: object) -> Settings:
    return Settings(
        mailto="tests@example.org",
        sources=("crossref", "openalex"),
        base_urls={
            "crossref": server.base_url + "/crossref",
            "openalex": server.base_url + "/openalex",
        },
        cache_dir=cache_dir,
        **kw,  # type: ignore[arg-type]
    )


def policies(**per_source: SourcePolicy) -> Mapping[str, SourcePolicy]:
    base = {"crossref": fast_policy(), "openalex": fast_policy()}
    base.update(per_source)
    return base


async def check_one(
    server: ScriptedServer,
    citation: str = CITATION,
    *,
    cache_dir: Path | None = None,
    pol: Mapping[str, SourcePolicy] | None = None,
    **settings_kw: object,
):
    async with Verifier(settings_for(server, cache_dir, **settings_kw),
                        policies=pol or policies()) as verifier:
        return await verifier.verify(citation)


@pytest.mark.asyncio
async def test_two_matching_sources_verify_and_stop_early() -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_OK],
                                "/openalex/works": [OPENALEX_OK]}) as server:
        report = await check_one(server)
    assert report.status is Status.VERIFIED
    assert set(report.agreeing_sources) == {"crossref", "openalex"}
    assert report.sources["crossref"].status is SourceStatus.MATCH
    assert report.sources["crossref"].requests == 1
    assert report.corrected is not None and report.corrected.source == "crossref"
    assert len(server.hits) == 2


@pytest.mark.asyncio
async def test_an_element_that_is_not_a_citation_is_a_type_error_naming_its_position() -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_OK] * 2,
                                "/openalex/works": [OPENALEX_OK] * 2}) as server:
        async with Verifier(settings_for(server)) as verifier:
            with pytest.raises(TypeError, match="citation 0: .* not int 42"):
                await verifier.verify(42)  # type: ignore[arg-type]
            statuses = []
            with pytest.raises(TypeError, match="citation 1: .* not float nan"):
                async for report in verifier.verify_many(
                        [CITATION, float("nan")], concurrency=1):  # type: ignore[list-item]
                    statuses.append(report.status)
            assert statuses == [Status.VERIFIED]  # the one before it was checked
            assert engine_tasks() == []


@pytest.mark.asyncio
@pytest.mark.parametrize(("sources", "warned"), [(("crossref",), True),
                                                 (("crossref", "openalex"), False)])
async def test_a_run_that_cannot_verify_anything_says_so_once(
        sources: tuple[str, ...], warned: bool) -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_OK] * 2,
                                "/openalex/works": [OPENALEX_OK] * 2}) as server:
        async with Verifier(replace(settings_for(server), sources=sources)) as verifier:
            first = await verifier.verify(CITATION)
            await verifier.verify(CITATION, index=1)
    said = [n for n in verifier.stats.notices if "can be verified" in n]
    assert said == (["sources: only 1 can be asked (crossref); a citation is verified only "
                     "when 2 independent sources agree, so none can be verified in this run: "
                     "enable more (--sources, or the key a skipped source needs)"]
                    if warned else [])
    assert first.status is (Status.UNCONFIRMED if warned else Status.VERIFIED)


@pytest.mark.asyncio
async def test_retry_after_in_seconds_is_honoured_then_success() -> None:
    async with scripted_server({
        "/crossref/works": [Reply(429, "slow down", {"Retry-After": "1"}), CROSSREF_OK],
        "/openalex/works": [OPENALEX_OK],
    }) as server:
        report = await check_one(server)
    hits = server.hits_for("/crossref")
    assert report.status is Status.VERIFIED
    assert report.sources["crossref"].requests == 2
    gap = hits[1].arrived - hits[0].left
    assert 0.9 <= gap < 3.0, gap


@pytest.mark.asyncio
async def test_retry_after_as_http_date_is_honoured_then_success() -> None:
    # HTTP-dates have one-second resolution: ask for 2 s so the wait is at least ~1 s.
    when = email.utils.formatdate(time.time() + 2, usegmt=True)
    async with scripted_server({
        "/crossref/works": [Reply(429, b"", {"Retry-After": when}), CROSSREF_OK],
        "/openalex/works": [OPENALEX_OK],
    }) as server:
        report = await check_one(server)
    hits = server.hits_for("/crossref")
    assert report.sources["crossref"].status is SourceStatus.MATCH
    assert len(hits) == 2
    assert 0.9 <= hits[1].arrived - hits[0].left < 4.0


@pytest.mark.asyncio
async def test_retry_after_beyond_the_deadline_is_not_waited_for() -> None:
    async with scripted_server({
        "/crossref/works": [Reply(429, b"", {"Retry-After": "3600"})],
        "/openalex/works": [OPENALEX_OK],
    }) as server:
        started = time.monotonic()
        report = await check_one(server, deadline_s=5.0)
        elapsed = time.monotonic() - started
    assert report.sources["crossref"].status is SourceStatus.RATE_LIMITED
    assert report.status is Status.UNCONFIRMED  # openalex matched; crossref could not say
    assert len(server.hits_for("/crossref")) == 1
    assert elapsed < 4.0


@pytest.mark.asyncio
async def test_server_errors_are_retried_then_success() -> None:
    async with scripted_server({
        "/crossref/works": [Reply(500, "boom"), Reply(503, "busy"), CROSSREF_OK],
        "/openalex/works": [OPENALEX_OK],
    }) as server:
        report = await check_one(server)
    assert report.sources["crossref"].status is SourceStatus.MATCH
    assert report.sources["crossref"].requests == 3
    assert [h.path for h in server.hits_for("/crossref")] == ["/crossref/works"] * 3


@pytest.mark.asyncio
async def test_a_response_slower_than_the_timeout_is_timed_out() -> None:
    slow = fast_policy(timeout=0.2, attempts=2)
    async with scripted_server({
        "/crossref/works": [Reply(body=crossref_list(crossref_item()), delay=2.0)],
        "/openalex/works": [OPENALEX_EMPTY],
    }) as server:
        report = await check_one(server, pol=policies(crossref=slow))
    assert report.sources["crossref"].status is SourceStatus.TIMED_OUT
    assert report.sources["crossref"].requests == 2
    assert report.status is Status.INCONCLUSIVE


@pytest.mark.asyncio
async def test_a_reset_connection_is_an_error_not_a_miss() -> None:
    async with scripted_server({
        "/crossref/works": [Reply(reset=True)],
        "/openalex/works": [OPENALEX_EMPTY],
    }) as server:
        report = await check_one(server)
    crossref = report.sources["crossref"]
    assert crossref.status is SourceStatus.ERROR
    assert crossref.error and "connection" in crossref.error.lower()
    assert report.status is Status.INCONCLUSIVE


@pytest.mark.asyncio
async def test_a_malformed_body_is_an_error_not_a_miss() -> None:
    async with scripted_server({
        "/crossref/works": [Reply(body=b'{"status":"ok","message-type":"work-li',
                                  content_type="application/json")],
        "/openalex/works": [OPENALEX_EMPTY],
    }) as server:
        report = await check_one(server)
    assert report.sources["crossref"].status is SourceStatus.ERROR
    assert report.status is Status.INCONCLUSIVE


@pytest.mark.asyncio
async def test_a_source_that_is_down_makes_a_miss_inconclusive() -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_EMPTY],
                                "/openalex/works": [Reply(503, "down")]}) as server:
        report = await check_one(server)
    assert report.sources["crossref"].status is SourceStatus.NO_MATCH
    assert report.sources["openalex"].status is SourceStatus.ERROR
    assert report.status is Status.INCONCLUSIVE


@pytest.mark.asyncio
async def test_when_every_source_answers_without_a_match_it_is_no_trace() -> None:
    other = crossref_item(title="An entirely different paper on soil", doi="10.1/x")
    async with scripted_server({"/crossref/works": [Reply(body=crossref_list(other))],
                                "/openalex/works": [OPENALEX_EMPTY]}) as server:
        report = await check_one(server)
    assert report.sources["crossref"].status is SourceStatus.NO_MATCH
    assert report.sources["crossref"].record is not None  # kept as evidence
    assert report.sources["openalex"].status is SourceStatus.NO_MATCH
    assert report.status is Status.NO_TRACE


@pytest.mark.asyncio
async def test_connection_refused_is_an_error_and_inconclusive() -> None:
    async with scripted_server({"/openalex/works": [OPENALEX_EMPTY]}) as server:
        settings = settings_for(server)
        urls = dict(settings.base_urls)
        urls["crossref"] = "http://127.0.0.1:9/crossref"  # discard port: nothing listens
        from dataclasses import replace

        async with Verifier(replace(settings, base_urls=urls),
                            policies=policies(crossref=fast_policy(attempts=2))) as verifier:
            report = await verifier.verify(CITATION)
    assert report.sources["crossref"].status is SourceStatus.ERROR
    assert report.status is Status.INCONCLUSIVE


@pytest.mark.asyncio
async def test_pacing_never_exceeds_rate_or_concurrency_on_the_server_clock() -> None:
    # 20 requests/s and 2 in flight for list calls; 24 distinct citations all at once.
    paced = fast_policy(rate=20.0, concurrency=2)
    slowish = Reply(body=crossref_list(), delay=0.05)
    async with scripted_server({"/crossref/works": [slowish],
                                "/openalex/works": [OPENALEX_EMPTY]}) as server:
        async with Verifier(settings_for(server), policies=policies(crossref=paced)) as v:
            texts = [CITATION.replace("citation checks", f"citation checks {i}") for i in range(24)]
            reports = [r async for r in v.verify_many(texts, concurrency=24)]
    hits = server.hits_for("/crossref")
    assert len(reports) == 24 and len(hits) == 24
    assert max(h.in_flight for h in hits) <= 2
    # Even spacing: no one-second window holds more than 20. The slack (window 0.95 s, one
    # extra) absorbs a loaded server reading two requests late; no pacing at all puts
    # all 24 in the first window.
    assert max_in_window([h.arrived for h in hits], 0.95) <= 21
    span = max(h.arrived for h in hits) - min(h.arrived for h in hits)
    assert span >= 23 / 20 * 0.9  # and it did not go faster than the rate overall


@pytest.mark.asyncio
async def test_a_429_pauses_the_whole_source_not_just_one_task() -> None:
    # The first request is throttled for 1 s; the others, already queued, must wait too.
    async with scripted_server({
        "/crossref/works": [Reply(429, b"", {"Retry-After": "1"}), Reply(body=crossref_list())],
        "/openalex/works": [OPENALEX_EMPTY],
    }) as server:
        async with Verifier(settings_for(server),
                            policies=policies(crossref=fast_policy(rate=50, concurrency=1))) as v:
            texts = [CITATION.replace("checks", f"checks {i}") for i in range(5)]
            reports = [r async for r in v.verify_many(texts, concurrency=5)]
    hits = server.hits_for("/crossref")
    assert len(reports) == 5
    throttled_at = hits[0].left
    later = [h.arrived for h in hits[1:]]
    assert later, "the other citations never reached the source"
    assert min(later) - throttled_at >= 0.9, [t - throttled_at for t in later]


@pytest.mark.asyncio
async def test_a_cache_hit_sends_no_request(tmp_path: Path) -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_OK],
                                "/openalex/works": [OPENALEX_OK]}) as server:
        first = await check_one(server, cache_dir=tmp_path)
        sent = len(server.hits)
        second = await check_one(server, cache_dir=tmp_path)
        assert len(server.hits) == sent == 2
        refreshed = await check_one(server, cache_dir=tmp_path, cache_read=False)
        assert len(server.hits) == 4
    assert first.status is second.status is refreshed.status is Status.VERIFIED
    assert second.sources["crossref"].cached and second.sources["crossref"].requests == 0
    assert not first.sources["crossref"].cached


@pytest.mark.asyncio
async def test_errors_and_throttling_are_never_cached(tmp_path: Path) -> None:
    async with scripted_server({"/crossref/works": [Reply(503, "down")],
                                "/openalex/works": [Reply(429, b"", {"Retry-After": "0"})]}) as srv:
        pol = policies(crossref=fast_policy(attempts=1), openalex=fast_policy(attempts=1))
        await check_one(srv, cache_dir=tmp_path, pol=pol)
        before = len(srv.hits)
        await check_one(srv, cache_dir=tmp_path, pol=pol)
        assert len(srv.hits) == 2 * before


@pytest.mark.asyncio
async def test_identical_concurrent_requests_are_sent_once() -> None:
    slow_ok = Reply(body=crossref_list(crossref_item()), delay=0.3)
    async with scripted_server({"/crossref/works": [slow_ok],
                                "/openalex/works": [OPENALEX_OK]}) as server:
        async with Verifier(settings_for(server), policies=policies()) as v:
            reports = [r async for r in v.verify_many([CITATION] * 6, concurrency=6)]
    assert [r.status for r in reports] == [Status.VERIFIED] * 6
    assert len(server.hits_for("/crossref")) == 1
    assert sum(r.sources["crossref"].requests for r in reports) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize(("concurrency", "error"), [
    ("3", TypeError), (2.5, TypeError), (True, TypeError), (0, ValueError),
    (10_001, ValueError)])
async def test_verify_many_refuses_a_concurrency_that_is_not_a_whole_number_in_range(
        concurrency: object, error: type[Exception]) -> None:
    async with scripted_server({}) as s, \
            Verifier(settings_for(s), policies=policies()) as v:
        with pytest.raises(error, match="concurrency"):
            async for _ in v.verify_many([CITATION], concurrency=concurrency):  # type: ignore[arg-type]
                pass
        assert s.hits_for("/crossref") == []


@pytest.mark.asyncio
async def test_verify_many_refuses_a_bad_concurrency_on_the_call() -> None:
    # Checked when called, not when first iterated: the generator handed back is the
    # checker's own, with nothing wrapped round it to defer the check to.
    async with scripted_server({}) as s, \
            Verifier(settings_for(s), policies=policies()) as v:
        with pytest.raises(ValueError, match="concurrency"):
            v.verify_many([CITATION], concurrency=0)
        with pytest.raises(TypeError, match="concurrency"):
            v.citations.check_many([], concurrency="8")  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_cancelling_verify_many_leaves_no_tasks_behind() -> None:
    hang = Reply(body=crossref_list(), delay=30.0)
    async with scripted_server({"/crossref/works": [hang],
                                "/openalex/works": [Reply(body=openalex_list(), delay=30.0)]}) as s:
        async with Verifier(settings_for(s), policies=policies()) as v:
            texts = (CITATION.replace("checks", f"checks {i}") for i in range(100))

            async def consume() -> None:
                async for _ in v.verify_many(texts, concurrency=10):
                    pass

            task = asyncio.create_task(consume())
            await asyncio.sleep(0.3)
            assert len(asyncio.all_tasks()) > 2  # work really was in flight
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await asyncio.sleep(0)
            assert engine_tasks() == []


@pytest.mark.asyncio
async def test_breaking_out_of_verify_many_early_cancels_the_rest() -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_OK],
                                "/openalex/works": [Reply(body=openalex_list(), delay=30.0)]}) as s:
        async with Verifier(settings_for(s), policies=policies()) as v:
            texts = [CITATION.replace("checks", f"checks {i}") for i in range(20)]
            gen = v.verify_many(texts, concurrency=4)
            async with asyncio.timeout(10):
                first = await anext(gen)
            await gen.aclose()
            leftover = engine_tasks()
    assert first is not None
    assert leftover == []


@pytest.mark.asyncio
async def test_the_circuit_breaker_stops_hammering_a_dead_source() -> None:
    # A 30 s cooldown cannot fit a 5 s deadline: while the breaker is open, citations
    # fail at once instead of sending more requests to a dead source.
    dead = fast_policy(attempts=1, breaker=3, cooldown=30.0)
    async with scripted_server({"/crossref/works": [Reply(500, "dead")],
                                "/openalex/works": [OPENALEX_EMPTY]}) as server:
        async with Verifier(settings_for(server, deadline_s=5.0),
                            policies=policies(crossref=dead)) as v:
            reports = []
            for i in range(6):
                reports.append(await v.verify(CITATION.replace("checks", f"checks {i}")))
    assert len(server.hits_for("/crossref")) == 3
    assert all(r.sources["crossref"].status is SourceStatus.ERROR for r in reports)
    assert "circuit open" in (reports[-1].sources["crossref"].error or "")
    assert all(r.status is Status.INCONCLUSIVE for r in reports)


@pytest.mark.asyncio
async def test_rate_headers_slow_the_source_down() -> None:
    # The service says 5 requests per second although the policy allows 200.
    headers = {"x-rate-limit-limit": "5", "x-rate-limit-interval": "1s",
               "x-concurrency-limit": "1", "x-api-pool": "polite"}
    async with scripted_server({
        "/crossref/works/": [Reply(body=crossref_work(crossref_item()), headers=headers)],
        "/crossref/works": [CROSSREF_EMPTY],
        "/openalex/works/": [Reply(404, b"<html>Not Found</html>", content_type="text/html")],
        "/openalex/works": [OPENALEX_EMPTY],
    }) as server:
        async with Verifier(settings_for(server), policies=policies()) as v:
            texts = [CITATION.replace("checks", f"checks {i}") +
                     f" https://doi.org/10.1000/t{i}" for i in range(12)]
            _ = [r async for r in v.verify_many(texts, concurrency=12)]
    hits = server.hits_for("/crossref/works/")
    assert len(hits) == 12
    # Up to four (the policy's concurrency) may leave before the first answer teaches the
    # pace; every later one is spaced at 5/s and one at a time.
    later = sorted(h.arrived for h in hits)[4:]
    assert max_in_window(later, 0.95) <= 6  # 5/s, one of slack for a loaded server
    assert max(h.in_flight for h in hits[4:]) == 1


def test_the_engine_runs_inside_a_callers_loop_and_can_be_reopened() -> None:
    """Constructed outside any loop; opened twice, in two different loops of the caller."""

    async def callers_service(verifier: Verifier) -> Status:
        async with scripted_server({"/crossref/works": [CROSSREF_OK],
                                    "/openalex/works": [OPENALEX_OK]}) as server:
            verifier.settings = settings_for(server)
            other_work = asyncio.create_task(asyncio.sleep(0.01, result="other"))
            async with verifier:
                report = await verifier.verify(CITATION)
            assert await other_work == "other"
            return report.status

    verifier = Verifier(Settings(sources=("crossref", "openalex"), cache_dir=None),
                        policies=policies())
    assert asyncio.run(callers_service(verifier)) is Status.VERIFIED
    assert asyncio.run(callers_service(verifier)) is Status.VERIFIED


@pytest.mark.asyncio
async def test_a_doi_is_looked_up_first_and_searching_stops_at_agreement() -> None:
    async with scripted_server({
        "/crossref/works/10.1000": [Reply(body=crossref_work(crossref_item()))],
        "/openalex/works/doi:10.1000": [Reply(body=openalex_item())],
        "/crossref/works": [CROSSREF_OK],
        "/openalex/works": [OPENALEX_OK],
    }) as server:
        report = await check_one(server, CITATION + " https://doi.org/10.1000/test.1")
    assert report.status is Status.VERIFIED
    assert sorted(h.path for h in server.hits) == [
        "/crossref/works/10.1000/test.1",
        "/openalex/works/doi:10.1000/test.1",
    ]


@pytest.mark.asyncio
async def test_a_doi_that_resolves_to_another_work_is_flagged_and_searched_past() -> None:
    wrong = crossref_item(title="A survey of soil microbes", authors=(("Ann", "Other"),))
    async with scripted_server({
        "/crossref/works/10.1000": [Reply(body=crossref_work(wrong))],
        "/openalex/works/doi:10.1000": [Reply(404, "<html>Not Found</html>",
                                              content_type="text/html")],
        "/crossref/works": [CROSSREF_OK],
        "/openalex/works": [OPENALEX_OK],
    }) as server:
        report = await check_one(server, CITATION + " https://doi.org/10.1000/wrong")
    assert report.status is Status.VERIFIED
    assert "doi_mismatch" in report.flags
    assert report.sources["crossref"].requests == 2  # the lookup, then the search


@pytest.mark.asyncio
async def test_identification_reaches_the_service() -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_OK],
                                "/openalex/works": [OPENALEX_OK]}) as server:
        await check_one(server, api_keys={"crossref": "tok", "openalex": "key1"})
    crossref = server.hits_for("/crossref")[0]
    openalex = server.hits_for("/openalex")[0]
    assert "mailto=tests@example.org" in crossref.query  # aiohttp shows it decoded
    assert "mailto:tests@example.org" in crossref.headers["User-Agent"]
    assert crossref.headers["Crossref-Plus-API-Token"] == "Bearer tok"
    assert "api_key=key1" in openalex.query


@pytest.mark.asyncio
async def test_a_citation_with_nothing_to_look_for_is_an_item_error_not_no_trace() -> None:
    async with scripted_server({"/crossref/works": [CROSSREF_OK],
                                "/openalex/works": [OPENALEX_OK]}) as server:
        async with Verifier(settings_for(server), policies=policies()) as v:
            reports = [r async for r in v.verify_many(["", "!!! ???", CITATION])]
    by_index = {r.index: r for r in reports}
    assert by_index[0].status is by_index[1].status is Status.INCONCLUSIVE
    assert by_index[0].flags == ("input_error",) and by_index[0].error
    assert by_index[2].status is Status.VERIFIED  # the batch went on
    assert len(server.hits) == 2


@pytest.mark.asyncio
async def test_a_follow_up_request_is_made_through_the_same_client(tmp_path: Path) -> None:
    """An adapter whose search answers with ids asks for the records in a second request
    (PubMed's esearch then efetch); both are paced, counted and cached."""
    from adapters.base import SourceAdapter
    from adapters.crossref import CrossrefAdapter
    from verifier.http.transport import HttpRequest, HttpResponse

    class TwoStepCrossref(SourceAdapter):
        """Crossref's answers, reached by a search that first answers with ids."""

        name = "crossref"

        def __init__(self) -> None:
            self._crossref = CrossrefAdapter()

        def follow_up(self, request: HttpRequest, response: HttpResponse) -> HttpRequest | None:
            if request.path == "/works/ids":
                return HttpRequest(path="/works", params=(("query.bibliographic", "by id"),))
            return None

        def lookup_request(self, citation, identity):
            return self._crossref.lookup_request(citation, identity)

        def search_request(self, citation, identity):
            return HttpRequest(path="/works/ids", params=(("q", citation.title),))

        def parse(self, request: HttpRequest, response: HttpResponse):
            if request.path == "/works/ids":
                return []
            return self._crossref.parse(request, response)

    async with scripted_server({"/crossref/works/ids": [Reply(body=b"ids")],
                                "/crossref/works": [CROSSREF_OK],
                                "/openalex/works": [OPENALEX_OK]}) as server:
        for _ in range(2):
            async with Verifier(settings_for(server, tmp_path), policies=policies(),
                                adapters=[TwoStepCrossref()]) as verifier:
                report = await verifier.verify(CITATION)
            assert report.sources["crossref"].status is SourceStatus.MATCH
    paths = [h.path for h in server.hits_for("/crossref")]
    assert paths == ["/crossref/works/ids", "/crossref/works"]
    assert report.sources["crossref"].cached  # the second run answered both from the cache


@pytest.mark.asyncio
async def test_a_spent_budget_skips_the_source_with_a_notice_never_a_miss() -> None:
    from dataclasses import replace as with_

    # Room for two OpenAlex searches (10 credits each) in this run.
    budgeted = with_(fast_policy(), daily_budget=25.0, budget_hint="set OPENALEX_API_KEY")
    async with scripted_server({"/crossref/works": [CROSSREF_EMPTY],
                                "/openalex/works": [OPENALEX_EMPTY]}) as server:
        async with Verifier(settings_for(server), policies=policies(openalex=budgeted)) as v:
            reports = []
            for i in range(3):
                reports.append(await v.verify(CITATION.replace("checks", f"checks {i}")))
            notices = list(v.stats.notices)
    assert [r.sources["openalex"].status for r in reports] == [
        SourceStatus.NO_MATCH, SourceStatus.NO_MATCH, SourceStatus.SKIPPED]
    assert len(server.hits_for("/openalex")) == 2
    assert "budget" in (reports[2].sources["openalex"].reason or "")
    assert reports[2].status is Status.NO_TRACE  # crossref answered; a skip is no miss
    assert notices and "OPENALEX_API_KEY" in notices[0]


@pytest.mark.asyncio
async def test_a_single_limit_source_paces_lookups_and_searches_together() -> None:
    """Semantic Scholar-like: one limit for every endpoint. A DOI lookup and a search of
    the same source must share it, not get one limiter each."""
    from verifier.http.policy import RateClass, SourcePolicy

    one = SourcePolicy({"all": RateClass(4, 1.0, 4)}, max_concurrency=4,
                       backoff_base_s=0.01, backoff_cap_s=0.05)
    async with scripted_server({
        "/crossref/works/": [Reply(404, "Resource not found.")],
        "/crossref/works": [CROSSREF_EMPTY],
        "/openalex/works": [OPENALEX_EMPTY],
    }) as server:
        async with Verifier(settings_for(server), policies=policies(crossref=one)) as v:
            texts = [CITATION.replace("checks", f"checks {i}") + f" doi:10.1000/z{i}"
                     for i in range(6)]
            _ = [r async for r in v.verify_many(texts, concurrency=6)]
    hits = server.hits_for("/crossref")
    assert len(hits) == 12  # a lookup and a search per citation
    assert max_in_window([h.arrived for h in hits], 0.95) <= 5  # 4/s, one of slack


@pytest.mark.asyncio
async def test_one_match_sends_the_citation_to_the_fallback_sources_none_does_not() -> None:
    """Found in Crossref only among the planned sources: the fallback asks Semantic
    Scholar (1 request a second) for a second witness. Found nowhere: the fallback is not
    spent, although Semantic Scholar would have matched."""
    from verifier.settings import SOURCE_NAMES as ALL_SOURCES

    pol = {name: fast_policy() for name in ALL_SOURCES}
    semantic = {"paperId": "p1", "title": "Deep learning for citation checks", "year": 2019,
                "authors": [{"authorId": "1", "name": "John Smith"},
                            {"authorId": "2", "name": "Alice Doe"}]}
    scripts = {
        "/crossref/works": [CROSSREF_OK],
        "/openalex/works": [OPENALEX_EMPTY],
        "/semanticscholar/paper/search/match": [Reply(404, {"error": "Title match not found"})],
        "/pubmed/esearch.fcgi": [Reply(body={"esearchresult": {"count": "0", "idlist": []}})],
        "/doaj/search": [Reply(body={"total": 0, "page": 1, "pageSize": 5, "results": []})],
    }
    async with scripted_server(scripts) as server:
        urls = {name: f"{server.base_url}/{name}" for name in ALL_SOURCES}
        settings = Settings(mailto="tests@example.org", base_urls=urls, cache_dir=None,
                            api_keys={"googlebooks": "k"})
        async with Verifier(settings, policies=pol) as v:
            found_once = await v.verify(
                "Smith, J., & Doe, A. (2019). Deep learning for citation checks. "
                "Journal of Tests, 3(2), 1-9.")
        server.script("/crossref/works", CROSSREF_EMPTY)
        server.script("/semanticscholar/paper/search/match", Reply(body={"data": [semantic]}))
        before = len(server.hits)
        async with Verifier(settings, policies=pol) as v:
            nowhere = await v.verify("Roe, B. (2020). An invented study of nothing at all. "
                                     "Journal of Tests, 1(1), 1-2.")
        asked_for_nowhere = {h.path.split("/")[1] for h in server.hits[before:]}
    assert found_once.status is Status.UNCONFIRMED
    assert found_once.sources["pubmed"].status is SourceStatus.NO_MATCH
    assert found_once.sources["doaj"].status is SourceStatus.NO_MATCH
    assert found_once.sources["semanticscholar"].status is SourceStatus.NO_MATCH
    assert nowhere.status is Status.NO_TRACE
    assert {"crossref", "openalex", "pubmed", "doaj"} <= asked_for_nowhere
    assert "semanticscholar" not in asked_for_nowhere
    unasked = nowhere.sources["semanticscholar"]
    assert unasked.status is SourceStatus.SKIPPED and "only confirms" in (unasked.reason or "")


@pytest.mark.asyncio
async def test_a_source_that_needs_a_missing_key_is_skipped_never_a_miss() -> None:
    """Google Books without GOOGLE_BOOKS_API_KEY: skipped with a reason and a notice,
    and the verdict rests on the sources that were asked."""
    async with scripted_server({"/crossref/works": [CROSSREF_EMPTY],
                                "/openalex/works": [OPENALEX_EMPTY],
                                "/googlebooks": [Reply(500, "must not be asked")]}) as server:
        settings = replace(settings_for(server), sources=("crossref", "openalex", "googlebooks"),
                           base_urls={**settings_for(server).base_urls,
                                      "googlebooks": server.base_url + "/googlebooks"})
        async with Verifier(settings, policies=policies()) as v:
            report = await v.verify(CITATION)
            notices = list(v.stats.notices)
    books = report.sources["googlebooks"]
    assert books.status is SourceStatus.SKIPPED and books.requests == 0
    assert "GOOGLE_BOOKS_API_KEY" in (books.reason or "")
    assert server.hits_for("/googlebooks") == []
    assert report.status is Status.NO_TRACE
    assert any("GOOGLE_BOOKS_API_KEY" in n for n in notices)


@pytest.mark.asyncio
async def test_an_open_breaker_is_waited_out_when_the_cooldown_fits_the_deadline() -> None:
    """Three 500s open the breaker for 0.5 s; the next citation waits for the cooldown
    (it fits the deadline), probes, and the recovered source answers."""
    flaky = fast_policy(attempts=1, breaker=3, cooldown=0.5)
    async with scripted_server({
        "/crossref/works": [Reply(500, "down"), Reply(500, "down"), Reply(500, "down"),
                            CROSSREF_OK],
        "/openalex/works": [OPENALEX_OK],
    }) as server:
        async with Verifier(settings_for(server), policies=policies(crossref=flaky)) as v:
            failed = [await v.verify(CITATION.replace("checks", f"checks {i}"))
                      for i in range(3)]
            started = time.monotonic()
            recovered = await v.verify(CITATION)
            waited = time.monotonic() - started
    assert all(r.sources["crossref"].status is SourceStatus.ERROR for r in failed)
    assert recovered.sources["crossref"].status is SourceStatus.MATCH
    assert recovered.status is Status.VERIFIED
    assert 0.3 <= waited < 5.0
    assert len(server.hits_for("/crossref")) == 4  # no request while the breaker was open


@pytest.mark.asyncio
async def test_a_429_storm_pauses_the_source_but_never_opens_the_breaker() -> None:
    storm = [Reply(429, b"") for _ in range(8)] + [CROSSREF_OK]
    patient = fast_policy(attempts=20, breaker=3, cooldown=30.0, pause=0.05)
    async with scripted_server({"/crossref/works": storm,
                                "/openalex/works": [OPENALEX_OK]}) as server:
        async with Verifier(settings_for(server), policies=policies(crossref=patient)) as v:
            report = await v.verify(CITATION)
    assert report.sources["crossref"].status is SourceStatus.MATCH
    assert len(server.hits_for("/crossref")) == 9
