"""Normalisation for matching: titles and family names reduced to comparable keys.

Everything here is lossy on purpose. A normalised title or family key is for comparing
two strings, never for display: markup, accents, case and punctuation are gone.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence

from unidecode import unidecode

from verifier.citations.invisibles import INVISIBLE
from verifier.value_memos import value_memo

from .models import Author

# A tag starts with a letter right after "<" (or "</"), so "p < 0.05" is left alone.
_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
# MathML annotations repeat the formula as TeX: drop them with their content.
_ANNOTATION = re.compile(
    r"<(?:mml:)?annotation(?:-xml)?\b[^>]*>.*?</(?:mml:)?annotation(?:-xml)?>", re.S
)
# Apostrophes join ("Flaubert's" -> "flauberts") so that ' and ’ and their absence agree.
_APOSTROPHE = re.compile(r"(?<=\w)['`´](?=\w)")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
# ":" followed by a space, a spaced dash, or an unspaced em dash between words (an
# unspaced en dash is a range: "1899–1902").
_SUBTITLE_SEPARATOR = re.compile(r"\s*:(?:\s+|$)|\s+[-–—]+\s+|(?<=[^\W\d])\s*—\s*(?=[^\W\d])")
_QUESTION_BREAK = re.compile(r"(?<=[?!])\s+(?=\S)")

PARTICLES = frozenset(
    (
        "van von der den de del della dei degli di da du des dos das do la le lo ter ten te "
        "zu zum zur bin ibn al el st saint mac ap"
    ).split()
)
"""Lower-case name particles that may or may not be cited with a family name."""


def strip_markup(text: str) -> str:
    """``text`` without HTML/JATS/MathML tags, with entities resolved.

    Markup that arrived entity-escaped ("&lt;i&gt;") is removed too.
    """
    if "<" not in text and "&" not in text:
        # Fast path, same output: every pattern below needs a "<", and unescaping
        # needs a "&" (only unescaping could make a "<" appear).
        return text
    # Tags go without a trace: inline markup sits inside words ("H<sub>2</sub>O").
    text = _TAG.sub("", _ANNOTATION.sub("", text))
    text = html.unescape(text)
    return _TAG.sub("", text)


def _fold(text: str) -> str:
    """ASCII, case-folded text with "&" read as "and" and apostrophes joined; characters
    that show nothing are dropped (unidecode would read a zero-width space as a space)."""
    ascii_text = unidecode(INVISIBLE.sub("", text)).casefold()
    ascii_text = ascii_text.replace("&", " and ")
    return _APOSTROPHE.sub("", ascii_text)


# Fast paths, same output (property-tested against the regex forms in
# tests/test_normalize_fast_paths.py). Text that is ASCII with no "<" and no "&" needs
# neither markup stripping, transliteration nor "&" read as "and", and its case-fold is
# its lower case; one ``str.translate`` then does what a character-class substitution
# does, in C without the regex engine. Each table maps every ASCII character (a
# character missing from a table costs ``translate`` a raised and cleared KeyError).


def _ascii_table(replace: dict[str, int | None]) -> dict[int, int | None]:
    """A translation table of every ASCII character: ``replace``'s, the rest kept."""
    return {code: replace.get(chr(code), code) for code in range(128)}


_ASCII_NOT_ALNUM = [chr(c) for c in range(128) if not chr(c).isalnum()]
_ASCII_INVISIBLE = [chr(c) for c in range(128) if INVISIBLE.match(chr(c))]
"""The control characters that :func:`_fold` drops (not read as spaces)."""
_NOT_ALNUM_AS_SPACE = _ascii_table({**dict.fromkeys(_ASCII_NOT_ALNUM, ord(" ")),
                                    **dict.fromkeys(_ASCII_INVISIBLE)})
_NOT_ALNUM_DROPPED = _ascii_table(dict.fromkeys(_ASCII_NOT_ALNUM))
_DOT_HYPHEN_AS_SPACE = _ascii_table({".": ord(" "), "-": ord(" ")})
_INVISIBLE_DROPPED = _ascii_table(dict.fromkeys(_ASCII_INVISIBLE))


def _plain_ascii(text: str) -> bool:
    """``text`` is ASCII without markup or entities: :func:`_fold` is its lower case, but
    for apostrophes between word characters."""
    return text.isascii() and "<" not in text and "&" not in text


def _fold_plain(text: str) -> str:
    """:func:`_fold` of text for which :func:`_plain_ascii` holds."""
    lowered = text.lower()
    if "'" in lowered or "`" in lowered:  # the apostrophes _APOSTROPHE joins, in ASCII
        # As _fold does, invisible characters go first: "a'<NUL>a" joins as "a'a" does.
        return _APOSTROPHE.sub("", lowered.translate(_INVISIBLE_DROPPED))
    return lowered


# The normalisations are pure and run for every candidate of every citation, so they
# are memoised (bounded caches).
@value_memo(65536)
def normalize_title(s: str) -> str:
    """A title reduced for comparison: no markup, ASCII, case-folded, punctuation read as
    a space, single spaces, no leading or trailing space. "" for a title with no letters
    or digits.

    >>> normalize_title("The <i>Café</i> &amp; the Bar: A Study")
    'the cafe and the bar a study'
    """
    if _plain_ascii(s):
        return " ".join(_fold_plain(s).translate(_NOT_ALNUM_AS_SPACE).split())
    folded = _fold(strip_markup(s))
    return " ".join(_NON_ALNUM.sub(" ", folded).split())


@value_memo(65536)
def split_title(s: str) -> tuple[str, str]:
    """The main title and the subtitle of ``s``, both stripped; ("title", "") when there is
    no subtitle.

    The subtitle starts after the first ":" or a spaced dash (" - ", " — ", " – ") or
    after a "?" or "!" that ends the main title ("Who was buried at Stonehenge? New
    evidence" -> main title keeps its "?"). Markup is removed first.
    """
    text = " ".join(strip_markup(s).split())
    cuts: list[tuple[int, int]] = []
    separator = _subtitle_separator(text)
    if separator:
        cuts.append((separator.start(), separator.end()))
    question = _QUESTION_BREAK.search(text) if "?" in text or "!" in text else None
    if question:
        # The "?" stays with the main title: cut after it.
        cuts.append((question.start(), question.end()))
    if not cuts:
        return text, ""
    start, end = min(cuts)
    main, subtitle = text[:start].strip(), text[end:].strip()
    if not main:
        return text, ""
    return main, subtitle


_SEPARATOR_CHARACTERS = (":", "-", "\u2013", "\u2014")
"""The characters every subtitle separator holds (colon, hyphen, en and em dash)."""


def _subtitle_separator(text: str) -> re.Match[str] | None:
    """``_SUBTITLE_SEPARATOR.search(text)`` for single-spaced ``text``, searched from where
    a match can begin: every match holds a separator character, after at most one space
    (the lookbehind still sees the text before that point)."""
    first = -1
    for character in _SEPARATOR_CHARACTERS:
        at = text.find(character)
        if at != -1 and (first == -1 or at < first):
            first = at
    if first == -1:
        return None
    return _SUBTITLE_SEPARATOR.search(text, max(0, first - 1))


@value_memo(65536)
def family_key(name: str) -> str:
    """A family name as one comparable key: ASCII, case-folded, with spaces, hyphens,
    apostrophes and punctuation removed and particles kept joined.

    >>> family_key("van der Berg"), family_key("Darling-Hammond"), family_key("O’Rourke")
    ('vanderberg', 'darlinghammond', 'orourke')
    """
    if _plain_ascii(name):
        # Every character but a letter or digit goes, apostrophes too: no need to join them.
        return name.lower().translate(_NOT_ALNUM_DROPPED)
    return _NON_ALNUM.sub("", _fold(strip_markup(name)))


def _name_words(name: str) -> list[str]:
    if _plain_ascii(name):
        return _fold_plain(name).translate(_NOT_ALNUM_AS_SPACE).split()
    return [w for w in _NON_ALNUM.split(_fold(strip_markup(name))) if w]


@value_memo(65536)
def family_variants(name: str) -> frozenset[str]:
    """Every key under which ``name`` may be cited, the full :func:`family_key` first
    among equals.

    Besides the full key: the key without leading particles ("van der Berg" -> "berg",
    "De Groot" -> "groot"), and for compound names each part of three letters or more
    ("Parker Pearson" -> "pearson", "parker"; "Darling-Hammond" -> "hammond"), because
    databases and citations split compound family names differently. Two names are
    compatible when their variant sets intersect.
    """
    full = family_key(name)
    if not full:
        return frozenset()
    variants = {full}
    words = _name_words(name)
    start = 0
    while start < len(words) - 1 and words[start] in PARTICLES:
        start += 1
    core = words[start:]
    variants.add("".join(core))
    if len(core) > 1:
        variants.update(w for w in core if len(w) >= 3 and w not in PARTICLES)
    return frozenset(variants)


def author_key(author: Author) -> str:
    """The comparison key of one author: the family name's key, or for a corporate author
    (only ``literal``) the normalised literal."""
    if author.family:
        return family_key(author.family)
    return normalize_title(author.literal)


def author_families(authors: Sequence[Author]) -> list[str]:
    """The family keys of ``authors`` in order (normalised literal for corporate authors),
    empty keys dropped."""
    return [key for key in (author_key(a) for a in authors) if key]


def initials(given: str) -> str:
    """The initials of a given name, lower-case ASCII: "John Ronald" -> "jr", "J.-P." ->
    "jp", "M.R." -> "mr", "" for none."""
    letters: list[str] = []
    text = given if given.isascii() else unidecode(given)  # ASCII is its own unidecode
    # The words between runs of spaces, dots and hyphens: split() drops the empty ones.
    for word in text.translate(_DOT_HYPHEN_AS_SPACE).split():
        # "JA" in Vancouver style is two initials, "Jo" or "John" one given name.
        if len(word) <= 3 and word.isupper():
            letters.append(word.lower())
        elif word[0].isalpha():
            letters.append(word[0].lower())
    return "".join(letters)


def _has_doubled(text: str) -> bool:
    """Whether two neighbouring characters of ``text`` are one character, a line break
    aside: where ``(.)\\1+`` can match."""
    for i in range(1, len(text)):
        if text[i] == text[i - 1] and text[i] != "\n":
            return True
    return False


# Transliteration: one name written from another script (or with umlauts spelt out) in
# several systems. Rules as a table, applied in order to a family key; two keys that
# reduce to the same form are the same name ("Müller" = "Mueller", "Tchaikovsky" =
# "Chaikovskii" = "Tschaikowsky", "Dostoevsky" = "Dostoyevsky"). Each rule only merges
# spellings that the systems really produce for one sound; doubled letters collapse last.
TRANSLITERATION_RULES: tuple[
    tuple[str, str, tuple[str, ...] | Callable[[str], bool] | None], ...
] = (
    # (pattern, replacement, what a key must hold for the pattern to match there: one of
    # these strings, or a test of the key, or None when nothing simpler tells; a rule
    # whose strings are all absent, or whose test fails, is skipped, since its pattern
    # could not match)
    # Russian adjectival endings
    (r"(?<=[a-z])(?:skiy|skii|skij|skyi|sky)$", "ski", ("sk",)),
    (r"(?<=[a-z])(?:iy|ii|ij|yj|yi)$", "y", ("iy", "ii", "ij", "yj", "yi")),
    (r"(?<=[aeo])[iyj]$", "y", ("ai", "ay", "aj", "ei", "ey", "ej", "oi", "oy", "oj")),  # Tolstoi
    (r"tsch|tch", "ch", ("tsch", "tch")),  # German / French / English renderings of ч
    # Dostoyevsky / Dostoevsky, Tsvetayeva
    (r"(?<=[aeiou])[yj](?=[aeiou])", "", ("y", "j")),
    # ü ö ä spelt out
    (r"(?<=[a-z])ue", "u", ("ue",)), (r"(?<=[a-z])oe", "o", ("oe",)),
    (r"(?<=[a-z])ae", "a", ("ae",)),
    (r"^(?:ye|je)", "e", ("ye", "je")),  # Yeltsin / Jelzin / Eltsin
    (r"kh", "h", ("kh",)), (r"ks", "x", ("ks",)), (r"w", "v", ("w",)), (r"ph", "f", ("ph",)),
    (r"ou", "u", ("ou",)),
    (r"(?<=[a-z])(?:ya|ja|ia)$", "a", ("ya", "ja", "ia")),
    (r"(?:yu|ju|iu)", "u", ("yu", "ju", "iu")), (r"(?:ya|ja|ia)", "a", ("ya", "ja", "ia")),
    (r"(.)\1+", r"\1", _has_doubled),  # doubled letters: Mohammed / Mohamed
)
_TRANSLITERATION = tuple((re.compile(p), r, needs) for p, r, needs in TRANSLITERATION_RULES)
TRANSLITERATION_MIN_LENGTH = 5
"""Keys shorter than this are not reduced: short names differ by too little to tell a
transliteration from another person ("Li" / "Lee")."""


@value_memo(65536)
def transliteration_key(key: str) -> str:
    """``key`` (a :func:`family_key`) reduced by :data:`TRANSLITERATION_RULES`, so that
    spellings of one name in different transliteration systems meet; "" for a key
    shorter than :data:`TRANSLITERATION_MIN_LENGTH` (no reduction is trusted there).

    >>> transliteration_key("mueller") == transliteration_key("muller")
    True
    >>> transliteration_key("tchaikovsky") == transliteration_key("chaikovskii")
    True
    """
    if len(key) < TRANSLITERATION_MIN_LENGTH:
        return ""
    for pattern, replacement, needs in _TRANSLITERATION:
        if rule_may_apply(key, needs):
            key = pattern.sub(replacement, key)
    return key


def rule_may_apply(key: str, needs: tuple[str, ...] | Callable[[str], bool] | None) -> bool:
    """Whether a :data:`TRANSLITERATION_RULES` row whose third column is ``needs`` may
    match ``key``: False only when its pattern cannot (none of its strings is in the
    key, or its test fails)."""
    if needs is None:
        return True
    if isinstance(needs, tuple):
        for part in needs:
            if part in key:
                return True
        return False
    return needs(key)
