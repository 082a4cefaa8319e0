"""``verifier premises``: review comments checked by their premises, one JSON line each.

Input (``--format auto`` picks by the first record):

- **comments** (``jsonl``): JSON lines ``{paper_id, comment_id, comment}``, the paper as an
  inline ``paper`` field or as ``<paper_id>.md`` / ``<paper_id>.txt`` in ``--papers DIR``
  (read once per paper). A missing ``comment_id`` becomes ``<paper_id>:<line>``.
- **eLife** (``elife``): records of ``../shared/data/elife/elife_sample.jsonl``'s shape
  (``manuscript_markdown``, ``reviews_raw_markdown``), split into comments by
  :mod:`verifier.reviews.elife`'s documented splitter.

Output: one line per comment, written and flushed as it is decided (in finishing order),
with the keys of :meth:`~verifier.claims.checker.CommentResult.to_json`:
``paper_id, comment_id, comment, status (scored | inconclusive | input_error), score,
flagged_premise, premises [{text, kind, p_grounded, route, p_true, phrasings, verified}],
fallback, backend, baseline, usage, elapsed_s, error`` and the configuration (``field``,
``aggregate``, ``routing``, ``phrasings``, ``holistic_only``, ``prompts``).

Bad input never stops the run; each gets an ``input_error`` line whose ``error`` names
the item (``reviews.jsonl:3: …``): a line that is not a JSON object, no ``paper_id``, a
comment that is not text, empty, only whitespace or over 5,000 characters, an unknown
paper id, a paper file that cannot be read, a repeated ``(paper_id, comment_id)``.

The input, and each paper once, is read before checking starts (the papers stay in
memory for the run). All comments share one session and one pair of models; at most
``--concurrency`` are in flight.

``--resume`` skips the comments already in ``--output`` (any status) and appends the
rest; a cut-short last line is repaired first. Progress and token use go to stderr.

Exit codes: 0 every comment scored; 3 some comment inconclusive or an input error (the
whole output counted, lines from an earlier run included); 2 usage; 4 internal error;
130 interrupted (the lines written are kept; ``--resume`` continues).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from verifier.arg_types import positive_whole_number, whole_number
from verifier.citations.output_file import line_object
from verifier.errors import ConfigError

from . import exit_codes

if TYPE_CHECKING:
    from verifier.claims.checker import CommentItem, CommentResult, PremiseOptions
    from verifier.llm.interfaces import ChatModel, DecisionModel
    from verifier.session import Session

FORMATS = ("auto", "jsonl", "elife")
DEFAULT_CONCURRENCY = 8
MAX_CONCURRENCY = 256
PROGRESS_INTERVAL_S = 2.0


def add_premises_command(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register ``verifier premises`` on the CLI's sub-parsers."""
    from verifier.claims.aggregate import Aggregate, Field

    parser = commands.add_parser(
        "premises", parents=[common], help="check review comments by their premises",
        description="Score each review comment by the minimum over its premises' "
                    "probability of being true (PremiseCheck); one JSON line per comment.",
        epilog=exit_codes.ITEM_COMMANDS_HELP)
    parser.add_argument("input", type=Path, metavar="INPUT",
                        help="JSON lines of comments, or eLife records")
    parser.add_argument("--papers", type=Path, metavar="DIR",
                        help="folder of <paper_id>.md / <paper_id>.txt papers")
    parser.add_argument("--format", choices=FORMATS, default="auto",
                        help="input shape (default: auto, from the first record)")
    parser.add_argument("--resume", action="store_true",
                        help="skip the comments already in --output and append the rest")
    parser.add_argument("--retry-inconclusive", action="store_true",
                        help="as --resume, and check again the comments --output holds as "
                             "inconclusive or input errors (their lines are replaced)")
    parser.add_argument("--field", choices=[f.value for f in Field], default=Field.GENERAL.value,
                        help="decomposition variant (default: general, 1-6 premises)")
    parser.add_argument("--aggregate", choices=[a.value for a in Aggregate],
                        default=Aggregate.MIN.value, help="min (default) or the mean ablation")
    parser.add_argument("--no-route", action="store_true",
                        help="ablation: verify every premise against the paper")
    parser.add_argument("--phrasings", type=int, default=1, metavar="K",
                        help="average K phrasings of each verifying question (default 1)")
    parser.add_argument("--holistic", action="store_true",
                        help="ablation: one holistic decision per comment, no premises")
    parser.add_argument("--paper-tokens", type=positive_whole_number("tokens"), default=None,
                        metavar="N",
                        help="token budget of the paper in a decision call (default 16000)")
    parser.add_argument("--concurrency", type=whole_number(1, MAX_CONCURRENCY),
                        default=DEFAULT_CONCURRENCY, metavar="N",
                        help=f"comments in progress at once (1..{MAX_CONCURRENCY}, default "
                             f"{DEFAULT_CONCURRENCY})")
    parser.set_defaults(handler=run_premises)


# -- reading the input (before the event loop starts: plain file reads) ---------------------


@dataclass(slots=True)
class Work:
    items: list[CommentItem] = field(default_factory=list)
    errors: list[CommentResult] = field(default_factory=list)
    """Input errors, written as ``input_error`` lines."""


def _error_result(paper_id: str, comment_id: str, comment: str, message: str,
                  options: PremiseOptions) -> CommentResult:
    from verifier.claims.checker import CommentResult, CommentStatus
    from verifier.llm.types import Usage

    return CommentResult(paper_id, comment_id, comment, CommentStatus.INPUT_ERROR, None, None,
                         (), (), False, "", Usage(), 0.0, message, options)


def detect_format(path: Path) -> str:
    """``elife`` when the first JSON object has eLife manuscript or review fields."""
    with path.open("rb") as handle:
        for line in handle:
            if not line.strip():
                continue
            first = line_object(line)
            if first is not None and ("manuscript_markdown" in first
                                      or "reviews_raw_markdown" in first):
                return "elife"
            return "jsonl"
    return "jsonl"


class PaperFolder:
    """``<paper_id>.md`` / ``.txt`` in a folder, each read once."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._read: dict[str, str | Exception | None] = {}

    def text(self, paper_id: str) -> str:
        """The paper's text; raises LookupError (unknown id) or ValueError (unreadable)."""
        if paper_id not in self._read:
            self._read[paper_id] = self._load(paper_id)
        found = self._read[paper_id]
        if found is None:
            where = f" in {self.folder}" if self.folder else " (no --papers folder given)"
            raise LookupError(f"unknown paper id {paper_id!r}: no {paper_id}.md or "
                              f"{paper_id}.txt{where}")
        if isinstance(found, Exception):
            raise ValueError(str(found))
        return found

    def _load(self, paper_id: str) -> str | Exception | None:
        if self.folder is None or not paper_id or Path(paper_id).name != paper_id \
                or paper_id.startswith("."):
            return None
        for suffix in (".md", ".txt"):
            path = self.folder / f"{paper_id}{suffix}"
            if path.is_file():
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    return ValueError(f"paper {path} cannot be read: {exc}")
                if not text.strip():
                    return ValueError(f"paper {path} is empty")
                return text
        return None


def read_work(path: Path, fmt: str, papers: Path | None, options: PremiseOptions) -> Work:
    """Every comment of the input with its paper, or an input error naming it."""
    if fmt == "auto":
        fmt = detect_format(path)
    work = Work()
    seen: set[tuple[str, str]] = set()
    source = _elife_items(path, options, work) if fmt == "elife" else \
        _jsonl_items(path, PaperFolder(papers), options, work)
    for item in source:
        key = (item.paper_id, item.comment_id)
        if key in seen:
            work.errors.append(_error_result(
                item.paper_id, item.comment_id, item.comment,
                f"{item.paper_id}/{item.comment_id}: repeated comment id", options))
            continue
        seen.add(key)
        work.items.append(item)
    return work


def _jsonl_items(path: Path, papers: PaperFolder, options: PremiseOptions,
                 work: Work) -> Iterator[CommentItem]:
    from verifier.claims.checker import CommentItem, comment_problem
    from verifier.reviews.jsonl import records
    from verifier.reviews.models import ItemError

    for record in records(path):
        if isinstance(record, ItemError):
            work.errors.append(_error_result("", record.item, "", f"{record.item}: "
                                             f"{record.reason}", options))
            continue
        where, value = record
        paper_id = value.get("paper_id")
        comment = value.get("comment")
        comment_id = value.get("comment_id")
        text_comment = comment if isinstance(comment, str) else ""
        if not isinstance(paper_id, str) or not paper_id.strip():
            work.errors.append(_error_result("", where, text_comment,
                                             f"{where}: no paper_id", options))
            continue
        comment_id = str(comment_id) if comment_id is not None else f"{paper_id}:{where}"

        def fail(message: str, *, pid: str = paper_id, cid: str = comment_id,
                 at: str = where, said: str = text_comment) -> None:
            work.errors.append(_error_result(pid, cid, said, f"{at}: {message}", options))

        if not isinstance(comment, str):
            fail("the comment must be text" if comment is not None else "no comment")
            continue
        problem = comment_problem(comment)
        if problem is not None:
            fail(problem)
            continue
        inline = value.get("paper")
        if inline is not None:
            if not isinstance(inline, str) or not inline.strip():
                fail("the inline paper is empty or not text")
                continue
            paper = inline
        else:
            try:
                paper = papers.text(paper_id)
            except (LookupError, ValueError) as exc:
                fail(str(exc).strip("'\""))
                continue
        yield CommentItem(paper_id, comment_id, comment, paper)


def _elife_items(path: Path, options: PremiseOptions, work: Work) -> Iterator[CommentItem]:
    from verifier.claims.checker import CommentItem, comment_problem
    from verifier.reviews.elife import elife_comments, read_elife
    from verifier.reviews.models import ItemError

    for paper in read_elife(path):
        if isinstance(paper, ItemError):
            work.errors.append(_error_result("", paper.item, "", f"{paper.item}: "
                                             f"{paper.reason}", options))
            continue
        comments, errors = elife_comments(paper)
        for error in errors:
            work.errors.append(_error_result(paper.paper_id, error.item, "",
                                             f"{error.item}: {error.reason}", options))
        for comment in comments:
            problem = comment_problem(comment.text)
            if problem is not None:
                work.errors.append(_error_result(paper.paper_id, comment.comment_id,
                                                 comment.text,
                                                 f"{comment.comment_id}: {problem}", options))
                continue
            yield CommentItem(paper.paper_id, comment.comment_id, comment.text, paper.text)


# -- resuming ---------------------------------------------------------------------------------


RETRIED_STATUSES = frozenset({"inconclusive", "input_error"})
"""The statuses ``--retry-inconclusive`` checks again."""


def is_retried_line(line: bytes) -> bool:
    """Whether an output line is one ``--retry-inconclusive`` checks again."""
    obj = line_object(line)
    return obj is not None and isinstance(obj.get("comment_id"), str) and \
        obj.get("status") in RETRIED_STATUSES


def done_keys(path: Path, *, retry_inconclusive: bool = False
              ) -> tuple[set[tuple[str, str]], Counter[str]]:
    """``(paper_id, comment_id)`` of every complete line in an earlier output, and the
    count of each status among them (a cut-short last line is not counted). With
    ``retry_inconclusive``, lines of :data:`RETRIED_STATUSES` are not done."""
    keys: set[tuple[str, str]] = set()
    statuses: Counter[str] = Counter()
    if not path.exists():
        return keys, statuses
    with path.open("rb") as handle:
        for line in handle:
            obj = line_object(line)
            if obj is not None and isinstance(obj.get("comment_id"), str):
                if retry_inconclusive and obj.get("status") in RETRIED_STATUSES:
                    continue
                key = (str(obj.get("paper_id") or ""), obj["comment_id"])
                if key not in keys:
                    keys.add(key)
                    statuses[str(obj.get("status"))] += 1
    return keys, statuses


# -- the run --------------------------------------------------------------------------------


def run_models(session: Session) -> tuple[DecisionModel, ChatModel]:
    """The models a run uses, as the settings say (``VERIFIER_LLM_*``,
    ``VERIFIER_DECISION_*``); the offline baselines when none is configured."""
    from verifier.llm.select import open_models

    return open_models(session)


def _options(args: argparse.Namespace) -> PremiseOptions:
    from verifier.claims.aggregate import Aggregate, Field
    from verifier.claims.checker import PremiseOptions, phrasings_allowed
    from verifier.claims.paper_context import DEFAULT_BUDGET

    # The range of --phrasings is the question file's, read only once a run starts.
    low, high = phrasings_allowed()
    if not low <= args.phrasings <= high:
        raise ConfigError(f"--phrasings {args.phrasings} is out of range {low}..{high}")
    return PremiseOptions(field=Field(args.field), aggregate=Aggregate(args.aggregate),
                          routing=not args.no_route, phrasings=args.phrasings,
                          holistic_only=args.holistic,
                          paper_tokens=args.paper_tokens or DEFAULT_BUDGET)


@dataclass(slots=True)
class Progress:
    total: int
    quiet: bool
    done: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    backends: set[str] = field(default_factory=set)
    started: float = field(default_factory=time.monotonic)
    _shown: float = 0.0

    def add(self, line: dict[str, Any]) -> None:
        self.done += 1
        self.statuses[str(line["status"])] += 1
        usage = line["usage"]
        self.prompt_tokens += usage["prompt_tokens"]
        self.cached_tokens += usage["cached_prompt_tokens"]
        self.completion_tokens += usage["completion_tokens"]
        self.requests += usage["requests"]
        if line["backend"]:
            self.backends.add(line["backend"])

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        per = self.prompt_tokens + self.completion_tokens
        per_comment = per / self.done if self.done else 0.0
        backend = ", ".join(sorted(self.backends)) or "none"
        if self.backends and self.backends <= {"offline"}:
            backend += " (a baseline)"
        return (f"premises: {self.done}/{self.total} done in {elapsed:.1f}s; "
                f"{self.statuses['scored']} scored, {self.statuses['inconclusive']} "
                f"inconclusive, {self.statuses['input_error']} input errors; "
                f"{self.requests} model requests, {self.prompt_tokens:,} prompt tokens "
                f"({self.cached_tokens:,} cached) + {self.completion_tokens:,} completion "
                f"= {per_comment:,.0f} tokens per comment; backend {backend}")

    async def maybe_show(self) -> None:
        now = time.monotonic()
        if not self.quiet and now - self._shown >= PROGRESS_INTERVAL_S:
            self._shown = now
            text = self.line()
            await asyncio.to_thread(print, text, file=sys.stderr, flush=True)


def run_premises(args: argparse.Namespace) -> int:
    """``verifier premises``: read, check, write; returns the exit code."""
    # Imported here, not at the top (``--help`` stays instant), and before the loop runs
    # (an import reads files: never on the loop).
    import verifier.claims.checker
    import verifier.llm.interfaces
    import verifier.session  # noqa: F401
    from verifier.cli.output import JsonlWriter, check_output_file, check_retry

    options = _options(args)
    if not args.input.is_file():
        raise ConfigError(f"input file {str(args.input)!r} not found")
    if args.papers is not None and not args.papers.is_dir():
        raise ConfigError(f"--papers {str(args.papers)!r} is not a folder")
    retry = args.retry_inconclusive
    check_retry(retry, force=args.force, output=args.output, items="comments")
    resume = args.resume or retry
    check_output_file(args.output, resume=resume, force=args.force, inputs=(args.input,))
    work = read_work(args.input, args.format, args.papers, options)
    if not (work.items or work.errors):
        # Before the output is touched: an existing one stays as it was.
        print(f"premises: no comments in {args.input}: nothing was checked, nothing written "
              f"(exit {exit_codes.EMPTY})", file=sys.stderr)
        return exit_codes.EMPTY
    done, earlier = done_keys(args.output, retry_inconclusive=retry) if resume \
        else (set(), Counter())
    errors = [e for e in work.errors if (e.paper_id, e.comment_id) not in done]
    items = [i for i in work.items if (i.paper_id, i.comment_id) not in done]
    progress = Progress(total=len(errors) + len(items), quiet=args.quiet)
    # Opened once the session is open and the model endpoints checked (_run): a run
    # refused at its start leaves an existing output as it was.
    writer = JsonlWriter.deferred(args.output, append=resume,
                                  retry=is_retried_line if retry else None) if args.output \
        else JsonlWriter.stdout()
    interrupted = False
    try:
        with writer:
            try:
                asyncio.run(_run(items, errors, options, args.concurrency, writer, progress))
            except (KeyboardInterrupt, asyncio.CancelledError):
                interrupted = True
    except BrokenPipeError:
        interrupted = True
    if not args.quiet:
        print(progress.line() + (" (interrupted)" if interrupted else ""), file=sys.stderr)
        if earlier:
            print(f"premises: {sum(earlier.values())} comment(s) already in {args.output} "
                  "were skipped", file=sys.stderr)
    if interrupted:
        return exit_codes.INTERRUPTED
    statuses = progress.statuses + earlier
    return exit_codes.finished(input_errors=bool(statuses["input_error"]),
                               incomplete=bool(statuses["inconclusive"]))


async def _run(items: list[CommentItem], errors: list[CommentResult], options: PremiseOptions,
               concurrency: int, writer: Any, progress: Progress) -> None:
    from verifier.llm.preflight import check_model_endpoints
    from verifier.session import Session
    from verifier.settings import Settings

    async with Session(Settings.from_env()) as session:
        await check_model_endpoints(session)
        await asyncio.to_thread(writer.open_now)
        await _check(session, items, errors, options, concurrency, writer, progress)


async def _check(session: Any, items: list[CommentItem], errors: list[CommentResult],
                 options: PremiseOptions, concurrency: int, writer: Any,
                 progress: Progress) -> None:
    from verifier.claims.checker import PremiseChecker
    from verifier.cli.output import LineQueue

    async with LineQueue(writer) as lines:
        for error in errors:
            line = error.to_json()
            await lines.put(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
            progress.add(line)
        decisions, chat = run_models(session)
        checker = PremiseChecker(session, decisions=decisions, chat=chat, options=options)
        async for result in checker.check_many(items, concurrency=concurrency):
            line = result.to_json()
            await lines.put(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
            progress.add(line)
            await progress.maybe_show()
