"""``verifier judge``: judge review comments against papers' claims, and check the papers'
references, on one event loop.

::

    verifier judge papers.jsonl [--comments comments.jsonl] --output judged.jsonl \\
        [--references refs.jsonl] [--report report.json] [--resume]

- ``papers.jsonl``: ``{paper_id, title, text[, references]}`` or the eLife / NeurIPS
  records as they are (their reviews become the ``human`` source);
  ``--comments``: ``{paper_id, source, comment}`` lines for other sources.
- ``--output``: one line per paper and source, written and flushed as decided
  (:mod:`verifier.judge.lines` has the keys); input errors get lines of their own.
- ``--references``: the per-reference reports (``{"paper_id", "report"}`` lines;
  default ``<output>.references.jsonl``); ``--no-references`` skips the check.
- ``--report``: the metrics per source with intervals, tests and kappa
  (:func:`verifier.judge.report.build_report`, plus ``skipped`` counts, ``backend`` and
  ``baseline``); the Markdown table goes to stdout (stderr when the lines do).
- ``--resume``: the (paper, source) pairs already in ``--output`` are not judged again; a
  paper whose every source is done is not read again; a cut-short last line is dropped.

The chat model is the offline baseline unless a backend is wired in
(:func:`chat_model`); every line and the report say which (``baseline``).

Exit codes: 0 all judged; 3 finished with input errors or sources not judged; 2 usage;
4 internal error; 130 interrupted (``--resume`` continues).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Iterator
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from verifier.citations.checker import CitationChecker
from verifier.errors import ConfigError
from verifier.judge.inputs import (
    PaperInput,
    add_comments,
    read_comments,
    read_papers,
)
from verifier.judge.lines import input_error_line, judgements_of, line_id, source_line
from verifier.judge.pipeline import Judge, JudgeOptions
from verifier.judge.published import load_published_means
from verifier.judge.report import build_report, markdown_table
from verifier.judge.run import JudgeRun, PaperResult, ReferenceSummary, RunOptions
from verifier.llm.interfaces import ChatModel
from verifier.llm.preflight import check_model_endpoints
from verifier.reviews.models import ItemError
from verifier.session import Session
from verifier.settings import Settings

from . import exit_codes
from .locations import location_pairs
from .output import (
    JsonlWriter,
    LineQueue,
    check_distinct_outputs,
    check_output_file,
    check_retry,
    line_object,
)


def chat_model(session: Session) -> ChatModel:
    """The judge's chat model, as the settings say (``VERIFIER_LLM_*``); the offline
    baseline when none is configured."""
    from verifier.llm.select import open_models

    return open_models(session)[1]


# ----------------------------------------------------------------------------- prior output


@dataclass(slots=True)
class Prior:
    ids: set[str] = field(default_factory=set)
    references: dict[str, dict[str, Any]] = field(default_factory=dict)
    reports: set[tuple[str, str]] = field(default_factory=set)
    """(paper id, report id) of the per-reference reports already written: a paper whose
    references were checked only in part before an interruption is checked again, and
    the reports written the first time are not written twice."""
    """paper_id → the reference summary an earlier line carries."""


def references_said(references: ReferenceSummary) -> str:
    """A paper's reference check in a few words, for the progress line: not checked, none
    found (so a user does not read "0" as "all fine"), or the count by status."""
    if not references.checked:
        return "references not checked"
    if references.total == 0 and references.input_errors == 0:
        return ("references: none found (the record lists none and the text has no "
                "References section)")
    summary = references.as_json()
    unreadable = (f", {references.input_errors} unreadable" if references.input_errors
                  else "")
    return f"references: {summary['total']} {summary['statuses']}{unreadable}"


def read_lines(path: Path) -> Iterator[dict[str, Any] | None]:
    """Each line of an output file as an object (None for an unreadable line); a last
    line without its newline (a killed run's) is left out."""
    with path.open("rb") as stream:
        for raw in stream:
            if not raw.strip() or not raw.endswith(b"\n"):
                continue
            yield line_object(raw)


def is_unfinished(line: dict[str, Any]) -> bool:
    """Whether a line is one ``--retry-inconclusive`` judges again: a source that could
    not be judged (``error``, input errors among them) or was judged only in part
    (``unjudged`` comments)."""
    unjudged = line.get("unjudged")
    return line.get("error") is not None or (isinstance(unjudged, int) and unjudged > 0)


def is_unfinished_line(raw: bytes) -> bool:
    """:func:`is_unfinished` of an output line as written."""
    value = line_object(raw)
    return value is not None and isinstance(value.get("id"), str) and is_unfinished(value)


def scan_prior(path: Path, *, retry_inconclusive: bool = False) -> Prior:
    """What an earlier output holds; with ``retry_inconclusive``, its unfinished lines
    (:func:`is_unfinished`) are not done."""
    prior = Prior()
    if not path.exists():
        return prior
    for line in read_lines(path):
        if line is None or not isinstance(line.get("id"), str):
            continue
        if retry_inconclusive and is_unfinished(line):
            continue
        prior.ids.add(line["id"])
        refs = line.get("references")
        if isinstance(refs, dict) and refs.get("checked") and isinstance(line.get("paper_id"),
                                                                         str):
            prior.references.setdefault(line["paper_id"], refs)
    return prior


def scan_reports(path: Path) -> set[tuple[str, str]]:
    """The (paper id, report id) pairs of a per-reference reports file."""
    found: set[tuple[str, str]] = set()
    if not path.exists():
        return found
    for line in read_lines(path):
        report = line.get("report") if line is not None else None
        if line is not None and isinstance(report, dict) and isinstance(
                line.get("paper_id"), str) and isinstance(report.get("id"), str):
            found.add((line["paper_id"], report["id"]))
    return found


# ----------------------------------------------------------------------------- the command


def run_judge(args: argparse.Namespace) -> int:
    if not args.papers.is_file():
        raise ConfigError(f"papers file {str(args.papers)!r} not found")
    if args.comments is not None and not args.comments.is_file():
        raise ConfigError(f"comments file {str(args.comments)!r} not found")
    if args.no_cache and args.cache_dir is not None:
        raise ConfigError("--no-cache and --cache-dir contradict each other")
    overrides: dict[str, object] = {}
    if args.cache_dir is not None:
        overrides["cache_dir"] = args.cache_dir
    if args.no_cache:
        overrides["cache_dir"] = None
    settings = Settings.from_env(None, **overrides).with_base_urls(location_pairs(args))
    references_path = args.references
    if references_path is None and args.output is not None and not args.no_references:
        references_path = args.output.with_name(args.output.name + ".references.jsonl")
    retry = args.retry_inconclusive
    check_retry(retry, force=args.force, output=args.output, items="(paper, source) pairs")
    resume = args.resume or retry
    inputs = tuple(p for p in (args.papers, args.comments) if p is not None)
    check_distinct_outputs([("--output", args.output), ("--references", references_path),
                            ("--report", args.report)])
    check_output_file(args.output, resume=resume, force=args.force, inputs=inputs)
    if references_path is not None:
        check_output_file(references_path, resume=resume, force=args.force,
                          inputs=inputs, option="--references")
    # The report is written anew at the end of every run: only where it goes is checked.
    check_output_file(args.report, resume=False, force=True, inputs=inputs, option="--report")

    papers: dict[str, PaperInput] = {}
    errors: list[dict[str, Any]] = []
    for item in read_papers(args.papers):
        if isinstance(item, ItemError):
            errors.append(input_error_line(item))
        else:
            papers[item.paper_id] = item
    if args.comments is not None:
        errors += [input_error_line(e) for e in add_comments(papers, read_comments(args.comments))]
    for paper in papers.values():
        errors += [input_error_line(e, paper_id=paper.paper_id) for e in paper.errors]
        if not paper.sources:
            errors.append(input_error_line(ItemError(paper.paper_id,
                                                     "no comments from any source"),
                                           paper_id=paper.paper_id))

    if not (papers or errors):
        # Before any output is touched: existing ones stay as they were.
        print(f"verifier judge: no papers in {args.papers}: nothing was judged, nothing "
              f"written (exit {exit_codes.EMPTY})", file=sys.stderr)
        return exit_codes.EMPTY
    prior = Prior()
    if resume:
        prior = scan_prior(args.output, retry_inconclusive=retry)
        repair_tail_safe(args.output)
        if references_path is not None:
            repair_tail_safe(references_path)
            prior.reports = scan_reports(references_path)
    run = _JudgeCommand(args, settings, papers, errors, prior, references_path)
    started = time.perf_counter()
    interrupted = False
    # Opened once the session is open and the model endpoint checked (main): a run
    # refused at its start leaves an existing output as it was.
    out = JsonlWriter.deferred(args.output, append=resume,
                               retry=is_unfinished_line if retry else None) \
        if args.output is not None \
        else JsonlWriter.stdout()
    refs = JsonlWriter.deferred(references_path, append=resume) \
        if references_path is not None else None
    try:
        asyncio.run(run.main(out, refs))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        out.close()
        if refs is not None:
            refs.close()
    if interrupted:
        return exit_codes.INTERRUPTED
    return run.finish(time.perf_counter() - started)


_SKIPPED_WORDS = {"input_errors": ("input error", "input errors"),
                  "sources_not_judged": ("source not judged", "sources not judged"),
                  "comments_unjudged": ("comment unjudged", "comments unjudged"),
                  "lines_unreadable": ("line unreadable", "lines unreadable")}


def skipped_said(skipped: dict[str, int]) -> str:
    """The report's ``skipped`` counts in words: "skipped nothing", or "skipped: 2 input
    errors, 1 source not judged" (the counts that are not zero)."""
    said = []
    for name, count in skipped.items():
        if count:
            one, many = _SKIPPED_WORDS.get(name, (name.replace("_", " "),) * 2)
            said.append(f"{count} {one if count == 1 else many}")
    return "skipped: " + ", ".join(said) if said else "skipped nothing"


def _open_now(*writers: JsonlWriter | None) -> None:
    for writer in writers:
        if writer is not None:
            writer.open_now()


def repair_tail_safe(path: Path) -> None:
    """Cut a killed run's last line if it has no newline (half-written, or whole but
    unconfirmed: its pair is simply judged again, as :func:`read_lines` skips it)."""
    if not path.exists():
        return
    with path.open("r+b") as stream:
        data = stream.read()
        if data and not data.endswith(b"\n"):
            stream.truncate(data.rfind(b"\n") + 1)


class _JudgeCommand:
    def __init__(self, args: argparse.Namespace, settings: Settings,
                 papers: dict[str, PaperInput], errors: list[dict[str, Any]], prior: Prior,
                 references_path: Path | None) -> None:
        self.args = args
        self.settings = settings
        self.papers = papers
        self.errors = errors
        self.prior = prior
        self.references_path = references_path
        self.backend = "offline"
        self.judged = 0
        self.failed_sources = 0
        self.kept: list[dict[str, Any]] = []
        """Lines written to stdout (no file to read back for the report)."""

    def _plan(self, paper: PaperInput) -> tuple[list[str], bool]:
        todo = [s for s in paper.sources if line_id(paper.paper_id, s) not in self.prior.ids]
        refs = bool(todo) and paper.paper_id not in self.prior.references
        return todo, refs

    async def main(self, out: JsonlWriter, refs: JsonlWriter | None) -> None:
        async with Session(self.settings) as session:
            await check_model_endpoints(session, ("chat",))
            await asyncio.to_thread(_open_now, out, refs)
            await self._judge(session, out, refs)

    async def _judge(self, session: Session, out: JsonlWriter, refs: JsonlWriter | None
                     ) -> None:
        args = self.args
        async with LineQueue(out) as lines:
            chat = chat_model(session)
            self.backend = chat.backend
            judge = Judge(chat, JudgeOptions(calls_per_paper=args.calls_per_paper,
                                             calls_per_source=args.calls_per_source,
                                             batch_size=args.batch_size))
            checker = None if args.no_references else CitationChecker(session)
            runner = JudgeRun(judge, checker, RunOptions(
                papers_in_flight=args.papers_in_flight,
                references_per_paper=args.references_per_paper,
                check_references=not args.no_references))
            for error in self.errors:
                if error["id"] not in self.prior.ids:
                    await lines.put(orjson.dumps(error, option=orjson.OPT_APPEND_NEWLINE))
            todo = [p for p in self.papers.values() if self._plan(p)[0]]
            async with LineQueue(refs) if refs is not None else _NoQueue() as ref_lines:

                written = self.prior.reports

                async def on_reference(paper_id: str, report: Any) -> None:
                    if (paper_id, report.id) in written:
                        return  # written before the interruption
                    written.add((paper_id, report.id))
                    await ref_lines.put(orjson.dumps(
                        {"paper_id": paper_id, "report": report},
                        option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_SERIALIZE_NUMPY))

                async with aclosing(runner.run(todo, on_reference, self._plan)) as results:
                    async for result in results:
                        await self._write(result, lines)

    async def _write(self, result: PaperResult, lines: LineQueue) -> None:
        if result.outcome is None:
            return
        references = result.references
        if not references.checked and result.paper.paper_id in self.prior.references:
            old = self.prior.references[result.paper.paper_id]
            references = ReferenceSummary(True, bool(old.get("given")), int(old["total"]))
            references.statuses.update(old.get("statuses", {}))
            references.flags.update(old.get("flags", {}))
            references.input_errors = int(old.get("input_errors", 0))
        for outcome in result.outcome.sources.values():
            line = source_line(outcome, references, self.backend)
            await lines.put(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE))
            if self.args.output is None:
                self.kept.append(line)
            self.judged += 1
            if outcome.failed is not None or outcome.errors:
                self.failed_sources += 1
        if not self.args.quiet:
            print(f"judged {result.paper.paper_id}: {len(result.outcome.sources)} source(s), "
                  f"{result.outcome.log.calls} call(s); {references_said(references)}",
                  file=sys.stderr)

    def finish(self, elapsed: float) -> int:
        args = self.args
        if args.output is not None:
            collected = judgements_of(read_lines(args.output))
        else:
            collected = judgements_of([*self.errors, *self.kept])
        report: dict[str, Any] = build_report(collected.judgements) if collected.judgements \
            else {"sources": {}, "tests": [], "kappa": {}, "papers": 0}
        report["skipped"] = collected.skipped
        report["backend"] = self.backend
        report["baseline"] = self.backend == "offline"
        if args.report is not None:
            args.report.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))
        table = ""
        if report["sources"]:
            published = None
            if args.published_venue.lower() != "none":
                try:
                    published = load_published_means(args.published_venue)
                except (FileNotFoundError, ValueError) as exc:
                    print(f"verifier judge: published means left out: {exc}", file=sys.stderr)
            table = markdown_table(report, published, f"ReviewBench {args.published_venue}")
            if report["baseline"]:
                table = ("Offline baseline judge (rule-based, not a language model):\n\n"
                         + table)
        stream = sys.stdout if args.output is not None else sys.stderr
        if table and not args.quiet:
            print(table, file=stream)
        if not args.quiet:
            print(f"verifier judge: {self.judged} line(s) judged in {elapsed:.1f}s; "
                  f"{skipped_said(collected.skipped)}", file=sys.stderr)
        return exit_codes.finished(
            input_errors=bool(collected.skipped["input_errors"]),
            incomplete=bool(collected.skipped["sources_not_judged"] or self.failed_sources))


class _NoQueue:
    async def __aenter__(self) -> _NoQueue:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def put(self, line: bytes) -> None:
        return None


__all__ = ["chat_model", "read_lines", "run_judge", "scan_prior"]
