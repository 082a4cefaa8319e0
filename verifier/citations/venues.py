"""Whether two journal or book titles name the same container: abbreviations, acronyms,
a leading "The", a subtitle one side omits and a country qualifier ("U.S.A.") aside.

Used by matching (an authorless citation is matched on its other fields) and by the
discrepancies (a container cited otherwise is no error when it is the same container).
"""

from __future__ import annotations

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


def containers_agree(a: str, b: str) -> bool:
    """True when two journal or book titles name the same container: equal after
    normalisation and a leading "The", one an abbreviation of the other ("J. Biol. Chem."
    = "Journal of Biological Chemistry", "Proc Natl Acad Sci USA" = "Proceedings of the
    National Academy of Sciences of the United States of America", "PNAS" likewise), or
    one the other without its subtitle ("Philosophical Transactions of the Royal Society
    B" = "… B: Biological Sciences")."""
    if _same_container_title(a, b):
        return True
    main_a, sub_a = split_title(a)
    main_b, sub_b = split_title(b)
    if sub_a and not sub_b:
        return _same_container_title(main_a, b)
    if sub_b and not sub_a:
        return _same_container_title(a, main_b)
    return False
