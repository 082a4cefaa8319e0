"""Two source trees' throughput side by side in one run: the speed ratio of a change.

    verifier bench compare --base REV [--head DIR] [--pairs N] [--json FILE]
        [-- THROUGHPUT-ARGUMENTS]

Runs ``verifier bench throughput`` (with the arguments after ``--``; default
``--distinct 2000 --repeated 10000``) from the ``--base`` tree and from the ``--head``
tree (default: this checkout), alternately, ``--pairs`` times (default 3), each run a
fresh process with a fresh world and cache, both reading the data this checkout reads
(``--data`` after ``--`` names another). The order turns round every pair (base then
head, head then base, ...), so a machine that slows down or speeds up during the run
favours neither tree. Prints each pair's citations per CPU-second and the ratio head /
base, distinct and repeated, and says so when the two trees' statuses differ (a speed
change must not change a verdict).

``--base`` is a directory holding a source tree, or a git revision of this checkout,
exported (``git archive``) to a temporary folder for the run. Both trees run on this
interpreter and its installed dependencies, each importing its own ``verifier``; a tree
that needs other dependencies cannot be compared this way (checked before anything runs).

A ratio is the only figure worth comparing across days: this machine is shared, and the
same code has measured a third slower from one day to the next.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
from bench_args import result_file, write_result
from walters_wilder import DEFAULT_DATA

HERE = Path(__file__).resolve().parents[1]
DEFAULT_THROUGHPUT_ARGS = ("--distinct", "2000", "--repeated", "10000")
WORKLOADS = ("distinct", "repeated")

Runner = Callable[[str, Path], dict[str, Any]]
"""Runs the throughput bench from a tree (named ``base`` or ``head``) and returns its
result file's content."""


class CompareError(Exception):
    """A tree that cannot be run, or a run that failed: said in one line."""


def run_order(pairs: int) -> list[str]:
    """Which tree runs when: base then head, then head then base, and so on."""
    order: list[str] = []
    for n in range(pairs):
        order += ["base", "head"] if n % 2 == 0 else ["head", "base"]
    return order


def compare(runner: Runner, trees: dict[str, Path], pairs: int) -> dict[str, Any]:
    """Run ``runner`` over the trees in :func:`run_order` and pair the results: each
    pair's per-CPU-second figures and ratios, and their range."""
    runs: dict[str, list[dict[str, Any]]] = {"base": [], "head": []}
    for n, name in enumerate(run_order(pairs), 1):
        print(f"run {n}/{2 * pairs}: {name} ({trees[name]})", file=sys.stderr, flush=True)
        runs[name].append(runner(name, trees[name]))
    rows = []
    for base, head in zip(runs["base"], runs["head"], strict=True):
        row: dict[str, Any] = {}
        for workload in WORKLOADS:
            b, h = base[workload]["per_cpu_s"], head[workload]["per_cpu_s"]
            row[workload] = {"base": b, "head": h,
                             "ratio": round(h / b, 3) if b and h else None}
            row[workload]["same_statuses"] = (
                base[workload]["status_counts"] == head[workload]["status_counts"])
        row["peak_rss_mb"] = {"base": base["rss_mb"]["peak"], "head": head["rss_mb"]["peak"]}
        rows.append(row)
    summary = {}
    for workload in WORKLOADS:
        ratios = [r[workload]["ratio"] for r in rows if r[workload]["ratio"] is not None]
        summary[workload] = {"ratio_min": min(ratios, default=None),
                             "ratio_max": max(ratios, default=None),
                             "same_statuses": all(r[workload]["same_statuses"] for r in rows)}
    return {"trees": {k: str(v) for k, v in trees.items()}, "pairs": rows, "summary": summary}


def print_table(result: dict[str, Any]) -> None:
    print("| pair | distinct base → head | ratio | repeated base → head | ratio |")
    print("|---|---|---|---|---|")
    for n, row in enumerate(result["pairs"], 1):
        d, r = row["distinct"], row["repeated"]
        print(f"| {n} | {d['base']:,} → {d['head']:,} | ×{d['ratio']} "
              f"| {r['base']:,} → {r['head']:,} | ×{r['ratio']} |")
    for workload, s in result["summary"].items():
        same = "same statuses" if s["same_statuses"] else "STATUSES DIFFER"
        print(f"{workload}: head / base ×{s['ratio_min']}–×{s['ratio_max']} ({same})")


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


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes this interpreter import ``verifier`` from ``tree``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both trees start as a user's process does
    return env


def check_tree(tree: Path) -> None:
    """``CompareError`` unless ``tree`` holds a source tree this interpreter imports
    ``verifier`` and its bench from."""
    if not (tree / "verifier" / "__init__.py").is_file() or not (
            tree / "bench" / "throughput.py").is_file():
        raise CompareError(f"{tree} holds no verifier source tree with bench/throughput.py")
    probe = subprocess.run([sys.executable, "-c", "import verifier; print(verifier.__file__)"],
                           cwd=tree, env=tree_env(tree), capture_output=True, text=True,
                           check=False)
    if probe.returncode != 0:
        raise CompareError(f"{tree}: 'import verifier' fails on this interpreter: "
                           f"{probe.stderr.strip().splitlines()[-1:]}")
    found = Path(probe.stdout.strip()).resolve()
    if not found.is_relative_to(tree.resolve()):
        raise CompareError(f"{tree}: this interpreter imports verifier from {found}, not "
                           "from the tree")


def subprocess_runner(throughput_args: Sequence[str], scratch: Path) -> Runner:
    """Run ``verifier bench throughput`` from each tree in a process of its own."""
    counter = iter(range(1, 1_000_000))

    def run(name: str, tree: Path) -> dict[str, Any]:
        out = scratch / f"{name}-{next(counter)}.json"
        done = subprocess.run(
            [sys.executable, "-m", "verifier", "bench", "throughput", *throughput_args,
             "--json", str(out)], cwd=tree, env=tree_env(tree), check=False)
        if done.returncode != 0 or not out.is_file():
            raise CompareError(f"the throughput bench of {name} ({tree}) failed with exit "
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
    parser.add_argument("--pairs", type=int, default=3, help="base/head pairs (default 3)")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    parser.add_argument("throughput", nargs=argparse.REMAINDER,
                        help="after --: the throughput bench's arguments (default: "
                             + " ".join(DEFAULT_THROUGHPUT_ARGS) + ")")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error(f"--pairs must be at least 1, got {args.pairs}")
    passed = [a for a in args.throughput if a != "--"] or list(DEFAULT_THROUGHPUT_ARGS)
    if "--json" in passed:
        parser.error("--json after -- is the compare bench's own: give it before --")
    if "--data" not in passed:  # both trees read this checkout's data, wherever they are
        passed += ["--data", str(DEFAULT_DATA)]
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        scratch = Path(tmp)
        try:
            trees = {"base": tree_of(args.base, HERE, scratch), "head": Path(args.head).resolve()}
            for tree in trees.values():
                check_tree(tree)
            result = compare(subprocess_runner(passed, scratch), trees, args.pairs)
        except CompareError as exc:
            print(f"verifier bench compare: {exc}", file=sys.stderr)
            return 2
    result["throughput_args"] = passed
    print_table(result)
    if args.json:
        write_result(args.json, result)
    return 0 if all(s["same_statuses"] for s in result["summary"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
