"""The ``bibtex`` format: each entry of a .bib file as an item with structured fields.

The file is read whole (up to :data:`~.lines.MAX_WHOLE_BYTES`) and split by
``bibtexparser``, which keeps reading after a broken entry: that entry becomes an error
naming its key (or its line), in its place, and the entries around it are read as usual.
An item's id is its citation key; its text is the entry rendered as one line.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from typing import BinaryIO

from bibtexparser.entrypoint import parse_string
from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, ParsingFailedBlock
from bibtexparser.model import Entry as BibEntry

from verifier.citations.models import Author, Citation, WorkType
from verifier.errors import InputError

from .fields import clean_pages, identifiers, one_line, tidy_structured, year_from
from .items import Entry, InputItem, excerpt, numbered
from .latex import LatexError, latex_to_text, unescape
from .lines import read_whole
from .render import render

ENTRY_TYPES = {
    "article": WorkType.ARTICLE,
    "book": WorkType.BOOK,
    "incollection": WorkType.CHAPTER,
    "inbook": WorkType.CHAPTER,
    "inproceedings": WorkType.PROCEEDINGS,
    "conference": WorkType.PROCEEDINGS,
    "phdthesis": WorkType.THESIS,
    "mastersthesis": WorkType.THESIS,
    "thesis": WorkType.THESIS,
    "techreport": WorkType.REPORT,
    "report": WorkType.REPORT,
    "online": WorkType.WEB,
    "electronic": WorkType.WEB,
    "www": WorkType.WEB,
}
"""Work types by entry type; ``misc`` is a preprint with an arXiv id, a web page with a
URL, and OTHER without either, like every type not listed."""

# bibtexparser logs every broken entry as a warning, which with no logging set up would go
# to stderr; here each one is an InputError instead.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

_KEY = re.compile(r"^\s*@\s*\w+\s*[{(]\s*([^\s,{}()\"=#%]+)\s*,")
_ARXIV_ID = re.compile(r"^(?:arxiv:)?\s*(?:\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7})(?:v\d+)?$", re.I)


def read_bibtex(stream: BinaryIO) -> Iterator[InputItem]:
    """The ``bibtex`` format (see the module docstring)."""
    return numbered(_entries(read_whole(stream, "BibTeX")))


def count_bibtex(stream: BinaryIO) -> int:
    """How many items :func:`read_bibtex` yields, without decoding any field."""
    return sum(1 for _ in _blocks(read_whole(stream, "BibTeX")))


def bibtex_citation(entry_type: str, fields: Mapping[str, str]) -> Citation:
    """The citation that a BibTeX entry of ``entry_type`` with ``fields`` (names in any
    case, values as written in the .bib file, LaTeX included) describes. Raises
    ``LatexError`` for a value the LaTeX decoder cannot read."""
    field = {name.lower(): value for name, value in fields.items() if isinstance(value, str)}

    def text(*names: str) -> str:
        return next((latex_to_text(field[n]) for n in names if field.get(n, "").strip()), "")

    def verbatim(*names: str) -> str:
        return next((unescape(field[n]) for n in names if field.get(n, "").strip()), "")

    kind = entry_type.lower()
    authors, et_al = people(field.get("author", ""))
    editors, _ = people(field.get("editor", ""))
    eprint = verbatim("eprint")
    prefix = verbatim("archiveprefix", "eprinttype").lower()
    arxiv = eprint if prefix == "arxiv" or _ARXIV_ID.match(eprint) else ""
    ids = identifiers(doi=verbatim("doi"), isbn=verbatim("isbn"), issn=verbatim("issn"),
                      arxiv=arxiv, url=verbatim("url", "howpublished"),
                      pmid=verbatim("pmid"), pmcid=verbatim("pmcid"))
    publisher = text("publisher")
    if not publisher:
        publisher = text("school", "institution", "organization")
    return tidy_structured(Citation(
        authors=authors,
        et_al=et_al,
        year=year_from(verbatim("year")) or year_from(verbatim("date")),
        title=text("title"),
        container=text("journal", "journaltitle", "booktitle"),
        volume=text("volume"),
        issue=text("number", "issue"),
        pages=clean_pages(text("pages")),
        publisher=publisher,
        editors=editors,
        type=_work_type(kind, arxiv=bool(ids.arxiv), url=bool(ids.url)),
        identifiers=ids,
        place=text("address", "location"),
        edition=text("edition"),
    ))


def people(value: str) -> tuple[tuple[Author, ...], bool]:
    """The people of an author or editor field ("Last, First and First Last and
    {Corporate Name}"), and whether the list ends in "and others"."""
    names = [name.strip() for name in split_multiple_persons_names(one_line(value))]
    et_al = bool(names) and names[-1].lower() == "others"
    if et_al:
        names = names[:-1]
    found: list[Author] = []
    for name in names:
        if _braced_whole(name):  # "{World Health Organization}": one name, not parsed
            found.append(Author(literal=latex_to_text(name)))
            continue
        parts = parse_single_name_into_parts(name, strict=False)
        family = latex_to_text(" ".join([*parts.von, *parts.last]))
        given = latex_to_text(" ".join(parts.first))
        if family or given:
            found.append(Author(family=family or given, given=given if family else ""))
    return tuple(found), et_al


def _entries(data: bytes) -> Iterator[Entry | InputError]:
    blocks = list(_blocks(data))
    by_key = {block.key.strip().lower(): block for block in blocks
              if isinstance(block, BibEntry)}
    for block in blocks:
        yield _failed(block) if isinstance(block, ParsingFailedBlock) else \
            _entry(block, _with_crossref(block, by_key))


CONTAINER_TYPES = frozenset({"proceedings", "book", "collection", "mvbook", "mvproceedings",
                             "mvcollection", "reference", "mvreference"})
"""Entry types whose title is the title of the volume a ``crossref`` child is in."""


def _with_crossref(block: BibEntry, by_key: dict[str, BibEntry]) -> dict[str, str]:
    """The entry's fields, with those it lacks taken from the entry its ``crossref``
    names, as BibTeX and biblatex inherit them: every field the child does not give,
    except the parent's own title, which becomes the child's ``booktitle`` when the
    parent is a volume (:data:`CONTAINER_TYPES`)."""
    fields = {field.key: field.value for field in block.fields}
    given = {name.lower() for name in fields}
    reference = next((value for name, value in fields.items() if name.lower() == "crossref"),
                     None)
    parent = by_key.get(reference.strip().lower()) if isinstance(reference, str) else None
    if parent is None or parent is block:
        return fields
    for field in parent.fields:
        name = field.key.lower()
        if name in ("crossref", "ids", "entryset"):
            continue
        if name == "title":
            if parent.entry_type.lower() in CONTAINER_TYPES and "booktitle" not in given:
                fields["booktitle"] = field.value
                given.add("booktitle")
            continue
        if name not in given:
            fields[field.key] = field.value
            given.add(name)
    return fields


def _blocks(data: bytes) -> Iterator[BibEntry | ParsingFailedBlock]:
    """The entries and the blocks that failed, in file order (strings, preambles and
    comments are no items)."""
    # Bytes that are not UTF-8 are kept as surrogates: only the entries holding them fail.
    library = parse_string(data.decode("utf-8", "surrogateescape"))
    for block in library.blocks:
        if isinstance(block, BibEntry | ParsingFailedBlock):
            yield block


def _entry(block: BibEntry, fields: dict[str, str]) -> Entry | InputError:
    """One entry with its ``fields`` (its own, and those its ``crossref`` gives)."""
    line = _line(block.start_line)
    key = block.key.strip()
    name = key or f"line {line}"
    try:
        citation = bibtex_citation(block.entry_type, fields)
    except LatexError as exc:
        return InputError(name, f"entry on line {line}: {exc}", excerpt(block.raw or ""))
    text = render(citation)
    if not text:
        return InputError(name, f"entry on line {line} has no field to check",
                          excerpt(block.raw or ""))
    return Entry(id=key or f"L{line}", text=text, where=f"line {line}", fields=citation,
                 key=key)


def _failed(block: ParsingFailedBlock) -> InputError:
    line = _line(block.start_line)
    raw = block.raw or ""
    if isinstance(block, DuplicateBlockKeyBlock):
        first = _line(block.previous_block.start_line)
        return InputError(f"line {line}", f"duplicate key {excerpt(block.key)!r} (first used "
                                          f"on line {first})", excerpt(raw))
    match = _KEY.match(raw)
    name = excerpt(match.group(1)) if match else f"line {line}"
    if isinstance(block, DuplicateFieldKeyBlock):
        fields = ", ".join(sorted(block.duplicate_keys))
        return InputError(name, f"entry on line {line} gives {fields} more than once",
                          excerpt(raw))
    return InputError(name, f"broken BibTeX entry on line {line}: {_reason(block.error)}",
                      excerpt(raw))


def _reason(error: Exception) -> str:
    reason = getattr(error, "abort_reason", None)
    return one_line(reason if isinstance(reason, str) else str(error)) or type(error).__name__


def _line(start_line: int | None) -> int:
    return (start_line or 0) + 1  # bibtexparser counts lines from 0


def _braced_whole(name: str) -> bool:
    """True when one pair of braces encloses all of ``name``."""
    if not (name.startswith("{") and name.endswith("}")):
        return False
    depth = 0
    for position, char in enumerate(name):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and position < len(name) - 1:
            return False
    return True


def _work_type(kind: str, *, arxiv: bool, url: bool) -> WorkType:
    if kind in ENTRY_TYPES:
        return ENTRY_TYPES[kind]
    if kind == "misc" and arxiv:
        return WorkType.PREPRINT
    if kind == "misc" and url:
        return WorkType.WEB
    return WorkType.OTHER
