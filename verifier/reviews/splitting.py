"""A review text split into comments: one comment per point the reviewer makes.

:func:`split_review` works on any review text (eLife decision letters and public reviews,
OpenReview reviews) by these rules, in order:

1. **Blocks.** Lines are grouped into blocks separated by blank lines; a line that starts
   with a list marker (:data:`MARKER`: ``-``, ``*``, ``•``, ``1.``, ``1)``, ``(1)``,
   ``(i)``, ``a)``) starts a new block even without a blank line before it.
2. **Dropped.** Blocks matching a ``drop`` pattern (the caller's boilerplate; always
   :data:`DROP`: editors' notes, DOI lines, bare "Yes."/"No."/"N/A" answers, bare
   pointers such as "See above.") are removed.
3. **Headings.** A block's leading line is a heading, removed, when it is (a) in capitals
   (``SUMMARY:``, ``STRENGTHS AND WEAKNESSES:``), (b) a bold, ``#`` or bracketed line
   (``**Weaknesses:**``, ``[Strengths]``), (c) at most :data:`HEADING_WORDS` words ending
   with a colon (``Essential revisions:``), (d) one capitalised word (``Clarity.``), or
   (e) at most three words with no final punctuation, with or without a list marker
   (``Weaknesses``, ``- Strengths``). Section names are not comments.
4. **Lead-ins.** A block ending with a colon (``Other points:`` followed by a list) is
   joined with the next block, so the first point keeps its context.
5. **Comments.** Every remaining block is one comment: each numbered or bulleted point,
   each prose paragraph. Inline enumerations inside a paragraph (``(i) … (ii) …``) stay
   in one comment. Text is kept as written (marker included), stripped; blocks with no
   letter are dropped.

:func:`comments_of` applies it to every review of a paper and numbers the comments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .models import Comment, ItemError, Paper

MARKER = re.compile(
    r"^\s*(?:[-*•+]\s+|\d{1,2}[.)](?:\s+|$)|\(\d{1,2}\):?\s*|\(?(?:i|ii|iii|iv|v|vi|vii|viii|ix|x)\)\s+"
    r"|[a-h]\)\s+)"
)
HEADING_WORDS = 8
DROP: tuple[re.Pattern[str], ...] = (
    re.compile(r"^\s*DOI:\s*\S"),
    re.compile(r"^\s*\[Editors?['’]? note", re.IGNORECASE),
    # A bare answer to a form question ("Limitations addressed?" → "Yes.").
    re.compile(r"^\W*(?:yes|no|n/?a|none)\W*$", re.IGNORECASE),
    # A pointer to another comment is not a comment.
    re.compile(r"^\W*(?:\d{1,2}\.\s*)?(?:please\s+)?see\s+(?:\S+\s*){0,4}$", re.IGNORECASE),
    # Short form answers: "No questions.", "Yes, addressed.", "Not applicable."
    re.compile(r"^\W*(?:yes|no|none|nothing|not applicable|n/?a)(?:[,.!;]|\s+(?:further\s+)?"
               r"(?:questions?|limitations?|concerns?|such limitations?|to report)\b)"
               r"[^\n]{0,20}$", re.IGNORECASE),
)
"""Blocks that are never comments, whatever the source."""

_CAPS_HEADING = re.compile(r"^[A-Z][A-Z0-9 &/,()'-]*:?$")
_MARKUP_HEADING = re.compile(r"^(?:#{1,6}\s+.+|\*\*[^*]+\*\*:?|__[^_]+__:?)$")
_BRACKET_HEADING = re.compile(r"^\[[^\]]{1,40}\]:?$")
_ONE_WORD = re.compile(r"^[A-Z][\w-]*[.:]?$")
_FINAL_PUNCTUATION = (".", "?", "!", ";", ",", ")", "]", '"', "”")


def _short_label(text: str) -> bool:
    return 0 < len(text.split()) <= 3 and not text.endswith(_FINAL_PUNCTUATION)


def is_heading(line: str) -> bool:
    """Rule 3 of the module docstring, plus list items that are only a short label
    (``- Strengths``) and bracketed or one-word labels (``[Weaknesses]``, ``Clarity.``)."""
    text = line.strip()
    if not text:
        return False
    marker = MARKER.match(text)
    if marker:
        label = text[marker.end():].strip()
        return _short_label(label) and not label.endswith(":")  # "- Possible fixes:" leads in
    if _CAPS_HEADING.match(text) and any(c.isalpha() for c in text) or _MARKUP_HEADING.match(text):
        return True
    if _BRACKET_HEADING.match(text) or _ONE_WORD.match(text):
        return True
    words = text.split()
    if text.endswith(":") and len(words) <= HEADING_WORDS:
        return True
    return _short_label(text)


def _blocks(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line.strip():
            if current:
                blocks.append(current)
            current = []
            continue
        if MARKER.match(line) and current:
            blocks.append(current)
            current = []
        current.append(line)
    if current:
        blocks.append(current)
    return blocks


def split_review(text: str, *, drop: Sequence[re.Pattern[str]] = ()) -> list[str]:
    """The comments of one review text (module docstring)."""
    patterns = (*DROP, *drop)
    pieces: list[str] = []
    for block in _blocks(text):
        lines = list(block)
        while lines and is_heading(lines[0]):
            lines.pop(0)
        body = "\n".join(lines).strip()
        if not body or any(p.search(body) for p in patterns):
            continue
        if not any(c.isalpha() for c in body):
            continue
        pieces.append(body)
    comments: list[str] = []
    pending = ""
    for piece in pieces:
        joined = f"{pending}\n{piece}" if pending else piece
        if joined.endswith(":"):
            pending = joined
            continue
        comments.append(joined)
        pending = ""
    if pending:
        comments.append(pending)
    return comments


def comments_of(paper: Paper, source: str = "human", *,
                drop: Sequence[re.Pattern[str]] = ()) -> tuple[list[Comment], list[ItemError]]:
    """Every review of ``paper`` split into comments, numbered
    ``<paper_id>:<source>:<review>.<point>``; a review that yields no comment is an
    :class:`ItemError` naming ``<paper_id>/<reviewer>``."""
    comments: list[Comment] = []
    errors: list[ItemError] = []
    for r, review in enumerate(paper.reviews, start=1):
        points = split_review(review.text, drop=drop)
        if not points:
            errors.append(ItemError(f"{paper.paper_id}/{review.reviewer}",
                                    "the review has no comment after splitting"))
            continue
        comments.extend(
            Comment(paper.paper_id, f"{paper.paper_id}:{source}:{r}.{k}", source, point,
                    review.reviewer)
            for k, point in enumerate(points, start=1)
        )
    return comments, errors
