"""Opening a resource off the event loop without losing it to a cancellation.

``await asyncio.to_thread(open_)`` cannot stop its thread once started: when the awaiting
task is cancelled (Ctrl-C during start-up, a service shutting down while a job opens its
output), the thread still finishes and opens the file or the SQLite connection, and
nobody holds it to close it. It stays open until the garbage collector finds it: a
``ResourceWarning`` in tests, a descriptor or a database lock held on in a long-lived
process. :func:`open_off_loop` opens the same way and, when its caller is cancelled
meanwhile, closes what was opened as soon as it is open, then lets the cancellation go
on. Every blocking open the engine awaits goes through it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable
from functools import partial
from typing import TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)


async def open_off_loop(open_: Callable[[], T], close: Callable[[T], object]) -> T:
    """``open_()`` on a worker thread; its result, or, if the caller is cancelled before
    it is open, ``close(result)`` once it is (on a worker thread, or on the loop when the
    loop's executor is already shut down) and the cancellation re-raised. Runs as
    :func:`asyncio.to_thread` does (the default executor, the caller's context
    variables); an exception of ``open_`` reaches the caller."""
    # The executor's own future, not a task around to_thread: a task would be cancelled
    # with every other one when asyncio.run ends, and the resource then lost with it.
    loop = asyncio.get_running_loop()
    opening = loop.run_in_executor(None, contextvars.copy_context().run, open_)
    try:
        return await asyncio.shield(opening)
    except asyncio.CancelledError:
        if opening.done():
            _close_when_open(close, opening)
        else:
            opening.add_done_callback(partial(_close_when_open, close))
        raise


def _close_when_open(close: Callable[[T], object], opening: asyncio.Future[T]) -> None:
    if opening.cancelled() or opening.exception() is not None:
        return  # nothing was opened (reading the exception marks it retrieved)
    resource = opening.result()
    try:
        closing = asyncio.get_running_loop().run_in_executor(None, close, resource)
    except RuntimeError:  # the executor is shut down: the loop is ending anyway
        _close_now(close, resource)
        return
    closing.add_done_callback(_log_failure)


def _close_now(close: Callable[[T], object], resource: T) -> None:
    try:
        close(resource)
    except Exception:
        log.warning("closing %r after a cancelled open failed", resource, exc_info=True)


def _log_failure(closing: asyncio.Future[object]) -> None:
    if not closing.cancelled() and closing.exception() is not None:
        log.warning("closing a resource after a cancelled open failed",
                    exc_info=closing.exception())
