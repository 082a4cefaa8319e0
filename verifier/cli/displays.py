"""The progress displays that draw on stderr (see :mod:`.progress`): plain status lines,
and rich's live display. Imported only when a run shows progress (not ``--quiet``)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

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

from verifier.http.stats import RunStats

from .progress import PLAIN_INTERVAL_S, REFRESH_PER_SECOND, RunProgress, snapshot


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
