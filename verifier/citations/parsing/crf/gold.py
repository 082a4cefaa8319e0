"""Token labels from the hand-labelled spans of ``parsing_gold`` (training only).

The two corpora label the same things under different names (AnyStyle ``journal``,
GROBID ``title[level=j]``); :data:`RAW_LABELS` maps both to this parser's labels (see
:data:`.labels.LABELS`). GROBID's ``title[level=m]`` is the container when the reference
also has an article or journal title, else the title (a monograph), as the corpus
README's type rules read it.

The corpora also disagree on punctuation: AnyStyle spans include the punctuation around
a field ("(2004)."), GROBID spans mostly exclude it. So a punctuation mark at either
edge of a span is labelled ``O`` in both, and the labels mean the same everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .labels import OUTSIDE, REMEMBERED
from .tokens import Token, tokenize

RAW_LABELS: Mapping[str, str] = {
    # AnyStyle
    "author": "author",
    "editor": "editor",
    "translator": "translator",
    "title": "title",
    "journal": "journal",
    "container-title": "container",
    "collection-title": "collection",
    "date": "date",
    "volume": "volume",
    "pages": "pages",
    "publisher": "publisher",
    "location": "location",
    "edition": "edition",
    "genre": "genre",
    "note": "note",
    "doi": "id",
    "url": "id",
    "isbn": "id",
    "citation-number": "number",
    "source": "note",
    "director": "note",
    "producer": "note",
    "medium": "note",
    # GROBID
    "authors": "author",
    "title[level=a]": "title",
    "title[level=j]": "journal",
    "title[level=s]": "collection",
    "biblScope[unit=date]": "date",
    "biblScope[unit=volume]": "volume",
    "biblScope[type=vol]": "volume",
    "biblScope[type=volume]": "volume",
    "biblScope[unit=]": "volume",
    "biblScope": "volume",
    "volumes": "volume",
    "biblScope[unit=issue]": "issue",
    "biblScope[type=issue]": "issue",
    "biblScope[level=issue]": "issue",
    "biblScope[unit=page]": "pages",
    "biblScope[unit=pages]": "pages",
    "biblScope[type=pp]": "pages",
    "biblScope[type=page]": "pages",
    "biblStruct[type=page]": "pages",
    "biblScope[type=chapter]": "note",
    "publishe": "publisher",
    "pubPlace": "location",
    "pubplace": "location",
    "orgName": "institution",
    "orgName[type=collaboration]": "collaboration",
    "note[type=report]": "genre",
    "idno[type=report]": "genre",
    "notes": "note",
}
"""Original label -> parser label. ``title[level=m]`` and ``idno[...]`` are read by
:func:`parser_label`."""

_SEPARATOR = re.compile(r"^[^\w?!]+$")


def parser_label(raw: str | None, has_part_title: bool) -> str:
    """The parser label of one original label (``None``: untagged text, ``O``)."""
    if raw is None:
        return OUTSIDE
    if raw in ("title[level=m]", "title[type=m]"):
        return "container" if has_part_title else "title"
    if raw.startswith(("idno", "ptr")):
        return "genre" if raw == "idno[type=report]" else "id"
    return RAW_LABELS.get(raw, "note")


def token_labels(
    text: str, segments: Sequence[Sequence[object]]
) -> tuple[list[Token], list[str]]:
    """The tokens of ``text`` and the label of each, from ``segments``
    (``[label, span, start, end]``, the ``parsing_gold`` format). A token takes the
    label of the segment its first character is in; punctuation at a span's edges is
    ``O``."""
    raw_labels = {str(s[0]) for s in segments if s[0] is not None}
    has_part_title = bool(
        raw_labels & {"title[level=a]", "title[level=j]", "journal", "title"}
    ) and any(r in raw_labels for r in ("title[level=a]", "title[level=j]"))
    char_label = [OUTSIDE] * len(text)
    for raw, _span, start, end in segments:
        label = parser_label(None if raw is None else str(raw), has_part_title)
        for pos in range(int(str(start)), int(str(end))):
            char_label[pos] = label
    tokens = tokenize(text)
    labels = [char_label[t.start] for t in tokens]
    _unlabel_lead_words(tokens, labels)
    _unlabel_edge_punctuation(tokens, labels)
    return tokens, remember_outside(labels)


def remember_outside(labels: Sequence[str]) -> list[str]:
    """``O`` tokens after an author, title, journal, container or editor run labelled
    ``O>author`` ... (:data:`.labels.REMEMBERED`): a first-order CRF forgets across an
    ``O``, and this way the state after the punctuation that closes a title still says
    that a title came before (so the words after it are more likely the container)."""
    result: list[str] = []
    previous = ""
    for label in labels:
        if label == OUTSIDE:
            result.append(f"O>{previous}" if previous in REMEMBERED else OUTSIDE)
        else:
            result.append(label)
            previous = label
    return result


_LEAD_WORDS = frozenset({"in", "dans"})
_LEAD_LABELS = frozenset({"journal", "container", "editor", "collection"})


def _unlabel_lead_words(tokens: Sequence[Token], labels: list[str]) -> None:
    """"In" (and a ":" after it) opening a container, journal or editor span is ``O``:
    AnyStyle puts it inside the span, GROBID outside."""
    for i, token in enumerate(tokens):
        opens = i == 0 or labels[i - 1] != labels[i]
        if opens and labels[i] in _LEAD_LABELS and token.text.lower() in _LEAD_WORDS:
            label = labels[i]
            labels[i] = OUTSIDE
            if i + 1 < len(tokens) and tokens[i + 1].text == ":" and labels[i + 1] == label:
                labels[i + 1] = OUTSIDE


def _unlabel_edge_punctuation(tokens: Sequence[Token], labels: list[str]) -> None:
    """Punctuation tokens at the start or end of a run of one label become ``O``."""
    original = list(labels)
    count = len(tokens)
    punct = [bool(_SEPARATOR.match(t.text)) for t in tokens]
    for i in range(count):
        label = original[i]
        if label == OUTSIDE or not punct[i]:
            continue
        start = i
        while start > 0 and original[start - 1] == label and punct[start - 1]:
            start -= 1
        end = i
        while end + 1 < count and original[end + 1] == label and punct[end + 1]:
            end += 1
        opens_run = start == 0 or original[start - 1] != label
        closes_run = end + 1 == count or original[end + 1] != label
        if opens_run or closes_run:
            labels[i] = OUTSIDE
