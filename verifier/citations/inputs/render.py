"""A structured citation as one readable line: the ``text`` of an item read from BibTeX,
RIS or CSL, shown in the output as what was checked."""

from __future__ import annotations

from collections.abc import Sequence

from verifier.citations.models import Author, Citation


def render(citation: Citation) -> str:
    """``citation`` as one line, close to APA: "Family, Given; Family2, Given2 (2019).
    Title. Container, 12(3), 1-9. Place: Publisher. https://doi.org/…". Empty fields are
    left out; "" for a citation with no field at all."""
    head = _names(citation.authors, et_al=citation.et_al)
    if citation.year is not None:
        head = f"{head} ({citation.year})" if head else f"({citation.year})"
    sentences = [head, citation.title]
    sentences.append(_source(citation))
    publisher = ": ".join(part for part in (citation.place, citation.publisher) if part)
    sentences.append(publisher)
    ids = citation.identifiers
    if ids.doi:
        sentences.append(f"https://doi.org/{ids.doi}")
    elif ids.url:
        sentences.append(ids.url)
    if ids.arxiv and not (ids.doi and "arxiv" in ids.doi):
        sentences.append(f"arXiv:{ids.arxiv}")
    if ids.isbn and not ids.doi:
        sentences.append(f"ISBN {ids.isbn[0]}")
    return " ".join(_sentence(part) for part in sentences if part.strip())


def _source(citation: Citation) -> str:
    """"In Editors (Eds.), Container, 12(3), 1-9" (as much of it as is given)."""
    where = citation.container
    if citation.volume:
        where = f"{where}, {citation.volume}" if where else citation.volume
    if citation.issue:
        where = f"{where}({citation.issue})"
    if citation.pages:
        where = f"{where}, {citation.pages}" if where else f"pp. {citation.pages}"
    if citation.editors:
        editors = _names(citation.editors, et_al=False)
        eds = "Ed." if len(citation.editors) == 1 else "Eds."
        where = f"In {editors} ({eds}), {where}" if where else f"{editors} ({eds})"
    return where


def _names(people: Sequence[Author], *, et_al: bool) -> str:
    names = "; ".join(person.display for person in people if person.display)
    if et_al:
        names = f"{names}, et al." if names else "et al."
    return names


def _sentence(part: str) -> str:
    part = part.strip()
    if part.startswith(("http://", "https://", "arXiv:")) or part.endswith((".", "?", "!")):
        return part
    return f"{part}."
