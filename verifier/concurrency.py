"""Bounded fan-out: the one place that starts, bounds and cancels concurrent work.

Two shapes, both leaving no task behind when they finish, fail or are cancelled:

- :func:`run_until` runs jobs in order with at most ``width()`` in flight, hands each
  result to ``on_done`` as it finishes, and stops (cancelling the rest) as soon as
  ``enough()`` holds: "ask sources until two agree".
- :func:`map_bounded` maps an async function over a (possibly endless, possibly slow) sync
  or async iterable with at most ``concurrency`` calls in flight, yielding results as they
  finish; the input is read only as fast as results are taken, so memory stays bounded.
  Closing the iterator cancels the calls in flight.

Built on asyncio tasks rather than anyio task groups, and why: :func:`map_bounded` is an
async generator that yields while work is in flight, and a task group's cancel scope
cannot be held open across the yields of an async generator (anyio documents this as
unsupported: the scope would be exited in another task's context when the consumer
abandons the generator). The engine is asyncio-only, so anyio would add nothing here.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Sequence,
)
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

J = TypeVar("J")
R = TypeVar("R")


async def run_until(
    jobs: Sequence[J],
    run: Callable[[J], Awaitable[R]],
    on_done: Callable[[J, R], None],
    *,
    width: Callable[[], int],
    enough: Callable[[], bool],
    skip: Callable[[J], bool] = lambda _job: False,
    run_now: Callable[[J], R | None] | None = None,
    waiting: Callable[[], AbstractAsyncContextManager[Any]] | None = None,
) -> None:
    """Run ``jobs`` in order, at most ``width()`` at a time (asked again as results come
    in), skipping those ``skip`` rejects when their turn comes, until all are done or
    ``enough()`` holds; jobs still running then are cancelled and awaited.

    ``run_now(job)``, when given, is tried first when a job's turn comes: a result
    (not None) is the job's, with no task started for it (an answer the cache holds);
    None means ``run(job)`` must be awaited. Results had at once take their places in
    the width like running jobs and are handed on before anything is awaited, so the
    jobs started, and the results handed on, are those of ``run`` alone.

    ``waiting()``, when given, is entered around each wait for running jobs (a
    deadline's scope): what it raises leaves the run, the running jobs cancelled. Jobs
    that all finish at once never enter it."""
    queue = list(jobs)
    queue.reverse()  # popped from the end: the first job first
    running: dict[asyncio.Future[R], J] = {}
    try:
        while queue or running:
            ready: list[tuple[J, R]] = []
            while queue and len(running) + len(ready) < max(1, width()):
                job = queue.pop()
                if skip(job):
                    continue
                result = run_now(job) if run_now is not None else None
                if result is not None:
                    ready.append((job, result))
                else:
                    running[asyncio.ensure_future(run(job))] = job
            if ready:
                for job, result in ready:
                    on_done(job, result)
                if enough():
                    return
                continue
            if not running:
                return
            if waiting is None:
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            else:
                async with waiting():
                    done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                on_done(running.pop(task), task.result())
            if enough():
                return
    finally:
        await _cancel_all(running)


def map_bounded(
    items: Iterable[J] | AsyncIterable[J],
    call: Callable[[J], Awaitable[R]],
    *,
    concurrency: int,
) -> AsyncGenerator[R, None]:
    """``call(item)`` for every item, at most ``concurrency`` at once, in finishing order
    (an async generator: close it, or use it under ``contextlib.aclosing``). A plain
    iterable is read on the spot, one item per free slot; an async one is awaited
    alongside the calls. ``ValueError`` at once for a ``concurrency`` below 1."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if isinstance(items, AsyncIterable):
        return _map_async_input(items, call, concurrency)
    return _map_sync_input(iter(items), call, concurrency)


class _Finished:
    """Calls that finished, in finishing order, and a wake-up for the one consumer: each
    call's done-callback appends it, so waiting costs one future however many are in
    flight (``asyncio.wait`` would hook every running call on every wait)."""

    __slots__ = ("done", "_loop", "_wake")

    def __init__(self) -> None:
        self.done: deque[asyncio.Future[Any]] = deque()
        self._loop = asyncio.get_running_loop()
        self._wake: asyncio.Future[None] | None = None

    def watch(self, future: asyncio.Future[Any]) -> None:
        future.add_done_callback(self._finished)

    def _finished(self, future: asyncio.Future[Any]) -> None:
        self.done.append(future)
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def wait(self) -> None:
        """Until something finished (at once when something already has)."""
        if not self.done:
            self._wake = self._loop.create_future()
            try:
                await self._wake
            finally:
                self._wake = None


async def _map_sync_input(
    items: Iterator[J], call: Callable[[J], Awaitable[R]], concurrency: int
) -> AsyncGenerator[R, None]:
    """:func:`map_bounded` over a plain iterator: read on the spot, one item per free slot."""
    finished = _Finished()
    running: set[asyncio.Future[R]] = set()
    exhausted = False
    try:
        while True:
            while not exhausted and len(running) < concurrency:
                item = next(items, _END)
                if item is _END:
                    exhausted = True
                    break
                task = asyncio.ensure_future(call(item))
                running.add(task)
                finished.watch(task)
            if not running:
                return
            await finished.wait()
            while finished.done:
                done = finished.done.popleft()
                running.discard(done)
                yield done.result()
    finally:
        await _cancel_all(running)


async def _map_async_input(
    items: AsyncIterable[J], call: Callable[[J], Awaitable[R]], concurrency: int
) -> AsyncGenerator[R, None]:
    """:func:`map_bounded` over an async iterable: the next item is awaited alongside the
    running calls, so a slow input (a pipe) never holds back results that are ready."""
    source = aiter(items)
    finished = _Finished()
    running: set[asyncio.Future[R]] = set()
    fetching: asyncio.Future[J] | None = None
    exhausted = False
    try:
        while True:
            if fetching is None and not exhausted and len(running) < concurrency:
                fetching = asyncio.ensure_future(anext(source))
                finished.watch(fetching)
            if fetching is None and not running:
                return
            await finished.wait()
            while finished.done:
                done = finished.done.popleft()
                if done is fetching:
                    fetching = None
                    try:
                        item = done.result()
                    except StopAsyncIteration:
                        exhausted = True
                        continue
                    task = asyncio.ensure_future(call(item))
                    running.add(task)
                    finished.watch(task)
                else:
                    running.discard(done)
                    yield done.result()
    finally:
        leftovers: list[asyncio.Future[Any]] = [*running]
        if fetching is not None:
            leftovers.append(fetching)
        await _cancel_all(leftovers)  # the input is the caller's: not closed here


_END: Any = object()
"""What ``next`` gives for an exhausted input (no item is ever this object)."""


async def _cancel_all(tasks: Iterable[asyncio.Future[Any]]) -> None:
    pending = list(tasks)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
