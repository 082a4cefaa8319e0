"""The output formats beside JSON lines (CSV, corrected BibTeX, Markdown and HTML reports),
pure over output records, and ``verifier check --format-out`` against the world."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_cli import REFS, world, world_options  # noqa: F401  (the module-scoped world)

import verifier.api  # noqa: F401  (imported here, not lazily on the run's loop)
from verifier.citations.formats import (
    CSV_COLUMNS,
    FORMATS,
    Formatter,
    format_records,
    html_report,
    line_error,
    markdown_report,
    run_counts,
)
from verifier.citations.report import input_error_record
from verifier.cli.main import main
from verifier.errors import InputError


def record(index: int, status: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": f"c{index}", "index": index, "input": f"Cited work {index}, with, commas",
        "citation": {"title": f"Title {index}", "year": 2019,
                     "authors": [{"family": "Smith", "given": "J.", "literal": ""}],
                     "container": "Journal", "identifiers": {"doi": f"10.1/{index}"}},
        "status": status, "retraction": "clean", "flags": [], "discrepancies": [],
        "agreeing_sources": ["crossref", "openalex"], "error": None, "correction": None,
    }
    base.update(extra)
    return base


VERIFIED = record(0, "verified", correction={
    "apa": "Smith, J. (2020). Title 0. Journal.", "bibtex": "@article{key0,\n  title = {T}\n}"},
    discrepancies=[{"field": "year", "cited": "2019", "found": "2020", "sources": ["crossref"]}])
NO_TRACE = record(1, "no_trace", agreeing_sources=[])
UNREADABLE = orjson.loads(orjson.dumps(input_error_record(InputError("line 3", "empty", ""), 2)))


def test_csv_has_a_header_and_one_quoted_row_per_citation() -> None:
    text = format_records("csv", [VERIFIED, NO_TRACE, UNREADABLE]).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 3
    assert rows[0]["input"] == "Cited work 0, with, commas"  # quoted, not split
    assert rows[0]["authors"] == "Smith, J." and rows[0]["doi"] == "10.1/0"
    assert rows[0]["discrepancies"] == "year: cited 2019, found 2020"
    assert rows[0]["corrected_apa"].startswith("Smith, J. (2020)")
    assert rows[1]["status"] == "no_trace" and rows[1]["agreeing_sources"] == ""
    assert rows[2]["input_error"] == "yes" and rows[2]["error"] == "empty"


def test_bibtex_writes_the_corrected_entries_and_says_why_others_have_none() -> None:
    text = format_records("bibtex", [VERIFIED, NO_TRACE, UNREADABLE]).decode()
    assert text.startswith("@article{key0,\n")
    comments = [line for line in text.splitlines() if line.startswith("%")]
    assert len(comments) == 2
    assert "c1" in comments[0] and "no_trace" in comments[0]
    assert "line 3" in comments[1] and "empty" in comments[1]


def test_reports_count_each_status_and_put_the_problems_first() -> None:
    records = [VERIFIED, NO_TRACE, UNREADABLE]
    counts = run_counts(records)
    assert counts.statuses == {"no_trace": 1, "inconclusive": 0, "unconfirmed": 0,
                               "verified": 1}
    assert counts.input_errors == 1 and counts.with_discrepancies == 1
    markdown = markdown_report(records)
    assert "| no_trace | 1 |" in markdown and "| input errors | 1 |" in markdown
    order = [markdown.index(marker) for marker in ("input error", "**no\\_trace", "**verified")]
    assert order == sorted(order)
    assert "corrected: Smith, J. (2020)" in markdown  # verified, but with a discrepancy
    page = html_report([*records, record(3, "verified", input="<script>x</script>")])
    assert page.startswith("<!doctype html>") and "<script>x" not in page
    assert page.index('class="input-error"') < page.index('class="no_trace"') < \
        page.index('class="verified"')


def test_the_markdown_report_makes_cited_markup_literal() -> None:
    cited = "A <script>x</script> & [link](javascript:y) `code` *em* a\\*b | c"
    markdown = markdown_report([record(0, "no_trace", input=cited)])
    line = next(line for line in markdown.splitlines() if "no\\_trace**" in line)
    assert "<script>" not in line and "&lt;script&gt;x&lt;/script&gt; &amp;" in line
    assert "\\[link\\](javascript:y) \\`code\\` \\*em\\* a\\\\\\*b \\| c" in line


def test_a_formatter_streams_csv_and_bibtex_but_holds_a_report_to_the_end() -> None:
    csv_out = Formatter("csv")
    assert csv_out.begin().startswith(b"id,") and csv_out.item(NO_TRACE).startswith(b"c1,")
    report = Formatter("markdown")
    assert report.item(NO_TRACE) == b"" and b"no\\_trace" in report.end()
    with pytest.raises(ValueError, match="unknown output format"):
        Formatter("docx")


def test_check_writes_corrected_bibtex_and_csv(
    world: dict[str, str], tmp_path: Path  # noqa: F811
) -> None:
    refs = tmp_path / "refs.txt"
    refs.write_bytes(b"".join(REFS.read_bytes().splitlines(keepends=True)[:4]))
    bib, table = tmp_path / "out.bib", tmp_path / "out.csv"
    main(["check", str(refs), "-o", str(bib), "--format-out", "bibtex",
          *world_options(world, tmp_path)])
    main(["check", str(refs), "-o", str(table), "--format-out", "csv",
          *world_options(world, tmp_path)])
    entries = bib.read_text().count("\n@") + bib.read_text().startswith("@")
    comments = sum(line.startswith("%") for line in bib.read_text().splitlines())
    assert entries + comments == 4 and entries >= 1
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert len(rows) == 4 and {row["status"] for row in rows} <= {
        "verified", "unconfirmed", "no_trace", "inconclusive"}
    assert main(["check", str(refs), "-o", str(table), "--resume", "--format-out", "csv",
                 *world_options(world, tmp_path)]) == 2


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=6)
_PATHS = [(key,) for key in VERIFIED] + [("citation", key) for key in VERIFIED["citation"]] + [
    ("correction", "apa"), ("correction", "bibtex"), ("discrepancies", 0),
    ("citation", "authors", 0), ("citation", "authors", 0, "family")]


def _replaced(base: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = orjson.loads(orjson.dumps(base))
    copy[path[0]] = _replaced(copy[path[0]], path[1:], value)
    return copy


@given(path=st.sampled_from(_PATHS), value=_JSON_VALUES, fmt=st.sampled_from(FORMATS))
def test_a_line_the_formats_cannot_read_is_named_never_a_crash(
        path: tuple[Any, ...], value: Any, fmt: str) -> None:
    """A report line handed back by another program (the service's /v1/render): either
    line_error says what is wrong with it, or every format renders it."""
    line = _replaced(VERIFIED, path, value)
    if line_error(line) is None:
        format_records(fmt, [line, NO_TRACE, UNREADABLE])


@pytest.mark.parametrize(("line", "said"), [
    ([], "not a JSON object"),
    ({**NO_TRACE, "status": "fabricated"}, "'status' must be one of"),
    ({**NO_TRACE, "discrepancies": [5]}, "'discrepancies' must be a list of objects"),
    ({**NO_TRACE, "flags": "input_error"}, "'flags' must be a list"),
    ({**NO_TRACE, "index": True}, "'index' must be a number or null"),
    ({**NO_TRACE, "citation": {"authors": ["Smith"]}}, "'citation.authors' must be a list "
                                                       "of objects"),
    ({**NO_TRACE, "correction": {"apa": 5}}, "'correction.apa' must be a string"),
])
def test_line_error_says_what_is_wrong(line: Any, said: str) -> None:
    error = line_error(line)
    assert error is not None and error.startswith(said)


def test_the_lines_the_engine_writes_have_no_line_error() -> None:
    for line in (VERIFIED, NO_TRACE, UNREADABLE, {"status": "verified"}):
        assert line_error(line) is None
