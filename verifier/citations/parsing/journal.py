"""Where the title ends and the journal name begins, in the text before a numeric tail."""

from __future__ import annotations

import re

from .text import (
    UPPER,
    YEAR_BETWEEN,
    YEAR_TOKEN,
    Cut,
    boundaries,
    left_of,
)

_CONNECTORS = frozenset(
    "of and the for in on de des du la le der die das und für fur di del della et y i a an "
    "at to & d' l' em do da dos das e van voor en och og with".split()
)
VENUE_WORDS = re.compile(
    r"^(?:Proc(?:eedings)?\b|Conf(?:erence)?\b|Symp(?:osium)?\b|Workshop|Journal|Trans(?:actions)?\b|"
    r"Annals|Bull(?:etin)?\b|Acta\b|Advances\s+in|IEEE|ACM|SIAM|Lecture\s+Notes|LNCS|"
    r"Zeitschrift|Revue|Rivista|Revista|Archives?\b|Int(?:ernational|l)?\b\.?\s+J)",
)


_ELIDED_ARTICLE = re.compile(r"^[dlDL]['’]")


def journal_like(segment: str) -> bool:
    """True for a segment that reads like a journal name: at most 12 words and no lower-case
    word except connectors ("of", "and", "für", "l'")."""
    words = segment.replace("(", " ").replace(")", " ").split()
    if not words or len(words) > 12:
        return False
    for word in words:
        bare = word.strip(".,:;'’\"“”")
        if bare[1:2] in ("'", "’") and bare[:1] in ("d", "l", "D", "L"):
            bare = bare[2:]  # what _ELIDED_ARTICLE.sub("", bare) does, without a regex
        if bare and bare[0].islower() and bare.lower() not in _CONNECTORS:
            return False
    return True


def abbreviated(segment: str) -> bool:
    """True when most words of ``segment`` are abbreviations ("J. Phys. G")."""
    words = segment.split()
    short = [w for w in words if w.endswith(".") or (w.isupper() and len(w) <= 4)]
    return bool(words) and 2 * len(short) >= len(words)


def has_content(segment: str) -> bool:
    """True when ``segment`` has a lower-case word that is not a connector (a title)."""
    return not journal_like(segment) or len(segment.split()) > 12


def split_title_container(pre: str, *, numbered: bool = False) -> tuple[str, str]:
    """A "Title. Journal" / "Title, Journal" prefix split into (title, container).

    In order: the last sentence boundary (titles hold "?" and ". " more often than journal
    names; "Class. Quantum Grav." has none); the last comma before a journal-like end;
    a year between them ("Title 1973 American Journal of Sociology"); a period after an
    initial ("... with Clustal X. Trends Biochem Sci"); a trailing run of capitalised
    words after a lower-case title ("... hyperplasia Br J Urol Int"). A prefix with none
    of these is the journal when it reads like one, or when ``numbered`` (a volume and
    pages follow: "Statistical methods in medical research 1, 69"), else the title.
    """
    pre = pre.strip(" ,;:")
    if not pre:
        return "", ""
    cut = _last_title_cut(pre)
    if cut is not None:
        title, container = left_of(pre, cut), pre[cut.right :]
        return _refine_by_comma(title, container)
    for split in (_comma_split, _year_split, _initial_split, _capitalised_run_split):
        found = split(pre)
        if found is not None:
            return found
    return ("", pre) if journal_like(pre) or (numbered and len(pre.split()) <= 8) else (pre, "")


def _last_title_cut(pre: str) -> Cut | None:
    """The last sentence boundary that can end a title. A short capitalised word that
    opens the text or follows an abbreviation is an abbreviation too ("Class. Quantum
    Grav.", "Mol. Gen. Genet.", "B: At. Mol."), and so is a single word before an
    abbreviated journal name ("Biopharm. Drug Dispos.")."""
    chosen: Cut | None = None
    for cut in boundaries(pre):
        words = pre[: cut.left].rsplit(maxsplit=2)  # the last two words (and one if alone)
        word = words[-1] if words else ""
        previous = words[-2] if len(words) > 1 else ""
        after_abbreviation = (
            previous.endswith(".") and len(previous) <= 7 and previous[:1].isupper()
        )
        short_capital = (
            cut.mark == "."
            and word[:1].isupper()
            and (
                (
                    len(word) <= 5
                    and (not previous or previous.endswith((".", ":")) or len(previous) == 1)
                )
                or (len(word) <= 12 and after_abbreviation)
            )
        )
        lone_word = len(words) == 1 and cut.mark == "." and abbreviated(pre[cut.right :])
        if not (short_capital or lone_word):
            chosen = cut
    slash = pre.rfind(" // ")
    if slash > 0 and (chosen is None or chosen.left < slash):
        return Cut(slash, slash + 4, "/", "")
    return chosen


def _initial_split(pre: str) -> tuple[str, str] | None:
    """ "... with Clustal X. Trends Biochem Sci": a period after a single letter ends the
    title when a title stands left of it and a journal name right of it."""
    for cut in boundaries(pre, strict=False):
        words = pre[: cut.left].split()
        if len(words) < 2 or not (len(words[-1]) == 1 or words[-1].islower()):
            continue  # a capitalised abbreviation ("Phys.") starts the journal name
        if len(words[-1]) == 1 and re.match(r"[A-Z][a-z]+\.", pre[cut.right :]):
            continue  # "J. Stat. Mech.": the initial starts the journal name
        if has_content(pre[: cut.left]) and journal_like(pre[cut.right :]):
            return left_of(pre, cut), pre[cut.right :]
    return None


def _year_split(pre: str) -> tuple[str, str] | None:
    """ "The Strength of Weak Ties 1973 American Journal of Sociology": a year between
    title and journal (the year itself is read elsewhere)."""
    match = YEAR_BETWEEN.search(pre)
    if match is None or match.start() < 10:
        return None
    right = pre[match.end() :]
    if not journal_like(right) or YEAR_TOKEN.search(right):
        return None
    return pre[: match.start()], right


_CAPITALISED = re.compile(rf"^(?:{UPPER}[\w'’.&-]*|&|of|and|the|for|in|de|der|für)$")


def _capitalised_run_split(pre: str) -> tuple[str, str] | None:
    """ "A systematic review ... hyperplasia Br J Urol Int": a run of at least two
    capitalised words after a lower-case word ends an unpunctuated title."""
    words = pre.split()
    start = len(words)
    while start > 0 and _CAPITALISED.match(words[start - 1]):
        start -= 1
    while start < len(words) and not words[start][:1].isupper():
        start += 1  # the run does not start with a connector
    if len(words) - start < 2 or start < 3 or not words[start - 1][:1].islower():
        return None
    if not has_content(" ".join(words[:start])):
        return None
    return " ".join(words[:start]), " ".join(words[start:])


def _refine_by_comma(title: str, container: str) -> tuple[str, str]:
    """A container that is "rest of the title, Journal" gives the comma part to the title."""
    if journal_like(container) or "," not in container:
        return title, container
    split = _comma_split(container)
    if split is None or not split[0]:
        return title, container
    return f"{title}. {split[0]}", split[1]


def top_level_commas(text: str, marks: str = ",") -> list[int]:
    """Offsets of the commas (or other ``marks``) outside brackets."""
    depth = 0
    found: list[int] = []
    # Only brackets and marks change anything: the pattern skips every other character.
    for match in _structure(marks).finditer(text):
        char = match.group()
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif depth == 0:
            found.append(match.start())
    return found


_STRUCTURE: dict[str, re.Pattern[str]] = {}
"""One pattern per set of marks (a few, fixed in the code)."""


def _structure(marks: str) -> re.Pattern[str]:
    """A pattern matching one bracket or one of ``marks``."""
    pattern = _STRUCTURE.get(marks)
    if pattern is None:
        pattern = _STRUCTURE[marks] = re.compile(f"[()\\[\\]{re.escape(marks)}]")
    return pattern


def _comma_split(pre: str) -> tuple[str, str] | None:
    """(title, container) at a comma; the container is the journal-like end, or the part
    starting with a venue word ("Proc.", "Journal"); None when neither is found."""
    commas = top_level_commas(pre)
    if not commas:
        return None
    if VENUE_WORDS.match(pre):
        return "", pre
    for index in commas:
        right = pre[index + 1 :].strip()
        if VENUE_WORDS.match(right):
            return pre[:index].strip(), right
    chosen: int | None = None
    for index in reversed(commas):
        right = pre[index + 1 :].strip()
        if not journal_like(right):
            break
        chosen = index
        if has_content(pre[:index]):
            break
    if chosen is None:
        return None
    left = pre[:chosen].strip()
    if not has_content(left) and abbreviated(left):
        return "", pre  # "J. Phys. G, Nucl. Part. Phys."
    return left, pre[chosen + 1 :].strip()
