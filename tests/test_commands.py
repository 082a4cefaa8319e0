"""The commands beside check and demo: sources, world serve, bench."""

from __future__ import annotations

import argparse
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


def test_world_serve_reports_an_unreadable_corpus_under_its_own_name() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "verifier", "world", "serve", "--corpus", "/nonexistent.jsonl"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == ("verifier world serve: cannot read '/nonexistent.jsonl': "
                           "No such file or directory\n")  # not "[Errno 2] ..."


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_world_serve_refuses_a_port_out_of_range_naming_it(
    port: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["world", "serve", "--demo", "--port", port]) == 2  # not an internal error
    err = capsys.readouterr().err
    assert "argument --port: " in err and port in err


def test_world_serve_help_lists_the_world_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["world", "serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: verifier world serve")
    for option in ("--corpus", "--demo", "--port", "--time-scale", "--scenario", "--services",
                   "--no-limits", "--ready-json", "--stop-on-stdin-eof"):
        assert option in out


def test_world_serve_options_are_parsed_by_the_product_cli(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A usage error is the CLI's own one-line error (exit 2), not a pass-through.
    assert main(["world", "serve", "--demo", "--services", "scopus"]) == 2
    assert "invalid choice: 'scopus'" in capsys.readouterr().err
    assert main(["world", "serve", "--demo", "--time-scale", "0"]) == 2
    assert "--time-scale: '0' is not a positive number" in capsys.readouterr().err
    assert main(["world", "serve", "--demo", "--jitter-s", "inf"]) == 2
    assert "--jitter-s: 'inf' is not a non-negative number" in capsys.readouterr().err
    assert main(["world", "serve"]) == 2  # neither --corpus nor --demo
    assert "--corpus" in capsys.readouterr().err


def test_both_entry_points_register_the_same_serve_options() -> None:
    from verifier.cli.main import build_parser
    from verifier.world.cli import build_parser as world_parser

    def serve_options(parser: argparse.ArgumentParser, *path: str) -> set[str]:
        for name in path:
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            parser = sub.choices[name]
        return {o for a in parser._actions for o in a.option_strings}

    assert serve_options(build_parser(), "world", "serve") == \
        serve_options(world_parser(), "serve")
