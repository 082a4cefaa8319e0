"""``verifier bench judge``: the world built from references, the utilisation arithmetic,
and the JSON it writes (on a tiny set, against real child processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge import ELIFE, NEURIPS, main, utilisation
from judge_endpoint import EndpointLimits
from judge_world import BANDS, build_corpus, corpus_record, fraction

REFERENCE = ("Kaiming He, Xiangyu Zhang, Shaoqing Ren, and Jian Sun. Deep residual learning "
             "for image recognition. In CVPR, pages 770-778, 2016.")


def test_the_coverage_model_is_a_function_of_the_reference_string(tmp_path: Path) -> None:
    u = fraction(REFERENCE)
    assert 0 <= u < 1 and fraction(REFERENCE) == u
    record = corpus_record(REFERENCE)
    expected = next(sources for bound, sources in BANDS if u < bound)
    if not expected:
        assert record is None
    else:
        assert record is not None and set(record["sources"]) == set(expected)
        assert "residual" in record["title"].lower()
        assert ("doi" in record) == ("crossref" in expected)
    counts = build_corpus([REFERENCE, REFERENCE, "Too short."], tmp_path / "c.jsonl")
    assert counts["references"] == 3 and counts["distinct"] == 2 and counts["untitled"] == 1


def test_rate_limits_bound_only_what_exceeds_the_first_full_bucket() -> None:
    limits = EndpointLimits(rpm=60, tpm=1000, concurrency=2, time_scale=1.0)
    usage = {"busy_s": 10.0, "requests": 30, "charged_tokens": 3000}
    result = utilisation(usage, limits, wall=200.0)
    # tokens: (3000 − 1000) at 1000/min = 120 s; concurrency: 10 s / 2 = 5 s; rpm: 0.
    assert result["bound_s"] == 120.0 and result["binding_limit"] == "tpm"
    assert result["utilisation"] == 0.6
    assert result["utilisation_by_limit"] == {"concurrency": 0.025, "rpm": 0.0, "tpm": 0.6}


@pytest.mark.slow
@pytest.mark.blocking_allowed("the bench is a synchronous script around its own loop")
@pytest.mark.skipif(not (ELIFE.exists() and NEURIPS.exists()),
                    reason="shared eLife/NeurIPS data absent (../shared/data)")
def test_the_bench_json_has_the_documented_fields(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    assert main(["--papers", "6", "--refs-per-paper", "2", "--time-scale", "20",
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    for key in ("utilisation", "rerun_calls", "mixed_wall_s", "alone_wall_s",
                "loop_lag_p99_s", "calls", "cost"):
        assert key in result
    assert set(result["alone_wall_s"]) == {"judge", "citations"}
    assert result["rerun_calls"] == 0 and result["rerun_lookups"] == 0
    assert result["calls"] >= 6 * 4  # claims + parse, map, type per paper at least
    assert result["cost"] > 0 and result["mixed_wall_s"] > 0
    assert result["runs"]["citations"]["lookups"] > 0
    assert result["runs"]["mixed"]["calls"] == result["runs"]["judge"]["calls"]
    baseline = result["baseline_elife"]
    assert "baseline" in baseline["label"]
    assert baseline["metrics"]["mapped_rate"]["reviewbench_200_rerun"] == 0.63
