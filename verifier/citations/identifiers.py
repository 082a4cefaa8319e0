"""A citation's identifiers, found in its text with the standards of :mod:`verifier.identifiers`."""

from __future__ import annotations

from verifier.identifiers import (
    find_arxiv,
    find_doi,
    find_isbns,
    find_issns,
    find_pmcid,
    find_pmid,
    find_url,
)

from .models import Identifiers

_NO_IDENTIFIERS = Identifiers()
"""What a text without identifiers gives (most references): one shared immutable value."""
_RARE_WORDS = ("arxiv", "pmid", "ncbi", "pmc", "issn")
"""The words one of which the arXiv, PubMed and ISSN finders need (lower-case ASCII)."""


def _has_rare_word(lower: str) -> bool:
    for word in _RARE_WORDS:
        if word in lower:
            return True
    return False


def find_identifiers(text: str) -> Identifiers:
    """All identifiers ``text`` gives. An arXiv DOI (10.48550/arXiv.…) also fills
    ``arxiv`` (without version; see :func:`find_arxiv_versioned`); ``isbn`` holds the
    ISBNs as written (see :func:`normalize_isbn` to compare them); ``url`` is the first
    link that is not a doi.org link."""
    doi = find_doi(text)
    isbn = find_isbns(text)
    url = find_url(text)
    # Each of the four finders below returns nothing for ASCII text whose lower case
    # holds none of its words, and all their words are rare: tested once here for all
    # (the same result, property-tested).
    if text.isascii() and not _has_rare_word(text.lower()):
        if not (doi or isbn or url):
            return _NO_IDENTIFIERS
        arxiv = find_arxiv(doi) if doi else None
        return Identifiers(doi=doi, isbn=isbn, arxiv=arxiv, url=url)
    arxiv = find_arxiv(text) or (find_arxiv(doi) if doi else None)
    return Identifiers(
        doi=doi,
        isbn=isbn,
        issn=find_issns(text),
        arxiv=arxiv,
        pmid=find_pmid(text),
        pmcid=find_pmcid(text),
        url=url,
    )
