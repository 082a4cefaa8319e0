"""The ``judge`` command's arguments, registered without importing the judge.

The judge (its pipeline, models, report) is imported only when ``verifier judge`` runs
(:mod:`.judge`), so every other command, ``verifier --help`` included, starts without it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from verifier.arg_types import whole_number

from .locations import add_location_arguments


def add_judge_command(commands: Any, common: argparse.ArgumentParser) -> None:
    judge = commands.add_parser(
        "judge", parents=[common], help="judge review comments against papers' claims",
        description="Judge each source's review comments against the papers' major claims "
                    "(ReviewBench's steps) and check each paper's references, on one loop.")
    judge.add_argument("papers", type=Path, metavar="PAPERS",
                       help="papers JSON lines (eLife, NeurIPS or {paper_id, title, text})")
    judge.add_argument("--comments", type=Path, metavar="FILE",
                       help="{paper_id, source, comment} JSON lines for other sources")
    judge.add_argument("--references", type=Path, metavar="FILE",
                       help="per-reference reports (default: <output>.references.jsonl)")
    judge.add_argument("--no-references", action="store_true",
                       help="do not check the papers' references")
    judge.add_argument("--report", type=Path, metavar="FILE", help="write report.json")
    judge.add_argument("--resume", action="store_true",
                       help="skip the (paper, source) pairs already in --output")
    judge.add_argument("--retry-inconclusive", action="store_true",
                       help="as --resume, and judge again the pairs --output holds as not "
                            "judged, in part or whole, or as input errors (their lines are "
                            "replaced)")
    judge.add_argument("--papers-in-flight", type=_count, default=4, metavar="N")
    judge.add_argument("--calls-per-paper", type=_count, default=4, metavar="N")
    judge.add_argument("--calls-per-source", type=_count, default=2, metavar="N")
    judge.add_argument("--batch-size", type=_count, default=40, metavar="N",
                       help="comments per model call (default 40)")
    judge.add_argument("--references-per-paper", type=_count, default=8, metavar="N")
    judge.add_argument("--published-venue", default="eLife",
                       help="ReviewBench venue whose published means the table shows "
                            "(eLife, ICLR, NHB; 'none' to leave them out)")
    add_location_arguments(judge)
    judge.add_argument("--cache-dir", type=Path, metavar="DIR")
    judge.add_argument("--no-cache", action="store_true")
    judge.set_defaults(handler=_run_judge)


_count = whole_number(1, 10_000)


def _run_judge(args: argparse.Namespace) -> int:
    from .judge import run_judge

    return run_judge(args)
