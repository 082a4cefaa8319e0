"""Two source trees' speed side by side in one run: the ratio a change makes.

    verifier bench compare --base REV [--head DIR] [--bench throughput|rerun]
        [--base-python PATH] [--head-python PATH] [--pairs N] [--json FILE]
        [-- BENCH-ARGUMENTS]

Runs ``verifier bench throughput`` (default; arguments after ``--``, default
``--distinct 2000 --repeated 10000``) or ``verifier bench rerun`` (the cached 636 re-run
end to end; default ``--runs 5``) from the ``--base`` tree and from the ``--head`` tree
(default: this checkout), alternately, ``--pairs`` times (default 3), each run a fresh
process with a fresh world and cache, both reading the data this checkout reads
(``--data`` after ``--`` names another). The order turns round every pair (base then
head, head then base, ...), so a machine that slows down or speeds up during the run
favours neither tree. Prints each pair's figures and the ratio head / base (citations
per CPU-second: higher is faster; re-run seconds: lower is faster), and says so when
the two trees' statuses differ (a speed change must not change a verdict).

``--base`` is a directory holding a source tree, or a git revision of this checkout,
exported (``git archive``) to a temporary folder for the run. Both trees run on this
interpreter and its installed dependencies, each importing its own ``verifier``; a tree
that needs other dependencies cannot be compared this way (checked before anything runs).
``--base-python``/``--head-python`` run a tree's throughput bench on another interpreter
(another venv's ``python``; the tree's compiled modules must be built for it): the same
source on two builds of Python compares the interpreters.

A ratio is the only figure worth comparing across days: this machine is shared, and the
same code has measured a third slower from one day to the next.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from bench_args import result_file, write_result
from walters_wilder import DEFAULT_DATA, exit_on_sigterm

HERE = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Compared:
    """What is compared of one bench: its default arguments, each figure as (name, where
    in the result file, where that figure's statuses are, what it measures), and whether
    this checkout's bench times each tree (``--cli-tree``) rather than the tree's own."""

    default_args: tuple[str, ...]
    figures: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...]
    timed_from_here: bool = False


BENCHES: dict[str, Compared] = {
    "throughput": Compared(
        ("--distinct", "2000", "--repeated", "10000"),
        (("distinct", ("distinct", "per_cpu_s"), ("distinct", "status_counts"),
          "citations per CPU-second, higher is faster"),
         ("repeated", ("repeated", "per_cpu_s"), ("repeated", "status_counts"),
          "citations per CPU-second, higher is faster"))),
    "rerun": Compared(
        ("--runs", "5"),
        (("rerun", ("median_s",), ("status_counts",),
          "seconds end to end (median of the runs), lower is faster"),),
        timed_from_here=True),
}

Runner = Callable[[str, Path], dict[str, Any]]
"""Runs the bench from a tree (named ``base`` or ``head``) and returns its result file's
content."""


class CompareError(Exception):
    """A tree that cannot be run, or a run that failed: said in one line."""


def run_order(pairs: int) -> list[str]:
    """Which tree runs when: base then head, then head then base, and so on."""
    order: list[str] = []
    for n in range(pairs):
        order += ["base", "head"] if n % 2 == 0 else ["head", "base"]
    return order


def _at(result: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = result
    for key in path:
        value = value[key]
    return value


def compare(runner: Runner, trees: dict[str, Path], pairs: int,
            compared: Compared = BENCHES["throughput"]) -> dict[str, Any]:
    """Run ``runner`` over the trees in :func:`run_order` and pair the results: each
    pair's figures and ratios (head / base), and their range."""
    runs: dict[str, list[dict[str, Any]]] = {"base": [], "head": []}
    for n, name in enumerate(run_order(pairs), 1):
        print(f"run {n}/{2 * pairs}: {name} ({trees[name]})", file=sys.stderr, flush=True)
        runs[name].append(runner(name, trees[name]))
    rows = []
    for base, head in zip(runs["base"], runs["head"], strict=True):
        row: dict[str, Any] = {}
        for name, where, statuses, _ in compared.figures:
            b, h = _at(base, where), _at(head, where)
            row[name] = {"base": b, "head": h, "ratio": round(h / b, 3) if b and h else None,
                         "same_statuses": _at(base, statuses) == _at(head, statuses)}
        rows.append(row)
    summary = {}
    for name, _, _, measures in compared.figures:
        ratios = [r[name]["ratio"] for r in rows if r[name]["ratio"] is not None]
        summary[name] = {"measures": measures, "ratio_min": min(ratios, default=None),
                         "ratio_max": max(ratios, default=None),
                         "same_statuses": all(r[name]["same_statuses"] for r in rows)}
    return {"trees": {k: str(v) for k, v in trees.items()}, "pairs": rows, "summary": summary}


def print_table(result: dict[str, Any]) -> None:
    names = list(result["summary"])
    print("| pair | " + " | ".join(f"{n} base → head | ratio" for n in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for n, row in enumerate(result["pairs"], 1):
        print(f"| {n} | " + " | ".join(
            f"{row[name]['base']:,} → {row[name]['head']:,} | ×{row[name]['ratio']}"
            for name in names) + " |")
    for name, s in result["summary"].items():
        same = "same statuses" if s["same_statuses"] else "STATUSES DIFFER"
        print(f"{name} ({s['measures']}): head / base ×{s['ratio_min']}–×{s['ratio_max']} "
              f"({same})")


def tree_of(value: str, repo: Path, scratch: Path) -> Path:
    """The directory ``value`` names, or the git revision ``value`` of ``repo`` exported
    under ``scratch``."""
    given = Path(value)
    if given.is_dir():
        return given.resolve()
    target = scratch / "base"
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", value],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        raise CompareError(f"--base {value!r} is neither a directory nor a git revision of "
                           f"{repo}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def tree_path(tree: Path) -> str:
    """The ``PYTHONPATH`` that makes this interpreter import ``verifier`` from ``tree``."""
    return os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes this interpreter import ``verifier`` from ``tree``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = tree_path(tree)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both trees start as a user's process does
    return env


def check_tree(tree: Path, bench: str | None = None, python: str = sys.executable) -> None:
    """``CompareError`` unless ``tree`` holds a source tree (with ``bench``, if given)
    that ``python`` (default: this interpreter) imports ``verifier`` from."""
    if not (tree / "verifier" / "__init__.py").is_file():
        raise CompareError(f"{tree} holds no verifier source tree")
    if bench is not None and not (tree / "bench" / f"{bench}.py").is_file():
        raise CompareError(f"{tree} holds no bench/{bench}.py")
    try:
        probe = subprocess.run([python, "-c", "import verifier; print(verifier.__file__)"],
                               cwd=tree, env=tree_env(tree), capture_output=True, text=True,
                               check=False)
    except OSError as exc:
        raise CompareError(f"{python}: cannot be run as an interpreter: {exc}") from exc
    if probe.returncode != 0:
        raise CompareError(f"{tree}: 'import verifier' fails on {python}: "
                           f"{probe.stderr.strip().splitlines()[-1:]}")
    found = Path(probe.stdout.strip()).resolve()
    if not found.is_relative_to(tree.resolve()):
        raise CompareError(f"{tree}: {python} imports verifier from {found}, not from the "
                           "tree")


def subprocess_runner(bench: str, bench_args: Sequence[str], scratch: Path,
                      compared: Compared, pythons: Mapping[str, str]) -> Runner:
    """Run ``verifier bench BENCH`` from each tree in a process of its own (or, for a
    bench :attr:`Compared.timed_from_here`, this checkout's, told to time the tree), on
    the tree's interpreter: ``pythons[name]`` (``main`` fills in this interpreter for a
    tree given none)."""
    counter = iter(range(1, 1_000_000))

    def run(name: str, tree: Path) -> dict[str, Any]:
        out = scratch / f"{name}-{next(counter)}.json"
        command = [pythons[name], "-m", "verifier", "bench", bench, *bench_args,
                   "--json", str(out)]
        if compared.timed_from_here:
            command += ["--cli-tree", str(tree)]
        done = subprocess.run(command, cwd=HERE if compared.timed_from_here else tree,
                              env=os.environ.copy() if compared.timed_from_here
                              else tree_env(tree), check=False)
        if done.returncode != 0 or not out.is_file():
            raise CompareError(f"the {bench} bench of {name} ({tree}) failed with exit "
                               f"code {done.returncode}")
        result: dict[str, Any] = orjson.loads(out.read_bytes())
        return result

    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench compare",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base", required=True,
                        help="a source tree's directory, or a git revision of this checkout")
    parser.add_argument("--head", default=str(HERE),
                        help="a source tree's directory (default: this checkout)")
    parser.add_argument("--bench", choices=sorted(BENCHES), default="throughput",
                        help="what is compared (default: throughput)")
    for which in ("base", "head"):
        parser.add_argument(f"--{which}-python", metavar="PATH",
                            help=f"the interpreter that runs the {which} tree's throughput "
                                 "bench (default: this one)")
    parser.add_argument("--pairs", type=int, default=3, help="base/head pairs (default 3)")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    parser.add_argument("bench_args", nargs=argparse.REMAINDER,
                        help="after --: the bench's own arguments (default: throughput "
                             + " ".join(BENCHES["throughput"].default_args) + "; rerun "
                             + " ".join(BENCHES["rerun"].default_args) + ")")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error(f"--pairs must be at least 1, got {args.pairs}")
    compared = BENCHES[args.bench]
    pythons = {"base": args.base_python or sys.executable,
               "head": args.head_python or sys.executable}
    if (args.base_python or args.head_python) and compared.timed_from_here:
        parser.error(f"--base-python and --head-python apply to the throughput bench, not "
                     f"to {args.bench}")
    passed = [a for a in args.bench_args if a != "--"] or list(compared.default_args)
    if "--json" in passed:
        parser.error("--json after -- is the compare bench's own: give it before --")
    if "--data" not in passed:  # both trees read this checkout's data, wherever they are
        passed += ["--data", str(DEFAULT_DATA)]
    exit_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        scratch = Path(tmp)
        try:
            trees = {"base": tree_of(args.base, HERE, scratch), "head": Path(args.head).resolve()}
            for name, tree in trees.items():
                check_tree(tree, None if compared.timed_from_here else args.bench,
                           pythons[name])
            result = compare(subprocess_runner(args.bench, passed, scratch, compared,
                                               pythons), trees, args.pairs, compared)
        except CompareError as exc:
            print(f"verifier bench compare: {exc}", file=sys.stderr)
            return 2
    result["bench"] = args.bench
    result["interpreters"] = pythons
    result["bench_args"] = passed
    print_table(result)
    if args.json:
        write_result(args.json, result)
    return 0 if all(s["same_statuses"] for s in result["summary"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
