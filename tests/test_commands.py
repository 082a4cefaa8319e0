"""The commands beside check and demo: sources, world serve, bench."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

from verifier.cli.main import main


def test_sources_lists_every_source_with_its_pool_and_limits(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("VERIFIER_MAILTO", "GOOGLE_BOOKS_API_KEY", "OPENALEX_API_KEY",
                 "CROSSREF_PLUS_TOKEN", "NCBI_API_KEY", "S2_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VERIFIER_MAILTO", "me@example.org")
    monkeypatch.setenv("NCBI_API_KEY", "k")
    assert main(["sources", "--json"]) == 0
    rows = {r["name"]: r for r in map(orjson.loads, capsys.readouterr().out.splitlines())}
    assert list(rows) == ["crossref", "openalex", "pubmed", "semanticscholar", "openlibrary",
                          "googlebooks", "doaj", "arxiv"]
    assert rows["crossref"]["pool"] == "polite"
    assert rows["crossref"]["limits"] == "single 10/s, list 3/s; 3 at a time"
    assert rows["pubmed"]["keyed"] and rows["pubmed"]["limits"].startswith("10/s")
    assert not rows["googlebooks"]["enabled"]
    assert "GOOGLE_BOOKS_API_KEY" in rows["googlebooks"]["note"]
    assert rows["arxiv"]["limits"].startswith("1 per 3 s")
    assert main(["sources"]) == 0
    table = capsys.readouterr().out
    assert "googlebooks" in table and "no" in table and "VERIFIER_MAILTO=me@example.org" in table


def test_an_unknown_benchmark_is_a_usage_error_naming_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "nope"]) == 2
    err = capsys.readouterr().err
    assert "'nope'" in err and "walters-wilder" in err and "throughput" in err


def test_world_serve_hands_its_options_to_the_world_server() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "verifier", "world", "serve", "--corpus", "/nonexistent.jsonl"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "verifier world serve" in done.stderr and "nonexistent" in done.stderr
