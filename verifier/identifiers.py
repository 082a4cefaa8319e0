"""Identifiers found in citation text: DOI, arXiv id, PMID, PMCID, ISBN, ISSN and URL.

Each finder returns the identifier in a canonical form (a DOI lower-case and without
resolver prefix, an ISBN as digits only) or nothing. Check digits are verified for ISBN
and ISSN, so a mistyped number is not sent to a database as if it were one.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .models import Identifiers

# A DOI starts "10.<registrant>/" and runs to the next space or quote; what trails it
# (sentence punctuation, an unbalanced bracket) is trimmed afterwards.
_DOI = re.compile(r"(?<![0-9A-Za-z.])10\.\d{4,9}/[^\s\"<>“”‘’]+")
_DOI_PREFIX = re.compile(r"^\s*(?:https?://)?(?:dx\.)?(?:doi\.org/|doi:\s*|doi\s+)", re.I)
_ENCODED_SLASH = re.compile(r"%2F", re.I)
_TRAILING = ".,;:'\"”’!?*"
_URL = re.compile(r"https?://[^\s<>\"“”]+", re.I)
_DOI_RESOLVER = re.compile(r"^https?://(?:dx\.)?doi\.org/", re.I)
_ARXIV = re.compile(
    r"(?:arxiv:\s*|arxiv\.org/(?:abs|pdf)/|10\.48550/arxiv\.)"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7})(?:v\d+)?",
    re.I,
)
_PMID = re.compile(
    r"(?:\bPMID:?\s*|pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(?P<id>\d{1,8})\b",
    re.I,
)
_PMCID = re.compile(r"\b(?P<id>PMC\d{4,9})\b", re.I)
# Hyphens only between the digits: a space-separated run could swallow a following year.
_ISBN = re.compile(r"\bISBN(?:-1[03])?:?\s*(?P<id>[0-9][0-9-]{8,16}[0-9Xx])(?![0-9-])", re.I)
_ISSN = re.compile(r"\b(?:e-?|p-?)?ISSN:?\s*(?P<id>\d{4}\s*-?\s*\d{3}[\dXx])\b", re.I)


def _trim_doi(candidate: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a DOI."""
    while candidate:
        last = candidate[-1]
        if last in _TRAILING:
            candidate = candidate[:-1]
        elif last == ")" and candidate.count("(") < candidate.count(")"):
            candidate = candidate[:-1]
        elif last == "]" and candidate.count("[") < candidate.count("]"):
            candidate = candidate[:-1]
        else:
            break
    return candidate


def _canonical_doi(candidate: str) -> str | None:
    if "%" in candidate:
        candidate = unquote(candidate)
    doi = _trim_doi(candidate).lower()
    # "10.1234/" alone is a prefix, not a DOI.
    return doi if "/" in doi and not doi.endswith("/") else None


def find_doi(text: str) -> str | None:
    """The first DOI in ``text``, lower-case, without "https://doi.org/", "doi:" or
    trailing punctuation; None when there is none.

    >>> find_doi("Nature, 407, 913-918. https://doi.org/10.1038/35038010.")
    '10.1038/35038010'
    """
    # A DOI in a link may arrive with its "/" percent-encoded ("10.1000%2Fabc").
    for match in _DOI.finditer(_ENCODED_SLASH.sub("/", text)):
        doi = _canonical_doi(match.group(0))
        if doi:
            return doi
    return None


def normalize_doi(s: str) -> str | None:
    """``s`` (a bare DOI, a "doi:" string or a doi.org URL) as a lower-case bare DOI, or
    None when ``s`` holds no DOI. Use it to compare DOIs from different sources."""
    return find_doi(strip_doi_prefix(s))


def strip_doi_prefix(s: str) -> str:
    """A DOI field as a service gives it ("doi:…", "https://doi.org/…" or bare), without
    the prefix, trimmed and lower-cased. Unlike :func:`normalize_doi` it keeps every
    character: a service's DOI field is a DOI as is, "<" and ">" included (SICI DOIs)."""
    return _DOI_PREFIX.sub("", s.strip(), count=1).strip().lower()


def find_url(text: str) -> str | None:
    """The first http(s) URL in ``text`` that is not a DOI resolver link, trailing
    punctuation removed; None when there is none."""
    for match in _URL.finditer(text):
        url = _trim_doi(match.group(0))
        if not _DOI_RESOLVER.match(url) and len(url) > len("https://x"):
            return url
    return None


def find_arxiv(text: str) -> str | None:
    """An arXiv id ("2101.00001", "hep-th/9901001") named as such in ``text`` ("arXiv:",
    an arxiv.org link or an arXiv DOI), without version suffix; None when there is none."""
    match = _ARXIV.search(text)
    return match.group("id").lower() if match else None


def find_pmid(text: str) -> str | None:
    """A PubMed id given as "PMID: 123" or a PubMed link; None when there is none."""
    match = _PMID.search(text)
    return match.group("id") if match else None


def find_pmcid(text: str) -> str | None:
    """A PubMed Central id ("PMC1069123", upper-case); None when there is none."""
    match = _PMCID.search(text)
    return match.group("id").upper() if match else None


def isbn_is_valid(isbn: str) -> bool:
    """True when ``isbn`` (digits, possibly a final "X") is an ISBN-10 or ISBN-13 with a
    correct check digit."""
    if len(isbn) == 10 and isbn[:9].isdigit() and (isbn[9].isdigit() or isbn[9] in "Xx"):
        digits = [10 if c in "Xx" else int(c) for c in isbn]
        return sum((10 - i) * d for i, d in enumerate(digits)) % 11 == 0
    if len(isbn) == 13 and isbn.isdigit():
        total = sum((3 if i % 2 else 1) * int(c) for i, c in enumerate(isbn))
        return total % 10 == 0
    return False


def find_isbns(text: str) -> tuple[str, ...]:
    """Every ISBN labelled "ISBN" in ``text`` with a valid check digit, as digits (and a
    final upper-case "X"), in order, without repeats."""
    found: list[str] = []
    for match in _ISBN.finditer(text):
        isbn = re.sub(r"[\s-]", "", match.group("id")).upper()
        if isbn_is_valid(isbn) and isbn not in found:
            found.append(isbn)
    return tuple(found)


def issn_is_valid(issn: str) -> bool:
    """True when ``issn`` ("0028-0836" or "00280836") has a correct check digit."""
    digits = issn.replace("-", "").upper()
    if len(digits) != 8 or not digits[:7].isdigit():
        return False
    total = sum((8 - i) * int(c) for i, c in enumerate(digits[:7]))
    check = (11 - total % 11) % 11
    return digits[7] == ("X" if check == 10 else str(check))


def find_issns(text: str) -> tuple[str, ...]:
    """Every ISSN labelled "ISSN" in ``text`` with a valid check digit, as "NNNN-NNNC"."""
    found: list[str] = []
    for match in _ISSN.finditer(text):
        digits = re.sub(r"[\s-]", "", match.group("id")).upper()
        issn = f"{digits[:4]}-{digits[4:]}"
        if issn_is_valid(issn) and issn not in found:
            found.append(issn)
    return tuple(found)


def find_identifiers(text: str) -> Identifiers:
    """All identifiers ``text`` gives. An arXiv DOI (10.48550/arXiv.…) also fills
    ``arxiv``; ``url`` is the first link that is not a doi.org link."""
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
