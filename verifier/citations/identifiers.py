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


def find_identifiers(text: str) -> Identifiers:
    """All identifiers ``text`` gives. An arXiv DOI (10.48550/arXiv.…) also fills
    ``arxiv`` (without version; see :func:`find_arxiv_versioned`); ``isbn`` holds the
    ISBNs as written (see :func:`normalize_isbn` to compare them); ``url`` is the first
    link that is not a doi.org link."""
    doi = find_doi(text)
    arxiv = find_arxiv(text) or (find_arxiv(doi) if doi else None)
    return Identifiers(
        doi=doi,
        isbn=find_isbns(text),
        issn=find_issns(text),
        arxiv=arxiv,
        pmid=find_pmid(text),
        pmcid=find_pmcid(text),
        url=find_url(text),
    )
