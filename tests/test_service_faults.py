"""The service under load and faults, on loopback, bounded: concurrent streaming clients, a
client that goes away mid-stream, a slow reader, a restart mid-job (graceful, then kill -9
of a real ``verifier serve`` process): the job resumes, no line lost or written twice."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from service_helpers import KEY, Running, demo_refs, running_service
from world_helpers import DEMO_CORPUS

from verifier.world import serve_world
from verifier.world.process import world_process

pytestmark = pytest.mark.asyncio


async def stream(running: Running, citations: list[str]) -> list[dict[str, Any]]:
    async with aiohttp.ClientSession() as http, http.post(
            running.url + "/v1/citations/check", json={"citations": citations},
            headers=running.headers(Accept="application/x-ndjson")) as response:
        assert response.status == 200
        return [orjson.loads(line) async for line in response.content]


def cycled(n: int) -> list[str]:
    refs = demo_refs()
    return [refs[i % len(refs)] for i in range(n)]


async def test_concurrent_clients_each_get_every_line_of_their_stream(tmp_path: Path) -> None:
    async with running_service(tmp_path, per_key_concurrency=16) as running:
        batches = [cycled(17 + n) for n in range(8)]
        results = await asyncio.gather(*(stream(running, batch) for batch in batches))
        for batch, lines in zip(batches, results, strict=True):
            assert sorted(line["index"] for line in lines) == list(range(len(batch)))
        stats = running.session.stats
        assert stats.started == stats.finished == sum(len(b) for b in batches)


def ours() -> int:
    """Tasks in the loop, less the servers' connection handlers (the world's keep-alive
    connections from the session come and go on their own)."""
    return sum(1 for task in asyncio.all_tasks()
               if "RequestHandler.start" not in repr(task.get_coro()))


async def test_a_client_that_disconnects_mid_stream_cancels_its_work(tmp_path: Path) -> None:
    # Real pace (time scale 1) and titles no source holds: each check takes a while.
    citations = [f"Nobody, A. (2001). An unheld title number {n}. Journal of Nothing, 3, 1-9."
                 for n in range(120)]
    async with serve_world(DEMO_CORPUS, time_scale=1.0) as world, \
            running_service(tmp_path, world_urls=world.base_urls, check_concurrency=8,
                            per_key_concurrency=4) as running:
        stats = running.session.stats
        baseline = ours()
        http = aiohttp.ClientSession()
        try:
            response = await http.post(running.url + "/v1/citations/check",
                                       json={"citations": citations},
                                       headers=running.headers(Accept="application/x-ndjson"))
            assert response.status == 200
            await asyncio.sleep(0.5)
            assert stats.started > stats.finished  # work in progress
            response.close()  # the client goes away
        finally:
            await http.close()
        for _ in range(100):
            if stats.started == stats.finished and ours() <= baseline:
                break
            await asyncio.sleep(0.05)
        assert stats.started == stats.finished  # every started check ended (cancelled)
        assert stats.started < len(citations)  # ... and no more were started
        assert ours() <= baseline  # no task left behind
        started = stats.started
        await asyncio.sleep(0.3)
        assert stats.started == started
        # The key's concurrency slot was given back: the same key is served again.
        async with aiohttp.ClientSession() as again, again.get(
                running.url + "/v1/sources", headers=running.headers()) as response:
            assert response.status == 200


@pytest.mark.slow
async def test_a_slow_reader_holds_back_the_work_not_the_memory(tmp_path: Path) -> None:
    citations = cycled(400)
    async with running_service(tmp_path, per_key_concurrency=4, check_concurrency=16,
                               send_buffer=16384) as running:
        await stream(running, demo_refs())  # warm the cache: the batch is then quick
        stats = running.session.stats
        before = stats.finished
        body = orjson.dumps({"citations": citations})
        host, port = running.url.removeprefix("http://").split(":")
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
        reader, writer = await asyncio.open_connection(sock=sock, limit=8192)
        try:
            writer.write(f"POST /v1/citations/check HTTP/1.1\r\nHost: {host}\r\n"
                         f"Authorization: Bearer {KEY}\r\nAccept: application/x-ndjson\r\n"
                         f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                         "Connection: close\r\n\r\n".encode() + body)
            await writer.drain()
            decided = -1
            for _ in range(40):  # read nothing until the server stops deciding
                await asyncio.sleep(0.25)
                if stats.finished - before == decided:
                    break
                decided = stats.finished - before
            # Stopped at the reader's pace: what is decided but unread is a few buffers'
            # worth of lines (kernel and aiohttp buffers) and the checks in progress.
            assert 0 < decided < 200
            assert stats.started - stats.finished <= 16
            data = await reader.read()  # now read it all
        finally:
            writer.close()
            await writer.wait_closed()
        lines = [line for line in data.split(b"\r\n\r\n", 1)[1].splitlines()
                 if line.startswith(b"{")]
        assert sorted(orjson.loads(line)["index"] for line in lines) == list(range(400))


async def job_view(running: Running, job_id: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as http, http.get(
            f"{running.url}/v1/jobs/{job_id}", headers=running.headers()) as response:
        value: dict[str, Any] = await response.json()
        return value


async def test_a_job_stopped_by_a_shutdown_resumes_on_the_next_start(tmp_path: Path) -> None:
    refs = "\n".join(cycled(300)).encode() + b"\n"
    async with serve_world(DEMO_CORPUS, time_scale=20.0) as world:
        async with running_service(tmp_path, world_urls=world.base_urls,
                                   check_concurrency=1, job_workers=1) as running:
            async with aiohttp.ClientSession() as http, http.post(
                    running.url + "/v1/jobs", data=refs, headers=running.headers()) as r:
                job_id = (await r.json())["id"]
            for _ in range(1500):
                if (await job_view(running, job_id))["done"] >= 20:
                    break
                await asyncio.sleep(0.02)
        results = tmp_path / "data" / "jobs" / job_id / "results.jsonl"
        meta = orjson.loads((tmp_path / "data" / "jobs" / job_id / "job.json").read_bytes())
        written = results.read_bytes()
        assert meta["state"] == "running" and written.endswith(b"\n")
        assert 20 <= len(written.splitlines()) < 300
        async with running_service(tmp_path, world_urls=world.base_urls,
                                   check_concurrency=4) as running:
            view = await job_view(running, job_id)
            for _ in range(600):
                if view["state"] == "done":
                    break
                await asyncio.sleep(0.05)
                view = await job_view(running, job_id)
            assert view["state"] == "done" and view["done"] == 300
    after = results.read_bytes()
    assert after.startswith(written)  # nothing written before was touched
    ids = [orjson.loads(line)["id"] for line in after.splitlines()]
    assert len(ids) == len(set(ids)) == 300


async def _start_serve(data_dir: Path, world_url: str, cache: Path) -> tuple[
        asyncio.subprocess.Process, str]:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "verifier", "serve", "--port", "0", "--open", "--quiet",
        "--world", world_url, "--data-dir", str(data_dir), "--cache-dir", str(cache),
        "--mailto", "tests@example.org", "--concurrency", "1", "--job-workers", "1",
        "--time-scale", "20", "--grace", "2",
        stdout=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL)
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), 60)
    return child, orjson.loads(line)["ready"]


async def _api(url: str, method: str = "GET", data: bytes | None = None) -> Any:
    async with aiohttp.ClientSession() as http, http.request(method, url, data=data) as r:
        return await r.json()


async def _wait_done(url: str, job_id: str, at_least: int, *, final: bool = False
                     ) -> dict[str, Any]:
    """The job once ``at_least`` lines are written (and, if ``final``, once it ended)."""
    for _ in range(1200):
        view: dict[str, Any] = await _api(f"{url}/v1/jobs/{job_id}")
        ended = view["state"] in ("done", "failed", "cancelled")
        if ended or (view["done"] >= at_least and not final):
            return view
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} stuck at {view}")


@pytest.mark.slow
async def test_sigterm_then_kill_9_mid_job_lose_and_repeat_no_line(tmp_path: Path) -> None:
    data_dir, cache = tmp_path / "data", tmp_path / "cache"
    refs = "\n".join(cycled(400)).encode() + b"\n"
    async with world_process(None, time_scale=20.0) as world:
        child, url = await _start_serve(data_dir, world.url, cache)
        try:
            job_id = (await _api(f"{url}/v1/jobs", "POST", refs))["id"]
            await _wait_done(url, job_id, 30)
            child.send_signal(signal.SIGTERM)  # graceful: stops, keeps what was decided
            assert await asyncio.wait_for(child.wait(), 30) == 0
            results = data_dir / "jobs" / job_id / "results.jsonl"
            after_term = results.read_bytes()
            assert after_term.endswith(b"\n") and len(after_term.splitlines()) >= 30

            child, url = await _start_serve(data_dir, world.url, cache)
            await _wait_done(url, job_id, len(after_term.splitlines()) + 30)
            os.kill(child.pid, signal.SIGKILL)  # no chance to flush or save anything
            await child.wait()
            after_kill = results.read_bytes()
            assert after_kill.startswith(after_term)

            child, url = await _start_serve(data_dir, world.url, cache)
            view = await _wait_done(url, job_id, 400, final=True)
            assert view["state"] == "done" and view["done"] == view["total"] == 400
        finally:
            if child.returncode is None:
                child.terminate()
                await child.wait()
    lines = results.read_bytes().splitlines()
    ids = [orjson.loads(line)["id"] for line in lines]
    assert len(ids) == len(set(ids)) == 400
    complete = after_kill[: after_kill.rfind(b"\n") + 1]
    assert results.read_bytes().startswith(complete)
