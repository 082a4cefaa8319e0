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

    def __init__(
        self, authors: list[Author] | None = None, et_al: bool = False, year: int | None = None,
        title: str = "", container: str = "", volume: str = "", issue: str = "", pages: str = "",
        publisher: str = "", place: str = "", edition: str = "",
        editors: list[Author] | None = None, genre: str = "", part_of: bool = False,
        journal: bool = False, edited: bool = False,
    ) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest).
        self.authors = [] if authors is None else authors
        self.et_al = et_al
        self.year = year
        self.title = title
        self.container = container
        self.volume = volume
        self.issue = issue
        self.pages = pages
        self.publisher = publisher
        self.place = place
        self.edition = edition
        self.editors = [] if editors is None else editors
        self.genre = genre
        self.part_of = part_of
        self.journal = journal
        self.edited = edited
