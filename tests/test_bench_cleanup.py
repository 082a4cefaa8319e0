"""Benchmarks leave no temporary folder behind when stopped with SIGTERM (issue 9, 17)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from world_helpers import DEMO_DIR

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize("bench", ["walters_wilder", "throughput", "rerun"])
def test_a_benchmark_stopped_by_sigterm_removes_its_temporary_folder(
    tmp_path: Path, bench: str
) -> None:
    citations = tmp_path / "citations.jsonl"
    refs = [line for line in (DEMO_DIR / "refs.txt").read_text().splitlines() if line.strip()]
    citations.write_bytes(b"".join(
        orjson.dumps({"id": f"c{n}", "citation_text": text, "pub_type": "JA",
                      "fabricated": 0}) + b"\n" for n, text in enumerate(refs)))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    options = ["--corpus", str(DEMO_DIR / "corpus.jsonl")]
    if bench == "walters_wilder":
        options += ["--citations", str(citations)]
    else:  # throughput and rerun read <data>/ww2023_citations.csv
        data = tmp_path / "data"
        data.mkdir()
        (data / "ww2023_citations.csv").write_text(
            "id,citation_text,pub_type,fabricated\n"
            + "".join(f'c{n},"{text.replace(chr(34), "")}",JA,0\n' for n, text in enumerate(refs)))
        options += ["--data", str(data)]
        if bench == "throughput":
            options += ["--warm-time-scale", "1"]
    output = tmp_path / "output.txt"  # outside the scratch folder the assertions watch
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, str(REPO_ROOT / "bench" / f"{bench}.py"), *options],
            cwd=REPO_ROOT, env={**os.environ, "TMPDIR": str(scratch)},
            stdout=sink, stderr=subprocess.STDOUT)

    def told() -> str:
        return f"exit code {process.poll()}; its output ends:\n{output.read_text()[-3000:]}"

    def made_folder() -> bool:
        # A folder, not any entry: the first use of tempfile in a process finds its
        # temporary directory by creating and deleting a probe file there, just before
        # the bench's folder is made; a poll that saw only the probe found nothing after.
        return any(entry.is_dir() for entry in scratch.iterdir())

    try:
        deadline = time.monotonic() + 90  # generous: CI machines are shared and noisy
        while time.monotonic() < deadline and not made_folder() and process.poll() is None:
            time.sleep(0.05)
        assert made_folder(), f"the benchmark made no temporary folder; {told()}"
        time.sleep(1.0)  # well inside the run: the world is up, citations in flight
        assert process.poll() is None, f"the benchmark ended before it could be stopped; {told()}"
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 128 + signal.SIGTERM, told()
    assert list(scratch.iterdir()) == []
