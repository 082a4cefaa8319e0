"""A controlled clock for in-memory tests: an event loop whose time jumps straight to the
next timer when every task is waiting on one (and otherwise moves a nanosecond a turn).

``run_virtual(coro)`` runs a coroutine on such a loop. Timers (``asyncio.sleep``,
``asyncio.timeout``, aiolimiter's waits) fire in order at their exact virtual times, so a
test of pacing, backoff or a breaker cooldown asserts exact instants and takes
milliseconds. Only for code that does no real I/O (use ``MockTransport``).
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, loop: VirtualClockLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events = super().select(0)
        if not events:
            # Time always moves a little, as a real clock does: a limiter that finds a
            # due timer still a rounding error short of its level would otherwise wait
            # for ever at one instant.
            self._loop.advance(max(timeout or 0.0, 1e-9))
        return events


class VirtualClockLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._now = 0.0
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds


def run_virtual(coro: Coroutine[Any, Any, T]) -> T:
    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        return runner.run(coro)
