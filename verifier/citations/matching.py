"""How well one database record fits one citation: title, authors and year.

A citation is matched by a record when the titles agree (similarity at least
:data:`TITLE_THRESHOLD` after normalisation) *and* the authorship agrees (at least half
of the cited family names are in the record, and at least one is). The year never
decides: a year off by one or more is reported as ``year_delta`` and becomes a
discrepancy, because online-first and print years differ and citations get years wrong.

Two outcomes matter beyond "match":

- *Same title, entirely different authors* (:func:`is_title_by_other_authors`) is how
  fabricated books look in Walters & Wilder: a real title with invented authors. The
  record is kept as evidence, never taken as a match.
- *Partial author overlap* on a matching title is a real work cited with errors (an
  author missing, added or misspelt): a match, with discrepancies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from verifier.value_memos import keep, register_memo, value_memo

from .candidates import Candidate, ready_candidates
from .models import Author, Citation, MatchScores, WorkRecord, WorkType
from .normalize import (
    family_key,
    family_variants,
    initials,
    normalize_title,
    split_title,
    transliteration_key,
)
from .venues import containers_agree

TITLE_THRESHOLD = 0.90
"""Least title similarity for a match. Where the open checkers sit: on 1,651 hard real
references, hallucinator recalls 92.1 % of titles at 0.90 and only 42.4 % at 0.95
(shared/docs/peers.md). Below 0.90 distinct works with formulaic titles ("The impact of
X on Y") start to collide; authorship must agree as well, which guards the rest."""

STANDALONE_TITLE = 0.97
"""Least title similarity for a title to stand without authors: a citation that names
no person (an organisation or a web page) matched to a record that lists people."""

AUTHOR_THRESHOLD = 0.5
"""Least share of the cited family names that the record must contain."""

MAIN_TITLE_MIN_WORDS = 3
MAIN_TITLE_MIN_CHARS = 15
"""A main title stands in for a title with subtitle only when it is this long (after
normalisation): "graphs maps trees" may, "stonehenge" or "the boer war" may not, since
many books share a short main title and differ by subtitle."""

SUBTITLE_FACTOR = 0.95
"""Similarity scale when only the main titles agree (one side lacks the subtitle), so a
full-title agreement ranks above it."""

_LEADING_ARTICLE = ("the ", "a ", "an ")
_ACRONYM_STOPWORDS = frozenset({"of", "the", "and", "for", "on", "in", "to", "de", "a"})


# ---------------------------------------------------------------------------------------
# Titles


# Pure and run for every candidate of every citation: memoised (bounded caches).
@value_memo(65536)
def _comparable(title: str) -> str:
    """A normalised title without a leading article ("The Boer War" = "Boer War")."""
    text = normalize_title(title)
    for article in _LEADING_ARTICLE:
        if text.startswith(article) and len(text) > len(article):
            return text[len(article) :]
    return text


def _ratio(a: str, b: str) -> float:
    return fuzz.ratio(a, b) / 100.0


def _main_title_score(main: str, other: str) -> float:
    """Similarity of a main title to a title without subtitle; 0.0 when the main title
    is too short to identify a work alone."""
    if len(main.split()) < MAIN_TITLE_MIN_WORDS or len(main) < MAIN_TITLE_MIN_CHARS:
        return 0.0
    return SUBTITLE_FACTOR * _ratio(main, other)


class _TitleForm:
    """What the title comparisons use of one title, worked out once per title. Never
    changed once made (``Final``). A plain class, not a frozen dataclass: compiled, its
    construction is a C struct's, where a frozen dataclass's ``__init__`` runs as Python
    (a title of every candidate of every citation is made into one)."""

    __slots__ = ("whole", "main", "has_subtitle", "main_stands")

    def __init__(self, *, whole: str, main: str, has_subtitle: bool,
                 main_stands: bool) -> None:
        self.whole: Final = whole
        """``_comparable(title)``."""
        self.main: Final = main
        """``_comparable`` of the main title (``split_title``'s first part)."""
        self.has_subtitle: Final = has_subtitle
        self.main_stands: Final = main_stands
        """The main title is long enough to identify a work alone (see
        :func:`_main_title_score`)."""


@value_memo(65536)
def _title_form(title: str) -> _TitleForm:
    main_title, subtitle = split_title(title)
    main = _comparable(main_title)
    return _TitleForm(
        whole=_comparable(title),
        main=main,
        has_subtitle=bool(subtitle),
        main_stands=len(main.split()) >= MAIN_TITLE_MIN_WORDS
        and len(main) >= MAIN_TITLE_MIN_CHARS,
    )


def title_similarity(cited: str, found: str) -> float:
    """Similarity in [0, 1] of two titles after normalisation (markup, entities, case,
    accents, punctuation and a leading article do not count).

    When exactly one of the two has a subtitle, its main title is also compared with the
    other whole title — but only a main title of at least ``MAIN_TITLE_MIN_WORDS`` words
    and ``MAIN_TITLE_MIN_CHARS`` characters, and scaled by ``SUBTITLE_FACTOR``. The
    best of the comparisons is returned; 0.0 when either title is empty.
    """
    return _form_similarity(_title_form(cited), _title_form(found))


def _form_similarity(cited: _TitleForm, found: _TitleForm) -> float:
    """:func:`title_similarity` of the two titles' forms."""
    a, b = cited.whole, found.whole
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0  # fuzz.ratio gives 100 for equal texts; a main title's score is lower
    best = _ratio(a, b)
    if cited.has_subtitle and not found.has_subtitle:
        if cited.main_stands:
            best = max(best, SUBTITLE_FACTOR * _ratio(cited.main, b))
    elif found.has_subtitle and not cited.has_subtitle and found.main_stands:
        best = max(best, SUBTITLE_FACTOR * _ratio(found.main, a))
    return best


# ---------------------------------------------------------------------------------------
# Authors


class _Name:
    """One author in comparable form. Never changed once made (``Final``); a plain class
    for the reason :class:`_TitleForm` gives (every author of every candidate is made
    into one)."""

    __slots__ = ("key", "variants", "initials", "given_keys", "organisation", "initial",
                 "spelling_keys")

    def __init__(self, *, key: str, variants: frozenset[str], initials: str,
                 given_keys: frozenset[str], organisation: str, initial: str,
                 spelling_keys: frozenset[str]) -> None:
        self.key: Final = key
        """The full family key (or the organisation's key)."""
        self.variants: Final = variants
        """Family-name keys under which the author may appear (see ``family_variants``)."""
        self.initials: Final = initials
        self.given_keys: Final = given_keys
        """Keys of the given-name words, to recognise family/given swapped (CJK order)."""
        self.organisation: Final = organisation
        """Normalised literal of a corporate author, "" for a person."""
        self.initial: Final = initial
        """The first of ``initials`` ("" for none)."""
        self.spelling_keys: Final = spelling_keys
        """``family_variants`` of the family name, else of the literal: the keys under
        which the report takes two paired names as spelt alike (:func:`authors_in_order`)."""


def _name(author: Author) -> _Name:
    """The comparable form of ``author`` (memoised by its three strings: a tuple of
    strings hashes and compares in C, the dataclass in Python)."""
    return _name_of(author.family, author.given, author.literal)


@value_memo(65536)
def _name_of(family: str, given: str, literal: str) -> _Name:
    if family:
        given_words = given.replace(".", " ").split()
        key = family_key(family)
        given_initials = initials(given)
        family_keys = family_variants(family)
        return _Name(
            key=key,
            variants=family_keys,
            initials=given_initials,
            given_keys=frozenset(k for k in (family_key(w) for w in given_words) if len(k) > 1),
            organisation="",
            initial=given_initials[:1],
            spelling_keys=family_keys,
        )
    words = literal.split()
    # A literal may be an organisation or a person the source did not split.
    key = family_key(literal)
    variants = {key}
    if 1 < len(words) <= 4:
        variants |= family_variants(words[-1])
    literal_initials = initials(" ".join(words[:-1])) if 1 < len(words) <= 4 else ""
    return _Name(
        key=key,
        variants=frozenset(v for v in variants if v),
        initials=literal_initials,
        given_keys=frozenset(),
        organisation=normalize_title(literal),
        initial=literal_initials[:1],
        spelling_keys=family_variants(literal),
    )


def _acronym(organisation: str) -> str:
    return "".join(w[0] for w in organisation.split() if w not in _ACRONYM_STOPWORDS)


def _organisations_agree(a: str, b: str) -> bool:
    """Organisation names agree: "World Health Organization" = "WHO"."""
    if fuzz.token_set_ratio(a, b) >= 90:
        return True
    short, long_ = sorted((a, b), key=len)
    return " " not in short and len(short) >= 2 and short == _acronym(long_)


def _initials_agree(a: str, b: str) -> bool:
    """Given names conflict only when both are known and neither's first initial is among
    the other's initials ("J." vs "Mary" conflict; "J. A." vs "Alan" do not)."""
    if not a or not b:
        return True
    return a[0] in b or b[0] in a


_FIRST_PAGE = re.compile(r"[A-Za-z]?\d+")

SLIP_MIN_LENGTH = 6
"""Family names this long may differ by one typing slip ("Granoveter" = "Granovetter",
"Jonhson" = "Johnson": a transposition of neighbours is one slip) on any matching
title; shorter ones only on a backed exact title (:data:`SHORT_SLIP_MIN_LENGTH`), as
"Li" and "Lu" are different people."""

SHORT_SLIP_MIN_LENGTH = 3
"""Family names of this many letters up to ``SLIP_MIN_LENGTH - 1`` ("Smtih", "Bakr")
may differ by one slip only when the title is all but identical (at least
:data:`STANDALONE_TITLE`) and the year (within one) or the container backs the record
(:func:`_short_slip_backed`); two-letter names never."""


def _one_slip_apart(a: str, b: str, min_length: int = SLIP_MIN_LENGTH) -> bool:
    """One insertion, deletion, substitution or transposition of neighbours apart
    (optimal string alignment), both at least ``min_length`` long, starting alike (the
    first letter, or the first two letters swapped)."""
    length_a, length_b = len(a), len(b)
    if length_a < min_length or length_b < min_length or a == b:
        return False
    if length_a - length_b > 1 or length_b - length_a > 1:
        return False  # the distance is at least the difference in length
    if a[0] != b[0]:
        return a[:2] == b[1::-1] and a[2:] == b[2:]
    return OSA.distance(a, b, score_cutoff=1) <= 1


def _transliterations_agree(cited_key: str, found_key: str) -> bool:
    """The two family keys are one name in two transliteration systems."""
    cited = transliteration_key(cited_key)
    return bool(cited) and cited == transliteration_key(found_key)


def _compatible(cited: _Name, found: _Name, slip_min: int = SLIP_MIN_LENGTH) -> bool:
    if cited.organisation and found.organisation:
        return _organisations_agree(cited.organisation, found.organisation)
    if (
        not cited.variants.isdisjoint(found.variants)
        or _one_slip_apart(cited.key, found.key, slip_min)
        # the same name in two transliteration systems (worked out only when needed)
        or _transliterations_agree(cited.key, found.key)
    ):
        return _initials_agree(cited.initials, found.initials)
    # Family and given swapped ("Zhang, J." vs given "Zhang", family "Jun").
    if cited.variants.isdisjoint(found.given_keys):
        return False
    return (
        not cited.initials or any(v.startswith(cited.initials[0]) for v in found.variants)
    )


def _count_shared(
    cited: Sequence[Author], found: Sequence[Author], slip_min: int = SLIP_MIN_LENGTH
) -> tuple[int, bool]:
    """(how many cited authors pair with distinct record authors, whether the first
    cited author is one of them). One-to-one, greedy: full-key pairs first so "Kim, Y."
    is not used up by a looser pairing. Family names of at least ``slip_min`` letters
    may differ by one slip."""
    return _count_shared_names([_name(a) for a in cited], [_name(a) for a in found],
                               slip_min)


def _count_shared_names(
    cited_names: Sequence[_Name], found_names: Sequence[_Name], slip_min: int
) -> tuple[int, bool]:
    """:func:`_count_shared` over the authors' comparable names."""
    free = list(range(len(found_names)))  # indices of record authors not yet paired
    unmatched: list[_Name] = []
    for name in cited_names:
        key, initial = name.key, name.initial
        if key:
            for position, i in enumerate(free):
                other = found_names[i]
                if key == other.key and initial == other.initial:
                    del free[position]
                    break
            else:
                unmatched.append(name)
        else:
            unmatched.append(name)
    shared = len(cited_names) - len(unmatched)
    first_paired = not unmatched or unmatched[0] is not cited_names[0]
    for name in unmatched:
        for position, i in enumerate(free):
            if _compatible(name, found_names[i], slip_min):
                del free[position]
                shared += 1
                first_paired = first_paired or name is cited_names[0]
                break
    return shared, first_paired


def _named(authors: Sequence[Author]) -> list[_Name]:
    """The comparable names of the authors that have a family name or a literal, in
    order."""
    name_of = _name_of  # _name without its frame: one call per author
    return [name_of(a.family, a.given, a.literal) for a in authors if a.family or a.literal]


_NAMED_MEMO_SIZE = 1024
_named_memo: dict[int, tuple[tuple[Author, ...], list[_Name]]] = {}
register_memo(_named_memo.clear)


def _names(authors: Sequence[Author]) -> list[_Name]:
    """:func:`_named` of an author list compared more than once: a citation's authors
    (compared with every candidate record) and a record's (scored by the matching, then
    compared again by the report, :func:`authors_in_order`). Remembered by the tuple's
    identity (a tuple of frozen authors never changes). An entry holds the tuple itself,
    so its id cannot be reused while the entry lives, and a hit is the very same tuple.
    At most :data:`_NAMED_MEMO_SIZE` tuples are kept (then the memo starts over).
    Callers must not change the list."""
    if type(authors) is not tuple:
        return _named(authors)  # a list may change: never remembered
    entry = _named_memo.get(id(authors))
    if entry is not None and entry[0] is authors:
        return entry[1]
    names = _named(authors)
    keep(_named_memo, id(authors), (authors, names), _NAMED_MEMO_SIZE)
    return names


CATALOGUE_SOURCES = frozenset({"openlibrary", "googlebooks"})
"""Sources whose records often keep only the first author(s): their short lists are
taken as truncated when the citation names those authors near its start (see
:func:`_overlap`)."""


def _overlap(
    cited: Sequence[Author], found: Sequence[Author], slip_min: int = SLIP_MIN_LENGTH,
    catalogue: bool = False,
) -> tuple[float, int]:
    """:func:`_overlap_names` of the two author lists."""
    return _overlap_names(_named(cited), _named(found), slip_min, catalogue)


def _overlap_names(
    cited_names: Sequence[_Name], found_names: Sequence[_Name],
    slip_min: int = SLIP_MIN_LENGTH, catalogue: bool = False,
) -> tuple[float, int]:
    """(share of cited authors found, number found). The share is taken over the shorter
    of the two lists when the cited first author is found: a record that lists fewer
    authors than the citation (Open Library and Google Books often keep only the first)
    is not held to names it does not show. When the cited first author is not in the
    record, the share is over the cited names: a real author at the end of an invented
    list ("one real co-author added to a fabricated list") is one name in several, not a
    truncated record — unless the record is a ``catalogue``'s (:data:`CATALOGUE_SOURCES`)
    and the names it shows are all among the first ``len(found) + 1`` cited (the first two
    authors cited in the other order: a catalogue keeping "Anderson" for "Gentile,
    Anderson, Buckley"; not a real name at the end of an invented list)."""
    if not cited_names or not found_names:
        return 0.0, 0
    shared, first_paired = _count_shared_names(cited_names, found_names, slip_min)
    truncated = first_paired or (
        catalogue and _count_shared_names(cited_names[: len(found_names) + 1], found_names,
                                          slip_min)[0] == shared
    )
    over = min(len(cited_names), len(found_names)) if truncated else len(cited_names)
    return min(1.0, shared / over), shared


def author_overlap(cited: Sequence[Author], found: Sequence[Author], et_al: bool) -> float:
    """Share in [0, 1] of the cited authors found among the record's authors, in any
    order; 0.0 when either list is empty.

    Authors pair one-to-one by family name (unidecode, case-folded, particles and
    compound names tolerated: "van der Berg" = "Berg", "Parker Pearson" = "Pearson") with
    compatible initials where both give them ("J." = "John", "J." ≠ "Mary"), or by
    organisation name ("WHO" = "World Health Organization"). When the record lists fewer
    authors than the citation, the share is over the record's count (its list is taken as
    truncated).

    ``et_al`` (the cited list is truncated on purpose) never lowers the score: only
    cited names are looked for, so record authors beyond them cost nothing either way.
    """
    del et_al  # see the docstring: the share is over cited names, so truncation is free
    return _overlap(cited, found)[0]


def same_author(cited: Author, found: Author) -> bool:
    """True when ``cited`` and ``found`` are one author under the matching rules: what
    ``author_overlap((cited,), (found,), et_al=False) == 1.0`` says, without the lists
    (the same key and first initial, or :func:`_compatible` names; an author with
    neither a family name nor a literal is nobody)."""
    if not (cited.family or cited.literal) or not (found.family or found.literal):
        return False
    a, b = _name(cited), _name(found)
    if a.key and a.key == b.key and a.initial == b.initial:
        return True
    return _compatible(a, b, SLIP_MIN_LENGTH)


def authors_in_order(cited: Sequence[Author], found: Sequence[Author], et_al: bool) -> bool:
    """Over the authors that have a family name or a literal: each cited author shares a
    spelling key (``family_variants`` of the family name, else of the literal) with the
    record author at the same position and is that person (:func:`same_author`), and no
    record author is left out unless ``et_al``. The report's in-order test
    (:func:`verifier.citations.discrepancies.authors_agree`) on comparable names (the
    names are the ones the matching made, :func:`_names`)."""
    cited_names, found_names = _names(cited), _names(found)
    if len(found_names) != len(cited_names) and not (
            et_al and len(found_names) > len(cited_names)):
        return False
    for c, f in zip(cited_names, found_names, strict=False):
        if c.key and c.key == f.key and c.initial == f.initial:
            continue  # the full key is among both names' spelling keys: same_author
        if c.spelling_keys.isdisjoint(f.spelling_keys) or not _compatible(
                c, f, SLIP_MIN_LENGTH):
            return False
    return True


# ---------------------------------------------------------------------------------------
# One record against one citation


def _is_person(author: Author) -> bool:
    return bool(author.family)


def _names_a_person(authors: Sequence[Author]) -> bool:
    """``any(_is_person(a) for a in authors)`` without a generator."""
    for author in authors:
        if author.family:
            return True
    return False


def _authors_verdict(citation: Citation, record: WorkRecord, title: float) -> tuple[float, bool]:
    """(authors score, authors_match) under the rules of :func:`score_record`."""
    cited, found = citation.authors, record.authors
    catalogue = record.source in CATALOGUE_SOURCES
    if _names_a_person(cited):
        cited_names, found_names = _names(cited), _names(found)
        if len(cited_names) == len(found_names):
            for c, f in zip(cited_names, found_names, strict=True):
                if not c.key or c.key != f.key or c.initial != f.initial:
                    break
            else:
                # The same names in the same order (full key and first initial):
                # _overlap_names pairs them all, (1.0, len(cited_names) >= 1).
                return 1.0, True
        share, shared = _overlap_names(cited_names, found_names, catalogue=catalogue)
        return share, shared >= 1 and share >= AUTHOR_THRESHOLD
    # No person cited: nobody at all, or organisations only.
    if cited and found:
        share, shared = _overlap(cited, found)
        if shared >= 1 and share >= AUTHOR_THRESHOLD:
            return share, True
    if not found:
        return 1.0, True
    if cited and any(looks_like_a_person(a.literal) for a in cited) and \
            any(_is_person(a) for a in found):
        # "Gregory the Great" is a person the parser could not split, not an
        # organisation: it must pair with a record author like any cited person.
        return 0.0, False
    if (cited or citation.type is WorkType.WEB) and title >= STANDALONE_TITLE:
        return 1.0, True
    if not cited and not citation.et_al and title >= STANDALONE_TITLE and \
            backs_authorless(citation, record):
        return 1.0, True
    return 0.0, False


_ORGANISATION_WORDS = re.compile(
    r"\b(?:organi[sz]ation|association|institute|institution|department|dept|university|"
    r"college|school|office|society|council|agency|ministry|commission|bureau|cent(?:er|re)|"
    r"foundation|group|board|committee|service|services|network|government|nations|bank|"
    r"fund|corporation|company|inc|ltd|llc|press|academy|administration|authority|team|"
    r"project|consortium|federation|union|alliance|trust|museum|library|hospital|clinic|"
    r"research|world|national|international|federal|state|states|european|american|"
    r"panel|program(?:me)?|initiative|forum|unit|collaboration|investigators)\b",
    re.I,
)


def looks_like_a_person(literal: str) -> bool:
    """An unsplit author literal that reads as a personal name: two to four words, none
    an organisation word (:data:`_ORGANISATION_WORDS`), no digits or "&", not in
    capitals ("Gregory the Great", "Madonna Louise Ciccone"; not "World Health
    Organization", "UNESCO", "Wikipedia")."""
    words = literal.split()
    if not 2 <= len(words) <= 4 or literal.isupper():
        return False
    if any(ch.isdigit() or ch in "&@/" for ch in literal):
        return False
    return not _ORGANISATION_WORDS.search(literal)


AUTHORLESS_SUPPORT = 2
"""Fields besides the title an authorless citation needs confirmed to match."""


def backs_authorless(citation: Citation, record: WorkRecord) -> bool:
    """True when the record confirms a citation that names no author on the rest of
    what it gives: at least :data:`AUTHORLESS_SUPPORT` of year (within one), container
    (abbreviations aside), volume and first page agree, and none of them disagrees. A
    real title with an invented year and journal is not backed."""
    checks: list[bool] = []
    if citation.year is not None and record.year is not None:
        checks.append(abs(citation.year - record.year) <= 1)
    if citation.container and record.container:
        checks.append(containers_agree(citation.container, record.container))
    if citation.volume and record.volume:
        checks.append(citation.volume.strip().lower() == record.volume.strip().lower())
    first_cited, first_found = _first_page(citation.pages), _first_page(record.pages)
    if first_cited and first_found:
        checks.append(first_cited == first_found)
    return all(checks) and sum(checks) >= AUTHORLESS_SUPPORT


def score_record(citation: Citation, record: WorkRecord) -> MatchScores:
    """Score ``record`` against ``citation``.

    - ``title_match``: :func:`title_similarity` ≥ :data:`TITLE_THRESHOLD`.
    - ``authors_match`` when the citation names at least one person: at least
      :data:`AUTHOR_THRESHOLD` of the cited authors and at least one of them are in the
      record (:func:`author_overlap`). A record without authors cannot confirm them.
    - When the citation names no person: an organisation that matches a record author
      matches; otherwise authorship is taken as agreeing only if the record lists nobody
      either, or the titles agree at :data:`STANDALONE_TITLE` or better and the citation
      is by an organisation, is a web page, or names nobody at all and the record
      confirms its other fields (:func:`backs_authorless`); ``authors`` is then 1.0.
    - ``year_delta``: record year minus cited year, None when either is unknown. It never
      affects the match.
    """
    return _scored(citation, record, title_similarity(citation.title, record.title))


def _scored(citation: Citation, record: WorkRecord, title: float) -> MatchScores:
    """:func:`score_record` given the records's :func:`title_similarity` ``title``."""
    authors, authors_match = _authors_verdict(citation, record, title)
    if not authors_match and title >= STANDALONE_TITLE:
        authors, authors_match = _same_family_other_initials(citation, record, authors)
    if not authors_match and title >= STANDALONE_TITLE and _short_slip_backed(citation, record):
        authors, authors_match = _short_slip(citation, record, authors)
    title_match = title >= TITLE_THRESHOLD
    needed_support = 0 if title >= STANDALONE_TITLE else 1
    if not title_match and authors_match:
        shared = _shared_main_title(citation.title, record.title)
        if shared is not None:
            # Catalogues often drop a subtitle (Open Library, Google Books), and citations
            # often garble one. The same main title stands for the work only when the
            # authorship agrees as well; the subtitle is then a discrepancy.
            title, title_match = max(title, TITLE_THRESHOLD), True
            needed_support = 1 if shared == "bare" else 2
        elif _short_main_title_backed(citation, record):
            # "Distinction" for "Distinction: A Social Critique of the Judgement of
            # Taste": a short main title stands for the work only when the authors, the
            # year and the publisher (or container) all agree.
            title, title_match, needed_support = TITLE_THRESHOLD, True, 0
    if title_match and needed_support and supporting_fields(citation, record) < needed_support:
        # A near title by the same authors may be their other work on the subject: as
        # in Crossref's validated matching, the rest of the reference must back it up.
        title_match = False
    year_delta = (
        record.year - citation.year
        if record.year is not None and citation.year is not None
        else None
    )
    return MatchScores(
        title=title,
        authors=authors,
        year_delta=year_delta,
        title_match=title_match,
        authors_match=authors_match,
    )


SHARED_MAIN_TITLE_MIN_WORDS = 3
"""Words a main title needs to stand for a work whose subtitle differs ("Stonehenge" is a
topic: a scholar's other Stonehenge book must not pass for a fabricated one)."""
BARE_MAIN_TITLE_MIN_WORDS = 2
"""Words a main title needs to stand for a record that shows no subtitle at all."""


def _shared_main_title(cited: str, found: str) -> str | None:
    """How the two titles share a long enough main title (before any subtitle): "bare"
    when the record shows it without a subtitle, "other" when with another subtitle;
    None when they do not (or neither has a subtitle)."""
    cited_main, cited_sub = split_title(cited)
    found_main, found_sub = split_title(found)
    if not cited_sub and not found_sub:
        return None
    main, other = _comparable(cited_main), _comparable(found_main)
    if not main or main != other:
        return None
    needed = BARE_MAIN_TITLE_MIN_WORDS if not found_sub else SHARED_MAIN_TITLE_MIN_WORDS
    if len(main.split()) < needed:
        return None
    return "bare" if not found_sub else "other"


def _short_main_title_backed(citation: Citation, record: WorkRecord) -> bool:
    """One side gives only the main title, the other the same main title with a
    subtitle, and the year (within one) and the venue (publisher or container) agree."""
    cited_main, cited_sub = split_title(citation.title)
    found_main, found_sub = split_title(record.title)
    if bool(cited_sub) == bool(found_sub):
        return False
    main = _comparable(cited_main)
    if not main or main != _comparable(found_main):
        return False
    if citation.year is None or record.year is None or abs(citation.year - record.year) > 1:
        return False
    cited_venue = citation.publisher or citation.container
    found_venue = record.publisher or record.container
    if not cited_venue or not found_venue:
        return False
    a, b = normalize_title(cited_venue), normalize_title(found_venue)
    return bool(a and b) and (a == b or fuzz.token_set_ratio(a, b) >= 90
                              or containers_agree(cited_venue, found_venue))


def supporting_fields(citation: Citation, record: WorkRecord) -> int:
    """How many of the cited year (within one), container or publisher, volume and first
    page the record confirms; fields either side lacks do not count."""
    support = 0
    if citation.year is not None and record.year is not None:
        support += abs(citation.year - record.year) <= 1
    cited_venue = citation.container or citation.publisher
    found_venue = record.container or record.publisher
    if cited_venue and found_venue:
        a, b = normalize_title(cited_venue), normalize_title(found_venue)
        support += bool(a and b) and (a == b or fuzz.token_set_ratio(a, b) >= 90)
    if citation.volume and record.volume:
        support += citation.volume.strip() == record.volume.strip()
    first_cited, first_found = _first_page(citation.pages), _first_page(record.pages)
    if first_cited and first_found:
        support += first_cited == first_found
    return support


def _first_page(pages: str) -> str:
    match = _FIRST_PAGE.match(pages.strip())
    return match.group(0).lower() if match else ""


def _same_family_other_initials(
    citation: Citation, record: WorkRecord, authors: float
) -> tuple[float, bool]:
    """On an all-but-identical title, the cited family names all found in the record
    with other initials ("Freedman, D." for Lawrence Freedman) are the same authors cited
    with wrong initials: a real work with an error, reported as a discrepancy."""
    cited = [a for a in citation.authors if a.family]
    if not cited or not record.authors:
        return authors, False
    bare = [Author(family=a.family) for a in cited]
    found = [Author(family=a.family, literal=a.literal) for a in record.authors]
    share, shared = _overlap(bare, found)
    if shared == len(cited):
        return share, True
    return authors, False


def _short_slip_backed(citation: Citation, record: WorkRecord) -> bool:
    """The record backs a short-name slip: the year within one, or the container (or
    publisher) agrees, and neither is contradicted."""
    year = None
    if citation.year is not None and record.year is not None:
        year = abs(citation.year - record.year) <= 1
    venue = None
    cited_venue = citation.container or citation.publisher
    found_venue = record.container or record.publisher
    if cited_venue and found_venue:
        venue = containers_agree(cited_venue, found_venue) or (
            fuzz.token_set_ratio(normalize_title(cited_venue), normalize_title(found_venue))
            >= 90
        )
    if year is False or venue is False:
        return False
    return bool(year or venue)


def _short_slip(
    citation: Citation, record: WorkRecord, authors: float
) -> tuple[float, bool]:
    """Authorship with one slip allowed in family names of
    :data:`SHORT_SLIP_MIN_LENGTH` letters or more (the caller has checked the exact
    title and the backing)."""
    cited = [a for a in citation.authors if a.family]
    if not cited or not record.authors:
        return authors, False
    share, shared = _overlap_names(_names(citation.authors), _names(record.authors),
                                   SHORT_SLIP_MIN_LENGTH,
                                   catalogue=record.source in CATALOGUE_SOURCES)
    if shared >= 1 and share >= AUTHOR_THRESHOLD:
        return share, True
    return authors, False


def best_candidate(
    citation: Citation, records: Sequence[WorkRecord]
) -> tuple[WorkRecord, MatchScores] | None:
    """The record that fits ``citation`` best with its scores; None for no records.

    A full match beats any non-match; then the higher title similarity wins, then the
    higher author overlap; ties keep the source's order.
    """
    return best_of(citation, ready_candidates(list(records)))


def best_of(
    citation: Citation, candidates: Sequence[Candidate]
) -> tuple[WorkRecord, MatchScores] | None:
    """:func:`best_candidate` over an answer's candidates: a candidate's record is built
    only when it is scored, and one ruled out on its title alone is never built."""
    if len(candidates) <= 1:
        if not candidates:
            return None
        only = candidates[0].record()
        return only, score_record(citation, only)
    # A match with title and authors both 1.0 has the highest rank there is (no score
    # exceeds 1.0), and the first record wins every tie: when the first record is such a
    # match (the usual answer to a search for a real work), no other needs scoring.
    first_record = candidates[0].record()
    first = score_record(citation, first_record)
    if first.title == 1.0 and first.authors == 1.0 and first.is_match:
        return first_record, first
    # Every record's rank (is_match, title, authors) is at most its bound (see
    # _rank_bound), which needs only the titles. Records are scored in descending order
    # of (bound, earlier first); once a bound falls below the best (rank, earlier first)
    # scored so far, neither it nor any later record can win, nor tie and come earlier:
    # the result is max() over all scored records, without scoring (or building) the
    # hopeless ones.
    cited = _title_form(citation.title)
    titles: list[float] = []
    bounds: list[tuple[tuple[bool, float, float], int]] = []
    for i, candidate in enumerate(candidates):
        form = _title_form(candidate.title)
        title = _form_similarity(cited, form)
        titles.append(title)
        bounds.append((_rank_bound(cited, form, title), -i))
    best: tuple[WorkRecord, MatchScores] | None = None
    best_rank: tuple[tuple[bool, float, float], int] | None = None
    for bound in sorted(bounds, reverse=True):
        if best_rank is not None and bound < best_rank:
            break
        i = -bound[1]
        record = first_record if i == 0 else candidates[i].record()
        scores = first if i == 0 else _scored(citation, record, titles[i])
        rank = ((scores.is_match, scores.title, scores.authors), -i)
        if best_rank is None or rank > best_rank:
            best, best_rank = (record, scores), rank
    return best


def _rank_bound(cited: _TitleForm, found: _TitleForm, title: float
                ) -> tuple[bool, float, float]:
    """An upper bound, needing only the titles, of the rank ``(is_match, title,
    authors)`` by which :func:`best_candidate` orders a record whose
    :func:`title_similarity` is ``title``: componentwise at least the record's scores.

    ``authors`` is at most 1.0. :func:`score_record` raises the title score (to at most
    :data:`TITLE_THRESHOLD`) and matches a title below the threshold only when the two
    titles share their main title and one has a subtitle (:func:`_shared_main_title`,
    :func:`_short_main_title_backed`); otherwise the title score is ``title`` and a match
    needs ``title`` at least :data:`TITLE_THRESHOLD`."""
    if title >= TITLE_THRESHOLD:
        return True, title, 1.0
    if (cited.has_subtitle or found.has_subtitle) and cited.main and \
            cited.main == found.main:
        return True, TITLE_THRESHOLD, 1.0
    return False, title, 1.0


def is_title_by_other_authors(
    scores: MatchScores, citation: Citation | None = None, record: WorkRecord | None = None
) -> bool:
    """True when the title matches but none of the cited authors is in the record — the
    shape of a fabricated citation that borrows a real title.

    The scores alone cannot tell "no cited author found" from "no author cited" or "the
    record lists no authors"; pass ``citation`` and ``record`` and both must name at
    least one person for this to be True.
    """
    if not scores.title_match or scores.authors_match or scores.authors > 0.0:
        return False
    if citation is not None and not any(_is_person(a) for a in citation.authors):
        return False
    return record is None or bool(record.authors)
