"""Numeric tails: the volume, issue, pages and date that end a journal reference.

"Phys. Rev. D 70, 036003 (2004)", "12(3), 45-67", "2019;3(2):1-9", "vol. 3, no. 2,
pp. 1-9, 2019", "Journal 2001, 86, (4), 688-691", "제22권, 제2호": :func:`peel_tail` finds
the tail at the end of a text and assigns its items; the text before it (``pre``) holds
the title and the journal name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .parsed import Parsed
from .text import (
    MONTH,
    MONTHS,
    YEAR,
)

NUMBER = (
    r"(?-i:[A-Z]{1,2}|[a-z]{1,4})?\d++[A-Za-z]?+(?:\.\d+)?"
    r"(?:\s?[-–—‐]+\s?(?-i:[A-Z]{1,2}|[a-z]{1,4})?\d++[A-Za-z]?+)?"
)
_ROMAN = r"(?:[IVXLC]{1,6})"
_LABEL_WORDS = (
    r"(?:vol(?:ume)?s?\.?|v\.|bd\.?|tome|t\.|nos?\.?|nr\.?|n°|n\.|num\.?|issue|heft|"
    r"pp\.?|p\.|p(?=\s\d)|pages?|pgs?\.?|S\.|art(?:icle)?\.?(?:\s?(?:no|id)\.?)?|suppl(?:ement)?\.?|pt\.?|"
    r"part|ser\.?|série|series|fasc\.?|sect?\.?|paper)"
)
_LABEL = rf"(?P<label>{_LABEL_WORDS})"
_PYEAR = (
    rf"\((?:{MONTHS}\s?,?\s?)?(?:\d{{1,2}}\s?,?\s?)?(?P<py>{YEAR})[a-z]?\)"  # (2004), (Dec, 2010)
)
_DATE = (
    rf"(?:\d{{1,2}}\s)?{MONTHS}[\s,]*(?:\d{{1,2}}(?:\s?[-–]\s?\d{{1,2}})?[\s,]*)?(?P<dy>{YEAR})"
    rf"[a-z]?|(?P<dy2>{YEAR})\s{MONTH}(?:\s\d{{1,2}})?"
)
_CJK_LABEL = r"[제第]\s?(?P<cval>\d+)\s?(?P<ckind>[권卷호號집輯期巻号])"
_ITEM_PARTS = re.compile(
    rf"(?P<pyear>{_PYEAR})"
    rf"|(?P<pmonth>\({MONTHS}\))"
    rf"|(?P<date>{_DATE})"
    r"|(?P<suppl>suppl(?:ement)?\b\.?)"
    rf"|{_CJK_LABEL}"
    rf"|(?<![^\W\d_]){_LABEL}\s?(?P<lval>{NUMBER}|{_ROMAN}\b|\(\d+\))"
    r"|\((?P<paren>[^()]{0,12}\d[^()]{0,12})\)"
    rf"|(?P<num>{NUMBER})",
    re.I,
)
_ITEM = re.sub(r"\(\?P<\w+>", "(?:", _ITEM_PARTS.pattern)
_TAIL = re.compile(
    rf"(?:^|(?<=[\s,;:.()])|(?-i:(?<=[a-z]{{3}}))(?=\d)|(?<=[^\W\d_])(?=\())(?!suppl)"
    rf"(?P<tail>(?:{_ITEM})(?:[\s,;:.]*(?:{_ITEM}))*)[\s,;:.]*$",
    re.I,
)
_NUMBER_TAIL = re.compile(_TAIL.pattern.replace(_ITEM, NUMBER), re.I)
""":data:`_TAIL` with numbers for items: the same match on a :data:`_PLAIN_NUMBERS` text
(see there)."""
_NUMBER_ITEM = re.compile(NUMBER, re.I)
_PLAIN_NUMBERS = re.compile(r"(?:[0-9 ,;:.\-–—‐]|e(?=[0-9]))*")
"""Text that holds only numbers, spaces, dashes and the stops between them ("12, 45-67",
"50, e26439"). On it, every alternative of an item but the number needs a character it
lacks (a bracket, a month, a label, a CJK sign; no label or month starts with "e" before
a digit), so an item is exactly a :data:`NUMBER` wherever it starts: the cheaper
:data:`_NUMBER_TAIL` and :data:`_NUMBER_ITEM` find what :data:`_TAIL` and
:data:`_ITEM_PARTS` find (property-tested)."""
_WORD = re.compile(r"(?<!\w)[^\W\d_]{2,}(?!\w)")
_LAST_WORD = re.compile(rf".*({_WORD.pattern})", re.S)
"""The last :data:`_WORD` (group 1) of the text a match is given."""
_TAIL_WORDS = frozenset(
    (
        "vol vols volume volumes bd tome no nos nr num issue heft pp pg pgs pages page art "
        "article id suppl supplement pt part ser série series fasc sect sec paper th st nd rd "
        "jan january feb february mar march apr april may jun june jul july aug august sep "
        "sept september oct october nov november dec december spring summer autumn fall "
        "winter janv janvier févr février mars avr avril mai juin juil juillet août septembre "
        "octobre novembre déc décembre januar februar märz juni juli oktober dezember enero "
        "febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre "
        "gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre"
    ).split()
)
_TAIL_WINDOW = 200
_PAREN_WITH_DIGIT = re.compile(r"\([^()]*\d[^()]*\)")
_ROMAN_WORD = re.compile(r"[IVXLC]+")


def _tail_search_start(text: str) -> int:
    """Where a numeric tail can begin at the earliest: after the last word that is not a
    label, month or roman numeral ("Phys. Rev. D 70" -> after "Rev"). Searching only
    from there keeps the tail search short."""
    start = max(0, len(text) - _TAIL_WINDOW)
    # Words in brackets with a number ("(serial no. 220)", "(Suppl 2 UCTN)") may be part
    # of the tail: blank them out, keeping the offsets.
    if "(" in text:
        text = _PAREN_WITH_DIGIT.sub(lambda m: " " * len(m.group(0)), text)
    # The words (runs of two letters or more between non-word characters) from the last
    # one back: each found by one match whose greedy ".*" backs off from the end, so
    # only the text after the word is looked at, and no earlier word is made a match.
    # A word never ends where the previous one (a letter after a non-word character)
    # starts, so ending the text there (``end``) hides no word.
    end = len(text)
    while (word := _LAST_WORD.match(text, start, end)) is not None:
        token = word.group(1)
        # A roman numeral: letters of "IVXLC" alone (what _ROMAN_WORD.fullmatch tests).
        if token.lower() not in _TAIL_WORDS and token.strip("IVXLC"):
            return word.end(1)
        end = word.start(1)
    return start


_NOT_AN_ITEM_START = " ,;:."
"""Characters no match of the ``tail`` group of :data:`_TAIL` starts with (its items start
with a letter, a digit, a bracket or a CJK sign; property-tested)."""


_PAGE_LABELS = ("p", "pp", "page", "pages", "pg", "pgs", "s", "art", "article", "paper")
_ISSUE_LABELS = (
    *("no", "nos", "nr", "n°", "num", "issue", "heft", "suppl", "supplement", "pt", "part"),
    *("fasc", "n"),
)
_YEAR_ONLY = re.compile(rf"^{YEAR}$")


@dataclass(slots=True)
class Tail:
    """A numeric tail: the text before it (``pre``) and what it gives."""

    pre: str
    volume: str = ""
    issue: str = ""
    pages: str = ""
    year: int | None = None

    def __init__(
        self, pre: str, volume: str = "", issue: str = "", pages: str = "",
        year: int | None = None,
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        self.pre = pre
        self.volume = volume
        self.issue = issue
        self.pages = pages
        self.year = year

    @property
    def journal(self) -> bool:
        """True when the tail gives a volume, issue or pages (a year alone does not)."""
        return bool(self.volume or self.pages or self.issue)


def peel_tail(text: str, known_year: int | None = None, *, notes_settled: bool = False) -> Tail:
    """Split ``text`` into what precedes its numeric tail and the tail's fields. With
    ``known_year`` (the date after the authors), a leading or trailing 4-digit number is
    only taken for the year when it is that year ("Periodontology 2000, 62(1), 7-9").
    ``notes_settled``: ``text`` is already what :func:`strip_notes` returned as settled,
    so its notes are not looked for again."""
    stripped = text if notes_settled else strip_trailing_notes(text)
    start = _tail_search_start(stripped)
    if not stripped[start:].strip(_NOT_AN_ITEM_START):
        # (Most books) only stops or nothing after the last word: a tail starts after it
        # and with a letter, digit or bracket, so there is none.
        return Tail(stripped)
    numbers = _PLAIN_NUMBERS.fullmatch(stripped, start) is not None
    match = (_NUMBER_TAIL if numbers else _TAIL).search(stripped, start)
    if match is None:
        return Tail(stripped)
    pre = stripped[: match.start()]
    if numbers:
        tail = Tail(pre)
        _assign_plain(tail, _NUMBER_ITEM.findall(match.group("tail")), known_year)
        _move_series_letter(tail)
    else:
        tail = _interpret(match.group("tail"), pre, known_year)
    if tail.pages and not tail.volume and is_year_range(tail.pages):
        return Tail(stripped)  # "The South African War, 1899-1902"
    return tail


_TRAILING_NOTE = re.compile(
    r"\s*(?:\[[^\[\]]*\]|\((?:in\s*\w+|\w+\s+translation|to appear|in press|"
    r"submitted|forthcoming|accepted|erratum[^()]*|abstract|(?:rist|rpt|repr|reprint|"
    r"reprinted|orig|\d+(?:st|nd|rd|th)\s+ed)\b[^()]*)\)"
    r"|,?\s*(?:to\s+appear|in\s+press|submitted|forthcoming|accepted|in\s+preparation)"
    r"|,?\s*and\s+references\s+therein|,?\s*\(?in\s+(?:Russian|Japanese|Chinese|"
    r"German|French|Korean|Spanish|Italian|Portuguese|Polish|Czech|Swedish)\)?)\s*\.?$",
    re.I,
)
_NOTE_WORD_ENDINGS = (
    "appear", "press", "submitted", "forthcoming", "accepted", "preparation", "therein",
    "russian", "japanese", "chinese", "german", "french", "korean", "spanish", "italian",
    "portuguese", "polish", "czech", "swedish",
)
"""The words a :data:`_TRAILING_NOTE` match without a closing bracket ends with."""


def may_end_in_note(text: str) -> bool:
    """False only when :data:`_TRAILING_NOTE` cannot match ``text``: every match ends,
    before an optional space and period, in "]", ")" or one of
    :data:`_NOTE_WORD_ENDINGS` ("press" only after "in" and a space). Conservative
    (True) for a final newline, which ``$`` may stand before, and for non-ASCII text near
    the end, which case-insensitive matching may read as ASCII letters ("ſ" as "s")."""
    if text.endswith("\n"):
        return True
    full = text[:-1] if text.endswith(".") else text
    full = full.rstrip()  # the pattern's \s: the same Unicode spaces
    end = full[-12:]  # the longest ending word has 11 letters
    if not end.isascii():
        return True
    last = end[-1:]
    if last in (")", "]"):
        return True
    lower = end.lower()
    if not (last.isalpha() and lower.endswith(_NOTE_WORD_ENDINGS)):
        return False
    if lower.endswith("press"):
        # "press" ends a note only as "in", spaces, "press" (no word boundary before
        # "in": "Berlin Press" too), so "University Press" ends in none.
        stem = full[:-5]
        before = stem.rstrip()
        tail_letters = before[-2:]
        spaced = len(before) < len(stem)
        return spaced and (tail_letters.lower() == "in" or not tail_letters.isascii())
    return True


def strip_trailing_notes(text: str) -> str:
    """``text`` without trailing "[Sov. Phys. JETP 7, 172 (1958)]", "(in Russian)"."""
    return strip_notes(text)[0]


def strip_notes(text: str) -> tuple[str, bool]:
    """:func:`strip_trailing_notes` of ``text``, and whether that is settled: stripping
    it again would leave it as it is (False only when the three rounds all removed a
    note, so a fourth might remove another)."""
    text = text.strip(" .,;")
    for _ in range(3):
        if not may_end_in_note(text):
            return text, True  # the substitution below would leave the text as it is
        stripped = _TRAILING_NOTE.sub("", text)
        if stripped == text:
            return text, True
        text = stripped.strip(" .,;")
    return text, False


_LETTERED_VOLUME = re.compile(r"([A-Z])(\d+)")
_DOTTED_NUMBER = re.compile(r"\d+\.\d+")
_DASH = re.compile(r"[-–—]")
_YEAR_RANGE = re.compile(r"(\d{4})\s?[-–]\s?(\d{2,4})")


def _interpret(tail: str, pre: str, known_year: int | None) -> Tail:
    """Assign the items of a tail to year, volume, issue and pages."""
    result = Tail(pre)
    plain: list[str] = []
    previous = ""
    for item in _ITEM_PARTS.finditer(tail):
        kind, previous = previous, item.lastgroup or ""
        year = item.group("py") or item.group("dy") or item.group("dy2")
        if year:
            result.year = result.year or int(year)
        elif item.group("pmonth") or item.group("suppl"):
            continue
        elif item.group("ckind"):
            volume = item.group("ckind") in "권卷집輯巻"
            _apply_label(result, "vol" if volume else "no", item.group("cval"))
        elif item.group("label"):
            _apply_label(result, item.group("label"), item.group("lval"))
        elif item.group("paren"):
            if kind == "num" and not result.issue:
                result.issue = item.group("paren").strip()  # "76(2)"
            elif not plain and not result.volume and not result.pages:
                result.pre = f"{result.pre} ({item.group('paren')})"  # "Bull. Sci. (5) 74"
        elif item.group("num"):
            plain.append(item.group("num"))
    _assign_plain(result, plain, known_year)
    _move_series_letter(result)
    return result


def _move_series_letter(result: Tail) -> None:
    """ "Phys. Rev. D95": the series letter of a volume with pages belongs to the journal."""
    if not result.pages or not "A" <= result.volume[:1] <= "Z":
        return  # a match starts with a capital A-Z
    lettered = _LETTERED_VOLUME.fullmatch(result.volume)
    if lettered:
        result.pre = f"{result.pre.rstrip(' ,')} {lettered.group(1)}"
        result.volume = lettered.group(2)


def _apply_label(result: Tail, label: str, value: str) -> None:
    key = label.lower().rstrip(".").replace(" ", "")
    value = value.strip("()")
    if key.startswith(_PAGE_LABELS):
        result.pages = result.pages or value
    elif key.startswith(_ISSUE_LABELS):
        result.issue = result.issue or value
    elif key.startswith(("vol", "v", "bd", "t", "tome")):
        result.volume = result.volume or value
    elif not result.volume:
        result.volume = value  # series, section: as good a volume as any


def _assign_plain(result: Tail, plain: list[str], known_year: int | None) -> None:
    """Unlabelled numbers: a year first or last, then volume, issue, pages in order."""
    labelled = bool(result.volume or result.pages)
    if (
        known_year
        and len(plain) >= 3
        and _year_only(plain[0])
        and not _is_year(plain[0], known_year)
    ):
        result.pre = f"{result.pre.rstrip(' ,')} {plain.pop(0)}"  # "Periodontology 2000, 62(1)"
    if result.year is None and (len(plain) >= 2 or (plain and labelled)):
        if _is_year(plain[0], known_year) and (len(plain) == 1 or not _year_only(plain[1])):
            result.year = int(plain.pop(0))
        elif _is_year(plain[-1], known_year):
            result.year = int(plain.pop())
    if len(plain) == 1 and _year_only(plain[0]) and not (result.volume or result.pages):
        result.year = result.year or int(plain[0])
        return
    # (A match holds a period.)
    if plain and "." in plain[0] and _DOTTED_NUMBER.fullmatch(plain[0]) and result.year and (
        not result.issue
    ):
        result.volume, result.issue = plain.pop(0).split(".")  # MLA "12.3 (2019): 45-67"
        if plain:
            result.pages = result.pages or plain[-1]
        return
    slots = [
        slot
        for slot, value in (
            ("volume", result.volume), ("issue", result.issue), ("pages", result.pages)
        )
        if not value
    ]
    if len(plain) == 1:
        target = "pages" if (_DASH.search(plain[0]) or result.volume) else "volume"
        if target in slots:
            setattr(result, target, plain[0])
        return
    if len(plain) == 2 and "issue" in slots and len(slots) == 3:
        slots.remove("issue")
    for slot, value in zip(slots, plain[:1] + plain[1:][-(len(slots) - 1) :], strict=False):
        setattr(result, slot, value)


def _is_year(value: str, known_year: int | None) -> bool:
    """A 4-digit year that is ``known_year`` when one is known."""
    return _year_only(value) and known_year in (None, int(value))


def _year_only(value: str) -> bool:
    """Whether :data:`_YEAR_ONLY` matches ``value``: never unless it starts with the "1"
    or "2" every year starts with (most volumes and pages do not)."""
    return value[:1] in ("1", "2") and _YEAR_ONLY.match(value) is not None


def is_year_range(text: str) -> bool:
    """ "1889–1930" (not "1058-1059", a page range)."""
    match = _YEAR_RANGE.fullmatch(text)
    return match is not None and int(match.group(1)) >= 1400 and len(match.group(2)) != 3


def apply_tail(parsed: Parsed, tail: Tail) -> None:
    """Fill volume, issue, pages and a missing year from ``tail``."""
    parsed.volume = parsed.volume or tail.volume
    parsed.issue = parsed.issue or tail.issue
    parsed.pages = parsed.pages or tail.pages
    if tail.year is not None and parsed.year is None:
        parsed.year = tail.year
