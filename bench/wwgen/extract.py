"""The citation extractor written for this data set (deliberately independent of the
engine's parser, so its errors are not baked into the world), and the data loaders.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from wwgen.model import ORG_WORDS
from wwgen.text import Person, clean_space, initials_family, parse_name_list

# ============================================================================ extraction


@dataclass
class Extracted:
    """Fields of one citation string (this module's own small extractor)."""

    authors: list[Person] = field(default_factory=list)
    elided: str = ""
    editors_are_authors: bool = False
    year: int | None = None
    year_text: str = ""
    title: str = ""
    container: str | None = None
    editors: list[Person] = field(default_factory=list)
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    doi: str | None = None
    url: str | None = None
    style: str = "apa"


_ABBREV = frozenset(
    {"ed", "eds", "vol", "no", "pp", "st", "inc", "co", "jr", "dr", "mr", "mrs", "ms", "vs",
     "ltd", "corp", "dept", "p", "al", "nos", "rev", "trans", "u.s", "d.c", "wm"}
)
DOI_RE = re.compile(r"(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/[^\s]+)", re.I)


def sentences(text: str) -> list[str]:
    """Split at '. ', '? ', '! ' — not after an initial or a common abbreviation."""
    out: list[str] = []
    start = 0
    for m in re.finditer(r"([.?!])[\"”’]?\s+", text):
        before = text[start:m.start()]
        last = re.split(r"[\s(]", before)[-1] if before else ""
        if m.group(1) == "." and (
            re.fullmatch(r"[A-Z]", last) or re.fullmatch(r"(?:[A-Z]\.)+[A-Z]", last)
            or last.lower().rstrip(".") in _ABBREV
        ):
            continue
        out.append(text[start:m.end()].strip())
        start = m.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def strip_end(seg: str) -> str:
    """A segment without its final period, and without quotes that wrap all of it."""
    seg = seg.strip()
    m = re.fullmatch(r"[\"“](.*)[\"”]\.?", seg)
    if m and not re.search(r"[\"“”]", m.group(1)):
        seg = m.group(1)
    return seg.rstrip(".").strip()


def clean_publisher(text: str) -> str | None:
    text = strip_end(text)
    if not text or text.lower() in {"various editions"}:
        return None
    m = re.match(r"^([A-Z][\w .,'’-]{1,40}?):\s+(.+)$", text)
    if m and len(m.group(1).split()) <= 4:
        text = m.group(2)
    parts = text.split(", ")
    if len(parts) > 1 and re.search(r"Press|Publish|Books|Ltd|Inc|LLC", parts[0]):
        text = parts[0]
    return text.strip() or None


ARTICLE_TAIL = re.compile(
    r"^(?P<cont>.+?),\s*(?P<vol>\d+(?:\s*Suppl\.?)?)\s*(?:\((?P<iss>[^)]+)\))?"
    r"(?:,\s*(?:pp\.\s*)?(?P<pages>[A-Za-z]?\d[\w–\-]*))?\.?$"
)
CHICAGO_TAIL = re.compile(
    r"^(?P<cont>.+?)\s+(?P<vol>\d+)(?:\((?P<iss>[^)]+)\))?:\s*(?P<pages>[\w–\-]+)\.?$"
)
PAGES_ONLY_TAIL = re.compile(r"^(?P<cont>.+?),\s*(?:pp\.\s*)?(?P<pages>\d+[–\-]\d+)\.?$")


def _article_tail(seg: str) -> dict[str, str | None] | None:
    seg = strip_end(seg)
    for pattern in (ARTICLE_TAIL, CHICAGO_TAIL):
        m = pattern.match(seg)
        if m:
            return {"container": m.group("cont").strip(), "volume": m.group("vol"),
                    "issue": m.group("iss"), "pages": m.group("pages")}
    m = PAGES_ONLY_TAIL.match(seg)
    if m:
        return {"container": m.group("cont").strip(), "volume": None, "issue": None,
                "pages": m.group("pages")}
    return None


def _pages(text: str | None) -> str | None:
    if not text:
        return None
    text = text.strip().rstrip(".")
    text = re.sub(r"^P(?=\d)", "", text)
    return text.replace("–", "-") or None


def extract_citation(text: str, pub_type: str, *, early: bool = False) -> Extracted:
    """The fields of one W&W citation string (APA in most rows; Chicago and MLA in a few)."""
    ex = Extracted()
    text = clean_space(text)
    m = DOI_RE.search(text)
    if m:
        ex.doi = m.group(1).rstrip(".,;")
        text = clean_space(text[: m.start()] + text[m.end():])
    m = re.search(r"(?:Retrieved from|Available at:?)?\s*(https?://\S+)", text)
    if m:
        ex.url = m.group(1).rstrip(".")
        text = clean_space(text[: m.start()] + text[m.end():]).rstrip(". ") + "."
    text = re.sub(r"\s*(?:Retrieved from|Available at:?)\s*\.?$", ".", text)

    apa = re.search(
        r"\((\d{3,4})[a-z]?\)\.|\((n\.d\.)\)\.|\(([^()]*?(?:century|BCE|CE)[^()]*)\)\.", text
    )
    chicago = re.search(r"\.\s(\d{4})\.\s+[“\"]", text)
    if apa:
        authors_part, rest = text[: apa.start()], text[apa.end():].strip()
        ex.year_text = apa.group(1) or apa.group(2) or apa.group(3) or ""
        ex.year = int(apa.group(1)) if apa.group(1) else None
        ex.style = "apa"
    elif chicago:
        authors_part, rest = text[: chicago.start() + 1], text[chicago.end() - 1:].strip()
        ex.year_text = chicago.group(1)
        ex.year = int(chicago.group(1))
        ex.style = "chicago"
    else:
        ex.style = "mla"
        q = re.search(r"[“\"](.+?)[”\"]", text)
        authors_part = text[: q.start()] if q else text.split(". ")[0]
        rest = text[q.start():] if q else text[len(authors_part):]
        years = re.findall(r"\b(1\d{3}|20\d{2})\b", rest)
        if years:
            ex.year = int(years[-1])
            ex.year_text = years[-1]
    if re.search(r"\((?:Eds?|eds?)\.?\)", authors_part):
        ex.editors_are_authors = True
    if ex.style == "apa" and _title_first(authors_part):
        # "Title. (2017). Journal, 56(1), 150-168.": no author; the title comes first.
        ex.title = strip_end(authors_part)
        tail_fields = _article_tail(rest)
        if tail_fields:
            ex.container = tail_fields["container"]
            ex.volume, ex.issue = tail_fields["volume"], tail_fields["issue"]
            ex.pages = _pages(tail_fields["pages"])
        elif rest:
            ex.container = strip_end(rest)
        return ex
    ex.authors, _, ex.elided = parse_name_list(authors_part.strip(), early=early)

    if ex.style in ("chicago", "mla"):
        q = re.match(r"^[“\"](.+?)[”\"]\s*(.*)$", rest)
        if q:
            ex.title = strip_end(q.group(1))
            tail = q.group(2).strip()
        else:
            segs = sentences(rest)
            ex.title = strip_end(segs[0]) if segs else ""
            tail = " ".join(segs[1:])
        segs = [s for s in sentences(tail) if not re.match(r"^Translated by", s)]
        if ex.style == "mla":
            segs = [re.sub(r",?\s*\b(1\d{3}|20\d{2})\.?$", "", s).strip() for s in segs]
            segs = [s for s in segs if strip_end(s)]
        if pub_type == "A" and segs:
            tail_fields = _article_tail(segs[-1])
            if tail_fields:
                ex.container = tail_fields["container"]
                ex.volume, ex.issue = tail_fields["volume"], tail_fields["issue"]
                ex.pages = _pages(tail_fields["pages"])
            else:
                ex.container = strip_end(segs[-1])
        elif pub_type == "C" and segs:
            ex.container = strip_end(segs[0])
        elif segs:
            ex.publisher = clean_publisher(segs[-1])
        return ex

    # APA
    in_match = re.search(r"\.\s+In\s+(.+)$", rest)
    if pub_type == "C" and in_match:
        ex.title = strip_end(rest[: in_match.start() + 1])
        _chapter_host(ex, in_match.group(1))
        return ex
    segs = sentences(rest)
    if not segs:
        return ex
    if pub_type in ("A", "C"):
        tail_fields = _article_tail(segs[-1]) if len(segs) > 1 else None
        if tail_fields is not None:
            ex.title = strip_end(" ".join(segs[:-1]))
            ex.container = tail_fields["container"]
            ex.volume, ex.issue = tail_fields["volume"], tail_fields["issue"]
            ex.pages = _pages(tail_fields["pages"])
        elif len(segs) > 1:
            ex.title = strip_end(" ".join(segs[:-1]))
            ex.container = strip_end(segs[-1])
        else:
            ex.title = strip_end(segs[0])
        return ex
    # books, reports, web
    title = segs[0]
    used = 1
    if title.rstrip().endswith("?") and len(segs) >= 3:
        title = f"{title} {segs[1]}"
        used = 2
    title = re.sub(r"\s*\((?:\d+\w{2}|[A-Z][a-z]+\.?) ed\.\)", "", title)
    title = re.sub(r"\s*\(pp\. [^)]*\)", "", title)
    ex.title = strip_end(title)
    remaining = segs[used:]
    for seg in remaining:
        if re.search(r"\((?:Eds?|eds?)\.?\)", seg):
            ex.editors, _, _ = parse_name_list(seg)
    others = [s for s in remaining if not re.search(r"\((?:Eds?|eds?)\.?\)", s)]
    if others:
        ex.publisher = clean_publisher(others[-1])
    return ex


def _title_first(authors_part: str) -> bool:
    """True when what precedes the year is a title, not a list of names."""
    text = authors_part.strip()
    if re.search(r",\s*[A-Z]\.", text) or ORG_WORDS.search(text):
        return False
    return len(text.split()) >= 5 and (":" in text or not re.search(r"^[A-Z][\w'’-]+,\s", text))


def _chapter_host(ex: Extracted, host: str) -> None:
    """'E. Editor (Eds.), Book (pp. 1-2). Place: Publisher.' -> editors, container, pages,
    publisher."""
    m = re.match(r"^(?P<eds>.+?)\s*\((?:Eds?|eds?)\.?\),\s*(?P<rest>.+)$", host)
    rest = host
    if m:
        ex.editors, _, _ = parse_name_list(m.group("eds"))
        rest = m.group("rest")
    pm = re.search(r"\s*\((?:[^()]*?,\s*)?pp?\.\s*([^)]+)\)\.?\s*", rest)
    if pm:
        ex.container = strip_end(rest[: pm.start()])
        ex.pages = _pages(pm.group(1))
        after = rest[pm.end():].strip()
    else:
        segs = sentences(rest)
        ex.container = strip_end(segs[0]) if segs else None
        after = " ".join(segs[1:]) if len(segs) > 1 else ""
        if ex.container:
            tail = _article_tail(ex.container)
            if tail and tail["pages"] and not tail["volume"]:
                ex.container, ex.pages = tail["container"], _pages(tail["pages"])
    if after:
        segs = sentences(after)
        last = segs[-1] if segs else ""
        # "American Behavioral Scientist, 40(4)." is a journal, not a publisher
        ex.publisher = clean_publisher(last) if last and not _article_tail(last) else None
    if ex.container:
        ex.container = re.sub(r"\s*\(\d+\w{2} ed\.\)", "", ex.container)


# ============================================================================ the data


@dataclass
class Row:
    id: str
    gpt: str
    field: str
    topic: int
    text: str
    pub_type: str
    fabricated: bool
    note: str
    hallmark_key: str
    hallmark_type: str
    hallmark_explanation: str


def load_rows(data_dir: Path) -> list[Row]:
    with (data_dir / "ww2023_citations.csv").open(encoding="utf-8", newline="") as fh:
        return [
            Row(
                id=r["id"], gpt=r["gpt_version"], field=r["field"], topic=int(r["topic"]),
                text=r["citation_text"], pub_type=r["pub_type"],
                fabricated=r["fabricated"] == "1", note=(r["ww_note"] or "").strip(),
                hallmark_key=r["hallmark_key"] or "",
                hallmark_type=r["hallmark_hallucination_type"] or "",
                hallmark_explanation=r["hallmark_explanation"] or "",
            )
            for r in csv.DictReader(fh)
        ]


def load_hallmark(data_dir: Path) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    with (data_dir / "hallmark_ww_articles.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                out[obj["bibtex_key"]] = obj["fields"]
    return out


def clean_journal(name: str) -> str:
    """HALLMARK's journal with a trailing volume/pages or URL removed."""
    name = re.split(r"\.\s+Retrieved from", name)[0]
    name = re.sub(r",?\s*\(\d{4}\).*$", "", name)
    name = re.sub(r"\s+\d+(?:\([^)]*\))?:\s*[\w–\-]+$", "", name)
    return clean_space(name).rstrip(".,")


def hallmark_people(author: str) -> tuple[list[Person], bool]:
    parts = [p.strip() for p in author.split(" and ") if p.strip()]
    elided = bool(parts) and parts[-1] == "others"
    people: list[Person] = []
    for part in parts:
        if part == "others":
            continue
        person = initials_family(part)
        people.append(person if person else {"family": part})
    return people, elided


