"""Reading the structured formats (BibTeX, RIS, CSL-JSON, JSON lines, CSV/TSV) and
choosing a format with ``--format auto``: each item keeps its id and text, structured
fields become ``fields``, and a bad item is an error in its place."""

from __future__ import annotations

import csv
import io
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from verifier.citations.inputs import (
    AUTO,
    READERS,
    STDIN,
    InputItem,
    count_citations,
    detect_format,
    read_citations,
)
from verifier.citations.inputs import lines as input_lines
from verifier.citations.inputs.detect import sniff_format
from verifier.citations.models import Author, Citation, CitationInput, Identifiers, WorkType
from verifier.cli.main import build_parser, main
from verifier.errors import ConfigError, InputError

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
WW_CSV = SHARED_DATA / "walters_wilder_2023" / "ww2023_citations.csv"


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def read(path: Path, fmt: str = AUTO) -> list[InputItem]:
    items = list(read_citations(path, fmt))
    assert count_citations(path, fmt) == len(items)  # the progress total is exact
    assert [getattr(i, "index", n) for n, i in enumerate(items)] == list(range(len(items)))
    return items


def fields_of(item: InputItem) -> Citation:
    assert isinstance(item, CitationInput) and item.fields is not None, item
    return item.fields


# -- BibTeX ---------------------------------------------------------------------------------

BIB = r"""% Encoding: UTF-8
@string{nat = "Nature"}

@article{mueller2019,
  author  = {M{\"u}ller, J{\"o}rg and van der Berg, Jan and {World Health Organization}
             and Ada Lovelace and others},
  title   = {{The {DNA} Story}: {\"O}l \& Gas},
  journal = nat,
  year    = 2019, volume = {12}, number = {3}, pages = {1--9},
  doi     = {https://doi.org/10.1000/ABC_1},
  url     = {https://example.org/a\_b%20c},
}

@article{broken,
  author = {Smith, J.},
  title  = {A brace never closed,
  year   = {2020},

@book{doe2001,
  title = {Book Title}, author = {Jane Doe}, year = {2001},
  publisher = {Pub \& Sons}, address = {London}, edition = {2},
  isbn = {978-0-262-03384-8}, editor = {Roe, R. and Poe, P.}
}
"""


def test_bibtex_entries_become_items_with_fields_and_a_broken_one_an_error_between(
    tmp_path: Path,
) -> None:
    first, broken, book = read(write(tmp_path, "refs.bib", BIB))
    assert isinstance(first, CitationInput) and first.id == "mueller2019"
    assert first.fields == Citation(
        authors=(Author("Müller", "Jörg"), Author("van der Berg", "Jan"),
                 Author(literal="World Health Organization"), Author("Lovelace", "Ada")),
        et_al=True, year=2019, title="The DNA Story: Öl & Gas", container="Nature",
        volume="12", issue="3", pages="1-9", type=WorkType.ARTICLE,
        identifiers=Identifiers(doi="10.1000/abc_1", url="https://example.org/a_b%20c"))
    assert first.text == ("Müller, Jörg; van der Berg, Jan; World Health Organization; "
                          "Lovelace, Ada, et al. (2019). The DNA Story: Öl & Gas. Nature, "
                          "12(3), 1-9. https://doi.org/10.1000/abc_1")
    assert isinstance(broken, InputError) and broken.item == "broken"
    assert "line 14" in broken.message and broken.text.startswith("@article{broken")
    assert isinstance(book, CitationInput) and book.id == "doe2001" and book.index == 2
    assert book.fields == Citation(
        authors=(Author("Doe", "Jane"),), year=2001, title="Book Title", publisher="Pub & Sons",
        place="London", edition="2", editors=(Author("Roe", "R."), Author("Poe", "P.")),
        type=WorkType.BOOK, identifiers=Identifiers(isbn=("9780262033848",)))


@pytest.mark.parametrize(
    ("entry_type", "extra", "expected"),
    [
        ("article", "", WorkType.ARTICLE),
        ("book", "", WorkType.BOOK),
        ("incollection", "", WorkType.CHAPTER),
        ("inbook", "", WorkType.CHAPTER),
        ("inproceedings", "", WorkType.PROCEEDINGS),
        ("conference", "", WorkType.PROCEEDINGS),
        ("phdthesis", "", WorkType.THESIS),
        ("mastersthesis", "", WorkType.THESIS),
        ("techreport", "", WorkType.REPORT),
        ("misc", "url = {https://example.org/page},", WorkType.WEB),
        ("misc", "eprint = {1706.03762}, archivePrefix = {arXiv},", WorkType.PREPRINT),
        ("misc", "", WorkType.OTHER),
        ("unpublished", "", WorkType.OTHER),
    ],
)
def test_bibtex_entry_types(tmp_path: Path, entry_type: str, extra: str,
                            expected: WorkType) -> None:
    bib = f"@{entry_type.upper() if entry_type == 'book' else entry_type}{{k, {extra} title={{T}}}}"
    [item] = read(write(tmp_path, "t.bib", bib))
    assert fields_of(item).type is expected


def test_bibtex_containers_and_identifiers(tmp_path: Path) -> None:
    bib = r"""
@inproceedings{p, title = {P}, booktitle = {Proc. of {ACL}}, year = {2021},
  eprint = {arXiv:2101.00001v2}, issn = {0028-0836}, pmid = {123}}
@article{a, title = {A}, journaltitle = {J. {\'E}tudes}, date = {2018-05-01}, issue = {4}}
"""
    proceedings, article = read(write(tmp_path, "c.bib", bib))
    assert fields_of(proceedings).container == "Proc. of ACL"
    assert fields_of(proceedings).identifiers == Identifiers(
        issn=("0028-0836",), arxiv="2101.00001", pmid="123")
    assert (fields_of(article).container, fields_of(article).year,
            fields_of(article).issue) == ("J. Études", 2018, "4")


def test_bibtex_duplicate_keys_and_fields_are_errors_the_rest_is_read(tmp_path: Path) -> None:
    bib = ("@article{a, title={One}}\n@article{a, title={Two}}\n"
           "@article{b, title={X}, title={Y}}\n@article{c, title={Three}}\n")
    items = read(write(tmp_path, "d.bib", bib))
    assert [type(i).__name__ for i in items] == ["CitationInput", "InputError", "InputError",
                                                 "CitationInput"]
    duplicate, twice = items[1], items[2]
    assert isinstance(duplicate, InputError) and duplicate.item == "line 2"
    assert "duplicate key 'a'" in duplicate.message and "line 1" in duplicate.message
    assert isinstance(twice, InputError) and twice.item == "b" and "title" in twice.message


def test_bibtex_markup_the_decoder_cannot_take_is_an_error_for_that_entry(tmp_path: Path) -> None:
    deep = "{" * 200 + "x" + "}" * 200
    bib = f"@article{{k, title={deep}}}\n@book{{b, title={{B}}}}"
    items = read(write(tmp_path, "deep.bib", bib))
    assert isinstance(items[0], InputError) and items[0].item == "k"
    assert "nested" in items[0].message
    assert fields_of(items[1]).title == "B"


def test_bibtex_bytes_that_are_not_utf8_fail_only_their_entry(tmp_path: Path) -> None:
    bib = b"@article{a, title={Caf\xe9}}\n@article{b, title={Ok}}"
    items = read(write(tmp_path, "l1.bib", bib))
    assert isinstance(items[0], InputError) and "UTF-8" in items[0].message
    assert "\ufffd" in items[0].text
    assert fields_of(items[1]).title == "Ok"


def test_formats_read_whole_refuse_a_huge_file_with_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(input_lines, "MAX_WHOLE_BYTES", 1024 * 1024)
    path = write(tmp_path, "big.bib", BIB * 2000)
    with pytest.raises(ConfigError, match="BibTeX input is larger than 1 MB"):
        count_citations(path)
    with pytest.raises(ConfigError, match="split it"):
        list(read_citations(path))


# -- RIS ------------------------------------------------------------------------------------

RIS = """TY  - JOUR
AU  - Smith, John
AU  - World Health Organization
TI  - A study of
  wrapped titles
JO  - J. Stud.
VL  - 3
IS  - 2
SP  - 1
EP  - 9
PY  - 2019///
DO  - https://doi.org/10.1000/XYZ
UR  - https://example.org/a
ID  - rec1
ER  -

TY  - CHAP
A1  - Doe, J.
T1  - A chapter
T2  - The Book
A2  - Roe, R.
PB  - Pub
CY  - London
SN  - 978-0-262-03384-8
Y1  - 2001/05/01
ER  -
"""


def test_ris_records_become_items_with_fields(tmp_path: Path) -> None:
    article, chapter = read(write(tmp_path, "refs.ris", RIS))
    assert isinstance(article, CitationInput) and article.id == "rec1"
    assert article.fields == Citation(
        authors=(Author("Smith", "John"), Author(literal="World Health Organization")),
        year=2019, title="A study of wrapped titles", container="J. Stud.", volume="3",
        issue="2", pages="1-9", type=WorkType.ARTICLE,
        identifiers=Identifiers(doi="10.1000/xyz", url="https://example.org/a"))
    assert article.text.startswith("Smith, John; World Health Organization (2019). A study")
    assert isinstance(chapter, CitationInput) and chapter.id.startswith("L17-")
    assert chapter.fields == Citation(
        authors=(Author("Doe", "J."),), year=2001, title="A chapter", container="The Book",
        editors=(Author("Roe", "R."),), publisher="Pub", place="London", type=WorkType.CHAPTER,
        identifiers=Identifiers(isbn=("9780262033848",)))


@pytest.mark.parametrize(
    ("ty", "expected"),
    [("JOUR", WorkType.ARTICLE), ("BOOK", WorkType.BOOK), ("CHAP", WorkType.CHAPTER),
     ("CONF", WorkType.PROCEEDINGS), ("CPAPER", WorkType.PROCEEDINGS),
     ("THES", WorkType.THESIS), ("RPRT", WorkType.REPORT), ("ELEC", WorkType.WEB),
     ("WEB", WorkType.WEB), ("GEN", WorkType.OTHER)],
)
def test_ris_types(tmp_path: Path, ty: str, expected: WorkType) -> None:
    [item] = read(write(tmp_path, "t.ris", f"TY  - {ty}\nTI  - T\nER  - \n"))
    assert fields_of(item).type is expected


def test_ris_text_outside_records_and_a_missing_er_line(tmp_path: Path) -> None:
    ris = ("TY  - JOUR\nTI  - One\nTY  - BOOK\nTI  - Two\nER  - \nstray\ntext\n\n"
           "TY  - JOUR\nTI  - Three\n")
    items = read(write(tmp_path, "s.ris", ris))
    assert [i.text if isinstance(i, CitationInput) else None for i in items] == [
        "One.", "Two.", None, "Three."]
    stray = items[2]
    assert isinstance(stray, InputError) and stray.item == "line 6"
    assert "outside a RIS record (lines 6-7)" in stray.message


CROSSREF_BIB = r"""
@inproceedings{child,
  author = {Vaswani, Ashish and others},
  title = {Attention is all you need},
  pages = {5998--6008},
  crossref = {NIPS17}
}
@proceedings{nips17,
  title = {Advances in Neural Information Processing Systems 30},
  year = {2017}, publisher = {Curran}, pages = {1--7000}
}
@inproceedings{own, title = {Own}, booktitle = {Its own}, year = {2001}, crossref = {nips17}}
@inproceedings{orphan, title = {Orphan}, crossref = {nowhere}}
"""


def test_a_bibtex_crossref_gives_the_fields_the_entry_lacks(tmp_path: Path) -> None:
    child, parent, own, orphan = read(write(tmp_path, "refs.bib", CROSSREF_BIB))
    cited = fields_of(child)
    assert cited.container == "Advances in Neural Information Processing Systems 30"
    assert (cited.year, cited.publisher) == (2017, "Curran")
    assert cited.title == "Attention is all you need"  # the parent's title is its booktitle
    assert cited.pages == "5998-6008"  # its own field wins
    assert fields_of(parent).title == "Advances in Neural Information Processing Systems 30"
    assert (fields_of(own).container, fields_of(own).year) == ("Its own", 2001)
    assert fields_of(orphan).title == "Orphan" and fields_of(orphan).year is None


# -- CSL-JSON -------------------------------------------------------------------------------

CSL = """[
  {"id": "c1", "type": "article-journal", "title": "A <i>title</i>",
   "author": [{"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
              {"literal": "WHO"}],
   "container-title": "Nature", "issued": {"date-parts": [[2019, 3]]},
   "volume": "12", "issue": 3, "page": "1–9", "DOI": "10.1000/X", "PMID": "31"},
  {"type": "book", "title": "B", "ISBN": "9780262033848", "issued": {"raw": "2001"},
   "editor": [{"family": "Roe", "given": "R."}], "publisher": "Pub",
   "publisher-place": "London"},
  42,
  {"id": 7, "type": "paper-conference", "title": "C", "URL": "https://arxiv.org/abs/2101.00001"}
]"""


def test_csl_json_items_become_items_with_fields(tmp_path: Path) -> None:
    article, book, number, paper = read(write(tmp_path, "refs.json", CSL))
    assert isinstance(article, CitationInput) and article.id == "c1"
    assert article.fields == Citation(
        authors=(Author("van der Berg", "Jan"), Author(literal="WHO")), year=2019,
        title="A title", container="Nature", volume="12", issue="3", pages="1-9",
        type=WorkType.ARTICLE, identifiers=Identifiers(doi="10.1000/x", pmid="31"))
    assert isinstance(book, CitationInput) and book.id.startswith("I2-")
    assert book.fields == Citation(
        year=2001, title="B", editors=(Author("Roe", "R."),), publisher="Pub", place="London",
        type=WorkType.BOOK, identifiers=Identifiers(isbn=("9780262033848",)))
    assert isinstance(number, InputError) and number.item == "item 3"
    assert isinstance(paper, CitationInput) and paper.id == "7"
    assert fields_of(paper).type is WorkType.PROCEEDINGS
    assert fields_of(paper).identifiers.arxiv == "2101.00001"


@pytest.mark.parametrize(("literal", "author"), [
    ("LeCun, Y.", Author("LeCun", "Y.")),  # a person in a single-field name
    ("Berg, Jan Willem", Author("Berg", "Jan Willem")),
    ("World Health Organization", Author(literal="World Health Organization")),
    ("Department of Health, UK", Author(literal="Department of Health, UK")),
    ("Doe, J., Roe, K.", Author(literal="Doe, J., Roe, K.")),  # two names: left whole
    ("UNESCO, Paris", Author(literal="UNESCO, Paris")),
])
def test_a_csl_literal_name_is_split_only_when_it_is_an_inverted_person(
        tmp_path: Path, literal: str, author: Author) -> None:
    item = {"id": "a", "type": "article-journal", "title": "Deep learning",
            "author": [{"literal": literal}]}
    [read_item] = read(write(tmp_path, "refs.json", orjson.dumps([item]).decode()))
    assert fields_of(read_item).authors == (author,)


def test_csl_json_that_is_not_json_is_one_error_naming_the_line(tmp_path: Path) -> None:
    [error] = read(write(tmp_path, "bad.json", '[\n  {"id": "a",\n  oops\n]'))
    assert isinstance(error, InputError) and error.item == "line 3"
    assert "not valid JSON" in error.message
    [hint] = read(write(tmp_path, "lines.json", '{"text": "a"}\n{"text": "b"}\n'))
    assert isinstance(hint, InputError) and "--format jsonl" in hint.message


# -- JSON lines -----------------------------------------------------------------------------

JSONL = "\n".join([
    '{"id": "j1", "text": "Smith, J. (2019). A title."}',
    '',
    '{"citation_text": "Doe, A. (2020). B.", "fabricated": 1}',
    '{"reference": "Roe (2021). C."',
    '[1, 2]',
    '{"title": "CSL one", "author": [{"family": "A", "given": "B"}], "type": "book"}',
    '{"bibtex_key": "k", "bibtex_type": "article", "label": "HALLUCINATED", "fields": '
    '{"author": "M. Jockers and D. Witten", "title": "T", "journal": "J", "year": "2010"}}',
    '{"note": "nothing to check"}',
    '{"text": 42}',
]) + "\n"


def test_jsonl_objects_as_text_csl_or_bibtex_and_bad_lines_in_place(tmp_path: Path) -> None:
    items = read(write(tmp_path, "refs.jsonl", JSONL))
    assert [(i.id, i.text, i.fields) for i in items[:2] if isinstance(i, CitationInput)] == [
        ("j1", "Smith, J. (2019). A title.", None),
        (f"L3-{__import__('hashlib').sha1(b'Doe, A. (2020). B.').hexdigest()[:8]}",
         "Doe, A. (2020). B.", None)]
    invalid, not_object = items[2], items[3]
    assert isinstance(invalid, InputError) and invalid.item == "line 4"
    assert "not valid JSON" in invalid.message and invalid.text.startswith('{"reference"')
    assert isinstance(not_object, InputError) and not_object.item == "line 5"
    assert fields_of(items[4]) == Citation(authors=(Author("A", "B"),), title="CSL one",
                                          type=WorkType.BOOK)
    hallmark = items[5]
    assert isinstance(hallmark, CitationInput) and hallmark.id == "k"
    assert fields_of(hallmark).authors == (Author("Jockers", "M."), Author("Witten", "D."))
    assert (fields_of(hallmark).container, fields_of(hallmark).year) == ("J", 2010)
    nothing, not_text = items[6], items[7]
    assert isinstance(nothing, InputError) and nothing.item == "line 8"
    assert isinstance(not_text, InputError) and "'text' is not a string" in not_text.message


PLAIN = [
    {"id": "a", "title": "Deep learning", "authors": ["Yann LeCun", "Bengio, Yoshua"],
     "year": 2015, "container": "Nature", "doi": "10.1038/nature14539"},
    {"id": "b", "title": "Deep learning", "authors": "LeCun, Y.; Bengio, Y.", "year": "2015",
     "journal": "Nature", "volume": 521, "pages": "436-444"},
    {"id": "c", "title": "Deep learning", "author": "Yann LeCun and Yoshua Bengio",
     "year": 2015},
    {"id": "d", "title": "The book", "authors": [{"family": "Roe", "given": "R."}],
     "publisher": "MIT Press", "year": 2001},
    {"id": "e", "title": "T", "authors": 5},
    {"id": "f", "title": "CSL kept", "author": [{"family": "Doe", "given": "A."}],
     "year": 1999},
]


def test_plain_fields_in_a_json_line_are_read_not_dropped(tmp_path: Path) -> None:
    """"authors", "year", "journal" are no CSL fields: they were ignored, and the title
    alone was looked for (no trace for a real article)."""
    text = "\n".join(orjson.dumps(line).decode() for line in PLAIN) + "\n"
    a, b, c, d, e, f = read(write(tmp_path, "plain.jsonl", text))
    lecun_bengio = (Author("LeCun", "Yann"), Author("Bengio", "Yoshua"))
    assert fields_of(a).authors == lecun_bengio
    assert (fields_of(a).year, fields_of(a).container, fields_of(a).type) == (
        2015, "Nature", WorkType.ARTICLE)
    assert fields_of(a).identifiers.doi == "10.1038/nature14539"
    assert fields_of(b).authors == (Author("LeCun", "Y."), Author("Bengio", "Y."))
    assert (fields_of(b).volume, fields_of(b).pages) == ("521", "436-444")
    assert fields_of(c).authors == lecun_bengio
    assert fields_of(d).type is WorkType.BOOK and fields_of(d).authors == (Author("Roe", "R."),)
    assert isinstance(e, InputError) and e.item == "e" and "'authors' is a number" in e.message
    assert fields_of(f).authors == (Author("Doe", "A."),)  # a CSL author list stays CSL


def test_an_unreadable_json_line_giving_an_id_is_named_by_it(tmp_path: Path) -> None:
    lines = ('{"id": "x1", "citation_text": 42}\n{"id": 7, "note": "nothing"}\n'
             '{"note": "no id either"}\n')
    items = read(write(tmp_path, "ids.jsonl", lines))
    errors = [i for i in items if isinstance(i, InputError)]
    assert [(e.item, e.message[:24]) for e in errors] == [
        ("x1", "'citation_text' is not a"), ("7", "no citation: expected a "),
        ("line 3", "no citation: expected a ")]
    assert errors[0].message.endswith("on line 1") and errors[1].message.endswith("on line 2")


def test_jsonl_repeated_id_is_an_error_naming_the_line(tmp_path: Path) -> None:
    lines = '{"id": "x", "text": "A"}\n{"id": "x", "text": "B"}\n'
    items = read(write(tmp_path, "dup.jsonl", lines))
    assert isinstance(items[1], InputError) and items[1].item == "line 2"
    assert "'x' is already used" in items[1].message


# -- CSV and TSV ----------------------------------------------------------------------------

WW_STYLE = (
    'id,gpt_version,citation_text,pub_type,fabricated\n'
    'walters_0001,3.5,"Smith, J. (2019). ""Quoted"", with commas. Journal, 3(2), 1-9.",A,1\n'
    'walters_0002,4,,B,0\n'
    'walters_0003\n'
    '\n'
    ',4,"Doe, A. (2020).\nA cell over two lines.",C,0\n'
    'walters_0006,4,Plain text,W,0\n'
)


def test_csv_rows_keep_id_and_text_and_ignore_other_columns(tmp_path: Path) -> None:
    items = read(write(tmp_path, "ww.csv", WW_STYLE))
    first, empty, short, derived, plain = items
    assert isinstance(first, CitationInput) and first.fields is None
    assert (first.id, first.text) == (
        "walters_0001", 'Smith, J. (2019). "Quoted", with commas. Journal, 3(2), 1-9.')
    # An unreadable row is named by its own id (its output line's id), its row said too.
    assert isinstance(empty, InputError) and empty.item == "walters_0002"
    assert empty.message == "empty citation_text cell on row 3"
    assert isinstance(short, InputError) and short.item == "walters_0003"
    assert "on row 4" in short.message and "1 of 5 columns" in short.message
    assert isinstance(derived, CitationInput) and derived.id.startswith("R6-")
    assert derived.text == "Doe, A. (2020).\nA cell over two lines."
    assert isinstance(plain, CitationInput) and (plain.id, plain.index) == ("walters_0006", 4)


@pytest.mark.parametrize(
    ("name", "data"),
    [("semi.csv", "ID;Reference\n1;Smith (2019). A.\n"),
     ("tabs.tsv", "Ref\tyear\nSmith (2019). A.\t2019\n"),
     ("one.csv", "citation\nSmith (2019). A.\n")],
)
def test_table_delimiters_and_column_names(tmp_path: Path, name: str, data: str) -> None:
    [item] = read(write(tmp_path, name, data))
    assert isinstance(item, CitationInput) and item.text == "Smith (2019). A."


def test_csv_without_a_citation_column_is_one_error(tmp_path: Path) -> None:
    [error] = read(write(tmp_path, "x.csv", "id,title\n1,A\n2,B\n"))
    assert isinstance(error, InputError) and error.item == "row 1"
    assert "'id', 'title'" in error.message and "citation_text" in error.message


def test_a_row_without_an_id_is_named_by_its_row_number(tmp_path: Path) -> None:
    items = read(write(tmp_path, "ids.csv",
                       "id,citation_text,year\n,,2019\nx1,Smith (2019). A.,2019\n"))
    assert isinstance(items[0], InputError) and items[0].item == "row 2"
    assert items[0].message == "empty citation_text cell"
    assert isinstance(items[1], CitationInput) and items[1].id == "x1"


def test_csv_row_errors_do_not_stop_the_rest(tmp_path: Path) -> None:
    data = b'text\n"' + b"x" * 200_000 + b'"\nok\nbad \xff\n'
    items = read(write(tmp_path, "e.csv", data))
    assert [type(i).__name__ for i in items] == ["InputError", "CitationInput", "InputError"]
    assert [i.item for i in items if isinstance(i, InputError)] == ["row 2", "row 4"]


def test_walters_wilder_csv_reads_as_636_items() -> None:
    if not SHARED_DATA.is_dir() or not WW_CSV.is_file():
        pytest.skip(f"{WW_CSV} not present")
    items = read(WW_CSV)
    with WW_CSV.open(newline="", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert len(items) == len(rows) == 636
    read_as = [(i.id, i.text) for i in items if isinstance(i, CitationInput) and not i.fields]
    assert read_as == [(row["id"], row["citation_text"]) for row in rows]
    assert (read_as[0][0], read_as[-1][0]) == ("walters_0001", "walters_0636")


# -- choosing the format --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a.bib", "bibtex"), ("a.BIB", "bibtex"), ("a.ris", "ris"), ("a.json", "csl-json"),
     ("a.jsonl", "jsonl"), ("a.ndjson", "jsonl"), ("a.csv", "csv"), ("a.tsv", "tsv"),
     ("a.txt", "text")],
)
def test_format_by_extension_wins_over_content(tmp_path: Path, name: str, expected: str) -> None:
    assert detect_format(write(tmp_path, name, "@article{k, title={T}}\n")) == expected


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"\xef\xbb\xbf% comment\n\n@Article{key,\n title={T}}", "bibtex"),
        (b"Provider: X\n\nTY  - JOUR\nTI  - T\nER  - \n", "ris"),
        (b'\n[\n  {"id": "a"}]', "csl-json"),
        (b"[]", "csl-json"),
        (b'{\n  "id": "a",\n  "title": "T"\n}', "csl-json"),
        (b'{"text": "a"}\n{"text": "b"}\n', "jsonl"),
        (b"id,citation_text,fabricated\nw1,x,1\n", "csv"),
        (b"ref\tnote\nx\ty\n", "tsv"),
        (b"[1] Smith, J. (2019). A title.\n[2] Doe.\n", "text"),
        (b"Smith, J. (2019). A title. Journal, 3, 1-9.\n", "text"),
        (b"", "text"),
        (b"\xff\xfe garbage", "text"),
    ],
)
def test_sniffing(head: bytes, expected: str) -> None:
    assert sniff_format(head) == expected


def test_unknown_extension_is_sniffed(tmp_path: Path) -> None:
    path = write(tmp_path, "refs.export", RIS)
    assert detect_format(path) == "ris"
    assert [i.id for i in read(path) if isinstance(i, CitationInput)][0] == "rec1"


def test_stdin_is_sniffed_and_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BIB.encode())))
    items = list(read_citations(STDIN))
    assert [getattr(i, "id", None) or getattr(i, "item", None) for i in items] == [
        "mueller2019", "broken", "doe2001"]


def test_stdin_pipe_is_not_waited_for_beyond_its_first_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A writer that sends one citation and keeps the pipe open: its citation is read
    (format sniffed, layout chosen) without waiting for more input."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"Smith, J. (2019). A title.\n")
    with open(read_end, "rb") as pipe:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(pipe))
        items = read_citations(STDIN)
        first: list[InputItem] = []
        reader = threading.Thread(target=lambda: first.append(next(items)), daemon=True)
        reader.start()
        reader.join(timeout=10)
        os.close(write_end)
        assert not reader.is_alive(), "the reader waited for more input"
        assert isinstance(first[0], CitationInput) and first[0].text == "Smith, J. (2019). A title."
        assert list(items) == []


def test_count_of_stdin_is_refused() -> None:
    with pytest.raises(ValueError, match="stdin"):
        count_citations(STDIN)


def test_every_format_reads_an_empty_input_as_nothing(tmp_path: Path) -> None:
    for fmt in READERS:
        if fmt == "csl-json":
            continue  # an empty document is not JSON: one error, tested above
        assert read(write(tmp_path, "empty", b""), fmt) == [], fmt


# -- the command line -----------------------------------------------------------------------


def test_format_defaults_to_auto_and_lists_every_format() -> None:
    args = build_parser().parse_args(["check", "refs.bib"])
    assert args.format == AUTO
    for fmt in READERS:
        assert build_parser().parse_args(["check", "x", "--format", fmt]).format == fmt


def test_unknown_format_name_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bib = write(tmp_path, "x.bib", BIB)
    assert main(["check", str(bib), "--format", "endnote", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "'endnote'" in err and "bibtex" in err


def test_et_al_and_html_entities_are_handled_in_every_structured_format() -> None:
    from verifier.citations.inputs.bibtex import bibtex_citation
    from verifier.citations.inputs.csl import csl_citation
    from verifier.citations.inputs.ris import ris_citation

    citations = [
        bibtex_citation("article", {"title": "Don&apos;t stop &amp; go",
                                    "author": "Lee, Yoonwoo and B&apos;Cee, A. and et al.",
                                    "journal": "A &amp; B", "year": "2020"}),
        csl_citation({"title": "Don&apos;t stop &amp; go", "type": "article-journal",
                      "author": [{"family": "Lee", "given": "Yoonwoo"},
                                 {"family": "B&apos;Cee", "given": "A."},
                                 {"literal": "et al."}],
                      "container-title": "A &amp; B"}),
        ris_citation({"type_of_reference": "JOUR", "title": "Don&apos;t stop &amp; go",
                      "authors": ["Lee, Yoonwoo", "B&apos;Cee, A.", "et al."],
                      "secondary_title": "A &amp; B", "year": "2020"}),
    ]
    for citation in citations:
        assert citation.title == "Don't stop & go"
        assert citation.container == "A & B"
        assert [a.family for a in citation.authors] == ["Lee", "B'Cee"]
        assert citation.et_al


def test_html_entities_in_plain_text_are_resolved_before_parsing() -> None:
    from verifier.citations.checker import citation_of_text

    citation = citation_of_text(
        "Lee, Y., &amp; Kang, J. (2020). Don&apos;t stop &amp; go. Journal of A &amp; B, "
        "3(2), 1-9.")
    assert citation.title == "Don't stop & go"
    assert [a.family for a in citation.authors] == ["Lee", "Kang"]


# -- UTF-16 and UTF-32 ----------------------------------------------------------------------

WIDE = [
    pytest.param(lambda text: text.encode("utf-16-le"), b"\xff\xfe", id="utf-16-le"),
    pytest.param(lambda text: text.encode("utf-16-be"), b"\xfe\xff", id="utf-16-be"),
    pytest.param(lambda text: text.encode("utf-32-le"), b"\xff\xfe\x00\x00", id="utf-32-le"),
    pytest.param(lambda text: text.encode("utf-32-be"), b"\x00\x00\xfe\xff", id="utf-32-be"),
]
TABLE = 'id,citation_text\nA1,"Müller, J. (2019). Ünïcode títle. Nature, 1, 2-3."\nA2,Two.\n'


@pytest.mark.parametrize(("encode", "mark"), WIDE)
@pytest.mark.parametrize(("name", "text"), [
    ("refs.txt", "Müller, J. (2019). Ünïcode títle. Nature, 1, 2-3.\n\nDoe, A. (2020). B.\n"),
    ("refs.csv", TABLE),
    ("refs.bib", BIB),
    ("refs.ris", RIS),
    ("refs.export", TABLE),  # no extension that names a format: sniffed
])
def test_text_saved_as_utf16_or_utf32_reads_as_its_utf8_does(
        tmp_path: Path, encode: Callable[[str], bytes], mark: bytes, name: str,
        text: str) -> None:
    (tmp_path / "wide").mkdir()
    wide = write(tmp_path / "wide", name, mark + encode(text))
    narrow = write(tmp_path, name, text)
    expected = read(narrow)
    assert detect_format(wide) == detect_format(narrow)
    assert comparable(read(wide)) == comparable(expected)
    assert any(isinstance(item, CitationInput) for item in expected)


def comparable(items: list[InputItem]) -> list[object]:
    """Items as values (an error compares by identity, so by its message here)."""
    return [item if isinstance(item, CitationInput) else str(item) for item in items]


def test_utf16_from_a_pipe_is_read_too(monkeypatch: pytest.MonkeyPatch) -> None:
    data = "\ufeffid,citation_text\nA1,Smith. (2019). A title.\n".encode("utf-16-le")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    items = list(read_citations(STDIN))
    assert [(i.id, i.text) for i in items if isinstance(i, CitationInput)] == [
        ("A1", "Smith. (2019). A title.")]


def test_a_code_unit_utf16_cannot_hold_becomes_a_replacement_and_the_rest_reads(
        tmp_path: Path) -> None:
    # A lone high surrogate (0xD800) in the first line.
    data = b"\xff\xfe" + "Bad ".encode("utf-16-le") + b"\x00\xd8" + \
        " one.\nGood one.\n".encode("utf-16-le")
    items = read(write(tmp_path, "refs.txt", data))
    assert [i.text for i in items if isinstance(i, CitationInput)] == [
        "Bad \ufffd one.", "Good one."]


def test_utf16_past_the_whole_read_limit_is_refused_as_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(input_lines, "MAX_WHOLE_BYTES", 64)
    path = write(tmp_path, "refs.txt",
                 ("\ufeff" + "Smith, J. (2019). A title.\n" * 4).encode("utf-16-le"))
    with pytest.raises(ConfigError, match="UTF-16 input is larger than"):
        list(read_citations(path))
