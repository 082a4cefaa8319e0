"""The command line: usage errors, settings, exit codes, and whole runs against the
offline stand-in world (demo, check, input errors, resume, Ctrl-C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from loop_checks import on_event_loop
from threaded import served_in_thread
from world_helpers import DEMO_DIR

from verifier.citations.inputs import citation_id, count_citations, read_citations
from verifier.citations.models import CitationInput, Status
from verifier.cli.main import (
    EXIT_CODES_HELP,
    build_parser,
    check_settings,
    demo_settings,
    exit_code,
    main,
)
from verifier.cli.output import REPORT_KEYS, Tally, scan_output
from verifier.settings import KEY_ENV_VARS, SOURCE_NAMES, Settings

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS = DEMO_DIR / "corpus.jsonl"
REFS = DEMO_DIR / "refs.txt"
STATUSES = {s.value for s in Status}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key, contact address, cache folder or base URL leaks in from the machine."""
    for name in list(os.environ):
        if name.startswith("VERIFIER_") or name in KEY_ENV_VARS.values():
            monkeypatch.delenv(name)


@pytest.fixture
def refs_file(tmp_path: Path) -> Path:
    path = tmp_path / "refs.txt"
    path.write_text("Smith, J. (2019). A title. Journal, 3(2), 1-9.\n")
    return path


# -- usage errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--sources", "crossref,scopus"], "'scopus'"),
        (["--sources", " , "], "names no source"),
        (["--concurrency", "0"], "0 is out of range 1..1000"),
        (["--concurrency", "100000"], "100000 is out of range"),
        (["--concurrency", "many"], "'many'"),
        (["--no-cache", "--refresh"], "--refresh: not allowed with argument --no-cache"),
        (["--no-cache", "--cache-dir", "x"], "--no-cache and --cache-dir"),
        (["--resume"], "--resume needs --output"),
        (["--base-url", "crossref"], "'crossref' is not SOURCE=URL"),
        (["--base-url", "scopus=http://127.0.0.1:1"], "'scopus'"),
        (["--base-url", "crossref=ftp://x"], "'ftp://x'"),
        (["--deadline", "-3"], "'-3'"),
        (["--deadline", "nan"], "'nan'"),
        (["--mailto", "nobody"], "'nobody' is not an e-mail address"),
        (["--format", "endnote"], "'endnote'"),
        (["--output", "/no/such/folder/out.jsonl"], "'/no/such/folder'"),
    ],
)
def test_usage_errors_exit_2_naming_the_bad_value(
    refs_file: Path, options: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(refs_file), *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert named in captured.err
    assert captured.err.count("\n") == 1, captured.err  # one line, no usage dump


def test_missing_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "absent.txt"
    assert main(["check", str(missing)]) == 2
    assert f"input file '{missing}' not found" in capsys.readouterr().err


def test_output_may_not_be_the_input(refs_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(refs_file), "-o", str(refs_file)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert refs_file.read_text().startswith("Smith")  # untouched


def test_bad_environment_is_a_config_error(
    refs_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VERIFIER_CROSSREF_URL", "gopher://old")
    assert main(["check", str(refs_file)]) == 2
    assert "'gopher://old'" in capsys.readouterr().err


def test_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_help_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert EXIT_CODES_HELP.strip() in out
    assert main(["check", "--help"]) == 0
    assert "130  interrupted" in capsys.readouterr().out


def test_python_dash_m_verifier_help() -> None:
    result = subprocess.run([sys.executable, "-m", "verifier", "--help"], capture_output=True,
                            text=True, cwd=REPO_ROOT, timeout=30, check=False)
    assert result.returncode == 0, result.stderr
    assert "usage: verifier" in result.stdout and "check" in result.stdout
    assert "4    internal error" in result.stdout


# -- settings and exit codes -------------------------------------------------------------


def parse_check(*options: str) -> Settings:
    return check_settings(build_parser().parse_args(["check", "refs.txt", *options]))


def test_settings_from_environment_then_command_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VERIFIER_MAILTO", "env@example.org")
    monkeypatch.setenv("VERIFIER_CACHE_DIR", str(tmp_path / "env-cache"))
    monkeypatch.setenv("VERIFIER_OPENALEX_URL", "http://127.0.0.1:9/openalex")
    monkeypatch.setenv("S2_API_KEY", "s2-key")
    settings = parse_check()
    assert settings.mailto == "env@example.org"
    assert settings.cache_dir == tmp_path / "env-cache" and settings.cache_read
    assert settings.base_urls["openalex"] == "http://127.0.0.1:9/openalex"
    assert settings.key("semanticscholar") == "s2-key"
    settings = parse_check("--mailto", "cli@example.org", "--sources", "OpenAlex, arxiv",
                           "--cache-dir", str(tmp_path / "cli-cache"), "--refresh",
                           "--deadline", "7.5", "--base-url", "arxiv=http://127.0.0.1:8/ax")
    assert settings.mailto == "cli@example.org"
    assert settings.sources == ("openalex", "arxiv")
    assert settings.cache_dir == tmp_path / "cli-cache" and not settings.cache_read
    assert settings.deadline_s == 7.5
    assert settings.base_urls["arxiv"] == "http://127.0.0.1:8/ax"
    assert settings.base_urls["openalex"] == "http://127.0.0.1:9/openalex"


def test_no_cache_disables_the_cache() -> None:
    assert parse_check("--no-cache").cache_dir is None


def test_demo_settings_use_only_the_world() -> None:
    settings = demo_settings({"openalex": "http://127.0.0.1:5/openalex",
                              "crossref": "http://127.0.0.1:5/crossref"}, Path("/tmp/c"))
    assert settings.sources == ("crossref", "openalex")  # in the canonical order
    assert settings.base_urls["crossref"] == "http://127.0.0.1:5/crossref"
    assert settings.api_keys == {} and settings.mailto == "demo@example.org"
    assert settings.cache_dir == Path("/tmp/c")


def tally(*statuses: Status, input_errors: int = 0) -> Tally:
    result = Tally()
    for status in statuses:
        result.add(status)
    for _ in range(input_errors):
        result.add(Status.INCONCLUSIVE, input_error=True)
    return result


def test_exit_codes() -> None:
    assert exit_code(tally()) == 6  # nothing checked: not "everything verified"
    assert exit_code(tally(Status.VERIFIED, Status.VERIFIED)) == 0
    assert exit_code(tally(Status.VERIFIED, Status.UNCONFIRMED)) == 1
    assert exit_code(tally(Status.NO_TRACE)) == 1
    assert exit_code(tally(Status.NO_TRACE, Status.INCONCLUSIVE)) == 3
    assert exit_code(tally(Status.VERIFIED, input_errors=1)) == 5


# -- whole runs against the stand-in world -------------------------------------------------


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, str]]:
    """The stand-in world serving the demo corpus from its own thread and loop, so the
    command line under test can run its own event loop (in-process) or be a subprocess."""
    from verifier.world.server import serve_world

    with served_in_thread(lambda: serve_world(CORPUS), "world") as handle:
        yield dict(handle.base_urls)


def world_options(urls: dict[str, str], tmp_path: Path, *, quiet: bool = True) -> list[str]:
    served = [name for name in SOURCE_NAMES if name in urls]
    options = ["--sources", ",".join(served), "--cache-dir", str(tmp_path / "cache"),
               "--mailto", "tests@example.org", *(["-q"] if quiet else [])]
    for name in served:
        options += ["--base-url", f"{name}={urls[name]}"]
    return options


@pytest.fixture
def few_refs(tmp_path: Path) -> Path:
    """The first six demo references: enough for a run, quick at polite-pool pace."""
    path = tmp_path / "few.txt"
    path.write_bytes(b"".join(REFS.read_bytes().splitlines(keepends=True)[:6]))
    return path


def output_lines(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def ids_in(refs: Path) -> list[str]:
    return sorted(item.id for item in read_citations(refs) if isinstance(item, CitationInput))


def assert_contract(lines: list[dict[str, object]]) -> None:
    for line in lines:
        assert list(line) == list(REPORT_KEYS)
        assert line["status"] in STATUSES
        assert isinstance(line["sources"], dict)
        for result in line["sources"].values():
            assert set(result) == {"status", "record", "scores", "requests", "cached", "error",
                                   "reason"}


@pytest.mark.blocking_allowed("the demo runs the offline world in-process")
def test_demo_writes_one_contract_line_per_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo.jsonl"
    code = main(["demo", "--output", str(out)])
    lines = output_lines(out)
    assert len(lines) == count_citations(REFS) > 0
    assert sorted(str(line["id"]) for line in lines) == ids_in(REFS)
    assert sorted(int(str(line["index"])) for line in lines) == list(range(len(lines)))
    assert_contract(lines)
    assert code == exit_code(scan_output(out).tally)
    err = capsys.readouterr().err
    assert "Checked" in err and f"Results: {out}" in err


def test_check_writes_input_errors_in_place_and_exits_5(
    world: dict[str, str], tmp_path: Path
) -> None:
    refs = tmp_path / "refs.txt"
    first_ref = next(line.strip() for line in REFS.read_text().splitlines() if line.strip())
    refs.write_bytes(first_ref.encode() + b"\nbroken \xff line\n\x01\x02\n!!!\n")
    out = tmp_path / "out.jsonl"
    code = main(["check", str(refs), "-o", str(out), *world_options(world, tmp_path)])
    assert code == 5
    by_id = {line["id"]: line for line in output_lines(out)}
    assert set(by_id) == {citation_id(1, first_ref), "line 2", "line 3", citation_id(4, "!!!")}
    assert by_id["line 2"]["flags"] == ["input_error"] and by_id["line 2"]["index"] == 1
    assert by_id["line 2"]["input"] == "broken \ufffd line"
    assert by_id["line 3"]["status"] == "inconclusive" and by_id["line 3"]["index"] == 2
    # Readable, but with nothing to look up: an item error from the engine, not no_trace.
    nothing = by_id[citation_id(4, "!!!")]
    assert nothing["flags"] == ["input_error"] and nothing["status"] == "inconclusive"
    assert scan_output(out).tally.input_errors == 3
    assert_contract(list(by_id.values()))


def test_check_writes_to_stdout_without_output(
    world: dict[str, str], tmp_path: Path, few_refs: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    main(["check", str(few_refs), *world_options(world, tmp_path)])
    captured = capsysbinary.readouterr()
    lines = [orjson.loads(line) for line in captured.out.splitlines()]
    assert sorted(str(line["id"]) for line in lines) == ids_in(few_refs)
    assert captured.err == b""  # -q: nothing on stderr


def checked_once(world: dict[str, str], tmp_path: Path, refs: Path,
                 name: str) -> tuple[list[str], Path]:
    """The world's options and the output of one whole run over ``refs``."""
    options = world_options(world, tmp_path)
    out = tmp_path / name
    main(["check", str(refs), "-o", str(out), *options])
    return options, out


def test_resume_skips_done_ids_and_repairs_a_cut_short_line(
    world: dict[str, str], tmp_path: Path, few_refs: Path
) -> None:
    options, full = checked_once(world, tmp_path, few_refs, "full.jsonl")
    whole = full.read_bytes().splitlines(keepends=True)
    assert len(whole) >= 3
    # A killed run: two lines done, the third cut short; the done ones marked so a
    # re-check would show (their elapsed_s is impossible for a real check).
    done = [orjson.loads(line) for line in whole[:2]]
    marked = b"".join(orjson.dumps({**line, "elapsed_s": -1.0}) + b"\n" for line in done)
    resumed = tmp_path / "resumed.jsonl"
    resumed.write_bytes(marked + whole[2][:40])
    code = main(["check", str(few_refs), "-o", str(resumed), "--resume", *options])
    lines = output_lines(resumed)
    ids = [str(line["id"]) for line in lines]
    assert sorted(ids) == ids_in(few_refs)  # each exactly once, none lost, none twice
    assert [line["elapsed_s"] for line in lines[:2]] == [-1.0, -1.0]
    assert all(float(str(line["elapsed_s"])) >= 0 for line in lines[2:])
    assert code == exit_code(scan_output(resumed).tally)


def test_resume_of_a_finished_output_checks_nothing(
    world: dict[str, str], tmp_path: Path, few_refs: Path
) -> None:
    options = world_options(world, tmp_path)
    out = tmp_path / "out.jsonl"
    first = main(["check", str(few_refs), "-o", str(out), *options])
    before = out.read_bytes()
    assert main(["check", str(few_refs), "-o", str(out), "--resume", *options]) == first
    assert out.read_bytes() == before


def test_retry_inconclusive_checks_those_again_and_keeps_every_other_line(
    world: dict[str, str], tmp_path: Path, few_refs: Path
) -> None:
    options, out = checked_once(world, tmp_path, few_refs, "out.jsonl")
    lines = output_lines(out)
    # An earlier run: two citations it could not check, the rest marked so that a
    # re-check would show (their elapsed_s is impossible for a real check).
    earlier = [{**line, "elapsed_s": -1.0, **({"status": "inconclusive"} if i < 2 else {})}
               for i, line in enumerate(lines)]
    out.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in earlier))
    kept = out.read_bytes().splitlines(keepends=True)[2:]
    code = main(["check", str(few_refs), "-o", str(out), "--retry-inconclusive", *options])
    after = out.read_bytes().splitlines(keepends=True)
    assert after[:len(kept)] == kept  # every other line as it was, in its order
    again = [orjson.loads(line) for line in after[len(kept):]]
    assert sorted(str(line["id"]) for line in again) == sorted(str(x["id"]) for x in lines[:2])
    assert {str(line["id"]): line["status"] for line in again} == {
        str(line["id"]): line["status"] for line in lines[:2]}  # the world's verdicts
    assert all(float(str(line["elapsed_s"])) >= 0 for line in again)
    assert code == exit_code(scan_output(out).tally)
    # Nothing inconclusive left: a second retry checks nothing and writes nothing.
    before = out.read_bytes()
    assert main(["check", str(few_refs), "-o", str(out), "--retry-inconclusive",
                 *options]) == code
    assert out.read_bytes() == before


def _default_interrupt() -> None:
    """In the child, before it runs: SIGINT as a terminal gives it. A job a shell starts in
    the background (``cmd &``, as some CI runners do) inherits SIGINT ignored, and Python
    then keeps ignoring it, as a user's ``nohup verifier check ... &`` would want."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_the_output_and_resume_finishes_it(
    world: dict[str, str], tmp_path: Path, few_refs: Path, signal_number: int
) -> None:
    """Ctrl-C or SIGTERM while the input (stdin) is still open: exit 130, whole lines only; then
    --resume on the same references completes the output. (Concurrency 1: the engine
    reads ahead until ``concurrency`` items are in flight before it hands out a report.)"""
    refs = few_refs.read_bytes().splitlines(keepends=True)
    out = tmp_path / "out.jsonl"
    options = [*world_options(world, tmp_path, quiet=False), "--concurrency", "1"]
    process = subprocess.Popen(
        [sys.executable, "-m", "verifier", "check", "-", "-o", str(out), *options],
        stdin=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO_ROOT,
        preexec_fn=_default_interrupt)
    assert process.stdin is not None
    process.stdin.write(b"".join(refs[:2]))
    process.stdin.flush()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (out.exists() and out.read_bytes().count(b"\n")):
        time.sleep(0.05)
    process.send_signal(signal_number)
    # stdin stays open until the process ends. communicate() closes it, which ends the
    # input: on a loaded machine the run could then finish before it handled the signal,
    # and exit as a finished run.
    process.wait(timeout=30)
    _, err = process.communicate()
    assert process.returncode == 130, err.decode()
    assert b"Interrupted after" in err and b"--resume" in err
    written = output_lines(out)
    assert 1 <= len(written) <= 2
    main(["check", str(few_refs), "-o", str(out), "--resume", *options])
    assert sorted(str(line["id"]) for line in output_lines(out)) == ids_in(few_refs)


def _one_reference_run(tmp_path: Path) -> list[str]:
    """``verifier check`` arguments for one reference against a Crossref that is not
    there (a short run that still shows a display)."""
    refs = tmp_path / "one.txt"
    refs.write_text("Smith, J. (2001). A title of a work. Journal of Tests, 3, 1-9.\n")
    return ["check", str(refs), "-o", str(tmp_path / "o"), "--no-cache", "--sources",
            "crossref", "--base-url", "crossref=http://127.0.0.1:9"]


DISPLAY_SCRIPT = """
import asyncio, sys
from verifier.cli.main import main

on_loop = []

class Watch:  # sees the first import of rich, and whether a loop runs in its thread
    def find_spec(self, name, path=None, target=None):
        if name == "rich":
            try:
                asyncio.get_running_loop()
                on_loop.append(True)
            except RuntimeError:
                on_loop.append(False)
        return None

assert "rich" not in sys.modules, "imported before the run"
sys.meta_path.insert(0, Watch())
code = main(sys.argv[1:])
print("rich imported on the loop:", on_loop, "exit:", code)
"""


def test_a_run_with_a_display_imports_it_off_the_loop(tmp_path: Path) -> None:
    # In a new interpreter, where rich is not imported yet: importing reads files, which
    # must not happen on the event loop's thread.
    done = subprocess.run(
        [sys.executable, "-c", DISPLAY_SCRIPT, *_one_reference_run(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False, cwd=REPO_ROOT)
    assert "rich imported on the loop: [False]" in done.stdout, (done.stdout, done.stderr)


@pytest.mark.parametrize("method", ["start", "stop"])
def test_a_run_starts_and_stops_its_display_off_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str) -> None:
    # Starting a display may draw its first frame, stopping it joins its thread: writes
    # and a wait the event loop must not make.
    from verifier.cli import displays

    on_loop: list[bool] = []
    original = getattr(displays.PlainProgress, method)

    def watched(self: displays.PlainProgress) -> None:
        on_loop.append(on_event_loop())
        original(self)

    monkeypatch.setattr(displays.PlainProgress, method, watched)
    main(_one_reference_run(tmp_path))
    assert on_loop == [False]
