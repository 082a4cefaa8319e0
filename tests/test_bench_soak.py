"""The fault soak's pieces (bench/soak.py): its scenario plays every fault kind the world
knows on every source, and its checks find what they look for."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from soak import SENTINEL, Segment, fault_scenario, memory_figures, read_output, sentinel_hits

from verifier.settings import KEY_ENV_VARS, SOURCE_NAMES
from verifier.world.faults import FAULTS, Scenario


def test_the_soak_scenario_plays_every_fault_on_every_source_at_once() -> None:
    data = fault_scenario()
    scenario = Scenario.from_json(data)  # the world accepts it
    assert len(scenario.windows) == len(data["windows"])
    kinds: dict[str, set[str]] = {}
    for window in data["windows"]:
        kinds.setdefault(window["source"], set()).add(window["fault"])
    assert kinds == {source: set(FAULTS) for source in SOURCE_NAMES}


def test_the_sentinel_is_found_in_any_file_under_a_folder(tmp_path: Path) -> None:
    (tmp_path / "cache" / "ab").mkdir(parents=True)
    (tmp_path / "cache" / "ab" / "entry").write_bytes(b"\x00url?api_key=" + SENTINEL.encode())
    (tmp_path / "out.jsonl").write_text('{"id": "a"}\n')
    assert sentinel_hits(tmp_path / "out.jsonl", tmp_path / "cache") == [
        str(tmp_path / "cache" / "ab" / "entry")]
    assert set(KEY_ENV_VARS)  # the checker gets the sentinel in every one of these


def test_read_output_counts_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "a", "status": "verified"}\n{"id": "b", "status": "no_trace"}\n'
                   '{"id": "a", "status": "verified"}\n')
    by_id, seen = read_output(out)
    assert set(by_id) == {"a", "b"} and seen == Counter({"a": 2, "b": 1})


def test_memory_is_flat_only_when_the_last_quarter_stays_near_the_second() -> None:
    flat = Segment(0, rss_mb=[(0, 60.0), (300, 80.0), (600, 82.0), (900, 84.0)])
    assert memory_figures([flat], 1000) == {
        "peak_rss_mb_by_quarter_of_output": [60.0, 80.0, 82.0, 84.0], "flat": True}
    growing = Segment(0, rss_mb=[(0, 60.0), (300, 80.0), (600, 120.0), (900, 160.0)])
    assert memory_figures([growing], 1000)["flat"] is False
