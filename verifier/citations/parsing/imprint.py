"""Books, theses and reports (title, edition, place, publisher, year) and parts of books
and proceedings ("In Editors (Eds.), Book (pp. 1-20). Place: Publisher.")."""

from __future__ import annotations

import re

from .journal import has_content, journal_like, top_level_commas
from .names import parse_name_block, scan_authors
from .parsed import Parsed
from .tail import NUMBER, is_year_range, strip_trailing_notes
from .text import (
    MONTH,
    MONTHS,
    UPPER,
    YEAR,
    YEAR_BETWEEN,
    YEAR_TOKEN,
    ascii_folded,
    ascii_lower,
    ends_with_abbreviation,
    first_boundary,
    left_of,
    may_mention,
    sentences,
)

_LANGUAGE_NOTE = re.compile(r"\s*[\[(]in\s+[A-Z]\w+[\])]\s*$")
_FREE_YEAR = re.compile(rf"(?<![\w.]){YEAR}(?!\d)")
MONTH_WORD = re.compile(rf"\b{MONTH}(?![^\W\d_])", re.I)  # not "Spring" in "Springer"
_DATE_CHARS = re.compile(rf"\b{MONTH}(?![^\W\d_])|{YEAR}|[\d,.;:\s-]", re.I)
_MONTH_DAY = re.compile(rf"(?:{MONTH}\s?)?\d{{0,2}}", re.I)
_PAREN_YEAR_END = re.compile(rf"\s*\(\s*{YEAR}\s*\)$")
_TITLE_DATE = re.compile(rf"(?:\.\s*({YEAR})[a-z]?|\s*\(({YEAR})[a-z]?\))$")
_THESIS = re.compile(
    r"\b(?:(?:doctoral|master'?s?|masters|ph\.?\s?d\.?|phd|m\.?\s?sc?\.?|b\.?\s?sc?\.?|"
    r"bachelor'?s?|diploma|licentiate|habilitation|unpublished)\s*(?:dissertation|thesis|"
    r"thèse|diss\.?)|dissertation|thèse|thesis|Diss\.|Doktorarbeit|Dissertação|Tesis)\b",
    re.I,
)
_REPORT = re.compile(
    r"\b(?:tech(?:nical)?\.?\s*(?:rep(?:ort)?s?\b\.?|memo\w*|notes?)|(?:working|discussion|"
    r"occasional|white|policy|research|staff)\s+papers?|report\s+(?:no\.?|number|series)|"
    r"research\s+report|policy\s+brief|(?:internal|annual|final|progress)\s+report|"
    r"TR[-\s]?\d|CMU-CS|memorandum|preprint|report)\b",
    re.I,
)
_EDITION = re.compile(
    r"[,(]?\s*\b(?P<ed>(?:\d+\s?(?:st|nd|rd|th|e|ème|\.)?|first|second|third|fourth|fifth|"
    r"sixth|seventh|eighth|ninth|tenth|rev(?:ised)?\.?|new|enl(?:arged)?\.?|expanded|"
    r"updated|international|student)\s?(?:ed(?:ition|n)?|Aufl(?:age)?)\b\.?)\s*\)?",
    re.I,
)
_EDITION_WORDS = ("ed", "aufl")
"""A word every match of :data:`_EDITION` contains (for :func:`~.text.may_mention`)."""
_THESIS_WORDS = ("diss", "thesis", "thèse", "doktorarbeit", "tesis")
"""A word every match of :data:`_THESIS` contains."""
_REPORT_WORDS = ("tech", "paper", "report", "brief", "tr", "cmu-cs", "memorandum", "preprint")
"""A word every match of :data:`_REPORT` contains."""
_MONTH_DAY_LENGTH = len("septiembre. 12")
"""The longest text :data:`_MONTH_DAY` matches whole: the longest month, its period, a
space and two digits (each character of a text matches one of the pattern)."""
PUBLISHER_WORDS = re.compile(
    r"\b(?:press|publish\w*|publications?|books|verlag|editions?|éditions|editor[ae]|"
    r"editrice|inc\.?|ltd\.?|co\.|company|house|university|universit\w+|institute|"
    r"institution|foundation|council|centre|center|organi[sz]ation|agency|department|"
    r"office|bank|commission|programme|program|group|sons|media|classics|routledge|wiley|"
    r"springer|elsevier|sage|penguin|macmillan|verso|norton|knopf|brill|mcfarland|"
    r"doubleday|scribner|harpercollins|academic|ieee|acm|siam|gmbh|s\.a\.|llc|"
    r"laborator\w+|school|college|ministry|bureau|nasa|(?-i:OUP|CUP|MIT)|society|association|"
    r"academy|verlagsgesellschaft|buchhandlung|druck|imprimerie|libreria|editorial)\b",
    re.I,
)
_PUBLISHER_FOLDED = ascii_folded(
    re.compile(PUBLISHER_WORDS.pattern.replace("|(?-i:OUP|CUP|MIT)", ""), re.I)
)
_PUBLISHER_ACRONYM = re.compile(r"\b(?:OUP|CUP|MIT)\b")
"""The two halves of :data:`PUBLISHER_WORDS` for ASCII text: the words (folded, searched
on the lower case) and the acronyms (case-sensitive, searched on the text)."""
_EDITION_FOLDED = ascii_folded(_EDITION)
_THESIS_FOLDED = ascii_folded(_THESIS)
_REPORT_FOLDED = ascii_folded(_REPORT)


def publisher_word(text: str) -> bool:
    """Whether :data:`PUBLISHER_WORDS` occurs in ``text`` (searched on the lower case of
    ASCII text: see :func:`~.text.ascii_folded`)."""
    if text.isascii():
        return (
            _PUBLISHER_FOLDED.search(text.lower()) is not None
            or _PUBLISHER_ACRONYM.search(text) is not None
        )
    return PUBLISHER_WORDS.search(text) is not None


_PLACE_PUBLISHER = re.compile(
    r"^(?P<place>[A-Z][\w.'’\- ]{0,40}(?:,\s*[A-Z][\w.\- ]{0,25}){0,2})\s?:\s?"
    r"(?P<pub>(?:[A-Z&]|[dl]['’])[^:]{0,60})$"
)
_PLACE_WORD = re.compile(
    rf"^(?:{UPPER}[^\W\d_.'’-]*(?:[.'’-][^\W\d_]*)*|[A-Z]{{2}})"
    rf"(?:\s(?:{UPPER}[^\W\d_.'’-]*(?:[.'’-][^\W\d_]*)*|on|am|upon|de|sur))*$"
)


_COMMA_OUTSIDE_BRACKETS = re.compile(r",\s*(?![^()]*\))")
_TRAILING_YEAR = re.compile(rf"(?:^|\s)(?:{MONTH}\s?(?:\d{{1,2}},?\s?)?)?\(?({YEAR})[a-z]?\)?\.?$")
_FINAL_PAREN = re.compile(r"\((?P<inner>[^()]{3,120})\)\s*\.?\s*$")
_TRANSLATION_NOTE = re.compile(
    r"^(?:translated|trans\.|tr\.|edited|ed\.|various editions|reprinted)", re.I
)


def read_book(rest: str) -> Parsed:
    """A book, thesis or report: "Title. [Place: ]Publisher[, Year]." / "Title, Publisher,
    Place, Year" / "Title (Publisher, Place, Year)"."""
    parsed = Parsed()
    rest = take_paren_imprint(strip_trailing_notes(rest), parsed)
    cut = first_boundary(rest, periods_first=True)
    if cut is not None:
        title, remainder = left_of(rest, cut), rest[cut.right :]
    else:
        title, remainder = split_title_imprint(rest)
        if not remainder:
            title, remainder = _split_at_year(rest)
        venue = _venue_after_comma(title)
        if venue is not None:
            # "Title, Proc. ICEC20 Beijing, (Elsevier, 2005) pp. 1015-1018"
            part = read_part_of(f"{venue[1]}, {remainder}" if remainder else venue[1])
            part.title = take_title_details(venue[0], part)
            part.year = part.year or parsed.year
            part.publisher = part.publisher or parsed.publisher
            return part
    parsed.title = take_title_details(title, parsed)
    apply_imprint(remainder, parsed)
    return parsed


def _split_at_year(text: str) -> tuple[str, str]:
    """ "Classification and Regression Trees 1984 Wadsworth, California": an unpunctuated
    title, year and imprint; (text, "") when what follows the year is no imprint."""
    match = YEAR_BETWEEN.search(text)
    if match is None or match.start() < 10:
        return text, ""
    after = text[match.end() :]
    segments = [s for s in re.split(r"[,;]\s*", after) if s.strip()]
    if segments and all(imprint_like(s) for s in segments):
        return text[: match.start()], text[match.start() :]
    return text, ""


def _venue_after_comma(text: str) -> tuple[str, str] | None:
    """(title, venue) when a comma in ``text`` is followed by a proceedings or series name
    ("..., Proc. ICEC20", "..., Lecture Notes in Computer Science")."""
    for index in top_level_commas(text):
        right = text[index + 1 :].strip()
        if index > 10 and _PART_VENUE.match(right):
            return text[:index].strip(), right
    return None


def journal_after_comma(text: str) -> tuple[str, str] | None:
    """(title, journal) when ``text`` ends in a comma and an abbreviated journal name:
    "BAFF inhibition: A new class of drugs, Exp. Cell. Res." (cited without volume)."""
    commas = top_level_commas(text)
    if not commas:
        return None
    right = text[commas[-1] + 1 :].strip()
    abbreviations = [w for w in right.split() if re.fullmatch(r"[A-Z][a-z]+\.", w)]
    if journal_like(right) and len(abbreviations) >= 2 and not re.search(r"[\d():]", right):
        left = text[: commas[-1]].strip()
        if has_content(left):
            return left, right
    return None


_PART_VENUE = re.compile(
    r"^(?:Proc(?:eedings)?\b|Lecture\s+Notes|LNCS\b|(?:[\w'’&/.-]+\s+){0,6}"
    r"(?:Conference|Symposium|Workshop|Congress|Colloquium)\b)"
)


def take_paren_imprint(text: str, parsed: Parsed) -> str:
    """Move a final "(Publisher, Place, Year)" / "(Place: Publisher, Year)" into ``parsed``."""
    match = _FINAL_PAREN.search(text) if ")" in text else None  # a match ends in ")"
    if match is None:
        return text
    inner = match.group("inner")
    years = _FREE_YEAR.findall(inner)  # "(VetPop2014)" is no imprint
    words = _DATE_CHARS.sub("", inner)
    if not words or not (years or ":" in inner or publisher_word(inner)):
        return text
    if re.search(r"\b(?:eds?|editors?|pp|vol)\b\.?", inner, re.I):
        return text
    apply_imprint(inner, parsed)
    return text[: match.start()].rstrip(" ,.;")


def split_title_imprint(text: str) -> tuple[str, str]:
    """ "Title, Publisher, Place, Year" split before the first comma (or semicolon) segment
    from which on every segment is imprint-like (a publisher, a place, a year, an edition,
    a genre)."""
    commas = top_level_commas(text, ",;")
    split = len(text)
    for index in reversed(commas):
        segment = text[index + 1 : split].strip()
        if not imprint_like(segment):
            break
        split = index
    if split == len(text) or not text[:split].strip():
        return text, ""
    return text[:split], text[split + 1 :]


_LABELLED_DETAIL = re.compile(
    rf"^(?:vol(?:ume)?s?\.?|pp?\.|pages?|S\.|no\.)\s*{NUMBER}$|^{NUMBER}\s*(?:pp?|S)\.?$", re.I
)


def _place_publisher(text: str) -> re.Match[str] | None:
    """ "City, ST: Publisher" with a place of short capitalised names and a short,
    capitalised publisher part, or None."""
    if ":" not in text:
        return None  # every match holds the colon between place and publisher
    match = _PLACE_PUBLISHER.match(text)
    if match is None or len(match.group("pub").split()) > 10 or has_content(match.group("pub")):
        return None
    places = [p.strip() for p in match.group("place").split(",")]
    if not all(_PLACE_WORD.match(p) and len(p.split()) <= 4 for p in places):
        return None
    return match


def strong_imprint(segment: str) -> bool:
    """True for an imprint segment that cannot be part of a title: a publisher, "Place:
    Publisher", an edition or a genre."""
    if not segment.isascii():
        return bool(
            PUBLISHER_WORDS.search(segment)
            or _place_publisher(segment.strip(" .,;"))
            or _EDITION.search(segment)
            or _THESIS.search(segment)
            or _REPORT.search(segment)
        )
    lower = segment.lower()  # the same searches, folded (see ascii_folded)
    return bool(
        _PUBLISHER_FOLDED.search(lower)
        or _PUBLISHER_ACRONYM.search(segment)
        or _place_publisher(segment.strip(" .,;"))
        or _EDITION_FOLDED.search(lower)
        or _THESIS_FOLDED.search(lower)
        or _REPORT_FOLDED.search(lower)
    )


_REPORT_NUMBER = re.compile(r"^[A-Z]{2,}(?:[-/ ][A-Z]+)*[-/ ]?\d[\w./-]*(?:\s?\(\s?\))?$")


def imprint_like(segment: str) -> bool:
    """True for a comma segment that belongs to the imprint, not the title: a year or
    date, a genre, an edition, a publisher, "Place: Publisher", a short place name, or a
    labelled volume or page ("Volume A5", "pp. 1-9", "360 pp")."""
    if is_year_range(segment.strip(" .,;:()")):
        return False  # "Brazil, 1889–1930": part of the title
    bare = YEAR_TOKEN.sub("", MONTH_WORD.sub("", segment)).strip(" .,;:()")
    plain = _PAREN_YEAR_END.sub("", segment.strip(" .,;:"))
    if _LABELLED_DETAIL.match(bare) or _REPORT_NUMBER.match(plain):
        return True
    bare = re.sub(r"[:,]?\s*\d+\s?[-–]\s?\d+$", "", bare).strip(" .,;:")  # "Roma: 22-28"
    if not bare or re.fullmatch(r"[\d\s\-–—.,]*(?:st|nd|rd|th)?[\d\s\-–—.,thsnrd]*", bare):
        return True
    if _THESIS.search(bare) or _REPORT.search(bare) or _EDITION.search(bare):
        return True
    if publisher_word(bare) or _place_publisher(bare):
        return True
    return bool(_PLACE_WORD.match(bare)) and len(bare.split()) <= 3


# The patterns take_title_details reads a title with (compiled once: it runs per reference).
_TITLE_DETAILS = re.compile(
    r"\s*\((?P<inner>[^()]*\b(?:pp?\.|vol\.|ed\.|edn|edition|Bd\.|éd\.)[^()]*)\)", re.I
)
_TITLE_ROLE = re.compile(r"\s*\([^()]*\b(?:Trans|Tr|Trad|Eds?|Hrsg|Hg)\.?\)")
_TITLE_GENRE = re.compile(r"\s*\(([^()]*)\)\s*$")
_TITLE_TRANSLATOR = re.compile(
    r",\s*(?:trans(?:lated)?\.?|tr\.|ed(?:ited)?\.?|eds\.)\s+(?:by\s+)?[A-Z].*$"
)
_TITLE_VOLUME = re.compile(r",?\s*\bVol(?:ume)?\.?\s*(?P<v>[\dIVX]+)\b.*$", re.I)


def take_title_details(title: str, parsed: Parsed) -> str:
    """Move "(2nd ed.)", "(Vol. 2)", "(pp. 1-20)", ", 3rd edn" and "(Doctoral dissertation)"
    out of a title into ``parsed``.

    A search is skipped when the title lacks a character or word every match of its
    pattern holds ("(", ",", "ed", "vol"): the same result, property-tested."""
    if "(" in title:
        details = _TITLE_DETAILS.search(title)
        if details:
            apply_details(details.group("inner"), parsed)
            after = title[details.end() :]
            # "Sobolev spaces (second edition)Pure and Applied Mathematics": a series follows.
            title = title[: details.start()] + ("" if after.strip()[:1].isupper() else after)
        role = _TITLE_ROLE.search(title)
        if role and role.start() > 0:
            title = title[: role.start()] + title[role.end() :]
    # Searched folded first (see ascii_folded): the match itself only where there is one.
    lower = ascii_lower(title)
    edition = (
        _EDITION.search(title)
        if lower is None
        or (may_mention(lower, _EDITION_WORDS) and _EDITION_FOLDED.search(lower) is not None)
        else None
    )
    if edition and edition.end() >= len(title.rstrip(" .")) - 1:
        parsed.edition = parsed.edition or edition.group("ed").strip()
        title = title[: edition.start()]
    if "(" in title:
        genre = _TITLE_GENRE.search(title)
        if genre and (_THESIS.search(genre.group(1)) or _REPORT.search(genre.group(1))):
            _apply_genre(genre.group(1), parsed)
            title = title[: genre.start()]
    # A match ends in a digit, a letter after a digit, or ")" (or before a final newline):
    # a title ending in two letters (most) has none.
    dated = None if title[-2:].isalpha() else _TITLE_DATE.search(title)
    if dated and dated.start() > 10:  # "Title. 1990" / "Title(2008)": the year, not the title
        parsed.year = parsed.year or int(dated.group(1) or dated.group(2))
        title = title[: dated.start()]
    if "(" in title or "[" in title:
        title = _LANGUAGE_NOTE.sub("", title)
    if "," in title:
        translator = _TITLE_TRANSLATOR.search(title)
        if translator and translator.start() > 10:
            title = title[: translator.start()]
    volume = _TITLE_VOLUME.search(title) if may_mention(ascii_lower(title), ("vol",)) else None
    if volume and volume.start() > 10:
        parsed.volume = parsed.volume or volume.group("v")
        title = title[: volume.start()]
    return title.strip(" ,;")


_PAGES = r"[A-Za-z]{0,4}\d+[A-Za-z]?\d*(?:\s*[-–—]+\s*[A-Za-z]{0,4}\d+[A-Za-z]?\d*)?"
_PAGES_IN = re.compile(rf"\b(?:pp?\.|pages?|S\.)\s*(?P<pages>{_PAGES})", re.I)
_VOLUME_IN = re.compile(r"\b(?:vol(?:ume)?\.?|Bd\.)\s*(?P<volume>[\w-]+)", re.I)


def apply_details(inner: str, parsed: Parsed) -> None:
    """Pages, volume and edition from "(Vol. 4, pp. 131-195)" / "(2nd ed., pp. 1-9)"."""
    pages = _PAGES_IN.search(inner)
    if pages:
        parsed.pages = parsed.pages or pages.group("pages")
    volume = _VOLUME_IN.search(inner)
    if volume:
        parsed.volume = parsed.volume or volume.group("volume")
    edition = _EDITION.search(inner)
    if edition:
        parsed.edition = parsed.edition or edition.group("ed").strip()


def _apply_genre(text: str, parsed: Parsed) -> None:
    if _THESIS.search(text):
        parsed.genre = "thesis"
    elif _REPORT.search(text):
        parsed.genre = parsed.genre or "report"


def apply_imprint(text: str, parsed: Parsed) -> None:
    """Read the text after a book title: genre ("PhD thesis", "Technical Report"), edition,
    year, place and publisher. Translator notes ("Translated by ...") are skipped."""
    text = text.strip(" .,;:")
    if not text:
        return
    pieces = [p for p in sentences(text) if not is_translation_note(p)] or [text]
    for piece in pieces[:-1]:
        _apply_genre(piece, parsed)
        edition = _EDITION.search(piece)
        if edition:
            parsed.edition = parsed.edition or edition.group("ed").strip()
    _apply_imprint_sentence(pieces[-1], parsed)


def _apply_imprint_sentence(text: str, parsed: Parsed) -> None:
    segments = [s.strip() for s in _COMMA_OUTSIDE_BRACKETS.split(text) if s.strip()]
    kept: list[str] = []
    for segment in segments:
        segment = take_year(segment, parsed)
        if not segment:
            continue
        lower = ascii_lower(segment)
        if (may_mention(lower, _THESIS_WORDS) and _THESIS.search(segment)) or (
            may_mention(lower, _REPORT_WORDS) and _REPORT.search(segment)
        ):
            _apply_genre(segment, parsed)
            rest = _strip_genre(segment)
            if rest:
                kept.append(rest)
            continue
        edition = (
            _EDITION.fullmatch(segment) or _EDITION.match(segment)
            if may_mention(lower, _EDITION_WORDS)
            else None
        )
        if edition and edition.end() >= len(segment) - 1:
            parsed.edition = parsed.edition or edition.group("ed").strip()
            continue
        if len(segment) <= _MONTH_DAY_LENGTH and _MONTH_DAY.fullmatch(segment):
            continue
        kept.append(segment)
    _place_and_publisher(kept, parsed)


def take_year(segment: str, parsed: Parsed) -> str:
    """``segment`` without a trailing "1951" / "May 2008" (the year kept in ``parsed``)."""
    # Every match holds a year, which starts with "1" or "2" (most segments: none).
    match = _TRAILING_YEAR.search(segment) if "1" in segment or "2" in segment else None
    if match is None:
        return segment.strip()
    parsed.year = parsed.year or int(match.group(1))
    return segment[: match.start()].strip(" ,.;")


def _strip_genre(segment: str) -> str:
    """The institution left when "PhD thesis" / "Technical Report TR-12" is taken out."""
    segment = _THESIS.sub("", segment)
    segment = re.sub(
        r"\b(?:tech(?:nical)?\.?\s*rep(?:ort)?\.?|report)\s*(?:no\.?)?\s*[\w./-]*\d[\w./-]*",
        "",
        segment,
        flags=re.I,
    )
    segment = _REPORT.sub("", segment)
    return segment.strip(" ,.;:")


def _place_and_publisher(segments: list[str], parsed: Parsed) -> None:
    """Assign comma segments to place and publisher: "Place: Publisher" splits; a segment
    with a publisher word is the publisher; other short capitalised segments are places."""
    if not segments:
        return
    joined = ", ".join(segments)
    colon = _place_publisher(joined)
    if colon and not publisher_word(colon.group("place")):
        parsed.place = parsed.place or colon.group("place").strip()
        parsed.publisher = parsed.publisher or colon.group("pub").strip(" ,.")
        return
    publisher_index: int | None = None
    for index, segment in enumerate(segments):
        if publisher_word(segment):
            publisher_index = index
            break
    if publisher_index is None:
        publisher_index = 0
        if len(segments) == 1 and parsed.year is not None and _PLACE_WORD.match(segments[0]):
            if len(segments[0].split()) <= 2 and not parsed.genre:
                parsed.place = parsed.place or segments[0]
                return
    parsed.publisher = parsed.publisher or segments[publisher_index]
    places = [s for i, s in enumerate(segments) if i != publisher_index]
    if places and not parsed.place:
        parsed.place = ", ".join(places)


def is_translation_note(sentence: str) -> bool:
    return bool(_TRANSLATION_NOTE.match(sentence))


_EDS_BEFORE = re.compile(
    r"^(?P<eds>.{1,300}?)\s*[,(]?\s*\(?(?:eds?|editors?|hrsg|hg|dir|coord)\.?\)?\s*[,:.]?\s+(?P<rest>.+)$",
    re.I,
)
_EDITED_BY = re.compile(
    r"[,.]?\s*\b(?:edited\s+by|ed\.\s+by|eds?\.:?|edd\.|hrsg\.\s+v(?:on|\.)|hg\.\s+v\.|"
    r"a\s+cura\s+di|éd\.|dir\.)\s+",
    re.I,
)


def read_part_of(inner: str) -> Parsed:
    """The text after "In": "[Editors (Eds.),] Book title[ (pp. 1-20)]. [Place: ]Publisher."
    or "Proceedings of X, pages 1-9, 2019." or "Book, edited by X (Publisher, 2001), p. 5".

    The book title runs to the first place where the details begin (:func:`_container_end`):
    pages, volume, editors, a date, or a run of imprint segments.
    """
    parsed = Parsed(part_of=True)
    inner = _take_editors_first(inner.strip(" .,:"), parsed)
    inner = take_paren_imprint(inner, parsed)
    end = _container_end(inner)
    parsed.container = inner[:end]
    rest = _take_editors_after(inner[end:], parsed)
    rest = _peel_part_tail(rest, parsed)
    if rest.strip(" .,;:"):
        apply_imprint(rest, parsed)
    return parsed


_DETAILS_START = re.compile(
    rf"""^[\s,.;:]*(?:
        \(?(?:pp?\.|pages?|S\.|vol(?:ume)?s?\.?|Bd\.|nos?\.|chap(?:ter)?\.?)\s*[\dIVXL]
      | volume\s+\d+\s+of\b
      | (?:edited|ed\.|eds\.?|edd\.|hrsg\.?|hg\.|a\s+cura\s+di|éd\.|dir\.)(?=\s|$)
      | \(\s*(?:eds?|editors?|hrsg|hg)\.?\s*\)
      | \(?\d+\s?[-–—]+\s?\d+\)?\s*(?:[.,;]|$)
      | \d+(?:,\d+)?\s?:\s?\d+
      | \([^()]*\b(?:eds?|editors?|hrsg|hg)\.?\)
      | \d{{1,4}}(?=\s*(?:\(|[.,;]|$))
      | \(?(?:\d{{1,2}}\s)?{MONTHS}(?![\w'])
      | \(?{YEAR}[a-z]?\)?(?=\s*(?:[.,;:)]|$))
      | \(\s*(?:{YEAR}|\d+\s?[-–]|[^()]*\b{MONTHS}\b)
    )""",
    re.X | re.I,
)


def _container_end(inner: str) -> int:
    """Where the book or proceedings title after "In" ends: at the first comma, period
    or bracket after which come pages, a volume, editors, a date, a page range, or only
    imprint segments (places, publishers, years)."""
    for match in re.finditer(r"[,.;:]\s|\s\(|\($", inner):
        position = match.start()
        if position == 0:
            continue
        mark = match.group(0).strip()
        if mark == "." and ends_with_abbreviation(inner[:position]):
            continue
        rest = inner[position:]
        if _DETAILS_START.match(rest) or _editors_follow(rest):
            return position
        if mark != "(" and _only_imprint(rest, after_sentence=mark == "."):
            return position
    return len(inner)


def _editors_follow(rest: str) -> bool:
    """True when ``rest`` (", Diebolt, C., and Kyrtsou, C., (eds.), ...") starts with a
    list of names marked as editors."""
    scan = scan_authors(rest.lstrip(" ,;"))
    return scan is not None and scan.editors


_STATE_CODE = re.compile(r"^[A-Z]{2,3}$")


def _only_imprint(rest: str, *, after_sentence: bool) -> bool:
    """True when the sentence that ``rest`` starts holds only imprint segments: after a
    sentence end any ("... Learning. Morgan Kaufmann."); after a comma, one that cannot be
    part of a title (a publisher, a date) or a place with its state ("..., Chicago, IL")."""
    sentence = rest.lstrip(" ,;:.")
    cut = first_boundary(sentence, periods_first=True)
    head = left_of(sentence, cut) if cut else sentence
    segments = [s.strip(" .") for s in re.split(r",\s*", head) if s.strip(" .")]
    if not segments or not all(imprint_like(s) for s in segments):
        return False
    if after_sentence or rest.lstrip().startswith(":"):
        return True
    return len(segments) >= 2 or any(
        strong_imprint(s) or YEAR_TOKEN.search(s) or MONTH_WORD.search(s) or _STATE_CODE.match(s)
        for s in segments
    )


def _take_editors_first(inner: str, parsed: Parsed) -> str:
    """ "A. Editor & B. Editor (Eds.), Book" -> editors read, "Book" returned."""
    match = _EDS_BEFORE.match(inner)
    if match is not None:
        names = parse_name_block(match.group("eds"))
        if names is not None and not names[0][0].literal:
            parsed.editors = names[0]
            return match.group("rest")
    scan = scan_authors(inner)
    if scan is not None and scan.form in "ABC" and inner.startswith(",", scan.end):
        after = inner[scan.end + 1 :].strip()
        if after[:1].isupper():
            parsed.editors = list(scan.authors)  # "In R. K. Merton, The Sociology of ..."
            return after
    return inner


def _take_editors_after(rest: str, parsed: Parsed) -> str:
    """Editors after the book title: ", edited by A. Editor, 12-30", "(A. Editor, eds.)",
    ", A. Editor and B. Editor (eds.)"; the text without them is returned."""
    paren = re.search(r"\s*\((?P<eds>[^()]+?),?\s*\(?(?:eds?|editors?)\.?\)?\)", rest, re.I)
    if paren is not None:
        names = parse_name_block(paren.group("eds"))
        if names is not None:
            parsed.editors = parsed.editors or names[0]
            return rest[: paren.start()] + rest[paren.end() :]
    marker = _EDITED_BY.search(rest)
    if marker is not None:
        scan = scan_authors(rest, marker.end())
        if scan is not None:
            parsed.editors = parsed.editors or list(scan.authors)
            return rest[: marker.start()] + rest[scan.end :]
    scan = scan_authors(rest.lstrip(" ,;"))
    if scan is not None and scan.editors:
        parsed.editors = parsed.editors or list(scan.authors)
        return rest.lstrip(" ,;")[scan.end :]
    return rest


def _peel_part_tail(inner: str, parsed: Parsed) -> str:
    """Take "(pp. 1-20)", ", pages 1-9", ", vol. 3", a final year or pages out of the text
    after "In"."""
    details = re.search(r"\s*\((?P<inner>[^()]*\b(?:pp?\.|pages?|vol\.|S\.)[^()]*)\)", inner, re.I)
    if details:
        apply_details(details.group("inner"), parsed)
        inner = inner[: details.start()] + "." + inner[details.end() :]
    series = re.search(r"[,.]?\s*\bvolume\s+(?P<v>\d+)\s+of\s+[^,.(]+", inner, re.I)
    if series:
        parsed.volume = parsed.volume or series.group("v")
        inner = inner[: series.start()] + "," + inner[series.end() :]
    labelled = re.search(
        rf"[,.;]?\s*(?:pp?\.|pages?|S\.)\s*(?P<pages>{_PAGES})(?![\w-])", inner, re.I
    )
    if labelled:
        parsed.pages = parsed.pages or labelled.group("pages")
        inner = inner[: labelled.start()] + "," + inner[labelled.end() :]
    volume = re.search(r"[,.]?\s*\bvol(?:ume)?\.?\s*(?P<v>[\w-]+)(?=\s*[,.;(]|\s*$)", inner, re.I)
    if volume and volume.start() > 0:
        parsed.volume = parsed.volume or volume.group("v")
        inner = inner[: volume.start()] + "," + inner[volume.end() :]
    inner = re.sub(r"[,.]\s*[,.]", ",", inner).strip(" ,.;")
    bare = _BARE_PAGES.search(inner)  # ", 137-159. New York: ..." / "..., Roma: 22-28"
    if bare and not parsed.pages:
        parsed.pages = bare.group("pages")
        inner = (inner[: bare.start()] + inner[bare.end() :]).strip(" ,.;")
    return inner


_BARE_PAGES = re.compile(r"(?:^|[,:;.])\s*\(?(?P<pages>\d+\s?[-–—]+\s?\d+)\)?(?=\s*(?:[.,;]|$))")
