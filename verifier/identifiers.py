"""Identifiers found in citation text: DOI, arXiv id, PMID, PMCID, ISBN, ISSN and URL.

Each finder returns the identifier in a canonical form (a DOI lower-case and without
resolver prefix or URL query, an ISBN as digits only, an ISSN as "NNNN-NNNC", an arXiv id
without version) or nothing. Check digits are verified for ISBN and ISSN, so a mistyped
number is not sent to a database as if it were one.

What counts as found, so that ordinary numbers are not taken for identifiers:

- an ISBN either labelled "ISBN" or unmistakable without the label: 13 digits starting
  978/979, or a hyphenated ISBN-10 in its four groups ("0-306-40615-2");
- an ISSN only when labelled "ISSN" (an unlabelled "1234-5678" is as likely a page range);
- an arXiv id only after "arXiv", in an arxiv.org link or in an arXiv DOI;
- a PMID only when labelled "PMID" or in a PubMed link (a bare number is not a PMID).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

# A DOI starts "10.<registrant>/" and runs to the next space or quote; what trails it
# (sentence punctuation, an unbalanced bracket) is trimmed afterwards.
_DOI = re.compile(r"(?<![0-9A-Za-z.])10\.\d{4,9}/[^\s\"<>“”‘’]+")
_DOI_PREFIX = re.compile(r"^\s*(?:https?://)?(?:dx\.)?(?:doi\.org/|doi:\s*|doi\s+)", re.I)
_ENCODED_SLASH = re.compile(r"%2F", re.I)
_TRAILING = ".,;:'\"”’!?*"
_URL = re.compile(r"https?://[^\s<>\"“”]+", re.I)
_DOI_RESOLVER = re.compile(r"^https?://(?:dx\.)?doi\.org/", re.I)
# New style "YYMM.NNNNN" (4 digits before 2015), old style "archive(.SUBJECT)/YYMMNNN".
_ARXIV = re.compile(
    r"(?:\barxiv(?::\s*|\s+)|arxiv\.org/(?:abs|pdf)/|10\.48550/arxiv\.)"
    r"(?:(?P<new>\d{2}(?:0[1-9]|1[0-2])\.\d{4,5})"
    r"|(?P<archive>[a-z]+(?:-[a-z]+)?)(?:\.[a-z][a-z-]{1,9})?/(?P<old>\d{2}(?:0[1-9]|1[0-2])\d{3}))"
    r"(?:v(?P<version>\d+))?(?![\d])",
    re.I,
)
_PMID = re.compile(
    r"(?:\bPMID:?\s*|pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(?P<id>\d{1,8})\b",
    re.I,
)
_PMCID = re.compile(r"\b(?P<id>PMC\d{4,9})\b", re.I)
# A run of digit groups separated by single hyphens or spaces, possibly ending in "X";
# not inside a word, a DOI or a URL path (Springer DOIs embed ISBNs: "10.1007/978-3-…").
# The look-behind follows the first digit (it tests the same character before it), so the
# pattern starts with a digit and the search skips other characters quickly.
_ISBN_RUN = re.compile(r"\d(?<![\w/.\-‐]\d)(?:[ \-‐]?\d){8,}(?:[ \-‐]?[Xx])?(?![\w/\-‐])")
_ISBN_LABEL = re.compile(r"\bISBN(?:-?1[03])?\s*(?:\([^()]{0,20}\)\s*)?:?\s*$", re.I)
_ISBN_LABEL_REACH = 40
"""Characters before a run searched for its "ISBN" label."""
_ISBN_SEPARATOR = re.compile(r"[ \-‐]")
_ISSN = re.compile(
    r"\b(?:e-?|p-?)?ISSN(?:\s*\([^()]{0,20}\))?:?\s*(?P<id>\d{4}\s*-?\s*\d{3}[\dXx])\b", re.I
)
# Where a DOI found in a link ends: the link's query string or fragment is not part of it
# (a "?" or "#" inside a DOI is percent-encoded in a URL).
_URL_TAIL = re.compile(r"[?#].*$", re.S)


def _may_hold(text: str, *words: str) -> bool:
    """False only when none of ``words`` (lower-case ASCII) can match in ``text`` case-
    insensitively: ASCII text whose lower case contains none of them. Other text may
    hold letters that case-insensitive matching reads as ASCII ("ı" as "i", "ſ" as "s"):
    always True. The finders below skip their pattern when a word every match contains
    is absent (property-tested against the patterns alone)."""
    if not text.isascii():
        return True
    lower = text.lower()
    return any(word in lower for word in words)


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


def _in_link(text: str, start: int) -> bool:
    """True when position ``start`` of ``text`` lies inside a link ("https://…/10.…")."""
    token_start = max(text.rfind(c, 0, start) for c in " \t\n\r(<[\"'“") + 1
    token = text[token_start:start].lower()
    return "://" in token or token.startswith("www.")


def find_doi(text: str) -> str | None:
    """The first DOI in ``text``, lower-case, without "https://doi.org/", "doi:", trailing
    punctuation or, in a link, the link's query string; None when there is none.

    >>> find_doi("Nature, 407, 913-918. https://doi.org/10.1038/35038010.")
    '10.1038/35038010'
    >>> find_doi("https://doi.org/10.1000/ABC?utm_source=x")
    '10.1000/abc'
    """
    if "10." not in text:
        return None  # every DOI starts "10." (decoding "%2F" cannot make one)
    # A DOI in a link may arrive with its "/" percent-encoded ("10.1000%2Fabc").
    text = _ENCODED_SLASH.sub("/", text)
    for match in _DOI.finditer(text):
        candidate = match.group(0)
        if _in_link(text, match.start()):
            candidate = _URL_TAIL.sub("", candidate)
        doi = _canonical_doi(candidate)
        if doi:
            return doi
    return None


def normalize_doi(s: str) -> str | None:
    """``s`` (a bare DOI, a "doi:" string or a doi.org URL) as a lower-case bare DOI, or
    None when ``s`` holds no DOI. Use it to compare DOIs from different sources."""
    if _URL.match(s.strip()):
        s = _URL_TAIL.sub("", s.strip())
    return find_doi(strip_doi_prefix(s))


def strip_doi_prefix(s: str, *, lower: bool = True) -> str:
    """A DOI field as a service gives it ("doi:…", "https://doi.org/…" or bare), without
    the prefix, trimmed and lower-cased (with ``lower``; else in its given case). Unlike
    :func:`normalize_doi` it keeps every character: a service's DOI field is a DOI as is,
    "<" and ">" included (SICI DOIs)."""
    bare = s.strip()
    # _DOI_PREFIX can only match text starting "h", "d" (either case) or a character
    # whose case folding might reach one; a bare DOI ("10.") is left as it is.
    first = bare[:1]
    if first in _PREFIX_STARTS or not first.isascii():
        bare = _DOI_PREFIX.sub("", bare, count=1).strip()
    return bare.lower() if lower else bare


_PREFIX_STARTS = frozenset("hHdD")
"""The first characters (ASCII) of a text :data:`_DOI_PREFIX` matches, once stripped."""


def find_url(text: str) -> str | None:
    """The first http(s) URL in ``text`` that is not a DOI resolver link, trailing
    punctuation removed; None when there is none."""
    if "://" not in text:
        return None
    for match in _URL.finditer(text):
        url = _trim_doi(match.group(0))
        if not _DOI_RESOLVER.match(url) and len(url) > len("https://x"):
            return url
    return None


# ---------------------------------------------------------------------------------------
# arXiv


def _arxiv_id(match: re.Match[str]) -> str:
    if match.group("new"):
        return match.group("new")
    # Old style: the subject class ("math.AG/…") is not part of the identifier.
    return f"{match.group('archive').lower()}/{match.group('old')}"


def find_arxiv(text: str) -> str | None:
    """An arXiv id named as such in ``text`` ("arXiv:", an arxiv.org link or an arXiv
    DOI), without version suffix; None when there is none.

    New-style ids keep their form ("2101.00001"); old-style ids lose the subject class,
    which arXiv does not count as part of the id ("math.AG/0601001" -> "math/0601001").
    """
    if not _may_hold(text, "arxiv"):
        return None
    match = _ARXIV.search(text)
    return _arxiv_id(match) if match else None


def find_arxiv_versioned(text: str) -> str | None:
    """Like :func:`find_arxiv` but with the version suffix when the text gives one
    ("arXiv:1810.04805v2" -> "1810.04805v2"; without a version, the bare id)."""
    match = _ARXIV.search(text)
    if match is None:
        return None
    version = match.group("version")
    return f"{_arxiv_id(match)}v{int(version)}" if version else _arxiv_id(match)


def split_arxiv_version(arxiv_id: str) -> tuple[str, int | None]:
    """("1810.04805", 2) from "1810.04805v2"; (id, None) when there is no version."""
    match = re.fullmatch(r"(?P<id>.+?)v(?P<version>\d+)", arxiv_id.strip(), re.I)
    if match is None:
        return arxiv_id.strip(), None
    return match.group("id"), int(match.group("version"))


# ---------------------------------------------------------------------------------------
# PubMed


def find_pmid(text: str) -> str | None:
    """A PubMed id given as "PMID: 123" or a PubMed link; None when there is none. A bare
    number is never taken for a PMID."""
    if not _may_hold(text, "pmid", "ncbi"):
        return None
    match = _PMID.search(text)
    return match.group("id") if match else None


def find_pmcid(text: str) -> str | None:
    """A PubMed Central id ("PMC1069123", upper-case); None when there is none."""
    if not _may_hold(text, "pmc"):
        return None
    match = _PMCID.search(text)
    return match.group("id").upper() if match else None


# ---------------------------------------------------------------------------------------
# ISBN


def _isbn_digits(s: str) -> str:
    """``s`` without "ISBN" label, separators and spaces, a final "x" upper-cased."""
    s = re.sub(r"^\s*ISBN(?:-?1[03])?\s*:?", "", s, flags=re.I)
    return re.sub(r"[\s\-‐–]", "", s).upper()


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


def _isbn13_check(first12: str) -> str:
    total = sum((3 if i % 2 else 1) * int(c) for i, c in enumerate(first12))
    return str((10 - total % 10) % 10)


def _isbn10_check(first9: str) -> str:
    total = sum((10 - i) * int(c) for i, c in enumerate(first9))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)


def isbn10_to_13(isbn10: str) -> str | None:
    """The ISBN-13 ("978" + first nine digits + new check digit) of a valid ISBN-10,
    hyphens and spaces allowed; None when ``isbn10`` is not a valid ISBN-10.

    >>> isbn10_to_13("0-306-40615-2")
    '9780306406157'
    """
    digits = _isbn_digits(isbn10)
    if len(digits) != 10 or not isbn_is_valid(digits):
        return None
    return "978" + digits[:9] + _isbn13_check("978" + digits[:9])


def isbn13_to_10(isbn13: str) -> str | None:
    """The ISBN-10 of a valid "978" ISBN-13; None otherwise (a "979" ISBN has no ISBN-10).

    >>> isbn13_to_10("978-0-8044-2957-3")
    '080442957X'
    """
    digits = _isbn_digits(isbn13)
    if len(digits) != 13 or not digits.startswith("978") or not isbn_is_valid(digits):
        return None
    return digits[3:12] + _isbn10_check(digits[3:12])


def valid_isbns(values: Iterable[str]) -> list[str]:
    """The valid ISBNs among ``values`` as bare digits (labels, hyphens and spaces
    removed, each form kept as given), in order, without repeats."""
    found: list[str] = []
    for value in values:
        digits = _isbn_digits(value)
        if isbn_is_valid(digits) and digits not in found:
            found.append(digits)
    return found


def normalize_isbn(s: str) -> str | None:
    """``s`` (an ISBN-10 or ISBN-13, with or without "ISBN" label, hyphens or spaces) as
    its canonical ISBN-13, or None when it is not a valid ISBN. Use it to compare ISBNs:
    the ISBN-10 and ISBN-13 of one book give the same value."""
    digits = _isbn_digits(s)
    if not isbn_is_valid(digits):
        return None
    return digits if len(digits) == 13 else isbn10_to_13(digits)


def _isbn_groups(run: str) -> list[str]:
    return [g for g in _ISBN_SEPARATOR.split(run) if g]


def _isbn_at(groups: list[str], labelled: bool) -> tuple[str, int] | None:
    """The ISBN made of the first groups of ``groups`` (the ISBN-13 first, then the
    ISBN-10) and how many groups it used; None when no prefix of whole groups is a valid
    ISBN acceptable with or without label."""
    for length in (13, 10):
        digits, used = "", 0
        while used < len(groups) and len(digits) < length:
            digits += groups[used].upper()
            used += 1
        if len(digits) != length or not isbn_is_valid(digits):
            continue
        if labelled or (length == 13 and digits[:3] in ("978", "979")):
            return digits, used
        # Unlabelled ISBN-10: only in its hyphenated four-group form.
        if length == 10 and used == 4 and len(groups[3]) == 1:
            return digits, used
    return None


def _isbns_in_run(run: str, labelled: bool) -> list[str]:
    """Every ISBN in one run of digit groups ("ISBN 978-… 0-306-…" holds two)."""
    groups = _isbn_groups(run)
    found: list[str] = []
    while groups:
        hit = _isbn_at(groups, labelled)
        if hit is None:
            groups = groups[1:]
            continue
        found.append(hit[0])
        groups = groups[hit[1] :]
    return found


def find_isbns(text: str) -> tuple[str, ...]:
    """Every ISBN in ``text`` with a valid check digit, as digits (and a final upper-case
    "X"), ISBN-10s as ISBN-10s, in order, without repeats.

    Hyphens and spaces may separate the digit groups. Labelled ("ISBN", "ISBN-13:",
    "ISBN (pbk):") any valid ISBN counts; unlabelled only a 978/979 ISBN-13 or a
    hyphenated four-group ISBN-10, so a phone number or a run of years is not taken.
    """
    found: list[str] = []
    for match in _ISBN_RUN.finditer(text):
        before = text[max(0, match.start() - _ISBN_LABEL_REACH) : match.start()]
        labelled = bool(_ISBN_LABEL.search(before)) or _follows_isbn_list(found, before)
        for isbn in _isbns_in_run(match.group(0), labelled):
            if isbn not in found:
                found.append(isbn)
    return tuple(found)


def _follows_isbn_list(found: list[str], before: str) -> bool:
    """True for the next item of a labelled list ("ISBN 0-306-40615-2, 0-8044-2957-X")."""
    return bool(found) and bool(re.fullmatch(r"\s*[,;/]\s*|\s+", before[-3:]))


# ---------------------------------------------------------------------------------------
# ISSN


def issn_is_valid(issn: str) -> bool:
    """True when ``issn`` ("0028-0836" or "00280836") has a correct check digit."""
    digits = issn.replace("-", "").upper()
    if len(digits) != 8 or not digits[:7].isdigit():
        return False
    total = sum((8 - i) * int(c) for i, c in enumerate(digits[:7]))
    check = (11 - total % 11) % 11
    return digits[7] == ("X" if check == 10 else str(check))


def normalize_issn(s: str) -> str | None:
    """``s`` ("0028-0836", "00280836", "ISSN 1476-4687", "2049-363x") as "NNNN-NNNC"
    with an upper-case "X", or None when it is not an ISSN with a valid check digit."""
    digits = re.sub(r"^\s*[ep]?-?ISSN\s*:?", "", s.strip(), flags=re.I)
    digits = re.sub(r"[\s\-‐–]", "", digits).upper()
    if not issn_is_valid(digits):
        return None
    return f"{digits[:4]}-{digits[4:]}"


def find_issns(text: str) -> tuple[str, ...]:
    """Every ISSN labelled "ISSN" ("eISSN", "ISSN (online):" …) in ``text`` with a valid
    check digit, as "NNNN-NNNC". An unlabelled "NNNN-NNNN" is not taken: it is as likely
    a page range."""
    if not _may_hold(text, "issn"):
        return ()
    found: list[str] = []
    for match in _ISSN.finditer(text):
        issn = normalize_issn(match.group("id"))
        if issn is not None and issn not in found:
            found.append(issn)
    return tuple(found)
