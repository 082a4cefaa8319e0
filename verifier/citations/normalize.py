"""Normalisation for matching: titles and family names reduced to comparable keys.

Everything here is lossy on purpose. A normalised title or family key is for comparing
two strings, never for display: markup, accents, case and punctuation are gone.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from unidecode import unidecode

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
    """ASCII, case-folded text with "&" read as "and" and apostrophes joined."""
    ascii_text = unidecode(text).casefold()
    ascii_text = ascii_text.replace("&", " and ")
    return _APOSTROPHE.sub("", ascii_text)


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
    separator = _SUBTITLE_SEPARATOR.search(text)
    if separator:
        cuts.append((separator.start(), separator.end()))
    question = _QUESTION_BREAK.search(text)
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


@value_memo(65536)
def family_key(name: str) -> str:
    """A family name as one comparable key: ASCII, case-folded, with spaces, hyphens,
    apostrophes and punctuation removed and particles kept joined.

    >>> family_key("van der Berg"), family_key("Darling-Hammond"), family_key("O’Rourke")
    ('vanderberg', 'darlinghammond', 'orourke')
    """
    return _NON_ALNUM.sub("", _fold(strip_markup(name)))


def _name_words(name: str) -> list[str]:
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
    for word in re.split(r"[\s.\-]+", unidecode(given)):
        if not word:
            continue
        # "JA" in Vancouver style is two initials, "Jo" or "John" one given name.
        if word.isupper() and len(word) <= 3:
            letters.extend(word.lower())
        elif word[0].isalpha():
            letters.append(word[0].lower())
    return "".join(letters)


# Transliteration: one name written from another script (or with umlauts spelt out) in
# several systems. Rules as a table, applied in order to a family key; two keys that
# reduce to the same form are the same name ("Müller" = "Mueller", "Tchaikovsky" =
# "Chaikovskii" = "Tschaikowsky", "Dostoevsky" = "Dostoyevsky"). Each rule only merges
# spellings that the systems really produce for one sound; doubled letters collapse last.
TRANSLITERATION_RULES: tuple[tuple[str, str], ...] = (
    (r"(?<=[a-z])(?:skiy|skii|skij|skyi|sky)$", "ski"),  # Russian adjectival endings
    (r"(?<=[a-z])(?:iy|ii|ij|yj|yi)$", "y"),
    (r"(?<=[aeo])[iyj]$", "y"),  # Tolstoy / Tolstoi
    (r"tsch|tch", "ch"),  # German / French / English renderings of ч
    (r"(?<=[aeiou])[yj](?=[aeiou])", ""),  # Dostoyevsky / Dostoevsky, Tsvetayeva
    (r"(?<=[a-z])ue", "u"), (r"(?<=[a-z])oe", "o"), (r"(?<=[a-z])ae", "a"),  # ü ö ä spelt out
    (r"^(?:ye|je)", "e"),  # Yeltsin / Jelzin / Eltsin
    (r"kh", "h"), (r"ks", "x"), (r"w", "v"), (r"ph", "f"), (r"ou", "u"),
    (r"(?<=[a-z])(?:ya|ja|ia)$", "a"), (r"(?:yu|ju|iu)", "u"), (r"(?:ya|ja|ia)", "a"),
    (r"(.)\1+", r"\1"),  # doubled letters: Mohammed / Mohamed
)
_TRANSLITERATION = tuple((re.compile(p), r) for p, r in TRANSLITERATION_RULES)
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
    for pattern, replacement in _TRANSLITERATION:
        key = pattern.sub(replacement, key)
    return key
