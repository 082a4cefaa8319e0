"""``verifier bench models`` on a tiny load: the figures it writes are the ones the issue
names, and its accounting holds (usage equals the server's counters, a re-run sends
nothing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_models_bench_writes_its_figures_and_its_accounting_holds(tmp_path: Path) -> None:
    out = tmp_path / "models.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "models.py"), "--papers", "2", "--questions",
         "3", "--self-hosted-papers", "1", "--time-scale", "50", "--json", str(out)],
        check=True, capture_output=True, timeout=120)
    results = json.loads(out.read_text())
    assert set(results["utilisation"]) == {"concurrency", "tpm"}
    assert all(0 < v <= 1.05 for v in results["utilisation"].values())
    assert results["usage_matches_server"] is True
    assert results["rerun_calls"] == 0 and results["rerun_hit_rate"] == 1.0
    assert results["throttled"] == 0
    assert results["wall_s"] > 0 and results["lower_bound_s"] >= 0
    hosted = results["hosted"]
    assert hosted["calls"] == 2 * (3 + 1 + 1)  # logprobs per question, decisions, chat
    assert hosted["usage"]["client"]["replies"] == hosted["requests"]
