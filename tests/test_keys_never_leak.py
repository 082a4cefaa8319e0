"""No key anywhere: a key-shaped sentinel set as every source's key, every fault of the
world on every source (redirect loops and redirects to another host included), and the
sentinel looked for in the output, the cache folder and stderr (where logs go too)
(issue 9, item 5).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from verifier.world import Corpus, serve_world
from verifier.world.faults import FAULTS, Scenario

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "verifier" / "world" / "demo"
SENTINEL = "sk-SENTINEL-9d1e5b"
KEY_VARIABLES = ("CROSSREF_PLUS_TOKEN", "OPENALEX_API_KEY", "NCBI_API_KEY", "S2_API_KEY",
                 "GOOGLE_BOOKS_API_KEY")


def every_fault_on_every_source() -> Scenario:
    """Each service's (2n-1)-th request gets the n-th fault of the world's list, each once
    (a normal answer between two faults keeps the breakers shut); OpenAlex (a key in the
    query) also redirects in a loop on every even-numbered request from its second, so
    the loop is met however few requests the run sends it."""
    windows: list[dict[str, object]] = [
        {"source": "openalex", "from_request": 2, "every": 2, "fault": "redirect_loop"}]
    for number, fault in enumerate(sorted(FAULTS)):
        window: dict[str, object] = {"source": "*", "from_request": 2 * number + 1,
                                     "count": 1, "fault": fault}
        if fault == "slow":
            window["delay"] = 0.3
        if fault == "429" or fault.startswith("5"):
            window["retry_after"] = 0.2
        windows.append(window)
    return Scenario.from_json({"windows": windows}, origin="every fault")


async def run_cli(base_urls: dict[str, str], work: Path) -> tuple[int, bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIER_")}
    env.update(dict.fromkeys(KEY_VARIABLES, SENTINEL))
    env["VERIFIER_MAILTO"] = "tests@example.org"
    env["XDG_CACHE_HOME"] = str(work / "user-cache")  # the compiled-pattern store goes here
    args = [sys.executable, "-m", "verifier", "check", str(DEMO / "refs.txt"),
            "--format", "text", "--output", str(work / "out.jsonl"),
            "--cache-dir", str(work / "cache"), "--deadline", "25", "--concurrency", "17"]
    for name, url in base_urls.items():
        args += ["--base-url", f"{name}={url}"]
    process = await asyncio.create_subprocess_exec(
        *args, env=env, cwd=work, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, output


@pytest.mark.slow
@pytest.mark.blocking_allowed("reads the corpus, the output and the cache files")
@pytest.mark.asyncio
async def test_no_key_in_output_cache_or_stderr_under_every_fault(tmp_path: Path) -> None:
    corpus = Corpus.load(DEMO / "corpus.jsonl")
    async with serve_world(corpus, scenario=every_fault_on_every_source()) as world:
        code, stderr = await run_cli(world.base_urls, tmp_path)
        faults = {entry.fault for entry in world.requests if entry.fault}
    assert code in (0, 1, 3), stderr.decode(errors="replace")[-3000:]
    # The faults were met, the redirect loop and the redirect to another host with them.
    assert {"redirect_loop", "redirect_host", "429", "503", "down", "malformed"} <= faults
    output = (tmp_path / "out.jsonl").read_bytes()
    assert output.count(b"\n") == 17
    assert b"redirect" in output.lower()  # the loop's error is reported, without its key
    places = {"stderr": stderr, "out.jsonl": output}
    for folder in ("cache", "user-cache"):
        for path in (tmp_path / folder).rglob("*"):
            if path.is_file():
                places[str(path.relative_to(tmp_path))] = path.read_bytes()
    assert len(places) > 2  # the cache was written
    assert any(name.startswith("user-cache/") for name in places)  # and the pattern store
    leaks = [name for name, data in places.items() if SENTINEL.encode() in data]
    assert leaks == []
