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
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    Awaitable,
    Callable,
    Iterable,
    Sequence,
)
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
) -> None:
    """Run ``jobs`` in order, at most ``width()`` at a time (asked again as results come
    in), skipping those ``skip`` rejects when their turn comes, until all are done or
    ``enough()`` holds; jobs still running then are cancelled and awaited."""
    queue = list(jobs)
    running: dict[asyncio.Task[R], J] = {}
    try:
        while queue or running:
            while queue and len(running) < max(1, width()):
                job = queue.pop(0)
                if skip(job):
                    continue
                running[asyncio.ensure_future(run(job))] = job
            if not running:
                return
            done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                on_done(running.pop(task), task.result())
            if enough():
                return
    finally:
        await _cancel_all(running)


async def map_bounded(
    items: Iterable[J] | AsyncIterable[J],
    call: Callable[[J], Awaitable[R]],
    *,
    concurrency: int,
) -> AsyncGenerator[R, None]:
    """``call(item)`` for every item, at most ``concurrency`` at once, in finishing order."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    source = _aiter(items)
    running: set[asyncio.Task[R]] = set()
    # The next input item is awaited alongside the running calls, so a slow input (a
    # pipe) never holds back results that are ready.
    fetching: asyncio.Task[J] | None = None
    exhausted = False
    try:
        while True:
            if fetching is None and not exhausted and len(running) < concurrency:
                fetching = asyncio.ensure_future(anext(source))
            waiting: set[asyncio.Future[Any]] = set(running)
            if fetching is not None:
                waiting.add(fetching)
            if not waiting:
                return
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if fetching is not None and fetching in done:
                try:
                    item = fetching.result()
                except StopAsyncIteration:
                    exhausted = True
                else:
                    running.add(asyncio.ensure_future(call(item)))
                fetching = None
            for task in [t for t in running if t in done]:
                running.discard(task)
                yield task.result()
    finally:
        leftovers: list[asyncio.Future[Any]] = [*running]
        if fetching is not None:
            leftovers.append(fetching)
        await _cancel_all(leftovers)
        await source.aclose()


async def _cancel_all(tasks: Iterable[asyncio.Future[Any]]) -> None:
    pending = list(tasks)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)


async def _aiter(items: Iterable[J] | AsyncIterable[J]) -> AsyncGenerator[J, None]:
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    else:
        for item in items:
            yield item
