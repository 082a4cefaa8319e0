"""What a run shows on stderr while it works, and the summary it prints at the end.

Three displays share one interface (:class:`RunProgress`): a live rich display when stderr
is a terminal (a bar with done/total, rate and ETA, and one line per source: requests
sent, cache hits, 429s, retries, failures, paused now or not), a plain status line every
few seconds when it is not (CI logs stay readable), and nothing under ``--quiet``.

Displays read the engine's live :class:`~verifier.stats.RunStats` through
:func:`snapshot`, from their own refresh thread: the engine only increments plain
counters, so a snapshot taken off the event loop is at worst a moment old.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from verifier.citations.models import Status
from verifier.http.stats import RunStats, SourceStats

from .output import Tally

REFRESH_PER_SECOND = 4
PLAIN_INTERVAL_S = 5.0


@dataclass(frozen=True, slots=True)
class SourceLine:
    """One source's counters at one moment."""

    name: str
    requests: int
    cache_hits: int
    throttled: int
    retries: int
    failures: int
    paused: bool


def snapshot(stats: RunStats, sources: Iterable[str] = ()) -> list[SourceLine]:
    """The counters of ``sources`` (in that order, zero if not started yet), then of any
    other source the engine has counted."""
    counted = dict(stats.sources)  # one C-level copy: safe against a key added meanwhile
    names = list(dict.fromkeys([*sources, *counted]))
    return [_line(name, counted.get(name) or SourceStats()) for name in names]


def _line(name: str, s: SourceStats) -> SourceLine:
    return SourceLine(name, s.requests, s.cache_hits, s.throttled, s.retries, s.failures,
                      s.paused)


class RunProgress:
    """A progress display: ``with display: ... display.advance() ...``. This base class
    shows nothing (``--quiet``)."""

    def __init__(self, stats: RunStats, sources: Sequence[str], *, total: int | None,
                 done: int = 0) -> None:
        self.stats = stats
        self.sources = tuple(sources)
        self.total = total
        """Items in the whole input (None when unknown, e.g. stdin)."""
        self.done = done
        """Items finished, including those an earlier run finished (``--resume``)."""
        self._resumed = done
        self._started = time.monotonic()

    def advance(self) -> None:
        self.done += 1

    def start(self) -> None:
        self._started = time.monotonic()

    def stop(self) -> None:
        pass

    def __enter__(self) -> RunProgress:
        self.start()
        return self

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def status_line(self) -> str:
        """The plain one-line status: done/total, rate, ETA, then each source."""
        elapsed = time.monotonic() - self._started
        rate = (self.done - self._resumed) / elapsed if elapsed > 0 else 0.0
        parts = [f"{self.done}/{self.total if self.total is not None else '?'} done"]
        if self.total:
            parts[0] += f" ({100 * self.done // self.total}%)"
        parts.append(f"{rate:.1f}/s")
        if self.total is not None and rate > 0:
            parts.append(f"ETA {format_duration((self.total - self.done) / rate)}")
        line = ", ".join(parts)
        for s in snapshot(self.stats, self.sources):
            line += (f" | {s.name}: {s.requests} sent, {s.cache_hits} cached, "
                     f"{s.throttled} throttled, {s.retries} retries, {s.failures} failed"
                     + (", PAUSED" if s.paused else ""))
        for meter in list(self.stats.meters.values()):
            line += f" | {meter.line()}"
        return line


class PlainProgress(RunProgress):
    """A plain status line on stderr every ``interval_s`` seconds (stderr not a terminal)."""

    def __init__(self, stats: RunStats, sources: Sequence[str], *, total: int | None,
                 done: int = 0, console: Console, interval_s: float = PLAIN_INTERVAL_S) -> None:
        super().__init__(stats, sources, total=total, done=done)
        self._console = console
        self._interval_s = interval_s
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        super().start()
        # A thread, not a loop task: the display must tick while the loop waits on I/O,
        # and it must not be a task that outlives the call that started it.
        self._thread = threading.Thread(target=self._tick, name="progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _tick(self) -> None:
        while not self._stopping.wait(self._interval_s):
            self._console.print(self.status_line(), markup=False, highlight=False,
                                soft_wrap=True)


class LiveProgress(RunProgress):
    """The rich live display (stderr is a terminal)."""

    def __init__(self, stats: RunStats, sources: Sequence[str], *, total: int | None,
                 done: int = 0, console: Console) -> None:
        super().__init__(stats, sources, total=total, done=done)
        self._progress = _SourcesProgress(self, console)
        self._task: TaskID | None = None

    def start(self) -> None:
        super().start()
        self._task = self._progress.add_task("checking", total=self.total,
                                             completed=self.done)
        self._progress.start()

    def advance(self) -> None:
        super().advance()
        if self._task is not None:
            self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()

    def sources_table(self) -> Table:
        table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
        for header in ("source", "sent", "cached", "429s", "retries", "failed", ""):
            table.add_column(header, justify="left" if header in ("source", "") else "right")
        for s in snapshot(self.stats, self.sources):
            state = Text("paused", style="yellow bold") if s.paused else Text("")
            table.add_row(s.name, str(s.requests), str(s.cache_hits), str(s.throttled),
                          str(s.retries), str(s.failures), state)
        return table


class _SourcesProgress(Progress):
    """rich's progress bar with the per-source table under it."""

    def __init__(self, owner: LiveProgress, console: Console) -> None:
        self._owner = owner  # before rich's __init__, which may render already
        super().__init__(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            _RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            refresh_per_second=REFRESH_PER_SECOND,
            # Results may be going to stdout: never capture it into the display.
            redirect_stdout=False,
            redirect_stderr=False,
        )

    def get_renderables(self) -> Iterable[RenderableType]:
        yield from super().get_renderables()
        yield self._owner.sources_table()


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text(f"{speed:.1f}/s" if speed is not None else "-/s", style="progress.data.speed")


def open_progress(stats: RunStats, sources: Sequence[str], *, total: int | None, done: int = 0,
                  quiet: bool = False, live: bool | None = None,
                  console: Console | None = None) -> RunProgress:
    """The display that fits: none if ``quiet``, live if ``live`` (default: stderr is a
    terminal), plain status lines otherwise."""
    if quiet:
        return RunProgress(stats, sources, total=total, done=done)
    console = console or Console(stderr=True)
    if live is None:
        live = console.is_terminal
    if live:
        return LiveProgress(stats, sources, total=total, done=done, console=console)
    return PlainProgress(stats, sources, total=total, done=done, console=console)


def print_summary(counts: Tally, stats: RunStats, elapsed: float, output_path: Path | None, *,
                  earlier: int = 0, interrupted: bool = False,
                  input_entries: int | None = None, notices: Sequence[str] = (),
                  console: Console | None = None) -> None:
    """The end-of-run summary on stderr (see :func:`summary_lines`)."""
    console = console or Console(stderr=True)
    for line in summary_lines(counts, stats, elapsed, output_path, earlier=earlier,
                              interrupted=interrupted, input_entries=input_entries,
                              notices=notices):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


SUMMARY_FLAGS: tuple[str, ...] = ("retracted",)
"""Flags counted on a line of their own in the summary, when any line carries them."""


def summary_lines(counts: Tally, stats: RunStats, elapsed: float, output_path: Path | None, *,
                  earlier: int = 0, interrupted: bool = False,
                  input_entries: int | None = None, notices: Sequence[str] = ()) -> list[str]:
    """The summary: verdict counts (``counts`` includes the ``earlier`` lines of a resumed
    output), input errors, works flagged retracted, the input's entries against the
    output's lines (a warning when they differ), requests per source, notices, where the
    results are. A heading is printed only with something under it."""
    checked = counts.total - earlier
    rate = f", {checked / elapsed:.1f}/s" if elapsed > 0 and checked else ""
    head = "Interrupted after" if interrupted else "Checked"
    lines = [f"{head} {checked} citation{'s' if checked != 1 else ''} in "
             f"{format_duration(elapsed)}{rate}"
             + (f" (+{earlier} from an earlier run)" if earlier else "")]
    for status in Status:
        lines.append(f"  {status.value:<14}{counts.statuses.get(status, 0):>8}")
    lines.append(f"  {'input errors':<14}{counts.input_errors:>8}")
    for flag in SUMMARY_FLAGS:
        if counts.flags.get(flag):
            lines.append(f"  {flag:<14}{counts.flags[flag]:>8}")
    if input_entries is not None:
        lines.append(f"Count: input: {input_entries} entries, output: {counts.total} lines")
        if input_entries != counts.total:
            lines.append(f"  warning: the input holds {input_entries} entries but the output "
                         f"has {counts.total} lines (each entry should give exactly one)")
    sources = [s for s in snapshot(stats)
               if s.requests or s.cache_hits or s.throttled or s.retries or s.failures]
    if sources:
        lines.append("Requests per source:")
    for s in sources:
        lines.append(f"  {s.name:<16}{s.requests:>6} sent, {s.cache_hits} cache hits, "
                     f"{s.throttled} throttled, {s.retries} retries, {s.failures} failed")
    for meter in list(stats.meters.values()):
        lines.append(meter.line())
    if stats.notices:
        lines.append("Notices:")
        lines.extend(f"  {notice}" for notice in stats.notices)
    if notices:
        lines.append("Input notices (check these entries):")
        lines.extend(f"  {notice}" for notice in notices)
    where = str(output_path) if output_path is not None else "stdout"
    lines.append(f"Results: {where}")
    if interrupted and output_path is not None:
        lines.append(f"Continue with: --output {output_path} --resume")
    return lines


def format_duration(seconds: float) -> str:
    """``12.3s``, ``4m05s`` or ``2h03m``."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
