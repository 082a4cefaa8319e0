"""The progress display and the end-of-run summary."""

from __future__ import annotations

import asyncio
import io
import threading
import time
from pathlib import Path

import pytest
from loop_checks import on_event_loop
from rich.console import Console

from verifier.citations.models import Status
from verifier.cli.output import Tally
from verifier.cli.progress import (
    LiveProgress,
    PlainProgress,
    RunProgress,
    format_duration,
    open_progress,
    print_summary,
    shown,
    snapshot,
    summary_lines,
)
from verifier.http.stats import RunStats


def busy_stats() -> RunStats:
    stats = RunStats()
    crossref = stats.source("crossref")
    crossref.requests, crossref.cache_hits, crossref.throttled = 40, 7, 3
    crossref.retries, crossref.failures, crossref.paused = 2, 1, True
    stats.source("pubmed").requests = 5
    return stats


def console(*, terminal: bool = False) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=terminal, width=200), buffer


def test_snapshot_lists_enabled_sources_first_then_any_other() -> None:
    lines = snapshot(busy_stats(), ["openalex", "crossref"])
    assert [s.name for s in lines] == ["openalex", "crossref", "pubmed"]
    assert lines[0].requests == 0 and not lines[0].paused
    crossref = lines[1]
    assert (crossref.requests, crossref.cache_hits, crossref.throttled, crossref.retries,
            crossref.failures, crossref.paused) == (40, 7, 3, 2, 1, True)


def test_status_line_has_progress_rate_eta_and_each_source() -> None:
    progress = RunProgress(busy_stats(), ["crossref"], total=100, done=20)
    progress._started = time.monotonic() - 10  # 10 s in, 10 done this run: 1/s
    for _ in range(10):
        progress.advance()
    line = progress.status_line()
    assert line.startswith("30/100 done (30%), 1.0/s, ETA 1m10s")
    assert "crossref: 40 sent, 7 cached, 3 throttled, 2 retries, 1 failed, PAUSED" in line
    assert "pubmed: 5 sent" in line


def test_status_line_with_unknown_total() -> None:
    line = RunProgress(RunStats(), ["crossref"], total=None).status_line()
    assert line.startswith("0/? done, 0.0/s |") and "ETA" not in line


def test_plain_progress_prints_a_status_line_every_interval() -> None:
    out, buffer = console()
    stats = RunStats()
    with PlainProgress(stats, ["crossref"], total=3, console=out, interval_s=0.05) as progress:
        progress.advance()
        time.sleep(0.3)
    printed = buffer.getvalue().splitlines()
    assert len(printed) >= 2
    assert all(line.startswith("1/3 done") for line in printed)


def test_live_progress_renders_bar_and_source_table() -> None:
    out, buffer = console(terminal=True)
    with LiveProgress(busy_stats(), ["crossref", "openalex"], total=4, done=1,
                      console=out) as progress:
        progress.advance()
    text = buffer.getvalue()
    assert "2/4" in text
    for word in ("crossref", "openalex", "pubmed", "paused", "429s", "cached"):
        assert word in text


def test_open_progress_picks_the_display() -> None:
    stats = RunStats()
    out, _ = console()
    assert type(open_progress(stats, [], total=1, quiet=True, console=out)) is RunProgress
    assert isinstance(open_progress(stats, [], total=1, console=out), PlainProgress)
    tty, _ = console(terminal=True)
    assert isinstance(open_progress(stats, [], total=1, console=tty), LiveProgress)
    assert isinstance(open_progress(stats, [], total=1, console=tty, live=False), PlainProgress)


def test_summary_counts_statuses_errors_requests_and_output() -> None:
    tally = Tally()
    for status in (Status.VERIFIED, Status.VERIFIED, Status.NO_TRACE, Status.INCONCLUSIVE):
        tally.add(status)
    tally.add(Status.INCONCLUSIVE, input_error=True)
    lines = summary_lines(tally, busy_stats(), 65.0, Path("out.jsonl"), earlier=2)
    text = "\n".join(lines)
    assert lines[0] == "Checked 3 citations in 1m05s, 0.0/s (+2 from an earlier run)"
    assert "  verified             2" in lines
    assert "  unconfirmed          0" in lines
    assert "  no_trace             1" in lines
    assert "  inconclusive         1" in lines
    assert "  input errors         1" in lines
    assert "crossref" in text and "40 sent, 7 cache hits, 3 throttled" in text
    assert lines[-1] == "Results: out.jsonl"


def test_interrupted_summary_says_how_to_continue() -> None:
    out, buffer = console()
    print_summary(Tally(), RunStats(), 3.0, Path("r.jsonl"), interrupted=True, console=out)
    text = buffer.getvalue()
    assert text.startswith("Interrupted after 0 citations in 3.0s")
    assert "Continue with: --output r.jsonl --resume" in text


def test_summary_to_stdout() -> None:
    tally = Tally()
    tally.add(Status.VERIFIED)
    assert summary_lines(tally, RunStats(), 1.0, None)[-1] == "Results: stdout"
    assert summary_lines(Tally(), RunStats(), 1.0, None)[-1] == "Results: none written"


def test_a_summary_with_no_line_says_the_output_was_left_alone() -> None:
    assert summary_lines(Tally(), RunStats(), 1.0, Path("out.jsonl"))[-1] == (
        "Results: none written (out.jsonl left as it was)")


def test_format_duration() -> None:
    assert [format_duration(s) for s in (4.26, 59.9, 65, 3599, 3600, 7384)] == [
        "4.3s", "59.9s", "1m05s", "59m59s", "1h00m", "2h03m"]


class _SlowToStart(RunProgress):
    """A display whose start waits for ``release`` (as a first frame to a paused terminal
    would), recording what happened on which thread."""

    def __init__(self) -> None:
        super().__init__(RunStats(), ["crossref"], total=1)
        self.entered = threading.Event()
        self.release = threading.Event()
        self.events: list[tuple[str, bool]] = []

    def _record(self, event: str) -> None:
        self.events.append((event, on_event_loop()))

    def start(self) -> None:
        self._record("start")
        self.entered.set()
        self.release.wait(timeout=10)
        self._record("started")

    def stop(self) -> None:
        self._record("stop")


@pytest.mark.asyncio
async def test_shown_starts_and_stops_a_display_off_the_loop() -> None:
    display = _SlowToStart()
    display.release.set()
    async with shown(display) as same:
        assert same is display
        assert display.events == [("start", False), ("started", False)]
    assert display.events[-1] == ("stop", False)


@pytest.mark.asyncio
async def test_shown_cancelled_while_starting_stops_the_display_after_its_start() -> None:
    # A run cancelled (Ctrl-C) while its display is still starting must not leave the
    # display running: the stop comes after the start has finished, never before it.
    display = _SlowToStart()

    async def run() -> None:
        async with shown(display):
            raise AssertionError("the body must not run")

    task = asyncio.create_task(run())
    assert await asyncio.to_thread(display.entered.wait, 10)
    task.cancel()
    await asyncio.sleep(0.05)
    assert display.events == [("start", False)], "stopped before its start finished"
    display.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert display.events == [("start", False), ("started", False), ("stop", False)]
