"""Author lists: the names at the start of a reference, in any of the common forms.

One name is written in one of these forms:

====  =========================  ==========================================
form  shape                      examples
====  =========================  ==========================================
A     initials, family           "G. Pappas", "J.-P. Serre", "C. Le Quéré"
B     family, comma, initials    "Bergk, V.", "Yoon, Y. G.", "van Dijk, J."
C     family, initials           "Galli SJ", "Tremaine S.", "Faber S.M."
D     given names, family        "Rui Lin", "Daniela M. Witten"
E     family, comma, given       "Antonetta, Susanne", "Triner, Gail D."
K     Han / Hangul / kana        "김영기", "高倉洋章"
S     family alone               "Shen" (only before "et al." or a date)
====  =========================  ==========================================

A list keeps to one form, with the usual mixtures: after a B or E name the others may
be A or D ("Baer, D.G., G.A. Heath, and T.L. Richard"; "Smith, John, and Mary Jones").
Names are separated by ",", ";", "/", "and", "&" (and "et", "und", "e", "y"); a name
after a conjunction ends the list unless another conjunction follows (BibTeX's "A and B
and C"). "et al." (or "…") may end it. Each name must be followed by a separator or the
end of the author block (punctuation, a bracket, a quote, a year), so a title that
merely starts like a name is not taken for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.citations.models import Author

from .text import ABBREVIATIONS, CJK, LETTER, LOWER, UPPER, YEAR, boundaries

_APOSTROPHE = "['’`´]"
# A capitalised word: a capital, then letters and apostrophes, each apostrophe between
# letters ("O'Brien"); it matches what "(?:L|'(?=L))*L" matches, trying the same lengths
# in the same order (property-tested). Its runs of letters are possessive ("++"): what
# follows a word, a name or a given name in the patterns below (a space, a hyphen, an
# apostrophe, a comma, the end of a name) never starts with a letter, so giving back
# letters can never lead to a match. Failing to read a name (as most forms do at most
# names) then costs one try per word instead of one per letter. An apostrophe and its
# letters may still be given back: "Boston's" can end a name before a quote.
_WORD = rf"(?:{UPPER}(?:{LETTER}++(?:{_APOSTROPHE}{LETTER}++)*|(?:{_APOSTROPHE}{LETTER}++)+))"
_SURNAME_WORD = rf"(?:{_WORD}(?:\s?[-‐]\s?(?:{_WORD}|{LOWER}{{2,}}+))*)"
_PARTICLE_WORDS = (
    r"van|von|vander|der|den|de|del|della|dei|degli|di|da|du|des|dos|das|do|la|le|lo|ter|ten|"
    r"te|zu|zum|zur|bin|ibn|al|el|dalla|delle|Van|Von|Der|Den|De|Del|Della|Di|Da|Du|Des|Dos|"
    r"Das|La|Le|Lo|Ter|Ten|Mac|St\.?|Ste\.?|San|Santa|Dalla"
)
# The look-ahead holds the first letter of every alternative: where none stands, the
# alternatives are not tried one by one (property-tested to change no match).
_PARTICLE = (
    rf"(?:(?=['’DLMSTVabdeiltvz])(?:(?:{_PARTICLE_WORDS})\s|(?:[dDlL]|dell)['’]\s?|['’]t\s))"
)
_SURNAME1 = rf"(?:{_PARTICLE}*{_SURNAME_WORD})"
_SURNAME2 = rf"(?:{_PARTICLE}*{_SURNAME_WORD}(?:\s{_PARTICLE}*{_SURNAME_WORD})?)"
_INITIAL = rf"(?:{UPPER}{LOWER}?\.)"
# "J.", "J. R.", "M.R.", "J.-P.", "J-P.", "Ch."
_INITIALS = rf"(?:(?:{_INITIAL}\s?(?:[-‐]\s?)?|{UPPER}[-‐])*{_INITIAL})"
# B-form initials may lack the last period before a separator: "Ouellett, M. L, Stanley".
_INITIALS_B = rf"(?:{_INITIALS}|(?:{_INITIAL}\s?(?:[-‐]\s?)?)*{UPPER}(?=\s?[,;&]|\s(?:and|et)\s))"
_BARE_INITIALS = rf"(?:{UPPER}{{1,4}}(?!{LETTER})|(?:{UPPER}\s){{1,3}}{UPPER}(?![\w.]))"
_GIVEN = rf"(?:{UPPER}{LOWER}++(?:[-‐]{UPPER}?{LOWER}++)?)"
"""A given name; its letters possessive for the reason given at :data:`_WORD`."""
# Given names after "Family,": "John", "Kai Ming", "Gail D.", "Mário de", "E. Allen".
_GIVEN_E = (
    rf"(?:{_GIVEN}(?:\s{_GIVEN}){{0,2}}(?:\s(?:{_INITIALS}|{UPPER}(?![\w.’'])))?"
    rf"(?:\s(?:de|da|van|von|der|du|del|della|di))?|{_INITIALS}\s{_GIVEN})"
)
# Given names before the family name: "Rui", "Daniela M.", "Johan J", "Kai Ming".
_GIVEN_D = rf"(?:(?:{UPPER}\s)?{_GIVEN}(?:\s(?:{_GIVEN}|{_INITIALS}|{UPPER}(?![\w.’']))){{0,2}})"
_SUFFIX = rf"(?:,?\s(?:Jr|JR|Sr|SR|II|III|IV|2nd|3rd)\b\.?(?!,\s?{UPPER}\.))"
# After a name: a separator, the end of the block, or (after an initial) a space.
_NAME_END = (
    r"(?:(?<=\.)(?=\s)|(?=\s?(?:[.,;:&(\[/…]|$|\(?(?:1[5-9]\d\d|20[0-3]\d)(?!\d)|[\"“”‘'«]|[-–—]\s"
    r"|\s(?:and|AND|und|et|ET|e|y)\s"
    r"|\s[-–—])))"
)

_FORMS: dict[str, re.Pattern[str]] = {
    "A": re.compile(rf"(?P<given>{_INITIALS})\s?(?P<family>{_SURNAME2}){_SUFFIX}?{_NAME_END}"),
    "B": re.compile(rf"(?P<family>{_SURNAME2}),\s?(?P<given>{_INITIALS_B}){_SUFFIX}?{_NAME_END}"),
    "C": re.compile(
        rf"(?P<family>{_SURNAME2})\s(?P<given>{_INITIALS}|{_BARE_INITIALS}|\({_INITIALS}\))"
        rf"{_SUFFIX}?{_NAME_END}"
    ),
    "D": re.compile(rf"(?P<given>{_GIVEN_D})\s(?P<family>{_SURNAME1}){_SUFFIX}?{_NAME_END}"),
    "E": re.compile(rf"(?P<family>{_SURNAME2}),\s?(?P<given>{_GIVEN_E}){_NAME_END}"),
    "K": re.compile(rf"(?P<family>{CJK}{{2,8}})(?!{CJK}){_NAME_END}"),
    "S": re.compile(rf"(?P<family>{_SURNAME2})"),
    # An initial without its period before the family name: "V Harinarayan" (in a list).
    "a": re.compile(rf"(?P<given>{UPPER}{{1,2}})\s(?P<family>{_SURNAME1}){_NAME_END}"),
    # Inside a Vancouver list only: a family name the forms above reject (mangled
    # characters, "van EM") before bare initials: "SchÃ¤ffer AA", "van B-B".
    "L": re.compile(
        r"(?P<family>[^\W\d_][^,;.()\d]{0,40}?)\s(?P<given>(?:[A-Z]\.\s?)+|[A-Z]{1,4}|[A-Z]-[A-Z])"
        r"(?=\s?[,;.]|\s(?:and|&)\s)"
    ),
}
_FIRST_WORD_COMMA = re.compile(
    rf"{UPPER}{LETTER}*+,\s?(?P<given>{UPPER}{LOWER}|{_INITIALS}\s)?"
)
"""A first word of letters alone, then a comma: no name in form A, C, D, K or a starts
there (each needs a space, hyphen, period or apostrophe after its first word, or a CJK
character first), and one in form E only when ``given`` matches (the start of every
:data:`_GIVEN_E`). Property-tested."""
_WITH_GIVEN = frozenset(form for form, pattern in _FORMS.items() if "given" in pattern.groupindex)
"""The forms whose pattern reads given names."""
_FOLLOWERS = {
    "A": "ADa",
    "B": "BAD",
    "C": "CL",
    "D": "DAa",
    "E": "EDA",
    "K": "K",
    "S": "S",
    "a": "aAD",
}
_FIRST_FORMS = "BCAEDKa"
_LONG_LIST_ONLY = "a"
"""First forms that only count for a list of three names or more ("G Courties, V
Seiffart, J Presumey"): alone, "A Study" could start a title."""

_SEPARATOR = re.compile(
    r"\s?(?:[,;]\s?(?P<c1>and|AND|&|und|et|ET|e|y)\s|(?P<semi>;)\s?|,\s?|\s?(?P<c2>&)\s?"
    r"|\s(?P<c3>and|AND|und|et|ET|e|y|и)\s|\s?(?P<slash>/)\s?|\s?[，、·]\s?"
    rf"|(?<={CJK})[.\s](?={CJK})|(?P<dot>\.\s)(?=[A-Z]{{2,}}[\w-]*,))"
)
_ELLIPSIS_GAP = re.compile(r"(?P<c1>)(?P<c2>)(?P<c3>)(?P<slash>)(?P<semi>)(?P<dot>)\s+(?=\S)")
# The look-ahead holds the first letter of every alternative (matched case-insensitively,
# "ı" and "İ" as "i" too): where none stands, the alternatives are not tried one by one.
_ET_AL = re.compile(
    r"\s?,?\s?(?:&\s?)?(?=[eaui&иy….(])(?:et\.?\s?al(?:ii|ia)?\b\.?|and\s+others\b|&\s+others\b|u\.\s?a\.|"
    r"a\s+kol\.|i\s+in\.|и\s+др\.|et\s+coll?\.|y\s+col\.|e\s+col\.|…|\.\.\.|\(\.\.\.\))",
    re.I,
)
_ET_AL_OR_SEPARATOR = re.compile(rf"(?P<etal>(?i:{_ET_AL.pattern}))|{_SEPARATOR.pattern}")
""":data:`_ET_AL` (group ``etal``) where it matches, else :data:`_SEPARATOR`: the two
tried in turn by one match (property-tested)."""
_ROLE = re.compile(
    r"\s?,?\s?(?:\((?:eds?|editors?|hrsg|hg|dirs?|coords?|comps?)\.?\)|(?:eds?|editors?|Hrsg|Hg)\.?"
    r"(?=[\s.,:;]|$))",
    re.I,
)
_BLOCK_END = re.compile(r"\s?(?:[.,:;]|\(|\[|$|[\"“”‘'«]|[-–—]|\s?\d)")
# What may follow a lone given-first name ("Derek Bruening. Title") or family-first one.
_LONE_END = {
    "D": re.compile(rf"\s?(?:[.,:]|$|\s\(?{YEAR}\b|[\"“‘'«])"),
    "E": re.compile(rf"\s?(?:[.,:;(]|$|\s\(?{YEAR}\b|[\"“‘'«])"),
}

_NOT_NAMES = frozenset(
    (
        "the of on in and for to with from by at as is are was were new its how what why "
        "when where who which this that these those towards toward into over under between "
        "journal proceedings review letters university press institute department report "
        "introduction handbook international national american british european annual "
        "advances studies study analysis theory applications physics chemistry biology science "
        "sciences research society conference symposium workshop technical vol volume part "
        "chapter edition thesis paper working notes guide manual history world health "
        "organization association committee council agency office bureau center centre group "
        "institut universite universität commission ministry service foundation library "
        "museum school college academy company corporation inc ltd network project program "
        "programme survey data software system systems model models method methods editions"
    ).split()
)


@dataclass(frozen=True, slots=True)
class AuthorScan:
    """The author list found at the start of a text and where it ends."""

    authors: tuple[Author, ...]
    et_al: bool
    end: int
    """Offset in the text just after the list (and any "et al." or "(eds.)")."""
    editors: bool = False
    """The list was marked as editors ("(Eds.)", "ed."): the work is edited, not written."""
    form: str = ""
    clean_end: bool = False
    """The list is followed by punctuation, not only by the period of a last initial."""

    def __init__(
        self, authors: tuple[Author, ...], et_al: bool, end: int, editors: bool = False,
        form: str = "", clean_end: bool = False,
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        object.__setattr__(self, "authors", authors)
        object.__setattr__(self, "et_al", et_al)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "editors", editors)
        object.__setattr__(self, "form", form)
        object.__setattr__(self, "clean_end", clean_end)


def scan_authors(text: str, start: int = 0) -> AuthorScan | None:
    """The author list at ``text[start:]``, or None when the text does not start with a
    name. Of the readings in the forms above, the one with most names wins; among equals,
    one followed by punctuation, then the first form in the order B, C, A, E, D, K."""
    best: AuthorScan | None = None
    forms = _FIRST_FORMS
    word_comma = _FIRST_WORD_COMMA.match(text, start)
    if word_comma is not None:
        # "Savage, N., ...": a first word of letters alone before a comma is the family
        # name of a B or E name, and of E only when given names may follow.
        forms = "BE" if word_comma.group("given") is not None else "B"
    for form in forms:
        first = _FORMS[form].match(text, start)
        if first is None:
            continue  # no first name in this form: no list (most forms, at most texts)
        scan = _scan(text, start, form, first)
        if scan is not None and form in _LONG_LIST_ONLY and len(scan.authors) < 3:
            continue
        if scan is not None and (best is None or _rank(scan) > _rank(best)):
            best = scan
    if best is None:
        best = _scan_surnames(text, start)
    return best


def _rank(scan: AuthorScan) -> tuple[int, bool, int]:
    return len(scan.authors), scan.clean_end, scan.end


_PUNCTUATED = re.compile(r"\s?[,.;:(&/]")


def _name_at(text: str, pos: int, forms: str) -> tuple[Author, int, str] | None:
    """The name in one of ``forms`` that starts at ``pos``: (author, end, form). A reading
    followed by punctuation is preferred ("Robert Craft, Memories and ..." is the name
    "Robert Craft", not "Craft, Memories"); otherwise the first form in ``forms`` wins."""
    fallback: tuple[Author, int, str] | None = None
    for form in forms:
        match = _FORMS[form].match(text, pos)
        if match is None:
            continue
        found = _reading(text, match, form)
        if found is None:
            continue
        end = found[1]
        if text[end - 1] == "." or _PUNCTUATED.match(text, end):
            return found
        fallback = fallback or found
    return fallback


def _reading(text: str, match: re.Match[str], form: str) -> tuple[Author, int, str] | None:
    """The name a match of form ``form`` read: (author, end, form), or None when it is
    not plausibly a name (:func:`_plausible`)."""
    if form in _WITH_GIVEN:
        family, read = match.group("family", "given")
        given = " ".join((read or "").strip("()").split())
    else:
        family, given = match.group("family"), ""
    family = " ".join(family.split())
    end = match.end()
    if not _plausible(family, given, form, text, end):
        return None
    return Author(family, given), end, form  # (family, given): positional is cheaper


def _plausible(family: str, given: str, form: str, text: str, end: int) -> bool:
    """Reject a match whose words are title words ("The", "Journal") or whose family name
    is a journal abbreviation ("J. Am." in "J. Am. Chem. Soc.")."""
    if form in "BKL":
        # Of the tests below only the first applies to these forms; ``family`` has single
        # spaces and none at either end, so its first word is "In" before a space.
        return not family.startswith(("In ", "IN "))
    if form in "DE":
        words = [w.lower().strip(".") for w in f"{given} {family}".split() if len(w.strip(".")) > 1]
        if any(w in _NOT_NAMES for w in words):
            return False
    family_words = family.split()
    first, last = family_words[0], family_words[-1]
    if first in ("In", "IN") and " " in family:
        return False  # "In Bouma, H. (Ed.)": the "In" of a chapter
    if form in "ACa" and last.lower() in _NOT_NAMES:
        return False
    if form == "E" and len(family_words) == 2 and len(given.split()) >= 2 and "-" not in family:
        return False  # "Theodor Adorno, Minima Moralia": a name and a title
    if text.startswith(".", end) and last.lower() in ABBREVIATIONS and form in "ADa":
        return False  # "J. Phys." or "Rev. Mod." begin a journal title
    return not (form == "D" and len(family) < 2)


@dataclass(slots=True)
class _Entry:
    author: Author
    form: str
    end: int
    joined_by_conjunction: bool

    def __init__(
        self, author: Author, form: str, end: int, joined_by_conjunction: bool,
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        self.author = author
        self.form = form
        self.end = end
        self.joined_by_conjunction = joined_by_conjunction


def _scan(text: str, start: int, first: str, match: re.Match[str]) -> AuthorScan | None:
    """The list at ``start`` whose first name is in form ``first`` (``match``: that
    form's match at ``start``)."""
    found = _reading(text, match, first)
    if found is None:
        return None
    followers = _FOLLOWERS[found[2]]
    entries = [_Entry(found[0], found[2], found[1], False)]
    pos = found[1]
    et_al = after_conjunction = semicolons = False
    while True:  # "et al." and the next separator and name, until the list ends
        # "et al." or else a separator, in one match (the two patterns tried in turn).
        separator = _ET_AL_OR_SEPARATOR.match(text, pos)
        if separator is None:
            break
        if separator.group("etal") is not None:
            et_al, pos = True, separator.end()
            if not separator.group(0).strip(" ,").startswith(("…", "...")):
                break
            # "Dinata, Y., … Meijaard, E.": after an ellipsis, a separator or a gap.
            separator = _SEPARATOR.match(text, pos) or _ELLIPSIS_GAP.match(text, pos)
            if separator is None:
                break
        c1, c2, c3, slash, dot = separator.group("c1", "c2", "c3", "slash", "dot")
        conjunction = bool(c1 or c2 or c3 or slash)
        if after_conjunction and not conjunction:
            break  # the name after "and" was the last
        if dot and first not in "BE":
            break
        # "Family, Given" after the first name only in ";" lists and the French ". " style.
        semicolons = semicolons or ";" in separator.group(0) or bool(dot)
        allowed = followers if semicolons or conjunction else followers.replace("E", "")
        found = _name_at(text, separator.end(), allowed)
        if found is None:
            break
        entries.append(_Entry(found[0], found[2], found[1], conjunction))
        pos = found[1]
        after_conjunction = after_conjunction or conjunction
    kept = _drop_unjoined_given_first(text, entries, et_al)
    if len(kept) < len(entries):
        pos, et_al = kept[-1].end, False
    _drop_sentence_period(kept)
    closed = _close(text, [e.author for e in kept], et_al, pos, first)
    while closed is None and len(kept) > 1:
        kept.pop()  # the last "name" runs into the title: "... and Robert Craft, Memories and"
        closed = _close(text, [e.author for e in kept], False, kept[-1].end, first)
    return closed


def _drop_sentence_period(entries: list[_Entry]) -> None:
    """In a Vancouver list ("Torres A, Ferrer M."), the period after the last initials
    ends the sentence: "M." becomes "M" like the others."""
    last = entries[-1]
    if last.form not in "CL":
        return  # (most lists) nothing to drop, whatever the others are
    bare = [e for e in entries if e.form in "CL" and "." not in e.author.given]
    if bare and re.fullmatch(r"[A-Z]{1,3}\.", last.author.given):
        entries[-1] = _Entry(
            Author(family=last.author.family, given=last.author.given[:-1]),
            last.form,
            last.end,
            last.joined_by_conjunction,
        )


_CLEAN_LIST_END = re.compile(rf"\s?(?:\.\s|\.?$|,?\s?[\"“‘'«]|,?\s{YEAR}\b)")


def _drop_unjoined_given_first(text: str, entries: list[_Entry], et_al: bool) -> list[_Entry]:
    """A list of given-first names without a conjunction ("and", "&", "/") or "et al."
    must end cleanly (a sentence end, a quote, a year): "Benedict Anderson, Imagined
    Communities (1991)" is a name and a title, so trailing given-first names that are
    not followed so are dropped."""
    if entries[-1].form != "D" or len(entries) == 1:
        return entries  # (most lists) the loop below would drop nothing
    if et_al or any(e.joined_by_conjunction for e in entries[1:]):
        return entries
    kept = list(entries)
    # After an initials-first name, a given-first name needs the "and" or a quoted title.
    end = _QUOTE_AFTER if entries[0].form in "ABC" else _CLEAN_LIST_END
    while len(kept) > 1 and kept[-1].form == "D" and not end.match(text, kept[-1].end):
        kept.pop()
    return kept


_QUOTE_AFTER = re.compile(r"\s?,?\s?[\"“‘'«]")


def _close(text: str, authors: list[Author], et_al: bool, pos: int, form: str) -> AuthorScan | None:
    """The scan ending at ``pos`` once "(eds.)" is read, or None when the list is not
    followed by the end of an author block."""
    editors = False
    role = _ROLE.match(text, pos)
    if role is not None:
        editors, pos = True, role.end()
    after_initial = text[pos - 1 : pos] == "."
    if not (after_initial or _BLOCK_END.match(text, pos)):
        return None
    lone = _LONE_END.get(form)
    if len(authors) == 1 and lone and not (et_al or editors or after_initial):
        if not lone.match(text, pos):
            return None  # "Il Farmaco 56": one given-first "name" before a number
    clean = after_initial or bool(_CLEAN_AFTER.match(text, pos))
    return AuthorScan(tuple(authors), et_al, pos, editors, form, clean)


_CLEAN_AFTER = re.compile(rf"\s?(?:[,.:;(]|\s?{YEAR}\b)")
_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
_DATE_AHEAD = re.compile(rf"\s?[,.]?\s?\(?{YEAR}[a-z]?\b")


def _scan_surnames(text: str, start: int) -> AuthorScan | None:
    """Family names alone, only where "et al." or a date shows they are authors:
    "Shen et al., ..." / "Lowe and Cheng (1992)"."""
    authors: list[Author] = []
    pos = start
    while True:
        match = _FORMS["S"].match(text, pos)
        if match is None or match.group("family").split()[-1].lower() in _NOT_NAMES:
            return None
        if match.group("family").split()[0] in ("In", "IN"):
            return None
        authors.append(Author(family=" ".join(match.group("family").split())))
        pos = match.end()
        if (more := _ET_AL.match(text, pos)) is not None:
            return AuthorScan(tuple(authors), True, more.end(), form="S", clean_end=True)
        date = _DATE_AHEAD.match(text, pos)
        if date is not None and _LETTER_WORD.search(text, date.end(), date.end() + 80):
            # "Lowe and Cheng (1992) Title", not "Macromolecules 1999, 32, 7726-7731"
            return AuthorScan(tuple(authors), False, pos, form="S", clean_end=True)
        separator = _SEPARATOR.match(text, pos)
        if separator is None or len(authors) >= 3:
            return None
        pos = separator.end()


# ---------------------------------------------------------------------------------------
# A block known to hold the authors (before an APA date, or editors after "In")


def parse_name_block(block: str) -> tuple[list[Author], bool] | None:
    """The authors in a block that holds nothing else, and whether it ends in "et al.";
    a single organisation when the block is not a list of names ("World Health
    Organization", "U.S. Department of Health and Human Services"); None for a block that
    is neither (a sentence, a title)."""
    block = " ".join(block.split()).strip(" ,;")
    if not block:
        return None
    scan = scan_authors(block)
    if scan is not None:
        if block[scan.end :].strip(" .,;:"):
            return None
        return list(scan.authors), scan.et_al
    if re.search(r"[?!\"“”\d:]", block) or len(block.split()) > 12:
        return None
    if any(True for _ in boundaries(block.rstrip(" ."))):
        return None  # two sentences: not a name
    return [Author(literal=corporate_name(block))], False


def corporate_name(block: str) -> str:
    """An organisation's name: the longer of "Name (Acronym)" and its bracketed form."""
    block = block.strip(" .,;")
    match = re.match(r"^(?P<out>[^()]+?)\s*\((?P<in>[^()]+)\)\s*$", block)
    if match is None:
        return block
    outside, inside = match.group("out").strip(), match.group("in").strip()
    return inside if len(inside) > len(outside) else outside
