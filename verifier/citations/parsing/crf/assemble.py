"""Labelled tokens -> a :class:`~verifier.citations.models.Citation`.

The runs of one label become the fields: the first run of ``author`` the author list
(read by the rule parser's name reader, :mod:`..names`), the first ``title`` run the
title, ``journal`` or ``container`` the container, the first year in ``date`` the year,
and so on. Each value is cut from the reference string itself (from its first token's
start to its last token's end), so spacing inside a field is kept as written, and then
cleaned like the rule parser's values (``..text``). The type follows from which labels
are present, by the rules the corpus itself uses to type its references (a journal name
makes an article, a book container a chapter, "PhD thesis" a thesis ...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from verifier.citations.models import Author, Citation, Identifiers, WorkType

from ..names import corporate_name, scan_authors
from ..text import YEAR, clean_pages, clean_segment, clean_title
from ..text import fix_spacing as _fix_spacing
from .labels import is_outside
from .tokens import Token

_YEAR = re.compile(rf"(?<!\d){YEAR}(?!\d)")


@dataclass(frozen=True, slots=True)
class Span:
    """A run of tokens with one label: the label and ``text[start:end]``."""

    label: str
    start: int
    end: int

    def __init__(self, label: str, start: int, end: int) -> None:
        # The dataclass's own __init__, written out: compiled, it fills the C struct
        # (see the comment above verifier.http.transport.HttpRequest); the generated one
        # runs as Python, a frame per labelled run.
        object.__setattr__(self, "label", label)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)


def spans(tokens: Sequence[Token], labels: Sequence[str]) -> list[Span]:
    """The runs of equal labels that are not outside (``O``, ``O>title`` ...), in order.
    A run is never joined across an outside token: inner punctuation of a field carries
    the field's label in training, so an ``O`` between two tokens of one label marks two
    fields."""
    runs: list[Span] = []
    count = len(tokens)
    i = 0
    while i < count:
        label = labels[i]
        j = i + 1
        while j < count and labels[j] == label:
            j += 1
        if not is_outside(label):
            runs.append(Span(label, tokens[i].start, tokens[j - 1].end))
        i = j
    return runs


_PDF_SPACING = re.compile(r"\s[.,;:)\]]|[(\[]\s|[.,;][^\W\d_]|\b(?:and|et)[A-Z]|[a-z][?][A-Z]")
# _PDF_SPACING with every alternative starting with a literal character (what comes
# before it checked by looking behind), so the search skips other characters quickly.
_PDF_SPACING_FAST = re.compile(
    r"\.(?<=\s\.)|,(?<=\s,)|;(?<=\s;)|:(?<=\s:)|\)(?<=\s\))|\](?<=\s\])|\(\s|\[\s"
    r"|\.[^\W\d_]|,[^\W\d_]|;[^\W\d_]|and(?<=\band)[A-Z]|et(?<=\bet)[A-Z]|\?(?<=[a-z]\?)[A-Z]"
)


def fix_spacing(value: str) -> str:
    """:func:`..text.fix_spacing` ("Phys .Rev ,D" -> "Phys. Rev, D"), run only on the
    values that have such spacing (most have none, and the repair is the slowest step
    of assembly)."""
    return _fix_spacing(value) if _PDF_SPACING_FAST.search(value) else value


_ROLE_WORDS = re.compile(
    r"\(\s*(?:eds?|editors?|hrsg|hg|dirs?|coords?|comps?|éds?)\.?\s*\)"
    r"|\b(?:edited|compiled|translated)\s+by\b|^\s*(?:in|dans)\s*:?\s+"
    r"|(?<![\w.])(?:eds?|editors?|Hrsg|Hg|éds?)\.?(?=\s*(?:[,;:)]|$))",
    re.I,
)
_ET_AL = re.compile(r"\bet\.?\s*al\b\.?|\band\s+others\b|…|\.\.\.", re.I)


def read_names(block: str) -> tuple[list[Author], bool]:
    """The names in an author or editor span and whether it ends in "et al.". Role words
    ("(eds.)", "edited by", "In") are dropped and PDF spacing is repaired ("Katsuda ,S").
    The rule parser's name reader reads the span; where it stops before the end, more
    names are read only after a list separator, and a span it cannot read at all is
    split at separators (:func:`_split_names`)."""
    if not block:
        return [], False
    block = fix_spacing(" ".join(_ROLE_WORDS.sub(" ", block).split())).strip(" ,;:")
    et_al = bool(_ET_AL.search(block))
    if not block:
        return [], et_al
    scan = scan_authors(block)
    if scan is not None:
        rest = block[scan.end :]
        if not re.search(r"\w", rest) or not _LIST_SEPARATOR.match(rest):
            return list(scan.authors), scan.et_al or et_al
        more, more_et_al = read_names(rest)
        return [*scan.authors, *more], scan.et_al or et_al or more_et_al
    return _split_names(_ET_AL.sub("", block)), et_al


_LIST_SEPARATOR = re.compile(r"^\s*(?:[,;&/]|and\b|und\b|et\b)", re.I)
_GROUPS = re.compile(r"\s*(?:;|/|\s(?:and|&|und|et)\s|&)\s*", re.I)
_INITIALS_ONLY = re.compile(r"^(?:[^\W\d_][a-z]?\s*\.\s*-?\s*)*[^\W\d_]\.?$|^[A-Z]{1,3}$")


def _split_names(block: str) -> list[Author]:
    """Names the name reader could not read: groups split at ";", "/", "and", "&", each
    group at commas, initials paired with the family name before them ("Smith, J.,
    Doe, A."). A block of more than six words without separators is one organisation."""
    block = block.strip(" ,;:.")
    if not re.search(r"[^\W\d_]", block):
        return []
    if not re.search(r"[,;&/]|\sand\s", block):
        if len(block.split()) > 4:
            return [Author(literal=corporate_name(block))]
        return [_one_name(block)]
    authors: list[Author] = []
    for group in _GROUPS.split(block):
        pieces = [p.strip(" .,:") for p in group.split(",")]
        pieces = [p for p in pieces if re.search(r"[^\W\d_]", p)]
        index = 0
        while index < len(pieces):
            piece = pieces[index]
            following = pieces[index + 1] if index + 1 < len(pieces) else ""
            if following and _INITIALS_ONLY.match(following) and not _INITIALS_ONLY.match(piece):
                authors.append(Author(family=piece, given=following))
                index += 2
                continue
            if not _INITIALS_ONLY.match(piece):
                authors.append(_one_name(piece))
            index += 1
    return authors


def _one_name(piece: str) -> Author:
    """One name written without a comma: "J. Smith", "Smith J", "John Smith"."""
    words = piece.split()
    if len(words) == 1:
        return Author(family=piece)
    if _INITIALS_ONLY.match(words[-1]) and not _INITIALS_ONLY.match(words[0]):
        return Author(family=" ".join(words[:-1]), given=words[-1])
    return Author(family=words[-1], given=" ".join(words[:-1]))


_VOLUME_PREFIX = re.compile(r"^(?:vols?|volume|v|bd|band|tome|t)\.?\s*", re.I)
_ISSUE_PREFIX = re.compile(r"^(?:nos?|nr|n°|n|num|number|issue|iss|heft)\.?\s*", re.I)
_PAGES_PREFIX = re.compile(r"^(?:pp|p|pages?|pgs?|s)\.?\s*(?=\w)", re.I)
_VOLUME_ISSUE = re.compile(
    r"^(?P<v>[^\W_]+)(?:\s*,?\s*\((?P<i1>[\w/–-]+)\)?|(?:\s*,\s*|\s+)(?:no\.?\s*)?(?P<i2>\d+))$",
    re.I,
)


def _volume_issue(volume: str, issue: str) -> tuple[str, str]:
    """Volume and issue without their labels; an issue inside the volume span ("12(3)",
    "76(2", "86, (4") is split off."""
    volume = _VOLUME_PREFIX.sub("", volume.strip(" .,;:")).strip(" .,;:")
    issue = _ISSUE_PREFIX.sub("", issue.strip(" .,;:")).strip(" .,;:()")
    both = _VOLUME_ISSUE.match(volume)
    if both is not None:
        return both.group("v"), issue or both.group("i1") or both.group("i2") or ""
    return volume.strip("()"), issue


_THESIS = re.compile(
    r"thesis|dissertation|ph\.?\s?d|doctoral|diss\.|master'?s|habilitation|thèse", re.I
)
_REPORT = re.compile(
    r"report|technical|\btech\b|working|discussion|white\s+paper|memo|\bTR\b|policy\s+brief"
    r"|\brep\.|preprint|arxiv|\d",
    re.I,
)
_PREPRINT = re.compile(r"preprint|arxiv", re.I)
_PROCEEDINGS = re.compile(
    r"proc\b|proceedings|conference|conf\b|symposium|workshop|congress|meeting|colloquium",
    re.I,
)


def infer_type(found: dict[str, str], identifiers: Identifiers) -> WorkType:
    """The type from the labelled fields present (``found``: label -> first span's text),
    by the corpus's own type rules (``parsing_gold/README.md``)."""
    genre = found.get("genre", "")
    journal = "journal" in found
    if not journal and _THESIS.search(genre or found.get("note", "")):
        return WorkType.THESIS
    if not journal and genre and _REPORT.search(genre):
        return WorkType.PREPRINT if _PREPRINT.search(genre) else WorkType.REPORT
    if journal:
        return WorkType.ARTICLE
    if "container" in found:
        return WorkType.PROCEEDINGS if _PROCEEDINGS.search(found["container"]) else (
            WorkType.CHAPTER
        )
    if identifiers.arxiv and "publisher" not in found:
        return WorkType.PREPRINT
    if "institution" in found and "title" in found and "publisher" not in found:
        return WorkType.REPORT
    imprint = ("publisher", "location", "edition")
    if identifiers.url and not any(k in found for k in imprint) and not identifiers.isbn:
        return WorkType.WEB
    if any(k in found for k in imprint) or identifiers.isbn:
        return WorkType.BOOK
    return WorkType.UNKNOWN


_OPENING = "“‘«\"'"
_CLOSING = "”’»\"'"


def _value(text: str, span: Span) -> str:
    """The text of a span, with the punctuation training left outside put back where it
    belongs to the value: the period of a last initial ("Smith, J.") or of an
    abbreviated journal ("Adv. Math."), a closing bracket the span opened ("(CVPR)"),
    and an opening quote whose closing quote is inside ("“Going home” or ...")."""
    start, end = span.start, span.end
    value = text[start:end]
    after = text[end : end + 1]
    if after == ")" and value.count("(") > value.count(")"):
        end += 1
        after = text[end : end + 1]
    if after == "." and span.label in ("author", "editor", "journal", "container"):
        end += 1
    if span.label == "title" and start > 0 and text[start - 1] in _OPENING:
        inner = _APOSTROPHE.sub("", text[start:end])
        if sum(inner.count(c) for c in _CLOSING) > sum(inner.count(c) for c in _OPENING):
            start -= 1
    return text[start:end]


_APOSTROPHE = re.compile(r"(?<=\w)['’](?=\w)")


_EDITION = re.compile(
    r"^\s*(?:\d+\s?(?:st|nd|rd|th|e|er|ème|\.)?|first|second|third|fourth|fifth|sixth|"
    r"revised|rev\.|new|expanded|enlarged)\s+(?:ed|edn|edition|éd|aufl|auflage)\b\.?\s*$",
    re.I,
)


def _edition(found: dict[str, str]) -> str:
    """The edition span, or a note that is an edition ("3rd ed.": GROBID's corpus has no
    edition label and marks editions as notes)."""
    if "edition" in found:
        return found["edition"]
    note = found.get("note", "")
    return note if _EDITION.match(note) else ""


def build(
    text: str, tokens: Sequence[Token], labels: Sequence[str], identifiers: Identifiers
) -> Citation:
    """The citation of ``text`` from its labelled tokens; ``identifiers`` as found by the
    rule reader (:func:`~verifier.citations.identifiers.find_identifiers`)."""
    found: dict[str, str] = {}
    for span in spans(tokens, labels):
        found.setdefault(span.label, _value(text, span))
    authors, et_al = read_names(found.get("author", ""))
    if not authors and "collaboration" in found:
        authors = [Author(literal=found["collaboration"].strip(" ,.;:"))]
    editors, _ = read_names(found.get("editor", ""))
    year_match = _YEAR.search(found.get("date", ""))
    volume, issue = _volume_issue(found.get("volume", ""), found.get("issue", ""))
    container = fix_spacing(found.get("journal") or found.get("container", ""))
    title = clean_title(fix_spacing(found.get("title", "")))
    if not re.search(r"[^\W\d_].*[^\W\d_]", title):
        title = ""
    if not (title or container or authors) and len(text) < 300:
        title = clean_title(text)  # nothing recognised: the text itself, as the rules do
    return Citation(
        authors=tuple(authors),
        et_al=et_al,
        year=int(year_match.group(0)) if year_match else None,
        title=title,
        container=clean_segment(container),
        volume=volume,
        issue=issue,
        pages=clean_pages(_PAGES_PREFIX.sub("", found.get("pages", "").strip(" .,;:()"))),
        publisher=clean_segment(
            fix_spacing(found.get("publisher") or found.get("institution", ""))
        ),
        editors=tuple(editors),
        type=infer_type(found, identifiers),
        identifiers=identifiers,
        place=clean_segment(found.get("location", "")),
        edition=_edition(found).strip(" ,;.()"),
    )
