"""The CLI's output: re-exported from where the service shares it.

The line contract lives in :mod:`verifier.citations.report`, the output files (writer,
line queue, ``--resume`` scan) in :mod:`verifier.citations.output_file`.

One run at a time writes an output file: :class:`OutputLock` holds an exclusive
``flock`` on ``FILE.lock`` beside it for the whole run (a second run on the same file is
refused, naming it); the kernel releases the lock of a killed run.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from verifier.citations.inputs import STDIN
from verifier.citations.output_file import (
    JsonlWriter,
    LineQueue,
    PriorOutput,
    Tally,
    completed_ids,
    drop_inconclusive,
    is_inconclusive_line,
    line_object,
    repair_tail,
    scan_output,
)
from verifier.citations.report import (
    REPORT_KEYS,
    input_error_record,
    input_error_to_json,
    report_to_json,
)
from verifier.errors import ConfigError


class OutputLock:
    """An exclusive lock on an output file for one run: ``flock`` on ``FILE.lock``.

    :meth:`acquire` raises ``ConfigError`` naming the file when another run holds it, or
    when the folder cannot be written (the lock file is the first thing a run creates
    there). :meth:`release` removes the lock file; a killed run leaves it behind, unlocked,
    and the next run takes it over.
    """

    __slots__ = ("_fd", "output", "path")

    def __init__(self, output: Path) -> None:
        self.output = output
        self.path = output.with_name(output.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise ConfigError(
                    f"--output {str(self.output)!r} cannot be written: cannot create "
                    f"{str(self.path)!r} ({exc.strerror or exc})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise ConfigError(
                        f"--output {str(self.output)!r} is in use by another run (locked "
                        f"through {str(self.path)!r}); wait for it to finish, or write "
                        "to another file") from None
                raise
            # The holder before us may have removed the file between our open and our
            # lock: then we hold a lock on a name nobody sees. Lock the current file.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                return
            os.close(fd)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def check_output_file(output: Path | None, *, resume: bool, force: bool,
                      inputs: Sequence[Path] = (), option: str = "--output") -> None:
    """The usage errors of a run's output file, found before anything is read or written
    (raises ``ConfigError`` naming ``option`` and the file); every command that writes
    one checks it here. An existing non-empty file is refused unless the run appends to
    it (``resume``) or may overwrite it (``force``); a folder, a missing folder, one of
    the ``inputs`` (``-`` is stdin) and a file that cannot be written are refused."""
    if output is None:
        if resume:
            raise ConfigError(f"--resume needs {option} FILE (the file to resume)")
        return
    if resume and force:
        raise ConfigError("--resume and --force contradict each other")
    if output.is_dir():
        raise ConfigError(f"{option} {str(output)!r} is a directory")
    if not output.parent.is_dir():
        raise ConfigError(f"{option} folder {str(output.parent)!r} does not exist")
    if not output.exists():
        return
    for path in inputs:
        if path != STDIN and path.exists() and output.samefile(path):
            raise ConfigError(f"{option} {str(output)!r} is the input file")
    if not os.access(output, os.W_OK):
        raise ConfigError(f"{option} {str(output)!r} cannot be written (permission denied)")
    if not (resume or force) and output.stat().st_size > 0:
        raise ConfigError(f"{option} {str(output)!r} exists: add --resume to continue it, "
                          "or --force to overwrite it")


def check_retry(retry: bool, *, force: bool, output: Path | None, items: str) -> None:
    """The usage errors of ``--retry-inconclusive`` (raises ``ConfigError``): it continues
    an output, so it needs one and contradicts ``--force``. ``items``: what a run checks
    again ("citations"), for the message."""
    if not retry:
        return
    if force:
        raise ConfigError(f"--retry-inconclusive and --force contradict each other (--force "
                          f"checks all the {items} again)")
    if output is None:
        raise ConfigError(f"--retry-inconclusive needs --output FILE (the file whose "
                          f"unfinished {items} are checked again)")


def check_distinct_outputs(outputs: Sequence[tuple[str, Path | None]]) -> None:
    """Refuse two options of one run that name the same output file (raises
    ``ConfigError`` naming both): each would overwrite the other's lines. ``outputs``
    pairs each option with its file (None: not given). Files compare by their resolved
    paths, so a file not yet made, or reached through a link, is still caught."""
    seen: dict[Path, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        where = path.resolve()
        if where in seen:
            raise ConfigError(f"{option} {str(path)!r} is also {seen[where]}: give each "
                              "output a file of its own")
        seen[where] = option


__all__ = [
    "OutputLock",
    "check_distinct_outputs",
    "check_retry",
    "check_output_file",
    "REPORT_KEYS",
    "JsonlWriter",
    "LineQueue",
    "PriorOutput",
    "Tally",
    "completed_ids",
    "drop_inconclusive",
    "is_inconclusive_line",
    "line_object",
    "input_error_record",
    "input_error_to_json",
    "repair_tail",
    "report_to_json",
    "scan_output",
]
