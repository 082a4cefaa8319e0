"""PubMed through NCBI E-utilities (https://eutils.ncbi.nlm.nih.gov/entrez/eutils)."""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, RateLimited, UnexpectedStatus
from verifier.http.policy import SourcePolicy
from verifier.http.service import Identification, ServiceDeclaration, one_class
from verifier.http.transport import HttpRequest, HttpResponse

from ._text import (
    bare_doi,
    clean_text,
    header_number,
    json_body,
    json_object,
    strip_retracted_prefix,
)
from ._xml import child, child_text, children, local_name, text, xml_root
from .base import Identity, RateHint, SourceAdapter

_ESEARCH = "/esearch.fcgi"
_EFETCH = "/efetch.fcgi"
_DB = "pubmed"
_SEARCH_MAX = "5"
_FETCH_MAX = int(_SEARCH_MAX)
_TITLE_WORDS = 12
"""Significant title words searched: enough to single a work out, few enough that a
slip in a long cited title rarely hides it."""
_URL = "https://pubmed.ncbi.nlm.nih.gov/{}/"

# PubMed's own stopword list (the words it drops from queries, with a warning): a
# tagged stopword can make a search fail, so they are never sent.
_STOPWORDS = frozenset(
    """a about again all almost also although always among an and another any are as at
    be because been before being between both but by can could did do does done due
    during each either enough especially etc for found from further had has have having
    here how however i if in into is it its itself just kg km made mainly make may mg
    might ml mm most mostly must nearly neither no nor obtained of often on our overall
    perhaps pmid quite rather really regarding seem seen several should show showed
    shown shows significantly since so some such than that the their theirs them then
    there therefore these they this those through thus to upon use used using various
    very was we were what when which while with within without would""".split()
)
# A title word is a run of letters and digits; one with an apostrophe is left out
# ("Alzheimer's": how PubMed tokenises it is not something to bet a search on).
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# Characters that end or alter a term: quotes, field tags, grouping, wildcards.
_TERM_UNSAFE = re.compile(r"[\"\[\]()#*,;:]")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_TRAILING_PERIOD = re.compile(r"(?<![.\s])\.$")
_PAGE_RANGE = re.compile(r"^(\d+)-(\d+)$")
_INITIALS = re.compile(r"^[A-Z]{1,4}$")

_RETRACTED_TYPES = frozenset({"retracted publication"})
_RETRACTED_REFS = frozenset({"retractionin", "retractedandrepublishedin"})
# Publication types and reference types that make a record a notice about another work.
_NOTICE_TYPES = {
    "retraction of publication": "retraction",
    "published erratum": "correction",
    "expression of concern": "expression_of_concern",
}
_NOTICE_REFS = {
    "retractionof": "retraction",
    "erratumfor": "correction",
    "expressionofconcernfor": "expression_of_concern",
}
# References on a work to notices about it (other than its retraction).
_NOTICES_ON_WORK = {
    "erratumin": "correction",
    "expressionofconcernin": "expression_of_concern",
    "correctedandrepublishedin": "corrected_and_republished",
}


class PubMedAdapter(SourceAdapter):
    """PubMed: esearch for ids, then efetch for the PubmedArticle records.

    Service-specific:

    - Two steps: a DOI lookup or a search is an ``esearch`` (JSON) whose id list
      :meth:`follow_up` turns into one ``efetch`` (XML, the only format with structured
      author names, publication types and correction links). A PMID goes straight to
      ``efetch``. ``esummary`` JSON answers are read as records too.
    - ``tool``, ``email`` and ``api_key`` travel as identity parameters on every call.
    - Search terms use field tags (``word[ti]``, ``smith j[au]``) joined by upper-case
      ``AND``; stopwords, punctuation and words PubMed may tokenise differently are left
      out of the term.
    - "Not found" is ``count`` "0" (esearch) or an empty ``PubmedArticleSet`` (efetch).
      Errors arrive inside HTTP 200 bodies (``ERROR`` keys, and the "API rate limit
      exceeded" body, which raises ``RateLimited``); E-utilities never use 404 for "not
      found".
    - PubMed carries retraction data, so ``retracted`` is True or False: the "Retracted
      Publication" type or a ``RetractionIn`` link retracts a work (either alone is
      enough; records with only one exist). A "Retraction of Publication" (or erratum,
      expression of concern) is a notice.
    - Titles lose PubMed's closing "." and the brackets around translated titles;
      MEDLINE's abbreviated page ranges ("451-8") are written out ("451-458").
    - ``X-RateLimit-Limit`` is per second; ``X-RateLimit-Remaining`` has no reset time.
    """

    name = "pubmed"

    def lookup_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        ids = citation.identifiers
        pmid = (ids.pmid or "").strip()
        if pmid.isdigit():
            return _efetch((pmid,), _identity_params(identity))
        doi = bare_doi(ids.doi)
        if doi is None:
            return None
        doi = doi.replace('"', "")
        # Brackets or spaces would be read as term syntax: quote such a DOI.
        term = f'"{doi}"[doi]' if re.search(r"[\s()\[\]#,]", doi) else f"{doi}[doi]"
        return HttpRequest(
            path=_ESEARCH,
            params=(("db", _DB), ("term", term), ("retmode", "json"), ("retmax", _SEARCH_MAX)),
            request_class="single",
            identity_params=_identity_params(identity),
        )

    def search_request(self, citation: Citation, identity: Identity) -> HttpRequest | None:
        title_term = _title_term(citation.title)
        if not title_term:
            return None
        terms = [title_term]
        author_term = _author_term(citation.authors)
        if author_term:
            terms.append(author_term)
        return HttpRequest(
            path=_ESEARCH,
            params=(
                ("db", _DB),
                ("term", " AND ".join(terms)),
                ("retmode", "json"),
                ("retmax", _SEARCH_MAX),
                ("sort", "relevance"),
            ),
            request_class="list",
            identity_params=_identity_params(identity),
        )

    def follow_up(self, request: HttpRequest, response: HttpResponse) -> HttpRequest | None:
        if request.path != _ESEARCH or response.status != 200:
            return None
        try:
            ids = _esearch_ids(response)
        except (MalformedResponse, RateLimited):
            return None  # parse has reported it; there is nothing to fetch
        if not ids:
            return None
        db = dict(request.params).get("db", _DB)
        # Our searches ask for 5 ids; an older cached answer may hold 20 full records.
        return _efetch(tuple(ids[:_FETCH_MAX]), request.identity_params, db)

    def parse(self, request: HttpRequest, response: HttpResponse) -> list[WorkRecord]:
        if response.status != 200:
            raise _status_error(response)
        body = response.body.lstrip()
        if body.startswith(b"{"):
            payload = json_body(response, self.name)
            _raise_body_error(payload)
            return self._parse_json(payload)
        if body.startswith(b"<"):
            records = self._parse_xml(xml_root(response, self.name))
            return _in_request_order(records, request)
        if b"rate limit" in body.lower():
            raise RateLimited(f"pubmed: {clean_text(body[:200].decode(errors='replace'))}")
        kind = response.content_type or "no content type"
        raise MalformedResponse(f"pubmed: body is neither JSON nor XML ({kind})")

    def rate_hint(self, response: HttpResponse) -> RateHint | None:
        limit = header_number(response.header("x-ratelimit-limit"))
        remaining = header_number(response.header("x-ratelimit-remaining"))
        if limit is None and remaining is None:
            return None
        # No reset time is sent: a "remaining 0" is information, not a reason to rest.
        return RateHint(
            limit=limit, interval_s=1.0 if limit is not None else None, remaining=remaining
        )

    # --- JSON -------------------------------------------------------------------------

    def _parse_json(self, payload: Any) -> list[WorkRecord]:
        if "esearchresult" in payload:
            _esearch_json_ids(payload)  # validates; ids come back through follow_up
            return []
        result = payload.get("result")
        if isinstance(result, dict):
            return self._esummary_records(result)
        raise MalformedResponse("pubmed: JSON is neither esearch nor esummary")

    def _esummary_records(self, result: dict[str, Any]) -> list[WorkRecord]:
        uids = result.get("uids")
        if not isinstance(uids, list):
            raise MalformedResponse("pubmed: esummary result without a uids list")
        records: list[WorkRecord] = []
        for uid in uids:
            entry = result.get(str(uid))
            if not isinstance(entry, dict):
                raise MalformedResponse(f"pubmed: esummary uid {uid} has no summary")
            if "error" in entry:
                continue  # "cannot get document summary": no such PMID
            records.append(self._esummary_record(str(uid), entry))
        return records

    def _esummary_record(self, uid: str, entry: dict[str, Any]) -> WorkRecord:
        pmid = clean_text(entry.get("uid")) or uid
        article_ids: dict[str, str] = {}
        for item in entry.get("articleids") or ():
            item = json_object(item)
            kind, value = clean_text(item.get("idtype")).lower(), clean_text(item.get("value"))
            if kind and value and kind not in article_ids:
                article_ids[kind] = value
        title, prefixed = strip_retracted_prefix(_display_title(clean_text(entry.get("title"))))
        pubtypes = entry.get("pubtype")
        types = [clean_text(t).lower() for t in pubtypes] if isinstance(pubtypes, list) else []
        refs = [_ref_kind(json_object(ref).get("reftype")) for ref in entry.get("references") or ()]
        status = _Status.read(types, refs, prefixed)
        doctype = clean_text(entry.get("doctype")).lower()
        kind = {"book": WorkType.BOOK, "chapter": WorkType.CHAPTER}.get(doctype, WorkType.ARTICLE)
        issns = tuple(
            dict.fromkeys(
                v for v in (clean_text(entry.get("issn")), clean_text(entry.get("essn"))) if v
            )
        )
        return WorkRecord(
            source=self.name,
            source_id=pmid,
            url=_URL.format(pmid),
            title=title,
            authors=tuple(_esummary_authors(entry.get("authors"))),
            year=_first_year(clean_text(entry.get("pubdate")), clean_text(entry.get("epubdate"))),
            container=clean_text(entry.get("fulljournalname"))
            or clean_text(entry.get("source"))
            or clean_text(entry.get("booktitle")),
            volume=clean_text(entry.get("volume")),
            issue=clean_text(entry.get("issue")),
            pages=_expand_pages(clean_text(entry.get("pages"))),
            publisher=clean_text(entry.get("publishername")),
            type=kind,
            identifiers=Identifiers(
                doi=bare_doi(article_ids.get("doi")),
                issn=issns,
                pmid=pmid,
                pmcid=_pmcid(article_ids.get("pmc")),
            ),
            # No pubtype list: nothing is known about retraction.
            retracted=status.retracted if isinstance(pubtypes, list) else None,
            notices=status.notices,
            notice_for=status.notice_for,
        )

    # --- XML --------------------------------------------------------------------------

    def _parse_xml(self, root: ET.Element) -> list[WorkRecord]:
        kind = local_name(root.tag)
        if kind == "eSearchResult":
            _esearch_xml_ids(root)  # validates; ids come back through follow_up
            return []
        if kind != "PubmedArticleSet":
            error = child_text(root, "ERROR")
            detail = f": {error}" if error else ""
            raise MalformedResponse(f"pubmed: unexpected XML document <{kind}>{detail}")
        records: list[WorkRecord] = []
        for element in root:
            name = local_name(element.tag)
            if name == "PubmedArticle":
                records.append(self._article(element))
            elif name == "PubmedBookArticle":
                records.append(self._book_article(element))
            # DeleteCitation and anything newer is no record.
        return records

    def _article(self, element: ET.Element) -> WorkRecord:
        citation = child(element, "MedlineCitation")
        article = child(citation, "Article")
        pmid = child_text(citation, "PMID")
        if not pmid or article is None:
            raise MalformedResponse("pubmed: a PubmedArticle without PMID or Article")
        journal = child(article, "Journal")
        issue = child(journal, "JournalIssue")
        ids = _article_ids(child(element, "PubmedData", "ArticleIdList"))
        title, prefixed = strip_retracted_prefix(
            _display_title(
                child_text(article, "ArticleTitle") or child_text(article, "VernacularTitle")
            )
        )
        status = _Status.read(_publication_types(article), _comment_refs(citation), prefixed)
        authors, editors = _xml_people(article)
        return WorkRecord(
            source=self.name,
            source_id=pmid,
            url=_URL.format(pmid),
            title=title,
            authors=authors,
            editors=editors,
            year=_pub_year(child(issue, "PubDate")) or _pub_year(child(article, "ArticleDate")),
            container=child_text(journal, "Title") or child_text(journal, "ISOAbbreviation"),
            volume=child_text(issue, "Volume"),
            issue=child_text(issue, "Issue"),
            pages=_pagination(child(article, "Pagination")),
            type=WorkType.ARTICLE,
            identifiers=Identifiers(
                doi=bare_doi(ids.get("doi")) or _elocation_doi(article),
                issn=tuple(dict.fromkeys(text(e) for e in children(journal, "ISSN") if text(e))),
                pmid=pmid,
                pmcid=_pmcid(ids.get("pmc")),
            ),
            retracted=status.retracted,
            notices=status.notices,
            notice_for=status.notice_for,
        )

    def _book_article(self, element: ET.Element) -> WorkRecord:
        document = child(element, "BookDocument")
        pmid = child_text(document, "PMID")
        if not pmid or document is None:
            raise MalformedResponse("pubmed: a PubmedBookArticle without PMID")
        book = child(document, "Book")
        book_title = child_text(book, "BookTitle")
        chapter_title = child_text(document, "ArticleTitle")
        ids = _article_ids(child(element, "PubmedBookData", "ArticleIdList"))
        if not ids:
            ids = _article_ids(child(document, "ArticleIdList"))
        title, prefixed = strip_retracted_prefix(_display_title(chapter_title or book_title))
        status = _Status.read(_publication_types(document), _comment_refs(document), prefixed)
        doc_authors, doc_editors = _xml_people(document)
        book_authors, book_editors = _xml_people(book)
        isbns = tuple(
            dict.fromkeys(text(e).replace("-", "") for e in children(book, "Isbn") if text(e))
        )
        return WorkRecord(
            source=self.name,
            source_id=pmid,
            url=_URL.format(pmid),
            title=title,
            authors=doc_authors or book_authors,
            editors=doc_editors or book_editors,
            year=_pub_year(child(book, "PubDate")),
            container=book_title if chapter_title else "",
            volume=child_text(book, "Volume"),
            pages=_pagination(child(document, "Pagination")),
            publisher=child_text(book, "Publisher", "PublisherName"),
            type=WorkType.CHAPTER if chapter_title else WorkType.BOOK,
            identifiers=Identifiers(
                doi=bare_doi(ids.get("doi")),
                isbn=isbns,
                pmid=pmid,
                pmcid=_pmcid(ids.get("pmc")),
            ),
            retracted=status.retracted,
            notices=status.notices,
            notice_for=status.notice_for,
        )


@dataclass(frozen=True, slots=True)
class _Status:
    """What the publication types and correction links say about a record."""

    retracted: bool
    notices: tuple[str, ...]
    notice_for: str | None

    @classmethod
    def read(cls, types: list[str], refs: list[str], retracted_prefix: bool) -> _Status:
        notice_for = next((_NOTICE_TYPES[t] for t in types if t in _NOTICE_TYPES), None)
        if notice_for is None:
            notice_for = next((_NOTICE_REFS[r] for r in refs if r in _NOTICE_REFS), None)
        if notice_for is not None:
            return cls(False, (), notice_for)  # a notice is never itself retracted
        retracted = (
            retracted_prefix
            or any(t in _RETRACTED_TYPES for t in types)
            or any(r in _RETRACTED_REFS for r in refs)
        )
        notices = tuple(dict.fromkeys(_NOTICES_ON_WORK[r] for r in refs if r in _NOTICES_ON_WORK))
        return cls(retracted, notices, None)


# --- requests -------------------------------------------------------------------------


def _identity_params(identity: Identity) -> tuple[tuple[str, str], ...]:
    params = [("tool", identity.tool)]
    if identity.mailto:
        params.append(("email", identity.mailto))
    if identity.api_key:
        params.append(("api_key", identity.api_key))
    return tuple(params)


def _efetch(
    pmids: tuple[str, ...], identity_params: tuple[tuple[str, str], ...], db: str = _DB
) -> HttpRequest:
    return HttpRequest(
        path=_EFETCH,
        params=(("db", db), ("id", ",".join(pmids)), ("retmode", "xml")),
        request_class="single",
        identity_params=identity_params,
    )


def _fold(word: str) -> str:
    """``word`` without accents, lower-case; "" when it is not plain ASCII after that."""
    decomposed = unicodedata.normalize("NFKD", word)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    return folded if folded.isascii() else ""


def _title_term(title: str) -> str:
    """``word[ti] AND word[ti] ...`` for the first significant words of ``title``."""
    words: list[str] = []
    for match in _WORD.finditer(clean_text(title)):
        raw = match.group(0)
        if "'" in raw or "’" in raw or raw.isdigit():
            continue  # apostrophes and bare numbers tokenise unpredictably
        word = _fold(raw)
        if len(word) < 2 or word in _STOPWORDS or word in words:
            continue
        words.append(word)
        if len(words) == _TITLE_WORDS:
            break
    if words:
        return " AND ".join(f"{word}[ti]" for word in words)
    # Only stopwords, numbers or non-Latin words: search the title as a phrase.
    phrase = " ".join(_TERM_UNSAFE.sub(" ", clean_text(title)).split())
    return f'"{phrase}"[ti]' if phrase else ""


def _author_term(authors: tuple[Author, ...]) -> str:
    """``family i[au]`` for the first cited person (PubMed matches longer initials too)."""
    first = next((a for a in authors if a.family or a.literal), None)
    if first is None or not first.family:
        return ""
    family = " ".join(_fold(_TERM_UNSAFE.sub(" ", first.family)).split())
    if not family:
        return ""
    given = _fold(_TERM_UNSAFE.sub(" ", first.given)).strip()
    initial = next((c for c in given if c.isalpha()), "")
    return f"{family} {initial}[au]" if initial else f"{family}[au]"


# --- esearch --------------------------------------------------------------------------


def _esearch_ids(response: HttpResponse) -> list[str]:
    body = response.body.lstrip()
    if body.startswith(b"{"):
        payload = json_body(response, "pubmed")
        _raise_body_error(payload)
        return _esearch_json_ids(payload)
    root = xml_root(response, "pubmed")
    if local_name(root.tag) != "eSearchResult":
        return []
    return _esearch_xml_ids(root)


def _esearch_json_ids(payload: dict[str, Any]) -> list[str]:
    result = payload.get("esearchresult")
    if not isinstance(result, dict):
        raise MalformedResponse("pubmed: esearchresult is not an object")
    error = result.get("ERROR") or result.get("error")
    if error:
        raise MalformedResponse(f"pubmed: esearch error: {clean_text(error)}")
    ids = result.get("idlist")
    if not isinstance(ids, list) or "count" not in result:
        raise MalformedResponse("pubmed: esearchresult without count and idlist")
    return [str(i).strip() for i in ids if str(i).strip().isdigit()]


def _esearch_xml_ids(root: ET.Element) -> list[str]:
    error = child_text(root, "ERROR")
    if error:
        raise MalformedResponse(f"pubmed: esearch error: {error}")
    id_list = child(root, "IdList")
    if id_list is None or child(root, "Count") is None:
        raise MalformedResponse("pubmed: eSearchResult without Count and IdList")
    return [text(e) for e in children(id_list, "Id") if text(e).isdigit()]


def _raise_body_error(payload: Any) -> None:
    """Errors E-utilities report inside a 200 JSON body."""
    if not isinstance(payload, dict):
        raise MalformedResponse("pubmed: JSON body is not an object")
    message = _error_message(payload)
    if not message:
        return
    if "rate limit" in message.lower():
        # Throttling sent with a 2xx status: the engine must pause and retry.
        raise RateLimited(f"pubmed: {message}")
    raise MalformedResponse(f"pubmed: error in a 200 body: {message}")


def _error_message(payload: dict[str, Any]) -> str:
    error = payload.get("error") or payload.get("ERROR")
    if not error:
        return ""
    return clean_text(error) if isinstance(error, str) else clean_text(str(error))


def _status_error(response: HttpResponse) -> RateLimited | UnexpectedStatus:
    """The failure a non-200 answer reports, with the service's message when it has one."""
    body = response.body.lstrip()
    message = ""
    try:
        if body.startswith(b"{"):
            payload = json_body(response, "pubmed")
            message = _error_message(payload) if isinstance(payload, dict) else ""
        elif body.startswith(b"<"):
            message = child_text(xml_root(response, "pubmed"), "ERROR")
    except MalformedResponse:
        message = ""
    if "rate limit" in message.lower():
        return RateLimited(f"pubmed: {message} (HTTP {response.status})")
    detail = f" ({message})" if message else ""
    return UnexpectedStatus(f"pubmed: HTTP {response.status}{detail}", response.status)


# --- records --------------------------------------------------------------------------


def _in_request_order(records: list[WorkRecord], request: HttpRequest) -> list[WorkRecord]:
    """Records in the order of the requested ids: esearch ranked them, and efetch is not
    documented to keep that order."""
    wanted = dict(request.params).get("id", "").split(",")
    rank = {pmid.strip(): index for index, pmid in enumerate(wanted)}
    return sorted(records, key=lambda record: rank.get(record.source_id, len(rank)))


def _display_title(title: str) -> str:
    """PubMed's title as cited: without its closing "." and, for a translated title,
    without the brackets around it."""
    title = _TRAILING_PERIOD.sub("", title).strip()
    if title.startswith("[") and title.endswith("]"):
        title = title[1:-1].strip()
        title = _TRAILING_PERIOD.sub("", title).strip()
    return title


def _article_ids(id_list: ET.Element | None) -> dict[str, str]:
    """``IdType`` -> value for the record's own ``ArticleIdList`` (never a reference's)."""
    found: dict[str, str] = {}
    for element in children(id_list, "ArticleId"):
        kind, value = (element.get("IdType") or "").lower(), text(element)
        if kind and value and kind not in found:
            found[kind] = value
    return found


def _elocation_doi(article: ET.Element) -> str | None:
    for element in children(article, "ELocationID"):
        if element.get("EIdType") == "doi" and element.get("ValidYN", "Y") != "N":
            doi = bare_doi(text(element))
            if doi:
                return doi
    return None


def _pmcid(value: str | None) -> str | None:
    value = (value or "").strip()
    if not value:
        return None
    return value.upper() if value.upper().startswith("PMC") else f"PMC{value}"


def _publication_types(element: ET.Element | None) -> list[str]:
    types = children(child(element, "PublicationTypeList"), "PublicationType")
    return [text(t).lower() for t in types]


def _comment_refs(element: ET.Element | None) -> list[str]:
    refs = children(child(element, "CommentsCorrectionsList"), "CommentsCorrections")
    return [_ref_kind(ref.get("RefType")) for ref in refs]


def _ref_kind(value: object) -> str:
    """ "RetractionIn" and esummary's "Retraction in" both as "retractionin"."""
    return "".join(value.split()).lower() if isinstance(value, str) else ""


def _xml_people(element: ET.Element | None) -> tuple[tuple[Author, ...], tuple[Author, ...]]:
    """Authors and editors from the ``AuthorList`` elements of ``element``."""
    authors: list[Author] = []
    editors: list[Author] = []
    for author_list in children(element, "AuthorList"):
        target = editors if author_list.get("Type") == "editors" else authors
        for person in children(author_list, "Author"):
            if person.get("ValidYN") == "N":
                continue  # a name PubMed itself marks as wrong
            author = _xml_author(person)
            if author is not None:
                target.append(author)
    return tuple(authors), tuple(editors)


def _xml_author(person: ET.Element) -> Author | None:
    family = child_text(person, "LastName")
    if family:
        given = child_text(person, "ForeName") or child_text(person, "Initials")
        return Author(family=family, given=given)
    collective = child_text(person, "CollectiveName")
    return Author(literal=collective) if collective else None


def _esummary_authors(value: object) -> list[Author]:
    authors: list[Author] = []
    for entry in value if isinstance(value, list) else ():
        entry = json_object(entry)
        name = clean_text(entry.get("name"))
        if not name:
            continue
        if clean_text(entry.get("authtype")).lower() == "collectivename":
            authors.append(Author(literal=name))
            continue
        # "Scalfani VF": the family name, then the initials.
        family, _, initials = name.rpartition(" ")
        if family and _INITIALS.match(initials):
            authors.append(Author(family=family, given=initials))
        else:
            authors.append(Author(family=name))
    return authors


def _pub_year(date: ET.Element | None) -> int | None:
    if date is None:
        return None
    year = child_text(date, "Year")
    if year.isdigit():
        return int(year)
    return _first_year(child_text(date, "MedlineDate"))


def _first_year(*values: str) -> int | None:
    """The first four-digit year in free-text dates ("1998 Dec-1999 Jan" -> 1998)."""
    for value in values:
        match = _YEAR.search(value)
        if match:
            return int(match.group(1))
    return None


def _pagination(pagination: ET.Element | None) -> str:
    pages = child_text(pagination, "MedlinePgn")
    if not pages:
        start, end = child_text(pagination, "StartPage"), child_text(pagination, "EndPage")
        pages = f"{start}-{end}" if start and end and start != end else start or end
    return _expand_pages(pages)


def _expand_pages(pages: str) -> str:
    """MEDLINE's abbreviated range "451-8" as "451-458"; anything else as given."""
    match = _PAGE_RANGE.match(pages.replace("–", "-").replace(" ", ""))
    if match is None:
        return pages
    start, end = match.groups()
    if len(end) < len(start):
        end = start[: len(start) - len(end)] + end
    return f"{start}-{end}"


def _policy(who: Identification) -> SourcePolicy:
    if who.api_key:
        return SourcePolicy(one_class(10, concurrency=10), max_concurrency=10, pool="keyed")
    return SourcePolicy(one_class(3, concurrency=3), max_concurrency=3, pool="keyless")


SERVICE = ServiceDeclaration(
    "pubmed", "https://eutils.ncbi.nlm.nih.gov/entrez/eutils", "NCBI_API_KEY", _policy
)
"""The service's one declaration: name, base URL, key variable, published limits."""
