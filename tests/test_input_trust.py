"""Inputs that used to be read wrong without a word: pasted lists whose later citations
were glued to the entry above, structured fields of the wrong type coerced or dropped,
and LaTeX quotes left as backticks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.citations.inputs import (
    InputItem,
    count_citations,
    read_citations,
    survey_input,
)
from verifier.citations.models import CitationInput
from verifier.errors import InputError


def write(tmp_path: Path, name: str, data: str) -> Path:
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    return path


def citations(items: list[InputItem]) -> list[CitationInput]:
    return [item for item in items if isinstance(item, CitationInput)]


def errors(items: list[InputItem]) -> list[InputError]:
    return [item for item in items if isinstance(item, InputError)]


# -- item 1: pasted lists ----------------------------------------------------------------

NUMBERED_THEN_ONE_PER_LINE = """\
1. Smith, J. (2019). Adaptive rates of things. Journal of Things, 3(2), 1-9.
2. Doe, A. (2020). Another study of stuff. Science, 12, 4-7.
Roe, C. (2021). A third title here. Nature, 5, 1-2.
Poe, E. A. (1845). The raven and other poems. Wiley and Putnam.
"""


def test_a_numbered_list_that_goes_on_one_per_line_keeps_every_citation(
    tmp_path: Path,
) -> None:
    items = list(read_citations(write(tmp_path, "refs.txt", NUMBERED_THEN_ONE_PER_LINE)))
    assert [item.text for item in citations(items)] == [
        "Smith, J. (2019). Adaptive rates of things. Journal of Things, 3(2), 1-9.",
        "Doe, A. (2020). Another study of stuff. Science, 12, 4-7.",
        "Roe, C. (2021). A third title here. Nature, 5, 1-2.",
        "Poe, E. A. (1845). The raven and other poems. Wiley and Putnam.",
    ]
    # The split of an unmarked line from a complete entry is a guess: it is reported.
    notices = [item.notices for item in citations(items)]
    assert notices[:2] == [(), ()]
    assert all("line 3" in n[0] or "line 4" in n[0] for n in notices[2:] if n)
    assert notices[2] and notices[3]


BLOCKS_ENDING_ONE_PER_LINE = """\
Smith, J. (2019). A title that wraps onto
the next line. Journal of Things, 3(2), 1-9.

Doe, A. (2020). Another one that
wraps. Publisher.

Roe, C. (2021). A one-line citation. Nature, 5, 1-2.
Poe, E. A. (1845). The raven and other poems. Wiley and Putnam.
"""


def test_a_blank_line_list_ending_with_one_line_citations_keeps_them_apart(
    tmp_path: Path,
) -> None:
    items = list(read_citations(write(tmp_path, "refs.txt", BLOCKS_ENDING_ONE_PER_LINE)))
    assert [(item.id.split("-")[0], item.text) for item in citations(items)] == [
        ("L1", "Smith, J. (2019). A title that wraps onto the next line. Journal of Things, "
               "3(2), 1-9."),
        ("L4", "Doe, A. (2020). Another one that wraps. Publisher."),
        ("L7", "Roe, C. (2021). A one-line citation. Nature, 5, 1-2."),
        ("L8", "Poe, E. A. (1845). The raven and other poems. Wiley and Putnam."),
    ]


def test_a_doubtful_join_is_reported_on_the_entry(tmp_path: Path) -> None:
    # The line above ends a sentence and the next starts in capitals but not like a
    # citation: most likely the title on its own line, but not certainly.
    pasted = ("Smith, J. (2019).\nAdaptive rates of things. Journal, 3, 1-9.\n\n"
              "Doe, A. (2020). Another study that\nwraps. Science, 12, 4-7.\n")
    items = citations(list(read_citations(write(tmp_path, "refs.txt", pasted))))
    assert [item.text for item in items] == [
        "Smith, J. (2019). Adaptive rates of things. Journal, 3, 1-9.",
        "Doe, A. (2020). Another study that wraps. Science, 12, 4-7."]
    assert len(items[0].notices) == 1 and "line 2" in items[0].notices[0]
    assert items[1].notices == ()  # "that" / "wraps": a break inside a sentence is certain


def test_wrapped_entries_of_a_marked_list_are_still_joined_without_notices(
    tmp_path: Path,
) -> None:
    pasted = ("[1] Smith, J. (2019). A title that\n    wraps. Journal, 3, 1-9.\n"
              "[2] Doe, A. (2020).\n    Other title. Science, 1, 2-3.\n")
    items = citations(list(read_citations(write(tmp_path, "refs.txt", pasted))))
    assert [(item.text, item.notices) for item in items] == [
        ("Smith, J. (2019). A title that wraps. Journal, 3, 1-9.", ()),
        ("Doe, A. (2020). Other title. Science, 1, 2-3.", ())]


def test_the_survey_counts_entries_against_lines_and_doubtful_decisions(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "refs.txt", NUMBERED_THEN_ONE_PER_LINE + "\n\xff\n")
    path.write_bytes(path.read_bytes().replace("\xff".encode(), b"\xff"))
    survey = survey_input(path)
    assert survey.entries == count_citations(path) == 5
    assert (survey.citations, survey.errors) == (4, 1)
    assert survey.uncertain == 2
    assert survey.format == "text"


# -- item 15: fields of the wrong type ---------------------------------------------------


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({"id": "a", "title": 42, "author": [{"family": "Smith"}]}, "title"),
        ({"id": "a", "title": "T", "author": "Smith, J."}, "author"),
        ({"id": "a", "title": "T", "author": [{"family": 7}]}, "author"),
        ({"id": "a", "title": "T", "author": ["Smith"]}, "author"),
        ({"id": "a", "title": "T", "container-title": {"x": 1}}, "container-title"),
        ({"id": "a", "title": "T", "issued": [2019]}, "issued"),
        ({"id": "a", "title": "T", "DOI": 10.1}, "DOI"),
        ({"id": "a", "title": True}, "title"),
        ({"id": "a", "title": ["T"]}, "title"),
    ],
)
def test_a_csl_field_of_the_wrong_type_is_an_input_error_naming_it(
    tmp_path: Path, item: dict[str, object], field: str,
) -> None:
    good = {"id": "b", "title": "Good title", "author": [{"family": "Doe", "given": "A."}]}
    for name, data in (("refs.json", json.dumps([item, good])),
                       ("refs.jsonl", json.dumps(item) + "\n" + json.dumps(good) + "\n")):
        items = list(read_citations(write(tmp_path, name, data)))
        [error] = errors(items)
        assert error.item == "a" and error.field == field, (name, error)
        assert repr(field) in error.message
        assert [c.id for c in citations(items)] == ["b"]


def test_csl_numbers_where_csl_allows_them_are_read(tmp_path: Path) -> None:
    item = {"id": "a", "title": "T", "volume": 12, "issue": 3, "page": 45, "author": [],
            "container-title": ["Journal"], "ISBN": ["978-0-306-40615-7"]}
    [read] = list(read_citations(write(tmp_path, "refs.json", json.dumps([item]))))
    assert isinstance(read, CitationInput) and read.fields is not None
    assert (read.fields.volume, read.fields.issue, read.fields.pages) == ("12", "3", "45")
    assert read.fields.container == "Journal"


def test_jsonl_bibtex_fields_of_the_wrong_type_are_input_errors(tmp_path: Path) -> None:
    rows = [{"bibtex_key": "k1", "bibtex_type": "article",
             "fields": {"title": "T", "author": ["Smith"]}},
            {"bibtex_key": "k2", "bibtex_type": "article",
             "fields": {"title": "T2", "author": "Doe, A.", "year": 2019}}]
    items = list(read_citations(write(tmp_path, "refs.jsonl",
                                      "\n".join(json.dumps(r) for r in rows))))
    [error] = errors(items)
    assert (error.item, error.field) == ("k1", "author")
    [good] = citations(items)
    assert good.fields is not None and good.fields.year == 2019


# -- item 17: LaTeX quotes --------------------------------------------------------------


@pytest.mark.parametrize("title", ["The ``best'' way", r"The ``b\'est'' way", "The `best' way"])
def test_latex_quotes_in_bibtex_fields_become_typographic_quotes(
    tmp_path: Path, title: str,
) -> None:
    bib = f"@article{{k, title = {{{title}}}, author = {{Smith, J.}}, year = 2019}}\n"
    [item] = list(read_citations(write(tmp_path, "refs.bib", bib)))
    assert isinstance(item, CitationInput) and item.fields is not None
    assert "`" not in item.fields.title and "''" not in item.fields.title
    assert item.fields.title.startswith("The \u201cb" if "``" in title else "The \u2018b")


@pytest.mark.parametrize(
    "after",
    [
        "Internal Revenue Service (IRS). (2021). Charitable contributions. Publication 526.",
        "World Health Organization (WHO). (n.d.). Preventing suicide. Retrieved from x.org",
        "Chow, B. G. (2015). ISR integration in counterinsurgency. RAND Corporation.",
        "Smith JA, Doe B. Rates of things. Lancet. 2019;3:1-9.",
        "van der Berg, Jan (2001). Dutch dikes. Delft University Press.",
    ],
)
def test_a_citation_after_one_ending_in_a_link_or_by_an_organisation_stands_alone(
    tmp_path: Path, after: str,
) -> None:
    second = ("2. Byman, D. (2013). Why drones work. Brookings Institution. Retrieved from "
              "https://www.brookings.edu/articles/why-drones-work/")
    pasted = f"1. Doe, A. (2020). Other title. Science, 1, 2-3.\n{second}\n{after}\n"
    items = citations(list(read_citations(write(tmp_path, "refs.txt", pasted))))
    assert [item.text for item in items][-1] == after
    assert len(items) == 3


def test_an_error_naming_a_key_that_is_not_utf8_can_be_written(tmp_path: Path) -> None:
    # Found by bench/fuzz_inputs.py: the key of an entry with no field, quoted raw in the
    # error, held bytes that are not UTF-8, and writing the error line failed.
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k\xff\xfez,\n\n}\n@article{ok, title = {T}}\n")
    bad, good = list(read_citations(path))
    assert isinstance(bad, InputError) and isinstance(good, CitationInput)
    assert bad.item == "k\ufffd\ufffdz"
    str(bad).encode("utf-8")
    bad.text.encode("utf-8")
