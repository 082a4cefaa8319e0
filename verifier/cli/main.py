"""The command line: ``verifier check`` and ``verifier demo``.

``verifier check INPUT`` checks the citations in INPUT (one per line; ``-`` reads stdin)
and writes one JSON line per citation (see :mod:`verifier.output`) to ``--output`` or
stdout, in the order they finish. ``verifier demo`` checks the bundled demo references
against the offline stand-in services, through the same run as ``check``.

Exit codes (when several apply, the first of 6, 7, 5, 3, 1 wins):

===  ===================================================================================
0    every citation verified
1    finished; some citation unconfirmed or no_trace, none inconclusive, no input error
2    usage or configuration error, before anything is written: a bad option or value,
     an existing ``--output`` without ``--force`` or ``--resume``, an output another
     run is writing, an input that is a folder
3    finished with at least one inconclusive citation: a source could not answer (down,
     rate-limited, timed out); temporary, so re-checking later may settle it
     (``--output FILE --retry-inconclusive`` checks those again)
4    internal error (the traceback is shown with ``--debug``)
5    finished with at least one input error: an item that cannot be read or has nothing
     to look up; permanent, so fix the input (wins over 3: a re-run cannot fix it)
6    the input holds no citation: nothing was checked, nothing written
7    a ``--fail-on`` gate matched: some line has a status or flag it names (wins over
     1, 3 and 5)
130  interrupted (Ctrl-C or SIGTERM): the output written so far is kept, and
     ``--output FILE --resume`` continues where the run stopped
===  ===================================================================================

With ``--resume`` the exit code and summary cover the whole output file, lines from the
earlier run included.

The output file is safe: an existing one is overwritten only with ``--force`` and
appended to only with ``--resume``; it is opened only once the input, the settings and
the engine (cache included) are open, so a run that fails to start leaves it as it was;
and one run at a time may write it (:class:`~.output.OutputLock`).

Input: for ``text``, one citation per line or a pasted reference list; for ``csv`` and
``tsv``, a header row with the citation text in a column named ``citation_text``,
``citation``, ``text``, ``reference`` or ``ref`` (the first present, any case) and an
optional ``id`` column; for ``jsonl``, a ``text`` (or ``citation``, ``citation_text``,
``reference``) key and an optional ``id``; for the structured formats
(BibTeX, RIS, CSL-JSON, JSON lines with fields) the output's ``input`` is the item's
fields rendered on one line, not the raw record. Doubtful entry boundaries in a pasted
list are printed on stderr as notices naming the line, and the summary compares the
entries in the input with the lines in the output.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Callable,
    Coroutine,
    Generator,
    Iterator,
    Sequence,
)
from contextlib import (
    ExitStack,
    aclosing,
    asynccontextmanager,
    closing,
    contextmanager,
    suppress,
)
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from verifier.arg_types import MAX_CHECK_CONCURRENCY, check_concurrency, positive_number
from verifier.citations.formats import FORMATS
from verifier.citations.inputs import (
    AUTO,
    READERS,
    STDIN,
    InputItem,
    InputSurvey,
    detect_format,
    read_citations,
)
from verifier.citations.models import INPUT_ERROR_FLAG, CitationInput, Report, Status
from verifier.citations.output_file import FormattedWriter
from verifier.errors import ConfigError, InputError
from verifier.http.stats import RunStats
from verifier.settings import (
    DEFAULT_BASE_URLS,
    SOURCE_NAMES,
    VERSION,
    Settings,
    unknown_environment,
)

from . import exit_codes
from .commands import add_commands
from .locations import add_location_arguments, location_pairs
from .output import (
    JsonlWriter,
    LineQueue,
    OutputLock,
    PriorOutput,
    Tally,
    check_output_file,
    check_retry,
    input_error_to_json,
    is_inconclusive_line,
    report_to_json,
    scan_output,
)
from .progress import load_displays, open_progress, print_summary, shown

MAX_CONCURRENCY = MAX_CHECK_CONCURRENCY

OUTPUT_LINGER_S = 0.05
"""How long a decided line may wait to be written with the ones after it (one write per
batch, not one hand-off to the writer thread per line: about 60 ms of a 636-citation
cached re-run). Everything is written before the run ends, interrupted or not."""

EXIT_CODES_HELP = """\
exit codes (when several apply: 6, then 7, 5, 3, 1):
  0    every citation verified
  1    finished; some citation unconfirmed or no_trace, none inconclusive, no input error
  2    usage or configuration error; nothing written (an existing --output needs --force
       or --resume; an output another run is writing is refused)
  3    finished with an inconclusive citation: a source could not answer (temporary;
       --output FILE --retry-inconclusive checks those again later)
  4    internal error (traceback with --debug)
  5    finished with an input error: an item that cannot be read (permanent; fix the
       input; wins over 3)
  6    the input holds no citation: nothing checked, nothing written
  7    a --fail-on gate matched (wins over 1, 3 and 5)
  130  interrupted (Ctrl-C, SIGTERM): output so far is kept; --output FILE --resume continues
"""

FAIL_ON_FLAGS: tuple[str, ...] = (
    "retracted", "no_authors_cited", "input_error", "title_by_other_authors", "doi_mismatch",
    "identifier_mismatch", "correction", "expression_of_concern",
)
"""The flags ``--fail-on`` accepts (beside the statuses): those the engine sets
(``verifier.citations.checker``, ``plan_run``) and the notices sources attach."""
FAIL_ON_NAMES: tuple[str, ...] = (
    *(s.value for s in Status if s is not Status.VERIFIED), *FAIL_ON_FLAGS)

DEMO_MAILTO = "demo@example.org"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        if exc.code is None:
            return 0
        return exc.code if isinstance(exc.code, int) else exit_codes.USAGE
    handler: Callable[[argparse.Namespace], int] = args.handler
    for warning in unknown_environment(os.environ):
        _error(f"verifier: warning: {warning}")
    try:
        return handler(args)
    except ConfigError as exc:
        _error(f"verifier {args.command}: error: {exc}")
        return exit_codes.USAGE
    except KeyboardInterrupt:  # before or after the run itself (which handles its own)
        return exit_codes.INTERRUPTED
    except Exception as exc:
        if args.debug:
            traceback.print_exc()
        else:
            _error(f"verifier: internal error: {type(exc).__name__}: {exc} "
                   "(--debug shows the traceback)")
        return exit_codes.INTERNAL


# -- argument parsing -------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line naming the bad value (no usage dump), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(exit_codes.USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="verifier",
        description="Check that cited works exist and are cited correctly.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"verifier {VERSION}")
    common = _Parser(add_help=False)
    common.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="write JSON lines to FILE (default: stdout); an existing FILE "
                             "needs --force (overwrite) or --resume (append)")
    common.add_argument("--force", action="store_true",
                        help="overwrite an existing --output FILE (only once the run has "
                             "started: a run that fails to start leaves it as it was)")
    common.add_argument("--quiet", "-q", action="store_true",
                        help="no progress display and no summary on stderr")
    common.add_argument("--debug", action="store_true",
                        help="show the traceback of an internal error")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     parser_class=_Parser)
    _add_check(commands, common)
    demo = commands.add_parser(
        "demo", parents=[common], help="check the demo references against offline stand-ins",
        description="Check the demo references (shipped with the package) against the "
                    "offline stand-in services.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    demo.set_defaults(handler=run_demo)
    add_commands(commands, common)
    return parser


def _add_check(commands: argparse._SubParsersAction[_Parser], common: _Parser) -> None:
    check = commands.add_parser(
        "check", parents=[common], help="check the citations in a file",
        description="Check the citations in INPUT (see --format); write one JSON line each. "
                    "Each line's 'input' is the citation as given: the line of a text list, "
                    "the text column of a table, or, for structured formats (BibTeX, RIS, "
                    "CSL-JSON, JSON lines with fields), the item's fields rendered on one "
                    "line.",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("input", type=Path, metavar="INPUT",
                       help="citations file (not a folder), or - for stdin")
    check.add_argument("--format", default=AUTO, choices=[AUTO, *sorted(READERS)],
                       help="input format (default: auto, from the file extension or the "
                            "first kilobyte). text: one citation per line or a pasted list; "
                            "csv/tsv: a header row, the citation in a column named "
                            "citation_text, citation, text, reference or ref, an optional "
                            "id column")
    check.add_argument("--resume", action="store_true",
                       help="skip the citations already in --output and append the rest")
    check.add_argument("--retry-inconclusive", action="store_true",
                       help="as --resume, and check again the citations --output holds as "
                            "inconclusive (their lines are replaced)")
    check.add_argument("--concurrency", type=check_concurrency, default=16, metavar="N",
                       help=f"citations checked at once (1..{MAX_CONCURRENCY}, default 16)")
    check.add_argument("--sources", type=_sources, metavar="LIST",
                       help=f"comma-separated sources to ask ({','.join(SOURCE_NAMES)}); "
                            "default: all eight")
    cache = check.add_mutually_exclusive_group()
    cache.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    cache.add_argument("--refresh", action="store_true",
                       help="ignore cached answers, fetch anew and store them")
    check.add_argument("--cache-dir", type=Path, metavar="DIR", help="disk cache folder")
    check.add_argument("--mailto", type=_mailto, metavar="ADDR",
                       help="contact address sent to the services (polite pools)")
    add_location_arguments(check)
    check.add_argument("--time-scale", type=_positive_factor, metavar="X",
                       help="divide every published rate interval by X: only against an "
                            "offline world served with the same --time-scale (tests, "
                            "benchmarks, the soak)")
    check.add_argument("--fail-on", type=_fail_on, default=(), metavar="LIST",
                       help="exit 7 if any line has one of these statuses or flags, e.g. "
                            f"retracted,no_trace (known: {', '.join(FAIL_ON_NAMES)})")
    check.add_argument("--deadline", type=_positive_seconds, metavar="SECONDS",
                       help="per-citation deadline in seconds (default 120)")
    check.add_argument("--format-out", default="jsonl", choices=FORMATS,
                       help="output format: jsonl (default), csv, bibtex (corrected entries "
                            "under the input's keys), markdown or html (a report of the run)")
    check.set_defaults(handler=run_check)


def _sources(value: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip().lower() for n in value.split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"{value!r} names no source")
    unknown = [n for n in names if n not in SOURCE_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown source {', '.join(map(repr, unknown))} (known: {', '.join(SOURCE_NAMES)})")
    return names


def _fail_on(value: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip().lower() for n in value.split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"{value!r} names no status or flag")
    unknown = [n for n in names if n not in FAIL_ON_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown status or flag {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(FAIL_ON_NAMES)})")
    return names


_positive_factor = positive_number()


def _mailto(value: str) -> str:
    try:
        Settings(mailto=value)  # the one place that knows what an address looks like
    except ConfigError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an e-mail address") from None
    return value


_positive_seconds = positive_number("seconds")


# -- commands ---------------------------------------------------------------------------


def run_check(args: argparse.Namespace) -> int:
    """``verifier check``: settings from the environment, then the command line."""
    plan = RunPlan(input_path=args.input, fmt=args.format, output=args.output,
                   resume=args.resume or args.retry_inconclusive,
                   concurrency=args.concurrency, quiet=args.quiet,
                   force=args.force, fail_on=args.fail_on,
                   format_out=args.format_out, retry_inconclusive=args.retry_inconclusive)
    plan.validate()
    settings = check_settings(args)
    return run_and_report(plan, lambda run, writer: run.verify_all(settings, writer))


def check_settings(args: argparse.Namespace) -> Settings:
    """Settings.from_env with the command line's overrides (raises ConfigError)."""
    if args.no_cache and args.cache_dir is not None:
        raise ConfigError("--no-cache and --cache-dir contradict each other")
    overrides: dict[str, object] = {}
    if args.mailto is not None:
        overrides["mailto"] = args.mailto
    if args.sources is not None:
        overrides["sources"] = args.sources
    if args.cache_dir is not None:
        overrides["cache_dir"] = args.cache_dir
    if args.no_cache:
        overrides["cache_dir"] = None
    if args.refresh:
        overrides["cache_read"] = False
    if args.deadline is not None:
        overrides["deadline_s"] = args.deadline
    if args.time_scale is not None:
        overrides["time_scale"] = args.time_scale
    return Settings.from_env(None, **overrides).with_base_urls(location_pairs(args))


def run_demo(args: argparse.Namespace) -> int:
    """``verifier demo``: the demo references against the stand-in world, on a fresh cache."""
    from verifier.world.demo import demo_files

    with ExitStack() as stack:
        try:
            demo = stack.enter_context(demo_files())
        except FileNotFoundError as exc:
            raise ConfigError(str(exc)) from None
        cache_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="verifier-demo-"))
        plan = RunPlan(input_path=demo.refs, fmt="text", output=args.output, resume=False,
                       concurrency=16, quiet=args.quiet, force=args.force)
        plan.validate()
        return run_and_report(
            plan, lambda run, writer: _demo(run, writer, demo.corpus, Path(cache_dir)))


async def _demo(run: CheckRun, writer: JsonlWriter, corpus: Path, cache_dir: Path) -> None:
    from verifier.world.server import serve_world  # the stand-in is only needed by the demo

    async with serve_world(corpus) as world:
        await run.verify_all(demo_settings(world.base_urls, cache_dir), writer)


def demo_settings(base_urls: dict[str, str], cache_dir: Path) -> Settings:
    """Settings for the demo: every source the stand-in serves, no keys, nothing from the
    environment (the demo gives the same answers on every machine). The contact address
    puts it in the polite pools, as a real run should be; it only reaches the stand-in."""
    served = tuple(name for name in SOURCE_NAMES if name in base_urls)
    return Settings(mailto=DEMO_MAILTO, base_urls={**DEFAULT_BASE_URLS, **base_urls},
                    sources=served, cache_dir=cache_dir)


# -- the run both commands share --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What a run reads and writes, independent of where the sources live."""

    input_path: Path
    fmt: str
    output: Path | None
    resume: bool
    concurrency: int
    quiet: bool
    force: bool = False
    """Overwrite an existing output (else it needs ``resume``, or the run is refused)."""
    fail_on: tuple[str, ...] = ()
    """Statuses and flags that make the exit code :data:`exit_codes.FAIL_ON`."""

    format_out: str = "jsonl"
    retry_inconclusive: bool = False
    """With ``resume``: the output's inconclusive lines are not done; their citations are
    checked again and the lines replaced."""

    def validate(self) -> None:
        """Usage errors that argparse cannot see (raises ConfigError). Touches no file."""
        check_retry(self.retry_inconclusive, force=self.force, output=self.output,
                    items="citations")
        if self.resume and self.format_out != "jsonl":
            option = "--retry-inconclusive" if self.retry_inconclusive else "--resume"
            raise ConfigError(f"{option} needs the jsonl output format")
        if self.input_path != STDIN:
            if self.input_path.is_dir():
                raise ConfigError(f"input {str(self.input_path)!r} is a directory, not a "
                                  "file of citations")
            if not self.input_path.is_file():
                raise ConfigError(f"input file {str(self.input_path)!r} not found")
        check_output_file(self.output, resume=self.resume, force=self.force,
                          inputs=(self.input_path,))


RunBody = Callable[["CheckRun", JsonlWriter], Coroutine[Any, Any, None]]


def run_and_report(plan: RunPlan, body: RunBody) -> int:
    """Lock the output, read the input, then run ``body`` on an event loop (which opens the
    engine, then the output: :meth:`CheckRun.verify_all`), print the summary, return the
    exit code. Interruption (Ctrl-C, SIGTERM) keeps what was written and returns 130."""
    run = CheckRun(plan)
    interrupted = False
    import verifier.api  # noqa: F401  (the engine, imported off the loop: importing blocks)

    with ExitStack() as stack:
        if plan.output is not None:
            stack.enter_context(OutputLock(plan.output))
        try:
            with run.open_output() as writer:
                try:
                    if run.total != 0:  # an input file with no entry: nothing to start
                        asyncio.run(body(run, writer))
                except (KeyboardInterrupt, asyncio.CancelledError):
                    interrupted = True
        except BrokenPipeError:
            # Whoever read stdout stopped reading (e.g. `| head`): nothing more can be
            # written.
            _silence_stdout()
            interrupted = True
    run.finish(interrupted=interrupted)
    return exit_codes.INTERRUPTED if interrupted else exit_code(run.tally, plan.fail_on)


def exit_code(tally: Tally, fail_on: Sequence[str] = ()) -> int:
    """The exit code of a finished run with these verdicts (see the module docstring):
    the first outcome that applies, in the table's order."""
    if tally.total == 0:
        return exit_codes.EMPTY
    if any(tally.statuses[Status(name)] if name in _STATUS_NAMES else tally.flags[name]
           for name in fail_on):
        return exit_codes.FAIL_ON
    if tally.input_errors:
        return exit_codes.INPUT_ERRORS
    if tally.statuses[Status.INCONCLUSIVE]:
        return exit_codes.INCOMPLETE
    if tally.statuses[Status.UNCONFIRMED] or tally.statuses[Status.NO_TRACE]:
        return exit_codes.NOT_VERIFIED
    return exit_codes.OK


_STATUS_NAMES = frozenset(s.value for s in Status)


class CheckRun:
    """One run of the pipeline: read items, skip those done, verify, write each line.

    It keeps its counts on itself, not in a return value, so an interrupted run can still
    report what it wrote.
    """

    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan
        self.tally = Tally()
        self.stats = RunStats()
        self.prior = PriorOutput()
        self.total: int | None = None
        """Items in the input (None for stdin), known once the output is open."""
        self.read = 0
        """Items read from the input so far (every element, readable or not)."""
        self.notices: dict[str, None] = {}
        """Notices about doubtful entries of the input, each once, in input order."""
        self.started = time.monotonic()

    @property
    def input_name(self) -> str:
        return "stdin" if self.plan.input_path == STDIN else str(self.plan.input_path)

    def open_output(self) -> JsonlWriter:
        """Survey the input (count it, print its notices), read what an output being
        resumed holds, and return the output's writer (stdout if none), which opens the
        file only when :meth:`verify_all` has the engine open. Blocking file work, done
        before the event loop starts."""
        plan = self.plan
        if plan.input_path != STDIN:
            self.total = self._survey().entries
        if plan.output is None:
            return _formatted(JsonlWriter.stdout(), plan.format_out)
        if plan.resume:
            self.prior = scan_output(plan.output, retry_inconclusive=plan.retry_inconclusive)
            self.tally.update(self.prior.tally)
            if self.prior.unreadable and not plan.quiet:
                _error(f"verifier: warning: {self.prior.unreadable} unreadable line(s) in "
                       f"{plan.output}; their citations are checked again")
        retry = is_inconclusive_line if plan.retry_inconclusive else None
        return _formatted(JsonlWriter.deferred(plan.output, append=plan.resume, retry=retry),
                          plan.format_out)

    def _survey(self) -> InputSurvey:
        """Read the whole input file once: its counts (as ``survey_input``) and the notices
        of its doubtful entries, printed now (stderr, once each) unless ``--quiet``."""
        path, fmt = self.plan.input_path, self.plan.fmt
        citations = errors = uncertain = 0
        try:
            name = detect_format(path) if fmt == AUTO else fmt
            with closing(read_citations(path, name)) as items:
                for item in items:
                    if isinstance(item, CitationInput):
                        citations += 1
                        uncertain += bool(item.notices)
                        self._note(item)
                    else:
                        errors += 1
        except OSError as exc:
            raise ConfigError(f"input file {str(path)!r} cannot be read: "
                              f"{exc.strerror or exc}") from None
        for notice in self.notices:
            self._print_notice(notice)
        return InputSurvey(name, citations + errors, citations, errors, uncertain)

    def _note(self, item: CitationInput) -> list[str]:
        """Record the notices of ``item`` not seen yet; return them."""
        new = [f"{self.input_name}: {notice}" for notice in item.notices
               if f"{self.input_name}: {notice}" not in self.notices]
        self.notices.update(dict.fromkeys(new))
        return new

    def _print_notice(self, notice: str) -> None:
        if not self.plan.quiet:
            _error(f"verifier: notice: {notice}")

    async def verify_all(self, settings: Settings, writer: JsonlWriter) -> None:
        """Verify every item not done yet and write its line as soon as it is known."""
        from verifier.api import Verifier  # imported here: --help stays instant

        plan, total = self.plan, self.total
        done = self.prior.tally.total if total is None else min(self.prior.tally.total, total)
        with _cancel_on_sigterm():
            async with Verifier(settings) as verifier:
                # The output opens at its first line (the writer is deferred): a run that
                # fails to start, or has nothing to write, leaves an existing output as
                # it was.
                self.stats = verifier.stats
                if not plan.quiet:  # rich's import reads files: not on the loop
                    await asyncio.to_thread(load_displays)
                display = open_progress(verifier.stats, settings.sources, total=total,
                                        done=done, quiet=plan.quiet, live=self._live_display())
                async with shown(display), \
                        LineQueue(writer, linger_s=OUTPUT_LINGER_S) as lines, \
                        aclosing(self._pending(lines, display.advance)) as pending, \
                        _closing(verifier.verify_many(pending, concurrency=plan.concurrency)) \
                        as reports:
                    async for report in reports:
                        await lines.put(report_to_json(report))
                        unreadable = INPUT_ERROR_FLAG in report.flags
                        self.tally.add(report.status, input_error=unreadable,
                                       flags=report.flags)
                        display.advance()

    async def _pending(self, lines: LineQueue,
                       advance: Callable[[], None]) -> AsyncGenerator[CitationInput, None]:
        """The items still to verify. Unreadable items are written as error lines on the
        way (they need no engine); items already in a resumed output are skipped."""
        done_ids = self.prior.ids
        position = -1
        async with aclosing(_read_items(self.plan.input_path, self.plan.fmt)) as items:
            async for item in items:
                position += 1  # every item, readable or not, takes the next index
                self.read = position + 1
                if isinstance(item, CitationInput) and self.total is None:
                    self._note(item)  # stdin: printed in the summary
                if isinstance(item, InputError):
                    if item.item not in done_ids:
                        await lines.put(input_error_to_json(item, position))
                        self.tally.add(Status.INCONCLUSIVE, input_error=True)
                        advance()
                elif item.id not in done_ids:
                    yield item

    def _live_display(self) -> bool | None:
        # JSON lines going to the same terminal as the live display would tear it apart.
        if self.plan.output is None and sys.stdout.isatty():
            return False
        return None

    def finish(self, *, interrupted: bool) -> None:
        if not interrupted and self.tally.total == 0:
            _error(f"verifier: no citations in {self.input_name}: nothing was checked, "
                   f"nothing written (exit {exit_codes.EMPTY})")
        if self.plan.quiet:
            return
        entries = self.total if self.total is not None else self.read
        print_summary(self.tally, self.stats, time.monotonic() - self.started, self.plan.output,
                      earlier=self.prior.tally.total, interrupted=interrupted,
                      input_entries=None if interrupted else entries,
                      notices=list(self.notices) if self.plan.input_path == STDIN else ())


async def _read_items(path: Path, fmt: str) -> AsyncGenerator[InputItem, None]:
    items = read_citations(path, fmt)
    if path == STDIN:
        async for item in _read_in_thread(items):
            yield item
        return
    # A local file line reads in microseconds: no need to leave the loop for it.
    with closing(items):
        for item in items:
            yield item


@dataclass(frozen=True, slots=True)
class _EndOfInput:
    error: BaseException | None = None


async def _read_in_thread(
    items: Generator[InputItem, None, None],
) -> AsyncGenerator[InputItem, None]:
    """Items read by a daemon thread: stdin may be a slow pipe, and checks in flight must
    go on while it waits. Not the loop's executor: on Ctrl-C, asyncio.run waits for the
    executor's threads, and one blocked on stdin would hold the exit until EOF."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[InputItem | _EndOfInput] = asyncio.Queue(maxsize=64)

    def hand_over(value: InputItem | _EndOfInput) -> bool:
        try:
            asyncio.run_coroutine_threadsafe(queue.put(value), loop).result()
        except (RuntimeError, concurrent.futures.CancelledError):
            return False  # the loop is closed or closing: the run is over
        return True

    def pump() -> None:
        try:
            for item in items:
                if not hand_over(item):
                    return
        except BaseException as exc:  # handed to the loop, which raises it
            hand_over(_EndOfInput(exc))
        else:
            hand_over(_EndOfInput())

    threading.Thread(target=pump, name="stdin-reader", daemon=True).start()
    while not isinstance(item := await queue.get(), _EndOfInput):
        yield item
    if item.error is not None:
        raise item.error


@asynccontextmanager
async def _closing(reports: AsyncIterator[Report]) -> AsyncGenerator[AsyncIterator[Report], None]:
    """Close an async iterator on exit, so an interrupted run cancels its work at once
    (``async for`` alone leaves an abandoned generator to the garbage collector)."""
    try:
        yield reports
    finally:
        aclose = getattr(reports, "aclose", None)
        if aclose is not None:
            await aclose()


@contextmanager
def _cancel_on_sigterm() -> Iterator[None]:
    """Within the running loop, SIGTERM cancels the current task as Ctrl-C does."""
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    installed = False
    if task is not None:
        with suppress(NotImplementedError, RuntimeError, ValueError):  # not Unix / main thread
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
            installed = True
    try:
        yield
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGTERM)


def _silence_stdout() -> None:
    # Python flushes stdout again at exit; point it at devnull so that flush cannot fail.
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _error(message: str) -> None:
    print(message, file=sys.stderr)


def _formatted(writer: JsonlWriter, format_out: str) -> JsonlWriter:
    return writer if format_out == "jsonl" else FormattedWriter(writer, format_out)
