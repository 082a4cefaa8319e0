"""arXiv API (https://export.arxiv.org/api/query), an Atom 1.0 feed."""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET

from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, RateLimited, UnexpectedStatus
from verifier.http.policy import SourcePolicy
from verifier.http.service import Identification, ServiceDeclaration, one_class
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.identifiers import find_arxiv

from ._text import bare_doi, split_person_name
from ._xml import child, children, local_name, raw_text, xml_root
from .base import Identity, SourceAdapter

_PATH = "/query"
_SEARCH_MAX = "5"
# A new-style ("2101.00001") or old-style ("hep-th/9901001") id, version optional.
_ARXIV_ID = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7})(?:v\d+)?$", re.I)
_ARXIV_PREFIX = re.compile(r"^\s*arxiv:\s*", re.I)
_VERSION = re.compile(r"v\d+$")
_ABS = "/abs/"
# Quotes end the phrase, parentheses group, a colon names a field: anything that is not
# a letter, digit or space only risks breaking the query, never helps it match.
_QUERY_UNSAFE = re.compile(r"[^\w\s]|_")
_WITHDRAWN = re.compile(r"\bwithdrawn\b", re.I)
_ERRORS_ID = "/api/errors"


class ArxivAdapter(SourceAdapter):
    """arXiv: ``id_list`` lookup by arXiv id, ``search_query`` title + author search.

    Service-specific:

    - No key and no identity parameters: arXiv identifies callers by the User-Agent,
      which the engine sets.
    - A lookup keeps the cited version ("2101.00001v2"); an arXiv DOI
      (10.48550/arXiv.<id>) is looked up by its id. Search is
      ``ti:"<title>" AND au:<family>`` with the title reduced to words and spaces.
    - "Not found" is a feed without entries and ``totalResults`` 0. A feed that claims
      results but carries no entry is a known arXiv glitch and raises
      ``MalformedResponse`` so that it is retried.
    - A malformed id is an HTTP 400 Atom feed with one "Error" entry (``UnexpectedStatus``
      with arXiv's message); throttling can arrive as a plain-text "Rate exceeded." body
      (``RateLimited``).
    - Every record is a preprint, open access, with ``retracted`` None (arXiv has no
      retraction data); a "withdrawn" comment is reported as the notice "withdrawn".
      ``source_id`` keeps the version, ``identifiers.arxiv`` drops it; the DOI is the
      publisher DOI the authors gave, if any.
    - Titles keep their LaTeX; only the feed's line breaks and runs of spaces go.
    """

    name = "arxiv"

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        arxiv_id = _arxiv_id(citation)
        if arxiv_id is None:
            return None
        return HttpRequest(
            path=_PATH,
            params=(("id_list", arxiv_id), ("max_results", "1")),
            request_class="single",
        )

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        # Lower-case words: an upper-case AND/OR in a title must not read as an operator.
        words = _query_words(citation.title)
        if not words:
            return None
        query = f'ti:"{" ".join(words)}"'
        family = _author_name(citation.authors)
        if family:
            query += f" AND au:{family}"
        return HttpRequest(
            path=_PATH,
            params=(("search_query", query), ("max_results", _SEARCH_MAX), ("sortBy", "relevance")),
            request_class="list",
        )

    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        body = response.body.lstrip()
        if not body.startswith(b"<"):
            if body.lower().startswith(b"rate exceeded") or response.status == 429:
                raise RateLimited(f"arxiv: HTTP {response.status} {_snippet(body)}")
            if response.status != 200:
                raise UnexpectedStatus(
                    f"arxiv: HTTP {response.status} {_snippet(body)}", response.status
                )
            kind = response.content_type or "no content type"
            raise MalformedResponse(f"arxiv: body is not an Atom feed ({kind})")
        try:
            feed = xml_root(response, self.name)
        except MalformedResponse:
            if response.status != 200:
                raise UnexpectedStatus(
                    f"arxiv: HTTP {response.status} {_snippet(body)}", response.status
                ) from None
            raise
        if local_name(feed.tag) != "feed":
            if response.status != 200:
                raise UnexpectedStatus(f"arxiv: HTTP {response.status}", response.status)
            raise MalformedResponse(f"arxiv: XML root is <{local_name(feed.tag)}>, not a feed")
        entries = list(children(feed, "entry"))
        error = next((e for e in entries if _is_error_entry(e)), None)
        if error is not None:
            message = _collapse(raw_text(child(error, "summary"))) or "error entry"
            if response.status != 200:
                raise UnexpectedStatus(f"arxiv: HTTP {response.status}: {message}", response.status)
            raise MalformedResponse(f"arxiv: error entry in a 200 feed: {message}")
        if response.status != 200:
            raise UnexpectedStatus(f"arxiv: HTTP {response.status}", response.status)
        if not entries:
            total = _collapse(raw_text(child(feed, "totalResults")))
            if total.isdigit() and int(total) > 0:
                raise MalformedResponse(
                    f"arxiv: feed claims {total} results but has no entry (retry)"
                )
            return []
        return [self._record(entry) for entry in entries]

    def _record(self, entry: ET.Element) -> WorkRecord:
        entry_id = _collapse(raw_text(child(entry, "id")))
        if _ABS not in entry_id:
            raise MalformedResponse(f"arxiv: entry id {entry_id!r} is not an abs URL")
        versioned = entry_id.split(_ABS, 1)[1].strip("/")
        comment = _collapse(raw_text(child(entry, "comment")))
        published = _collapse(raw_text(child(entry, "published")))
        authors = (
            split_person_name(_collapse(raw_text(child(a, "name"))))
            for a in children(entry, "author")
        )
        return WorkRecord(
            source=self.name,
            source_id=versioned,
            url=_abs_link(entry) or entry_id,
            title=_collapse(raw_text(child(entry, "title"))),
            authors=tuple(a for a in authors if a is not None),
            year=int(published[:4]) if published[:4].isdigit() else None,
            container=_collapse(raw_text(child(entry, "journal_ref"))),
            type=WorkType.PREPRINT,
            identifiers=Identifiers(
                doi=bare_doi(_collapse(raw_text(child(entry, "doi")))),
                arxiv=_VERSION.sub("", versioned),
            ),
            retracted=None,
            notices=("withdrawn",) if _WITHDRAWN.search(comment) else (),
            open_access=True,
        )


def _arxiv_id(citation: Citation) -> str | None:
    """The cited arXiv id as arXiv takes it in ``id_list``, version kept; or None."""
    cited = _ARXIV_PREFIX.sub("", citation.identifiers.arxiv or "").strip()
    if cited and _ARXIV_ID.match(cited):
        return cited
    doi = bare_doi(citation.identifiers.doi)
    if doi is not None and doi.startswith("10.48550/arxiv."):
        return find_arxiv(doi)  # the DOI names the work, not a version
    return None


def _fold(text: str) -> str:
    """``text`` lower-case and without accents (arXiv metadata is mostly plain ASCII)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def _query_words(text: str) -> list[str]:
    return _QUERY_UNSAFE.sub(" ", _fold(text)).split()


def _author_name(authors: tuple[Author, ...]) -> str:
    """The first cited family name as an ``au:`` value ("del_maestro" for two words)."""
    first = next((a for a in authors if a.family), None)
    if first is None:
        return ""
    return "_".join(_query_words(first.family))


def _is_error_entry(entry: ET.Element) -> bool:
    entry_id = _collapse(raw_text(child(entry, "id")))
    title = _collapse(raw_text(child(entry, "title")))
    return _ERRORS_ID in entry_id or (title == "Error" and _ABS not in entry_id)


def _abs_link(entry: ET.Element) -> str:
    for link in children(entry, "link"):
        if link.get("rel") == "alternate" and link.get("href"):
            return link.get("href", "")
    return ""


def _collapse(text: str) -> str:
    """Feed text on one line: newlines and runs of spaces as one space, NFC."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _snippet(body: bytes) -> str:
    return _collapse(body[:200].decode("utf-8", errors="replace"))


def _policy(who: Identification) -> SourcePolicy:
    return SourcePolicy(one_class(1, period_s=3.0, concurrency=1), max_concurrency=1,
                        pool="public", request_timeout_s=30.0)


SERVICE = ServiceDeclaration("arxiv", "https://export.arxiv.org/api", None, _policy)
"""The service's one declaration: name, base URL, key variable, published limits."""
