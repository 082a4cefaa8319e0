"""The parse itself: authors, date, title and source, in that order, then the type.

1. The input is cleaned (:func:`~.text.prepare`), its identifiers are read and removed,
   and PDF-extraction spacing is repaired (:func:`~.text.fix_spacing`).
2. The author list at the start is read in whatever form it has (:mod:`.names`). When a
   date in brackets follows a block that is not a list of names, the block is taken as an
   organisation ("World Health Organization. (2014).") or, in APA's order for works
   without author, as the title ("Title. (2017). Journal, ..."). An organisation before
   a bare year ("NIH Analysis Team. 2019.") or an acronym ("OECD, Title") is an author too.
3. A date right after the authors ("(2019).", "2019.", ", 1994,") is the year.
4. What remains is a quoted title and its source (:mod:`.source`); "Title. In ..." (a
   chapter or conference paper, :mod:`.imprint`); a title and journal ending in a numeric
   tail (:mod:`.tail`, split by :mod:`.journal`); or a book, thesis or report with its
   imprint (:mod:`.imprint`).
5. The type follows from what was found (:func:`work_type`).
"""

from __future__ import annotations

import re

from verifier.citations.identifiers import find_identifiers
from verifier.citations.models import Author, Citation, Identifiers, WorkType

from .imprint import (
    apply_imprint,
    journal_after_comma,
    read_book,
    read_part_of,
    split_title_imprint,
    strong_imprint,
    take_title_details,
)
from .journal import journal_like, split_title_container
from .names import AuthorScan, corporate_name, parse_name_block, scan_authors
from .parsed import Parsed
from .source import find_quoted_title, leading_quoted, read_source
from .tail import Tail, apply_tail, peel_tail, strip_notes
from .text import (
    YEAR,
    YEAR_TOKEN,
    Cut,
    ascii_lower,
    boundaries,
    clean_body,
    clean_pages,
    clean_segment,
    clean_title,
    first_boundary,
    first_of,
    left_of,
    may_mention,
    prepare,
)

# A date in brackets: "(2019)", "(2019a)", "(2019, March 14)", "(n.d.)", "(in press)",
# "(4th century BCE)". Three-digit years occur for ancient works ("(426)").
_BRACKET_DATE = re.compile(
    r"[(\[]\s*(?:(?P<year>\d{3,4})[a-z]?(?:\s*[,/–-]\s*[^()\[\]]{0,30})?"
    r"|(?P<undated>n\.\s?d\.?|s\.\s?d\.?|no date|in press|forthcoming|"
    r"[^()]{0,20}\bcentury\b[^()]{0,12})"
    r")\s*[)\]]\s*[.,:]?",
    re.I,
)
_LEADING_DATE = re.compile(
    rf"^[\s.,:;]*(?:[(\[]\s*(?P<y1>{YEAR}|\d{{3,4}})[a-z]?(?:\s*[,/]\s*[^()\[\]]{{0,25}})?\s*[)\]]"
    rf"|(?P<y2>{YEAR})[a-z]?(?=[\s.,:;)]|$)"
    r"|[(\[]\s*(?:n\.\s?d\.?|s\.\s?d\.?|no date|in press|forthcoming|[^()]{0,20}\bcentury\b"
    r"[^()]{0,12})\s*[)\]])[\s.,:;]*",
    re.I,
)
_CITE_PREFIX = re.compile(r"^(?:Citation|Cite this(?: article)? as|Reference|Source)\s*:\s*", re.I)
# An organisation before a bare year (Chicago author-date): "NIH Portfolio Team. 2019. Title"
_ORGANISATION_YEAR = re.compile(
    rf"^(?P<org>[A-Z][^.\d,;:]{{2,90}}?)\.\s+(?=\(?{YEAR}[a-z]?\)?[.,:]?\s)"
)
_ENDS_WITH_YEAR = re.compile(rf"{YEAR}[a-z]?\)?$")
_SAME_AUTHOR = re.compile(r"^\s*(?:[-–—_]{2,}|[–—]|-(?=[A-Z]))\s*[.,]?\s*")
_COLLABORATION = re.compile(
    r"^(?:the\s+)?(?:[\w&/.-]+\s+){1,4}Collab(?:oration)?s?\.?\s*(?:[,:;]\s*|(?=\())", re.I
)
_PAREN_COLLABORATION = re.compile(
    r"\s*\((?:for\s+the\s+|on\s+behalf\s+of\s+)?[^()]*Collab[^()]*\)", re.I
)
_IN = re.compile(r"^(?:In|IN|in|Dans|dans)\s?:?\s+(?=\S)")
_PART_SIGNAL = re.compile(
    r"\b(?:Proc(?:eedings)?|Conf(?:erence)?|Symp(?:osium)?|Workshop|Meeting|Congress|"
    r"Colloquium|eds?\.|Eds?\b|edited|Hrsg|pp\.|pages|Press|Verlag|Handbook|Companion|"
    r"Encyclopedia|Lecture\s+Notes|Advances|Book|Studies|Series)\b|\([^()]*\d{4}\)"
)


_LETTER = re.compile(r"[^\W\d_]")
_WORD_CHAR = re.compile(r"\w")


def _two_letters(text: str) -> bool:
    """True when ``text`` holds at least two letters (stops at the second)."""
    if len(text) > 1 and text[:2].isalpha():
        return True  # what str.isalpha accepts, _LETTER matches (the converse is not so)
    first = _LETTER.search(text)
    return first is not None and _LETTER.search(text, first.end()) is not None


_LAST_COMMA_SEGMENT = re.compile(r",\s*[^,]+$")
_BOUNDARY_IN = re.compile(r"[.?!][\"”’'»]*\s+(?:In|IN|in|Dans|dans)\s?:?\s+(?=\S)")
"""A sentence end (:data:`~.text._BOUNDARY`) before what :data:`_IN` matches: every
boundary :func:`split_in` can cut at holds one (property-tested)."""
_COMMA_IN = re.compile(r",\s+(?:In|in)\s?:?\s+(?=[A-Z\d“\"])")
_MORE_AUTHORS = re.compile(r"^,?\s*(?:and|&)\s+")


def parse_citation(text: str) -> Citation:
    """Parse one free-text reference into a :class:`Citation`.

    Fields the text does not give stay empty ("" / None / ()). Never raises: text that
    no rule recognises yields at least a title guess (its first sentence) and any
    identifiers and year it contains.
    """
    prepared = prepare(text)
    identifiers = find_identifiers(prepared)
    body = clean_body(prepared)  # tidy(fix_spacing(strip_links(prepared)))
    parsed = parse_body(body)
    return finish(parsed, identifiers, body)


def parse_body(body: str) -> Parsed:
    """Authors, year, title and source of a cleaned reference without identifiers."""
    prefix = _CITE_PREFIX.match(body)  # anchored: its one possible match is at the start
    if prefix is not None:
        body = body[prefix.end() :]
    same_author = _SAME_AUTHOR.match(body)
    if same_author is not None:
        body = body[same_author.end() :]
        more = _MORE_AUTHORS.match(body)
        if more is None:
            return parse_rest(body)  # "———. Title": the author above
        body = body[more.end() :]  # "--, and A. G. Stephenson, 2007: Title"
    # Both collaboration patterns need the word "collab": skipped without it.
    mentions_collaboration = may_mention(ascii_lower(body), ("collab",))
    if mentions_collaboration:
        body = _PAREN_COLLABORATION.sub("", body)
    collaboration = _COLLABORATION.match(body) if mentions_collaboration else None
    if collaboration is not None:
        if scan_authors(body, collaboration.end()) is None:
            parsed = parse_rest(body[collaboration.end() :])
            parsed.authors = [Author(literal=collaboration.group(0).strip(" ,:;"))]
            return parsed
        body = body[collaboration.end() :]
    scan = scan_authors(body)
    date = _BRACKET_DATE.search(body, 0, 600)
    if date is not None and (scan is None or _gap(body, scan.end, date.start())):
        apa = _parse_block_before_date(body, date)
        if apa is not None:
            return apa
    if scan is None:
        organisation = _ORGANISATION_YEAR.match(body)
        if organisation is not None and journal_like(organisation.group("org")):
            parsed = parse_rest(body[organisation.end() :])
            parsed.authors = [Author(literal=corporate_name(organisation.group("org")))]
            return parsed
        return _parse_without_authors(body)
    return _parse_after_authors(body, scan)


def _gap(body: str, end: int, date_start: int) -> bool:
    """True when words stand between the end of the author list and a bracketed date."""
    between = body[end:date_start]
    return date_start >= end and bool(_WORD_CHAR.search(between))


def _parse_after_authors(body: str, scan: AuthorScan) -> Parsed:
    rest = body[scan.end :]
    affiliation = _AFFILIATION.match(rest)
    if affiliation is not None:
        rest = rest[affiliation.end() :]  # "Muneo Takahashi (Nippon Telephone and Telegraph)."
    parsed = parse_rest(rest)
    parsed.authors, parsed.et_al = list(scan.authors), scan.et_al
    parsed.edited = scan.editors
    return parsed


def _parse_block_before_date(body: str, date: re.Match[str]) -> Parsed | None:
    """APA with a block before "(2019)." that the name scanner did not read: an
    organisation as author, or (with no author) the title."""
    block = body[: date.start()].strip()
    rest = body[date.end() :].strip(" .,;:")
    if not block or re.search(r"[\"“”«]", block) or not rest:
        return None
    year = int(date.group("year")) if date.group("year") else None
    if year is not None and not 1400 <= year <= 2100 and len(date.group("year")) == 4:
        return None
    # An organisation has no commas, and a journal is none ("European Heart Journal (1998)").
    corporate = not re.search(r"[,;&]", block) and not _JOURNAL_WORDS.search(block)
    names = parse_name_block(block) if corporate else None
    if names is not None and len(block) <= 120 and not block.endswith(("?", "!")):
        parsed = parse_rest(rest)
        parsed.authors, parsed.et_al = names
        parsed.year = year or parsed.year
        return parsed
    # A title first unless the block starts with names; one name of full words ("Ride-
    # Sharing, Employment, and Earnings: ...") is no proof.
    scan = scan_authors(block)
    weak = scan is not None and len(scan.authors) == 1 and scan.form in "DE"
    title_first = (
        scan is None or (weak and not re.search(r"\d", block))
    ) and not YEAR_TOKEN.search(block)
    if block.endswith((".", "?", "!")) and title_first:
        parsed = read_source(rest)
        parsed.title = block
        parsed.year = year or parsed.year
        return parsed
    return None


def _parse_without_authors(body: str) -> Parsed:
    """A reference that does not start with names: "Org. "Title." ...", a title first,
    or a journal line alone ("Leukemia (2009) 23, 1587-1597")."""
    acronym = _ACRONYM_AUTHOR.match(body)
    if acronym is not None and len(re.findall(r"[^\W\d_]{2,}", body[acronym.end() :])) >= 3:
        parsed = parse_rest(body[acronym.end() :])
        parsed.authors = [Author(literal=corporate_name(acronym.group("name")))]
        return parsed
    quoted = find_quoted_title(body)
    if quoted is not None and 0 < quoted[0] <= 120:
        block = body[: quoted[0]].strip(" .,;:")
        parsed = parse_rest(body[quoted[0] :])
        if block and not re.search(r"\d", block) and len(block.split()) <= 8:
            parsed.authors = [Author(literal=block)]
        return parsed  # "3GPP TS 25.410: "Title"": a number before the title is no author
    return parse_rest(body)


_AFFILIATION = re.compile(
    r"^\s*\((?![^()]*\d)(?![^()]*\b(?:in press|n\.\s?d|forthcoming|eds?|hrsg)\b)"
    r"[^()]*[A-Za-z]{3}[^()]*\)",
    re.I,
)
# An organisation's acronym as author: "OECD, The impacts of ...", "COLLECTIF. Title".
_ACRONYM_AUTHOR = re.compile(
    r"^(?P<name>[A-Z]{3,}(?:\s[A-Z]{2,})?(?:\s\([^()]{3,80}\))?)[.,]\s+(?=\S)"
)


def parse_rest(rest: str) -> Parsed:
    """The part after the authors: an optional date, then title and source."""
    rest = rest.strip(" .,;:")
    year: int | None = None
    date = _LEADING_DATE.match(rest)
    if date is not None and date.end() < len(rest):
        found = date.group("y1") or date.group("y2")
        year = int(found) if found else None
        rest = rest[date.end() :]
    parsed = read_work(rest, year)
    parsed.year = year or parsed.year
    if parsed.year is None:
        years = YEAR_TOKEN.findall(rest)
        parsed.year = int(years[-1]) if years else None
    return parsed


def read_work(rest: str, known_year: int | None = None) -> Parsed:
    """Title and source of the text after authors and date (``known_year``: that date)."""
    rest, settled = strip_notes(rest)
    quoted = leading_quoted(rest)
    if quoted is not None:
        parsed = read_source(quoted[1], known_year, after_quote=True)
        parsed.title = quoted[0]
        return parsed
    starts_in = _IN.match(rest)
    if starts_in is not None and rest[starts_in.end()].isupper():
        return read_part_of(rest[starts_in.end() :])
    part = split_in(rest)
    if part is not None:
        parsed = read_part_of(part[1])
        parsed.title = take_title_details(part[0], parsed)
        return parsed
    tail, cuts = _journal_tail(rest, known_year, notes_settled=settled)
    if _is_pinpoint(tail):
        parsed = _read_title_and_rest(tail.pre)  # a book and a page: "(London: NLB, 1974), p. 19"
        parsed.pages = parsed.pages or tail.pages or tail.volume
        return parsed
    if tail.journal:
        title, container = split_title_container(
            tail.pre, numbered=bool(tail.volume and tail.pages)
        )
        parsed = Parsed(journal=True, container=container)
        parsed.title = take_title_details(title, parsed)
        apply_tail(parsed, tail)
        return parsed
    return _read_title_and_rest(rest, known_year, cuts)


def _journal_tail(
    rest: str, known_year: int | None, *, notes_settled: bool = False
) -> tuple[Tail, list[Cut] | None]:
    """The numeric tail of ``rest``, or of ``rest`` without its last sentence when that
    is a note ("..., 985-987. Special Issue on Learning and Discovery."); and the
    sentence boundaries of ``rest`` when they were found on the way (else None).
    ``notes_settled`` as for :func:`~.tail.peel_tail`."""
    tail = peel_tail(rest, known_year, notes_settled=notes_settled)
    if tail.journal:
        return tail, None
    publisher = _LAST_COMMA_SEGMENT.search(rest)
    if publisher and strong_imprint(publisher.group(0)):
        shorter = peel_tail(rest[: publisher.start()], known_year)  # "..., 15, 53, Elsevier"
        if shorter.volume and shorter.pages:
            return shorter, None
    cuts = list(boundaries(rest))
    if cuts and len(rest) - cuts[-1].right < 120:
        shorter = peel_tail(rest[: cuts[-1].left], known_year)
        if shorter.volume and (shorter.pages or shorter.issue):
            return shorter, cuts
    return tail, cuts


def _is_pinpoint(tail: Tail) -> bool:
    """True for a page cited in a book ("(London: Verso, 1991), 39"): one number after a
    year or a bracketed imprint."""
    single = bool(tail.pages) != bool(tail.volume) and not tail.issue
    return single and bool(_ENDS_WITH_YEAR.search(tail.pre.strip(" ,.;:")))


def _read_title_and_rest(
    rest: str, known_year: int | None = None, cuts: list[Cut] | None = None
) -> Parsed:
    """No journal tail: the first sentence is the title, unless it ends in imprint-like
    comma segments ("Stellar Magnetism, Clarendon Press. Oxford"); what follows is a
    venue or an imprint. ``cuts``: the sentence boundaries of ``rest`` when known."""
    if cuts is None:
        cut = first_boundary(rest, periods_first=True)
    else:
        cut = first_of(cuts, periods_first=True)
    journal = journal_after_comma(rest if cut is None else left_of(rest, cut))
    if journal is not None:
        parsed = read_source(rest[cut.right :] if cut else "", known_year)
        parsed.title = take_title_details(journal[0], parsed)
        parsed.container = parsed.container or journal[1]
        return parsed
    if cut is None:
        return read_book(rest)
    title, after = left_of(rest, cut), rest[cut.right :]
    split_title, imprint = split_title_imprint(title)
    if imprint and strong_imprint(imprint):
        parsed = Parsed()
        apply_imprint(f"{imprint}. {after}", parsed)
        parsed.title = take_title_details(split_title, parsed)
        return parsed
    parsed = read_source(after, known_year)
    parsed.title = take_title_details(title, parsed)
    return parsed


def split_in(rest: str) -> tuple[str, str] | None:
    """(title, text after "In") for "Title. In ...", "Title, in Proc. ..." and "Title //
    Book"; None otherwise."""
    # A sentence that starts with "In" is found first: most texts have none, and their
    # sentence ends are not made and tried one by one.
    boundaries_in = boundaries(rest, strict=False) if _BOUNDARY_IN.search(rest) else ()
    for cut in boundaries_in:
        after = rest[cut.right :]
        match = _IN.match(after)
        if match and (
            after[0] == "I"
            or after[match.end() - 2 : match.end()].strip() == ":"
            or after[match.end()].isupper()
        ):
            return left_of(rest, cut), after[match.end() :]
    for match in _COMMA_IN.finditer(rest):
        after = rest[match.end() :]
        if match.start() > 3 and (":" in match.group(0) or _PART_SIGNAL.search(after[:200])):
            return rest[: match.start()], after
    slash = rest.find(" // ")
    if slash > 3:
        return rest[:slash], rest[slash + 4 :]
    return None


# ---------------------------------------------------------------------------------------
# Finishing


def finish(parsed: Parsed, identifiers: Identifiers, text: str) -> Citation:
    """The :class:`Citation` of what was parsed, fields cleaned and the type inferred."""
    container = clean_segment(parsed.container)
    publisher = clean_segment(parsed.publisher)
    title = clean_title(parsed.title)
    if not _two_letters(title):
        title = ""  # "(2010)" left over from an arXiv-only reference is no title
    if not title and not container and not parsed.authors:
        title = clean_title(text) if len(text) < 300 else ""
    return Citation(
        authors=tuple(parsed.authors),
        et_al=parsed.et_al,
        year=parsed.year,
        title=title,
        container=container,
        volume=parsed.volume.strip(" .,;:()"),
        issue=parsed.issue.strip(" .,;:()"),
        pages=clean_pages(parsed.pages),
        publisher=publisher,
        editors=tuple(parsed.editors),
        type=work_type(parsed, container, publisher, identifiers, text),
        identifiers=identifiers,
        place=clean_segment(parsed.place),
        edition=parsed.edition.strip(" ,;"),
    )


_PROCEEDINGS = re.compile(
    r"\b(?:proc(?:eedings)?|conf(?:erence)?|symp(?:osium)?|workshop|congress|colloquium|"
    r"meeting|convention)\b",
    re.I,
)
_JOURNAL_WORDS = re.compile(
    r"\b(?:journal|review|quarterly|bulletin|annals|letters|transactions|magazine|gazette|"
    r"acta|archives|revue|zeitschrift|plos|lancet|jama|bmj|nature|science)\b|\bJ\.",
    re.I,
)
_THESIS_TEXT = re.compile(
    r"\b(?:ph\.?\s?d|doctoral|master'?s?|m\.?\s?sc?|b\.?\s?sc?|diploma|bachelor'?s?)\.?\s*"
    r"(?:thesis|dissertation|diss\.?|thèse)|\bdissertation\b|\bthesis\b|\bthèse\b|\bDiss\.",
    re.I,
)
_REPORT_TEXT = re.compile(
    r"\b(?:tech(?:nical)?\.?\s*(?:rep(?:ort)?\.?|memo\w*|note)|(?:working|discussion|"
    r"occasional|white|policy|research)\s+papers?|report\s+no\b|research\s+report|"
    r"policy\s+brief|(?:internal|annual|final|progress)\s+report)",
    re.I,
)
_PREPRINT_TEXT = re.compile(r"\b(?:arxiv|preprint|biorxiv|medrxiv|ssrn)\b", re.I)
# A word every match of the pattern above contains (for :func:`~.text.may_mention`).
_THESIS_WORDS = ("thesis", "diss", "thèse")
_REPORT_WORDS = ("tech", "paper", "report", "brief")
_PREPRINT_WORDS = ("rxiv", "preprint", "ssrn")
_PROCEEDINGS_WORDS = (
    "proc", "conf", "symp", "workshop", "congress", "colloquium", "meeting", "convention",
)
_JOURNAL_NAME_WORDS = (
    "journal", "review", "quarterly", "bulletin", "annals", "letters", "transactions",
    "magazine", "gazette", "acta", "archives", "revue", "zeitschrift", "plos", "lancet",
    "jama", "bmj", "nature", "science", "j.",
)


def _journal_named(container: str, lower: str | None) -> bool:
    """True when ``container`` holds a journal word (``lower``: its :func:`ascii_lower`)."""
    return (
        bool(container)
        and may_mention(lower, _JOURNAL_NAME_WORDS)
        and _JOURNAL_WORDS.search(container) is not None
    )


def work_type(
    parsed: Parsed, container: str, publisher: str, identifiers: Identifiers, text: str
) -> WorkType:
    """The kind of work, from what was found: THESIS / REPORT when the text says so and no
    journal tail was found; CHAPTER or PROCEEDINGS for "In ..."; ARTICLE for a journal
    (a tail with volume or pages, or a journal-named container); PREPRINT for an arXiv
    item without journal; BOOK for a publisher, place or edition without container; WEB
    for a link alone; UNKNOWN otherwise."""
    # Searches of the container (once each) skipped when they cannot match.
    container_lower = ascii_lower(container)
    if parsed.journal and parsed.volume and not parsed.part_of:
        # A journal tail with a volume is an article unless the container or the genre
        # says report, or the genre says thesis (whether it names proceedings changes
        # nothing here: the branches below that read it all need no journal or a part).
        if (may_mention(container_lower, _REPORT_WORDS) and _REPORT_TEXT.search(container)) or (
            parsed.genre == "report"
        ):
            return WorkType.REPORT
        return WorkType.THESIS if parsed.genre == "thesis" else WorkType.ARTICLE
    proceedings = may_mention(container_lower, _PROCEEDINGS_WORDS) and bool(
        _PROCEEDINGS.search(container)
    )
    journal = parsed.journal and (bool(parsed.volume) or not proceedings)
    if (may_mention(container_lower, _REPORT_WORDS) and _REPORT_TEXT.search(container)) or (
        parsed.genre == "report" and not parsed.part_of
    ):
        return WorkType.REPORT  # "National Bureau of Economic Research Working Paper No. 6337"
    lower = ascii_lower(text)  # the searches of the whole text are skipped when they cannot match
    if parsed.genre == "thesis" or (
        not journal and may_mention(lower, _THESIS_WORDS) and _THESIS_TEXT.search(text)
    ):
        return WorkType.THESIS
    if (
        not journal
        and not parsed.part_of
        and (
            parsed.genre == "report"
            or (may_mention(lower, _REPORT_WORDS) and _REPORT_TEXT.search(text))
        )
    ):
        return WorkType.REPORT
    if parsed.part_of:
        return WorkType.PROCEEDINGS if proceedings else WorkType.CHAPTER
    if proceedings and not _journal_named(container, container_lower):
        if not journal:
            return WorkType.PROCEEDINGS
    if journal or _journal_named(container, container_lower):
        return WorkType.ARTICLE
    if container and (parsed.volume or parsed.pages):
        return WorkType.ARTICLE
    if (
        identifiers.arxiv
        or (may_mention(lower, _PREPRINT_WORDS) and _PREPRINT_TEXT.search(text))
    ) and not container:
        return WorkType.PREPRINT
    if (
        publisher or parsed.place or parsed.edition or identifiers.isbn or parsed.edited
    ) and not container:
        return WorkType.BOOK
    if identifiers.url and not container and not publisher:
        return WorkType.WEB
    if container and journal_like(container):
        return WorkType.ARTICLE
    return WorkType.UNKNOWN


__all__ = ["parse_body", "parse_citation", "parse_rest", "read_work", "split_in"]
