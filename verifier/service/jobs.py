"""Jobs: large batches checked in the background, stored on disk, resumed after a restart.

Each job is a folder ``<root>/<id>/`` holding ``input`` (the file as sent), ``job.json``
(its state, written atomically) and ``results.jsonl`` (one output line per citation, in
the contract of :mod:`verifier.citations.report`). Lines are written by the CLI's
:class:`~verifier.citations.output_file.LineQueue` (whole lines, flushed one by one; a
decided line is written even when the job is being cancelled), so a killed service keeps
every line it wrote. On start, a job found ``queued`` or ``running`` is resumed: the ids
already in its results are skipped (:func:`~verifier.citations.output_file.scan_output`,
which drops a cut-short last line), so no result is lost or written twice.

States: ``queued`` -> ``running`` -> ``done`` | ``cancelled`` (``DELETE``) | ``failed``.
A shutdown leaves a running job ``running``: it resumes on the next start.

A finished job's inconclusive citations (a source was down, a deadline ran out) are
checked again by a *retry* (``POST /v1/jobs/{id}/retry``): a new job over a copy of the
same input and options that checks only those citations (``only``) and names the job it
retries (``retry_of``). The first job's results are never rewritten, so the offsets its
results are paged by stay valid. Input errors are not retried: the stored input reads
the same way again.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from verifier.citations.checker import CitationChecker
from verifier.citations.inputs import InputItem, read_citations
from verifier.citations.models import INPUT_ERROR_FLAG, CitationInput, Status
from verifier.citations.output_file import (
    JsonlWriter,
    LineQueue,
    Tally,
    inconclusive_report_ids,
    scan_output,
)
from verifier.citations.report import input_error_to_json, report_to_json
from verifier.errors import InputError
from verifier.threads import open_off_loop

from .problems import Problem
from .requests import options_record, parse_options

ACTIVE = ("queued", "running")
FINAL = ("done", "cancelled", "failed")


@dataclass(slots=True)
class Job:
    """A job's state; ``tally`` counts the lines in its results."""

    id: str
    format: str
    options: dict[str, object]
    total: int
    created: float
    caller: str
    state: str = "queued"
    error: str | None = None
    finished: float | None = None
    tally: Tally = field(default_factory=Tally)
    lines: int = 0
    """Lines in the results file (what ``results?offset=`` counts)."""
    only: list[str] | None = None
    """The ids of the input's citations this job checks (a retry); None: all of them."""
    retry_of: str | None = None
    """The job whose inconclusive citations this one checks again (None: a new job)."""

    def record(self) -> dict[str, object]:
        return {"id": self.id, "format": self.format, "options": self.options,
                "total": self.total, "created": self.created, "caller": self.caller,
                "state": self.state, "error": self.error, "finished": self.finished,
                "only": self.only, "retry_of": self.retry_of}

    def view(self) -> dict[str, object]:
        """What ``GET /v1/jobs/{id}`` answers."""
        counts = {status.value: self.tally.statuses.get(status, 0) for status in Status}
        counts["input_error"] = self.tally.input_errors
        return {"id": self.id, "state": self.state, "total": self.total,
                "done": self.tally.total, "counts": counts, "error": self.error,
                "created": self.created, "finished": self.finished,
                "retry_of": self.retry_of, "results": f"/v1/jobs/{self.id}/results"}


class JobStore:
    """The jobs under ``root``, run by ``workers`` tasks through ``checker``."""

    def __init__(self, root: Path, checker: CitationChecker, *, workers: int = 2,
                 concurrency: int = 16, max_citations: int = 100_000,
                 on_line: Callable[[str], None] | None = None) -> None:
        self.root = root
        self.checker = checker
        self.workers = workers
        self.concurrency = concurrency
        self.max_citations = max_citations
        self.jobs: dict[str, Job] = {}
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._running: dict[str, asyncio.Task[None]] = {}
        self._on_line = on_line or (lambda status: None)
        self.resumed = 0

    def _dir(self, job_id: str) -> Path:
        return self.root / job_id

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Load every job from disk; queue those not finished (they resume)."""
        found = await asyncio.to_thread(self._load_all)
        for job in sorted(found, key=lambda j: j.created):
            self.jobs[job.id] = job
            if job.state in ACTIVE:
                self.resumed += 1
                self._queue.put_nowait(job.id)
        self._tasks = [asyncio.create_task(self._worker(), name=f"job-worker-{n}")
                       for n in range(self.workers)]

    async def close(self) -> None:
        """Stop the workers; a running job is cancelled, its decided lines written, and it
        stays ``running`` on disk, to resume on the next start."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _load_all(self) -> list[Job]:
        self.root.mkdir(parents=True, exist_ok=True)
        jobs = []
        for folder in self.root.iterdir():
            meta = folder / "job.json"
            if not meta.is_file():
                continue
            try:
                data = orjson.loads(meta.read_bytes())
                job = Job(id=data["id"], format=data["format"], options=data["options"],
                          total=data["total"], created=data["created"], caller=data["caller"],
                          state=data["state"], error=data.get("error"),
                          finished=data.get("finished"), only=data.get("only"),
                          retry_of=data.get("retry_of"))
            except (orjson.JSONDecodeError, KeyError, TypeError):
                continue
            prior = scan_output(folder / "results.jsonl")
            job.tally = prior.tally
            job.lines = _count_lines(folder / "results.jsonl")
            jobs.append(job)
        return jobs

    # -- the API's operations --------------------------------------------------------------

    async def create(self, data: bytes, fmt: str, options: dict[str, object],
                     caller: str) -> Job:
        """Store a new job (its input read once to count it: none is a 422, too many a
        413) and queue it."""
        job = Job(id=uuid.uuid4().hex, format=fmt, options=options, total=0,
                  created=time.time(), caller=caller)
        job.total = await asyncio.to_thread(self._store_new, job, data)
        self.jobs[job.id] = job
        self._queue.put_nowait(job.id)
        return job

    def _store_new(self, job: Job, data: bytes) -> int:
        folder = self._dir(job.id)
        folder.mkdir(parents=True)
        (folder / "input").write_bytes(data)
        try:
            total = sum(1 for _ in read_citations(folder / "input", job.format))
        except (ValueError, UnicodeDecodeError) as exc:
            _remove(folder)
            raise Problem(422, "unreadable-document",
                          f"the file cannot be read as {job.format}: {exc}") from None
        if total == 0:  # text sent as format=bibtex, say: a mistake to name, not a job
            _remove(folder)
            raise Problem(422, "no-citations", f"the file holds no citation (read as "
                          f"{job.format})", item=job.format)
        if total > self.max_citations:
            _remove(folder)
            raise Problem(413, "batch-too-large", f"{total} citations in one job; at most "
                          f"{self.max_citations}")
        job.total = total
        _open_results(folder, job)
        return total

    async def retry(self, job_id: str, caller: str) -> Job:
        """Queue a new job that checks again the inconclusive citations of the finished
        job ``job_id`` (see the module docstring): 409 while that job is still queued or
        running, 422 when it has no inconclusive citation (input errors aside)."""
        original = self.get(job_id)
        if original.state in ACTIVE:
            raise Problem(409, "job-not-finished", f"job {job_id!r} is {original.state}: "
                          "retry it once it has finished", item=job_id)
        job = Job(id=uuid.uuid4().hex, format=original.format, options=original.options,
                  total=0, created=time.time(), caller=caller, retry_of=original.id)
        await asyncio.to_thread(self._store_retry, original, job)
        self.jobs[job.id] = job
        self._queue.put_nowait(job.id)
        return job

    def _store_retry(self, original: Job, job: Job) -> None:
        source = self._dir(original.id)
        ids = inconclusive_report_ids(source / "results.jsonl")
        if not ids:
            raise Problem(422, "nothing-to-retry", f"job {original.id!r} has no inconclusive "
                          "citation to check again (input errors are not retried)",
                          item=original.id)
        job.only, job.total = ids, len(ids)
        folder = self._dir(job.id)
        folder.mkdir(parents=True)
        (folder / "input").write_bytes((source / "input").read_bytes())
        _open_results(folder, job)

    async def cancel(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job.state in FINAL:
            return job
        job.state = "cancelled"
        job.finished = time.time()
        task = self._running.get(job_id)
        try:
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        finally:
            # Saved even when this call is itself cancelled while the job stops (its
            # caller went away, the service is shutting down): a cancelled job must not
            # resume on the next start. The cancellation still reaches the caller.
            await asyncio.shield(self._save(job))
        return job

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            raise Problem(404, "no-such-job", f"no job {job_id!r}", item=job_id)
        return job

    async def results(self, job_id: str, offset: int, limit: int) -> tuple[list[bytes], int]:
        """Up to ``limit`` whole result lines from line ``offset``; and the next offset."""
        job = self.get(job_id)
        lines = await asyncio.to_thread(_read_lines, self._dir(job.id) / "results.jsonl",
                                        offset, limit)
        return lines, offset + len(lines)

    # -- running -----------------------------------------------------------------------

    async def _worker(self) -> None:
        while True:
            job_id = await self._queue.get()
            job = self.jobs.get(job_id)
            if job is None or job.state not in ACTIVE:
                continue
            task = asyncio.create_task(self._run(job), name=f"job-{job_id}")
            self._running[job_id] = task
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                # Whose cancellation this is, the worker's own count says: a stop asked
                # of the worker (close) may arrive just after its job ended, when the job
                # is done and the worker has not yet woken, and must still stop it.
                if _being_cancelled():  # the worker is being stopped: stop the job too
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
                    raise
                # the job alone was cancelled (DELETE): go on with the next
            finally:
                self._running.pop(job_id, None)

    async def _run(self, job: Job) -> None:
        folder = self._dir(job.id)
        job.state = "running"
        await self._save(job)
        try:
            prior = await asyncio.to_thread(scan_output, folder / "results.jsonl")
            job.tally = prior.tally
            items = await asyncio.to_thread(lambda: list(read_citations(folder / "input",
                                                                        job.format)))
            writer = await open_off_loop(
                lambda: JsonlWriter.open(folder / "results.jsonl", append=True),
                JsonlWriter.close)
            try:
                async with LineQueue(writer) as lines:
                    await self._check(job, items, prior.ids, lines)
            finally:
                await asyncio.to_thread(writer.close)
        except asyncio.CancelledError:
            await asyncio.shield(self._save(job))  # cancelled, or left running to resume
            raise
        except Exception as exc:  # a bug or a disk failure: the job says so, the rest go on
            job.state, job.error, job.finished = "failed", f"{type(exc).__name__}: {exc}", \
                time.time()
            await self._save(job)
            return
        job.state, job.finished = "done", time.time()
        await self._save(job)

    async def _check(self, job: Job, items: list[InputItem], done: set[str],
                     lines: LineQueue) -> None:
        options = parse_options(job.options, self.checker.session.settings.sources)
        only = None if job.only is None else frozenset(job.only)

        async def pending() -> AsyncIterator[CitationInput]:
            for position, item in enumerate(items):
                # A retry checks the citations it names; an input error is never one.
                if only is not None and (isinstance(item, InputError) or item.id not in only):
                    continue
                if isinstance(item, InputError):
                    if item.item not in done:
                        await self._put(job, lines, input_error_to_json(item, position),
                                        Status.INCONCLUSIVE, input_error=True)
                elif item.id not in done:
                    yield item

        async with aclosing(self.checker.check_many(pending(), options,
                                                    concurrency=self.concurrency)) as reports:
            async for report in reports:
                await self._put(job, lines, report_to_json(report), report.status,
                                input_error=INPUT_ERROR_FLAG in report.flags)

    async def _put(self, job: Job, lines: LineQueue, line: bytes, status: Status, *,
                   input_error: bool) -> None:
        await lines.put(line)
        job.tally.add(status, input_error=input_error)
        job.lines += 1
        self._on_line("input_error" if input_error else status.value)

    async def _save(self, job: Job) -> None:
        await asyncio.to_thread(_write_atomic, self._dir(job.id) / "job.json", job.record())

    def counts_by_state(self) -> dict[str, int]:
        counts = dict.fromkeys((*ACTIVE, *FINAL), 0)
        for job in self.jobs.values():
            counts[job.state] = counts.get(job.state, 0) + 1
        return counts


def _being_cancelled() -> bool:
    """Whether the running task has been asked to stop (``Task.cancel``), rather than
    having a task it awaits through a shield cancelled under it."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _write_atomic(path: Path, value: Any) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("wb") as stream:
        stream.write(orjson.dumps(value))
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(temporary, path)


def _open_results(folder: Path, job: Job) -> None:
    """The last step of storing a job whose input is in ``folder``: its state, and its
    empty results file."""
    _write_atomic(folder / "job.json", job.record())
    (folder / "results.jsonl").touch()


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as stream:
        return sum(1 for line in stream if line.endswith(b"\n"))


def _read_lines(path: Path, offset: int, limit: int) -> list[bytes]:
    """Whole lines (ending in a newline) ``offset`` .. ``offset + limit``; a line still
    being written is not one yet."""
    found: list[bytes] = []
    with path.open("rb") as stream:
        for number, line in enumerate(stream):
            if number < offset:
                continue
            if not line.endswith(b"\n") or len(found) >= limit:
                break
            found.append(line)
    return found


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()


__all__ = ["Job", "JobStore", "options_record"]
