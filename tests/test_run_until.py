"""``run_until``: jobs in order, at most ``width()`` in flight, skipped when their turn
comes, stopped (and the rest cancelled) as soon as ``enough()`` holds."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from types import TracebackType

import pytest

from verifier.concurrency import run_until


class Jobs:
    """Jobs that take ``delays[job]`` seconds and record when they start and finish."""

    def __init__(self, delays: dict[str, float]) -> None:
        self.delays = delays
        self.started: list[str] = []
        self.finished: list[str] = []
        self.cancelled: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def run(self, job: str) -> str:
        self.started.append(job)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delays[job])
        except asyncio.CancelledError:
            self.cancelled.append(job)
            raise
        finally:
            self.in_flight -= 1
        return job.upper()


@pytest.mark.asyncio
@pytest.mark.parametrize("width", [1, 2, 3])
async def test_jobs_start_in_order_never_more_than_the_width_at_once(width: int) -> None:
    jobs = Jobs({"a": 0.02, "b": 0.0, "c": 0.01, "d": 0.0})
    results: list[tuple[str, str]] = []
    await run_until(list(jobs.delays), jobs.run, lambda j, r: results.append((j, r)),
                    width=lambda: width, enough=lambda: False)
    assert jobs.started == ["a", "b", "c", "d"]
    assert jobs.most_in_flight == width
    assert sorted(results) == [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")]


@pytest.mark.asyncio
async def test_enough_stops_the_run_and_cancels_what_is_in_flight() -> None:
    jobs = Jobs({"slow": 1.0, "fast": 0.0, "never": 0.0})
    done: list[str] = []
    await run_until(list(jobs.delays), jobs.run, lambda j, r: done.append(j),
                    width=lambda: 2, enough=lambda: "fast" in done)
    assert done == ["fast"] and jobs.cancelled == ["slow"]
    assert "never" not in jobs.started


@pytest.mark.asyncio
async def test_one_at_a_time_stops_at_enough_and_skips_when_a_job_is_due() -> None:
    jobs = Jobs({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0})
    done: list[str] = []
    await run_until(list(jobs.delays), jobs.run, lambda j, r: done.append(j),
                    width=lambda: 1, enough=lambda: len(done) == 2,
                    skip=lambda j: j == "a")
    assert jobs.started == ["b", "c"] and done == ["b", "c"]


@pytest.mark.asyncio
async def test_the_width_is_asked_again_as_results_come_in() -> None:
    """Width 2 until the first result, then 1: the run narrows to one job at a time."""
    jobs = Jobs({"a": 0.01, "b": 0.02, "c": 0.0, "d": 0.0})
    done: list[str] = []
    await run_until(list(jobs.delays), jobs.run, lambda j, r: done.append(j),
                    width=lambda: 2 if not done else 1, enough=lambda: False)
    assert jobs.started == ["a", "b", "c", "d"] and jobs.most_in_flight == 2
    assert done == ["a", "b", "c", "d"]  # c waited for b: one at a time once a is done


@pytest.mark.asyncio
@pytest.mark.parametrize("width", [1, 2])
async def test_a_cancelled_run_cancels_the_jobs_in_flight(width: int) -> None:
    jobs = Jobs({"a": 5.0, "b": 5.0})
    outer = asyncio.ensure_future(run_until(
        list(jobs.delays), jobs.run, lambda j, r: None, width=lambda: width,
        enough=lambda: False))
    await asyncio.sleep(0.01)
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert jobs.in_flight == 0 and "a" in jobs.cancelled


@pytest.mark.asyncio
async def test_a_job_answered_at_once_starts_no_task_and_its_result_is_handed_on() -> None:
    jobs = Jobs({"a": 0.0, "b": 0.0, "c": 0.0})
    done: list[tuple[str, str]] = []
    await run_until(list(jobs.delays), jobs.run, lambda j, r: done.append((j, r)),
                    width=lambda: 1, enough=lambda: False,
                    run_now=lambda j: "NOW" if j != "b" else None)
    assert jobs.started == ["b"]  # only the job not answered at once was run
    assert done == [("a", "NOW"), ("b", "B"), ("c", "NOW")]


@pytest.mark.asyncio
async def test_answers_had_at_once_take_their_places_in_the_width() -> None:
    """Width 2 at the start: both first jobs start (one answered at once) before any
    result is handed on, as two tasks would; enough after two results stops the rest."""
    jobs = Jobs({"a": 0.0, "b": 0.01, "c": 0.0})
    done: list[str] = []
    await run_until(list(jobs.delays), jobs.run, lambda j, r: done.append(j),
                    width=lambda: 2 - len(done), enough=lambda: len(done) >= 2,
                    run_now=lambda j: "NOW" if j == "a" else None)
    assert jobs.started == ["b"] and done == ["a", "b"]


@pytest.mark.asyncio
@pytest.mark.parametrize("width", [1, 2, 3])
@pytest.mark.parametrize("at_once", ["", "a", "ac", "abcd"])
async def test_the_jobs_run_and_the_results_are_those_without_answers_at_once(
        width: int, at_once: str) -> None:
    """Whichever jobs are answered at once, the same jobs are attempted (run or answered
    at once), skipped and handed on as when every job is awaited."""

    async def outcome(run_now: bool) -> tuple[list[str], set[str]]:
        attempted: list[str] = []
        done: list[str] = []

        async def answer(job: str) -> str:
            await asyncio.sleep(0)
            return job

        def run(job: str) -> Awaitable[str]:
            attempted.append(job)  # when run_until starts it
            return answer(job)

        def now(job: str) -> str | None:
            if run_now and job in at_once:
                attempted.append(job)
                return job
            return None

        await run_until(list("abcde"), run, lambda j, r: done.append(r),
                        width=lambda: max(1, width - len(done)),
                        enough=lambda: len(done) >= 3, skip=lambda j: j == "d",
                        run_now=now)
        return attempted, set(done)

    assert await outcome(run_now=True) == await outcome(run_now=False)


class CountingScope:
    """An async context that counts its entries and, when given a timeout, bounds the
    block like ``asyncio.timeout``."""

    def __init__(self, timeout_s: float | None = None) -> None:
        self.entered = 0
        self.timeout_s = timeout_s

    def __call__(self) -> CountingScope:
        return self

    async def __aenter__(self) -> None:
        self.entered += 1
        self._timeout = asyncio.timeout(self.timeout_s)
        await self._timeout.__aenter__()

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self._timeout.__aexit__(kind, exc, tb)


@pytest.mark.asyncio
async def test_jobs_answered_at_once_never_enter_the_waiting_scope() -> None:
    scope = CountingScope()
    done: list[str] = []
    await run_until(["a", "b"], Jobs({}).run, lambda job, r: done.append(r), width=lambda: 1,
                    enough=lambda: False, run_now=str.upper, waiting=scope)
    assert (done, scope.entered) == (["A", "B"], 0)


@pytest.mark.asyncio
async def test_each_wait_is_made_inside_the_waiting_scope() -> None:
    scope = CountingScope()
    jobs = Jobs({"a": 0.01, "b": 0.01})
    await run_until(["a", "b"], jobs.run, lambda job, r: None, width=lambda: 1,
                    enough=lambda: False, waiting=scope)
    assert (jobs.started, scope.entered) == (["a", "b"], 2)  # one wait a job, one at a time


@pytest.mark.asyncio
async def test_a_waiting_scope_that_times_out_ends_the_run_and_cancels_the_jobs() -> None:
    jobs = Jobs({"slow": 30.0, "later": 0.0})
    started = asyncio.get_running_loop().time()
    with pytest.raises(TimeoutError):
        await run_until(["slow", "later"], jobs.run, lambda job, r: None, width=lambda: 1,
                        enough=lambda: False, waiting=CountingScope(0.05))
    assert asyncio.get_running_loop().time() - started < 10.0
    assert (jobs.started, jobs.cancelled, jobs.in_flight) == (["slow"], ["slow"], 0)
