"""Whether two journal or book titles name the same container: abbreviations, acronyms,
a leading "The", a subtitle one side omits and a country qualifier ("U.S.A.") aside.

Used by matching (an authorless citation is matched on its other fields) and by the
discrepancies (a container cited otherwise is no error when it is the same container).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .normalize import normalize_title, split_title

_JOINING_WORDS = frozenset({"of", "the", "and", "for", "on", "in", "to", "de", "a", "an"})


def _abbreviates(short: str, word: str) -> bool:
    """True when ``short`` may abbreviate ``word``: the same word, or shorter with the
    same first letter and its letters in order ("biol" biological, "natl" national)."""
    if short == word:
        return True
    if len(short) >= len(word) or short[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(letter in rest for letter in short[1:])


def _acronym_span(short: str, words: Sequence[str]) -> int:
    """How many of ``words`` (joining words skipped) ``short`` is the acronym of; 0 when
    it is not one ("usa" for "united states of america" -> 4)."""
    if len(short) < 2:
        return 0
    letters, used = 0, 0
    for word in words:
        if letters == len(short):
            break
        used += 1
        if word in _JOINING_WORDS:
            continue
        if word[0] != short[letters]:
            return 0
        letters += 1
    return used if letters == len(short) else 0


def _abbreviation_of(short: Sequence[str], full: Sequence[str]) -> bool:
    """True when the words ``short`` abbreviate the words ``full`` in order: each short
    word abbreviates the next full word or is the acronym of the next few; the full title
    may have joining words ("of", "the" …) the short one drops, nothing else."""
    if not short:
        return not [w for w in full if w not in _JOINING_WORDS]
    if not full:
        return False
    head, rest = short[0], short[1:]
    if full[0] in _JOINING_WORDS and head != full[0] and _abbreviation_of(short, full[1:]):
        return True
    if _abbreviates(head, full[0]) and _abbreviation_of(rest, full[1:]):
        return True
    span = _acronym_span(head, full)
    return span > 1 and _abbreviation_of(rest, full[span:])


def _container_words(name: str) -> list[str]:
    words = normalize_title(name).split()
    return words[1:] if words[:1] == ["the"] and len(words) > 1 else words


_COUNTRY_QUALIFIERS: tuple[tuple[str, ...], ...] = tuple(
    tuple(q.split()) for q in ("of the united states of america", "united states of america",
                               "u s a", "usa", "u k", "uk", "of the usa"))
"""Country qualifiers a journal's name may carry or drop ("Proc. Natl. Acad. Sci.
U.S.A." is "Proceedings of the National Academy of Sciences")."""


def _without_country(words: list[str]) -> list[str]:
    for qualifier in _COUNTRY_QUALIFIERS:
        if len(words) > len(qualifier) and tuple(words[-len(qualifier):]) == qualifier:
            return words[: -len(qualifier)]
    return words


def _same_container_title(a: str, b: str) -> bool:
    left, right = _container_words(a), _container_words(b)
    if not left or not right:
        return False
    if left == right or _abbreviation_of(left, right) or _abbreviation_of(right, left):
        return True
    left, right = _without_country(left), _without_country(right)
    return left == right or _abbreviation_of(left, right) or _abbreviation_of(right, left)


VENUE_ALIASES: dict[str, tuple[str, ...]] = {
    # canonical key: the names a venue goes by across years (acronyms, former names, the
    # official proceedings titles the databases show). Matching is on normalised words,
    # after dropping years, ordinals and "proceedings of the" (see _venue_key).
    "neurips": ("neurips", "nips", "advances in neural information processing systems",
                "neural information processing systems", "conference on neural information "
                "processing systems"),
    "iclr": ("iclr", "international conference on learning representations"),
    "icml": ("icml", "international conference on machine learning"),
    "cvpr": ("cvpr", "ieee conference on computer vision and pattern recognition",
             "ieee cvf conference on computer vision and pattern recognition",
             "conference on computer vision and pattern recognition",
             "computer vision and pattern recognition"),
    "iccv": ("iccv", "ieee international conference on computer vision",
             "ieee cvf international conference on computer vision",
             "international conference on computer vision"),
    "eccv": ("eccv", "european conference on computer vision", "computer vision eccv"),
    "aaai": ("aaai", "aaai conference on artificial intelligence",
             "national conference on artificial intelligence"),
    "ijcai": ("ijcai", "international joint conference on artificial intelligence"),
    "acl": ("acl", "annual meeting of the association for computational linguistics",
            "meeting of the association for computational linguistics"),
    "emnlp": ("emnlp", "conference on empirical methods in natural language processing",
              "empirical methods in natural language processing"),
    "naacl": ("naacl", "naacl hlt", "conference of the north american chapter of the "
              "association for computational linguistics human language technologies",
              "north american chapter of the association for computational linguistics"),
    "aistats": ("aistats", "international conference on artificial intelligence and "
                "statistics", "artificial intelligence and statistics"),
    "uai": ("uai", "conference on uncertainty in artificial intelligence",
            "uncertainty in artificial intelligence"),
    "colt": ("colt", "conference on learning theory", "annual conference on learning theory"),
    "kdd": ("kdd", "sigkdd", "acm sigkdd international conference on knowledge discovery "
            "and data mining", "knowledge discovery and data mining"),
    "www": ("www", "the web conference", "international world wide web conference",
            "world wide web conference"),
    "sigir": ("sigir", "international acm sigir conference on research and development in "
              "information retrieval"),
    "corl": ("corl", "conference on robot learning"),
    "icra": ("icra", "ieee international conference on robotics and automation",
             "international conference on robotics and automation"),
    "iros": ("iros", "ieee rsj international conference on intelligent robots and systems",
             "international conference on intelligent robots and systems"),
    "interspeech": ("interspeech", "annual conference of the international speech "
                    "communication association"),
    "icassp": ("icassp", "ieee international conference on acoustics speech and signal "
               "processing", "international conference on acoustics speech and signal "
               "processing"),
    "jmlr": ("jmlr", "journal of machine learning research"),
    "tmlr": ("tmlr", "transactions on machine learning research"),
    "tpami": ("tpami", "pami", "ieee transactions on pattern analysis and machine "
              "intelligence"),
    "wacv": ("wacv", "ieee cvf winter conference on applications of computer vision",
             "winter conference on applications of computer vision"),
    "coling": ("coling", "international conference on computational linguistics"),
    "eacl": ("eacl", "conference of the european chapter of the association for "
             "computational linguistics"),
    "miccai": ("miccai", "medical image computing and computer assisted intervention"),
    "icde": ("icde", "ieee international conference on data engineering",
             "international conference on data engineering"),
}
"""Conference and journal names by venue, a maintained table: add a venue as one row.
The databases give official proceedings titles ("Proceedings of the AAAI Conference on
Artificial Intelligence", "2019 IEEE/CVF Conference on Computer Vision and Pattern
Recognition (CVPR)"), citations the acronym ("AAAI", "CVPR 2019", "NeurIPS")."""

_NOISE = re.compile(
    r"\b(?:\d+(?:st|nd|rd|th)|\d+|first|second|third|fourth|fifth|sixth|seventh|"
    r"eighth|ninth|tenth|proceedings|proc|of|the|in|on|and|annual|volume|vol|part|workshops?|"
    r"track|main|conference track|findings)\b"
)
_ALIAS_INDEX: dict[str, str] = {}


def _venue_key(name: str) -> str:
    return " ".join(_NOISE.sub(" ", normalize_title(name)).split())


for _canonical, _names in VENUE_ALIASES.items():
    for _alias in _names:
        _ALIAS_INDEX[_venue_key(_alias)] = _canonical
_PARENS = re.compile(r"\(([^()]*)\)")


def venue_identity(name: str) -> str | None:
    """The canonical key of a venue named in :data:`VENUE_ALIASES`, or None: the whole
    name (years, ordinals and "Proceedings of the" aside), an acronym in parentheses, or
    a known acronym among its words ("NeurIPS 2020", "Proc. of CVPR")."""
    key = _venue_key(name)
    if key in _ALIAS_INDEX:
        return _ALIAS_INDEX[key]
    for inner in _PARENS.findall(name):
        found = _ALIAS_INDEX.get(_venue_key(inner))
        if found:
            return found
    outside = _venue_key(_PARENS.sub(" ", name))
    if outside in _ALIAS_INDEX:
        return _ALIAS_INDEX[outside]
    words = outside.split()
    acronyms = {w for w in words if w in VENUE_ALIASES}
    if len(acronyms) == 1 and len(words) <= 3:
        return acronyms.pop()
    return None


def containers_agree(a: str, b: str) -> bool:
    """True when two journal or book titles name the same container: equal after
    normalisation and a leading "The", one an abbreviation of the other ("J. Biol. Chem."
    = "Journal of Biological Chemistry", "Proc Natl Acad Sci USA" = "Proceedings of the
    National Academy of Sciences of the United States of America", "PNAS" likewise), or
    one the other without its subtitle ("Philosophical Transactions of the Royal Society
    B" = "… B: Biological Sciences"), or one venue of :data:`VENUE_ALIASES` ("CVPR" =
    "2019 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)")."""
    if _same_container_title(a, b):
        return True
    venue_a = venue_identity(a)
    if venue_a is not None and venue_a == venue_identity(b):
        return True
    main_a, sub_a = split_title(a)
    main_b, sub_b = split_title(b)
    if sub_a and not sub_b:
        return _same_container_title(main_a, b)
    if sub_b and not sub_a:
        return _same_container_title(a, main_b)
    return False
