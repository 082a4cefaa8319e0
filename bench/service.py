"""The service under load and faults: requests per second and latency from a warm cache,
memory, and what each fault case does.

    verifier bench service [--json FILE] [--requests N] [--clients N]

Everything runs on loopback, bounded: the offline world (demo corpus, sped up 20x) in a
child process, ``verifier serve`` in another (with an API key), and this process as the
clients. After one pass that warms the service's cache, ``--clients`` clients send
``--requests`` single-citation checks in all; requests/s is requests over wall time, and
p50/p99 the per-request latencies. ``rss_mb`` is the service's resident memory after the
load (``rss_peak_mb`` its peak). Then the fault cases, each ``"ok"`` or why not:

=====================  ==============================================================
malformed_json         400 problem                 wrong_types        422 naming the item
huge_body              413 (a 21 MB body)          invalid_utf8       400
unknown_source         422 naming the source       batch_too_large    413
no_key                 401                         stream_clients     8 NDJSON streams whole
disconnect_mid_stream  checks in progress fall to 0, no more start
slow_reader            the service stops deciding while unread; memory stays within 50 MB
kill9_resume           kill -9 mid-job, restart: the job ends with every line once
sigterm_graceful       SIGTERM mid-job: exit 0 within the grace, lines whole
=====================  ==============================================================
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from bench_args import result_file

from verifier.world.demo import demo_files
from verifier.world.process import world_process

KEY = "bench-key-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}


def _status_kb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Service:
    """``verifier serve`` in a child process."""

    def __init__(self, world_url: str, data_dir: Path, cache: Path) -> None:
        self.world_url, self.data_dir, self.cache = world_url, data_dir, cache
        self.child: asyncio.subprocess.Process | None = None
        self.url = ""

    async def start(self) -> None:
        env = {**os.environ, "VERIFIER_SERVICE_KEYS": KEY}
        self.child = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "verifier", "serve", "--port", "0", "--quiet",
            "--world", self.world_url, "--data-dir", str(self.data_dir),
            "--cache-dir", str(self.cache), "--mailto", "bench@example.org",
            "--time-scale", "20", "--key-rate", "100000", "--key-concurrency", "1000",
            "--grace", "5", env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE)
        assert self.child.stdout is not None
        self.url = orjson.loads(await asyncio.wait_for(self.child.stdout.readline(), 60))[
            "ready"]

    @property
    def pid(self) -> int:
        assert self.child is not None
        return self.child.pid

    async def stop(self) -> int:
        if self.child is None:
            return 0
        if self.child.returncode is not None:
            return self.child.returncode
        self.child.send_signal(signal.SIGTERM)
        return await asyncio.wait_for(self.child.wait(), 30)

    async def kill(self) -> None:
        assert self.child is not None
        os.kill(self.child.pid, signal.SIGKILL)
        await self.child.wait()


async def _post(http: aiohttp.ClientSession, url: str, body: bytes,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    async with http.post(url, data=body, headers={**AUTH, "Content-Type": "application/json",
                                                  **(headers or {})}) as response:
        return response.status, await response.read()


async def _metric(http: aiohttp.ClientSession, url: str, name: str) -> float:
    async with http.get(url + "/metrics") as response:
        for line in (await response.text()).splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return float("nan")


async def load(service: Service, refs: list[str], requests: int, clients: int
               ) -> dict[str, Any]:
    latencies: list[float] = []
    url = service.url + "/v1/citations/check"
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as http:
        status, _ = await _post(http, url, orjson.dumps({"citations": refs}))  # warm
        assert status == 200, status
        counter = iter(range(requests))

        async def client() -> None:
            for n in counter:
                body = orjson.dumps({"citation": refs[n % len(refs)]})
                started = time.perf_counter()
                status, _ = await _post(http, url, body)
                latencies.append(time.perf_counter() - started)
                if status != 200:
                    raise RuntimeError(f"status {status}")

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        wall = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": requests, "clients": clients,
        "requests_per_s": round(requests / wall, 1),
        "latency_p50_s": round(statistics.median(latencies), 5),
        "latency_p99_s": round(latencies[min(len(latencies) - 1,
                                             int(0.99 * len(latencies)))], 5),
        "rss_mb": round(_status_kb(service.pid, "VmRSS"), 1),
        "rss_peak_mb": round(_status_kb(service.pid, "VmHWM"), 1),
    }


# -- fault cases ----------------------------------------------------------------------


async def _problem_case(service: Service, body: bytes, status: int, kind: str,
                        item: object = None) -> str:
    async with aiohttp.ClientSession() as http:
        try:
            got, answer = await _post(http, service.url + "/v1/citations/check", body)
        except aiohttp.ClientError as exc:
            return f"client error {type(exc).__name__}"
    if got != status:
        return f"status {got}, expected {status}"
    problem = orjson.loads(answer)
    if not str(problem.get("type", "")).endswith("/" + kind):
        return f"problem type {problem.get('type')!r}"
    if item is not None and problem.get("item") != item:
        return f"item {problem.get('item')!r}, expected {item!r}"
    return "ok"


async def no_key(service: Service) -> str:
    async with aiohttp.ClientSession() as http, http.get(service.url + "/v1/sources") as r:
        return "ok" if r.status == 401 else f"status {r.status}"


async def stream_clients(service: Service, refs: list[str]) -> str:
    async def one(batch: list[str]) -> int:
        async with aiohttp.ClientSession() as http, http.post(
                service.url + "/v1/citations/check", json={"citations": batch},
                headers={**AUTH, "Accept": "application/x-ndjson"}) as response:
            return sum([1 async for _ in response.content])

    batches = [[refs[(i + n) % len(refs)] for i in range(100)] for n in range(8)]
    counts = await asyncio.gather(*(one(batch) for batch in batches))
    return "ok" if counts == [100] * 8 else f"lines per stream {counts}"


async def disconnect_mid_stream(service: Service) -> str:
    citations = [f"Nobody, A. (2001). An unheld title {n}. Journal of Nothing, 3, 1-9."
                 for n in range(300)]
    async with aiohttp.ClientSession() as http:
        response = await http.post(service.url + "/v1/citations/check",
                                   json={"citations": citations},
                                   headers={**AUTH, "Accept": "application/x-ndjson"})
        await response.content.readline()
        response.close()
        for _ in range(200):
            if await _metric(http, service.url, "verifier_citations_in_progress") == 0:
                break
            await asyncio.sleep(0.05)
        else:
            return "checks still in progress 10 s after the client left"
        started = await _metric(http, service.url, "verifier_citations_started_total")
        await asyncio.sleep(0.5)
        if await _metric(http, service.url, "verifier_citations_started_total") != started:
            return "checks went on starting after the client left"
    return "ok"


async def slow_reader(service: Service, refs: list[str]) -> str:
    citations = [refs[n % len(refs)] for n in range(1000)]
    body = orjson.dumps({"citations": citations})
    host, port = service.url.removeprefix("http://").split(":")
    rss_before = _status_kb(service.pid, "VmRSS")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    reader, writer = await asyncio.open_connection(sock=sock, limit=8192)
    writer.write(f"POST /v1/citations/check HTTP/1.1\r\nHost: {host}\r\n"
                 f"Authorization: Bearer {KEY}\r\nAccept: application/x-ndjson\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                 "Connection: close\r\n\r\n".encode() + body)
    await writer.drain()
    async with aiohttp.ClientSession() as http:
        previous, stalled = -1.0, False
        for _ in range(40):
            await asyncio.sleep(0.25)
            now = await _metric(http, service.url, "verifier_citations_started_total")
            if now == previous:
                stalled = True
                break
            previous = now
        in_progress = await _metric(http, service.url, "verifier_citations_in_progress")
    rss_growth = _status_kb(service.pid, "VmRSS") - rss_before
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    lines = sum(1 for line in data.split(b"\r\n\r\n", 1)[-1].splitlines()
                if line.startswith(b"{"))
    if not stalled:
        return "the service kept deciding for 10 s with nothing read"
    if rss_growth > 50:
        return f"memory grew {rss_growth:.0f} MB while the reader paused"
    if in_progress > 16:
        return f"{in_progress:.0f} checks in progress while paused"
    return "ok" if lines == 1000 else f"{lines} lines of 1000 once read"


async def kill9_and_sigterm(service: Service, refs: list[str]) -> dict[str, str]:
    total = 3000
    document = "\n".join(refs[n % len(refs)] for n in range(total)).encode() + b"\n"
    outcome: dict[str, str] = {}
    async with aiohttp.ClientSession() as http:
        async with http.post(service.url + "/v1/jobs?format=text", data=document,
                             headers=AUTH) as response:
            job_id = (await response.json())["id"]

        async def view() -> dict[str, Any]:
            async with http.get(f"{service.url}/v1/jobs/{job_id}", headers=AUTH) as r:
                value: dict[str, Any] = await r.json()
                return value

        async def until(at_least: int, *, ended: bool = False) -> int:
            for _ in range(2400):
                job = await view()
                if job["state"] in ("done", "failed") or (
                        job["done"] >= at_least and not ended):
                    return int(job["done"])
                await asyncio.sleep(0.025)
            return int((await view())["done"])

        results = service.data_dir / "jobs" / job_id / "results.jsonl"
        await until(100)
        await service.kill()
        before_kill = results.read_bytes()
        await service.start()
        await until(len(before_kill.splitlines()) + 200)
        code = await service.stop()
        after_term = results.read_bytes()
        whole_lines = after_term.endswith(b"\n")
        outcome["sigterm_graceful"] = "ok" if code == 0 and whole_lines else \
            f"exit {code}, whole lines: {whole_lines}"
        await service.start()
        final = await until(total, ended=True)
    lines = results.read_bytes().splitlines()
    ids = [orjson.loads(line)["id"] for line in lines]
    whole = before_kill[: before_kill.rfind(b"\n") + 1]
    if final != total or len(ids) != total or len(set(ids)) != total:
        outcome["kill9_resume"] = f"{len(ids)} lines, {len(set(ids))} ids, of {total}"
    elif not results.read_bytes().startswith(whole):
        outcome["kill9_resume"] = "lines written before the kill were changed"
    else:
        outcome["kill9_resume"] = f"ok ({len(whole.splitlines())} lines before the kill)"
    return outcome


async def faults(service: Service, refs: list[str]) -> dict[str, str]:
    cases: dict[str, Callable[[], Awaitable[str]]] = {
        "malformed_json": lambda: _problem_case(service, b'{"citation": ', 400,
                                                "invalid-json"),
        "wrong_types": lambda: _problem_case(service, b'{"citations": ["a", 5]}', 422,
                                             "wrong-type", 1),
        "huge_body": lambda: _problem_case(
            service, orjson.dumps({"citation": "x" * (21 * 1024 * 1024)}), 413,
            "body-too-large"),
        "invalid_utf8": lambda: _problem_case(service, b'{"citation": "caf\xe9"}', 400,
                                              "invalid-utf8"),
        "unknown_source": lambda: _problem_case(
            service, b'{"citation": "x", "options": {"sources": ["nope"]}}', 422,
            "unknown-source", "nope"),
        "batch_too_large": lambda: _problem_case(
            service, orjson.dumps({"citations": ["a b c"] * 1001}), 413, "batch-too-large"),
        "no_key": lambda: no_key(service),
        "stream_clients": lambda: stream_clients(service, refs),
        "disconnect_mid_stream": lambda: disconnect_mid_stream(service),
        "slow_reader": lambda: slow_reader(service, refs),
    }
    outcome = {}
    for name, case in cases.items():
        try:
            outcome[name] = await case()
        except Exception as exc:
            outcome[name] = f"failed: {type(exc).__name__}: {exc}"
    try:
        outcome.update(await kill9_and_sigterm(service, refs))
    except Exception as exc:
        outcome["kill9_resume"] = f"failed: {type(exc).__name__}: {exc}"
    return outcome


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with demo_files() as demo, tempfile.TemporaryDirectory(prefix="bench-service-") as tmp:
        refs = [line.strip() for line in demo.refs.read_text().splitlines() if line.strip()]
        async with world_process(None, time_scale=20.0) as world:
            service = Service(world.url, Path(tmp) / "data", Path(tmp) / "cache")
            await service.start()
            try:
                figures = await load(service, refs, args.requests, args.clients)
                figures["faults"] = await faults(service, refs)
            finally:
                await service.stop()
    figures["setup"] = ("offline world (demo corpus, time scale 20) and verifier serve in "
                        "child processes on loopback; single-citation requests from a warm "
                        "cache")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(prog="verifier bench service", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=result_file, metavar="FILE", help="write the figures here")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    figures = asyncio.run(run(args))
    text = orjson.dumps(figures, option=orjson.OPT_INDENT_2)
    if args.json:
        args.json.write_bytes(text + b"\n")
    sys.stdout.write(text.decode() + "\n")
    bad = [name for name, value in figures["faults"].items() if not value.startswith("ok")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
