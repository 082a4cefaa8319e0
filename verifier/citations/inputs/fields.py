"""From the field values of a structured record (BibTeX, RIS, CSL) to :class:`Citation`
values: years, pages, names and identifiers in the forms the engine compares."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import replace

from verifier.citations.models import Author, Citation, Identifiers
from verifier.identifiers import find_arxiv, isbn_is_valid, issn_is_valid, normalize_doi

_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_DASHES = re.compile(r"\s*(?:-+|[‐‑‒–—―])\s*")
_ISBN_LABEL = re.compile(r"\bISBN(?:-1[03])?:?|\(.*?\)", re.I)
_PMCID = re.compile(r"^PMC\d{4,9}$", re.I)
_INITIALS = re.compile(r"^(?:[A-Z]\.?\s?){1,3}$")


def one_line(value: str) -> str:
    """``value`` with every run of whitespace (newlines included) as one space."""
    return " ".join(value.split())


def year_from(value: object) -> int | None:
    """The first four-digit year in ``value`` ("2019", "2019-03-01", "2019///"), or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1000 <= value <= 2999 else None
    if not isinstance(value, str):
        return None
    match = _YEAR.search(value)
    return int(match.group(1)) if match and 1000 <= int(match.group(1)) <= 2999 else None


def clean_pages(value: str) -> str:
    """A page range with one plain hyphen: "1--9", "1 – 9" -> "1-9"."""
    return _DASHES.sub("-", one_line(value)).strip("-")


def page_range(first: str, last: str) -> str:
    """Pages from a first and a last page, either of which may be missing."""
    first, last = clean_pages(first), clean_pages(last)
    if first and last and "-" not in first:
        return f"{first}-{last}"
    return first or last


def inverted_name(name: str) -> Author:
    """A person written "Family, Given" (RIS): without a comma a lone word is a family
    name, "Smith JA" is Vancouver style, and anything else is an organisation."""
    name = one_line(name)
    if "," in name:
        family, _, given = name.partition(",")
        given = given.split(",")[0]  # "Family, Given, Jr." keeps the given names
        return Author(family=family.strip(), given=given.strip())
    words = name.split()
    if len(words) == 1:
        return Author(family=name)
    if len(words) == 2 and _INITIALS.match(words[1]):
        return Author(family=words[0], given=words[1])
    return Author(literal=name)


def identifiers(
    *,
    doi: str = "",
    isbn: str = "",
    issn: str = "",
    arxiv: str = "",
    url: str = "",
    pmid: str = "",
    pmcid: str = "",
) -> Identifiers:
    """Identifiers from field values as given, each kept only in its canonical form: a
    DOI lower-case and bare (also taken from a doi.org link), ISBNs and ISSNs with a
    valid check digit, an arXiv id without version."""
    url = url.strip()
    link = url if url.lower().startswith(("http://", "https://")) else ""
    found_doi = normalize_doi(doi) if doi.strip() else None
    if found_doi is None and "doi.org/" in link.lower():
        found_doi = normalize_doi(link)
        link = ""
    arxiv_id = find_arxiv("arXiv:" + arxiv.strip().removeprefix("arXiv:")) if arxiv.strip() \
        else None
    return Identifiers(
        doi=found_doi,
        isbn=_valid_numbers(isbn, _as_isbn),
        issn=_valid_numbers(issn, _as_issn),
        arxiv=arxiv_id or (find_arxiv(link) if link else None),
        pmid=pmid.strip() if pmid.strip().isdigit() else None,
        pmcid=pmcid.strip().upper() if _PMCID.match(pmcid.strip()) else None,
        url=link or None,
    )


def _valid_numbers(value: str, canonical: Callable[[str], str | None]) -> tuple[str, ...]:
    """Every number in ``value`` (several may be given, separated by commas, semicolons
    or spaces) that ``canonical`` accepts, in order, without repeats."""
    found: list[str] = []
    for chunk in re.split(r"[,;/|]", value):
        candidates = [chunk, *chunk.split()]
        for candidate in candidates:
            number = canonical(candidate)
            if number:
                if number not in found:
                    found.append(number)
                break
    return tuple(found)


def _as_isbn(candidate: str) -> str | None:
    digits = re.sub(r"[\s-]", "", _ISBN_LABEL.sub("", candidate)).upper()
    return digits if isbn_is_valid(digits) else None


def _as_issn(candidate: str) -> str | None:
    digits = re.sub(r"[\s-]", "", re.sub(r"(?i)\b[ep]?-?ISSN:?", "", candidate)).upper()
    issn = f"{digits[:4]}-{digits[4:]}"
    return issn if issn_is_valid(issn) else None


_ET_AL = re.compile(r"^(?:et\.?\s*al\.?|others|and others|etal\.?|u\.\s*a\.)$", re.I)


def _is_et_al(author: Author) -> bool:
    name = " ".join(p for p in (author.given, author.family, author.literal) if p)
    return bool(_ET_AL.match(name.strip()))


def _unescaped(value: str) -> str:
    # HTML entities arrive in exported records ("Don&apos;t", "A &amp; B"); twice-escaped
    # ones ("&amp;apos;") too.
    for _ in range(2):
        if "&" not in value:
            break
        value = html.unescape(value)
    return value


def _person(author: Author) -> Author:
    return Author(family=_unescaped(author.family), given=_unescaped(author.given),
                  literal=_unescaped(author.literal))


def tidy_structured(citation: Citation) -> Citation:
    """``citation`` as a structured reader built it, with HTML entities resolved in its
    text fields and names, and an "et al." / "others" written as an author (BibTeX
    ``and et al.``, CSL ``{"literal": "et al."}``) removed and read as ``et_al``."""
    authors = tuple(a for a in citation.authors if not _is_et_al(a))
    editors = tuple(a for a in citation.editors if not _is_et_al(a))
    return replace(
        citation,
        title=_unescaped(citation.title),
        container=_unescaped(citation.container),
        publisher=_unescaped(citation.publisher),
        place=_unescaped(citation.place),
        authors=tuple(_person(a) for a in authors),
        editors=tuple(_person(a) for a in editors),
        et_al=citation.et_al or len(authors) < len(citation.authors),
    )
