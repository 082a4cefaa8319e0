"""What a judging run reads: papers (with their human reviews), other sources' comments,
and each paper's references.

**Papers** (:func:`read_papers`), one JSON object per line, recognised by their fields:

- an eLife record (``manuscript_markdown`` or ``reviews_raw_markdown``):
  :func:`verifier.reviews.elife.paper_from_record`, its reviews split by the eLife rules;
- a record with a ``reviews`` list (the NeurIPS 2025 set):
  :func:`verifier.reviews.neurips.paper_from_record`, one review per reviewer split by
  :func:`verifier.reviews.splitting.split_review`;
- otherwise ``{paper_id, title, text}`` with optional ``references`` (a list of strings).

The records' reviews become the ``human`` source. **Comments** (:func:`read_comments`):
``{paper_id, source, comment}`` per line, for any other source. **References**
(:func:`references_of`): the record's ``references`` when given, else the entries of the
paper's reference section (the text after the last "References"/"Bibliography"/
"Literature cited" heading, up to the next heading), read by the citation engine's
pasted-list reader.

Failures are :class:`~verifier.reviews.models.ItemError` values naming the item: a
malformed line, a paper without text, a repeated paper id, a comment for an unknown paper
(checked by the caller, which knows the papers), a comment line without its fields.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from verifier.citations.inputs.text import read_text
from verifier.citations.models import CitationInput
from verifier.errors import InputError
from verifier.reviews import elife, neurips
from verifier.reviews.jsonl import records, text_field
from verifier.reviews.models import ItemError, Paper
from verifier.reviews.splitting import comments_of

from .pipeline import CommentInput

HUMAN = "human"


@dataclass(slots=True)
class PaperInput:
    """One paper to judge: its text, references and the comments of every source."""

    paper_id: str
    title: str
    text: str
    references: tuple[str, ...]
    references_given: bool
    """True when the record listed them; False when parsed from the text."""
    sources: dict[str, list[CommentInput]] = field(default_factory=dict)
    errors: list[ItemError] = field(default_factory=list)
    """Per-item errors met while reading this paper's reviews (a review with no comment)."""
    ratings: tuple[int | None, ...] = ()
    """The human reviewers' ratings, in review order (None where a review has none)."""
    reviews: tuple[str, ...] = ()
    """The human reviews' whole texts, in review order (the rubric evaluation's input)."""
    decision: str | None = None


def _kind(record: Mapping[str, object]) -> str:
    if "manuscript_markdown" in record or "reviews_raw_markdown" in record:
        return "elife"
    if isinstance(record.get("reviews"), list) and record.get("reviews"):
        return "neurips"
    return "plain"


def _plain(record: Mapping[str, object], where: str) -> Paper | ItemError:
    fields = neurips.paper_fields(record, where)
    if isinstance(fields, ItemError):
        return fields
    paper_id, text, refs = fields
    return Paper(paper_id, text_field(record, "title") or "", text, refs, ())


def paper_input(record: Mapping[str, object], where: str) -> PaperInput | ItemError:
    """One record as a :class:`PaperInput` (module docstring), or the error naming it."""
    kind = _kind(record)
    if kind == "elife":
        paper = elife.paper_from_record(record, where)
    elif kind == "neurips":
        paper = neurips.paper_from_record(record, where)
    else:
        paper = _plain(record, where)
    if isinstance(paper, ItemError):
        if paper.reason == "no review text":  # still a paper: other sources may comment
            paper = _plain({**record, "text": text_field(record, "manuscript_markdown")
                            or text_field(record, "text")}, where)
        if isinstance(paper, ItemError):
            return paper
    given = paper.references or (isinstance(record.get("references"), list)
                                 and bool(record.get("references")))
    item = PaperInput(paper.paper_id, paper.title, paper.text, paper.references,
                      bool(given), ratings=tuple(r.rating for r in paper.reviews),
                      reviews=tuple(r.text for r in paper.reviews), decision=paper.decision)
    if paper.reviews:
        drop = elife.BOILERPLATE if kind == "elife" else ()
        comments, errors = comments_of(paper, HUMAN, drop=drop)
        item.sources[HUMAN] = [CommentInput(c.comment_id, c.text) for c in comments]
        item.errors.extend(errors)
    return item


def read_papers(path: Path) -> Iterator[PaperInput | ItemError]:
    """Each line of a papers file as a :class:`PaperInput`, or an error value; a repeated
    paper id is an error naming its line."""
    seen: set[str] = set()
    for item in records(path):
        if isinstance(item, ItemError):
            yield item
            continue
        where, record = item
        paper = paper_input(record, where)
        if isinstance(paper, PaperInput):
            if paper.paper_id in seen:
                yield ItemError(where, f"paper {paper.paper_id!r} repeated")
                continue
            seen.add(paper.paper_id)
        yield paper


@dataclass(frozen=True, slots=True)
class SourceComment:
    paper_id: str
    source: str
    comment: str
    where: str


def read_comments(path: Path) -> Iterator[SourceComment | ItemError]:
    """Each ``{paper_id, source, comment}`` line, or an error naming the line."""
    for item in records(path):
        if isinstance(item, ItemError):
            yield item
            continue
        where, record = item
        paper_id, source = text_field(record, "paper_id"), text_field(record, "source")
        comment = text_field(record, "comment")
        missing = [n for n, v in (("paper_id", paper_id), ("source", source),
                                  ("comment", comment)) if v is None]
        if missing:
            yield ItemError(where, f"comment line without {', '.join(missing)}")
            continue
        assert paper_id is not None and source is not None and comment is not None
        yield SourceComment(paper_id, source.strip(), comment, where)


def add_comments(papers: Mapping[str, PaperInput], comments: Iterator[SourceComment | ItemError]
                 ) -> list[ItemError]:
    """Attach each comment to its paper's source (ids ``<paper>:<source>:c<n>``); returns
    the errors: unreadable lines and comments for unknown papers."""
    errors: list[ItemError] = []
    for item in comments:
        if isinstance(item, ItemError):
            errors.append(item)
            continue
        paper = papers.get(item.paper_id)
        if paper is None:
            errors.append(ItemError(item.where, f"comment for unknown paper {item.paper_id!r}"))
            continue
        batch = paper.sources.setdefault(item.source, [])
        batch.append(CommentInput(f"{item.paper_id}:{item.source}:c{len(batch) + 1}",
                                  item.comment))
    return errors


_REF_HEADING = re.compile(
    r"(?im)^[ \t]*(?:#{1,6}[ \t]*)?(?:\d+[.)]?[ \t]+)?\**(?:references|bibliography|"
    r"literature cited|works cited)\**[ \t]*:?[ \t]*$")
_NEXT_HEADING = re.compile(r"(?m)^[ \t]*#{1,6}[ \t]+\S")


def reference_section(text: str) -> str | None:
    """The text under the paper's last reference heading, up to the next Markdown
    heading; None when there is no such heading."""
    found = list(_REF_HEADING.finditer(text))
    if not found:
        return None
    body = text[found[-1].end():]
    following = _NEXT_HEADING.search(body)
    return body[:following.start()] if following else body


def references_of(paper: PaperInput) -> tuple[list[CitationInput], list[InputError]]:
    """The paper's references as citation inputs with ids ``<paper_id>:ref-<i>`` (from
    1), and the entries the reader could not read."""
    if paper.references:
        return ([CitationInput(f"{paper.paper_id}:ref-{i}", i - 1, text)
                 for i, text in enumerate(paper.references, start=1)], [])
    section = reference_section(paper.text)
    if section is None or not section.strip():
        return [], []
    items: list[CitationInput] = []
    errors: list[InputError] = []
    for entry in read_text(io.BytesIO(section.encode("utf-8"))):
        if isinstance(entry, InputError):
            errors.append(entry)
        else:
            n = len(items) + 1
            items.append(CitationInput(f"{paper.paper_id}:ref-{n}", n - 1, entry.text))
    return items, errors
