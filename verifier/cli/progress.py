"""What a run shows on stderr while it works, and the summary it prints at the end.

Three displays share one interface (:class:`RunProgress`): a live rich display when stderr
is a terminal (a bar with done/total, rate and ETA, and one line per source: requests
sent, cache hits, 429s, retries, failures, paused now or not), a plain status line every
few seconds when it is not (CI logs stay readable), and nothing under ``--quiet``.

Displays read the engine's live :class:`~verifier.stats.RunStats` through
:func:`snapshot`, from their own refresh thread: the engine only increments plain
counters, so a snapshot taken off the event loop is at worst a moment old.

The two displays that draw (:class:`~.displays.PlainProgress`,
:class:`~.displays.LiveProgress`) live in :mod:`.displays` with rich, which loads only
when something is shown: a ``--quiet`` run imports no rich.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from verifier.citations.models import Status
from verifier.http.stats import RunStats, SourceStats

from .output import Tally

if TYPE_CHECKING:
    from rich.console import Console

    from .displays import LiveProgress as LiveProgress
    from .displays import PlainProgress as PlainProgress

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
    """A progress display: ``with display: ... display.advance() ...`` (or :meth:`start`
    and :meth:`stop`). A display that draws writes its first frame as it starts and stops
    by joining its own thread: an async caller shows it with :func:`shown`, which starts
    and stops it off the event loop. This base class shows nothing (``--quiet``)."""

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


@asynccontextmanager
async def shown(display: RunProgress) -> AsyncIterator[RunProgress]:
    """``display`` started and, on the way out, stopped, each on a worker thread: starting
    may write a first frame and stopping joins the display's thread, which may be writing
    to stderr (a full pipe, a paused terminal), and neither may hold up the event loop.
    A start interrupted by a cancellation is let finish before the stop, so a display
    never outlives its run (a live one would leave the terminal's cursor hidden)."""
    starting = asyncio.ensure_future(asyncio.to_thread(display.start))
    try:
        await asyncio.shield(starting)
        yield display
    finally:
        await asyncio.wait((starting,))
        await asyncio.to_thread(display.stop)


def load_displays() -> None:
    """Import what :func:`open_progress` shows a display with (rich and the displays):
    importing reads files, so code on an event loop calls this on a worker thread first
    (``await asyncio.to_thread(load_displays)``); a second call costs nothing."""
    import rich.console  # noqa: F401

    from . import displays  # noqa: F401


def open_progress(stats: RunStats, sources: Sequence[str], *, total: int | None, done: int = 0,
                  quiet: bool = False, live: bool | None = None,
                  console: Console | None = None) -> RunProgress:
    """The display that fits: none if ``quiet``, live if ``live`` (default: stderr is a
    terminal), plain status lines otherwise. Imports rich unless ``quiet``: on an event
    loop, call :func:`load_displays` on a worker thread before."""
    if quiet:
        return RunProgress(stats, sources, total=total, done=done)
    from rich.console import Console

    from .displays import LiveProgress as LiveProgress
    from .displays import PlainProgress as PlainProgress

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
    from rich.console import Console

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
    # An output is opened at its first line: with none, nothing was written to it.
    if counts.total:
        lines.append(f"Results: {where}")
    else:
        lines.append("Results: none written" + (f" ({where} left as it was)"
                                                if output_path is not None else ""))
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


def __getattr__(name: str) -> Any:
    # The drawing displays, importable from here as before; rich loads on first use.
    if name in ("LiveProgress", "PlainProgress"):
        from . import displays

        return getattr(displays, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
