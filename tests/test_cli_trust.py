"""The command line keeps its promises (issue 9): an existing output is never destroyed by
a run that fails to start or was not told to overwrite it, two runs never share an output
file, every outcome has its own exit code, and the small things a new user trips on."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from test_cli import clean_environment, few_refs, output_lines, world, world_options  # noqa: F401

import verifier.api  # noqa: F401  (imported before any run: no import inside the loop)
from verifier.citations.models import Status
from verifier.cli import exit_codes
from verifier.cli.commands import BENCH_LIBRARIES
from verifier.cli.main import (
    EXIT_CODES_HELP,
    build_parser,
    check_settings,
    exit_code,
    main,
)
from verifier.cli.output import Tally, drop_inconclusive, scan_output
from verifier.cli.progress import summary_lines
from verifier.errors import ConfigError
from verifier.http.stats import RunStats
from verifier.settings import SOURCE_NAMES, VERSION

REPO_ROOT = Path(__file__).resolve().parents[1]
OLD_RESULTS = b'{"id": "earlier", "status": "verified", "flags": []}\n'


@pytest.fixture
def refs(tmp_path: Path) -> Path:
    path = tmp_path / "refs.txt"
    path.write_text("Smith, J. (2019). A title. Journal, 3(2), 1-9.\n")
    return path


@pytest.fixture
def failing_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine fails as it opens (as a broken cache or transport would)."""
    from verifier.api import Verifier

    async def refuse(self: Verifier) -> Verifier:
        raise ConfigError("the cache could not be opened")

    monkeypatch.setattr(Verifier, "__aenter__", refuse)


# -- item 3: a failed start never empties the output -----------------------------------------


def test_an_existing_output_is_kept_without_force_or_resume(
    refs: Path, tmp_path: Path, failing_start: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(OLD_RESULTS)
    assert main(["check", str(refs), "-o", str(out), "--no-cache"]) == exit_codes.USAGE
    err = capsys.readouterr().err
    assert str(out) in err and "--force" in err and "--resume" in err
    assert out.read_bytes() == OLD_RESULTS


def test_a_run_that_fails_to_start_leaves_the_output_untouched(
    refs: Path, tmp_path: Path, failing_start: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(OLD_RESULTS)
    assert main(["check", str(refs), "-o", str(out), "--no-cache", "--force"]) == exit_codes.USAGE
    assert "the cache could not be opened" in capsys.readouterr().err
    assert out.read_bytes() == OLD_RESULTS
    fresh = tmp_path / "fresh.jsonl"
    assert main(["check", str(refs), "-o", str(fresh), "--no-cache"]) == exit_codes.USAGE
    assert {p.name for p in tmp_path.iterdir()} == {"refs.txt", "out.jsonl"}  # nothing left


def test_force_overwrites_an_existing_output(
    world: dict[str, str], tmp_path: Path, few_refs: Path  # noqa: F811
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(OLD_RESULTS)
    main(["check", str(few_refs), "-o", str(out), "--force", *world_options(world, tmp_path)])
    ids = [line["id"] for line in output_lines(out)]
    assert "earlier" not in ids and len(ids) == len(set(ids)) == 6


# -- item 4: one output file, one run ----------------------------------------------------------


def test_a_second_run_on_the_same_output_is_refused_while_the_first_runs(
    world: dict[str, str], tmp_path: Path, few_refs: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out.jsonl"
    options = world_options(world, tmp_path)
    first = subprocess.Popen(
        [sys.executable, "-m", "verifier", "check", "-", "-o", str(out), "--resume", *options],
        stdin=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO_ROOT)
    assert first.stdin is not None
    try:
        first.stdin.write(few_refs.read_bytes())
        first.stdin.flush()  # stdin stays open: the first run goes on until it closes
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (out.exists() and out.read_bytes()):
            time.sleep(0.05)
        assert out.read_bytes(), "the first run wrote nothing"
        code = main(["check", str(few_refs), "-o", str(out), "--resume", *options])
        err = capsys.readouterr().err
        assert code == exit_codes.USAGE
        assert str(out) in err and "another run" in err
    finally:
        first.stdin.close()
        first.wait(timeout=60)
    ids = [line["id"] for line in output_lines(out)]
    assert len(ids) == len(set(ids)) == 6  # nothing written twice
    # Once the first run is over, the output is free again.
    assert main(["check", str(few_refs), "-o", str(out), "--resume", *options]) != exit_codes.USAGE


# -- item 16 and 12: exit codes ------------------------------------------------------------


def tally(*statuses: Status, input_errors: int = 0, flags: tuple[str, ...] = ()) -> Tally:
    result = Tally()
    for status in statuses:
        result.add(status, flags=flags)
    for _ in range(input_errors):
        result.add(Status.INCONCLUSIVE, input_error=True)
    return result


def test_every_outcome_has_its_own_exit_code() -> None:
    codes = {exit_codes.OK, exit_codes.NOT_VERIFIED, exit_codes.USAGE, exit_codes.INCOMPLETE,
             exit_codes.INPUT_ERRORS, exit_codes.EMPTY, exit_codes.FAIL_ON}
    assert len(codes) == 7
    assert exit_code(tally()) == exit_codes.EMPTY
    assert exit_code(tally(Status.VERIFIED)) == exit_codes.OK
    assert exit_code(tally(Status.VERIFIED, Status.NO_TRACE)) == exit_codes.NOT_VERIFIED
    assert exit_code(tally(Status.NO_TRACE, Status.INCONCLUSIVE)) == exit_codes.INCOMPLETE
    assert exit_code(tally(Status.VERIFIED, input_errors=1)) == exit_codes.INPUT_ERRORS
    # An input error cannot be fixed by running again: it wins over a temporary failure.
    assert exit_code(tally(Status.INCONCLUSIVE, input_errors=1)) == exit_codes.INPUT_ERRORS
    for code in codes:
        assert f"\n  {code} " in "\n" + EXIT_CODES_HELP


def test_fail_on_gates_on_statuses_and_flags() -> None:
    retracted = tally(Status.VERIFIED, flags=("retracted",))
    assert exit_code(retracted) == exit_codes.OK
    assert exit_code(retracted, fail_on=("retracted",)) == exit_codes.FAIL_ON
    assert exit_code(tally(Status.VERIFIED), fail_on=("retracted", "no_trace")) == exit_codes.OK
    assert exit_code(tally(Status.NO_TRACE),
                     fail_on=("retracted", "no_trace")) == exit_codes.FAIL_ON
    assert exit_code(tally(Status.INCONCLUSIVE), fail_on=("no_trace",)) == exit_codes.INCOMPLETE
    assert exit_code(tally(input_errors=1), fail_on=("input_error",)) == exit_codes.FAIL_ON


@pytest.mark.parametrize(("options", "said"), [
    (["--force"], "--force"), ([], "--output"), (["--format-out", "csv"], "jsonl")])
def test_retry_inconclusive_refuses_what_it_cannot_do(
    refs: Path, tmp_path: Path, options: list[str], said: str,
    capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["-o", str(tmp_path / "out.jsonl")] if options else []
    assert main(["check", str(refs), "--retry-inconclusive", *out, *options]) == \
        exit_codes.USAGE
    err = capsys.readouterr().err
    assert "--retry-inconclusive" in err and said in err


def test_dropping_inconclusive_lines_keeps_every_other_byte(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    lines = [b'{"id": "a", "status": "verified"}\n',
             b'{"id": "b", "status": "inconclusive"}\n',
             b'not a line of ours\n',
             b'{"id": "c", "status": "inconclusive", "flags": ["input_error"]}\n',
             b'{"id": "d",   "status": "no_trace"}\n']
    out.write_bytes(b"".join(lines))
    out.chmod(0o600)
    assert scan_output(out, retry_inconclusive=True).ids == {"a", "d"}
    assert drop_inconclusive(out) == 2
    assert out.read_bytes() == lines[0] + lines[2] + lines[4]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # no file left over
    assert out.stat().st_mode & 0o777 == 0o600  # its permissions kept
    stamp = out.stat().st_mtime_ns
    assert drop_inconclusive(out) == 0 and out.stat().st_mtime_ns == stamp  # untouched


def test_fail_on_counts_the_lines_of_a_resumed_output(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "a", "status": "verified", "flags": ["retracted"]}\n')
    assert scan_output(out).tally.flags["retracted"] == 1


def test_fail_on_names_an_unknown_gate(refs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(refs), "--fail-on", "retracted,retraced"]) == exit_codes.USAGE
    err = capsys.readouterr().err
    assert "'retraced'" in err and "no_trace" in err


def test_an_empty_input_has_its_own_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    assert main(["check", str(empty), "--no-cache", "-q"]) == exit_codes.EMPTY
    assert "no citations" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["jsonl", "html"])
def test_a_forced_run_with_no_citation_leaves_the_output_as_it_was(
    tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "a", "status": "verified"}\n')
    assert main(["check", str(empty), "--no-cache", "--output", str(out), "--force",
                 "--format-out", fmt]) == exit_codes.EMPTY
    assert out.read_text() == '{"id": "a", "status": "verified"}\n'
    assert f"Results: none written ({out} left as it was)" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\n")))
    assert main(["check", "-", "--no-cache", "--output", str(out), "--force",
                 "-q"]) == exit_codes.EMPTY
    assert out.read_text() == '{"id": "a", "status": "verified"}\n'


# -- item 17: small things -----------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert VERSION in capsys.readouterr().out


def test_world_sets_every_source_under_one_root() -> None:
    args = build_parser().parse_args(
        ["check", "refs.txt", "--world", "http://127.0.0.1:5/",
         "--base-url", "arxiv=http://127.0.0.1:6/ax"])
    settings = check_settings(args)
    for name in SOURCE_NAMES:
        if name != "arxiv":
            assert settings.base_urls[name] == f"http://127.0.0.1:5/{name}"
    assert settings.base_urls["arxiv"] == "http://127.0.0.1:6/ax"  # --base-url wins
    # A service's URL as 'verifier world serve' prints it names the same world.
    args = build_parser().parse_args(["check", "r.txt", "--world", "http://127.0.0.1:5/doaj"])
    assert check_settings(args).base_urls["crossref"] == "http://127.0.0.1:5/crossref"


def test_time_scale_reaches_the_settings(refs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["check", "refs.txt", "--time-scale", "20"])
    assert check_settings(args).time_scale == 20.0
    assert main(["check", str(refs), "--time-scale", "0"]) == exit_codes.USAGE
    assert "'0'" in capsys.readouterr().err


def test_world_is_an_http_url(refs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(refs), "--world", "127.0.0.1:5"]) == exit_codes.USAGE
    assert "'127.0.0.1:5'" in capsys.readouterr().err


def test_check_against_the_world_option(
    world: dict[str, str], tmp_path: Path, few_refs: Path  # noqa: F811
) -> None:
    root = next(iter(world.values())).rsplit("/", 1)[0]
    out = tmp_path / "out.jsonl"
    served = ",".join(name for name in SOURCE_NAMES if name in world)
    code = main(["check", str(few_refs), "-o", str(out), "-q", "--world", root,
                 "--sources", served, "--cache-dir", str(tmp_path / "c"),
                 "--mailto", "t@example.org"])
    assert code in (exit_codes.OK, exit_codes.NOT_VERIFIED)
    assert any(line["status"] == "verified" for line in output_lines(out))


def test_a_directory_given_as_input_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(tmp_path)]) == exit_codes.USAGE
    assert f"input '{tmp_path}' is a directory" in capsys.readouterr().err


def test_an_unwritable_output_is_a_usage_error(
    refs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(refs), "-o", "/proc/out.jsonl", "--no-cache"]) == exit_codes.USAGE
    err = capsys.readouterr().err
    assert "/proc" in err and "internal error" not in err


def test_a_report_serialises_with_one_call() -> None:
    from verifier import report_to_json
    from verifier.citations.models import CitationInput
    from verifier.citations.parsing import parse_citation
    from verifier.citations.results_report import report_from_results

    item = CitationInput(id="x", index=0, text="Smith, J. (2019). A title. J, 3, 1-9.")
    report = report_from_results(item, parse_citation(item.text), {})
    line = report_to_json(report)
    assert orjson.loads(line)["id"] == "x" and orjson.loads(line)["status"] == "inconclusive"
    assert report.to_json() == line


# -- summary: retractions, empty headings, notices, counts ---------------------------------


def test_the_summary_counts_retracted_works_and_prints_no_empty_heading() -> None:
    counts = tally(Status.VERIFIED, Status.VERIFIED, flags=("retracted",))
    lines = summary_lines(counts, RunStats(), 2.0, None)
    assert "  retracted            2" in lines
    assert not any(line.endswith(":") for line in lines), lines
    assert not any("retracted" in line for line in summary_lines(tally(Status.VERIFIED),
                                                                RunStats(), 2.0, None))


def test_the_summary_warns_when_input_entries_and_output_lines_differ() -> None:
    counts = tally(Status.VERIFIED, Status.NO_TRACE)
    same = "\n".join(summary_lines(counts, RunStats(), 1.0, None, input_entries=2))
    assert "input: 2 entries, output: 2 lines" in same and "warning" not in same
    differ = "\n".join(summary_lines(counts, RunStats(), 1.0, None, input_entries=3))
    assert "warning" in differ and "3" in differ and "2 lines" in differ


def test_notices_about_entry_boundaries_are_printed_once_each_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], failing_start: None
) -> None:
    pasted = tmp_path / "list.txt"
    pasted.write_text("1. Smith, J. (2019). A title. Journal, 3(2), 1-9.\n"
                      "2. Doe, A. (2020). Other title. Journal B, 4, 1-2.\n"
                      "Roe, B. (2018). Third work here. Journal C, 5, 3-4.\n")
    main(["check", str(pasted), "--no-cache"])
    err = capsys.readouterr().err
    assert err.count("line 3 taken as a citation of its own") == 1
    assert f"{pasted}: line 3" in err


@pytest.fixture
def no_shared(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "absent-shared"


@pytest.mark.blocking_allowed("the benchmark script runs in-process and reads its files")
def test_a_bench_that_exits_with_a_reason_shows_it(
    no_shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "walters-wilder", "--data", str(no_shared)]) != 0
    assert str(no_shared) in capsys.readouterr().err


BENCH_NAMES = sorted(p.stem.replace("_", "-") for p in (REPO_ROOT / "bench").glob("*.py")
                     if p.stem not in BENCH_LIBRARIES)


@pytest.mark.blocking_allowed("the benchmark script runs in-process and reads its files")
@pytest.mark.parametrize("name", BENCH_NAMES)
def test_every_bench_names_itself_in_its_usage_errors(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped option is exit 2 with ``verifier bench NAME``'s usage, not the script's
    file name (``runpy`` sets ``sys.argv[0]`` to the file: each parser names its prog)."""
    assert main(["bench", name, "--no-such-option"]) == exit_codes.USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"usage: verifier bench {name} ")
    assert f"\nverifier bench {name}: error: " in err


def test_make_bench_without_shared_data_says_where_it_is_expected(tmp_path: Path) -> None:
    done = subprocess.run(["make", "--no-print-directory", "check-shared-data",
                           f"SHARED_DATA={tmp_path / 'absent'}"],
                          capture_output=True, text=True, cwd=REPO_ROOT, timeout=30,
                          check=False)
    assert done.returncode != 0
    assert str(tmp_path / "absent") in done.stderr + done.stdout
    assert "walters_wilder_2023" in done.stderr + done.stdout


def test_the_output_lock_of_a_killed_run_is_taken_over(tmp_path: Path) -> None:
    from verifier.cli.output import OutputLock

    out = tmp_path / "out.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from verifier.cli.output import "
         "OutputLock; OutputLock(Path(sys.argv[1])).acquire(); print('held', flush=True); "
         "time.sleep(60)", str(out)],
        stdout=subprocess.PIPE, cwd=REPO_ROOT)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        with pytest.raises(ConfigError, match="in use by another run"):
            OutputLock(out).acquire()
    finally:
        holder.kill()  # SIGKILL: no clean-up, the lock file stays behind
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert out.with_name("out.jsonl.lock").exists()
    with OutputLock(out):  # the kernel released the dead run's lock
        with pytest.raises(ConfigError, match=str(out)):
            OutputLock(out).acquire()
    assert not out.with_name("out.jsonl.lock").exists()  # removed by a clean release
