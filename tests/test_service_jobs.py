"""The job store's workers, in memory: whose cancellation is whose. A stop of the store
(``close``) stops its workers even when it arrives just as a job ends; a job cancelled
alone (``DELETE``) leaves its worker to run the next one. The jobs here hold on an event
instead of checking citations: the rest of a job's life is tested through the service
(test_service_api, test_service_faults)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import orjson
import pytest

from verifier.service.jobs import Job, JobStore

pytestmark = pytest.mark.asyncio

ONE_REFERENCE = b"Smith, J. (2020). A title of a paper. Journal of Tests, 1(2), 3-4.\n"


class HeldJobs(JobStore):
    """A store whose jobs run until released, one worker."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, checker=cast(Any, None), workers=1)
        self.started: asyncio.Queue[str] = asyncio.Queue()
        self.release = asyncio.Event()

    async def _run(self, job: Job) -> None:
        job.state = "running"
        await self.started.put(job.id)
        await self.release.wait()
        job.state = "done"


def task_named(name: str) -> asyncio.Task[Any]:
    return next(task for task in asyncio.all_tasks() if task.get_name() == name)


async def test_a_stop_that_arrives_as_the_job_ends_still_stops_the_worker(
        tmp_path: Path) -> None:
    jobs = HeldJobs(tmp_path)
    await jobs.start()
    job = await jobs.create(ONE_REFERENCE, "text", {}, "caller")
    assert await asyncio.wait_for(jobs.started.get(), 5) == job.id
    worker, running = task_named("job-worker-0"), task_named(f"job-{job.id}")
    # The stop comes in the turn after the job ended, before the worker has woken to
    # its job's end (as close() may, from another task): the worker must still stop,
    # where treating it as the job's own cancellation would leave it waiting for the
    # next job, and close() waiting for it.
    running.add_done_callback(lambda _: worker.cancel())
    jobs.release.set()
    await asyncio.wait((worker,), timeout=5)
    assert worker.cancelled()
    assert job.state == "done"
    await asyncio.wait_for(jobs.close(), 5)


async def test_a_job_cancelled_alone_leaves_its_worker_to_run_the_next(
        tmp_path: Path) -> None:
    jobs = HeldJobs(tmp_path)
    await jobs.start()
    first = await jobs.create(ONE_REFERENCE, "text", {}, "caller")
    second = await jobs.create(ONE_REFERENCE, "text", {}, "caller")
    assert await asyncio.wait_for(jobs.started.get(), 5) == first.id
    await jobs.cancel(first.id)
    assert first.state == "cancelled"
    # The same worker picks up the second job.
    assert await asyncio.wait_for(jobs.started.get(), 5) == second.id
    assert not task_named("job-worker-0").done()
    jobs.release.set()
    for _ in range(100):
        if second.state == "done":
            break
        await asyncio.sleep(0.01)
    assert second.state == "done"
    await asyncio.wait_for(jobs.close(), 5)


class SlowToStopJobs(HeldJobs):
    """Jobs that take until ``stopped`` is set to stop once cancelled (writing their
    decided lines, say)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.stopped = asyncio.Event()

    async def _run(self, job: Job) -> None:
        try:
            await super()._run(job)
        except asyncio.CancelledError:
            await self.stopped.wait()
            raise


async def test_a_cancel_interrupted_while_its_job_stops_is_saved_and_still_cancelled(
        tmp_path: Path) -> None:
    jobs = SlowToStopJobs(tmp_path)
    await jobs.start()
    job = await jobs.create(ONE_REFERENCE, "text", {}, "caller")
    await asyncio.wait_for(jobs.started.get(), 5)
    cancelling = asyncio.create_task(jobs.cancel(job.id))
    await asyncio.sleep(0.05)  # the job is told to stop, and is stopping
    cancelling.cancel()  # the caller goes away meanwhile
    await asyncio.wait((cancelling,), timeout=5)
    # The call's own cancellation reaches it (not swallowed) ...
    assert cancelling.cancelled()
    # ... and the job is saved as cancelled all the same: it does not resume.
    for _ in range(100):
        saved = orjson.loads((tmp_path / job.id / "job.json").read_bytes())
        if saved["state"] == "cancelled":
            break
        await asyncio.sleep(0.01)
    assert saved["state"] == "cancelled"
    jobs.stopped.set()
    await asyncio.wait_for(jobs.close(), 5)
