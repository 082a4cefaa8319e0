"""A caller's deadline whose clock stops while it only waits for our own rate limits.

A citation's deadline bounds what the services make it wait: answers, retries, pauses a
service asked for. It must not be spent queueing behind the run's other citations for
our own limiter, or a large ``--concurrency`` would turn citations ``inconclusive`` for
nothing but their place in the queue. So the clock of a :class:`Deadline` stops while
every request of its owner that is under way is queued in a gate (waiting for a
concurrency slot or a rate token, :meth:`Deadline.queued`), and runs at all other times:
while a request is at the service, while retries back off, while a service's pause is
waited out, and between requests.

A fixed deadline (:meth:`Deadline.fixed`, or a plain loop time given to the paced client)
never stops: queueing counts against it, as it always did.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager

__all__ = ["Deadline", "as_deadline"]


class Deadline:
    """``budget_s`` seconds of service time from now (see the module docstring).

    Created inside the running loop. :attr:`when` is the loop time the deadline falls at
    if the clock runs on from now; :meth:`scope` cancels the block it wraps at
    ``when + grace_s``, moving with the deadline.
    """

    __slots__ = ("_end", "_fixed", "_frozen_at", "_loop", "_outstanding", "_queued",
                 "_watchers", "budget_s")

    def __init__(self, budget_s: float) -> None:
        self._loop = asyncio.get_running_loop()
        self.budget_s = budget_s
        self._end = self._loop.time() + budget_s
        self._fixed = False
        self._outstanding = 0
        self._queued = 0
        self._frozen_at: float | None = None
        self._watchers: list[Callable[[float | None], None]] = []

    @classmethod
    def fixed(cls, when: float) -> Deadline:
        """A deadline at loop time ``when`` whose clock never stops."""
        deadline = cls(0.0)
        deadline._end = when
        deadline._fixed = True
        return deadline

    @property
    def when(self) -> float:
        """The loop time the deadline falls at if its clock runs on from now."""
        if self._frozen_at is not None:
            return self._end + (self._loop.time() - self._frozen_at)
        return self._end

    @property
    def is_fixed(self) -> bool:
        return self._fixed

    @property
    def stopped(self) -> bool:
        """True while every request under way is queued for our own limits."""
        return self._frozen_at is not None

    def remaining(self) -> float:
        return self.when - self._loop.time()

    @contextmanager
    def request(self) -> Iterator[None]:
        """One request of the owner is under way for the duration of the block."""
        self._outstanding += 1
        self._update()
        try:
            yield
        finally:
            self._outstanding -= 1
            self._update()

    @contextmanager
    def queued(self) -> Iterator[None]:
        """One request of the owner waits for our own limits for the duration of the
        block (the gate's concurrency slots and rate tokens)."""
        self._queued += 1
        self._update()
        try:
            yield
        finally:
            self._queued -= 1
            self._update()

    def _update(self) -> None:
        stop = not self._fixed and 0 < self._outstanding <= self._queued
        now = self._loop.time()
        if stop and self._frozen_at is None:
            self._frozen_at = now
            self._notify(None)
        elif not stop and self._frozen_at is not None:
            self._end += now - self._frozen_at
            self._frozen_at = None
            self._notify(self._end)

    def _notify(self, end: float | None) -> None:
        for watch in list(self._watchers):
            watch(end)

    @asynccontextmanager
    async def scope(self, grace_s: float = 0.0) -> AsyncIterator[None]:
        """Cancel the block at ``when + grace_s`` (raising ``TimeoutError`` out of it),
        never while the clock is stopped."""
        async with asyncio.timeout(None) as timeout:

            def watch(end: float | None) -> None:
                if not timeout.expired():
                    timeout.reschedule(None if end is None else end + grace_s)

            watch(None if self.stopped else self._end)
            self._watchers.append(watch)
            try:
                yield
            finally:
                self._watchers.remove(watch)

    def __repr__(self) -> str:
        state = "fixed" if self._fixed else ("stopped" if self.stopped else "running")
        return f"<Deadline {state} in {self.remaining():.1f}s>"


def as_deadline(deadline: float | Deadline) -> Deadline:
    """``deadline`` as a :class:`Deadline`: a loop time becomes a fixed one."""
    if isinstance(deadline, Deadline):
        return deadline
    return Deadline.fixed(deadline if not math.isnan(deadline) else math.inf)
