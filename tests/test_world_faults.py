"""Scripted faults: scenario files, and each fault reaching a real client on loopback as
intended (status, body, headers, a reset connection, a delay)."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from aiohttp import web
from world_helpers import WorldClient, connect_world

from verifier.world import Corpus, serve_world
from verifier.world.faults import FaultWindow, Scenario, ScenarioError
from verifier.world.service import Limit, ServiceSpec

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "fixtures" / "world" / "scenarios"
WORKS = [
    {"id": "deep", "type": "article", "title": "Deep learning",
     "authors": [{"family": "Ng", "given": "Ann"}], "year": 2015, "doi": "10.1234/deep",
     "sources": {"crossref": {}, "openalex": {"id": "W42"}}},
]
CORPUS = Corpus.from_lines([json.dumps(w) for w in WORKS])


def scenario(*windows: dict[str, Any]) -> Scenario:
    return Scenario.from_json({"windows": list(windows)})


def world_client(scenario: Scenario | Path, **options: Any
                 ) -> AbstractAsyncContextManager[WorldClient]:
    options.setdefault("corpus", CORPUS)
    options.setdefault("enforce_limits", False)
    # A fresh connection per request: a reset must not poison the next one.
    return connect_world(scenario=scenario, force_close=True, **options)


def feed_service(name: str, content_type: str, body: bytes) -> ServiceSpec:
    """A stand-in service answering every path with one fixed body (for services whose
    module the world may not serve yet)."""

    async def handle(request: web.Request) -> web.Response:
        return web.Response(body=body, headers={"Content-Type": content_type})

    def create_app(corpus: Corpus) -> web.Application:
        app = web.Application()
        app.router.add_get("/{tail:.*}", handle, name="any")
        return app

    return ServiceSpec(
        name=name, create_app=create_app, pool_of=lambda request: "all",
        request_class=lambda request: "all", limits={"all": {"all": Limit(1000)}},
        throttled=lambda retry_after: web.Response(status=429, text="Rate exceeded."),
    )


# ----------------------------------------------------------------------------- scenarios


def test_example_scenarios_load_and_faults_json_scripts_two_sources() -> None:
    files = sorted(SCENARIOS.glob("*.json"))
    assert "faults.json" in [f.name for f in files]
    loaded = {f.name: Scenario.load(f) for f in files}
    faults = loaded["faults.json"]
    assert faults.sources == {"openalex", "semanticscholar"}
    kinds = {(w.source, w.fault, w.retry_after is not None) for w in faults.windows}
    for source in ("openalex", "semanticscholar"):
        assert (source, "429", True) in kinds and (source, "429", False) in kinds
        assert {"slow"} <= {w.fault for w in faults.windows if w.source == source}
        assert any(w.fault.startswith("5") for w in faults.windows if w.source == source)
    assert any(w.from_s is not None for w in faults.windows)  # windows by time too


@pytest.mark.parametrize(
    ("window", "message"),
    [
        ({"source": "crossref", "fault": "429"}, "either \"from_request\""),
        ({"source": "crossref", "from_request": 1, "from_s": 0, "fault": "429"}, "either"),
        ({"source": "crossref", "from_request": 0, "fault": "429"}, "'from_request' must be >= 1"),
        ({"source": "crossref", "from_request": 1, "fault": "418"}, "\"fault\" must be one of"),
        ({"source": "crossref", "from_request": 1, "fault": "slow"}, "\"delay\""),
        ({"source": "crossref", "from_request": 1, "fault": "reset", "retry_after": 1},
         "\"retry_after\" goes with faults 429 and 5xx"),
        ({"source": "crossref", "from_request": 1, "duration_s": 3, "fault": "503"},
         "\"count\" goes with"),
        ({"source": "crossref", "from_request": 1, "fault": "503", "count": "3"},
         "'count' must be an integer"),
        ({"source": "crossref", "from_request": 1, "fault": "503", "colour": "red"},
         "unknown keys ['colour']"),
        ({"from_request": 1, "fault": "503"}, "\"source\" must name a service"),
    ],
)
def test_bad_windows_are_refused_naming_the_window(window: dict[str, Any], message: str) -> None:
    good = {"source": "openalex", "from_request": 1, "fault": "500"}
    with pytest.raises(ScenarioError, match=r"^x\.json: windows\[1\]: ") as info:
        Scenario.from_json({"windows": [good, window]}, origin="x.json")
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_fault_may_be_given_as_a_number_and_windows_default_to_the_end() -> None:
    [window] = scenario({"source": "crossref", "from_request": 3, "fault": 503}).windows
    assert window == FaultWindow(source="crossref", fault="503", from_request=3)
    assert not window.spans(2, 0.0) and window.spans(3, 0.0) and window.spans(10**9, 0.0)
    [timed] = scenario({"source": "*", "from_s": 5, "duration_s": 2, "fault": "down"}).windows
    assert [timed.spans(1, t) for t in (4.9, 5.0, 6.9, 7.0)] == [False, True, True, False]


@pytest.mark.asyncio
async def test_a_scenario_naming_a_service_not_served_is_refused() -> None:
    with pytest.raises(ScenarioError, match="source 'nosuch' is not served here"):
        async with serve_world(CORPUS, scenario=scenario(
                {"source": "nosuch", "from_request": 1, "fault": "429"})):
            pass


# ----------------------------------------------------------------------------- faults


@pytest.mark.asyncio
async def test_429_window_by_request_count_with_and_without_retry_after() -> None:
    script = scenario(
        {"source": "openalex", "from_request": 2, "count": 2, "fault": "429", "retry_after": 3},
        {"source": "openalex", "from_request": 4, "count": 1, "fault": "429"},
        {"source": "crossref", "from_request": 1, "count": 1, "fault": "429", "retry_after": 3},
    )
    async with world_client(script, time_scale=2.0) as client:
        replies = [await client.get("openalex", "/works/W42") for _ in range(5)]
        crossref = await client.get("crossref", "/works/10.1234/deep")
        log = client.world.requests
    assert [r.status for r in replies] == [200, 429, 429, 429, 200]
    with_wait, without = replies[1], replies[3]
    assert with_wait.headers["Retry-After"] == "1.5"  # 3 world seconds at time scale 2
    assert orjson.loads(with_wait.body)["error"] == "Rate limit exceeded"
    assert "Retry-After" not in without.headers
    assert "retryAfter" not in orjson.loads(without.body)
    # Crossref's own HTML page, with the Retry-After the scenario asked for.
    assert (crossref.status, crossref.headers["Content-Type"]) == (429, "text/html")
    assert crossref.headers["Retry-After"] == "1.5"
    assert [(e.status, e.fault) for e in log] == [
        (200, None), (429, "429"), (429, "429"), (429, "429"), (200, None), (429, "429")]


@pytest.mark.asyncio
async def test_5xx_burst_every_other_request_and_first_window_wins() -> None:
    script = scenario(
        {"source": "crossref", "from_request": 2, "count": 4, "fault": "503", "every": 2,
         "retry_after": 10},
        {"source": "*", "from_request": 1, "count": 7, "fault": "500"},
    )
    async with world_client(script) as client:
        crossref = [await client.get("crossref", "/works/10.1234/deep") for _ in range(8)]
        openalex = await client.statuses("openalex", "/works/W42", 2)
    # Requests 2-5 are the 503 window's (every other one faulted, the rest pass),
    # 1, 6 and 7 fall to the "*" window, 8 is past both.
    assert [r.status for r in crossref] == [500, 503, 200, 503, 200, 500, 500, 200]
    burst = crossref[1]
    assert burst.headers["Content-Type"] == "text/html"
    assert b"503 Service Unavailable" in burst.body and burst.headers["Retry-After"] == "10"
    assert "Retry-After" not in crossref[0].headers
    assert openalex == [500, 500]  # "*" numbers each service's requests separately


@pytest.mark.asyncio
async def test_slow_delays_the_answer_and_a_short_timeout_gives_up() -> None:
    script = scenario({"source": "crossref", "from_request": 1, "count": 2, "fault": "slow",
                       "delay": 2})
    async with world_client(script, time_scale=10.0) as client:  # 0.2 s real
        started = time.monotonic()
        slow = await client.get("crossref", "/works/10.1234/deep")
        took = time.monotonic() - started
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await client.get("crossref", "/works/10.1234/deep")
        await asyncio.sleep(0.25)  # the server finishes its wait and finds no client
        log = client.world.requests
    assert slow.status == 200 and b"Deep learning" in slow.body
    assert 0.19 <= took < 2.0
    assert [(e.status, e.fault) for e in log] == [(200, "slow"), (0, "slow")]


@pytest.mark.asyncio
async def test_reset_closes_the_connection_instead_of_answering() -> None:
    # aiohttp's client resends a GET once after a reset, so it takes two to see one.
    script = scenario({"source": "openalex", "from_request": 2, "count": 3, "fault": "reset"})
    async with world_client(script) as client:
        first = await client.get("openalex", "/works/W42")
        with pytest.raises(aiohttp.ClientConnectionError):
            await client.get("openalex", "/works/W42")
        retried = await client.get("openalex", "/works/W42")  # reset, resent, served
        log = client.world.requests
    assert (first.status, retried.status) == (200, 200)
    assert [(e.status, e.fault) for e in log] == [
        (200, None), (0, "reset"), (0, "reset"), (0, "reset"), (200, None)]


@pytest.mark.asyncio
async def test_down_by_world_time() -> None:
    # From world second 2 on, at time scale 4: half a real second after the start.
    script = scenario({"source": "crossref", "from_s": 2, "fault": "down"})
    async with world_client(script, time_scale=4.0) as client:
        before = await client.get("crossref", "/works/10.1234/deep")
        assert client.world.clock is not None
        await asyncio.sleep(max(0.0, client.world.clock.started + 0.55 - time.monotonic()))
        for _ in range(2):
            with pytest.raises(aiohttp.ClientConnectionError):
                await client.get("crossref", "/works/10.1234/deep")
        other = await client.get("openalex", "/works/W42")
        log = client.world.requests
    assert (before.status, other.status) == (200, 200)
    # Each failed GET is two resets: aiohttp's client resends it once.
    assert [(e.source, e.status, e.fault) for e in log] == [
        ("crossref", 200, None), *[("crossref", 0, "down")] * 4, ("openalex", 200, None)]


@pytest.mark.asyncio
async def test_malformed_truncates_the_real_answer() -> None:
    script = scenario({"source": "openalex", "from_request": 2, "count": 1,
                       "fault": "malformed"})
    async with world_client(script) as client:
        whole = await client.get("openalex", "/works/W42")
        cut = await client.get("openalex", "/works/W42")
    assert cut.status == 200 and cut.headers["Content-Type"] == "application/json"
    assert len(cut.body) == len(whole.body) // 2 and whole.body.startswith(cut.body)
    assert int(cut.headers["Content-Length"]) == len(cut.body)
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(cut.body)


@pytest.mark.asyncio
async def test_error_in_200_takes_each_services_shape() -> None:
    feed = b"<feed>" + b"<entry>x</entry>" * 20 + b"</feed>"
    services = {
        "arxiv": feed_service("arxiv", "application/atom+xml", feed),
        "pubmed": feed_service("pubmed", "application/json", b'{"esearchresult": {}}'),
        "crossref": feed_service("crossref", "application/json", b'{"message": "x" }'),
    }
    script = scenario(*({"source": name, "from_request": 1, "count": 3, "fault": "error_in_200"}
                        for name in services))
    async with world_client(script, services=services) as client:
        arxiv = await client.get("arxiv", "/query", {"search_query": "ti:x"})
        esearch = await client.get("pubmed", "/esearch.fcgi", {"term": "x", "retmode": "json"})
        efetch = await client.get("pubmed", "/efetch.fcgi", {"id": "1"})
        other = await client.get("crossref", "/works/10.1234/deep")
        log = client.world.requests
    assert all(r.status == 200 for r in (arxiv, esearch, efetch, other))
    assert b"<opensearch:totalResults>7</opensearch:totalResults>" in arxiv.body
    assert b"<entry>" not in arxiv.body
    assert b'"ERROR":"Search Backend failed: Exception:\n' in esearch.body
    with pytest.raises(orjson.JSONDecodeError):  # a raw newline in a string, as reported
        orjson.loads(esearch.body)
    assert b"<ERROR>" in efetch.body
    assert other.body == b'{"messag'  # no shape of its own: the answer truncated
    assert {e.fault for e in log} == {"error_in_200"}


@pytest.mark.asyncio
async def test_faulted_requests_do_not_count_against_the_limits() -> None:
    # Public list: one a second. Two scripted 503s first, then a real request: admitted.
    script = scenario({"source": "crossref", "from_request": 1, "count": 2, "fault": "503"})
    async with world_client(script, enforce_limits=True, time_scale=2.0) as client:
        statuses = await client.statuses("crossref", "/works?query=deep", 4)
        log = client.world.requests
    assert statuses == [503, 503, 200, 429]
    assert [(e.fault, e.throttled) for e in log] == [
        ("503", None), ("503", None), (None, None), (None, "rate")]
