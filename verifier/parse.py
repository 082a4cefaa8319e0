"""Free-text citation parsing: one reference string in, one :class:`Citation` out.

The parser tries one function per citation style, in order, and keeps the first that
recognises the string; a fallback always answers. Each style only has to find the
author block, the date and where the rest begins; the rest (title, container, volume,
pages, publisher, "In ... (Eds.)") is read by shared functions.

=====================  ==================================================================
style                  recognised by
=====================  ==================================================================
APA / Harvard          an author block (or a title) followed by a date in brackets:
                       "Family, I. (2019). Title." / "(2019) Title." / "(n.d.)."
quoted title           a title in quotes after an author block: MLA ("Family, Given.
                       "Title." Journal 12.3 (2019): 45-67."), IEEE ("J. Smith, "Title,"
                       Journal, vol. 3, ...") and Chicago author-date with quotes
Vancouver              "Smith J, Jones A. Title. Journal. 2019;3(2):1-9."
author-year            Chicago author-date without quotes: "Family, Given. 2019. Title."
fallback               anything else: a year anywhere, the first sentence as the title
=====================  ==================================================================

``parse_citation`` never raises on any text: every style returns None when it does
not recognise the string, and the fallback accepts everything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .identifiers import find_identifiers
from .models import Author, Citation, Identifiers, WorkType
from .normalize import PARTICLES

MAX_PARSE_CHARS = 4000
"""Longer input is cut: a reference string is rarely a tenth of this, and the regular
expressions below are at worst quadratic in the length."""

# ---------------------------------------------------------------------------------------
# Shared patterns

_OPEN_QUOTES = {'"': '"”', "“": '”"', "„": '“”"', "«": "»", "”": '”"'}
_CLOSE_QUOTE_CHARS = "\"”’'»"
_PAGES = r"[A-Za-z]{0,4}\d+[A-Za-z]?\d*(?:\s*[-–—]+\s*[A-Za-z]{0,4}\d+[A-Za-z]?\d*)?"
_VOLUME = r"[A-Za-z]?\d+(?:\s*[-–]\s*\d+)?(?:\s+Suppl\.?)?"
_ISSUE = r"[^()]{1,20}"
_YEAR_TOKEN = re.compile(r"(?<![\d.])(1[4-9]\d\d|20\d\d)(?![\d.])")
_YEAR_RANGE = re.compile(r"^\d{4}\s*[-–]\s*\d{4}$")
_PLAIN_YEAR = re.compile(r"^(1[4-9]\d\d|20\d\d)$")

# A date in brackets: "(2019)", "(2019a)", "(2019, March 14)", "(n.d.)", "(in press)",
# "(4th century BCE)". Three-digit years occur for ancient works ("(426)").
_BRACKET_DATE = re.compile(
    r"\(\s*(?:(?P<year>\d{3,4})[a-z]?(?:\s*[,/–-]\s*[^()]{0,30})?"
    r"|(?P<undated>n\.\s?d\.?|no date|in press|forthcoming|[^()]{0,20}\bcentury\b[^()]{0,12})"
    r")\s*\)\.?",
    re.I,
)
_EDITOR_MARK = re.compile(r"\s*\((?:eds?|editors?)\.?\)\s*\.?|,?\s+\beds?\.$", re.I)
_ET_AL = re.compile(r"[,;]?\s*(?:\bet\.?\s*al\b\.?|…|\.\.\.|\band others\b)\s*,?", re.I)
_CONJUNCTION_SPLIT = re.compile(r"\s*([;,]\s*(?:&|and)\s+|;|,|\s(?:&|and)\s)\s*")
_LEADING_NUMBER = re.compile(r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|\d{1,4}[.)](?=\s))\s*")
_URL_OR_DOI = re.compile(
    r"(?:https?://|www\.)[^\s<>\"“”]+|\bdoi:\s*10\.\S+|(?<![\w.])10\.\d{4,9}/[^\s\"“”]+"
    r"|\barxiv:\s*[\w./-]+|\bPMID:?\s*\d+|\bPMCID:?\s*PMC\d+|\be?ISBN(?:-1[03])?:?\s*[\dXx-]+"
    r"|\be?ISSN:?\s*[\dXx-]+",
    re.I,
)
_LINK_WORDS = re.compile(
    r"\s*(?:\bRetrieved(?:\s+on)?(?:\s+[\w ,]*?\d{4},?)?\s+from|\bAvailable\s+(?:at|from|online)"
    r"|\[\s*Online\s*\]|\bAccessed(?:\s+on)?[\w ,]*\d{4}|\bURL|\bDOI)\s*:?\s*(?=$|[.,;()\[\]])",
    re.I,
)
_EDITION = re.compile(
    r"\s*\(\s*(?:\d+\w{0,2}|rev(?:ised)?\.?|[A-Za-z]+)\s+ed(?:ition)?\.?\s*\)", re.I
)
_PAREN_DETAILS = re.compile(r"\s*\((?P<inner>[^()]*\b(?:pp?\.|vol\.|ed\.|edition)[^()]*)\)", re.I)
_THESIS_NOTE = re.compile(
    r"\s*\((?:doctoral|master'?s|ph\.?\s?d\.?|unpublished)\s+(?:dissertation|thesis)[^()]*\)", re.I
)
_PAGES_IN = re.compile(rf"\b(?:pp?\.|pages)\s*(?P<pages>{_PAGES})", re.I)
_VOLUME_IN = re.compile(r"\bvol(?:ume)?\.?\s*(?P<volume>[\w-]+)", re.I)
_ABBREVIATIONS = frozenset(
    (
        "vs no nos vol vols ed eds st dr mr mrs ms jr sr inc co ltd corp dept univ pp p al fig "
        "cf ca approx trans rev repr suppl ch sect pt wm bros "
        # ISO 4 journal-title words, so "J. Am. Chem. Soc." is not cut into sentences.
        "j am soc chem phys lett proc natl acad sci med res int eng biol psychol econ ann bull "
        "eur br clin appl environ technol mol geophys math stat comput anal rep opin curr "
        "neurosci physiol pharmacol ecol evol assoc conf symp intl annu meet mtg adv syst inf "
        "mach learn"
    ).split()
)
_JOURNAL_WORDS = re.compile(
    r"\b(?:journal|review|quarterly|bulletin|annals|letters|transactions|proceedings|"
    r"magazine|gazette|acta|archives|revue|zeitschrift|plos|lancet|jama|bmj)\b",
    re.I,
)
_REPORT_WORDS = re.compile(
    r"\b(?:working|discussion|occasional|white|policy)\s+papers?\b|\btechnical\s+report\b|"
    r"\breport\s+no\b|\bpolicy\s+brief\b",
    re.I,
)
_PUBLISHER_WORDS = re.compile(
    r"\b(?:press|publish\w*|publications|books|verlag|editions?|éditions|inc\.?|ltd\.?|"
    r"co\.|company|house|university|institute|institution|foundation|council|centre|center|"
    r"organi[sz]ation|agency|department|office|bank|commission|programme|program|group|"
    r"sons|media|classics|routledge|wiley|springer|elsevier|sage|penguin|macmillan|verso|"
    r"norton|knopf|brill|mcfarland|doubleday|scribner|harpercollins)\b",
    re.I,
)
_PROCEEDINGS_WORDS = re.compile(
    r"\b(?:proceedings|proc|conference|symposium|workshop|congress|colloquium)\b", re.I
)
_THESIS_WORDS = re.compile(
    r"\b(?:doctoral|master'?s|ph\.?\s?d\.?|unpublished)\s+(?:dissertation|thesis)\b", re.I
)
_PLACE = re.compile(r"^[A-Z][\w.'\- ]{0,30}(?:,\s*[A-Z][\w.\- ]{0,20}){0,2}$")
_CONTINUES_NAMES = re.compile(r"^(?:[^\W\d_][a-z]?\.|&|and\s|et\.?\s*al\b)")
# A block ending in an initial keeps its period ("Smith, J."); "Li." ends a sentence.
_INITIAL_AT_END = re.compile(r"(?:^|[\s.\-])(?:[^\W\d_]|Ch|Th|Sh|Zh|Ph|St|Wm)\.$")
_PERSON_WORD = re.compile(r"^[^\W\d_][^\W\d_'’.\-]*(?:['’\-][^\W\d_]+)*\.?$")


@dataclass(slots=True)
class _Parsed:
    """What a style found, before identifiers and type are added."""

    authors: list[Author] = field(default_factory=list)
    et_al: bool = False
    year: int | None = None
    title: str = ""
    container: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    publisher: str = ""
    editors: list[Author] = field(default_factory=list)
    part_of: bool = False
    """The work is a part of the container ("In ..."): a chapter or a conference paper."""


@dataclass(frozen=True, slots=True)
class _Source:
    """The end of a reference: container and its volume, issue and pages."""

    container: str
    volume: str = ""
    issue: str = ""
    pages: str = ""
    year: int | None = None


# ---------------------------------------------------------------------------------------
# Entry point


def parse_citation(text: str) -> Citation:
    """Parse one free-text reference into a :class:`Citation`.

    Fields the text does not give stay empty ("" / None / ()). Never raises: text that
    no style recognises yields at least a title guess (its first sentence) and any
    identifiers and year it contains.
    """
    prepared = _prepare(text)
    identifiers = find_identifiers(prepared)
    body = _strip_links(prepared)
    for style in _STYLES:
        parsed = style(body)
        if parsed is not None:
            return _finish(parsed, identifiers, prepared)
    return _finish(_parse_fallback(body), identifiers, prepared)


def _prepare(text: str) -> str:
    """One line of text: no markdown emphasis, no list numbering, single spaces."""
    text = text[:MAX_PARSE_CHARS].replace("*", "").replace("\u00ad", "")
    text = " ".join(text.split())
    return _LEADING_NUMBER.sub("", text, count=1)


def _strip_links(text: str) -> str:
    """``text`` without URLs, DOIs and the words that announce them ("Retrieved from")."""
    text = _URL_OR_DOI.sub("", text)
    text = _LINK_WORDS.sub("", text)
    text = re.sub(r"\s+(?=[.,;])", "", " ".join(text.split()))
    return text.strip(" ,;")


def _finish(parsed: _Parsed, identifiers: Identifiers, text: str) -> Citation:
    container = _clean_segment(parsed.container)
    publisher = _clean_segment(parsed.publisher)
    return Citation(
        authors=tuple(parsed.authors),
        et_al=parsed.et_al,
        year=parsed.year,
        title=_clean_title(parsed.title),
        container=container,
        volume=parsed.volume.strip(),
        issue=parsed.issue.strip(),
        pages=_clean_pages(parsed.pages),
        publisher=publisher,
        editors=tuple(parsed.editors),
        type=_work_type(parsed, container, publisher, identifiers, text),
        identifiers=identifiers,
    )


def _work_type(
    parsed: _Parsed, container: str, publisher: str, identifiers: Identifiers, text: str
) -> WorkType:
    """ARTICLE for a journal-like container (by name, or with volume or pages), BOOK for a
    publisher without container, CHAPTER / PROCEEDINGS for "In ...", WEB for a link and
    nothing else; UNKNOWN otherwise."""
    if parsed.part_of:
        return WorkType.PROCEEDINGS if _PROCEEDINGS_WORDS.search(container) else WorkType.CHAPTER
    if _THESIS_WORDS.search(text):
        return WorkType.THESIS
    if container and _PROCEEDINGS_WORDS.search(container) and not parsed.volume:
        return WorkType.PROCEEDINGS
    if container and (parsed.volume or parsed.pages or _JOURNAL_WORDS.search(container)):
        return WorkType.ARTICLE
    if parsed.volume and parsed.pages:
        return WorkType.ARTICLE  # "Title Journal, 12(3), 45-67": the journal is in the title
    if identifiers.arxiv and not container:
        return WorkType.PREPRINT
    if publisher and not container:
        return WorkType.REPORT if _REPORT_WORDS.search(publisher) else WorkType.BOOK
    if identifiers.url and not container and not publisher:
        return WorkType.WEB
    return WorkType.UNKNOWN


# ---------------------------------------------------------------------------------------
# Styles: each returns None when it does not recognise the text.


def _parse_apa(text: str) -> _Parsed | None:
    """APA and Harvard: "Authors (2019). Title. Source." or "Title. (2019). Source."."""
    date = _BRACKET_DATE.search(text)
    if date is None:
        return None
    block = text[: date.start()].strip()
    rest = text[date.end() :].strip(" .,;")
    if any(q in block for q in '"“”«'):
        return None
    names = _parse_authors(block) if block else ([], False)
    if names is None:
        # APA puts the title first when there is no author: "Title. (2017). Journal ..."
        if not (block.endswith((".", "?", "!")) and date.group(0).endswith(".")):
            return None
        if _YEAR_TOKEN.search(block):
            return None
        parsed = _parse_source_only(rest)
        parsed.title = block
    else:
        parsed = _parse_body(rest)
        parsed.authors, parsed.et_al = names
    parsed.year = _int_or_none(date.group("year"))
    return parsed


def _parse_quoted(text: str) -> _Parsed | None:
    """A title in quotes after the authors (MLA, IEEE, Chicago with quotes)."""
    quoted = _find_quoted_title(text)
    if quoted is None:
        return None
    start, end, title = quoted
    block = text[:start].strip()
    year: int | None = None
    trailing_year = re.search(r"(?:^|[\s.,])\(?(\d{4})[a-z]?\)?\.?$", block)
    if trailing_year:
        year = int(trailing_year.group(1))
        block = block[: trailing_year.start()].strip()
    names = _parse_authors(block) if block else ([], False)
    if names is None:
        return None
    parsed = _parse_after_title(text[end:].strip(" .,;:"))
    parsed.title = title
    parsed.authors, parsed.et_al = names
    parsed.year = year or parsed.year
    return parsed


def _parse_vancouver(text: str) -> _Parsed | None:
    """Vancouver / NLM: "Smith J, Jones AB, et al. Title. Journal. 2019;3(2):1-9."."""
    match = re.match(r"^(?P<block>[^.]{1,400}?)\.\s+(?P<rest>.+)$", text)
    if match is None:
        return None
    tokens = [t for t in re.split(r"\s*,\s*", match.group("block")) if t]
    et_al = bool(tokens) and bool(re.fullmatch(r"et\.?\s*al\.?", tokens[-1], re.I))
    if et_al:
        tokens = tokens[:-1]
    authors = [_vancouver_name(t) for t in tokens]
    if not authors or any(a is None for a in authors):
        return None
    parsed = _parse_body(match.group("rest"))
    parsed.authors = [a for a in authors if a is not None]
    parsed.et_al = et_al
    return parsed


def _parse_author_year(text: str) -> _Parsed | None:
    """Chicago author-date without quotes: "Family, Given. 2019. Title. Source."."""
    for match in re.finditer(r"(?<=[.,])\s+(\d{4})[a-z]?\.\s+", text):
        block = text[: match.start()].strip()
        names = _parse_authors(block)
        if names is None:
            continue
        parsed = _parse_body(text[match.end() :].strip(" ."))
        parsed.authors, parsed.et_al = names
        parsed.year = int(match.group(1))
        return parsed
    return None


def _parse_names_sentence(text: str) -> _Parsed | None:
    """A bibliography entry whose first sentence is the author list: "Given Family,
    Given Family, and Given Family. Title. Venue, 2019." (common in computer science)
    or "Family, Given M. Title. City: Publisher, 2015." (Chicago notes, MLA books)."""
    for end in re.finditer(r"\.\s+(?=\S)", text[:500]):
        after = text[end.end() :]
        if _CONTINUES_NAMES.match(after):
            continue  # "Zhang, R. | B., ..." or "Smith, J. | and ...": still the names
        names = _parse_authors(text[: end.start() + 1], given_first=True)
        if names is None:
            continue
        cut = _first_boundary(after, periods_first=False)
        parsed = _parse_after_title("" if cut is None else after[cut.right :])
        parsed.title = after if cut is None else _left_of(after, cut)
        parsed.authors, parsed.et_al = names
        if parsed.year is None:
            years = _YEAR_TOKEN.findall(after)
            parsed.year = int(years[-1]) if years else None
        return parsed
    return None


def _parse_fallback(text: str) -> _Parsed:
    """Anything: a quoted string or else the first sentence as the title, the last
    plausible year."""
    parsed = _Parsed()
    years = _YEAR_TOKEN.findall(text)
    parsed.year = int(years[-1]) if years else None
    quoted = _find_quoted_title(text)
    if quoted is not None:
        parsed.title = quoted[2]
        return parsed
    sentences = _sentences(text)
    parsed.title = sentences[0] if sentences else ""
    return parsed


_STYLES: tuple[Callable[[str], _Parsed | None], ...] = (
    _parse_apa,
    _parse_quoted,
    _parse_vancouver,
    _parse_author_year,
    _parse_names_sentence,
)

# ---------------------------------------------------------------------------------------
# Title, container and publisher


def _parse_body(rest: str) -> _Parsed:
    """Everything after the date: title first, then what it appeared in."""
    part = _split_in(rest)
    if part is not None:
        title, inner = part
        parsed = _parse_part_of(inner)
        parsed.title = title
        return parsed
    quoted = _leading_quoted(rest)
    if quoted is not None:
        title, after = quoted
        parsed = _parse_after_title(after)
        parsed.title = title
        return parsed
    source = _match_source_tail(rest)
    if source is not None:
        title, container = _split_title_container(source.container)
        parsed = _Parsed(title=title, container=container)
        _apply_source(parsed, source)
        return parsed
    return _parse_book_rest(rest)


def _parse_source_only(rest: str) -> _Parsed:
    """The text after the date when the title came before it: only the source is left."""
    source = _match_source_tail(rest)
    parsed = _Parsed()
    if source is not None:
        parsed.container = source.container
        _apply_source(parsed, source)
    else:
        _apply_venue(rest, parsed)
    return parsed


def _parse_after_title(after: str) -> _Parsed:
    """The text after a title that was delimited (quoted): container or publisher."""
    after = after.strip(" .,;:")
    in_match = re.match(r"^in:?\s+(?P<inner>.+)$", after, re.I)
    if in_match:
        return _parse_part_of(in_match.group("inner"))
    parsed = _Parsed()
    source = _match_source_tail(after)
    if source is not None:
        parsed.container = source.container
        _apply_source(parsed, source)
    else:
        _apply_venue(after, parsed)
    return parsed


def _parse_book_rest(rest: str) -> _Parsed:
    """A book: "Title. [City: ]Publisher." (or a title alone)."""
    cut = _first_boundary(rest, periods_first=True)
    if cut is None:
        title, remainder = rest, ""
    else:
        title, remainder = _left_of(rest, cut), rest[cut.right :]
    parsed = _Parsed()
    parsed.title = _take_title_details(title, parsed)
    _apply_venue(remainder, parsed)
    return parsed


def _apply_venue(text: str, parsed: _Parsed) -> None:
    """Read the text after a title that has no volume or pages: its last sentence is the
    journal when it is named like one ("Journal of ...") and else the publisher; a
    trailing year ("Penguin Classics, 2003") is the year. Translator notes are skipped."""
    sentences = [s for s in _sentences(text) if not _is_translation_note(s)]
    if not sentences:
        return
    last, year = _strip_trailing_year(sentences[-1])
    parsed.year = parsed.year or year
    if _JOURNAL_WORDS.search(last) and not _PUBLISHER_WORDS.search(last):
        parsed.container = last
    elif last:
        parsed.publisher = _publisher(last)


def _parse_part_of(inner: str) -> _Parsed:
    """The text after "In": "[Editors (Eds.),] Book title[ (pp. 1-20)]. [City: ]Publisher."."""
    parsed = _Parsed(part_of=True)
    eds = re.match(
        r"^(?P<eds>.{1,300}?)\s*\((?:eds?|editors?)\.?\)\s*,?\s*(?P<rest>.*)$", inner, re.I
    )
    if eds:
        names = _parse_authors(eds.group("eds"))
        if names is not None:
            parsed.editors = names[0]
            inner = eds.group("rest")
    inner = _peel_pages_and_year(inner.strip(" .,"), parsed)
    details = _PAREN_DETAILS.search(inner)
    if details:
        book, remainder = inner[: details.start()], inner[details.end() :]
        _apply_details(details.group("inner"), parsed)
    else:
        cut = _first_boundary(inner, periods_first=True)
        book, remainder = (inner, "") if cut is None else (_left_of(inner, cut), inner[cut.right :])
    trailing_pages = re.search(
        rf",\s*(?:(?:pp?\.|pages)\s*)?(?P<pages>{_PAGES})\s*$", book.strip(" .")
    )
    if trailing_pages and not parsed.pages:
        parsed.pages = trailing_pages.group("pages")
        book = book.strip(" .")[: trailing_pages.start()]
    parsed.container = book
    sentences = _sentences(remainder.strip(" .,"))
    if sentences:
        last, year = _strip_trailing_year(sentences[-1])
        parsed.year = parsed.year or year
        pages = _PAGES_IN.search(last)
        if pages and not parsed.pages:
            parsed.pages = pages.group("pages")
            last = last[: pages.start()]
        parsed.publisher = _publisher(last)
    return parsed


def _peel_pages_and_year(text: str, parsed: _Parsed) -> str:
    """Move a trailing ", 2019", ", Mar. 2019" or ", pp. 1-9" (IEEE order, either way
    round) from ``text`` into ``parsed``; the rest of ``text`` is returned."""
    for _ in range(2):
        pages = re.search(rf",\s*(?:pp?\.|pages)\s*(?P<pages>{_PAGES})\s*$", text)
        year = re.search(r",\s*(?:[A-Z][a-z]{2,8}\.?\s+)?(?P<year>1[4-9]\d\d|20\d\d)\s*$", text)
        if pages:
            parsed.pages = parsed.pages or pages.group("pages")
            text = text[: pages.start()]
        elif year:
            parsed.year = parsed.year or int(year.group("year"))
            text = text[: year.start()]
    return text


def _split_in(rest: str) -> tuple[str, str] | None:
    """(title, text after "In") when ``rest`` is "Title. In ..."; None otherwise."""
    for cut in _boundaries(rest):
        after = rest[cut.right :]
        match = re.match(r"^In:?\s+(?=[^\W\d_]|\d)", after)
        if match:
            return _left_of(rest, cut), after[match.end() :]
    return None


def _leading_quoted(rest: str) -> tuple[str, str] | None:
    """(title, remainder) when ``rest`` starts with a quoted title that is the whole title:
    the closing quote is followed by the end or a new sentence. "“Going home” or ..." is a
    title that starts with a quotation, not a quoted title."""
    if not rest or rest[0] not in _OPEN_QUOTES:
        return None
    closers = _OPEN_QUOTES[rest[0]]
    close = next((i for i in range(1, len(rest)) if rest[i] in closers), -1)
    if close <= 1:
        return None
    after = rest[close + 1 :]
    # What follows the closing quote starts a new part: the end, or not a lower-case word.
    if not re.match(r"^[.,:;?!]?\s*(?:$|[^\sa-z])", after):
        return None
    return rest[1:close], after.strip(" .,;:")


def _find_quoted_title(text: str) -> tuple[int, int, str] | None:
    """(start, end, title) of the first quoted string that holds a letter; None when the
    first quotation has none or is not closed."""
    for index, char in enumerate(text):
        if char not in _OPEN_QUOTES or (char == "”" and index > 0):
            continue
        # An opening straight quote follows a space or the start, never a letter.
        if index > 0 and (text[index - 1].isalnum()):
            continue
        closers = _OPEN_QUOTES[char]
        close = next((i for i in range(index + 1, len(text)) if text[i] in closers), -1)
        if close < 0:
            return None
        title = text[index + 1 : close].strip()
        if any(c.isalpha() for c in title):
            return index, close + 1, title
        return None
    return None


def _match_source_tail(text: str) -> _Source | None:
    """The source that ends ``text`` ("Journal, 12(3), 45-67."), its ``container`` being
    all the text before the volume; None when no volume/pages pattern ends the text."""
    for matcher in _TAIL_MATCHERS:
        found = matcher(text)
        if found is not None:
            return found
    return None


def _tail_apa(text: str) -> _Source | None:
    """APA: "Container, 12(3), 45-67." / "Container, 40, 865-900." / "Container, 11(1)."
    and Harvard "Container, 12(3), pp. 45-67."."""
    match = re.match(
        rf"^(?P<pre>.+?),\s*(?:vol\.\s*)?(?P<vol>{_VOLUME})\s*(?:\((?P<iss>{_ISSUE})\))?"
        rf"(?:\s*,\s*(?:pp?\.\s*|article\s+(?:no\.\s*)?|art\.\s*)?(?P<pages>{_PAGES}))?\s*\.?\s*$",
        text,
        re.I,
    )
    if match is None:
        return None
    volume, issue, pages = match.group("vol"), match.group("iss") or "", match.group("pages") or ""
    if not issue and not pages:
        if _YEAR_RANGE.match(volume) or _PLAIN_YEAR.match(volume):
            return None  # "The South African War, 1899-1902" or "Publisher, 2003"
        if re.search(r"[-–]", volume):
            volume, pages = "", volume  # a lone range is pages: "Proceedings ..., 184-190"
    return _Source(match.group("pre"), volume, issue, pages)


def _tail_colon(text: str) -> _Source | None:
    """Chicago: "Container 45(7): 2596-2602." (volume, optional issue, colon, pages)."""
    match = re.match(
        rf"^(?P<pre>.+?),?\s+(?:vol\.\s*)?(?P<vol>\d+)\s*(?:\((?P<iss>{_ISSUE})\))?\s*:\s*"
        rf"(?P<pages>{_PAGES})\s*\.?\s*$",
        text,
        re.I,
    )
    if match is None:
        return None
    return _Source(
        match.group("pre"), match.group("vol"), match.group("iss") or "", match.group("pages")
    )


def _tail_mla(text: str) -> _Source | None:
    """MLA 8: "Container 12.3 (2019): 45-67." (volume.issue, year in brackets, pages)."""
    match = re.match(
        rf"^(?P<pre>.+?),?\s+(?:vol\.\s*)?(?P<vol>\d+)(?:\.(?P<iss>\d+))?,?\s*\((?P<year>\d{{4}})\)"
        rf"(?:\s*:\s*(?P<pages>{_PAGES}))?\s*\.?\s*$",
        text,
        re.I,
    )
    if match is None:
        return None
    return _Source(
        match.group("pre"),
        match.group("vol"),
        match.group("iss") or "",
        match.group("pages") or "",
        int(match.group("year")),
    )


def _tail_labelled(text: str) -> _Source | None:
    """IEEE and MLA 9: "Container, vol. 3, no. 2, pp. 1-9, 2019." (labels, any order of
    the date and pages after the volume)."""
    match = re.match(
        r"^(?P<pre>.+?),\s*vol\.\s*(?P<vol>[\w\-]+)(?:,\s*no\.\s*(?P<iss>[\w\-]+))?"
        r"(?P<more>(?:,\s*[^,]+)*?)\s*\.?\s*$",
        text,
        re.I,
    )
    if match is None:
        return None
    more = match.group("more") or ""
    pages = _PAGES_IN.search(more)
    years = _YEAR_TOKEN.findall(more)
    return _Source(
        match.group("pre"),
        match.group("vol"),
        match.group("iss") or "",
        pages.group("pages") if pages else "",
        int(years[-1]) if years else None,
    )


def _tail_vancouver(text: str) -> _Source | None:
    """Vancouver: "Journal. 2019;3(2):1-9." / "Journal. 2019 Mar 5;3:1-9."."""
    match = re.match(
        r"^(?P<pre>.+?)\.?\s+(?P<year>\d{4})(?:\s+[A-Z][a-z]{2,8}\.?(?:\s+\d{1,2})?)?\s*;\s*"
        rf"(?P<vol>[^\s(:;]+)?\s*(?:\((?P<iss>[^)]+)\))?\s*(?::\s*(?P<pages>{_PAGES}))?\s*\.?\s*$",
        text,
    )
    if match is None:
        return None
    return _Source(
        match.group("pre"),
        match.group("vol") or "",
        match.group("iss") or "",
        match.group("pages") or "",
        int(match.group("year")),
    )


def _tail_colon_year(text: str) -> _Source | None:
    """Computer-science bibliographies: "Venue, 14(2):221–252, 2013." / "Venue, 5:98–108,
    2004."."""
    match = re.match(
        rf"^(?P<pre>.+?),\s*(?P<vol>\d+)\s*(?:\((?P<iss>{_ISSUE})\))?\s*:\s*(?P<pages>{_PAGES})"
        r"\s*,\s*(?:[A-Z][a-z]{2,8}\.?\s+)?(?P<year>\d{4})\s*\.?\s*$",
        text,
    )
    if match is None:
        return None
    return _Source(
        match.group("pre"),
        match.group("vol"),
        match.group("iss") or "",
        match.group("pages"),
        int(match.group("year")),
    )


_TAIL_MATCHERS: tuple[Callable[[str], _Source | None], ...] = (
    _tail_labelled,
    _tail_colon_year,
    _tail_vancouver,
    _tail_mla,
    _tail_colon,
    _tail_apa,
)


def _apply_source(parsed: _Parsed, source: _Source) -> None:
    """Fill volume, issue, pages and a missing year from ``source`` (not the container:
    callers know whether the text before the volume holds the title too)."""
    parsed.volume = source.volume
    parsed.issue = source.issue
    parsed.pages = source.pages
    if source.year is not None and parsed.year is None:
        parsed.year = source.year


def _split_title_container(prefix: str) -> tuple[str, str]:
    """A "Title. Container" prefix split at the last sentence boundary: titles hold "?" and ". "
    more often than journal names do. (prefix, "") when there is no boundary."""
    cuts = list(_boundaries(prefix)) or list(_boundaries(prefix, strict=False))
    if not cuts:
        return prefix, ""
    last = cuts[-1]
    return _left_of(prefix, last), prefix[last.right :]


def _take_title_details(title: str, parsed: _Parsed) -> str:
    """Move "(2nd ed.)", "(Vol. 2)" and "(pp. 1-20)" out of a book title into ``parsed``."""
    details = _PAREN_DETAILS.search(title)
    if details:
        _apply_details(details.group("inner"), parsed)
        title = title[: details.start()] + title[details.end() :]
    return _THESIS_NOTE.sub("", _EDITION.sub("", title))


def _apply_details(inner: str, parsed: _Parsed) -> None:
    pages = _PAGES_IN.search(inner)
    if pages:
        parsed.pages = pages.group("pages")
    volume = _VOLUME_IN.search(inner)
    if volume:
        parsed.volume = volume.group("volume")


def _publisher(segment: str) -> str:
    """The publisher in "City, ST: Publisher" (the place dropped) or the segment itself."""
    segment = segment.strip(" .,;")
    place, colon, name = segment.partition(": ")
    if colon and name and _PLACE.match(place) and not _PUBLISHER_WORDS.search(place):
        return name.strip()
    return segment


def _strip_trailing_year(segment: str) -> tuple[str, int | None]:
    """A trailing year split off: "Penguin Classics, 2003" -> ("Penguin Classics", 2003)."""
    match = re.search(r"(?:^|,?\s+)\(?(1[4-9]\d\d|20\d\d)\)?\.?$", segment.strip())
    if match is None:
        return segment, None
    return segment.strip()[: match.start()].strip(" ,"), int(match.group(1))


def _is_translation_note(sentence: str) -> bool:
    return bool(re.match(r"^(?:translated|trans\.|edited|ed\.|various editions)", sentence, re.I))


# ---------------------------------------------------------------------------------------
# Sentence boundaries


@dataclass(frozen=True, slots=True)
class _Cut:
    """A sentence boundary: the left part ends before ``left`` (the mark kept separately),
    the right part starts at ``right``."""

    left: int
    right: int
    mark: str
    quotes: str


def _boundaries(text: str, *, strict: bool = True) -> Iterator[_Cut]:
    """Sentence ends in ``text``: ".", "?" or "!" (and closing quotes) then a space and a
    word that is not all lower-case. With ``strict``, a period after an initial or a
    known abbreviation ("U.S.", "vs.", "J. Am. Chem.") does not end a sentence."""
    for match in re.finditer(r"([.?!])([\"”’'»]*)\s+(?=(\S+))", text):
        following = match.group(3)
        # "e.g. the" continues the sentence; "arXiv" or "eLife" may start a new one.
        if following[0].islower() and not any(c.isupper() for c in following):
            continue
        if match.group(1) == "." and strict and _ends_with_abbreviation(text[: match.start()]):
            continue
        yield _Cut(match.start(), match.end(), match.group(1), match.group(2))


def _ends_with_abbreviation(left: str) -> bool:
    word = re.search(r"([^\s(\[]+)$", left)
    if word is None or left.endswith((")", "]")):
        return False
    token = word.group(1)
    if "." in token.strip("."):
        return True  # "U.S", "e.g", "Ph.D"
    letters = token.strip(".,;:\"'“”")
    if len(letters) == 1 and letters.isalpha() and letters.isupper():
        return True  # an initial
    return letters.lower() in _ABBREVIATIONS


def _left_of(text: str, cut: _Cut) -> str:
    """The text left of a boundary, keeping "?" / "!" and any closing quotes."""
    keep = cut.mark if cut.mark in "?!" else ""
    return text[: cut.left] + keep + cut.quotes


def _first_boundary(text: str, *, periods_first: bool) -> _Cut | None:
    """The first sentence boundary; with ``periods_first`` the first "." boundary is
    preferred (a book title is more likely to contain "?" than a publisher name)."""
    cuts = list(_boundaries(text))
    if not cuts:
        return None
    if periods_first:
        periods = [c for c in cuts if c.mark == "."]
        if periods:
            return periods[0]
    return cuts[0]


def _sentences(text: str) -> list[str]:
    """``text`` cut at every sentence boundary, pieces stripped, empty pieces dropped."""
    pieces: list[str] = []
    start = 0
    for cut in _boundaries(text):
        pieces.append(_left_of(text[: cut.right], cut)[start:])
        start = cut.right
    pieces.append(text[start:])
    return [p.strip(" .,;") for p in pieces if p.strip(" .,;")]


# ---------------------------------------------------------------------------------------
# Authors


def _parse_authors(block: str, *, given_first: bool = False) -> tuple[list[Author], bool] | None:
    """The authors in an author block and whether it ends in "et al."; None when the
    block does not read as a list of names (persons or one organisation).

    With ``given_first`` the block is known to end at a sentence boundary of a
    bibliography entry, where "Dean Baskin" is a person; otherwise a name without comma
    is taken as an organisation ("Royal Society", "Hasbro") unless it has a middle
    initial. Organisations are not accepted with ``given_first``.
    """
    block, et_al = _strip_et_al(block)
    block = _EDITOR_MARK.sub(" ", block)
    block = " ".join(block.split()).strip(" ,;")
    if block.endswith(".") and not _INITIAL_AT_END.search(block):
        block = block[:-1]  # the sentence's period, not an initial's
    if not block:
        return ([], et_al) if et_al else None
    if len(block) > 600 or re.search(r"[:?!\"“”\d]", block):
        return None
    tokens = _author_tokens(block)
    if all(_is_full_name(t) for t, _ in tokens) and (given_first or len(tokens) > 1):
        # "Rui Lin, Shujie Liu, and Sheng Li": every piece a given-first name.
        return [_split_given_first(t) for t, _ in tokens], et_al
    if _is_corporate(block):
        if given_first:
            return None
        return [Author(literal=_corporate_name(block))], et_al
    authors = _assemble_authors(tokens)
    if authors is None:
        return None
    return authors, et_al


def _strip_et_al(block: str) -> tuple[str, bool]:
    stripped, count = _ET_AL.subn(", ", block)
    # "Bellinger, D., … & Roghmann" -> "Bellinger, D., , & Roghmann": one comma is enough.
    stripped = re.sub(r",(?:\s*,)+", ",", stripped)
    return stripped, count > 0


def _is_corporate(block: str) -> bool:
    """An organisation as author: no comma, ";" or "&" and not one person's name."""
    if re.search(r"[,;&]", block):
        return False
    if _given_first_initials(block) is not None or _vancouver_name(block) is not None:
        return False
    if _is_full_name(block) and any(_is_initials(w) for w in block.split()[1:-1]):
        return False  # "Robert C. Allen"
    parts = re.split(r"\s+and\s+", block)
    # "John Smith and Mary Jones": several short given-first names.
    return not (len(parts) > 1 and all(_is_full_name(p) for p in parts))


def _corporate_name(block: str) -> str:
    """An organisation's name: the longer of "Name (Acronym)" and its bracketed form."""
    match = re.match(r"^(?P<out>[^()]+?)\s*\((?P<in>[^()]+)\)\s*$", block)
    if match is None:
        return block
    outside, inside = match.group("out").strip(), match.group("in").strip()
    return inside if len(inside) > len(outside) else outside


def _author_tokens(block: str) -> list[tuple[str, bool]]:
    """Comma/conjunction-separated pieces of an author block, each with whether a
    conjunction or ";" before it marks the start of a new author."""
    pieces = _CONJUNCTION_SPLIT.split(block)
    tokens: list[tuple[str, bool]] = []
    new_author = False
    for index, piece in enumerate(pieces):
        if index % 2 == 1:  # a separator
            new_author = piece.strip() != ","
            continue
        piece = piece.strip(" ,")
        if piece:
            tokens.append((piece, new_author))
        new_author = False
    return tokens


def _assemble_authors(tokens: list[tuple[str, bool]]) -> list[Author] | None:
    """Pair family names with their given names or initials; None when a piece is not a
    name. "Family, I." pairs; "I. Family" and "Family IJ" stand alone; after the first
    author, "Given Family" stands alone (MLA, Chicago)."""
    authors: list[Author] = []
    index = 0
    while index < len(tokens):
        token = tokens[index][0]
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        nxt = following[0] if following is not None and not following[1] else None
        author: Author | None
        step = 1
        if _is_initials(token):
            # A stray "J." after a complete author belongs to nobody: not a name list.
            return None
        if (author := _given_first_initials(token)) is not None:
            pass
        elif (
            nxt is not None
            and _is_family(token)
            and (
                _is_initials(nxt)
                or (_is_given_words(nxt) and (index == 0 or _is_single_family(token)))
            )
        ):
            author, step = Author(family=token, given=nxt), 2
        elif (author := _vancouver_name(token)) is not None:
            pass
        elif authors and _is_full_name(token):
            author = _split_given_first(token)
        elif _is_family(token):
            author = Author(family=token)
        else:
            return None
        authors.append(author)
        index += step
    return authors


def _is_initials(token: str) -> bool:
    """Initials of given names: "J.", "J. A.", "J.-P.", "M.R.", "Ch.", "J"."""
    compact = re.sub(r"[\s\-‐]", "", token)
    if not re.fullmatch(r"(?:[^\W\d_][a-z]?\.)+[^\W\d_]?|[^\W\d_]", compact):
        return False
    chunks = [c for c in compact.split(".") if c]
    return all(c[0].isupper() and (len(c) == 1 or c[1].islower()) for c in chunks)


def _is_name_word(word: str) -> bool:
    if word.lower() in PARTICLES or word.lower() in {"d'", "l'"}:
        return True
    return bool(_PERSON_WORD.match(word)) and (
        word[0].isupper() or word[:2].lower() in {"d'", "d’"}
    )


def _is_family(token: str) -> bool:
    """One to four name words, the last capitalised ("van der Berg", "Parker Pearson")."""
    words = token.split()
    if not 1 <= len(words) <= 4 or not all(_is_name_word(w) for w in words):
        return False
    return not words[-1].endswith(".") or len(words[-1]) > 4


def _is_single_family(token: str) -> bool:
    return len([w for w in token.split() if w.lower() not in PARTICLES]) == 1


def _is_given_words(token: str) -> bool:
    """Given names written out: "Franco", "Matthew L.", "St. Thomas"."""
    words = token.split()
    if not 1 <= len(words) <= 3:
        return False
    full = [w for w in words if not _is_initials(w)]
    return len(full) <= 2 and all(_is_name_word(w) and w.lower() not in PARTICLES for w in words)


def _is_full_name(token: str) -> bool:
    """A name written given-first: "Daniela Witten", "Daniela M. Witten"."""
    words = token.split()
    if not 2 <= len(words) <= 5 or not all(_is_name_word(w) for w in words):
        return False
    return not _is_initials(words[-1]) and words[0].lower() not in PARTICLES


def _split_given_first(token: str) -> Author:
    """Split a given-first name at its family name; particles stay with the family name."""
    words = token.split()
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in PARTICLES:
        start -= 1
    return Author(family=" ".join(words[start:]), given=" ".join(words[:start]))


def _given_first_initials(token: str) -> Author | None:
    """An initials-first name ("G.A. Heath", "C. Le Quéré") as an author, else None."""
    match = re.match(r"^(?P<given>(?:[^\W\d_][a-z]?\.\s*-?\s*)+)(?P<family>[^\W\d_].*)$", token)
    if match is None:
        return None
    given, family = match.group("given").strip(), match.group("family").strip()
    if not _is_initials(given) or not _is_family(family) or _is_initials(family):
        return None
    return Author(family=family, given=given)


def _vancouver_name(token: str) -> Author | None:
    """A Vancouver name ("Smith J", "van der Berg JA") as an author, else None."""
    match = re.match(r"^(?P<family>.+?)\s+(?P<initials>[^\W\d_]{1,4})$", token.strip())
    if match is None:
        return None
    family, letters = match.group("family"), match.group("initials")
    if not letters.isupper() or not _is_family(family) or _is_initials(family):
        return None
    return Author(family=family, given=letters)


# ---------------------------------------------------------------------------------------
# Small cleaners


def _clean_title(title: str) -> str:
    title = " ".join(title.split()).strip(" ,;:")
    if title.endswith(".") and not _ends_with_abbreviation(title[:-1]):
        title = title[:-1].rstrip(" ,;:")
    if len(title) >= 2 and title[0] in _OPEN_QUOTES and title[-1] in _CLOSE_QUOTE_CHARS:
        inner = title[1:-1]
        if not any(q in inner for q in '"“”'):
            title = inner.strip(" .,")
    return title


def _clean_segment(segment: str) -> str:
    segment = " ".join(segment.split()).strip(" ,;:")
    if segment.endswith(".") and not _ends_with_abbreviation(segment[:-1]):
        segment = segment[:-1].rstrip(" ,;:")
    return re.sub(r"^In:?\s+", "", segment)


def _clean_pages(pages: str) -> str:
    return re.sub(r"\s*[-–—]+\s*", "-", pages.strip())


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value else None
