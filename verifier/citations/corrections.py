"""The corrected citation: the work as the agreeing sources describe it, in APA 7 and BibTeX.

Everything comes from the records, never from the citation being corrected (its fields are
the ones in doubt), with one exception: the kind of work (article, book, chapter …) is
taken from the citation when no record says. The best record (the most authoritative
agreeing source) is completed field by field from the other agreeing records
(:mod:`verifier.citations.merging`): Crossref may lack pages OpenAlex has, Open Library
the DOI Crossref has.

APA 7 (plain text, no italics)::

    Family, I. I., & Family, I. (2020). Title. Journal, 12(3), 45–67. https://doi.org/…
    Family, I. (2020). Title. Publisher.
    Family, I. (2020). Chapter. In I. Editor (Ed.), Book (pp. 45–67). Publisher.

up to 20 authors, then the first 19, "…" and the last; a corporate author as its name;
"(n.d.)" without a year; no author: the title takes the author's place.

BibTeX: ``@article``, ``@book``, ``@incollection``, ``@inproceedings``, ``@phdthesis`` or
``@mastersthesis`` (with ``school``), or ``@misc``; the key the input gave (a BibTeX key,
a CSL id) or else ``FamilyYearFirstword``; LaTeX specials escaped, capitalised title words
braced so that bibliography styles keep their case.

The correction is never worse than what was cited (:func:`shown_title`): the title keeps
the cited casing when its words are the records' words, a longer title (with the
subtitle) is never replaced by a shorter one, and an ALL-CAPS title from a database is
shown in sentence case, never copied and braced. DOIs are shown as the records give them
(as registered, not lower-cased). A retracted work is marked "[Retracted]" in APA and
``note = {Retracted}`` in BibTeX.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from unidecode import unidecode

from verifier.value_memos import value_memo

from .discrepancies import (
    APA_MAX_AUTHORS,
    initials_display,
    short_name,
)
from .merging import MergedWork, completed_work, work_kind
from .models import (
    Author,
    Citation,
    Correction,
    SourceResult,
    WorkRecord,
    WorkType,
)
from .normalize import normalize_title, split_title, strip_markup
from .verdict import agreeing_records

# Enum members read through their class cost a descriptor call each (StrEnum, Python
# 3.11); the paths run per citation read these module constants instead.
_ARTICLE, _BOOK, _CHAPTER = WorkType.ARTICLE, WorkType.BOOK, WorkType.CHAPTER
_PROCEEDINGS, _REPORT, _THESIS = WorkType.PROCEEDINGS, WorkType.REPORT, WorkType.THESIS

# ---------------------------------------------------------------------------------------
# The title shown

ALL_CAPS_SHARE = 0.9
"""A title whose letters are at least this share capitals (and more than a few) is
written in capitals, not cased: it is shown in sentence case."""


_ASCII_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))
_ASCII_CAPITALS = bytes(range(65, 91))
_LETTER_CLASSES = bytes(
    ord("A") if code in _ASCII_CAPITALS else ord("a") if code in _ASCII_LETTERS else ord(" ")
    for code in range(256))
"""A translation table of bytes: a capital to "A", another letter to "a", the rest to a
space (a table without deletions is applied in one pass, with no table built per call)."""


def is_all_caps(title: str) -> bool:
    """True when ``title`` is written in capitals ("ADAPTIVE RATES OF THINGS")."""
    if title.isascii():
        # The same counts without a Python loop: in ASCII the letters are A-Z and a-z
        # and the capitals A-Z (property-tested against the general count below), so
        # the title's letters mapped to "A" or "a" are counted by two byte counts.
        # (Counted as text: a compiled str.count is a direct call, bytes.count parses
        # its arguments.)
        classes = title.encode("ascii").translate(_LETTER_CLASSES).decode("ascii")
        capital_count = classes.count("A")
        letter_count = capital_count + classes.count("a")
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


# _clean and bibtex_escape are pure and meet the same names, venues and numbers in
# record after record: memoised (bounded).
@value_memo(16384)
def _clean(text: str) -> str:
    """``text`` without markup, its whitespace runs single spaces, stripped."""
    return " ".join(strip_markup(text).split()) if text else ""


def _is_clean(text: str) -> bool:
    """True when :func:`_clean` gives ``text`` itself: it holds no "<" and no "&" (without
    one, strip_markup returns its text as it is) and no whitespace but single spaces
    between words (every whitespace character but the space is unprintable, which
    tests/test_report_fast_paths.py checks over all of Unicode), so splitting and joining
    its words gives it back. Letters and digits alone are such a text."""
    if text.isalnum():
        return True
    if text.isascii():
        return _plain_ascii(text, _NOT_CLEAN_ASCII)
    return ("<" not in text and "&" not in text and _spaced_once(text)
            and text.isprintable())


def _ascii_flags(flagged: str) -> bytes:
    """A byte translation table: the ASCII characters ``isprintable()`` refuses (the
    controls, 0-31 and 127) and those of ``flagged`` to a NUL byte, the space to itself,
    every other to "a"."""
    return bytes(0 if code < 32 or code == 127 or chr(code) in flagged
                 else 32 if code == 32 else 97
                 for code in range(256))


_NOT_CLEAN_ASCII = _ascii_flags("<&")


def _plain_ascii(text: str, flags: bytes) -> bool:
    """True when the ASCII ``text`` holds no character ``flags`` (an :func:`_ascii_flags`
    table) flags, no run of spaces and no space at either end.

    One translation of its bytes (without deletions: no table is built per call) and one
    search for a NUL byte, in C, where a test per character and one search per flagged
    character cost more; the ends are read off the translated bytes (a byte is a number,
    a character a string). The NUL is searched for as the number 0: searched for as
    ``b"\0"``, bytes first try it as a number and raise and clear an error."""
    marks = text.encode("ascii").translate(flags)
    return 0 not in marks and "  " not in text and (
        not marks or (marks[0] != 32 and marks[-1] != 32))


def _spaced_once(text: str) -> bool:
    """True when ``text`` has no run of spaces and no space at either end."""
    return "  " not in text and text[:1] != " " and text[-1:] != " "


def _cleaned(text: str) -> str:
    """:func:`_clean` ``(text)``, without the memo's call for a text already clean (the
    usual one)."""
    return text if _is_clean(text) else _clean(text)


def _with_period(text: str) -> str:
    return text if not text or text[-1] in ".?!" else f"{text}."


def apa_authors(authors: Sequence[Author]) -> str:
    """Authors in APA 7 form: "Family, I. I., Family, I., & Family, I."; beyond 20, the
    first 19, "…" and the last."""
    names = [_apa_name(a) for a in authors if a.family or a.literal]
    if len(names) > APA_MAX_AUTHORS:
        return ", ".join(names[: APA_MAX_AUTHORS - 1]) + ", … " + names[-1]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + ", & " + names[-1]


def _apa_name(author: Author) -> str:
    """``_clean(short_name(author))``: a person as "Family, I. I.", an organisation as its
    name. A person's name whose family name is clean (:func:`_is_clean`) is clean as a
    whole, and given back unchecked: initials_display writes letters (capitalised, which
    keeps them printable, without whitespace, "<" or "&": tested over all of Unicode),
    periods and hyphens, in parts joined by single spaces."""
    name = short_name(author)
    family = author.family
    return name if family and _is_clean(family) else _cleaned(name)


def _editor_name(author: Author) -> str:
    if not author.family:
        return _cleaned(author.literal)
    return _cleaned(f"{initials_display(author.given)} {author.family}")


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


def _apa_pages(first: str, last: str) -> str:
    """The page range as APA shows it ("45–67", with an en dash), or the single page."""
    return f"{first}–{last}" if last else first


def _apa_journal(record: MergedWork) -> str:
    """The journal part, "Journal, 12(3), 45–67.", as far as the record gives it."""
    parts = [_cleaned(record.container)] if record.container else []
    volume = _cleaned(record.volume)
    if volume:
        parts.append(f"{volume}({_cleaned(record.issue)})" if record.issue else volume)
    elif record.issue:
        parts.append(f"({_cleaned(record.issue)})")
    pages = record.page_range
    if pages is not None:
        # An e-journal's article number ("e24295") is cited as "Article e24295".
        first, last = pages
        is_article_number = not last and first[0] in "eE" and first[1:].isdigit()
        parts.append(f"Article {first}" if is_article_number else _apa_pages(first, last))
    return _with_period(", ".join(parts)) if parts else ""


def _apa_publisher(record: MergedWork) -> str:
    """The publisher and a period, unless it is the (corporate) author: APA 7 omits it."""
    publisher = _cleaned(record.publisher)
    if not publisher:
        return ""
    # The publisher's normal form once; a person's empty literal normalises to "".
    own = normalize_title(publisher)
    for author in record.authors:
        literal = author.literal
        if (normalize_title(literal) if literal else "") == own:
            return ""
    return _with_period(publisher)


def _apa_in_book(record: MergedWork) -> str:
    """A chapter's source: "In I. Editor (Ed.), Book (pp. 45–67). Publisher."."""
    pages = record.page_range
    span = ""
    if pages is not None:
        first, last = pages
        span = f" ({'pp.' if last else 'p.'} {_apa_pages(first, last)})"
    book = _cleaned(record.container)
    editors = _apa_editors_in(record.editors)
    clause = ""
    if book or editors:
        clause = "In " + ", ".join(p for p in (editors, book) if p) + span + "."
    return " ".join(p for p in (clause, _apa_publisher(record)) if p)


def _apa_source(record: MergedWork, kind: WorkType) -> str:
    if kind is _ARTICLE:
        return _apa_journal(record)
    if kind in (_CHAPTER, _PROCEEDINGS):
        return _apa_in_book(record)
    if kind in (_BOOK, _REPORT, _THESIS):
        return _apa_publisher(record)
    if record.container:
        return _apa_journal(record)
    return _apa_publisher(record)


def _apa_link(record: MergedWork) -> str:
    if record.doi:
        return f"https://doi.org/{record.doi}"
    if record.arxiv:
        return f"https://arxiv.org/abs/{record.arxiv}"
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
    return _apa(MergedWork(record), kind or work_kind(record), retracted)


def _apa(record: MergedWork, kind: WorkType, retracted: bool) -> str:
    """:func:`apa_reference` of the record whose fields ``record`` holds."""
    title = _cleaned(record.title)
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


@value_memo(16384)
def bibtex_escape(text: str) -> str:
    """``text`` (markup removed) safe inside a BibTeX field: LaTeX specials escaped,
    braces included, so every field's braces balance."""
    cleaned = _clean(text)
    if _LATEX_SPECIAL.search(cleaned) is None:
        return cleaned  # nothing to escape (a search is cheaper than a substitution)
    return _LATEX_SPECIAL.sub(_latex_escape, cleaned)


_SPECIAL_CHARACTERS = tuple(_LATEX_SPECIALS)
_NOT_PLAIN_ASCII = _ascii_flags("<&" + "".join(_LATEX_SPECIALS))
"""Flags what cleaning or escaping would change in an ASCII text (less runs of spaces)."""


def _escaped(text: str) -> str:
    """:func:`bibtex_escape` ``(text)``, without the memo's call for a text that is clean
    (:func:`_is_clean`: cleaning gives it back) and holds no LaTeX special: escaping it
    gives it back too."""
    if text.isalnum():  # letters and digits: clean, and no special
        return text
    if text.isascii():
        if _plain_ascii(text, _NOT_PLAIN_ASCII):
            return text
    elif _is_clean(text) and not any(c in text for c in _SPECIAL_CHARACTERS):
        return text
    return bibtex_escape(text)


def _latex_escape(special: re.Match[str]) -> str:
    return _LATEX_SPECIALS[special.group(0)]


def _protect_title(title: str) -> str:
    """The escaped title with every word that has a capital braced ("{DNA}", "{Stonehenge}"),
    except a first word capitalised only at its start, which styles capitalise anyway."""
    escaped = _escaped(title)
    if escaped.isascii():
        return _braced_ascii(escaped)
    words = escaped.split(" ")
    protected = []
    for position, word in enumerate(words):
        capitals = [c for c in word if c.isupper()]
        has_capital = bool(capitals)
        plain_first = position == 0 and capitals == [word[:1]] and word[:1].isupper()
        protected.append(f"{{{word}}}" if has_capital and not plain_first else word)
    return " ".join(protected)


def _braced_ascii(escaped: str) -> str:
    """:func:`_protect_title`'s bracing of an ASCII title, ``escaped`` already.

    In ASCII the capitals are what ``lower()`` changes, one character for one (the spaces
    stay), so the words of the lowered title are the lowered words: a word has a capital
    when it differs from its lowered word, and a first word capitalised only at its start
    when the two differ in the first character alone. A title whose lowered form differs
    in no character after the first has no word to brace: it is given back."""
    lowered = escaped.lower()
    if escaped[1:] == lowered[1:]:
        return escaped
    words, lowers = escaped.split(" "), lowered.split(" ")
    protected = []
    for position, word in enumerate(words):
        low = lowers[position]
        braced = word != low and (position > 0 or word[1:] != low[1:])
        protected.append(f"{{{word}}}" if braced else word)
    return " ".join(protected)


def _bibtex_name(author: Author) -> str:
    if not author.family:
        # Braced: a corporate name is not split into given and family names.
        return f"{{{_escaped(author.literal)}}}"
    if not author.given:
        return _escaped(author.family)
    return f"{_escaped(author.family)}, {_escaped(author.given)}"


def _bibtex_names(authors: Sequence[Author]) -> str:
    """The named authors joined by " and ", each as :func:`_bibtex_name` gives it (written
    out here: one loop, no call per author; compiled, a direct call of _escaped costs less
    than a call through a local name)."""
    names: list[str] = []
    for a in authors:
        family = a.family
        if family:
            given = a.given
            names.append(f"{_escaped(family)}, {_escaped(given)}" if given
                         else _escaped(family))
        elif a.literal:
            names.append(f"{{{_escaped(a.literal)}}}")
    return " and ".join(names)


@value_memo(16384)
def _key_word(text: str) -> str:
    word = _NOT_KEY_CHARACTER.sub("", unidecode(text))
    return word[:1].upper() + word[1:]


def _key_word_of(text: str) -> str:
    """:func:`_key_word` ``(text)``, without unidecode, the pattern and the memo for an
    ASCII word of letters and digits (the usual family name, and every word of a
    normalised title): unidecode gives ASCII back as it is and the pattern removes
    nothing from it."""
    if text.isascii() and text.isalnum():
        first = text[0]
        # In ASCII only a lower-case first letter changes when upper-cased.
        return first.upper() + text[1:] if first.islower() else text
    return _key_word(text)


def bibtex_key(record: WorkRecord) -> str:
    """``FamilyYearFirstword`` in ASCII ("Lanza2000Prospects"): the first author's family
    name (an organisation's first word; "Anon" for none), the year ("nd" for none) and the
    first word of the title that is not an article or a preposition."""
    return _bibtex_key(MergedWork(record))


def _bibtex_key(record: MergedWork) -> str:
    """:func:`bibtex_key` of the record whose fields ``record`` holds."""
    first = _first_person(record.authors) or _first_person(record.editors)
    if first is None:
        name = "Anon"
    elif first.family:
        name = _key_word_of(first.family)
    else:
        name = _key_word_of(first.literal.split()[0])
    # The first word that is not a stopword, read off one at a time (a normalised title's
    # words are parted by single spaces) rather than splitting the whole title.
    word = ""
    rest = normalize_title(record.title)
    while rest:
        candidate, _, rest = rest.partition(" ")
        if candidate and candidate not in _KEY_STOPWORDS:
            word = candidate
            break
    year = str(record.year) if record.year is not None else "nd"
    return f"{name or 'Anon'}{year}{_key_word_of(word) if word else ''}"


def _first_person(authors: Sequence[Author]) -> Author | None:
    """The first author with a family name or a literal that is more than blanks, None
    for none."""
    for author in authors:
        if author.family or author.literal.strip():
            return author
    return None


def _bibtex_pages(pages: str, parsed: tuple[str, str] | None) -> str:
    """The BibTeX pages field of ``pages``, whose :func:`page_range` is ``parsed``."""
    if parsed is None:
        return ""
    first, last = parsed
    return f"{first}--{last}" if last else _escaped(pages)


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
    return _fields_of(MergedWork(record), kind, note)


def _fields_of(record: MergedWork, kind: WorkType, note: str) -> list[tuple[str, str]]:
    """:func:`_bibtex_fields` of the record whose fields ``record`` holds."""
    fields: list[tuple[str, str]] = []
    if record.authors and (value := _bibtex_names(record.authors)):
        fields.append(("author", value))
    if record.editors and (value := _bibtex_names(record.editors)):
        fields.append(("editor", value))
    if record.title and (value := _protect_title(record.title)):
        fields.append(("title", value))
    container_field = _CONTAINER_FIELDS.get(kind, "howpublished")
    if container_field and record.container and (value := _escaped(record.container)):
        fields.append((container_field, value))
    if record.year is not None:
        fields.append(("year", str(record.year)))
    if record.volume and (value := _escaped(record.volume)):
        fields.append(("volume", value))
    if record.issue and (value := _escaped(record.issue)):
        fields.append(("number", value))
    if record.pages and (value := _bibtex_pages(record.pages, record.page_range)):
        fields.append(("pages", value))
    if record.publisher and (value := _escaped(record.publisher)):
        fields.append(("school" if kind is _THESIS else "publisher", value))
    doi = record.doi
    if doi and (value := _bibtex_doi(doi)):
        fields.append(("doi", value))
    if note and (value := _escaped(note)):
        fields.append(("note", value))
    return fields


def _bibtex_doi(doi: str) -> str:
    """``doi`` without braces and whitespace. Every whitespace character but the space is
    unprintable (checked over all of Unicode by the tests), so a printable DOI without a
    space or a brace has nothing to remove."""
    if doi.isprintable() and " " not in doi and "{" not in doi and "}" not in doi:
        return doi
    return _DOI_NOISE.sub("", doi)


def _thesis_type(record: MergedWork) -> str:
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
    return _bibtex(MergedWork(record), kind or work_kind(record), key, retracted)


def _bibtex(record: MergedWork, kind: WorkType, key: str, retracted: bool) -> str:
    """:func:`bibtex_entry` of the record whose fields ``record`` holds."""
    entry_type = _thesis_type(record) if kind is _THESIS else \
        _BIBTEX_TYPES.get(kind, "misc")
    fields = _fields_of(record, kind, "Retracted" if retracted else "")
    shown_key = key if usable_key(key) else _bibtex_key(record)
    # "@type{key,\n", the lines "  name = {value}" joined by ",\n", then "\n}": the pieces
    # joined once (a string built per line cost more).
    parts = [f"@{entry_type}{{{shown_key},\n"]
    for position, (name, value) in enumerate(fields):
        parts.append(",\n  " if position else "  ")
        parts.append(name)
        parts.append(" = {")
        parts.append(value)
        parts.append("}")
    parts.append("\n}")
    return "".join(parts)


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
    # merge_records and the title shown, as the fields the formatters read: no merged
    # record is built.
    merged = completed_work(record, others)
    merged.title = shown_title(citation.title, [r.title for r in (record, *others)])
    kind = merged.kind(citation)
    # Positional arguments (apa, bibtex): a Python __init__ called with keywords is
    # handed them in a dictionary built per call.
    return Correction(_apa(merged, kind, retracted), _bibtex(merged, kind, key, retracted))


def correction_from_results(
    citation: Citation, results: Mapping[str, SourceResult], agreeing: Sequence[str], *,
    key: str = "", retracted: bool = False,
) -> Correction | None:
    """:func:`correction_for` over the agreeing sources' records, the most authoritative
    (:data:`verifier.verdict.AUTHORITY`) as the best; None when no agreeing source has a
    record."""
    return correction_of(citation, agreeing_records(results, agreeing), key=key,
                         retracted=retracted)


def correction_of(
    citation: Citation, sourced: Sequence[tuple[str, WorkRecord]], *, key: str = "",
    retracted: bool = False,
) -> Correction | None:
    """:func:`correction_from_results` given the agreeing sources' (source, record) pairs,
    most authoritative first (:func:`verifier.verdict.agreeing_records`)."""
    if not sourced:
        return None
    return correction_for(citation, sourced[0][1], [r for _, r in sourced[1:]], key=key,
                          retracted=retracted)
