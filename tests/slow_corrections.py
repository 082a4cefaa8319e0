"""verifier.citations.corrections as it was before its fast paths (commit 198786b): the
slow paths tests/test_corrections_fast_paths.py compares the module against.

Kept verbatim but for its memos (left out: a memo changes no result), with the two name
functions of verifier.citations.discrepancies it calls (initials_display, short_name)
as they were then too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, TypeVar

from unidecode import unidecode

from verifier.citations.discrepancies import (
    APA_MAX_AUTHORS,
    PageRange,
    pages_agree,
    parse_pages,
)
from verifier.citations.models import (
    Author,
    Citation,
    Correction,
    Identifiers,
    WorkRecord,
    WorkType,
)
from verifier.citations.normalize import normalize_title, split_title, strip_markup

_UNKNOWN, _OTHER = WorkType.UNKNOWN, WorkType.OTHER
_ARTICLE, _BOOK, _CHAPTER = WorkType.ARTICLE, WorkType.BOOK, WorkType.CHAPTER
_PROCEEDINGS, _REPORT, _THESIS = WorkType.PROCEEDINGS, WorkType.REPORT, WorkType.THESIS


def initials_display(given: str) -> str:
    parts: list[str] = []
    for word in re.split(r"[\s.]+", given.strip()):
        if not word:
            continue
        if word.isupper() and word.isalpha() and len(word) <= 3 and len(word) > 1:
            parts.extend(f"{letter}." for letter in word)
        else:
            pieces = [p for p in word.split("-") if p and p[0].isalpha()]
            if pieces:
                parts.append("-".join(f"{p[0].upper()}." for p in pieces))
    return " ".join(parts)


def short_name(author: Author) -> str:
    if not author.family:
        return author.literal
    shown = initials_display(author.given)
    return f"{author.family}, {shown}" if shown else author.family


def _fuller_pages(pages: str, others: Sequence[str]) -> str:
    """``pages`` or, when it gives only a first page, another record's range that starts
    on that page ("913" -> "913-918")."""
    own = parse_pages(pages)
    if own is None or own.last:
        return pages
    for other in others:
        theirs = parse_pages(other)
        if theirs is not None and theirs.last and pages_agree(theirs.first, own.first):
            return other
    return pages


_GIVEN_FIELDS = ("title", "authors", "container", "volume", "issue", "publisher", "editors")
"""The record fields a merge takes from another record when the record's is empty."""
_GIVEN_IDENTIFIERS = ("doi", "isbn", "issn", "arxiv", "pmid", "pmcid")
"""The identifiers a merge takes from another record when the record lacks them (never
the URL)."""
_get_given_fields = attrgetter(*_GIVEN_FIELDS)
_get_given_identifiers = attrgetter(*_GIVEN_IDENTIFIERS)


def merge_records(record: WorkRecord, others: Sequence[WorkRecord] = ()) -> WorkRecord:
    """``record`` with every field it lacks (empty text, no authors, no year, unknown
    type, missing identifier) taken from the first of ``others`` that has it; a lone
    first page is completed from a range another record gives. Nothing ``record`` gives
    is replaced."""
    changes = _merged_changes(record, others)
    return _replaced(record, changes) if changes else record


def _merged_changes(record: WorkRecord, others: Sequence[WorkRecord]) -> dict[str, Any]:
    """The fields :func:`merge_records` gives ``record`` that differ from its own (only
    those: a copy is made only when something changes)."""
    changes: dict[str, Any] = {}
    if not others:
        return changes
    # The fields read at once (attrgetter) and the others only for the ones missing.
    for name, value in zip(_GIVEN_FIELDS, _get_given_fields(record), strict=True):
        if not value:
            for other in others:
                given = getattr(other, name)
                if given:
                    changes[name] = given
                    break
    if record.year is None:
        for other in others:
            if other.year is not None:
                changes["year"] = other.year
                break
    if record.type is _UNKNOWN:
        for other in others:
            if other.type is not _UNKNOWN:
                changes["type"] = other.type
                break
    pages = record.pages
    if not pages:
        for other in others:
            if other.pages:
                pages = other.pages
                break
    own = parse_pages(pages)
    if own is not None and not own.last:  # only a first page: _fuller_pages may complete it
        pages = _fuller_pages(pages, [o.pages for o in others])
    if pages != record.pages:
        changes["pages"] = pages
    ids = record.identifiers
    found: dict[str, Any] = {}
    for name, value in zip(_GIVEN_IDENTIFIERS, _get_given_identifiers(ids), strict=True):
        if not value:
            for other in others:
                given = getattr(other.identifiers, name)
                if given:
                    found[name] = given
                    break
    if found:
        changes["identifiers"] = _replaced(ids, found)
    return changes


_Value = TypeVar("_Value", WorkRecord, Identifiers)


@dataclass(frozen=True, slots=True)
class _Shape:
    """A value class's fields as :func:`_replaced` reads and sets them."""

    positions: dict[str, int]
    read: attrgetter[Any]


_SHAPES = {
    kind: _Shape({f.name: i for i, f in enumerate(fields(kind))},
                 attrgetter(*(f.name for f in fields(kind))))
    for kind in (WorkRecord, Identifiers)
}


def _replaced(value: _Value, changes: Mapping[str, Any]) -> _Value:
    """``dataclasses.replace(value, **changes)`` without its per-field checks: every
    field of a :class:`WorkRecord` or :class:`Identifiers` is an ``__init__`` argument,
    in field order, so the value's fields with ``changes`` put in their places make the
    same value."""
    shape = _SHAPES[type(value)]
    values = list(shape.read(value))
    for name, given in changes.items():
        values[shape.positions[name]] = given
    return type(value)(*values)


def work_kind(record: WorkRecord, citation: Citation | None = None) -> WorkType:
    """The kind of work to format ``record`` as: the record's type, else the citation's,
    else a guess from the fields (a container with editors: a chapter; with a volume,
    issue or pages: an article; a publisher alone: a book)."""
    if record.type is not _UNKNOWN:
        return record.type
    if citation is not None and citation.type is not _UNKNOWN:
        return citation.type
    if record.container and record.editors:
        return _CHAPTER
    if record.container:
        return _ARTICLE
    if record.publisher:
        return _BOOK
    return _OTHER


# ---------------------------------------------------------------------------------------
# The title shown

ALL_CAPS_SHARE = 0.9
"""A title whose letters are at least this share capitals (and more than a few) is
written in capitals, not cased: it is shown in sentence case."""


_ASCII_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))
_ASCII_CAPITALS = bytes(range(65, 91))


def is_all_caps(title: str) -> bool:
    """True when ``title`` is written in capitals ("ADAPTIVE RATES OF THINGS")."""
    if title.isascii():
        # The same counts without a Python loop: in ASCII the letters are A-Z and a-z
        # and the capitals A-Z (property-tested against the general count below).
        raw = title.encode("ascii")
        letter_count = len(raw) - len(raw.translate(None, _ASCII_LETTERS))
        capital_count = len(raw) - len(raw.translate(None, _ASCII_CAPITALS))
        return letter_count >= 8 and capital_count >= ALL_CAPS_SHARE * letter_count
    letters = [c for c in title if c.isalpha()]
    return len(letters) >= 8 and sum(c.isupper() for c in letters) >= ALL_CAPS_SHARE * len(
        letters)


def _extends(longer: str, shorter: str) -> bool:
    """True when ``longer`` is ``shorter`` with a subtitle ("Graphs, maps, trees:
    Abstract models …" extends "Graphs, maps, trees")."""
    main, sub = split_title(longer)
    return bool(sub) and bool(normalize_title(shorter)) and \
        normalize_title(main) == normalize_title(shorter)


def _sentence_case(title: str, hints: Sequence[str]) -> str:
    """An ALL-CAPS ``title`` in sentence case; a word written in a cased ``hints`` title
    keeps that casing ("NHS", "DNA")."""
    known = {word.lower(): word for hint in hints if hint and not is_all_caps(hint)
             for word in hint.split()}
    words = [known.get(word.lower(), word.lower()) for word in title.split()]
    start = True
    for position, word in enumerate(words):
        if start and word[:1].islower():
            words[position] = word[:1].upper() + word[1:]
        start = word.endswith((":", "?", "!", "."))
    return " ".join(words)


def shown_title(cited: str, titles: Sequence[str]) -> str:
    """The title a correction shows: the first of the agreeing records' ``titles`` (most
    authoritative first), replaced by a later one that extends it with a subtitle, then
    by the ``cited`` title when that has the same words (its casing is kept) or extends
    it; an ALL-CAPS result is shown in sentence case."""
    shown = ""
    for title in titles:
        if title:
            shown = title
            break
    for other in titles[1:]:
        # A title equal to the one shown leaves it as it is, extending it or not.
        if other != shown and _extends(other, shown):
            shown = other
    if cited and not is_all_caps(cited) and (
            cited == shown or normalize_title(cited) == normalize_title(shown)
            or _extends(cited, shown)):
        return cited  # not in capitals: no sentence case
    if is_all_caps(shown):
        shown = _sentence_case(shown, [cited, *titles])
    return shown


# ---------------------------------------------------------------------------------------
# APA 7


def _clean(text: str) -> str:
    """``text`` without markup, its whitespace runs single spaces, stripped."""
    return " ".join(strip_markup(text).split()) if text else ""


def _with_period(text: str) -> str:
    return text if not text or text[-1] in ".?!" else f"{text}."


def apa_authors(authors: Sequence[Author]) -> str:
    """Authors in APA 7 form: "Family, I. I., Family, I., & Family, I."; beyond 20, the
    first 19, "…" and the last."""
    names = [_clean(short_name(a)) for a in authors if a.family or a.literal]
    if len(names) > APA_MAX_AUTHORS:
        return ", ".join(names[: APA_MAX_AUTHORS - 1]) + ", … " + names[-1]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + ", & " + names[-1]


def _editor_name(author: Author) -> str:
    if not author.family:
        return _clean(author.literal)
    return _clean(f"{initials_display(author.given)} {author.family}")


def _apa_editors_in(editors: Sequence[Author]) -> str:
    """Editors as a chapter's "In" clause gives them: "I. Editor & I. Editor (Eds.)"."""
    names = [_editor_name(a) for a in editors if a.family or a.literal]
    if not names:
        return ""
    if len(names) <= 2:
        joined = " & ".join(names)
    else:
        joined = ", ".join(names[:-1]) + ", & " + names[-1]
    return f"{joined} ({'Ed.' if len(names) == 1 else 'Eds.'})"


def _apa_pages(pages: PageRange) -> str:
    return pages.display("–")


def _apa_journal(record: WorkRecord) -> str:
    """The journal part, "Journal, 12(3), 45–67.", as far as the record gives it."""
    parts = [_clean(record.container)] if record.container else []
    volume = _clean(record.volume)
    if volume:
        parts.append(f"{volume}({_clean(record.issue)})" if record.issue else volume)
    elif record.issue:
        parts.append(f"({_clean(record.issue)})")
    pages = parse_pages(record.pages)
    if pages is not None:
        # An e-journal's article number ("e24295") is cited as "Article e24295".
        first = pages.first
        is_article_number = not pages.last and first[0] in "eE" and first[1:].isdigit()
        parts.append(f"Article {first}" if is_article_number else _apa_pages(pages))
    return _with_period(", ".join(parts)) if parts else ""


def _apa_publisher(record: WorkRecord) -> str:
    """The publisher and a period, unless it is the (corporate) author: APA 7 omits it."""
    publisher = _clean(record.publisher)
    if not publisher:
        return ""
    if any(normalize_title(a.literal) == normalize_title(publisher) for a in record.authors):
        return ""
    return _with_period(publisher)


def _apa_in_book(record: WorkRecord) -> str:
    """A chapter's source: "In I. Editor (Ed.), Book (pp. 45–67). Publisher."."""
    pages = parse_pages(record.pages)
    span = ""
    if pages is not None:
        span = f" ({'pp.' if pages.last else 'p.'} {_apa_pages(pages)})"
    book = _clean(record.container)
    editors = _apa_editors_in(record.editors)
    clause = ""
    if book or editors:
        clause = "In " + ", ".join(p for p in (editors, book) if p) + span + "."
    return " ".join(p for p in (clause, _apa_publisher(record)) if p)


def _apa_source(record: WorkRecord, kind: WorkType) -> str:
    if kind is _ARTICLE:
        return _apa_journal(record)
    if kind in (_CHAPTER, _PROCEEDINGS):
        return _apa_in_book(record)
    if kind in (_BOOK, _REPORT, _THESIS):
        return _apa_publisher(record)
    if record.container:
        return _apa_journal(record)
    return _apa_publisher(record)


def _apa_link(record: WorkRecord) -> str:
    ids = record.identifiers
    if ids.doi:
        return f"https://doi.org/{ids.doi}"
    if ids.arxiv:
        return f"https://arxiv.org/abs/{ids.arxiv}"
    return ""


def _editors_as_authors(editors: Sequence[Author]) -> str:
    names = apa_authors(editors)
    if not names:
        return ""
    count = len([a for a in editors if a.family or a.literal])
    return f"{names} ({'Ed.' if count == 1 else 'Eds.'})."


def apa_reference(record: WorkRecord, kind: WorkType | None = None, *,
                  retracted: bool = False) -> str:
    """``record`` as an APA 7 reference (plain text), formatted as ``kind`` (default: the
    record's type, see :func:`work_kind`); a ``retracted`` work's title is followed by
    "[Retracted]"."""
    kind = kind or work_kind(record)
    title = _clean(record.title)
    title = _with_period(f"{title} [Retracted]" if retracted else title)
    date = f"({record.year})." if record.year is not None else "(n.d.)."
    authors = apa_authors(record.authors)
    if authors:
        head = f"{_with_period(authors)} {date} {title}"
    elif kind is _BOOK and record.editors:
        head = f"{_editors_as_authors(record.editors)} {date} {title}"
    else:
        head = f"{title} {date}"
    parts = (head.strip(), _apa_source(record, kind), _apa_link(record))
    return " ".join([p for p in parts if p])


# ---------------------------------------------------------------------------------------
# BibTeX

_BIBTEX_TYPES = {
    WorkType.ARTICLE: "article",
    WorkType.BOOK: "book",
    WorkType.CHAPTER: "incollection",
    WorkType.PROCEEDINGS: "inproceedings",
}
_THESIS_TYPES = ("phdthesis", "mastersthesis")
_KEY_FORBIDDEN = re.compile(r'[\s,{}()"#%=\\]')
_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _LATEX_SPECIALS))
_DOI_NOISE = re.compile(r"[{}\s]")
_NOT_KEY_CHARACTER = re.compile(r"[^A-Za-z0-9]")
_KEY_STOPWORDS = frozenset({"a", "an", "the", "on", "of", "in", "to", "and", "for"})


def bibtex_escape(text: str) -> str:
    """``text`` (markup removed) safe inside a BibTeX field: LaTeX specials escaped,
    braces included, so every field's braces balance."""
    cleaned = _clean(text)
    if _LATEX_SPECIAL.search(cleaned) is None:
        return cleaned  # nothing to escape (a search is cheaper than a substitution)
    return _LATEX_SPECIAL.sub(_latex_escape, cleaned)


def _latex_escape(special: re.Match[str]) -> str:
    return _LATEX_SPECIALS[special.group(0)]


def _protect_title(title: str) -> str:
    """The escaped title with every word that has a capital braced ("{DNA}", "{Stonehenge}"),
    except a first word capitalised only at its start, which styles capitalise anyway."""
    words = bibtex_escape(title).split(" ")
    protected = []
    for position, word in enumerate(words):
        if word.isascii():
            # The same test without a list: in ASCII the capitals are what lower() changes.
            lowered = word.lower()
            has_capital = lowered != word
            plain_first = position == 0 and word[:1].isupper() and word[1:] == lowered[1:]
        else:
            capitals = [c for c in word if c.isupper()]
            has_capital = bool(capitals)
            plain_first = position == 0 and capitals == [word[:1]] and word[:1].isupper()
        protected.append(f"{{{word}}}" if has_capital and not plain_first else word)
    return " ".join(protected)


def _bibtex_name(author: Author) -> str:
    if not author.family:
        # Braced: a corporate name is not split into given and family names.
        return f"{{{bibtex_escape(author.literal)}}}"
    if not author.given:
        return bibtex_escape(author.family)
    return f"{bibtex_escape(author.family)}, {bibtex_escape(author.given)}"


def _bibtex_names(authors: Sequence[Author]) -> str:
    """The named authors joined by " and ", each as :func:`_bibtex_name` gives it (written
    out here: one loop, no call per author)."""
    escape = bibtex_escape
    names: list[str] = []
    for a in authors:
        if a.family:
            names.append(f"{escape(a.family)}, {escape(a.given)}" if a.given
                         else escape(a.family))
        elif a.literal:
            names.append(f"{{{escape(a.literal)}}}")
    return " and ".join(names)


def _key_word(text: str) -> str:
    word = _NOT_KEY_CHARACTER.sub("", unidecode(text))
    return word[:1].upper() + word[1:]


def bibtex_key(record: WorkRecord) -> str:
    """``FamilyYearFirstword`` in ASCII ("Lanza2000Prospects"): the first author's family
    name (an organisation's first word; "Anon" for none), the year ("nd" for none) and the
    first word of the title that is not an article or a preposition."""
    first = _first_person(record.authors) or _first_person(record.editors)
    if first is None:
        name = "Anon"
    elif first.family:
        name = _key_word(first.family)
    else:
        name = _key_word(first.literal.split()[0])
    word = ""
    for candidate in normalize_title(record.title).split():
        if candidate not in _KEY_STOPWORDS:
            word = candidate
            break
    year = str(record.year) if record.year is not None else "nd"
    return f"{name or 'Anon'}{year}{_key_word(word) if word else ''}"


def _first_person(authors: Sequence[Author]) -> Author | None:
    """The first author with a family name or a literal that is more than blanks, None
    for none."""
    for author in authors:
        if author.family or author.literal.strip():
            return author
    return None


def _bibtex_pages(pages: str) -> str:
    parsed = parse_pages(pages)
    if parsed is None:
        return ""
    return parsed.display("--") if parsed.last else bibtex_escape(pages)


_CONTAINER_FIELDS = {
    WorkType.ARTICLE: "journal",
    WorkType.CHAPTER: "booktitle",
    WorkType.PROCEEDINGS: "booktitle",
    WorkType.BOOK: "",
    WorkType.THESIS: "",
}
"""The field a work's container goes in: none for a book or thesis, else
``howpublished``."""


def _bibtex_fields(record: WorkRecord, kind: WorkType, note: str = ""
                   ) -> list[tuple[str, str]]:
    """(field, value) pairs, values already escaped; empty values left out (an empty
    field is not formatted at all: every formatter gives "" for "")."""
    fields: list[tuple[str, str]] = []
    if record.authors and (value := _bibtex_names(record.authors)):
        fields.append(("author", value))
    if record.editors and (value := _bibtex_names(record.editors)):
        fields.append(("editor", value))
    if record.title and (value := _protect_title(record.title)):
        fields.append(("title", value))
    container_field = _CONTAINER_FIELDS.get(kind, "howpublished")
    if container_field and record.container and (value := bibtex_escape(record.container)):
        fields.append((container_field, value))
    if record.year is not None:
        fields.append(("year", str(record.year)))
    if record.volume and (value := bibtex_escape(record.volume)):
        fields.append(("volume", value))
    if record.issue and (value := bibtex_escape(record.issue)):
        fields.append(("number", value))
    if record.pages and (value := _bibtex_pages(record.pages)):
        fields.append(("pages", value))
    if record.publisher and (value := bibtex_escape(record.publisher)):
        fields.append(("school" if kind is _THESIS else "publisher", value))
    doi = record.identifiers.doi
    if doi and (value := _bibtex_doi(doi)):
        fields.append(("doi", value))
    if note and (value := bibtex_escape(note)):
        fields.append(("note", value))
    return fields


def _bibtex_doi(doi: str) -> str:
    """``doi`` without braces and whitespace. Every whitespace character but the space is
    unprintable (checked over all of Unicode by the tests), so a printable DOI without a
    space or a brace has nothing to remove."""
    if doi.isprintable() and " " not in doi and "{" not in doi and "}" not in doi:
        return doi
    return _DOI_NOISE.sub("", doi)


def _thesis_type(record: WorkRecord) -> str:
    """``mastersthesis`` when the record calls the work a master's thesis, else
    ``phdthesis``."""
    said = f"{record.container} {record.publisher} {record.title}".lower()
    return "mastersthesis" if re.search(r"\bmaster'?s?\b|\bm\.?(?:sc|a|phil)\b", said) \
        else "phdthesis"


def usable_key(key: str) -> bool:
    """True when ``key`` can stand as a BibTeX key (no space, comma, brace ...)."""
    return bool(key) and _KEY_FORBIDDEN.search(key) is None


def bibtex_entry(record: WorkRecord, kind: WorkType | None = None, *, key: str = "",
                 retracted: bool = False) -> str:
    """``record`` as one BibTeX entry, typed after ``kind`` (default: the record's type,
    see :func:`work_kind`): ``@article``, ``@book``, ``@incollection``, ``@inproceedings``,
    ``@phdthesis`` / ``@mastersthesis`` (the publisher as ``school``), anything else
    ``@misc``. The entry's key is ``key`` when it is usable (:func:`usable_key`), else
    :func:`bibtex_key`; a ``retracted`` work gets ``note = {Retracted}``."""
    kind = kind or work_kind(record)
    entry_type = _thesis_type(record) if kind is _THESIS else \
        _BIBTEX_TYPES.get(kind, "misc")
    fields = _bibtex_fields(record, kind, "Retracted" if retracted else "")
    lines = [f"  {name} = {{{value}}}" for name, value in fields]
    shown_key = key if usable_key(key) else bibtex_key(record)
    return f"@{entry_type}{{{shown_key},\n" + ",\n".join(lines) + "\n}"


# ---------------------------------------------------------------------------------------
# The correction


def correction_for(
    citation: Citation, record: WorkRecord, others: Sequence[WorkRecord] = (), *,
    key: str = "", retracted: bool = False,
) -> Correction:
    """The corrected citation of the work ``record`` describes, in APA 7 and BibTeX.

    ``record`` is the best agreeing record (see :func:`verifier.verdict.corrected_record`)
    and ``others`` the other agreeing records, most authoritative first: they fill the
    fields ``record`` lacks (:func:`merge_records`). ``citation`` supplies the kind of
    work when no record has one, and the title's form (:func:`shown_title`). ``key`` is
    the BibTeX key the input gave; ``retracted`` marks the work as retracted.
    """
    # merge_records and the title shown, in one copy of the record.
    changes = _merged_changes(record, others)
    title = shown_title(citation.title, [r.title for r in (record, *others)])
    if title != record.title:
        changes["title"] = title
    else:
        changes.pop("title", None)
    merged = _replaced(record, changes) if changes else record
    kind = work_kind(merged, citation)
    return Correction(apa=apa_reference(merged, kind, retracted=retracted),
                      bibtex=bibtex_entry(merged, kind, key=key, retracted=retracted))

