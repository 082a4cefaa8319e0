"""The world in a child process of its own, for measurements of the engine alone.

An engine measured against :func:`~verifier.world.server.serve_world` shares its event
loop with every stand-in service: the world's request handling, searches and limits all
delay the engine's tasks, and the benchmark measures both. :func:`world_process` runs the
same world as ``python -m verifier.world serve --port 0 --ready-json
--stop-on-stdin-eof`` and hands back its base URLs::

    async with world_process(corpus, time_scale=10) as world:
        settings = Settings(base_urls=world.base_urls, ...)
        ...
        counts = await world.stats()   # {"requests": N, "throttled": M, "by_source": ...}

Contract:

- the block starts once the child has printed its ``ready`` line (its port is bound and
  every service built); a child that exits first, or is not ready within
  ``start_timeout_s``, raises :class:`WorldStartError` (the child's own reason is on the
  inherited stderr) and is gone when the exception propagates;
- leaving the block, by any path (normal exit, exception, cancellation), sends the child
  SIGTERM, waits up to ``stop_timeout_s``, then kills it: the child has exited when the
  block has exited;
- a parent that dies without leaving the block (SIGTERM's default action, SIGKILL) closes
  the child's standard input, and the child stops on that end of file: no orphan world;
- the child runs in a session of its own, so a terminal's Ctrl-C reaches the parent,
  which stops the child as above, rather than killing the world under a running engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .cli import READY


class WorldStartError(RuntimeError):
    """The world process exited, or stayed silent, before it was ready."""


@dataclass(frozen=True, slots=True)
class WorldProcess:
    """A running world process: where it listens, and its output so far."""

    url: str
    """Root URL, ``http://127.0.0.1:PORT``."""
    port: int
    pid: int
    works: int
    """Works in the corpus it serves."""
    base_urls: dict[str, str]
    """Base URL of each service by source name (what ``Settings.base_urls`` takes)."""
    output: list[str] = field(default_factory=list)
    """Lines the child printed after its ready line (its ``stopped`` line, once stopped)."""

    async def stats(self) -> dict[str, Any]:
        """The counts of the world's request log so far (``GET /_world/stats``):
        ``requests``, ``throttled`` (status 429) and ``by_source``."""
        import aiohttp

        async with aiohttp.ClientSession() as session, \
                session.get(f"{self.url}/_world/stats") as response:
            response.raise_for_status()
            value: dict[str, Any] = await response.json()
        return value


def serve_command(
    corpus: Path | str | None,
    *,
    time_scale: float = 1.0,
    scenario: Path | str | None = None,
    services: Iterable[str] | None = None,
    enforce_limits: bool = True,
    enforce_budgets: bool = True,
    jitter_s: float | None = None,
    host: str = "127.0.0.1",
    python: str = sys.executable,
    port: int = 0,
) -> list[str]:
    """The child's command line; ``corpus=None`` serves the packaged demo corpus."""
    command = [python, "-m", "verifier.world", "serve", "--host", host, "--port", str(port),
               "--time-scale", repr(float(time_scale)), "--ready-json", "--stop-on-stdin-eof"]
    command += ["--demo"] if corpus is None else ["--corpus", str(corpus)]
    if scenario is not None:
        command += ["--scenario", str(scenario)]
    if services is not None:
        command += ["--services", *services]
    if not enforce_limits:
        command.append("--no-limits")
    if not enforce_budgets:
        command.append("--no-budgets")
    if jitter_s is not None:
        command += ["--jitter-s", repr(float(jitter_s))]
    return command


@contextlib.asynccontextmanager
async def world_process(
    corpus: Path | str | None,
    *,
    time_scale: float = 1.0,
    scenario: Path | str | None = None,
    services: Iterable[str] | None = None,
    enforce_limits: bool = True,
    enforce_budgets: bool = True,
    jitter_s: float | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    start_timeout_s: float = 120.0,
    stop_timeout_s: float = 10.0,
) -> AsyncIterator[WorldProcess]:
    """Run the world in a child process for the duration of the block (see the module
    docstring for the contract). The options are those of ``serve_world`` (``None``:
    the world's default). ``port=0`` picks a free port; a fixed one lets a later run be
    served at the same base URLs (the cache keys answers on them)."""
    command = serve_command(corpus, time_scale=time_scale, scenario=scenario,
                            services=services, enforce_limits=enforce_limits,
                            enforce_budgets=enforce_budgets,
                            jitter_s=jitter_s, host=host, port=port)
    child = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=None, start_new_session=True)
    drain: asyncio.Task[None] | None = None
    try:
        assert child.stdout is not None
        try:
            ready = await asyncio.wait_for(_ready_line(child), start_timeout_s)
        except TimeoutError:
            raise WorldStartError(f"the world process was not ready in {start_timeout_s:g}s: "
                                  f"{' '.join(command)}") from None
        world = WorldProcess(url=ready["url"], port=ready["port"], pid=child.pid,
                             works=ready["works"], base_urls=dict(ready["base_urls"]))
        drain = asyncio.create_task(_collect(child.stdout, world.output))
        yield world
    finally:
        await _stop(child, stop_timeout_s)
        if drain is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(drain, stop_timeout_s)


async def _ready_line(child: asyncio.subprocess.Process) -> dict[str, Any]:
    assert child.stdout is not None
    while line := await child.stdout.readline():
        with contextlib.suppress(orjson.JSONDecodeError):
            value = orjson.loads(line)
            if isinstance(value, dict) and value.get("event") == READY:
                return value
    status = await child.wait()
    raise WorldStartError(f"the world process exited with status {status} before it was "
                          "ready (its reason is on stderr)")


async def _collect(stream: asyncio.StreamReader, into: list[str]) -> None:
    """Read the child's output to its end, so a full pipe never blocks it."""
    while line := await stream.readline():
        into.append(line.decode(errors="replace").rstrip("\n"))


async def _stop(child: asyncio.subprocess.Process, timeout_s: float) -> None:
    """SIGTERM, a grace period, then SIGKILL; returns once the child has exited. A second
    cancellation while waiting kills the child at once."""
    if child.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        child.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(child.wait(), timeout_s)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        await child.wait()
    except BaseException:  # cancelled again while waiting: no more grace
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        raise
    finally:
        if child.stdin is not None:
            child.stdin.close()


__all__ = ["WorldProcess", "WorldStartError", "serve_command", "world_process"]
