"""The world as a package of its own: what it imports, its entry points, its demo data,
and the world run in a child process (started, used, stopped, never orphaned)."""

from __future__ import annotations

import ast
import asyncio
import collections
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import aiohttp
import orjson
import pytest
from test_import_rules import WORLD_MAY_IMPORT
from world_helpers import DEMO_DIR

from verifier.world.process import WorldStartError, world_process

ROOT = Path(__file__).resolve().parents[1]
WORLD = ROOT / "verifier" / "world"
ALLOWED = WORLD_MAY_IMPORT
"""What of ``verifier`` the world may import (one list, in ``test_import_rules``)."""


def _package_of(path: Path) -> str:
    """The package a module file belongs to (its own name for an ``__init__.py``)."""
    return ".".join(path.parent.relative_to(ROOT).parts)


def _imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``source``, a module of
    ``package`` (relative imports resolved against it)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.append((node.lineno, module))
    return found


def test_the_world_imports_nothing_of_the_engine() -> None:
    modules = sorted(WORLD.rglob("*.py"))
    assert len(modules) > 15  # the walk found the package
    bad = [f"{path.relative_to(ROOT)}:{line}: {name}"
           for path in modules
           for line, name in _imported_modules(path.read_text(encoding="utf-8"),
                                               _package_of(path))
           if (name == "verifier" or name.startswith("verifier."))
           and not any(name == ok or name.startswith(ok + ".") for ok in ALLOWED)]
    assert bad == []


def test_the_import_check_resolves_relative_imports() -> None:
    # The check itself must see an upward import written relatively.
    source = "from ..citations import checker\nfrom .corpus import Corpus\nimport adapters\n"
    names = [name for _, name in _imported_modules(source, "verifier.world")]
    assert names == ["verifier.citations", "verifier.world.corpus", "adapters"]
    assert _package_of(WORLD / "demo" / "__init__.py") == "verifier.world.demo"
    assert _package_of(WORLD / "pubmed.py") == "verifier.world"


def test_the_parser_knows_every_service_the_server_serves() -> None:
    from verifier.world.cli import SERVICE_NAMES
    from verifier.world.server import SERVICES

    assert tuple(SERVICES) == SERVICE_NAMES


def test_python_dash_m_verifier_world_serve_help_lists_the_options() -> None:
    done = subprocess.run([sys.executable, "-m", "verifier.world", "serve", "--help"],
                          capture_output=True, text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m verifier.world serve")
    for option in ("--corpus", "--demo", "--time-scale", "--scenario", "--ready-json"):
        assert option in done.stdout


def test_the_console_script_is_declared_and_runs_the_world_main() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["verifier-world"] == "verifier.world.cli:main"
    from verifier.world.cli import main

    assert main(["serve", "--corpus", "/nonexistent/corpus.jsonl"]) == 2


# ----------------------------------------------------------------------------- demo data


def test_the_demo_data_is_declared_package_data() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = project["tool"]["setuptools"]
    assert "verifier.world.demo" in tool["packages"]
    shipped = set(tool["package-data"]["verifier.world.demo"])
    data = {p.name for p in DEMO_DIR.iterdir() if p.suffix in (".jsonl", ".txt")}
    assert data == {"corpus.jsonl", "refs.txt"} and data <= shipped
    assert not (ROOT / "fixtures" / "demo").exists()  # one copy, in the package


def test_demo_files_are_the_package_resources() -> None:
    from verifier.world.demo import demo_files

    with demo_files() as demo:
        assert demo.corpus.read_bytes() == (DEMO_DIR / "corpus.jsonl").read_bytes()
        assert len(demo.refs.read_text(encoding="utf-8").splitlines()) == 17


@pytest.mark.slow  # the demo runs at the published limits: ~6 s
def test_the_demo_runs_from_package_data_with_its_expected_statuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verifier.cli.main import main

    monkeypatch.chdir(tmp_path)  # nothing is read relative to a checkout
    for name in list(os.environ):
        if name.startswith("VERIFIER_"):
            monkeypatch.delenv(name)
    out = tmp_path / "demo.jsonl"
    assert main(["demo", "--quiet", "--output", str(out)]) == 1
    statuses = collections.Counter(orjson.loads(line)["status"]
                                   for line in out.read_bytes().splitlines())
    assert statuses == {"verified": 11, "unconfirmed": 3, "no_trace": 3}


# ----------------------------------------------------------------------------- the process


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) counts as gone.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_gone(pid: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.asyncio
async def test_world_process_serves_counts_and_stops_its_child() -> None:
    async with world_process(None, time_scale=10) as world:
        assert world.pid != os.getpid() and _alive(world.pid)
        assert set(world.base_urls) >= {"crossref", "openalex", "pubmed"}
        assert world.works == 52
        url = world.base_urls["crossref"] + "/works/10.1038/171737a0"
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            assert response.status == 200
            body = await response.json()
        assert body["message"]["DOI"].lower() == "10.1038/171737a0"
        stats = await world.stats()
        assert stats == {"requests": 1, "throttled": 0, "by_source": {"crossref": 1},
                         "throttled_by_source": {}}
        pid = world.pid
    assert not _alive(pid)
    stopped = [orjson.loads(line) for line in world.output if line.startswith("{")]
    assert stopped[-1]["event"] == "stopped" and stopped[-1]["requests"] == 1


@pytest.mark.asyncio
async def test_an_exception_in_the_block_still_stops_the_child() -> None:
    pid = 0
    with pytest.raises(ZeroDivisionError):
        async with world_process(None) as world:
            pid = world.pid
            raise ZeroDivisionError
    assert pid and not _alive(pid)


@pytest.mark.asyncio
async def test_a_cancelled_block_still_stops_the_child() -> None:
    started: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def use_world() -> None:
        async with world_process(None) as world:
            started.set_result(world.pid)
            await asyncio.sleep(3600)

    task = asyncio.create_task(use_world())
    pid = await asyncio.wait_for(started, 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not _alive(pid)


@pytest.mark.asyncio
async def test_a_world_that_cannot_start_raises_and_leaves_nothing(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    with pytest.raises(WorldStartError, match="exited with status 2"):
        async with world_process(broken):
            pytest.fail("the block must not run")


def test_a_parent_killed_by_sigterm_leaves_no_world_behind(tmp_path: Path) -> None:
    # The parent dies by SIGTERM's default action: no finally runs, so only the closed
    # stdin can tell the child to stop.
    parent = tmp_path / "parent.py"
    parent.write_text(
        "import asyncio\n"
        "from verifier.world.process import world_process\n"
        "async def main():\n"
        "    async with world_process(None) as world:\n"
        "        print(world.pid, flush=True)\n"
        "        await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n")
    with subprocess.Popen([sys.executable, str(parent)], stdout=subprocess.PIPE,
                          text=True) as process:
        assert process.stdout is not None
        child = int(process.stdout.readline())
        assert _alive(child)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGTERM
    assert _wait_gone(child), f"world process {child} outlived its parent"


def test_the_jitter_default_of_the_command_line_is_the_worlds() -> None:
    from verifier.world.cli import JITTER_S
    from verifier.world.limits import JITTER_S as LIMITS_JITTER_S

    assert JITTER_S == LIMITS_JITTER_S


@pytest.mark.asyncio
async def test_the_stopped_line_counts_refusals_by_source_and_the_worlds_own_lag() -> None:
    # Limits enforced: Crossref's public pool takes 5 requests a second (and one at a
    # time), so eight at once get at least three 429s.
    async with world_process(None, services=["crossref"]) as world:
        url = world.base_urls["crossref"] + "/works/10.1038/171737a0"
        async with aiohttp.ClientSession() as session:
            async def status() -> int:
                async with session.get(url) as response:
                    return response.status

            statuses = await asyncio.gather(*(status() for _ in range(8)))
        await asyncio.sleep(0.1)  # a few lag samples
    stopped = orjson.loads(next(line for line in world.output if '"stopped"' in line))
    assert sorted(statuses)[0] == 200 and statuses.count(429) >= 3
    assert stopped["requests"] == 8 and stopped["by_source"] == {"crossref": 8}
    assert stopped["throttled_by_source"] == {"crossref": statuses.count(429)}
    assert stopped["loop_lag_samples"] >= 1
    assert 0 <= stopped["loop_lag_p50_s"] <= stopped["loop_lag_p99_s"] <= \
        stopped["loop_lag_max_s"]


def test_serve_command_passes_every_option_to_the_child() -> None:
    from verifier.world.process import serve_command

    command = serve_command(Path("c.jsonl"), time_scale=10, scenario=Path("s.json"),
                            services=["crossref", "pubmed"], enforce_limits=False,
                            jitter_s=0.02, python="py")
    assert command[:4] == ["py", "-m", "verifier.world", "serve"]
    from verifier.world.cli import build_parser

    args = build_parser().parse_args(command[3:])
    assert (args.corpus, args.time_scale, args.scenario, args.services, args.no_limits,
            args.jitter_s, args.port, args.ready_json, args.stop_on_stdin_eof) == (
        Path("c.jsonl"), 10.0, Path("s.json"), ["crossref", "pubmed"], True, 0.02, 0, True,
        True)
    assert build_parser().parse_args(serve_command(None)[3:]).demo
