"""Importing from a coroutine: a module half imported by another thread is waited for
off the loop, never handed out half made (verifier.http.imports)."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from verifier.http.imports import imported

_BODY = """
STARTED.set()  # the builtins the test sets
RELEASE.wait(10)
DONE = True
"""


@pytest.fixture
def slow_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module whose body waits for a release: the import stays in progress."""
    name = "verifier_test_slow_module"
    (tmp_path / f"{name}.py").write_text(_BODY)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


@pytest.mark.asyncio
async def test_a_module_another_thread_is_importing_is_waited_for_off_the_loop(
    slow_module: str,
) -> None:
    import builtins

    started, release = threading.Event(), threading.Event()
    builtins.STARTED, builtins.RELEASE = started, release  # type: ignore[attr-defined]
    try:
        other = threading.Thread(target=__import__, args=(slow_module,))
        other.start()
        assert started.wait(10)
        assert slow_module in sys.modules  # there, half made
        waiting = asyncio.create_task(imported(slow_module))
        ticks = 0
        for _ in range(20):  # the loop keeps turning while the import is in progress
            await asyncio.sleep(0.005)
            ticks += 1
        assert not waiting.done(), "a half-imported module was handed out"
        release.set()
        module = await asyncio.wait_for(waiting, 10)
        assert module.DONE is True
        assert ticks == 20
        other.join(10)
    finally:
        release.set()
        del builtins.STARTED, builtins.RELEASE  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_an_imported_module_comes_from_sys_modules_without_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_thread(*args: object, **kwargs: object) -> None:
        raise AssertionError("a thread was started for a module already imported")

    monkeypatch.setattr(asyncio, "to_thread", no_thread)
    assert await imported("json") is sys.modules["json"]
