"""What the parser found for one reference, before clean-up, identifiers and type."""

from __future__ import annotations

from dataclasses import dataclass, field

from verifier.citations.models import Author


@dataclass(slots=True)
class Parsed:
    """What the parser found, before clean-up, identifiers and type."""

    authors: list[Author] = field(default_factory=list)
    et_al: bool = False
    year: int | None = None
    title: str = ""
    container: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    publisher: str = ""
    place: str = ""
    edition: str = ""
    editors: list[Author] = field(default_factory=list)
    genre: str = ""
    """"thesis" or "report" when the text says so."""
    part_of: bool = False
    """The work is a part of the container ("In ..."): a chapter or a conference paper."""
    journal: bool = False
    """The source ended in a volume/issue/pages tail."""
    edited: bool = False
    """The authors are marked as editors ("(Eds.)"): an edited book."""
