"""The service's API v1 against the offline world on loopback: the contract of its answers,
its OpenAPI document, auth, limits, problems, jobs, sources, render, metrics and CORS."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from service_helpers import KEY, OTHER_KEY, Running, demo_refs, running_service

from verifier.citations.report import REPORT_KEYS
from verifier.errors import ConfigError
from verifier.service import ServiceConfig
from verifier.service.app import JOBS, PIPELINE_ROUTES
from verifier.service.auth import CallerLimits, KeyRing, key_label
from verifier.service.openapi import openapi_document

STATUSES = {"verified", "unconfirmed", "no_trace", "inconclusive"}


async def post(running: Running, path: str, body: Any, *, key: str | None = KEY,
               raw: bytes | None = None, **headers: str) -> tuple[int, dict[str, str], bytes]:
    data = raw if raw is not None else orjson.dumps(body)
    async with aiohttp.ClientSession() as http, http.post(
            running.url + path, data=data, headers=running.headers(key, **headers)) as r:
        return r.status, dict(r.headers), await r.read()


async def get(running: Running, path: str, *, key: str | None = KEY,
              **headers: str) -> tuple[int, dict[str, str], bytes]:
    async with aiohttp.ClientSession() as http, http.get(
            running.url + path, headers=running.headers(key, **headers)) as r:
        return r.status, dict(r.headers), await r.read()


def _routes(running: Running) -> set[tuple[str, str]]:
    found = set()
    for route in running.app.router.routes():
        if route.method in ("HEAD", "OPTIONS"):
            continue
        resource = route.resource
        assert resource is not None
        found.add((resource.canonical, route.method.lower()))
    return found


@pytest.mark.asyncio
async def test_the_openapi_document_describes_exactly_the_routes(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, _, body = await get(running, "/openapi.json", key=None)
        served = orjson.loads(body)
        assert status == 200 and served == openapi_document()
        assert served["openapi"].startswith("3.1")
        documented = {(path, method) for path, item in served["paths"].items()
                      for method in item}
        assert documented == _routes(running)
        assert PIPELINE_ROUTES == []  # nothing beyond the mounted pipelines
        for path, item in served["paths"].items():
            for method, operation in item.items():
                assert "responses" in operation, (path, method)
                refs = re.findall(r'"\$ref":"#/components/(\w+)/(\w+)"',
                                  orjson.dumps(operation).decode())
                for section, name in refs:
                    assert name in served["components"][section]


@pytest.mark.asyncio
async def test_one_citation_gives_one_report_in_the_cli_contract(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, headers, body = await post(running, "/v1/citations/check",
                                           {"citation": demo_refs()[0]})
        report = orjson.loads(body)
        assert status == 200 and headers["Content-Type"].startswith("application/json")
        assert list(report) == list(REPORT_KEYS)
        assert report["status"] == "verified" and report["index"] == 0


@pytest.mark.asyncio
async def test_structured_fields_are_checked_as_given(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        first = demo_refs()[0]
        _, _, body = await post(running, "/v1/citations/check", {"citation": {"text": first}})
        by_text = orjson.loads(body)
        title = by_text["citation"]["title"]
        authors = [{"family": a["family"], "given": a["given"]}
                   for a in by_text["citation"]["authors"]]
        csl = {"id": "mine", "title": title, "author": authors,
               "issued": {"date-parts": [[by_text["citation"]["year"]]]}}
        status, _, body = await post(running, "/v1/citations/check", {"citation": csl})
        report = orjson.loads(body)
        assert status == 200 and report["id"] == "mine"
        assert report["citation"]["title"] == title and report["status"] == "verified"


@pytest.mark.asyncio
async def test_a_list_streams_ndjson_as_decided_or_answers_an_array_in_order(
        tmp_path: Path) -> None:
    refs = demo_refs()[:6]
    async with running_service(tmp_path) as running:
        status, headers, body = await post(running, "/v1/citations/check",
                                           {"citations": [*refs, {"title": 3}]},
                                           Accept="application/x-ndjson")
        lines = [orjson.loads(line) for line in body.splitlines()]
        assert status == 200 and headers["Content-Type"] == "application/x-ndjson"
        assert sorted(line["index"] for line in lines) == list(range(7))
        assert all(list(line) == list(REPORT_KEYS) for line in lines)
        bad = next(line for line in lines if line["index"] == 6)
        assert bad["flags"] == ["input_error"]  # in place, the batch goes on
        status, _, body = await post(running, "/v1/citations/check", {"citations": refs})
        array = orjson.loads(body)
        assert [r["index"] for r in array] == list(range(6))
        assert {r["status"] for r in array} <= STATUSES


@pytest.mark.asyncio
async def test_a_bibtex_document_keeps_its_keys(tmp_path: Path) -> None:
    bib = ("@article{mykey2017,\n title={Attention is all you need},\n"
           " author={Vaswani, Ashish and Shazeer, Noam},\n year={2017}\n}\n")
    async with running_service(tmp_path) as running:
        status, _, body = await post(running, "/v1/citations/check",
                                     {"document": bib, "filename": "refs.bib"})
        [report] = orjson.loads(body)
        assert status == 200 and report["id"] == "mykey2017"
        assert report["status"] in ("verified", "unconfirmed")  # a source matched it
        assert report["correction"]["bibtex"].startswith("@inproceedings{mykey2017,")


@pytest.mark.asyncio
async def test_options_narrow_the_sources_of_one_request(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, _, body = await post(running, "/v1/citations/check", {
            "citation": demo_refs()[0], "options": {"sources": ["crossref"],
                                                    "deadline_s": 30}})
        report = orjson.loads(body)
        assert status == 200
        asked = {name for name, result in report["sources"].items()
                 if result["status"] not in ("skipped", "not_applicable")}
        assert asked == {"crossref"}


@pytest.mark.asyncio
@pytest.mark.parametrize(("raw", "status", "kind", "item"), [
    (b'{"citation": ', 400, "invalid-json", None),
    (b'{"citation": "caf\xe9"}', 400, "invalid-utf8", None),
    (b'[1, 2]', 422, "wrong-type", None),
    (b'{"citations": "x"}', 422, "wrong-type", "citations"),
    (b'{"citations": ["ok", 5]}', 422, "wrong-type", 1),
    (b'{"citation": "x", "options": {"sources": ["nope"]}}', 422, "unknown-source", "nope"),
    (b'{"citation": "x", "options": {"deadline_s": -1}}', 422, "wrong-type", "deadline_s"),
    (b'{"citation": "x", "citations": []}', 422, "wrong-shape", None),
    (b'{"citation": {"title": 5}}', 422, "unreadable-citation", {"title": 5}),
])
async def test_bad_requests_get_a_problem_naming_the_offending_item(
        tmp_path: Path, raw: bytes, status: int, kind: str, item: object) -> None:
    async with running_service(tmp_path) as running:
        got, headers, body = await post(running, "/v1/citations/check", None, raw=raw)
        problem = orjson.loads(body)
        assert got == status and headers["Content-Type"] == "application/problem+json"
        assert problem["type"].endswith("/" + kind) and problem["status"] == status
        assert problem["title"] and problem["detail"]
        assert problem.get("item") == item


@pytest.mark.asyncio
async def test_huge_bodies_and_batches_get_413(tmp_path: Path) -> None:
    async with running_service(tmp_path, max_body_bytes=4096, max_batch=3) as running:
        status, _, body = await post(running, "/v1/citations/check",
                                     {"citation": "x" * 10_000})
        assert status == 413 and orjson.loads(body)["type"].endswith("/body-too-large")
        status, _, body = await post(running, "/v1/citations/check",
                                     {"citations": ["a b c"] * 4})
        assert status == 413 and orjson.loads(body)["type"].endswith("/batch-too-large")


@pytest.mark.asyncio
async def test_the_api_needs_a_valid_key_and_the_page_does_not(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        assert (await get(running, "/v1/sources", key=None))[0] == 401
        status, headers, _ = await get(running, "/v1/sources", key="wrong-key")
        assert status == 401 and headers["WWW-Authenticate"] == "Bearer"
        assert (await get(running, "/v1/sources", key=OTHER_KEY))[0] == 200
        assert (await get(running, "/", key=None))[0] == 200
        assert (await get(running, "/healthz", key=None))[0] == 200
        status, _, body = await get(running, "/readyz", key=None)
        assert status == 200 and orjson.loads(body) == {"status": "ready"}
        status, headers, body = await get(running, "/static/page.js", key=None)
        assert status == 200 and headers["Content-Type"].startswith("text/javascript")
        assert b"/v1/citations/check" in body and b"http" not in body.replace(
            b"application/x-ndjson", b"")  # no request to anywhere else
        assert (await get(running, "/static/secret.txt", key=None))[0] == 404


def test_open_access_is_refused_off_loopback(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="loopback"):
        ServiceConfig(data_dir=tmp_path, open_access=True, host="0.0.0.0")
    assert ServiceConfig(data_dir=tmp_path, open_access=True, host="::1").open_access


def test_keys_are_compared_whole_and_named_by_a_label() -> None:
    ring = KeyRing(("alpha-key", "beta-key"), open_access=False)
    assert ring.caller("Bearer beta-key") == key_label("beta-key")
    assert "beta-key" not in key_label("beta-key")
    for header in ("Bearer beta-ke", "Bearer beta-key2", "Basic beta-key", "beta-key", None):
        assert ring.caller(header) is None
    assert KeyRing((), open_access=True).caller(None) == "open"


def test_caller_limits_refuse_beyond_rate_and_concurrency_with_a_wait() -> None:
    now = [0.0]
    limits = CallerLimits(concurrency=2, rate=1.0, burst=3, clock=lambda: now[0])
    assert limits.acquire("a") == 0.0 and limits.acquire("a") == 0.0
    assert limits.acquire("a") > 0  # two in flight
    assert limits.acquire("b") == 0.0  # another caller is not held back
    limits.release("a")
    assert limits.acquire("a") == 0.0  # third token of the burst
    limits.release("a")
    limits.release("a")
    wait = limits.acquire("a")  # bucket empty
    assert wait == pytest.approx(1.0)
    now[0] += 1.0
    assert limits.acquire("a") == 0.0


@pytest.mark.asyncio
async def test_a_key_over_its_rate_gets_429_with_retry_after(tmp_path: Path) -> None:
    async with running_service(tmp_path, per_key_rate=0.5, per_key_burst=2) as running:
        answers = [await get(running, "/v1/sources") for _ in range(3)]
        assert [a[0] for a in answers] == [200, 200, 429]
        assert int(answers[2][1]["Retry-After"]) >= 1
        assert orjson.loads(answers[2][2])["type"].endswith("/too-many-requests")
        assert (await get(running, "/v1/sources", key=OTHER_KEY))[0] == 200


@pytest.mark.asyncio
async def test_keys_never_reach_the_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture
                                         ) -> None:
    caplog.set_level(logging.DEBUG)
    async with running_service(tmp_path) as running:
        await get(running, "/v1/sources")
        await get(running, "/v1/sources", key="a-wrong-secret-key")
        await post(running, "/v1/citations/check", None, raw=b"{")
    text = caplog.text
    assert KEY not in text and "a-wrong-secret-key" not in text


@pytest.mark.asyncio
async def test_sources_lists_every_source_as_verifier_sources_does(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, _, body = await get(running, "/v1/sources")
        rows = orjson.loads(body)
        assert status == 200 and len(rows) == 8
        crossref = next(row for row in rows if row["name"] == "crossref")
        assert crossref["available"] and crossref["base_url"] == running.world_urls["crossref"]


@pytest.mark.asyncio
async def test_cors_is_off_unless_configured(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        _, headers, _ = await get(running, "/v1/sources", Origin="https://a.example")
        assert "Access-Control-Allow-Origin" not in headers
    async with running_service(tmp_path, cors_origins=("https://a.example",)) as running:
        _, headers, _ = await get(running, "/v1/sources", Origin="https://a.example")
        assert headers["Access-Control-Allow-Origin"] == "https://a.example"
        _, headers, _ = await get(running, "/v1/sources", Origin="https://b.example")
        assert "Access-Control-Allow-Origin" not in headers
        async with aiohttp.ClientSession() as http, http.options(
                running.url + "/v1/citations/check",
                headers={"Origin": "https://a.example",
                         "Access-Control-Request-Method": "POST"}) as preflight:
            assert preflight.status == 204
            assert "Authorization" in preflight.headers["Access-Control-Allow-Headers"]


async def wait_for_job(running: Running, job_id: str, states: tuple[str, ...] = ("done",),
                       within_s: float = 30.0) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    end = loop.time() + within_s
    while True:
        _, _, body = await get(running, f"/v1/jobs/{job_id}")
        job: dict[str, Any] = orjson.loads(body)
        if job["state"] in states or loop.time() > end:
            return job
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_a_job_runs_in_the_background_and_its_results_resume_by_offset(
        tmp_path: Path) -> None:
    refs = "\n".join(demo_refs()).encode() + b"\n\x01\x02\n"
    async with running_service(tmp_path) as running:
        status, headers, body = await post(running, "/v1/jobs?format=text", None, raw=refs)
        job = orjson.loads(body)
        assert status == 202 and headers["Location"] == f"/v1/jobs/{job['id']}"
        assert job["total"] == len(demo_refs()) + 1
        done = await wait_for_job(running, job["id"])
        assert done["state"] == "done" and done["done"] == done["total"]
        assert done["counts"]["input_error"] == 1
        assert sum(done["counts"].values()) == done["total"]
        _, headers, first = await get(running, f"/v1/jobs/{job['id']}/results?limit=5")
        assert headers["X-Next-Offset"] == "5" and len(first.splitlines()) == 5
        _, headers, rest = await get(running, f"/v1/jobs/{job['id']}/results?offset=5")
        ids = [orjson.loads(line)["id"] for line in (first + rest).splitlines()]
        assert len(ids) == len(set(ids)) == done["total"]
        assert headers["X-Next-Offset"] == str(done["total"]) and headers["X-Job-State"] == "done"


@pytest.mark.asyncio
async def test_a_retry_checks_the_inconclusive_citations_again_as_a_new_job(
        tmp_path: Path) -> None:
    refs = "\n".join(demo_refs()[:4]).encode() + b"\n"
    async with running_service(tmp_path) as running:
        _, _, body = await post(running, "/v1/jobs?format=text", None, raw=refs)
        first = await wait_for_job(running, orjson.loads(body)["id"])
        assert first["state"] == "done" and first["counts"]["inconclusive"] == 0
        status, _, body = await post(running, f"/v1/jobs/{first['id']}/retry", None, raw=b"")
        assert (status, orjson.loads(body)["type"].rsplit("/", 1)[1]) == \
            (422, "nothing-to-retry")
        # As a source outage leaves them: two of the results were inconclusive.
        results = running.app[JOBS].root / first["id"] / "results.jsonl"
        data = await asyncio.to_thread(results.read_bytes)
        lines = [orjson.loads(line) for line in data.splitlines()]
        retried = sorted(line["id"] for line in lines[1:3])
        for line in lines[1:3]:
            line["status"] = "inconclusive"
        await asyncio.to_thread(results.write_bytes,
                                b"".join(orjson.dumps(line) + b"\n" for line in lines))
        status, headers, body = await post(running, f"/v1/jobs/{first['id']}/retry", None,
                                           raw=b"")
        retry = orjson.loads(body)
        assert status == 202 and headers["Location"] == f"/v1/jobs/{retry['id']}"
        assert (retry["retry_of"], retry["total"]) == (first["id"], 2)
        done = await wait_for_job(running, retry["id"])
        assert done["state"] == "done" and done["done"] == 2
        assert done["counts"]["inconclusive"] == 0
        _, _, again = await get(running, f"/v1/jobs/{retry['id']}/results")
        assert sorted(orjson.loads(line)["id"] for line in again.splitlines()) == retried
        # The first job's lines, and so its offsets, are as they were.
        _, headers, kept = await get(running, f"/v1/jobs/{first['id']}/results")
        assert len(kept.splitlines()) == 4 and headers["X-Next-Offset"] == "4"
        refused = [
            await post(running, "/v1/jobs/nope/retry", None, raw=b""),
            await post(running, f"/v1/jobs/{first['id']}/retry?sources=crossref", None,
                       raw=b""),
            await post(running, f"/v1/jobs/{first['id']}/retry", None, raw=b"x"),
            await post(running, f"/v1/jobs/{first['id']}/retry", None, raw=b"", key=None),
        ]
    assert [(s, orjson.loads(b)["type"].rsplit("/", 1)[1]) for s, _, b in refused] == [
        (404, "no-such-job"), (422, "unknown-field"), (422, "unexpected-body"),
        (401, "unauthorized")]


@pytest.mark.asyncio
async def test_a_job_file_saved_as_utf16_is_recognised_and_read(tmp_path: Path) -> None:
    table = "id,citation_text\n" + "".join(
        f'r{n},"{ref}"\n' for n, ref in enumerate(demo_refs()[:3]))
    async with running_service(tmp_path) as running:
        # No format and no file name: the format is sniffed from the text, not the bytes.
        status, _, body = await post(running, "/v1/jobs", None,
                                     raw=table.encode("utf-16"))
        assert status == 202
        done = await wait_for_job(running, orjson.loads(body)["id"])
        assert done["state"] == "done" and done["total"] == 3
        assert done["counts"].get("input_error", 0) == 0
        _, _, lines = await get(running, f"/v1/jobs/{done['id']}/results")
        assert sorted(orjson.loads(line)["id"] for line in lines.splitlines()) == \
            ["r0", "r1", "r2"]


@pytest.mark.asyncio
async def test_a_job_in_an_unknown_format_or_of_an_unknown_id_is_a_problem(
        tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        status, _, body = await post(running, "/v1/jobs?format=docx", None, raw=b"x")
        assert status == 422 and orjson.loads(body)["item"] == "docx"
        status, _, body = await get(running, "/v1/jobs/nope")
        assert status == 404 and orjson.loads(body)["item"] == "nope"
        status, _, _ = await post(running, "/v1/jobs?sources=nope", None, raw=b"x y z")
        assert status == 422


@pytest.mark.asyncio
async def test_a_query_parameter_it_would_ignore_or_a_file_with_no_citation_is_refused(
        tmp_path: Path) -> None:
    refs = "\n".join(demo_refs()[:2]).encode()
    async with running_service(tmp_path) as running:
        refused = [
            await post(running, "/v1/jobs?source=crossref", None, raw=refs),  # not 'sources'
            await post(running, "/v1/jobs?format=bibtex", None, raw=refs),  # reads as nothing
            await post(running, "/v1/render?fromat=html", None, raw=b""),
        ]
        status, _, body = await get(running, "/v1/jobs/x/results?ofset=5")
        refused.append((status, {}, body))
        jobs_dir = running.app[JOBS].root
        accepted, _, _ = await post(running, "/v1/jobs?format=text&sources=crossref", None,
                                    raw=refs)
    problems = [(status, orjson.loads(body)) for status, _, body in refused]
    assert [(s, p["type"].rsplit("/", 1)[1], p.get("item")) for s, p in problems] == [
        (422, "unknown-field", "source"), (422, "no-citations", "bibtex"),
        (422, "unknown-field", "fromat"), (422, "unknown-field", "ofset")]
    assert "sources" in problems[0][1]["detail"]  # the known parameters are listed
    assert accepted == 202
    assert len([p for p in jobs_dir.iterdir() if p.is_dir()]) == 1  # refused: no job made


@pytest.mark.asyncio
async def test_render_turns_report_lines_into_csv_and_corrected_bibtex(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        _, _, body = await post(running, "/v1/citations/check",
                                {"citations": demo_refs()[:3]}, Accept="application/x-ndjson")
        status, headers, csv_body = await post(running, "/v1/render?format=csv", None,
                                               raw=body)
        assert status == 200 and headers["Content-Type"].startswith("text/csv")
        assert len(csv_body.decode().splitlines()) == 4
        _, _, bib = await post(running, "/v1/render?format=bibtex", None, raw=body)
        assert bib.count(b"\n@") + bib.startswith(b"@") >= 1
        status, _, _ = await post(running, "/v1/render?format=csv", None, raw=b"not json\n")
        assert status == 422
        # A line of the wrong shape is named, not a 500 from deep in a format.
        wrong = body.splitlines()[0] + b"\n" + orjson.dumps(
            {"status": "verified", "discrepancies": [5]})
        for fmt in ("csv", "markdown"):
            status, _, problem = await post(running, f"/v1/render?format={fmt}", None,
                                            raw=wrong)
            assert status == 422 and orjson.loads(problem)["item"] == 2
            assert "'discrepancies' must be a list of objects" in orjson.loads(problem)[
                "detail"]


@pytest.mark.asyncio
async def test_metrics_count_requests_sources_citations_and_jobs(tmp_path: Path) -> None:
    async with running_service(tmp_path) as running:
        await post(running, "/v1/citations/check", {"citation": demo_refs()[0]})
        await post(running, "/v1/citations/check", {"citation": demo_refs()[0]})
        await get(running, "/v1/sources", key=None)
        status, headers, body = await get(running, "/metrics", key=None)
        text = body.decode()
        assert status == 200 and headers["Content-Type"].startswith("text/plain")
        assert ('verifier_http_requests_total{method="POST",route="/v1/citations/check",'
                'status="200"} 2.0') in text
        assert 'verifier_http_refused_total{reason="401"} 1.0' in text
        assert 'verifier_citations_decided_total{status="verified",via="request"} 2.0' in text
        assert 'verifier_http_request_duration_seconds_bucket{le="+Inf",' \
               'route="/v1/citations/check"} 2.0' in text
        requests = float(re.search(r'verifier_source_requests_total\{source="crossref"\} (\S+)',
                                   text).group(1))  # type: ignore[union-attr]
        assert requests >= 1
        assert 'verifier_source_breaker_open{source="crossref"} 0.0' in text
        assert 'verifier_jobs{state="running"} 0.0' in text
        assert "verifier_source_cache_hits_total" in text
        assert "verifier_citations_started_total 2.0" in text
        assert "verifier_citations_in_progress 0.0" in text
        assert "verifier_source_throttled_total" in text and "verifier_source_retries_total" in text
