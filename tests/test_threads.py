"""Opening off the loop: a caller cancelled while its resource opens on a worker thread
never leaves that resource open (in memory, with a resource that records its life)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from verifier.threads import open_off_loop


class Resource:
    def __init__(self, release: threading.Event, fail: bool = False) -> None:
        release.wait(5)
        if fail:
            raise OSError("disk full")
        self.closed = threading.Event()

    def close(self) -> None:
        self.closed.set()


async def _cancel_while_opening(fail: bool = False) -> tuple[list[Resource], BaseException]:
    release = threading.Event()
    made: list[Resource] = []

    def open_() -> Resource:
        resource = Resource(release, fail)
        made.append(resource)
        return resource

    task = asyncio.create_task(open_off_loop(open_, Resource.close))
    await asyncio.sleep(0.05)  # the thread is inside open_, waiting
    task.cancel()
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(asyncio.CancelledError) as caught:
        await task
    for _ in range(100):  # the open finishes on its thread; the close follows
        if made and made[0].closed.is_set():
            break
        await asyncio.sleep(0.01)
    return made, caught.value


@pytest.mark.asyncio
async def test_a_resource_opened_after_its_caller_was_cancelled_is_closed() -> None:
    made, cancelled = await _cancel_while_opening()
    assert isinstance(cancelled, asyncio.CancelledError)  # the cancellation goes on
    assert len(made) == 1 and made[0].closed.is_set()


@pytest.mark.asyncio
async def test_an_open_that_fails_after_the_cancellation_closes_nothing() -> None:
    made, _ = await _cancel_while_opening(fail=True)
    assert made == []


@pytest.mark.asyncio
async def test_an_uncancelled_open_returns_the_resource_open() -> None:
    release = threading.Event()
    release.set()
    resource = await open_off_loop(lambda: Resource(release), Resource.close)
    assert not resource.closed.is_set()
    with pytest.raises(OSError, match="disk full"):
        await open_off_loop(lambda: Resource(release, fail=True), Resource.close)


def test_a_resource_is_closed_even_when_the_loop_ends_right_after_the_cancellation() -> None:
    """asyncio.run cancels the task, then shuts the executor down while the open still
    runs: the close must not be lost to the closed executor."""
    release = threading.Event()
    made: list[Resource] = []

    def open_() -> Resource:
        resource = Resource(release)
        made.append(resource)
        return resource

    async def main() -> None:
        asyncio.create_task(open_off_loop(open_, Resource.close))
        await asyncio.sleep(0.05)
        threading.Timer(0.1, release.set).start()
        # main returns: asyncio.run cancels the opening task and waits for the executor

    asyncio.run(main())
    assert len(made) == 1 and made[0].closed.wait(2)
