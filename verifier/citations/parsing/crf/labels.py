"""The labels the CRF gives tokens, and what each becomes in a citation."""

from __future__ import annotations

OUTSIDE = "O"
"""Untagged text: punctuation between fields, "In:", "pp." outside a span and the like."""

LABELS: tuple[str, ...] = (
    "author",
    "editor",
    "translator",
    "title",
    "journal",
    "container",
    "collection",
    "date",
    "volume",
    "issue",
    "pages",
    "publisher",
    "institution",
    "location",
    "edition",
    "genre",
    "note",
    "id",
    "number",
    "collaboration",
    OUTSIDE,
    "O>author",
    "O>title",
    "O>journal",
    "O>container",
    "O>editor",
)
"""Every label: ``journal`` is a journal's name, ``container`` a book or proceedings
that holds the work, ``collection`` a series; ``genre`` says thesis / report (with its
number); ``id`` is a DOI, URL, arXiv id, ISBN or the like; ``number`` a citation's list
number. ``O>title`` and the like are ``O`` after a run of that label (see
:func:`.gold.remember_outside`); every label starting with "O" is outside any field."""

REMEMBERED = frozenset({"author", "title", "journal", "container", "editor"})
"""The labels whose following ``O`` tokens remember them."""


def is_outside(label: str) -> bool:
    """True for ``O`` and its remembering variants (``O>title`` ...)."""
    return label[:1] == "O"
