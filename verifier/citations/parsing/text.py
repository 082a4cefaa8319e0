"""Shared text helpers of the citation parser: character classes, input clean-up,
sentence boundaries, abbreviations and small cleaners."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from verifier.citations.invisibles import INVISIBLE

MAX_PARSE_CHARS = 4000
"""Longer input is cut: a reference string is rarely a tenth of this, and the regular
expressions of the parser are at worst quadratic in the length."""


def _letters(predicate_upper: bool) -> str:
    """Upper- or lower-case letters of Latin, Greek and Cyrillic, for a regex class."""
    chars = [
        chr(c)
        for c in range(0xC0, 0x530)
        if (chr(c).isupper() if predicate_upper else chr(c).islower()) and chr(c).isalpha()
    ]
    base = "A-Z" if predicate_upper else "a-z"
    return base + "".join(chars).replace("\\", "").replace("]", "").replace("-", "")


UPPER = f"[{_letters(True)}]"
"""One upper-case letter (Latin, Greek, Cyrillic)."""
LOWER = f"[{_letters(False)}]"
"""One lower-case letter (Latin, Greek, Cyrillic)."""
LETTER = r"[^\W\d_]"
CJK = r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"
"""A Hangul, kana or Han character: names and titles in these scripts have no case."""
YEAR = r"(?:1[5-9]\d\d|20[0-3]\d)"
"""A plausible publication year (1500-2039)."""
MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?|Spring|Summer|Autumn|Fall|"
    r"Winter|janv(?:ier)?|févr(?:ier)?|mars|avr(?:il)?|mai|juin|juil(?:let)?|août|"
    r"sept(?:embre)?|oct(?:obre)?|nov(?:embre)?|déc(?:embre)?|Januar|Februar|März|Juni|Juli|"
    r"Oktober|Dezember|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|"
    r"octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|"
    r"ottobre|dicembre)\.?"
)
MONTHS = rf"{MONTH}(?:\s?[-/–]\s?{MONTH})?"
"""A month or a range of months ("September/October", "Jan.-Feb.")."""
YEAR_BETWEEN = re.compile(rf"\s{YEAR}[a-z]?\s(?=\S)")
"""A year between two words: "Title 1973 Journal"."""
YEAR_TOKEN = re.compile(rf"(?<![\d.]){YEAR}(?!\d)")

def ascii_lower(text: str) -> str | None:
    """``text`` lower-cased when it is ASCII, else None: the argument of
    :func:`may_mention`, computed once for several tests of one text."""
    return text.lower() if text.isascii() else None


def may_mention(lower: str | None, words: tuple[str, ...]) -> bool:
    """False only when a case-insensitive pattern every match of which contains one of
    ``words`` (lower-case ASCII) cannot match the text: ``lower`` (its
    :func:`ascii_lower`) holds none of them. Text that is not ASCII (``lower`` None) may
    hold letters that case-insensitive matching reads as ASCII ("ſ" as "s", "K" as
    "k"): always True. Used to skip a search that would find nothing; each use is
    property-tested against its pattern."""
    return lower is None or any(word in lower for word in words)


def ascii_folded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The case-sensitive twin of a case-insensitive ``pattern``: its source with every
    letter outside an escape lower-cased. On ``text.lower()`` of an ASCII ``text`` (the
    same length, every offset kept) it matches where and as ``pattern`` matches on
    ``text`` (property-tested for each twin in use), and faster: the regex engine skips
    case-sensitive literals that do not match without trying them, but enters every
    case-insensitive one. A source with a scoped flag ("(?-i:...)") is refused."""
    source = pattern.pattern
    if "(?" in source.replace("(?:", "").replace("(?P<", "").replace("(?=", "").replace(
        "(?!", ""
    ).replace("(?<", ""):
        raise ValueError(f"a scoped flag or other group in {source!r}")
    chars: list[str] = []
    index = 0
    while index < len(source):
        if source.startswith("(?P<", index):  # a group's name is kept as it is
            end = source.index(">", index) + 1
        elif source[index] == "\\":  # an escape ("\\S", "\\B") too
            end = index + 2
        else:
            chars.append(source[index].lower())
            index += 1
            continue
        chars.append(source[index:end])
        index = end
    return re.compile("".join(chars), pattern.flags & ~re.IGNORECASE)


def folded_search(pattern: re.Pattern[str], twin: re.Pattern[str], text: str) -> bool:
    """Whether case-insensitive ``pattern`` occurs in ``text``; ``twin`` is its
    :func:`ascii_folded` twin, searched instead on ASCII text."""
    if text.isascii():
        return twin.search(text.lower()) is not None
    return pattern.search(text) is not None


# ---------------------------------------------------------------------------------------
# Input clean-up

_LEADING_NUMBER = re.compile(
    r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\s*\d{1,4}\s*\)|\d{1,3}[.)]\s*(?=[^\d\s.,)]))\s*"
)
_URL_OR_ID = re.compile(
    r"(?:https?\s?:\s?//|www\.)[^\s<>\"“”]+(?:\s(?=\S*[/.][A-Za-z0-9])[^\s<>\"“”]*/\S*)?"
    r"|\bdoi\s*:\s*10\.\S+|(?<![\w.])10\.\d{4,9}/[^\s\"“”]+"
    r"|\barxiv\.org\s*:\s*|\[?\s*\barxiv\s*:\s*(?:[a-z-]+(?:\.[A-Z]{2})?\s?/\s?)?\d[\w./-]*(?:\s*\[[\w.\s-]+\])?\s*\]?"
    r"|\b(?:hep|astro|gr|nucl|cond|math|quant)\s?-\s?[a-z]{2,4}\s?/\s?\d{6,7}"
    r"|\bPMID:?\s*\d+|\bPMCID:?\s*PMC\d+|\be?ISBN(?:-1[03])?:?\s*[\dXx][\dXx -]{8,}[\dXx]"
    r"|\be?ISSN:?\s*[\dXx-]+",
    re.I,
)
_LINK_WORDS = re.compile(
    r"\s*(?:\bRetrieved(?:\s+on)?(?:\s+[\w ,]*?\d{4},?)?\s+from|\bAvailable\s+(?:at|from|online)"
    r"|\[\s*Online\s*\]|\((?:online|accessed[^()]*)\)|\b(?:last\s+)?accessed(?:\s+on)?[\w ,-]*\d{4}"
    # The bare labels in one case only: "Url" and "Doi" are family names too.
    r"|\b(?-i:URL|url|DOI|doi)|\barxiv\s+preprint|\bpreprint)\s*:?\s*(?=$|[.,;()\[\]])",
    re.I,
)


# Cheap tests that spare most references the two expensive substitutions below.
_ID_MARKERS = ("http", "www.", "doi", "10.", "arxiv", "pmid", "pmc", "isbn", "issn", "/")
_LINK_MARKERS = ("retriev", "availab", "online", "accessed", "url", "doi", "preprint")


def _any_of(words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern that occurs in a text exactly when one of ``words`` does: the words
    grouped by their first character ("a(?:rxiv|vailab|ccessed)|p(?:mid|...)|..."), so
    at each position the regex engine tests each first character once and enters one
    group, instead of entering every word that starts like the text there."""
    groups: dict[str, list[str]] = {}
    for word in dict.fromkeys(words):
        groups.setdefault(word[0], []).append(re.escape(word[1:]))
    return re.compile(
        "|".join(
            re.escape(first) + ("" if "" in rests else f"(?:{'|'.join(rests)})")
            for first, rests in groups.items()
        )
    )


# Whether any of the markers occurs, in one search (the same answer as testing each).
_ID_MARKER = _any_of(_ID_MARKERS)
_LINK_MARKER = _any_of(_LINK_MARKERS)
_ANY_MARKER = _any_of(_ID_MARKERS + _LINK_MARKERS)
"""Either kind: most references hold none, and one search says so for both."""


_EMPTY_BRACKETS = re.compile(r"\(\s*[.,;:]?\s*\)|\[\s*[.,;:]?\s*\]")
_LEADING_IN = re.compile(r"^(?:In|in):?\s+")
_PAGE_DASHES = re.compile(r"\s*[-–—‐]+\s*")
_LAST_WORD = re.compile(r"([^\s(\[]+)$")
_ENDS_ET_AL = re.compile(r"\bet\.?\s?al$")


def prepare(text: str) -> str:
    """One line of text: composed Unicode (NFC), no markdown emphasis and no character that
    shows nothing (:mod:`verifier.citations.invisibles`), LaTeX quotes as typographic
    ones, single spaces, no leading list number ("[12]", "12.")."""
    text = unicodedata.normalize("NFC", text[:MAX_PARSE_CHARS])  # "a" + U+0301 -> "á"
    text = text.replace("*", "")
    if not (text.isascii() and text.isprintable()):  # printable ASCII shows everything
        text = INVISIBLE.sub("", text)  # zero-width spaces, soft hyphens...
    text = text.replace("``", "“").replace("''", "”").replace(",,", "„")
    text = " ".join(text.split())
    # The pattern is anchored at the start: its one possible match is the one there.
    number = _LEADING_NUMBER.match(text)
    return text if number is None else text[number.end() :]


def strip_links(text: str) -> str:
    """``text`` without URLs, DOIs, arXiv and other identifiers and the words that
    announce them ("Retrieved from", "Available at")."""
    return " ".join(_without_links(text)[0].split())


def _without_links(text: str) -> tuple[str, bool]:
    """The substitutions of :func:`strip_links` (spaces not joined yet), and whether any
    of them replaced something."""
    lower = text.lower()
    replaced = 0
    if _ANY_MARKER.search(lower):
        if _ID_MARKER.search(lower):
            text, replaced = _URL_OR_ID.subn(_keep_closing_punctuation, text)
        if _LINK_MARKER.search(lower):
            text, count = _LINK_WORDS.subn(" ", text)
            replaced += count
    count = 0
    if _has_empty_brackets(text):
        text, count = _EMPTY_BRACKETS.subn(" ", text)
    return text, replaced + count > 0


def _has_empty_brackets(text: str) -> bool:
    """True when :data:`_EMPTY_BRACKETS` matches in ``text``: every match starts at a "("
    or "[", so it is tried at those alone (found by str.find, faster than the regex
    engine's scan of every character)."""
    for opening in "([":
        index = text.find(opening)
        while index >= 0:
            if _EMPTY_BRACKETS.match(text, index):
                return True
            index = text.find(opening, index + 1)
    return False


def clean_body(prepared: str) -> str:
    """``tidy(fix_spacing(strip_links(prepared)))`` for a text :func:`prepare` returned
    (property-tested). Such a text has single spaces and none at either end, so the
    spaces are joined again only after a substitution replaced something."""
    text, replaced = _without_links(prepared)
    if replaced:
        text = " ".join(text.split())
    if spacing_suspect(text):
        return tidy(fix_spacing(text))
    # Not suspect: fix_spacing would only join the spaces again, and tidy's search finds
    # nothing (a stop after a space is a spacing suspect), so only its strip is left.
    return text.strip(" ,;:")


def _keep_closing_punctuation(match: re.Match[str]) -> str:
    """A removed link leaves the ")" and "." that only close the sentence around it."""
    found = match.group(0)
    kept = ""
    while found and (
        found[-1] in ".,;" or (found[-1] == ")" and found.count("(") < found.count(")"))
    ):
        kept = found[-1] + kept
        found = found[:-1]
    return " " + kept


def tidy(text: str) -> str:
    """No space before ".,;" and no separator at either end."""
    if _STOP_AFTER_SPACE.search(text) is not None:  # else the substitution changes nothing
        text = _SPACE_BEFORE_STOP.sub("", text)
    return text.strip(" ,;:")


_SPACING_FIXES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\s+([,;:])", r"\1"),  # "Phys .Rev ,036003" -> "Phys .Rev,036003"
        (r"(?<=\S)\s+\.(?=[^\s.,;:)\]])", ". "),  # "Phys .Rev" -> "Phys. Rev"
        (r"\s+\.(?=[\s,;:)\]]|$)", "."),
        (r"([(\[])\s+", r"\1"),  # "( 2004)" -> "(2004)"
        (r"\s+([)\]])", r"\1"),
        (rf"([,;])(?={LETTER})", r"\1 "),  # "Muir,T.L." -> "Muir, T.L."
        (rf"\b(and|et)(?={UPPER}\s?\.)", r"\1 "),  # "andR. H." -> "and R. H."
        (rf"(?<=\s)&(?={UPPER})", "& "),
        (rf"(?<={LOWER})\?(?={UPPER}{LOWER})", "? "),
        (rf"(?<={LOWER}{LOWER})\.(?={UPPER}{LOWER})", ". "),  # "Phys.Rev" -> "Phys. Rev"
        (r"(?<=[a-z]{3})\.(?=[A-Z])", ". "),  # "at a glance.J Cell Sci", "beams.JOSAB"
        (r"(?<=[a-z)]\))\.?(?=[A-Z][a-z]{2})", ". "),  # "LM(1,p)Nucl. Phys."
        (rf"(?<={LETTER}{LETTER}\.)(?=\d)", " "),  # "Phys.56" -> "Phys. 56"
    )
)
_SPACE_BEFORE_STOP = re.compile(r"\s+(?=[.,;])")
_STOP_AFTER_SPACE = re.compile(r"[.,;](?<=\s[.,;])")
"""Where :data:`_SPACE_BEFORE_STOP` can match: a stop after a space (a pattern that
starts with the stop, so the search skips other characters quickly)."""


_SPACING_SUSPECT = re.compile(
    rf"\s[,;:.)\]]|[(\[]\s|[,;]{LETTER}|(?:and|et){UPPER}|[&?.]{UPPER}|[a-z)]\)\.?[A-Z]|\.\d"
)
"""Two or three characters that every match of a :data:`_SPACING_FIXES` pattern contains
(a space before a stop or a closing bracket, after an opening bracket; a comma, "&",
"?" or "." against a letter; "." before a digit; ")" before a capital). Text without
any is left as it is by every fix, so the fixes are skipped. :func:`spacing_suspect`
tests for it faster."""

# _SPACING_SUSPECT split in two patterns that each start with one of a few literal
# characters, which lets the regex engine skip every other position of the text without
# trying the alternatives there (about three times faster on a reference). A "\s" before
# a stop and a letter before ")" are checked by looking behind the stop or ")".
_PUNCTUATION_SUSPECT = re.compile(
    rf"\(\s|\[\s|,{LETTER}|;{LETTER}|&{UPPER}|\?{UPPER}|\.{UPPER}|\.\d|\)(?<=[a-z)]\))\.?[A-Z]"
    r"|,(?<=\s,)|;(?<=\s;)|:(?<=\s:)|\.(?<=\s\.)|\)(?<=\s\))|\](?<=\s\])"
)
# "and" or "et" against a capital, as two patterns that each start with a literal word,
# which the regex engine finds quickly (one alternation starting with "a" or "e" would be
# tried at every such letter).
_AND_SUSPECT = re.compile(rf"and{UPPER}")
_ET_SUSPECT = re.compile(rf"et{UPPER}")


def spacing_suspect(text: str) -> bool:
    """True when :data:`_SPACING_SUSPECT` occurs in ``text`` (property-tested to agree)."""
    return (
        _PUNCTUATION_SUSPECT.search(text) is not None
        or _AND_SUSPECT.search(text) is not None
        or _ET_SUSPECT.search(text) is not None
    )


def fix_spacing(text: str) -> str:
    """Undo the spacing of PDF extraction: "Phys .Rev .D 70 ,036003 ( 2004)" becomes
    "Phys. Rev. D 70, 036003 (2004)"; "andR .H" becomes "and R. H"."""
    if not spacing_suspect(text):
        # No fix can match the text, so none changes it (property-tested).
        return " ".join(text.split())
    for pattern, replacement in _SPACING_FIXES:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------
# Abbreviations and sentence boundaries

GENERAL_ABBREVIATIONS = frozenset(
    (
        "vs no nos nr vol vols ed eds edn st dr mr mrs ms jr sr inc co ltd corp dept univ pp p "
        "fig cf ca approx trans transl rev repr suppl ch chap sect pt wm bros hrsg hg bd jg "
        "ser nouv phd msc bsc sc"
    ).split()
)
"""Abbreviations of running text: a period after them does not end a sentence."""
JOURNAL_ABBREVIATIONS = frozenset(
    (
        "j am soc chem phys lett proc natl acad sci med res int eng biol psychol econ ann bull "
        "eur br clin appl environ technol mol geophys math stat comput anal rep opin curr "
        "neurosci physiol pharmacol ecol evol assoc conf symp intl annu meet mtg adv syst inf "
        "mach astron astrophys nucl instrum opt commun mod theor exp expt biochem biophys "
        "immunol microbiol virol pathol oncol cardiol surg neurol pediatr obstet gynecol dent "
        "vet agric natur zh zeitschr gesellsch inst lab ind mater mech electron electr struct "
        "chim crystallogr cryst polym org inorg catal spectrosc mat surf nanotechnol photon "
        "relativ grav cosmol part jpn chin sov ukr russ pol aust ger ital span afr amer mon "
        "roy astr geol geogr hist philos sociol anthropol polit educ ling lit stud q rec arch "
        "akad wiss ber verh abh mitt bol boll rend mem dokl izv vestn usp fiz khim nauk sb "
        "eksp teor zhurn quart bur stand tech techn publ dev manag admin softw progr lang geom "
        "topol funct comb combin probab numer optim intell artif netw robot autom recognit "
        "lect biomed pharm toxicol epidemiol nutr behav cogn humanit comm inform libr doc "
        "gen genet ecosyst sust sustain hydrol meteorol oceanogr atmos hum genom proteom bioinform "
        "endocrinol metab gastroenterol hepatol nephrol urol dermatol ophthalmol otolaryngol "
        "radiol anesth anaesth rheumatol respir pulm crit infect dis ther pharmacother "
        "psychiatr psychother rehabil sociol demogr geront gerontol nurs"
    ).split()
)
"""ISO 4 journal-title words: capitalised and followed by a period, they abbreviate
("J. Am. Chem. Soc."); only truncations are listed, since a full word may end a title."""
ABBREVIATIONS = GENERAL_ABBREVIATIONS | JOURNAL_ABBREVIATIONS
"""Both kinds (lower-case)."""


@dataclass(frozen=True, slots=True)
class Cut:
    """A sentence boundary: the left part ends before ``left`` (the mark kept separately),
    the right part starts at ``right``."""

    left: int
    right: int
    mark: str
    quotes: str

    def __init__(
        self, left: int, right: int, mark: str, quotes: str,
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)
        object.__setattr__(self, "mark", mark)
        object.__setattr__(self, "quotes", quotes)


_BOUNDARY = re.compile(r"([.?!])([\"”’'»]*)\s+(?=(\S+))")


def boundaries(text: str, *, strict: bool = True) -> Iterator[Cut]:
    """Sentence ends in ``text``: ".", "?" or "!" (and closing quotes) then a space and a
    word that is not all lower-case. With ``strict``, a period after an initial or a
    known abbreviation ("U.S.", "vs.", "J. Am. Chem.") does not end a sentence."""
    for match in _BOUNDARY.finditer(text):
        mark, quotes, following = match.group(1, 2, 3)
        # "e.g. the" continues the sentence; "arXiv" or "eLife" may start a new one.
        if following[0].islower() and not any(c.isupper() for c in following):
            continue
        left = match.start()
        if mark == "." and strict and _abbreviation_before(text, left):
            continue
        yield Cut(left, match.end(), mark, quotes)


def ends_with_abbreviation(left: str) -> bool:
    """True when the last word of ``left`` would keep a period that follows it: an
    initial, a word with an inner period ("U.S", "Ph.D") or a known abbreviation."""
    return _abbreviation_before(left, len(left))


def _abbreviation_before(text: str, end: int) -> bool:
    """:func:`ends_with_abbreviation` of ``text[:end]``, without copying it: the searches
    end at ``end``, where "$" then matches as at the end of the copy."""
    # A match holds no space or bracket, so it starts after the last " ", "(" or "[":
    # searching from there finds the same word without scanning the whole text.
    after = max(text.rfind(" ", 0, end), text.rfind("(", 0, end), text.rfind("[", 0, end)) + 1
    word = _LAST_WORD.search(text, after, end)
    if word is None or text.endswith((")", "]"), 0, end):
        return False
    token = word.group(1)
    if "." in token.strip(".") and not token.strip(".")[-1:].isdigit():
        return True  # "U.S", "e.g", "Ph.D" (but not "version 1.2")
    letters = token.strip(".,;:\"'“”")
    if len(letters) == 1 and letters.isalpha() and letters.isupper():
        return True  # an initial
    if letters == "al":
        return bool(_ENDS_ET_AL.search(text, 0, end))
    lower = letters.lower()
    return lower in GENERAL_ABBREVIATIONS or (
        letters[:1].isupper() and lower in JOURNAL_ABBREVIATIONS
    )


def left_of(text: str, cut: Cut) -> str:
    """The text left of a boundary, keeping "?" / "!" and any closing quotes."""
    keep = cut.mark if cut.mark in "?!" else ""
    return text[: cut.left] + keep + cut.quotes


def first_boundary(text: str, *, periods_first: bool) -> Cut | None:
    """The first sentence boundary; with ``periods_first`` the first "." boundary is
    preferred (a book title is more likely to contain "?" than a publisher name)."""
    return first_of(list(boundaries(text)), periods_first=periods_first)


def first_of(cuts: list[Cut], *, periods_first: bool) -> Cut | None:
    """What :func:`first_boundary` chooses among ``cuts``, the boundaries of a text in
    order (for a caller that has them already)."""
    if not cuts:
        return None
    if periods_first:
        for cut in cuts:
            if cut.mark == ".":
                return cut
    return cuts[0]


def sentences(text: str) -> list[str]:
    """``text`` cut at every sentence boundary, pieces stripped, empty pieces dropped."""
    pieces: list[str] = []
    start = 0
    for cut in boundaries(text):
        pieces.append(left_of(text[: cut.right], cut)[start:])
        start = cut.right
    pieces.append(text[start:])
    return [p.strip(" .,;") for p in pieces if p.strip(" .,;")]


# ---------------------------------------------------------------------------------------
# Cleaners

OPEN_QUOTES = {'"': '"”', "“": '”"', "„": '“”"', "«": "»", "”": '”"', "‘": "’'", "'": "'’"}
CLOSE_QUOTE_CHARS = "\"”’'»"


def clean_title(title: str) -> str:
    """A title without surrounding punctuation, a final period or enclosing quotes."""
    title = " ".join(title.split()).strip(" ,;:")
    for _ in range(2):
        if title.endswith(".") and not ends_with_abbreviation(title[:-1]):
            title = title[:-1].rstrip(" ,;:")
        if len(title) >= 2 and title[0] in OPEN_QUOTES and title[-1] in CLOSE_QUOTE_CHARS:
            inner = title[1:-1]
            if not any(q in inner for q in '"“”'):
                title = inner.strip(" .,")
    if title[:1] in "“‘«" and not any(q in title[1:] for q in "”’»"):
        title = title[1:]  # an opening quote whose title was cut before its end
    if title.endswith(("”", "’", "»")) and not any(q in title for q in "“‘«"):
        title = title[:-1].rstrip(" .,")
    return title.strip(" ,;:")


def clean_segment(segment: str) -> str:
    """A container or publisher without surrounding punctuation, a leading "In" or a final
    sentence period (an abbreviation keeps its period)."""
    if not segment:
        return segment  # most publishers and places: nothing to clean
    segment = " ".join(segment.split()).strip(" ,;:")
    if segment.startswith(("In", "in")):  # else _LEADING_IN cannot match
        segment = _LEADING_IN.sub("", segment)
    if segment.endswith(".") and (
        not ends_with_abbreviation(segment[:-1]) or "." not in segment[:-1]
    ):
        segment = segment[:-1].rstrip(" ,;:")  # "N Engl J Med." ends a Vancouver sentence
    if segment.endswith(")") and segment.count("(") < segment.count(")"):
        segment = segment[:-1].rstrip(" ,;:")
    if segment.startswith("(") and segment.count("(") > segment.count(")"):
        segment = segment[1:].lstrip()
    return segment


def clean_pages(pages: str) -> str:
    """Pages with one plain hyphen for any dash: "82--96" -> "82-96"."""
    pages = pages.strip(" .,")
    if "-" in pages:
        # One hyphen between letters and digits ("1716-1726", most pages) is replaced by
        # itself: no space or other dash stands next to it.
        if pages.count("-") == 1 and pages.replace("-", "").isalnum():
            return pages
        return _PAGE_DASHES.sub("-", pages)
    if "–" in pages or "—" in pages or "‐" in pages:  # else nothing to replace
        pages = _PAGE_DASHES.sub("-", pages)
    return pages
