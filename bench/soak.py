"""The fault soak: a long ``verifier check`` run through every fault of the world at once,
killed twice with SIGKILL and resumed, compared with a clean run.

    verifier bench soak [--citations N] [--time-scale X] [--concurrency N] [--kills K]
        [--data DIR] [--corpus FILE] [--json FILE]

What it does, in a temporary folder removed at the end (SIGTERM included):

1. builds the Walters & Wilder world (``bench/ww_world.py``) and an input of N citations
   (default 5,000): the 636 W&W citation texts repeated, each copy with its own id (so a
   copy after the first is mostly answered from the run's cache; the faults fall on the
   first requests of each source, where the cache is still empty);
2. the clean run: ``verifier check`` as a subprocess against ``verifier world serve``
   (a child process, :mod:`verifier.world.process`) with no faults, its own cache;
3. the fault run: the same against a world that plays every fault kind the world knows
   (:data:`verifier.world.faults.FAULTS`: 429 with and without Retry-After, 500, 502,
   503, 504, slow past the request timeout, reset, down, malformed, error in a 200, a
   redirect to another host and an endless redirect loop) on
   every source at once, by request count and by world time; the checker is killed with
   SIGKILL at fixed fractions of the output (``--kills``) and started again with
   ``--resume`` each time, until it finishes;
4. compares: every input id exactly once in each output (none lost, none duplicated),
   status changes from the clean run (verified -> no_trace must be 0), the key sentinel
   (``sk-SENTINEL-0000`` set in every key variable of the checker) searched in the
   outputs, the caches and the checkers' stderr, and the checker's resident memory
   (sampled every 0.25 s with the lines written at that moment).

Both runs pass ``--time-scale X`` to the world and the checker alike (every published
limit and every world period divided by X), so the run takes minutes, not hours.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from bench_args import result_file, write_result
from walters_wilder import DEFAULT_DATA, read_citations, run_bench, world_corpus

from verifier.settings import KEY_ENV_VARS, SOURCE_NAMES
from verifier.world.faults import FAULTS
from verifier.world.process import world_process

SENTINEL = "sk-SENTINEL-0000"
"""The fake key set in every key variable of the checker: it must appear nowhere."""
MAILTO = "soak@example.org"
KILL_AT = (0.3, 0.6, 0.8, 0.9)
"""Fractions of the output at which the checker is killed (the first ``--kills``)."""


def fault_scenario() -> dict[str, Any]:
    """Every fault kind on every source at once: windows by request count early in each
    service's life (where the cache is still cold), then by world time (a stretch where
    every other request fails with a 500, and one where the service is down)."""
    by_count: list[dict[str, Any]] = [
        {"fault": "429", "retry_after": 2, "count": 6},
        {"fault": "429", "count": 6},
        {"fault": "503", "count": 4},
        {"fault": "500", "count": 3, "retry_after": 1},
        {"fault": "502", "count": 3},
        {"fault": "504", "count": 3},
        {"fault": "slow", "delay": 25, "count": 2},
        {"fault": "reset", "count": 3},
        {"fault": "malformed", "count": 3},
        {"fault": "error_in_200", "count": 3},
        {"fault": "redirect_host", "count": 3},
        {"fault": "redirect_loop", "count": 2},
    ]
    windows: list[dict[str, Any]] = []
    for source in SOURCE_NAMES:
        start = 5
        for window in by_count:
            windows.append({"source": source, "from_request": start, **window})
            start += window["count"] + 15  # a few good answers between two faults
        windows.append({"source": source, "from_s": 120, "duration_s": 40, "fault": "500",
                        "every": 2})
        windows.append({"source": source, "from_s": 240, "duration_s": 30, "fault": "down"})
    kinds = {w["fault"] for w in windows}
    assert kinds == FAULTS, sorted(FAULTS - kinds)  # every fault the world knows
    return {"description": "The soak: every fault kind on every source at once.",
            "windows": windows}


@dataclass(slots=True)
class Segment:
    """One checker process: until it finished or was killed."""

    started_lines: int
    killed: bool = False
    exit_code: int | None = None
    wall_s: float = 0.0
    rss_mb: list[tuple[int, float]] = field(default_factory=list)
    """(lines in the output, resident MB) every sample."""

    def as_json(self) -> dict[str, Any]:
        rss = [mb for _, mb in self.rss_mb]
        return {"started_at_line": self.started_lines, "killed": self.killed,
                "exit_code": self.exit_code, "wall_s": round(self.wall_s, 1),
                "rss_samples": len(rss),
                "rss_max_mb": round(max(rss), 1) if rss else None}


def count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as stream:
        return sum(block.count(b"\n") for block in iter(lambda: stream.read(1 << 20), b""))


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def checker_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIER_")}
    env.update(dict.fromkeys(KEY_ENV_VARS.values(), SENTINEL))
    return env


async def run_checker(command: list[str], out: Path, stderr: Path, *, total: int,
                      kill_at_lines: int | None) -> Segment:
    """One checker process, its memory sampled; killed with SIGKILL once the output holds
    ``kill_at_lines`` lines (None: let it finish)."""
    segment = Segment(started_lines=count_lines(out))
    started = time.monotonic()
    with stderr.open("ab") as err:
        child = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=err, env=checker_env())
        while child.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(child.wait(), 0.25)
            lines = count_lines(out)
            mb = rss_mb(child.pid) if child.returncode is None else None
            if mb is not None:
                segment.rss_mb.append((lines, mb))
            if kill_at_lines is not None and child.returncode is None and \
                    lines >= kill_at_lines:
                child.send_signal(signal.SIGKILL)
                await child.wait()
                segment.killed = True
    segment.exit_code = child.returncode
    segment.wall_s = time.monotonic() - started
    print(f"  checker {'killed' if segment.killed else 'ended'} (exit {segment.exit_code}) "
          f"at {count_lines(out)}/{total} lines after {segment.wall_s:.1f}s", file=sys.stderr)
    return segment


async def run_through(name: str, corpus: Path, items: Path, work: Path, args: argparse.Namespace,
                      *, total: int, scenario: Path | None, kills: int) -> dict[str, Any]:
    """A whole run of ``items`` against its own world process: killed ``kills`` times and
    resumed, until the checker finishes."""
    out, cache, stderr = work / f"{name}.jsonl", work / f"cache-{name}", work / f"{name}.err"
    segments: list[Segment] = []
    started = time.monotonic()
    async with world_process(corpus, time_scale=args.time_scale, scenario=scenario) as world:
        command = [sys.executable, "-m", "verifier", "check", str(items), "-o", str(out),
                   "--resume", "--world", world.url, "--time-scale", str(args.time_scale),
                   "--concurrency", str(args.concurrency), "--cache-dir", str(cache),
                   "--mailto", MAILTO, "--deadline", str(600.0 / args.time_scale + 60.0)]
        print(f"{name} run: {total} citations, time scale {args.time_scale}"
              + (f", scenario {scenario.name}" if scenario else ""), file=sys.stderr)
        for fraction in KILL_AT[:kills]:
            segments.append(await run_checker(command, out, stderr, total=total,
                                              kill_at_lines=int(total * fraction)))
            if not segments[-1].killed:
                break
        while not segments or segments[-1].killed or segments[-1].exit_code == 130:
            segments.append(await run_checker(command, out, stderr, total=total,
                                              kill_at_lines=None))
        world_stats = await world.stats()
    return {"output": out, "cache": cache, "stderr": stderr, "segments": segments,
            "wall_s": time.monotonic() - started, "world": world_stats}


def read_output(path: Path) -> tuple[dict[str, dict[str, Any]], Counter[str]]:
    """The lines of an output by id, and how many times each id appears."""
    by_id: dict[str, dict[str, Any]] = {}
    seen: Counter[str] = Counter()
    for raw in path.read_bytes().splitlines():
        if not raw.strip():
            continue
        line = orjson.loads(raw)
        seen[line["id"]] += 1
        by_id[line["id"]] = line
    return by_id, seen


def sentinel_hits(*places: Path) -> list[str]:
    """Every file under ``places`` whose bytes hold the key sentinel."""
    needle = SENTINEL.encode()
    hits = []
    for place in places:
        files = [place] if place.is_file() else sorted(p for p in place.rglob("*") if p.is_file())
        for path in files:
            if needle in path.read_bytes():
                hits.append(str(path))
    return hits


def memory_figures(segments: Sequence[Segment], total: int) -> dict[str, Any]:
    """The checker's resident memory over the run: the largest sample in each quarter of
    the output (from the uninterrupted samples of every segment), and whether the last
    quarter stays within 25 % of the second (after the warm-up of caches and pools)."""
    quarters: list[list[float]] = [[], [], [], []]
    for segment in segments:
        for lines, mb in segment.rss_mb:
            quarters[min(3, 4 * lines // max(total, 1))].append(mb)
    peaks = [round(max(q), 1) if q else None for q in quarters]
    flat = None
    if peaks[1] is not None and peaks[3] is not None:
        flat = peaks[3] <= 1.25 * peaks[1]
    return {"peak_rss_mb_by_quarter_of_output": peaks, "flat": flat}


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    citations = read_citations(Path(args.citations_file) if args.citations_file
                               else Path(args.data) / "ww2023_citations.csv")
    with tempfile.TemporaryDirectory(prefix="soak-") as tmp:
        work = Path(tmp)
        corpus = world_corpus(args, work)
        items = work / "citations.jsonl"
        with items.open("wb") as stream:
            for n in range(args.citations):
                c = citations[n % len(citations)]
                stream.write(orjson.dumps({"id": f"{c.id}#{n // len(citations)}",
                                           "text": c.text}) + b"\n")
        scenario = work / "soak_faults.json"
        scenario.write_text(json.dumps(fault_scenario(), indent=1))

        clean = await run_through("clean", corpus, items, work, args, total=args.citations,
                                  scenario=None, kills=0)
        faulty = await run_through("faults", corpus, items, work, args, total=args.citations,
                                   scenario=scenario, kills=args.kills)

        expected = [orjson.loads(line)["id"] for line in items.read_bytes().splitlines()]
        result: dict[str, Any] = {
            "citations": args.citations, "distinct_texts": len(citations),
            "time_scale": args.time_scale, "concurrency": args.concurrency,
            "fault_windows": len(orjson.loads(scenario.read_bytes())["windows"]),
            "fault_kinds": sorted(FAULTS)}
        runs = {}
        for name, run in (("clean", clean), ("faults", faulty)):
            by_id, seen = read_output(run["output"])
            segments: list[Segment] = run["segments"]
            runs[name] = by_id
            result[name] = {
                "wall_s": round(run["wall_s"], 1),
                "kills": sum(s.killed for s in segments),
                "segments": [s.as_json() for s in segments],
                "final_exit_code": segments[-1].exit_code,
                "lines": sum(seen.values()),
                "lost": len(set(expected) - set(by_id)),
                "duplicated": sum(1 for n in seen.values() if n > 1),
                "unexpected": len(set(by_id) - set(expected)),
                "status_counts": dict(Counter(line["status"] for line in by_id.values())),
                "world_requests": run["world"].get("requests"),
                "world_throttled": run["world"].get("throttled"),
                "memory": memory_figures(segments, args.citations),
                "key_sentinel_found_in": sentinel_hits(run["output"], run["cache"],
                                                        run["stderr"]),
            }
        changes: Counter[str] = Counter()
        for cid, line in runs["clean"].items():
            other = runs["faults"].get(cid)
            if other is not None and other["status"] != line["status"]:
                changes[f"{line['status']}->{other['status']}"] += 1
        result["status_changes"] = dict(changes)
        result["verified_to_no_trace"] = changes.get("verified->no_trace", 0)
        result["passed"] = all(
            result[name]["lost"] == 0 and result[name]["duplicated"] == 0
            and result[name]["unexpected"] == 0 and not result[name]["key_sentinel_found_in"]
            for name in ("clean", "faults")) and result["verified_to_no_trace"] == 0 \
            and result["faults"]["kills"] == args.kills
    return result


def report(result: dict[str, Any]) -> None:
    print(f"\nFault soak: {result['citations']} citations ({result['distinct_texts']} "
          f"distinct texts), time scale {result['time_scale']}, {result['fault_windows']} "
          f"fault windows ({len(result['fault_kinds'])} kinds) on every source")
    for name in ("clean", "faults"):
        r = result[name]
        mem = r["memory"]
        print(f"  {name:<7} {r['wall_s']:>7.1f}s, {r['kills']} kill(s), {len(r['segments'])} "
              f"process(es), final exit {r['final_exit_code']}; {r['lines']} lines, "
              f"{r['lost']} lost, {r['duplicated']} duplicated; world {r['world_requests']} "
              f"requests, {r['world_throttled']} throttled; statuses {r['status_counts']}; "
              f"peak RSS by quarter {mem['peak_rss_mb_by_quarter_of_output']} MB "
              f"(flat: {mem['flat']}); key sentinel in {r['key_sentinel_found_in'] or 'nothing'}")
    print(f"  status changes clean -> faults: {result['status_changes'] or 'none'}; "
          f"verified -> no_trace: {result['verified_to_no_trace']}")
    print(f"  passed: {result['passed']}")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="verifier bench soak",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="the W&W data folder (default: ../shared/data/walters_wilder_2023)")
    parser.add_argument("--corpus", help="a world corpus to use instead of generating one")
    parser.add_argument("--citations-file", help="CSV or JSONL with id, citation_text, "
                                                 "pub_type, fabricated (default: the W&W CSV)")
    parser.add_argument("--citations", type=int, default=5000,
                        help="citations in the run (default 5000)")
    parser.add_argument("--time-scale", type=float, default=20.0,
                        help="speed-up of the world and the checker alike (default 20)")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--kills", type=int, default=2, choices=range(len(KILL_AT) + 1),
                        help="SIGKILLs of the checker during the fault run (default 2)")
    parser.add_argument("--json", type=result_file, help="write the result file here")
    args = parser.parse_args(argv)
    if args.citations < 1 or not args.time_scale > 0:
        parser.error("--citations must be positive and --time-scale > 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    result = run_bench("soak", soak(args))
    if result is None:
        return 1
    report(result)
    if args.json:
        write_result(args.json, result)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
