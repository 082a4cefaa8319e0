"""A server for a command under test that runs its own event loop: the server's async
context entered on a loop of its own thread for the duration of a ``with`` block."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def served_in_thread(serve: Callable[[], AbstractAsyncContextManager[T]], name: str,
                     start_s: float = 60.0) -> Iterator[T]:
    """Enter ``serve()`` on a new loop in a thread called ``name`` (waiting up to
    ``start_s``); yield what it yields (an error in entering it is raised here); leave
    it when the block ends."""
    ready = threading.Event()
    served: list[T] = []
    errors: list[BaseException] = []
    stop: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    async def serving() -> None:
        stopped = asyncio.Event()
        stop.append((asyncio.get_running_loop(), stopped))
        async with serve() as value:
            served.append(value)
            ready.set()
            await stopped.wait()

    def run() -> None:
        try:
            asyncio.run(serving())
        except BaseException as exc:
            errors.append(exc)
        finally:
            ready.set()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    ready.wait(start_s)
    if errors:
        raise errors[0]
    try:
        yield served[0]
    finally:
        loop, stopped = stop[0]
        loop.call_soon_threadsafe(stopped.set)
        thread.join(30)
