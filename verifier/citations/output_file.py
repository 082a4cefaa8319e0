"""Output files of JSON lines: one object per citation, written the moment its verdict is known.

The lines follow the contract of :mod:`verifier.citations.report`. Lines are written whole
and flushed one by one, so a killed run keeps everything it wrote; at worst its last line
is cut short, and :func:`scan_output` / :meth:`JsonlWriter.open` (append) recognise and
drop such a line before a resumed run (``--resume``, a service job) appends.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import orjson

from .models import INPUT_ERROR_FLAG, Status

_TAIL_BLOCK = 1 << 16
_STATUS_VALUES = frozenset(status.value for status in Status)


@dataclass(slots=True)
class Tally:
    """Counts of output lines by verdict; input errors are counted apart from statuses.
    ``flags`` counts the lines carrying each flag (``retracted``, ``input_error`` ...)."""

    statuses: Counter[Status] = field(default_factory=Counter)
    input_errors: int = 0
    flags: Counter[str] = field(default_factory=Counter)

    def add(self, status: Status, *, input_error: bool = False,
            flags: tuple[str, ...] | list[str] = ()) -> None:
        if input_error:
            self.input_errors += 1
            self.flags[INPUT_ERROR_FLAG] += 1
        else:
            self.statuses[status] += 1
        self.flags.update(flag for flag in set(flags) if flag != INPUT_ERROR_FLAG)

    def update(self, other: Tally) -> None:
        self.statuses.update(other.statuses)
        self.input_errors += other.input_errors
        self.flags.update(other.flags)

    @property
    def total(self) -> int:
        return sum(self.statuses.values()) + self.input_errors


@dataclass(slots=True)
class PriorOutput:
    """What an existing output file already holds (for ``--resume``)."""

    ids: set[str] = field(default_factory=set)
    tally: Tally = field(default_factory=Tally)
    unreadable: int = 0
    """Lines that are not output objects (a cut-short last line is not counted here)."""


def scan_output(path: Path, *, retry_inconclusive: bool = False) -> PriorOutput:
    """Read an output file written by an earlier run: the ids done and their verdicts.

    A missing file holds nothing. A last line without its newline counts only if it is a
    complete object (a killed run may have cut it short); other unreadable lines are
    counted in ``unreadable`` and their items are checked again. With
    ``retry_inconclusive``, inconclusive lines (input errors among them) do not count as
    done: their items are checked again, and the writer drops those lines
    (:func:`drop_inconclusive`) before it appends.
    """
    prior = PriorOutput()
    if not path.exists():
        return prior
    with path.open("rb") as stream:
        for line in stream:
            if not line.strip():
                continue
            parsed = _parse_line(line)
            if parsed is None:
                if line.endswith(b"\n"):
                    prior.unreadable += 1
                continue
            item_id, status, input_error, flags = parsed
            if retry_inconclusive and status is Status.INCONCLUSIVE:
                continue
            if item_id not in prior.ids:
                prior.ids.add(item_id)
                prior.tally.add(status, input_error=input_error, flags=flags)
    return prior


def completed_ids(path: Path) -> set[str]:
    """The ids already in an output file (see :func:`scan_output`)."""
    return scan_output(path).ids


def line_object(line: bytes) -> dict[str, Any] | None:
    """An output line's JSON object; None for a line that is not one."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def is_inconclusive_line(line: bytes) -> bool:
    """Whether ``line`` is a report line whose status is inconclusive (input errors
    among them)."""
    parsed = _parse_line(line) if line.strip() else None
    return parsed is not None and parsed[1] is Status.INCONCLUSIVE


def inconclusive_report_ids(path: Path) -> list[str]:
    """The ids of the report lines in ``path`` whose status is inconclusive, input errors
    left out (the same input reads the same way again), each once, in the file's order.
    Lines that are not report lines (a cut-short last one) are passed over."""
    found: dict[str, None] = {}
    with path.open("rb") as stream:
        for line in stream:
            parsed = _parse_line(line) if line.strip() else None
            if parsed is not None and parsed[1] is Status.INCONCLUSIVE and not parsed[2]:
                found.setdefault(parsed[0])
    return list(found)


def drop_inconclusive(path: Path, is_inconclusive: Callable[[bytes], bool] = is_inconclusive_line
                      ) -> int:
    """Rewrite ``path`` without the lines ``is_inconclusive`` picks (default: report
    lines, :func:`is_inconclusive_line`), whose items are being checked again; every
    other line is kept byte for byte, in order. The new file is written beside the old
    one, forced to disk, then renamed over it: a crash leaves one or the other whole.
    Returns the number of lines dropped (the file is not touched if 0)."""
    kept: list[bytes] = []
    dropped = 0
    with path.open("rb") as stream:
        for line in stream:
            if is_inconclusive(line):
                dropped += 1
            else:
                kept.append(line)
    if not dropped:
        return 0
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as stream:
            stream.writelines(kept)
            stream.flush()
            os.fchmod(stream.fileno(), stat.S_IMODE(path.stat().st_mode))  # as it was
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return dropped


def repair_tail(path: Path) -> int:
    """Make ``path`` end with a complete line before anything is appended to it.

    A last line without a newline is kept (and given its newline) if it is a complete
    object, else cut off, as what a killed run left half-written. Returns the number of
    bytes cut off.
    """
    with path.open("r+b") as stream:
        size = stream.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        start = _last_line_start(stream, size)
        stream.seek(start)
        tail = stream.read()
        if tail.endswith(b"\n"):
            return 0
        if _parse_line(tail) is not None:
            stream.write(b"\n")
            return 0
        stream.truncate(start)
        return len(tail)


class JsonlWriter:
    """Writes output lines to a binary stream, each one whole and flushed at once.

    ``fsync=True`` also forces each line to disk (survives a power cut, not only a kill).
    Use :meth:`open` for a file and :meth:`stdout` for standard output.
    """

    __slots__ = ("_close", "_fsync", "_opener", "_retry", "_stream", "lines_written")

    def __init__(self, stream: BinaryIO | None, *, fsync: bool = False, close: bool = False
                 ) -> None:
        self._stream = stream
        self._opener: tuple[Path, bool] | None = None
        self._retry: Callable[[bytes], bool] | None = None
        self._fsync = fsync
        self._close = close
        self.lines_written = 0
        """Lines written by this writer (lines already in an appended file excluded)."""

    @classmethod
    def open(cls, path: Path, *, append: bool = False, fsync: bool = False) -> JsonlWriter:
        """A writer on ``path``: truncated, or appended to after :func:`repair_tail`."""
        writer = cls.deferred(path, append=append, fsync=fsync)
        writer.open_now()
        return writer

    @classmethod
    def deferred(cls, path: Path, *, append: bool = False, fsync: bool = False,
                 retry: Callable[[bytes], bool] | None = None) -> JsonlWriter:
        """A writer on ``path`` that touches the file only at :meth:`open_now` (or its first
        line): a run opens everything else first, so a run that fails to start leaves an
        existing output as it was. ``retry`` (with ``append``): the file's lines it picks
        are dropped when it opens (:func:`drop_inconclusive`), their items being checked
        again (see :func:`scan_output`)."""
        writer = cls(None, fsync=fsync, close=True)
        writer._opener = (path, append)
        writer._retry = retry if append else None
        return writer

    def open_now(self) -> None:
        """Open the file of a :meth:`deferred` writer (nothing if open already)."""
        if self._stream is not None or self._opener is None:
            return
        path, append = self._opener
        if append and path.exists():
            repair_tail(path)
            if self._retry is not None:
                drop_inconclusive(path, self._retry)
        self._stream = path.open("ab" if append else "wb")

    @classmethod
    def stdout(cls) -> JsonlWriter:
        return cls(sys.stdout.buffer)

    def _opened(self) -> BinaryIO:
        self.open_now()
        assert self._stream is not None
        return self._stream

    def write(self, line: bytes) -> None:
        """Write one line (ending in a newline) and flush it."""
        self.write_many([line])

    def write_many(self, lines: list[bytes]) -> None:
        """Write several lines at once, then flush (and fsync) once."""
        if not lines:
            return
        stream = self._opened()
        stream.write(b"".join(lines))
        stream.flush()
        if self._fsync:
            os.fsync(stream.fileno())
        self.lines_written += len(lines)

    def close(self) -> None:
        """Flush and close (a deferred writer never opened stays unopened: nothing of the
        file was touched)."""
        if self._stream is None:
            return
        self._stream.flush()
        if self._close:
            self._stream.close()

    def __enter__(self) -> JsonlWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        name = getattr(self._stream, "name", "?")
        return f"<JsonlWriter {name!r} lines_written={self.lines_written}>"


class LineQueue:
    """Hands output lines from the event loop to a :class:`JsonlWriter` off the loop.

    ``await put(line)`` queues a line (waiting while ``maxsize`` lines are queued: the
    writer's pace bounds memory); one consumer task writes whatever has queued up in one
    call on a worker thread, so a slow disk or a slow reader of stdout never stalls the
    loop. Leaving ``async with`` writes everything queued, even when the run is being
    cancelled: a line decided is a line written.

    ``linger_s`` > 0 lets the consumer, once a line has arrived, wait up to that long (or
    until half of ``maxsize`` lines are queued, or the queue is being closed) before it
    writes, so a fast run writes in a few batches instead of one hand-off to the worker
    thread per line (each hand-off wakes a thread that then contends for the interpreter
    lock with the loop). A line then reaches the file at most ``linger_s`` after it was
    queued; closing never waits for the delay. 0 (the default): written as soon as the
    consumer gets to it.
    """

    def __init__(self, writer: JsonlWriter, *, maxsize: int = 1024,
                 linger_s: float = 0.0) -> None:
        self.writer = writer
        self._queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize)
        self._consumer: asyncio.Task[None] | None = None
        self._linger_s = linger_s
        self._batch = max(1, maxsize // 2)
        self._hurry = asyncio.Event()
        """Set: write what is queued now (half the queue is full, or it is closing)."""
        self._closing = False

    async def __aenter__(self) -> LineQueue:
        self._consumer = asyncio.create_task(self._consume())
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            # Never cancel a write in progress: tell the consumer to finish what is queued
            # and wait for it, even when the run is being cancelled.
            await asyncio.shield(self._stop(consumer))

    async def _stop(self, consumer: asyncio.Task[None]) -> None:
        self._closing = True
        self._hurry.set()
        if not consumer.done():
            await self._queue.put(_END)
        await asyncio.gather(consumer, return_exceptions=True)
        leftovers = [line for line in self._drain() if line is not _END]
        if leftovers:  # the consumer failed: what can still be written is written
            await asyncio.to_thread(self.writer.write_many, leftovers)

    async def put(self, line: bytes) -> None:
        if self._consumer is not None and self._consumer.done():
            self._consumer.result()  # the writer failed (e.g. a broken pipe): raise it here
        await self._queue.put(line)
        if self._queue.qsize() >= self._batch:
            self._hurry.set()

    def _drain(self) -> list[bytes]:
        lines = []
        while not self._queue.empty():
            lines.append(self._queue.get_nowait())
        return lines

    async def _consume(self) -> None:
        while True:
            lines = [await self._queue.get()]
            if self._linger_s > 0 and lines[0] is not _END:
                with suppress(TimeoutError):
                    async with asyncio.timeout(self._linger_s):
                        await self._hurry.wait()
            lines.extend(self._drain())
            end = any(line is _END for line in lines)
            if not self._closing:
                self._hurry.clear()
            await asyncio.to_thread(self.writer.write_many, [x for x in lines if x is not _END])
            if end:
                return


_END = b""
"""Queued by ``LineQueue`` on exit: write what came before, then stop."""


def _parse_line(line: bytes) -> tuple[str, Status, bool, list[str]] | None:
    """(id, status, is input error, flags) of an output line, or None if it is not one."""
    obj = line_object(line)
    if obj is None:
        return None
    item_id, status, flags = obj.get("id"), obj.get("status"), obj.get("flags")
    if not isinstance(item_id, str) or not isinstance(status, str):
        return None
    if status not in _STATUS_VALUES:
        return None
    flags = [f for f in flags if isinstance(f, str)] if isinstance(flags, list) else []
    return item_id, Status(status), INPUT_ERROR_FLAG in flags, flags


def _last_line_start(stream: BinaryIO, size: int) -> int:
    """Offset just past the last newline before the file's final byte (0 if none)."""
    end = size - 1  # a newline as the very last byte ends the last line, not starts it
    while end > 0:
        begin = max(0, end - _TAIL_BLOCK)
        stream.seek(begin)
        block = stream.read(end - begin)
        cut = block.rfind(b"\n")
        if cut >= 0:
            return begin + cut + 1
        end = begin
    return 0


class FormattedWriter(JsonlWriter):
    """A :class:`JsonlWriter` that writes its JSON lines in another format of
    :mod:`verifier.citations.formats` (CSV, corrected BibTeX, a Markdown or HTML report):
    each line is converted as it comes; a report is written whole on :meth:`close`."""

    __slots__ = ("_formatter", "_inner")

    def __init__(self, inner: JsonlWriter, fmt: str) -> None:
        from .formats import Formatter

        super().__init__(inner._stream, fsync=inner._fsync, close=inner._close)
        self._opener = inner._opener
        self._retry = inner._retry
        self._inner = inner
        self._formatter = Formatter(fmt)
        if self._stream is not None:
            self._stream.write(self._formatter.begin())

    def open_now(self) -> None:
        opening = self._stream is None and self._opener is not None
        super().open_now()
        if opening and self._stream is not None:
            self._stream.write(self._formatter.begin())

    def write(self, line: bytes) -> None:
        self.write_many([line])

    def write_many(self, lines: list[bytes]) -> None:
        if not lines:
            return
        stream = self._opened()
        stream.write(b"".join(self._formatter.item(orjson.loads(x)) for x in lines))
        stream.flush()
        self.lines_written += len(lines)

    def close(self) -> None:
        if self._stream is not None:
            self._stream.write(self._formatter.end())
        super().close()
