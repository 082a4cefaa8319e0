"""Premise decomposition, offline baseline: a review comment → its declarative sentences.

Rules (deterministic, no understanding of the comment):

1. the comment is split into sentences, and each sentence at ``;``;
2. leading discourse words and hedges are dropped ("I think", "It seems that",
   "However,", "Moreover,", "Minor:", "1." …) and the first letter is capitalised;
3. questions (ending in ``?``) are dropped: the baseline cannot rewrite a question into
   the assertion it implies;
4. fragments of fewer than four words are dropped, duplicates (case-insensitive) kept once;
5. each premise ends with a full stop; at most :data:`MAX_PREMISES` are kept, in order.

When nothing survives, the whole comment (whitespace collapsed) is the one premise, so a
non-empty comment always yields at least one premise; an empty comment yields none.
"""

from __future__ import annotations

import re

from verifier.llm.offline.text import sentences

MAX_PREMISES = 6
MIN_WORDS = 4

_LEADING = re.compile(
    r"(?i)^(?:\(?\d+[.)]|[-*•]|minor|major|"
    r"i (?:think|believe|feel|suspect|wonder if)(?: that)?|it (?:seems|appears)(?: that)?|"
    r"in my (?:opinion|view)|to me|overall|also|moreover|furthermore|however|additionally|"
    r"in addition|first(?:ly)?|second(?:ly)?|third(?:ly)?|finally|further|besides|"
    r"unfortunately|importantly|specifically|in particular|that said)[\s,:;]+")


def decompose(comment: str) -> list[str]:
    """The comment's premises: 1–6 declarative sentences taken from it (see module doc)."""
    premises: list[str] = []
    seen: set[str] = set()
    for sentence in sentences(comment):
        for part in sentence.split(";"):
            premise = _clean(part)
            if premise is None or premise.lower() in seen:
                continue
            seen.add(premise.lower())
            premises.append(premise)
    if premises:
        return premises[:MAX_PREMISES]
    whole = " ".join(comment.split())
    return [whole] if whole else []


def _clean(part: str) -> str | None:
    text = part.strip()
    if text.endswith("?"):
        return None
    previous = None
    while previous != text:
        previous, text = text, _LEADING.sub("", text, count=1).strip()
    text = text.rstrip(" .;:,!")
    if len(text.split()) < MIN_WORDS:
        return None
    return text[0].upper() + text[1:] + "."
