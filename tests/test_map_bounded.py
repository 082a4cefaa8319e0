"""``map_bounded``: every item mapped, at most ``concurrency`` calls at once, results in
finishing order, the input read only as fast as results are taken, and nothing left
running when the iteration is closed or a call fails."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from contextlib import aclosing

import pytest

from verifier.api import _numbered
from verifier.concurrency import map_bounded


class Calls:
    """Calls that sleep ``delay(item)`` seconds and record what is in flight."""

    def __init__(self, delay: dict[int, float] | None = None) -> None:
        self.delay = delay or {}
        self.in_flight = 0
        self.most_in_flight = 0
        self.cancelled: list[int] = []

    async def __call__(self, item: int) -> int:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay.get(item, 0.0))
        except asyncio.CancelledError:
            self.cancelled.append(item)
            raise
        finally:
            self.in_flight -= 1
        return item * 10


class Counted:
    """A plain iterator over ``range(n)`` that counts the items read from it."""

    def __init__(self, n: int) -> None:
        self.read = 0
        self._items = iter(range(n))

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        item = next(self._items)
        self.read += 1
        return item


@pytest.mark.asyncio
@pytest.mark.parametrize("concurrency", [1, 3, 64])
async def test_every_item_is_mapped_never_more_than_the_concurrency_at_once(
        concurrency: int) -> None:
    calls = Calls({n: 0.001 * (n % 4) for n in range(40)})
    results = [r async for r in map_bounded(range(40), calls, concurrency=concurrency)]
    assert sorted(results) == [n * 10 for n in range(40)]
    assert calls.most_in_flight == min(concurrency, 40)


@pytest.mark.asyncio
async def test_results_come_in_finishing_order_not_input_order() -> None:
    calls = Calls({0: 0.05, 1: 0.0, 2: 0.02})
    results = [r async for r in map_bounded([0, 1, 2], calls, concurrency=3)]
    assert results == [10, 20, 0]


@pytest.mark.asyncio
async def test_a_plain_input_is_read_only_as_fast_as_results_are_taken() -> None:
    source = Counted(10_000)
    async with aclosing(map_bounded(source, Calls(), concurrency=4)) as results:
        taken = 0
        async for _ in results:
            taken += 1
            assert source.read <= taken + 4
            if taken == 10:
                break
    assert source.read <= 14


@pytest.mark.asyncio
async def test_a_slow_async_input_never_holds_back_a_result_that_is_ready() -> None:
    release = asyncio.Event()

    async def slow_input() -> AsyncIterator[int]:
        yield 1
        await release.wait()  # the second item is long in coming
        yield 2

    results = map_bounded(slow_input(), Calls(), concurrency=4)
    first = await asyncio.wait_for(anext(results), timeout=1.0)
    assert first == 10
    release.set()
    assert [r async for r in results] == [20]


@pytest.mark.asyncio
async def test_closing_the_iteration_cancels_the_calls_in_flight() -> None:
    calls = Calls({0: 0.0, 1: 60.0, 2: 60.0})
    results = map_bounded([0, 1, 2], calls, concurrency=3)
    assert await anext(results) == 0
    await results.aclose()
    assert sorted(calls.cancelled) == [1, 2]
    assert calls.in_flight == 0


@pytest.mark.asyncio
async def test_a_failing_call_raises_and_leaves_nothing_running() -> None:
    calls = Calls({1: 60.0, 2: 60.0})

    async def call(item: int) -> int:
        if item == 0:
            raise LookupError("item 0 is bad")
        return await calls(item)

    with pytest.raises(LookupError, match="item 0"):
        async with aclosing(map_bounded([0, 1, 2], call, concurrency=3)) as results:
            async for _ in results:
                pass
    assert sorted(calls.cancelled) == [1, 2]


@pytest.mark.asyncio
async def test_an_empty_input_yields_nothing() -> None:
    assert [r async for r in map_bounded([], Calls(), concurrency=2)] == []


def test_a_concurrency_below_one_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        map_bounded([1], Calls(), concurrency=0)


@pytest.mark.asyncio
async def test_verify_many_numbers_a_plain_input_lazily_and_keeps_it_plain() -> None:
    """A plain input stays plain (read on the spot by map_bounded, no task per item) and
    an async one stays async; both are numbered by position as they are read."""
    source = Counted(1_000)
    numbered = _numbered(str(n) for n in source)
    assert not isinstance(numbered, AsyncIterable)
    first = [next(numbered) for _ in range(3)]
    assert [(c.index, c.text) for c in first] == [(0, "0"), (1, "1"), (2, "2")]
    assert source.read == 3

    async def texts() -> AsyncIterator[str]:
        for text in ("a", "b"):
            yield text

    numbered_async = _numbered(texts())
    assert isinstance(numbered_async, AsyncIterable)
    assert [(c.index, c.text) async for c in numbered_async] == [(0, "a"), (1, "b")]
