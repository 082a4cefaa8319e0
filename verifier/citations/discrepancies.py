"""What a citation gets wrong about a work the sources found: one finding per field.

A citation that two sources match (:mod:`verifier.verdict`) can still be cited with
errors: a wrong year, volume or pages, a missing subtitle, an author left out. For each
field the citation gives, :func:`discrepancies` compares it with what the agreeing
sources say and reports it when they differ:

========== ===========================================================================
title      differs after :func:`~verifier.normalize.normalize_title` (a missing
           subtitle, one word off)
authors    a cited person not in the record, a record author the citation leaves out
           (unless it ends in "et al."), a family name spelt otherwise, or another order;
           initials alone ("J." vs "John") do not count
year       any difference (±1, online-first against print, is reported too)
container  differs beyond abbreviation ("J. Biol. Chem." = "Journal of Biological
           Chemistry") and beyond a subtitle one side omits
volume,    differ after dropping labels ("Vol.", "No.") and leading zeros
issue
pages      the first pages differ, or both give a last page and those differ:
           "pp. 45–67" = "45-67" = "45-7"
publisher  books and chapters only; differs beyond corporate suffixes and imprint
           detail ("Routledge" = "Routledge, Taylor & Francis Group")
doi        the cited DOI is not the records' DOI
========== ===========================================================================

A field the citation leaves out is never a discrepancy, nor one no agreeing source gives.
When the agreeing sources disagree among themselves, the value most of them give is the
one compared (ties go to the most authoritative source, :data:`verifier.verdict.AUTHORITY`)
and the discrepancy names the sources that give it. An author list that is another
source's list cut short counts as that list (the longer one is compared).

The comparisons (:func:`pages_agree`, :func:`containers_agree`, :func:`publishers_agree`,
:func:`authors_agree`) are public: :mod:`verifier.corrections` reuses them.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TypeVar

from verifier.identifiers import find_arxiv, normalize_doi
from verifier.value_memos import value_memo

from .matching import authors_in_order, same_author
from .models import (
    Author,
    Citation,
    Discrepancy,
    SourceResult,
    SourceStatus,
    WorkRecord,
    WorkType,
)
from .normalize import family_variants, normalize_title, strip_markup
from .venues import containers_agree as containers_agree
from .verdict import agreeing_records, authority_rank

_V = TypeVar("_V")

# ---------------------------------------------------------------------------------------
# Pages, volume and issue


@dataclass(frozen=True, slots=True)
class PageRange:
    """A page range without "pp." and with the last page written out in full ("45-7" ->
    first "45", last "47"), case as given. ``last`` is "" for a single page or an article
    number."""

    first: str
    last: str = ""

    def display(self, dash: str = "-") -> str:
        """The range as "45-67" (``dash`` between), or the single page."""
        return f"{self.first}{dash}{self.last}" if self.last else self.first


_PAGE_LABEL = re.compile(r"^\s*(?:pp?\.?|pages?|pgs?\.?)\s*", re.I)
_PAGE_DASH = re.compile(r"\s*(?:--?|[‐‑‒–—―−]|\bto\b)\s*")
_PAGE_PART = re.compile(r"^(?P<prefix>[a-z]*)(?P<number>\d+)(?P<suffix>[a-z]*)$", re.I)


def _full_last_page(first: str, last: str) -> str:
    """The last page written out in full: "1573", "86" -> "1586"; "S12", "19" -> "S19"."""
    a, b = _PAGE_PART.match(first), _PAGE_PART.match(last)
    if a is None or b is None:
        return last
    prefix = b.group("prefix") or a.group("prefix")
    number_a, number_b = a.group("number"), b.group("number")
    if len(number_b) < len(number_a) and not b.group("prefix"):
        number_b = number_a[: len(number_a) - len(number_b)] + number_b
    return f"{prefix}{number_b}{b.group('suffix')}"


# parse_pages, _number_key and initials_display are pure, called for every field of
# every agreeing record, and give immutable values: memoised (bounded).
@value_memo(16384)
def parse_pages(pages: str) -> PageRange | None:
    """``pages`` ("pp. 45–67", "45-7", "e24295", "S12-19", "xi") as a :class:`PageRange`;
    None when it holds no page."""
    text = _PAGE_LABEL.sub("", strip_markup(pages)).strip().rstrip(".")
    if not text:
        return None
    parts = [p for p in _PAGE_DASH.split(text, maxsplit=1) if p]
    if not parts:  # only a dash ("-", "pp. –"): no page
        return None
    first = parts[0].replace(" ", "")
    last = _full_last_page(first, parts[1].replace(" ", "")) if len(parts) > 1 else ""
    return PageRange(first, "" if last.casefold() == first.casefold() else last)


def pages_agree(a: str, b: str) -> bool:
    """True when two page statements agree: same first page and, where both give one,
    same last page ("pp. 45–67" = "45-7" = "45"; "45-67" ≠ "45-69")."""
    left, right = parse_pages(a.casefold()), parse_pages(b.casefold())
    if left is None or right is None:
        return left is right
    if left.first != right.first:
        return False
    return not (left.last and right.last) or left.last == right.last


_NUMBER_LABEL = re.compile(r"^\s*(?:vol(?:ume)?|no|nr|num(?:ber)?|issue|iss|n°|#)\.?\s*", re.I)


_ROMAN = re.compile(r"^m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def _roman_value(text: str) -> int | None:
    """The value of a well-formed Roman numeral ("lix" -> 59), else None."""
    if not text or _ROMAN.match(text) is None:
        return None
    values = [_ROMAN_VALUES[c] for c in text]
    return sum(-v if v < after else v for v, after in zip(values, [*values[1:], 0],
                                                          strict=True))


@value_memo(16384)
def _number_key(value: str) -> str:
    """A volume or issue in comparable form: no label, dashes unified, no leading zeros,
    a Roman numeral as its value ("LIX" -> "59")."""
    text = _NUMBER_LABEL.sub("", strip_markup(value)).strip().rstrip(".").casefold()
    text = re.sub(r"[^a-z0-9]+", "-", _PAGE_DASH.sub("-", text)).strip("-")
    roman = _roman_value(text)
    if roman is not None:
        return str(roman)
    return re.sub(r"(?<!\d)0+(?=\d)", "", text)


def numbers_agree(a: str, b: str) -> bool:
    """True when two volumes (or two issues) are the same: "Vol. 12" = "12", "3–4" = "3-4",
    "03" = "3", "LIX" = "59"."""
    return _number_key(a) == _number_key(b)


# ---------------------------------------------------------------------------------------
# Publishers (containers: :mod:`.venues`)

_PUBLISHER_NOISE = frozenset(
    (
        "press publishing publishers publisher publications pub pubs inc incorporated ltd "
        "limited llc plc co company corp corporation group gmbh ag sa bv books verlag "
        "editions editorial the and of"
    ).split()
)


def _publisher_words(name: str) -> frozenset[str]:
    words = normalize_title(name).split()
    kept = frozenset(w for w in words if w not in _PUBLISHER_NOISE)
    return kept or frozenset(words)


def publishers_agree(a: str, b: str) -> bool:
    """True when two publisher statements name the same publisher: one's distinctive
    words (corporate suffixes and "Press" aside) are all in the other ("Routledge" =
    "Routledge, Taylor & Francis Group", "MIT Press" = "The MIT Press"; "Oxford University
    Press" ≠ "Cambridge University Press")."""
    left, right = _publisher_words(a), _publisher_words(b)
    return bool(left and right) and (left <= right or right <= left)


# ---------------------------------------------------------------------------------------
# Authors


def _same_person(cited: Author, found: Author) -> bool:
    """The matching rules' verdict (:func:`verifier.matching.same_author`) on one pair."""
    return same_author(cited, found)


def _spelt_alike(cited: Author, found: Author) -> bool:
    """False when two people paired as one have family names spelt otherwise (beyond
    particles and compound parts): "Granoveter" for "Granovetter". A database that swapped
    family and given name (CJK names) is not the citation's error."""
    if not (cited.family and found.family):
        return True
    as_given = family_variants(found.given)
    return bool(family_variants(cited.family) & (family_variants(found.family) | as_given))


def _persons(authors: Sequence[Author]) -> list[Author]:
    return [a for a in authors if a.family or a.literal]


def _names_anyone(authors: Sequence[Author]) -> bool:
    """``_persons(authors)`` is not empty (found without the list)."""
    for author in authors:
        if author.family or author.literal:
            return True
    return False


def _name_keys(author: Author) -> frozenset[str]:
    return family_variants(author.family or author.literal)


def _pair_authors(cited: Sequence[Author], found: Sequence[Author]) -> list[int | None]:
    """For each cited author the index of the record author it is (one-to-one), or None.

    A record author spelt alike (sharing a family-name variant) is preferred, the
    earliest first; only a cited author with none is looked for among all the others (a
    typing slip, an organisation's acronym). The index keeps long author lists (physics
    papers list thousands) linear.
    """
    index: dict[str, list[int]] = {}
    for position, author in enumerate(found):
        for key in _name_keys(author):
            index.setdefault(key, []).append(position)
    used: set[int] = set()
    pairs: list[int | None] = []
    for author in cited:
        alike: set[int] = set()
        for key in _name_keys(author):
            alike.update(index.get(key, ()))
        alike -= used
        choice = None
        for i in sorted(alike):
            if _same_person(author, found[i]):
                choice = i
                break
        if choice is None:
            # The others; those spelt alike were just found not to be this person.
            for i in range(len(found)):
                if i not in used and i not in alike and _same_person(author, found[i]):
                    choice = i
                    break
        if choice is not None:
            used.add(choice)
        pairs.append(choice)
    return pairs


def authors_agree(cited: Sequence[Author], found: Sequence[Author], et_al: bool = False) -> bool:
    """True when ``cited`` names the authors of ``found``: every cited author is a record
    author (same rules as matching: particles, initials, organisation acronyms), spelt
    alike, in the record's order, and, unless the cited list ends in "et al." (``et_al``),
    no record author is left out. Given names only need compatible initials."""
    if authors_in_order(cited, found, et_al):  # _agree_in_order on comparable names
        return True
    cited, found = _persons(cited), _persons(found)
    if not et_al and len(found) != len(cited):
        return False  # what the last test below says, whatever the pairing finds
    pairs = _pair_authors(cited, found)
    if any(p is None for p in pairs):
        return False
    positions = [p for p in pairs if p is not None]
    if positions != sorted(positions):
        return False
    if any(not _spelt_alike(c, found[p]) for c, p in zip(cited, positions, strict=True)):
        return False
    return et_al or len(found) == len(cited)


def _agree_in_order(cited: Sequence[Author], found: Sequence[Author], et_al: bool) -> bool:
    """A sufficient condition for :func:`authors_agree` over the named authors, cheap to
    test: each cited author shares a name key with the record author at the same
    position and is that person (:func:`_same_person`), and no record author is left out
    unless ``et_al``. :func:`_pair_authors` then pairs each cited author with its own
    position (the earlier positions are taken; this one is the first alike among the
    rest), which is in order and spelt alike. False says nothing."""
    if len(found) != len(cited) and not (et_al and len(found) > len(cited)):
        return False
    for c, f in zip(cited, found, strict=False):
        if _name_keys(c).isdisjoint(_name_keys(f)) or not _same_person(c, f):
            return False
    return True


@value_memo(16384)
def initials_display(given: str) -> str:
    """Initials for display, with periods: "John Ronald" -> "J. R.", "Jean-Paul" ->
    "J.-P.", "JA" (Vancouver) -> "J. A.", "M.R." -> "M. R."; "" for none."""
    parts: list[str] = []
    # The words between runs of whitespace and periods, as re.split(r"[\s.]+") less its
    # empty pieces gives them, without the re module's Python-level pattern look-up: the
    # pattern's \s and str.split's whitespace are one set (property-tested).
    for word in given.replace(".", " ").split():
        if word.isalpha():
            # A word of letters alone: split at hyphens, it is its one piece.
            if word.isupper() and 1 < len(word) <= 3:
                parts.extend(f"{letter}." for letter in word)
            else:
                parts.append(f"{word[0].upper()}.")
        else:
            pieces = [p for p in word.split("-") if p and p[0].isalpha()]
            if pieces:
                parts.append("-".join(f"{p[0].upper()}." for p in pieces))
    return " ".join(parts)


def short_name(author: Author) -> str:
    """The name as "Family, I. I." (or an organisation's name) for reports."""
    if not author.family:
        return author.literal
    shown = initials_display(author.given)
    return f"{author.family}, {shown}" if shown else author.family


APA_MAX_AUTHORS = 20
"""APA 7 lists up to this many authors; beyond, the first 19, an ellipsis and the last.
:func:`render_authors` shortens long lists the same way."""


def render_authors(authors: Sequence[Author], et_al: bool = False) -> str:
    """The names as "Family, I.; Family, I.", ending "; et al." when ``et_al``; a list
    longer than :data:`APA_MAX_AUTHORS` as its first 19 names, "…" and the last."""
    names = [short_name(a) for a in _persons(authors)]
    if len(names) > APA_MAX_AUTHORS:
        names = [*names[: APA_MAX_AUTHORS - 1], "…", names[-1]]
    shown = "; ".join(names)
    return f"{shown}; et al." if et_al and shown else shown


# ---------------------------------------------------------------------------------------
# Titles, years, DOIs


def titles_agree(a: str, b: str) -> bool:
    """True when two titles are identical after normalisation (markup, case, accents and
    punctuation aside): a missing subtitle or one word off is a difference."""
    return normalize_title(a) == normalize_title(b)


def _dois_agree(cited: str, found: str) -> bool:
    return (normalize_doi(cited) or cited.lower()) == (normalize_doi(found) or found.lower())


# ---------------------------------------------------------------------------------------
# Consensus among the agreeing sources


def consensus(
    values: Sequence[tuple[str, _V]],
    same: Callable[[_V, _V], bool],
    fullness: Callable[[_V], int] | None = None,
) -> tuple[_V, tuple[str, ...]] | None:
    """The value most sources give and the sources that give it; None for no values.

    ``values`` are (source, value) pairs; ``same`` says when two values are one. Ties go
    to the group holding the most authoritative source. The value returned is that of
    the group's most authoritative source or, given ``fullness``, the group's fullest
    value (ties again to authority). Sources are listed most authoritative first.
    """
    groups: list[list[tuple[str, _V]]] = []
    for source, value in sorted(values, key=lambda pair: authority_rank(pair[0])):
        group = next((g for g in groups if same(g[0][1], value)), None)
        if group is None:
            groups.append([(source, value)])
        else:
            group.append((source, value))
    if not groups:
        return None
    best = max(groups, key=lambda g: (len(g), -authority_rank(g[0][0])))
    shown = best[0][1]
    if fullness is not None:
        shown = max(best, key=lambda pair: (fullness(pair[1]), -authority_rank(pair[0])))[1]
    return shown, tuple(source for source, _ in best)


@dataclass(frozen=True, slots=True)
class _Field:
    """One text field compared between the citation and the records."""

    name: str
    cited: Callable[[Citation], str]
    found: Callable[[WorkRecord], str]
    same: Callable[[str, str], bool]
    reflexive: bool = False
    """``same(x, x)`` holds for every text ``x``: a found value equal to the cited one
    agrees without the comparison. (Not so for containers and publishers: a name without
    words, "!!!", agrees with nothing, itself included.)"""


def _year_of(work: Citation | WorkRecord) -> str:
    """The year as text, "" for none (read for the citation and every agreeing record)."""
    year = work.year
    return "" if year is None else str(year)


_BOOKISH = (WorkType.BOOK, WorkType.CHAPTER)

# Enum members read through their class cost a descriptor call each (StrEnum, Python
# 3.11); the paths run per citation read these module constants instead.
_UNKNOWN, _PREPRINT = WorkType.UNKNOWN, WorkType.PREPRINT

# Plain attributes are read by attrgetter (no Python frame per read).
_FIELDS: tuple[_Field, ...] = (
    _Field("title", attrgetter("title"), attrgetter("title"), titles_agree, reflexive=True),
    _Field("year", _year_of, _year_of, operator.eq, reflexive=True),
    _Field("container", attrgetter("container"), attrgetter("container"), containers_agree),
    _Field("volume", attrgetter("volume"), attrgetter("volume"), numbers_agree,
           reflexive=True),
    _Field("issue", attrgetter("issue"), attrgetter("issue"), numbers_agree, reflexive=True),
    _Field("pages", attrgetter("pages"), attrgetter("pages"), pages_agree, reflexive=True),
    _Field("publisher", attrgetter("publisher"), attrgetter("publisher"), publishers_agree),
    _Field(
        "doi", lambda c: c.identifiers.doi or "", lambda r: r.identifiers.doi or "", _dois_agree,
        reflexive=True,
    ),
)
"""The text fields in report order (authors come second, after title)."""


def _is_bookish(citation: Citation, records: Sequence[WorkRecord]) -> bool:
    if citation.type is not _UNKNOWN:
        return citation.type in _BOOKISH
    return any(r.type in _BOOKISH for r in records)


def _doi_is_records_arxiv(citation: Citation, records: Sequence[WorkRecord]) -> bool:
    """A cited arXiv DOI of a work the records know by that arXiv id (its journal DOI
    differs but the citation is not wrong)."""
    doi = citation.identifiers.doi
    arxiv = find_arxiv(doi) if doi else None
    return arxiv is not None and any(r.identifiers.arxiv == arxiv for r in records)


def _field_discrepancy(
    field: _Field, citation: Citation, sourced: Sequence[tuple[str, WorkRecord]]
) -> Discrepancy | None:
    cited = field.cited(citation).strip()
    if not cited:
        return None
    return _cited_field_discrepancy(field, cited, sourced)


def _cited_field_discrepancy(
    field: _Field, cited: str, sourced: Sequence[tuple[str, WorkRecord]]
) -> Discrepancy | None:
    """:func:`_field_discrepancy` given the cited value, stripped and not empty."""
    found, same, reflexive = field.found, field.same, field.reflexive
    container = field.name == "container"
    values: list[tuple[str, str]] = []
    for source, record in sourced:
        value = found(record).strip()
        # A preprint server is where a version sits, not a venue that contradicts one.
        if not value or (container and is_preprint_server(value)):
            continue
        if (reflexive and value == cited) or same(cited, value):
            return None  # an agreeing source supports the cited value
        values.append((source, value))
    agreed = consensus(values, same)
    if agreed is None:
        return None
    # The consensus value is one of ``values``, each found above to differ from the
    # cited one: it differs too.
    return Discrepancy(field=field.name, cited=cited, found=agreed[0], sources=agreed[1])


def _same_list_or_truncated(a: Sequence[Author], b: Sequence[Author]) -> bool:
    """Two sources' author lists are one when the shorter is the longer cut short (book
    databases often keep only the first authors)."""
    shorter, longer = sorted((a, b), key=len)
    return authors_agree(shorter, longer, et_al=True)


def _authors_discrepancy(
    citation: Citation, sourced: Sequence[tuple[str, WorkRecord]]
) -> Discrepancy | None:
    if not _names_anyone(citation.authors):
        return None
    differing: list[tuple[Author, ...]] = []  # lists found to differ from the cited one
    for _, record in sourced:
        listed = record.authors
        if not _names_anyone(listed) or listed in differing:
            continue  # another source's very list (the comparison is pure)
        if authors_agree(citation.authors, listed, citation.et_al):
            return None  # an agreeing source supports the cited list
        differing.append(listed)
    values = [(s, r.authors) for s, r in sourced if _names_anyone(r.authors)]
    agreed = consensus(values, _same_list_or_truncated, fullness=len)
    if agreed is None:
        return None
    # The consensus list is one of ``values``, each found above to differ from the
    # cited list: it differs too.
    return Discrepancy(
        field="authors",
        cited=render_authors(citation.authors, citation.et_al),
        found=render_authors(agreed[0]),
        sources=agreed[1],
    )


def discrepancies(
    citation: Citation, results: Mapping[str, SourceResult], agreeing: tuple[str, ...]
) -> tuple[Discrepancy, ...]:
    """Each field ``citation`` gives that differs from what the agreeing sources say, in
    the order title, authors, year, container, volume, issue, pages, publisher, doi.

    ``results`` are the per-source answers and ``agreeing`` the sources whose record
    matches (the verdict's ``agreeing``); a source without a record is ignored. Each
    :class:`~verifier.models.Discrepancy` gives the cited value as cited, the value most
    agreeing sources give as the most authoritative of them writes it, and those sources.
    See the module docstring for what counts as a difference per field.
    """
    return discrepancies_of(citation, agreeing_records(results, agreeing))


def discrepancies_of(
    citation: Citation, sourced: Sequence[tuple[str, WorkRecord]]
) -> tuple[Discrepancy, ...]:
    """:func:`discrepancies` given the agreeing sources' (source, record) pairs, most
    authoritative first (:func:`verifier.verdict.agreeing_records`)."""
    if not sourced:
        return ()
    records = [r for _, r in sourced]
    first = records[0]
    found: list[Discrepancy] = []
    for field in _FIELDS:
        # A field the citation leaves out is never a discrepancy: its value is read first
        # (the publisher and DOI tests below are pure, so their order does not matter).
        # So is one the most authoritative record gives equal, where that means agreeing
        # (_cited_field_discrepancy's first look, made here without the call).
        cited = field.cited(citation).strip()
        name = field.name
        if cited and not (field.reflexive and field.found(first).strip() == cited) and not (
            (name == "publisher" and not _is_bookish(citation, records))
            or (name == "doi" and _doi_is_records_arxiv(citation, records))
        ):
            discrepancy = _cited_field_discrepancy(field, cited, sourced)
            if discrepancy is not None:
                found.append(discrepancy)
        if name == "title":
            discrepancy = _authors_discrepancy(citation, sourced)
            if discrepancy is not None:
                found.append(discrepancy)
    return tuple(found)


# ---------------------------------------------------------------------------------------
# Flags about the cited venue and DOI

PREPRINT_SERVERS = re.compile(
    r"^\s*(?:arxiv|biorxiv|medrxiv|chemrxiv|psyarxiv|socarxiv|edarxiv|osf preprints|ssrn|"
    r"ssrn electronic journal|research square|preprints|preprints org|techrxiv|"
    r"corr|computing research repository|eartharxiv|authorea)\b",
    re.I,
)
"""Names of preprint servers as databases show them ("arXiv (Cornell University)",
"ArXiv", "bioRxiv", "SSRN Electronic Journal", "CoRR")."""

PREPRINT_CITED_AS_PUBLISHED_FLAG = "preprint_cited_as_published"
DOI_NOT_FOUND_FLAG = "doi_not_found"
DOI_REGISTRIES: tuple[str, ...] = ("crossref", "openalex")
"""Sources that register DOIs (Crossref's and DataCite's, via OpenAlex): a cited DOI
none of them resolves resolves nowhere."""


# Run for every agreeing record's container, which recur from record to record: memoised
# (bounded).
@value_memo(16384)
def is_preprint_server(name: str) -> bool:
    """The container names a preprint server, not a journal or conference."""
    return bool(PREPRINT_SERVERS.match(normalize_title(name)))


def preprint_cited_as_published(
    citation: Citation, results: Mapping[str, SourceResult], agreeing: tuple[str, ...]
) -> bool:
    """The citation names a journal or conference (not a preprint server) while every
    agreeing record is a preprint (type preprint, or a preprint server as container)."""
    return preprint_cited_as_published_of(
        citation, [r for _, r in agreeing_records(results, agreeing)])


def preprint_cited_as_published_of(citation: Citation, records: Sequence[WorkRecord]) -> bool:
    """:func:`preprint_cited_as_published` given the agreeing records."""
    if not citation.container or is_preprint_server(citation.container):
        return False
    return bool(records) and all(_is_preprint_record(r) for r in records)


def _is_preprint_record(record: WorkRecord) -> bool:
    """A record of a preprint: typed so, or with a preprint server as venue, or with no
    venue at all and an arXiv id or arXiv DOI (how the databases show an arXiv-only
    paper)."""
    if record.type is _PREPRINT:
        return True
    if record.container:
        return is_preprint_server(record.container)
    doi = record.identifiers.doi or ""
    return bool(record.identifiers.arxiv) or doi.lower().startswith("10.48550/")


def doi_not_found(citation: Citation, results: Mapping[str, SourceResult]) -> bool:
    """The cited DOI resolves in none of the DOI registries: each of
    :data:`DOI_REGISTRIES` that was asked answered (match or no match, never an error or
    a timeout), at least one did (OpenAlex for an arXiv DataCite DOI), and no record of
    any source carries the DOI."""
    cited = citation.identifiers.doi
    if not cited:
        return False  # no cited DOI (normalize_doi finds none in "")
    doi = _versionless(normalize_doi(cited) or "")
    if not doi:
        return False
    asked = {s: results[s] for s in DOI_REGISTRIES if s in results
             and results[s].status not in (SourceStatus.SKIPPED, SourceStatus.NOT_APPLICABLE)}
    answered = {s for s, r in asked.items()
                if r.status in (SourceStatus.MATCH, SourceStatus.NO_MATCH)}
    if not answered or answered != set(asked):
        return False
    if "openalex" not in answered and doi.startswith("10.48550/"):
        return False  # arXiv's DataCite DOIs: Crossref never holds them
    return not any(
        r.record is not None
        and _versionless(normalize_doi(r.record.identifiers.doi or "") or "") == doi
        for r in results.values()
    )


_ARXIV_DOI_VERSION = re.compile(r"^(10\.48550/arxiv\.[^v]+)v\d+$", re.I)


def _versionless(doi: str) -> str:
    """An arXiv DataCite DOI without a version suffix ("10.48550/arXiv.2602.12233v1" is
    cited for "10.48550/arXiv.2602.12233"); other DOIs as they are."""
    match = _ARXIV_DOI_VERSION.match(doi)
    return match.group(1) if match else doi
