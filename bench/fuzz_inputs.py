"""Fuzzing every input reader and the citation parser with generated inputs.

Run::

    verifier bench fuzz-inputs [--total N] [--seed S] [--json FILE]

``hypothesis`` draws the seeds of structured generators that write near-valid files
(reproducible: a failure is reported with its seed): pasted reference
lists (numbered, bulleted, blank-line, hanging, wrapped), BibTeX entries (LaTeX accents,
quotes, braces, strings, broken entries, duplicate keys), RIS records (missing ``ER``,
stray text, unknown tags), CSL-JSON documents and JSON lines (fields of every JSON type,
non-objects, truncated JSON) and CSV/TSV tables (quotes, embedded newlines, short rows),
each then mutated at the byte level (cut, repeated, bytes that are not UTF-8) now and
then. Each file is read through :func:`verifier.citations.inputs.read_citations` with its
format named, and :func:`~verifier.citations.parsing.parse_citation` gets citation-like
strings of its own.

What is checked on every input (a breach is a *violation*; an exception a *crash*):

* reading never raises: every element is a ``CitationInput`` or an ``InputError``;
* elements are numbered 0, 1, 2 … in order, and ``count_citations`` gives their number;
* a citation has a non-empty, stripped text within the length limit (one line, except
  from a table cell or a JSON string, which keep their line breaks), an id, and text,
  id and notices that can be written as UTF-8; an error names its item and has a message
  and an excerpt that can be written as UTF-8;
* nothing is silently lost or merged where the generator knows the truth: a CSL-JSON
  document or a JSON-lines file gives exactly one element per item (per non-blank line),
  and an item given a field of the wrong type is an ``InputError`` naming that field; a
  BibTeX file or a RIS file that was not mutated gives at least one element per entry
  or record; ids of structured formats are unique;
* ``parse_citation`` returns a ``Citation`` whose fields have their declared types.

The JSON report gives, per reader, the inputs read, the elements (citations, input
errors), crashes, violations, the seconds taken and a few examples of each failure.
Exit status 1 when there is any crash or violation.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import resource
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_args import result_file, write_result
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from verifier.citations.inputs import count_citations, read_citations
from verifier.citations.inputs.items import MAX_LINE_CHARS
from verifier.citations.models import Author, Citation, CitationInput, WorkType
from verifier.citations.parsing import parse_citation
from verifier.errors import InputError

# -- fragments ----------------------------------------------------------------------------

AUTHORS = ["Smith, J.", "van der Berg, Jan", "Müller, Jörg", "O'Brien, P. J.", "Zhang W",
           "World Health Organization", "J. Doe", "Núñez, Á.", "Parker Pearson, M.",
           "Smith, J., & Doe, A.", "Lee, K., Kim, Y., Park, S., et al.", "et al.", "",
           "Ибрагимов, А.", "李, 明"]
TITLES = ["A title", "Adaptive rates of things: A review", "THE NEED TO BELONG",
          "Graphs, maps, trees: Abstract models for a literary history", "On x^2 and y",
          "Ünïcödé tïtle — with dashes – and “quotes”", "Stonehenge", "", "3.5 million years",
          "Why? Because!", "Title (with parentheses) [and brackets]", "doi:10.1000/x"]
CONTAINERS = ["Nature", "J. Biol. Chem.", "Proc. Natl. Acad. Sci. U.S.A.", "Journal of Things",
              "In Doe, A. (Ed.), Book of chapters (pp. 1-9)", "Oxford University Press", ""]
YEARS = ["2019", "(2019)", "(2019a)", "(n.d.)", "1845", "2999", "0000", "(forthcoming)", "19",
         ""]
TAILS = ["12(3), 45-67.", "vol. LIX, pp. 1–9", "https://doi.org/10.1037/0003-066X.59.1.29",
         "doi:10.1000/ABC.", "arXiv:1707.08567v2", "ISBN 978-0-306-40615-7", "PMID: 12345678",
         "Retrieved from https://example.org/a-b/", "e24295", ""]
LATEX = ['{\\"o}', "\\&", "$x^2$", "``quoted''", "`single'", "{{nested}}", "%", "\\textit{it}",
         "\\unknownmacro{x}", "\\", "{", "}", "~", "--", "---", "\\'{e}", "{\\ss}", "\\url{x}"]
MARKERS = ["", "", "", "1. ", "[1] ", "(2) ", "- ", "• ", "* ", "12) ", "   ", "\t"]

Rng = random.Random


def noise(rng: Rng, most: int = 12) -> str:
    """Up to ``most`` characters of any kind: controls, Latin, the rest of the BMP, astral
    planes (never a lone surrogate: every generated file is UTF-8 before mutation)."""
    chars = []
    for _ in range(rng.randint(0, most)):
        low, high = rng.choice(((0, 31), (32, 126), (127, 255), (256, 0xD7FF),
                                (0xE000, 0xFFFF), (0x10000, 0x10FFFF)))
        chars.append(chr(rng.randint(low, high)))
    return "".join(chars)


def fragment(rng: Rng) -> str:
    return rng.choice(rng.choice((AUTHORS, TITLES, CONTAINERS, YEARS, TAILS)))


def citation_text(rng: Rng) -> str:
    """A citation-like string: author, year, title, container, tail, in some order, with
    noise now and then."""
    parts = [rng.choice(AUTHORS), rng.choice(YEARS), rng.choice(TITLES), rng.choice(CONTAINERS),
             rng.choice(TAILS)]
    if rng.random() < 0.2:
        rng.shuffle(parts)
    if rng.random() < 0.25:
        parts.insert(rng.randint(0, len(parts)), noise(rng))
    return ". ".join(p for p in parts if p)


def mutated(rng: Rng, data: bytes, chance: float = 1 / 3) -> bytes:
    """``data`` with, at ``chance``, up to three byte-level mutations: a cut, a repeat,
    inserted bytes (not always UTF-8) or a flipped byte."""
    if rng.random() >= chance:
        return data
    for _ in range(rng.randint(1, 3)):
        where = rng.randint(0, len(data))
        op = rng.choice(("cut", "repeat", "insert", "flip"))
        if op == "cut":
            data = data[:where] + data[where + rng.randint(1, 40):]
        elif op == "repeat":
            data = data[:where] + data[where: where + 60] + data[where:]
        elif op == "insert":
            data = data[:where] + rng.randbytes(rng.randint(1, 6)) + data[where:]
        elif data:
            at = min(where, len(data) - 1)
            data = data[:at] + bytes([data[at] ^ rng.randint(1, 255)]) + data[at + 1:]
    return data


@dataclass(frozen=True, slots=True)
class Case:
    """One generated input: its bytes and what the generator knows of its elements."""

    data: bytes
    expected: tuple[str | None, ...] | None = None
    """Per element, in order: the field an error must name ("" for an error naming no
    field in particular, None for either a citation or an error); None when the
    generator does not know the elements (a mutated or truncated file)."""
    at_least: int = 0
    """Elements the file must give at least: one per entry or record it holds (a broken
    one may give more, never fewer)."""


# -- text (pasted lists) --------------------------------------------------------------------


def pasted_list(rng: Rng) -> Case:
    lines: list[str] = []
    if rng.random() < 0.5:
        lines.append(rng.choice(["References", "Bibliography:", "WORKS CITED", ""]))
    blank_between = rng.random() < 0.5
    for number in range(1, rng.randint(1, 8) + 1):
        marker = rng.choice(MARKERS).replace("1", str(number))
        text = citation_text(rng)
        width = rng.choice([0, 0, 30, 50, 70])
        if width:
            pieces = [text[i: i + width] for i in range(0, len(text), width)] or [""]
            indent = rng.choice(["", "  ", "    "])
            lines += [marker + pieces[0], *(indent + p for p in pieces[1:])]
        else:
            lines.append(marker + text)
        if blank_between:
            lines.append("")
    newline = rng.choice(["\n", "\r\n", "\n"])
    return Case(mutated(rng, newline.join(lines).encode("utf-8")))


# -- BibTeX -------------------------------------------------------------------------------

BIB_TYPES = ["article", "book", "inproceedings", "incollection", "phdthesis", "misc",
             "ARTICLE", "online", "unknowntype", "string", "comment", "preamble"]
BIB_FIELDS = ["author", "title", "journal", "year", "volume", "number", "pages", "doi", "url",
              "editor", "publisher", "eprint", "archiveprefix", "isbn", "booktitle", "note",
              "school", "date", "issn", "pmid"]
BIB_KEYS = ["smith2019", "doe", "k1", "k1", "Müller:2019", "a b", "", "x,y", "key-with-dash"]


def bib_value(rng: Rng) -> str:
    text = " ".join(rng.choice((fragment(rng), rng.choice(LATEX), noise(rng)))
                    for _ in range(rng.randint(0, 4)))
    style = rng.choice(["brace", "brace", "quote", "bare", "concat"])
    if style == "brace":
        return "{" + text + "}"
    if style == "quote":
        return '"' + text.replace('"', "") + '"'
    if style == "concat":
        return '"' + text.replace('"', "") + '" # nat'
    return rng.choice(["2019", "nat", "12", "jan", "{}"])


def bib_entry(rng: Rng) -> str:
    kind = rng.choice(BIB_TYPES)
    key = rng.choice(BIB_KEYS) if rng.random() < 0.8 else noise(rng, 8)
    fields = [(rng.choice(BIB_FIELDS), bib_value(rng)) for _ in range(rng.randint(0, 7))]
    body = ",\n".join(f"  {name} = {value}" for name, value in fields)
    close = rng.choice(["}", "}", "}", "", ")"])
    open_ = "(" if close == ")" else "{"
    return f"@{kind}{open_}{key},\n{body}\n{close}\n"


def bib_file(rng: Rng) -> Case:
    blocks = [bib_entry(rng) if rng.random() < 0.8 else rng.choice(
        ['@string{nat = "Nature"}\n', "% a comment\n", "stray text\n", "@comment{x}\n"])
        for _ in range(rng.randint(0, 5))]
    data = "".join(blocks).encode("utf-8")
    entries = sum(1 for b in blocks if b.startswith("@") and not b.startswith(
        ("@string", "@comment", "@preamble")))
    changed = mutated(rng, data)
    return Case(changed, at_least=entries if changed == data else 0)


# -- RIS ----------------------------------------------------------------------------------

RIS_TAGS = ["AU", "A1", "TI", "T1", "JO", "JF", "T2", "PY", "Y1", "DA", "VL", "IS", "SP", "EP",
            "DO", "UR", "SN", "PB", "CY", "ED", "BT", "ID", "KW", "AB", "XX", "N1"]
RIS_TYPES = ["JOUR", "BOOK", "CHAP", "CONF", "THES", "RPRT", "ELEC", "GEN", "zzzz", ""]


def ris_file(rng: Rng) -> Case:
    lines: list[str] = []
    records = rng.randint(0, 5)
    for _ in range(records):
        if rng.random() < 0.15:
            lines.append(rng.choice(["stray text", "", "   "]))
        lines.append(f"TY  - {rng.choice(RIS_TYPES)}")
        for _ in range(rng.randint(0, 8)):
            sep = rng.choice(["  - ", "  - ", " - ", "  -", "-"])
            value = fragment(rng) if rng.random() < 0.7 else noise(rng)
            lines.append(f"{rng.choice(RIS_TAGS)}{sep}{value}")
        if rng.random() < 0.75:
            lines.append("ER  - ")
        lines.append("")
    data = "\n".join(lines).encode("utf-8")
    changed = mutated(rng, data)
    return Case(changed, at_least=records if changed == data else 0)


# -- CSL-JSON and JSON lines ----------------------------------------------------------------

CSL_TEXT_FIELDS = ["container-title", "publisher", "DOI", "URL", "type"]
CSL_NUMBER_FIELDS = ["volume", "issue", "page", "edition", "PMID"]
WRONG_VALUES: dict[str, list[Any]] = {
    "title": [42, 4.5, True, {"x": 1}, ["a", 1], [1]],
    "container-title": [42, True, {"x": 1}, [1, 2]],
    "author": ["Smith, J.", 7, [{"family": 7}], ["Smith"], {"a": 1}],
    "editor": ["Smith, J.", [{"given": ["J"]}]],
    "issued": [[2019], True, {"date-parts": 2019}],
    "DOI": [10.1, ["10.1/x"], {"x": 1}],
    "volume": [4.5, True, {"x": 1}, [1]],
}
"""Values of the wrong type, by the field they are given to."""


def csl_person(rng: Rng) -> dict[str, Any]:
    keys = rng.sample(["family", "given", "literal", "suffix", "non-dropping-particle"],
                      rng.randint(0, 3))
    return {k: rng.choice(["Smith", "J.", "van", "WHO", "Müller", ""]) for k in keys}


def csl_item(rng: Rng) -> tuple[Any, str]:
    """A CSL item and the field given a value of the wrong type ("" for none)."""
    item: dict[str, Any] = {"title": rng.choice(TITLES[:-1])}
    if rng.random() < 0.5:
        item["id"] = rng.choice(["a", "b", "c", "smith2019", 0, 1, 2])
    for key in rng.sample(CSL_TEXT_FIELDS, rng.randint(0, 3)):
        item[key] = rng.choice(CONTAINERS + ["article-journal", "book"])
    for key in rng.sample(CSL_NUMBER_FIELDS, rng.randint(0, 2)):
        item[key] = rng.choice(["12", "3-4", "LIX", rng.randint(0, 999)])
    if rng.random() < 0.5:
        item["author"] = [csl_person(rng) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.5:
        item["issued"] = rng.choice([{"date-parts": [[2019, 3]]}, {"raw": "2019-03"},
                                     {"literal": "Spring 2019"}, "2019", 2019,
                                     {"date-parts": [[]]}, {}])
    if rng.random() < 0.5:
        item[rng.choice(["abstract", "note", "x-extra"])] = rng.choice(
            [None, rng.randint(-5, 5), noise(rng), [1, 2]])
    wrong = ""
    if rng.random() < 0.25:
        wrong = rng.choice(list(WRONG_VALUES))
        item[wrong] = rng.choice(WRONG_VALUES[wrong])
    return item, wrong


def csl_file(rng: Rng) -> Case:
    values: list[Any] = []
    expected: list[str | None] = []
    for _ in range(rng.randint(0, 6)):
        if rng.random() < 0.1:
            values.append(rng.choice([1, "x", None, []]))
            expected.append("")
        else:
            item, wrong = csl_item(rng)
            values.append(item)
            expected.append(wrong or None)
    data = json.dumps(values, ensure_ascii=rng.random() < 0.5).encode()
    roll = rng.random()
    if roll < 0.1 and data:
        return Case(data[: rng.randint(0, len(data) - 1)])
    if roll < 0.2:
        return Case(mutated(rng, data, chance=1.0))
    return Case(data, tuple(expected))


def jsonl_file(rng: Rng) -> Case:
    lines: list[str] = []
    expected: list[str | None] = []
    for _ in range(rng.randint(0, 6)):
        kind = rng.choice(["text", "csl", "csl", "bibtex", "other", "bad", "blank"])
        if kind == "text":
            text = rng.choice([citation_text(rng), citation_text(rng), 7, None])
            lines.append(json.dumps({"text": text, "id": rng.choice(["t1", "t2"])}))
            expected.append(None if isinstance(text, str) else "")
        elif kind == "csl":
            item, wrong = csl_item(rng)
            lines.append(json.dumps(item))
            expected.append(wrong or None)
        elif kind == "bibtex":
            fields: dict[str, Any] = {rng.choice(BIB_FIELDS): rng.choice(TITLES + LATEX + ["2019"])
                                      for _ in range(rng.randint(0, 4))}
            wrong = ""
            if rng.random() < 0.25:
                wrong = rng.choice(BIB_FIELDS)
                fields[wrong] = rng.choice([["a"], {"x": 1}, True, 4.5])
            lines.append(json.dumps({"bibtex_key": rng.choice(["k1", "k2", "k3"]),
                                     "bibtex_type": rng.choice(BIB_TYPES), "fields": fields}))
            expected.append(wrong or None)
        elif kind == "other":
            lines.append(json.dumps(rng.choice([5, [1, 2], {"label": 1}, "text"])))
            expected.append("")
        elif kind == "bad":
            lines.append(rng.choice(['{"text": "a"', "{", "[1,", "nul", '{"a":}']))
            expected.append("")
        else:
            lines.append(rng.choice(["", "   "]))
    data = "\n".join(lines).encode("utf-8")
    if rng.random() < 0.1:
        return Case(mutated(rng, data, chance=1.0))
    return Case(data, tuple(expected))


# -- CSV and TSV ----------------------------------------------------------------------------

HEADERS = [["id", "citation"], ["citation_text"], ["ref", "text", "label"], ["Citation"],
           ["id", "title"], ["a", "b"], ["reference", "id"], [""]]
CELLS = ['a "quoted" cell', "line\nbreak", "x,y;z\tw", ""]


def table_file(rng: Rng, delimiter: str) -> Case:
    header = rng.choice(HEADERS)
    rows = [[rng.choice((citation_text(rng), fragment(rng), noise(rng), rng.choice(CELLS)))
             for _ in range(rng.randint(0, len(header) + 1))] for _ in range(rng.randint(0, 6))]
    if rng.random() < 0.2:  # written by hand: quoting may be broken
        text = "\n".join(delimiter.join(row) for row in [header, *rows])
    else:
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows([header, *rows])
        text = out.getvalue()
    return Case(mutated(rng, text.encode("utf-8")))


def parse_text(rng: Rng) -> str:
    return citation_text(rng) if rng.random() < 0.7 else noise(rng, 300)


# -- running --------------------------------------------------------------------------------


@dataclass(slots=True)
class Tally:
    """What one reader (or the parser) did over its inputs."""

    inputs: int = 0
    citations: int = 0
    input_errors: int = 0
    crashes: int = 0
    violations: int = 0
    seconds: float = 0.0
    examples: list[dict[str, str]] = field(default_factory=list)

    def fail(self, kind: str, detail: str, data: bytes | str, generator_seed: int) -> None:
        if kind == "crash":
            self.crashes += 1
        else:
            self.violations += 1
        if len(self.examples) < 5:
            shown = data if isinstance(data, str) else data.decode("utf-8", "replace")
            self.examples.append({"kind": kind, "seed": str(generator_seed),
                                  "detail": detail[-1500:], "input": shown[:600]})

    def as_json(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "citations": self.citations,
                "input_errors": self.input_errors, "crashes": self.crashes,
                "violations": self.violations, "seconds": round(self.seconds, 2),
                "examples": self.examples}


def _writable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def element_problems(items: list[Any], unique_ids: bool, one_line: bool = True
                     ) -> list[str]:
    """Every breach of the reading contract (see the module docstring) in ``items``.
    With ``one_line``, a citation's text must hold no line break (the text format; a
    table cell or a JSON string may hold one, kept as given)."""
    problems: list[str] = []
    ids: set[str] = set()
    for position, item in enumerate(items):
        if isinstance(item, CitationInput):
            text = item.text
            if item.index != position:
                problems.append(f"element {position} has index {item.index}")
            if not text or text != text.strip() or len(text) > MAX_LINE_CHARS or (
                    one_line and "\n" in text):
                problems.append(f"element {position}: bad text {text[:80]!r}")
            notices = getattr(item, "notices", ())  # absent before the notices existed
            if not item.id or not all(_writable(s) for s in (text, item.id, *notices)):
                problems.append(f"element {position}: id or text cannot be written")
            if unique_ids and item.id in ids:
                problems.append(f"element {position}: id {item.id!r} repeated")
            ids.add(item.id)
        elif isinstance(item, InputError):
            if not item.item or not item.message or not _writable(
                    f"{item.item}{item.message}{item.text}"):
                problems.append(f"element {position}: error without name or message: {item}")
        else:
            problems.append(f"element {position} is a {type(item).__name__}")
    return problems


def expectation_problems(items: list[Any], expected: tuple[str | None, ...]) -> list[str]:
    """Breaches of what the generator knows: one element per item, and a wrong-typed
    field reported as an error naming it."""
    if len(items) != len(expected):
        return [f"{len(expected)} items gave {len(items)} elements (lost or merged)"]
    problems: list[str] = []
    for position, (item, want) in enumerate(zip(items, expected, strict=True)):
        if want is None:
            continue
        if not isinstance(item, InputError):
            problems.append(f"element {position}: expected an input error, got a citation")
        elif want and (named := getattr(item, "field", "")) != want:
            problems.append(f"element {position}: error names field {named!r}, "
                            f"expected {want!r}: {item}")
    return problems


def check_reader(tally: Tally, folder: Path, fmt: str, suffix: str, case: Case,
                 generator_seed: int = 0) -> None:
    """Read one generated file as ``fmt`` and check it (see the module docstring)."""
    path = folder / f"input{suffix}"
    path.write_bytes(case.data)
    started = time.perf_counter()
    try:
        items = list(read_citations(path, fmt))
        total = count_citations(path, fmt)
    except Exception:
        tally.seconds += time.perf_counter() - started
        tally.inputs += 1
        tally.fail("crash", traceback.format_exc(), case.data, generator_seed)
        return
    tally.seconds += time.perf_counter() - started
    tally.inputs += 1
    tally.citations += sum(isinstance(i, CitationInput) for i in items)
    tally.input_errors += sum(isinstance(i, InputError) for i in items)
    problems = element_problems(items, unique_ids=fmt != "text",
                                one_line=fmt not in ("csv", "tsv", "jsonl"))
    if total != len(items):
        problems.append(f"count_citations gave {total}, reading gave {len(items)}")
    if case.expected is not None:
        problems += expectation_problems(items, case.expected)
    if len(items) < case.at_least:
        problems.append(f"{case.at_least} entries gave {len(items)} elements (lost)")
    if problems:
        tally.fail("violation", "; ".join(problems), case.data, generator_seed)


def _citation_problems(citation: object) -> list[str]:
    if not isinstance(citation, Citation):
        return [f"returned a {type(citation).__name__}"]
    problems = [f"{name} is {type(getattr(citation, name)).__name__}"
                for name in ("title", "container", "volume", "issue", "pages", "publisher",
                             "place", "edition") if not isinstance(getattr(citation, name), str)]
    if citation.year is not None and not isinstance(citation.year, int):
        problems.append("year is not an int")
    if not all(isinstance(a, Author) for a in (*citation.authors, *citation.editors)):
        problems.append("an author is not an Author")
    if not isinstance(citation.type, WorkType):
        problems.append("type is not a WorkType")
    return problems


def check_parse(tally: Tally, text: str, generator_seed: int = 0) -> None:
    started = time.perf_counter()
    try:
        citation = parse_citation(text)
    except Exception:
        tally.fail("crash", traceback.format_exc(), text, generator_seed)
        citation = None
    tally.seconds += time.perf_counter() - started
    tally.inputs += 1
    if citation is not None:
        tally.citations += 1
        problems = _citation_problems(citation)
        if problems:
            tally.fail("violation", "; ".join(problems), text, generator_seed)


READERS: dict[str, tuple[str, Callable[[Rng], Case], float]] = {
    # name: (file suffix, generator, share of the total)
    "text": (".txt", pasted_list, 0.20),
    "bibtex": (".bib", bib_file, 0.12),
    "ris": (".ris", ris_file, 0.12),
    "csl-json": (".json", csl_file, 0.14),
    "jsonl": (".jsonl", jsonl_file, 0.14),
    "csv": (".csv", lambda rng: table_file(rng, ","), 0.07),
    "tsv": (".tsv", lambda rng: table_file(rng, "\t"), 0.05),
}
PARSE_SHARE = 0.16
"""Share of the total given to ``parse_citation`` (the readers' shares make the rest)."""


def _drive(count: int, seed_value: int, check: Callable[[int], None]) -> None:
    """Call ``check`` with ``count`` generator seeds that ``hypothesis`` draws (generation
    phase only: the checks record failures themselves, so nothing is shrunk). Each input
    is built from its seed by a structured generator, so a failure is reproduced from
    the seed the report shows; drawing whole documents through hypothesis strategies
    costs 1-6 ms an input, too slow for 100,000."""
    if count <= 0:
        return

    @seed(seed_value)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 2**63 - 1))
    def run(value: int) -> None:
        check(value)

    run()


def fuzz(total: int, seed_value: int = 0) -> dict[str, Any]:
    """Generate about ``total`` inputs shared among the readers and the parser, check
    each, and return the report (see the module docstring)."""
    tallies: dict[str, Tally] = {}
    started, cpu = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="fuzz-inputs-") as name:
        folder = Path(name)
        for offset, (fmt, (suffix, generate, share)) in enumerate(READERS.items()):
            tally = tallies[fmt] = Tally()

            def one(value: int, t: Tally = tally, f: str = fmt, x: str = suffix,
                    g: Callable[[Rng], Case] = generate) -> None:
                check_reader(t, folder, f, x, g(random.Random(value)), value)

            _drive(round(total * share), seed_value + offset, one)
        parse_tally = tallies["parse_citation"] = Tally()
        _drive(total - sum(t.inputs for t in tallies.values()), seed_value + 99,
               lambda value: check_parse(parse_tally, parse_text(random.Random(value)), value))
    return {
        "total_inputs": sum(t.inputs for t in tallies.values()),
        "crashes": sum(t.crashes for t in tallies.values()),
        "violations": sum(t.violations for t in tallies.values()),
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(time.process_time() - cpu, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "seed": seed_value,
        "hypothesis": "draws the generator seeds; generate phase only, no shrinking, "
                      "no example database",
        "readers": {name: t.as_json() for name, t in tallies.items()},
    }


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzing; 0 when nothing crashed and no contract was breached, else 1."""
    parser = argparse.ArgumentParser(prog="verifier bench fuzz-inputs",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--total", type=int, default=100_000, help="inputs to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=result_file, help="write the report as JSON to this file")
    args = parser.parse_args(argv)
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", tempfile.gettempdir())
    report = fuzz(args.total, args.seed)
    for name, tally in report["readers"].items():
        print(f"{name:15s} {tally['inputs']:7,d} inputs  {tally['citations']:8,d} citations  "
              f"{tally['input_errors']:7,d} input errors  {tally['crashes']} crashes  "
              f"{tally['violations']} violations  {tally['seconds']:7.1f} s")
    print(f"{report['total_inputs']:,} inputs, {report['crashes']} crashes, "
          f"{report['violations']} violations; {report['wall_s']} s wall, "
          f"{report['cpu_s']} s CPU")
    if args.json:
        write_result(args.json, report)
    return 1 if report["crashes"] or report["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
