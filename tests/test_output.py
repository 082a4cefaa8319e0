"""The JSON lines output: the contract keys, line-at-a-time writes, and resuming a file a
killed run left behind."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from verifier.citations.models import (
    Author,
    Citation,
    Discrepancy,
    MatchScores,
    Report,
    Retraction,
    SourceResult,
    SourceStatus,
    Status,
    WorkRecord,
)
from verifier.citations.output_file import inconclusive_report_ids
from verifier.cli.output import (
    REPORT_KEYS,
    JsonlWriter,
    Tally,
    completed_ids,
    input_error_record,
    input_error_to_json,
    repair_tail,
    report_to_json,
    scan_output,
)
from verifier.errors import InputError

CONTRACT_KEYS = {"id", "index", "input", "citation", "status", "retraction", "flags",
                 "discrepancies", "corrected", "agreeing_sources", "sources", "elapsed_s"}
SOURCE_KEYS = {"status", "record", "scores", "requests", "cached", "error", "reason"}


def make_report(item_id: str = "L1-abcdef01", status: Status = Status.VERIFIED,
                index: int = 0) -> Report:
    record = WorkRecord(source="crossref", source_id="10.1/x", url="https://doi.org/10.1/x",
                        title="A Title", authors=(Author("Smith", "J."),), year=2019)
    return Report(
        id=item_id, index=index, input="Smith, J. (2019). A title.",
        citation=Citation(authors=(Author("Smith", "J."),), year=2019, title="A title"),
        status=status, retraction=Retraction.CLEAN, flags=("year_mismatch",),
        discrepancies=(Discrepancy("year", "2019", "2018", ("crossref",)),),
        corrected=record, agreeing_sources=("crossref",),
        sources={"crossref": SourceResult(SourceStatus.MATCH, record,
                                          MatchScores(0.98, 1.0, 0, True, True), requests=2),
                 "openalex": SourceResult(SourceStatus.TIMED_OUT, error="deadline")},
        elapsed_s=1.25,
    )


def test_report_is_one_line_with_the_contract_keys() -> None:
    line = report_to_json(make_report())
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    obj = orjson.loads(line)
    assert list(obj) == list(REPORT_KEYS)
    assert CONTRACT_KEYS <= set(obj)
    assert obj["status"] == "verified" and obj["retraction"] == "clean"
    assert set(obj["sources"]) == {"crossref", "openalex"}
    assert set(obj["sources"]["crossref"]) == SOURCE_KEYS
    assert obj["sources"]["openalex"]["status"] == "timed_out"
    assert obj["sources"]["crossref"]["scores"]["title"] == 0.98
    assert obj["citation"]["authors"] == [{"family": "Smith", "given": "J.", "literal": ""}]
    assert obj["corrected"]["year"] == 2019
    assert obj["discrepancies"] == [
        {"field": "year", "cited": "2019", "found": "2018", "sources": ["crossref"]}]


def test_input_error_object_has_the_same_keys_and_empty_values() -> None:
    error = InputError("line 17", "not valid UTF-8")
    obj = orjson.loads(input_error_to_json(error, 16))
    assert list(obj) == list(REPORT_KEYS)
    assert obj == input_error_record(error, 16)  # StrEnum values equal their strings
    assert (obj["id"], obj["index"], obj["status"], obj["error"]) == (
        "line 17", 16, "inconclusive", "not valid UTF-8")
    assert obj["citation"] is None and obj["corrected"] is None
    assert obj["flags"] == ["input_error"] and obj["sources"] == {}


def test_writer_makes_each_line_visible_at_once(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with JsonlWriter.open(path) as writer:
        writer.write(report_to_json(make_report("a")))
        assert path.read_bytes().count(b"\n") == 1  # on disk before the next line or close
        writer.write(report_to_json(make_report("b")))
        assert writer.lines_written == 2
    assert [orjson.loads(line)["id"] for line in path.read_bytes().splitlines()] == ["a", "b"]


def test_writer_without_append_truncates(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(report_to_json(make_report("old")))
    with JsonlWriter.open(path) as writer:
        writer.write(report_to_json(make_report("new")))
    assert completed_ids(path) == {"new"}


def test_fsync_writer(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with JsonlWriter.open(path, fsync=True) as writer:
        writer.write(report_to_json(make_report("a")))
    assert completed_ids(path) == {"a"}


def killed_run_output(tmp_path: Path) -> tuple[Path, bytes]:
    """Two whole lines and a third one cut short, as a killed run leaves them."""
    path = tmp_path / "out.jsonl"
    whole = report_to_json(make_report("a")) + input_error_to_json(InputError("line 3", "x"), 2)
    partial = report_to_json(make_report("c", Status.NO_TRACE))[:57]
    path.write_bytes(whole + partial)
    return path, whole


def test_scan_ignores_a_cut_short_last_line(tmp_path: Path) -> None:
    path, _ = killed_run_output(tmp_path)
    prior = scan_output(path)
    assert prior.ids == {"a", "line 3"}
    assert prior.tally.statuses == {Status.VERIFIED: 1}
    assert prior.tally.input_errors == 1
    assert prior.unreadable == 0


def test_resume_drops_the_cut_short_line_before_appending(tmp_path: Path) -> None:
    path, whole = killed_run_output(tmp_path)
    with JsonlWriter.open(path, append=True) as writer:
        writer.write(report_to_json(make_report("c", Status.NO_TRACE)))
    data = path.read_bytes()
    assert data.startswith(whole)
    lines = data.splitlines()
    assert [orjson.loads(line)["id"] for line in lines] == ["a", "line 3", "c"]
    assert data.endswith(b"\n")


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(report_to_json(make_report("a")) + report_to_json(make_report("b"))[:-1])
    assert completed_ids(path) == {"a", "b"}
    assert repair_tail(path) == 0
    with JsonlWriter.open(path, append=True) as writer:
        writer.write(report_to_json(make_report("c")))
    assert [orjson.loads(x)["id"] for x in path.read_bytes().splitlines()] == ["a", "b", "c"]


def test_repair_finds_the_line_start_beyond_one_block(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    first = report_to_json(make_report("a"))
    tail = b'{"id": "long", "input": "' + b"x" * 200_000  # cut short, 3+ blocks long
    path.write_bytes(first + tail)
    assert repair_tail(path) == len(tail)
    assert path.read_bytes() == first


def test_repair_of_a_single_partial_line_empties_the_file(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(b'{"id": "a", "sta')
    assert repair_tail(path) == 16
    assert path.read_bytes() == b""


def test_unreadable_lines_are_counted_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(report_to_json(make_report("a")) + b"garbage\n\n[1, 2]\n"
                     + b'{"id": "b", "status": "maybe"}\n'
                     + b'{"id": "c", "status": ["verified"]}\n'
                     + report_to_json(make_report("d", Status.UNCONFIRMED)))
    prior = scan_output(path)
    assert prior.ids == {"a", "d"}
    assert prior.unreadable == 4
    assert prior.tally.statuses == {Status.VERIFIED: 1, Status.UNCONFIRMED: 1}


def test_duplicate_ids_count_once(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(report_to_json(make_report("a")) * 2)
    assert scan_output(path).tally.total == 1


def test_missing_output_holds_nothing(tmp_path: Path) -> None:
    assert completed_ids(tmp_path / "absent.jsonl") == set()


@pytest.mark.parametrize("status", list(Status))
def test_tally_counts_statuses_and_input_errors_apart(status: Status) -> None:
    tally = Tally()
    tally.add(status)
    tally.add(Status.INCONCLUSIVE, input_error=True)
    other = Tally()
    other.add(status)
    tally.update(other)
    assert tally.statuses == {status: 2}
    assert (tally.input_errors, tally.total) == (1, 3)


def test_the_line_queue_writes_off_the_loop_and_keeps_every_queued_line_on_cancel(
    tmp_path: Path,
) -> None:
    import asyncio
    import threading

    from verifier.cli.output import JsonlWriter, LineQueue

    writers: set[int] = set()

    class Recording(JsonlWriter):
        def write_many(self, lines: list[bytes]) -> None:
            writers.add(threading.get_ident())
            super().write_many(lines)

    path = tmp_path / "out.jsonl"

    async def main() -> int:
        writer = Recording(path.open("wb"), close=True)
        loop_thread = threading.get_ident()

        decided = asyncio.Event()

        async def produce(lines: LineQueue) -> None:
            for i in range(500):
                await lines.put(b'{"id": "%d"}\n' % i)
            decided.set()
            await asyncio.Event().wait()  # decided everything, then interrupted

        async with LineQueue(writer, maxsize=8) as lines:
            task = asyncio.create_task(produce(lines))
            await decided.wait()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        writer.close()
        return loop_thread

    loop_thread = asyncio.run(main())
    assert loop_thread not in writers
    assert path.read_bytes().count(b"\n") == 500


def test_a_lingering_line_queue_writes_in_batches_within_its_delay_and_closes_at_once(
    tmp_path: Path,
) -> None:
    import asyncio
    import time

    from verifier.cli.output import JsonlWriter, LineQueue

    batches: list[int] = []

    class Recording(JsonlWriter):
        def write_many(self, lines: list[bytes]) -> None:
            batches.append(len(lines))
            super().write_many(lines)

    path = tmp_path / "out.jsonl"

    async def main() -> tuple[int, float]:
        writer = Recording(path.open("wb"), close=True)
        async with LineQueue(writer, linger_s=0.2) as lines:
            for i in range(300):  # a fast run: lines arrive far quicker than the delay
                await lines.put(b'{"id": "%d"}\n' % i)
                if i % 10 == 0:
                    await asyncio.sleep(0)
            await asyncio.sleep(0.6)  # longer than the delay: everything so far is out
            on_disk = path.read_bytes().count(b"\n")
            await lines.put(b'{"id": "last"}\n')
            closing = time.perf_counter()
        closed_in = time.perf_counter() - closing
        writer.close()
        return on_disk, closed_in

    on_disk, closed_in = asyncio.run(main())
    assert on_disk == 300  # written within the delay, not held until the end
    assert path.read_bytes().count(b"\n") == 301
    assert sum(batches) == 301 and len(batches) <= 4  # a few writes, not one per line
    assert closed_in < 0.15  # closing writes the last line without waiting for the delay


def test_a_lingering_line_queue_with_a_small_bound_never_stalls(tmp_path: Path) -> None:
    import asyncio

    from verifier.cli.output import JsonlWriter, LineQueue

    path = tmp_path / "out.jsonl"

    async def main() -> None:
        writer = JsonlWriter(path.open("wb"), close=True)
        async with LineQueue(writer, maxsize=4, linger_s=30.0) as lines:
            for i in range(100):  # blocks on a full queue unless half-full forces a write
                await asyncio.wait_for(lines.put(b'{"id": "%d"}\n' % i), 5.0)
        writer.close()

    asyncio.run(main())
    assert path.read_bytes().count(b"\n") == 100


def test_inconclusive_report_ids_leave_out_input_errors_repeats_and_cut_lines(
        tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(
        report_to_json(make_report("b", Status.INCONCLUSIVE))
        + report_to_json(make_report("a", Status.VERIFIED))
        + input_error_to_json(InputError("line 3", "x"), 2)  # inconclusive, but input
        + report_to_json(make_report("c", Status.INCONCLUSIVE))
        + report_to_json(make_report("b", Status.INCONCLUSIVE))  # the same item twice
        + b"not a report\n"
        + report_to_json(make_report("d", Status.INCONCLUSIVE))[:40])  # cut short
    assert inconclusive_report_ids(path) == ["b", "c"]
