"""The default parser: the rules for author-date (APA-like) references, which they read
well and which their tests pin down, the trained CRF for everything else.

A reference whose author block is followed by a date ("Smith, J. (2019).", "World
Health Organization (WHO). (n.d.).", "IPCC. 2013.") is read by the rules (:mod:`.core`); when they
find a title and authors or a year, their reading is kept. Every other reference, and an
author-date one the rules cannot complete, is read by the CRF (:mod:`.crf`). Only one
parser runs for most references.
"""

from __future__ import annotations

import re

from verifier.citations.models import Citation
from verifier.value_memos import value_memo

from .core import parse_citation as parse_rules
from .crf import parse_trained

_AUTHOR_DATE = re.compile(
    r"^(?:[^()\[\]\"“”]|\([^()]{1,80}\)){2,400}?"
    r"(?:[(\[]\s*(?:\d{3,4}[a-z]?|n\.\s?d\.?|in press|[^()]{0,20}\bcentury\b[^()]{0,12})"
    r"(?:\s*,[^()\[\]]{0,30})?\s*[)\]]\s*[.,:]"
    r"|\.\s(?:1[5-9]|20)\d\d[a-z]?\.\s)",
    re.I,
)
"""An author block (which may hold a bracketed acronym or role: "(WHO)", "(Ed.)") and
then a date: "(2019).", "(n.d.).", "(4th century BCE).", or a bare ". 2013. "."""


PARSE_CACHE_SIZE = 8192
"""Parsed references kept in memory, least recently used out: a text checked again (a
reference list cited twice, a re-run in one process) is not parsed again. A
:class:`Citation` is immutable, so one value may serve every caller; a few kilobytes
each, so some tens of megabytes at most."""


@value_memo(PARSE_CACHE_SIZE)
def parse_citation(text: str) -> Citation:
    """Parse one free-text reference (see the module docstring for which parser reads
    it). Never raises on any text. Pure, so memoised (:data:`PARSE_CACHE_SIZE`)."""
    return _parse(text)


def _parse(text: str) -> Citation:
    if _AUTHOR_DATE.match(text[:500].lstrip()):
        ruled = parse_rules(text)
        if ruled.title and (ruled.authors or ruled.year is not None):
            return ruled
    return parse_trained(text)
