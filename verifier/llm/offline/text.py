"""Lexical primitives of the offline model: sentences, terms, numbers, negation, direction.

Everything here is a pure function of its text, deterministic and language-agnostic only
in the sense that it is tuned for English scientific prose:

- :func:`sentences` splits on sentence-final punctuation followed by a capital, digit or
  bracket, on line breaks and on runs of 3+ spaces (structured abstracts);
- :func:`terms` lower-cases, keeps alphanumeric words (hyphenated parts split), drops
  stopwords and citation markers, and reduces each word by :func:`stem`, a light suffix
  stripper (plurals, -ing, -ed, -ly), not Porter;
- :func:`numbers` reads the numeric values a text states (``12``, ``3.5``, ``40%``,
  ``1,200``) as normalised strings, so ``40 %`` and ``40%`` agree;
- :func:`negations` counts negation cues (``not``, ``no``, ``never``, ``without``,
  ``fails to``, ``lack of`` …);
- :func:`directions` maps direction words (``increase``/``decrease``, ``higher``/``lower``
  …) onto signed axes so that a statement and a passage that move the same quantity in
  opposite directions can be seen.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])|\n+|\s{3,}")
_WRAPPED_LINE = re.compile(r"(?<=[^\n]{40})(?<![.!?:])[ \t]*\n(?![ \t]*\n)[ \t]*")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CITATION_MARKER = re.compile(r"\[<\|[a-z_]+\|>\]|\[\d+(?:[,–-]\s*\d+)*\]")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(%|percent\b)?")

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be been before being
below between both but by can could did do does doing down during each either few for from
further had has have having he her here hers herself him himself his how i if in into is it
its itself just may me might more most must my myself of off on once only or other our ours
ourselves out over own same shall she should so some such than that the their theirs them
themselves then there these they this those through to too under until up upon very via
was we were what when where which while who whom why will with would you your yours
yourself yourselves et al eg ie etc using used use based whether thus however therefore
within among per one two three
""".split())
"""Function words dropped before matching. Negation words are *not* here: they are counted
by :func:`negations` and also kept as terms only where they carry content (``no`` is a
stopword-like cue, so it is dropped from terms and counted as a negation instead)."""

_NEGATION_TERMS = frozenset({
    "not", "no", "never", "none", "neither", "nor", "without", "cannot", "nothing",
    "nobody", "absence", "absent", "lack", "lacks", "lacking", "lacked", "fail", "fails",
    "failed", "unable", "unaffected", "unchanged", "insignificant", "nonsignificant",
})
"""Words that negate or deny what follows. ``n't`` contractions count as ``not``."""

_DIRECTION_AXES: dict[str, tuple[str, int]] = {}
for _axis, _up, _down in (
    ("change", "increase increases increased increasing elevate elevates elevated "
               "elevation raise raises raised rise rises rising enhance enhances enhanced "
               "enhancement upregulate upregulates upregulated upregulation promote "
               "promotes promoted gain gains gained accelerate accelerates accelerated",
     "decrease decreases decreased decreasing reduce reduces reduced reducing reduction "
     "lower lowers lowered diminish diminishes diminished downregulate downregulates "
     "downregulated downregulation inhibit inhibits inhibited inhibition suppress "
     "suppresses suppressed suppression loss lose loses lost decline declines declined "
     "attenuate attenuates attenuated impair impairs impaired"),
    ("amount", "higher more greater larger high greatest highest largest longer",
     "lower less fewer smaller low lowest least smallest shorter"),
    ("effect", "positive positively beneficial benefit improves improved improve",
     "negative negatively harmful detrimental worsens worsened worse"),
    ("risk", "risk", "protective protects protect protection"),
    ("association", "associated correlated linked", "unassociated uncorrelated unrelated"),
):
    for _word in _up.split():
        _DIRECTION_AXES.setdefault(_word, (_axis, 1))
    for _word in _down.split():
        _DIRECTION_AXES.setdefault(_word, (_axis, -1))
"""Direction words on a few signed axes (word → (axis, +1 | -1))."""


def sentences(text: str) -> list[str]:
    """The non-empty sentences of ``text``, stripped, in order.

    A blank line always ends a sentence; a single line break does too after
    sentence-final punctuation or a colon, or after a short line (under 40 characters:
    a title or heading), and otherwise reads as a space (prose wrapped in lines)."""
    parts = _SENTENCE_BREAK.split(_WRAPPED_LINE.sub(" ", text))
    return [part.strip() for part in parts if part and part.strip()]


def words(text: str) -> list[str]:
    """Lower-cased word tokens, citation markers removed, ``n't`` read as ``not``."""
    cleaned = _CITATION_MARKER.sub(" ", text.lower()).replace("n't", " not")
    return _WORD.findall(cleaned.replace("’", "'"))


def stem(word: str) -> str:
    """A light, deterministic suffix stripper: enough to match ``cells``/``cell``,
    ``reduced``/``reduces``/``reduce`` and ``binding``/``binds`` (not Porter)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if not word.endswith(suffix) or (suffix == "s" and word.endswith(("ss", "us", "is"))):
            continue
        base = word[: len(word) - len(suffix)] + replacement
        if len(base) < 3:
            continue
        # Undo the consonant doubling of "stopped" / "mapping".
        if suffix in {"ing", "ed"} and len(base) > 3 and base[-1] == base[-2] \
                and base[-1] not in "lsz":
            base = base[:-1]
        return _trim_e(base)
    return _trim_e(word)


_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ness", ""), ("ing", ""), ("ed", ""),
             ("ly", ""), ("es", ""), ("s", ""))


def _trim_e(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def terms(text: str) -> list[str]:
    """Content terms of ``text`` in order: stemmed words that are neither stopwords nor
    negation cues."""
    return [stem(word) for word in words(text)
            if word not in STOPWORDS and word not in _NEGATION_TERMS and len(word) > 1]


def bigrams(items: Iterable[str]) -> set[tuple[str, str]]:
    """Adjacent pairs of ``items``."""
    sequence = list(items)
    return set(zip(sequence, sequence[1:], strict=False))


def numbers(text: str) -> set[str]:
    """The numeric values ``text`` states, normalised (``1,200`` → ``1200``, ``3.50`` →
    ``3.5``, a percent sign kept as a suffix). Citation markers are ignored."""
    found: set[str] = set()
    for match in _NUMBER.finditer(_CITATION_MARKER.sub(" ", text)):
        raw = match.group(1).replace(",", "")
        value = float(raw)
        if not math.isfinite(value):
            continue
        normal = f"{value:g}" if "." in raw else str(int(raw))
        found.add(normal + ("%" if match.group(2) else ""))
    return found


def numbers_agree(stated: str, available: set[str]) -> bool:
    """Whether the value ``stated`` is among ``available``, a percentage also matching the
    same bare number (``40%`` against ``40``)."""
    return stated in available or stated.rstrip("%") in {v.rstrip("%") for v in available}


def negations(text: str) -> int:
    """How many negation cues ``text`` contains."""
    return sum(1 for word in words(text) if word in _NEGATION_TERMS)


def directions(text: str) -> dict[str, int]:
    """The net direction per axis that ``text`` asserts (axis → +1 or -1; axes whose
    words cancel out, or that do not occur, are absent). A negation in the same sentence
    flips the sign ("did not increase" reads as a decrease)."""
    net: dict[str, int] = {}
    for sentence in sentences(text) or [text]:
        flip = -1 if negations(sentence) % 2 else 1
        for word in words(sentence):
            axis = _DIRECTION_AXES.get(word)
            if axis is not None:
                net[axis[0]] = net.get(axis[0], 0) + axis[1] * flip
    return {axis: (1 if value > 0 else -1) for axis, value in net.items() if value}


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: one per four characters, rounded up (the usual
    rule of thumb for English with BPE tokenizers; no tokenizer is loaded)."""
    return (len(text) + 3) // 4
