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
from verifier.service.problems import Problem

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


THREE_REFERENCES = (b"Smith, J. (2020). A title of a paper. Journal of Tests, 1(2), 3-4.\n"
                    b"Jones, K. (2019). Another title. Journal of Tests, 2(1), 5-6.\n"
                    b"Brown, L. (2018). A third title. Journal of Tests, 3(1), 7-8.\n")


def finished_job(jobs: JobStore, results: list[dict[str, Any]], state: str = "done") -> Job:
    """A job over THREE_REFERENCES, finished with ``results`` as its result lines."""
    job = Job(id="first", format="text", options={"deadline_s": 7.0}, total=3,
              created=1.0, caller="caller", state=state)
    folder = jobs.root / job.id
    folder.mkdir(parents=True)
    (folder / "input").write_bytes(THREE_REFERENCES)
    (folder / "job.json").write_bytes(orjson.dumps(job.record()))
    (folder / "results.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in results))
    jobs.jobs[job.id] = job
    return job


async def test_a_retry_is_a_new_job_over_the_inconclusive_citations_alone(
        tmp_path: Path) -> None:
    jobs = HeldJobs(tmp_path)
    await jobs.start()
    first = await asyncio.to_thread(finished_job, jobs, [
        {"id": "L1", "status": "verified"},
        {"id": "L2", "status": "inconclusive", "flags": []},
        {"id": "L3", "status": "inconclusive", "flags": ["input_error"]},
    ])
    retry = await jobs.retry(first.id, "someone")
    assert await asyncio.wait_for(jobs.started.get(), 5) == retry.id
    assert (retry.only, retry.total, retry.retry_of) == (["L2"], 1, "first")
    assert (retry.format, retry.options, retry.caller) == ("text", {"deadline_s": 7.0},
                                                           "someone")
    assert retry.view()["retry_of"] == "first"
    folder = tmp_path / retry.id
    assert (folder / "input").read_bytes() == THREE_REFERENCES
    assert (folder / "results.jsonl").read_bytes() == b""
    # What a restart reads back is the same retry: its ids and the job it retries.
    saved = orjson.loads((folder / "job.json").read_bytes())
    assert (saved["only"], saved["retry_of"], saved["total"]) == (["L2"], "first", 1)
    # The first job's results are left as they were.
    assert len((tmp_path / "first" / "results.jsonl").read_bytes().splitlines()) == 3
    jobs.release.set()
    await asyncio.wait_for(jobs.close(), 5)
    store = JobStore(tmp_path, checker=cast(Any, None))
    reloaded = {job.id: job for job in await asyncio.to_thread(store._load_all)}
    assert (reloaded[retry.id].only, reloaded[retry.id].retry_of) == (["L2"], "first")
    assert reloaded["first"].only is None


async def test_a_retry_of_a_job_not_finished_or_with_nothing_inconclusive_is_refused(
        tmp_path: Path) -> None:
    jobs = HeldJobs(tmp_path)
    await jobs.start()
    running = await asyncio.to_thread(finished_job, jobs,
                                      [{"id": "L2", "status": "inconclusive"}], "running")
    with pytest.raises(Problem) as refused:
        await jobs.retry(running.id, "caller")
    assert (refused.value.status, refused.value.kind) == (409, "job-not-finished")
    running.state = "done"
    await asyncio.to_thread((tmp_path / running.id / "results.jsonl").write_bytes,
                            b'{"id": "L1", "status": "verified"}\n'
                            b'{"id": "L3", "status": "inconclusive", "flags": ["input_error"]}\n')
    with pytest.raises(Problem) as refused:
        await jobs.retry(running.id, "caller")
    assert (refused.value.status, refused.value.kind) == (422, "nothing-to-retry")
    with pytest.raises(Problem) as refused:
        await jobs.retry("nope", "caller")
    assert refused.value.status == 404
    folders = await asyncio.to_thread(lambda: sorted(p.name for p in tmp_path.iterdir()))
    assert folders == ["first"]  # no job folder made
    assert list(jobs.jobs) == ["first"]
    await asyncio.wait_for(jobs.close(), 5)
