"""A work as PubMed shows it: its PMID and PMC id, and its efetch XML and esummary forms.

- identity: :func:`pmid_of` (the rendering's id, a ``pmid`` key, or a stable derived
  number), :func:`pmcid_of`;
- rendering: :func:`article_element` (``PubmedArticle`` / ``PubmedBookArticle``),
  :func:`summary_json` (esummary 0.3) and :func:`summary_docsum` (legacy ``DocSum``),
  :func:`esearch_xml`, and the MEDLINE forms of names and pages.

Pure functions of a corpus record: no requests, no service state.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from .corpus import Person, RenderedWork, Work, tokens

NAME = "pubmed"
_PUBLICATION_TYPES: Mapping[str, tuple[str, str]] = {
    "preprint": ("D000076942", "Preprint"),
    "report": ("D059025", "Technical Report"),
}
_JOURNAL_ARTICLE = ("D016428", "Journal Article")
_RETRACTED = ("D016441", "Retracted Publication")


# ----------------------------------------------------------------------------- identity


def pmid_of(work: Work) -> str:
    """The PMID PubMed shows for ``work``: the ``pubmed`` rendering's ``id``, else a
    top-level ``pmid`` key of the work (kept in ``Work.extra``), else a stable 8-digit
    number derived from the corpus id (so PMIDs survive reordering the corpus)."""
    options = work.sources.get(NAME)
    for value in (options.source_id if options else None, work.extra.get("pmid")):
        text = str(value).strip() if isinstance(value, str | int) else ""
        if text.isdigit() and int(text) > 0:
            return str(int(text))
    return derived_pmid(work.id)


def derived_pmid(key: str) -> str:
    digest = hashlib.sha256(f"pubmed-pmid\0{key}".encode()).digest()
    return str(10_000_000 + int.from_bytes(digest[:8], "big") % 30_000_000)


def pmcid_of(work: Work) -> str | None:
    """The work's PMC id when the corpus gives one (a ``pmcid`` key), as ``PMC123``."""
    value = work.extra.get("pmcid")
    text = str(value).strip().upper() if isinstance(value, str | int) else ""
    if not text:
        return None
    return text if text.startswith("PMC") else f"PMC{text}"


# ----------------------------------------------------------------------------- names


def initials_of(given: str | None) -> str:
    """"James Dewey" -> "JD", "Jean-Paul" -> "JP", "F. H. C." -> "FHC"."""
    if not given:
        return ""
    out: list[str] = []
    for name in given.replace(".", " ").split():
        out.extend(p[0].upper() for p in name.split("-") if p)
    return "".join(out)


def fore_name(given: str) -> str:
    """PubMed's ForeName: "J. D." (initials only) as "J D"; full names as given."""
    parts = re.sub(r"\.\s*-\s*", "-", given).replace(".", " ").split()
    if parts and all(len(p) == 1 or (len(p) <= 3 and "-" in p) for p in parts):
        return " ".join(parts)
    return given


# ----------------------------------------------------------------------------- rendering


def publication_types(work: Work) -> list[tuple[str, str]]:
    """(UI, name) of the work's PublicationTypeList."""
    types = [_PUBLICATION_TYPES.get(work.type, _JOURNAL_ARTICLE)]
    if work.retracted:
        types.append(_RETRACTED)
    return types


def title_text(record: RenderedWork) -> str:
    """ArticleTitle: the full title, closed with a period as MEDLINE does."""
    title = record.full_title.strip()
    return title if title.endswith((".", "?", "!")) else f"{title}."


def page_range(pages: str) -> tuple[str, str]:
    """("737", "738") from "737–738"; (pages, "") for a single page or article number."""
    parts = re.split(r"\s*[-\u2013\u2014]\s*", pages.strip(), maxsplit=1)
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0], parts[1]
    return pages.strip(), ""


def medline_pages(pages: str | None) -> str:
    """MEDLINE's abbreviated page range: "737–738" -> "737-8", "e124" unchanged."""
    if not pages:
        return ""
    start, end = page_range(pages)
    if not end:
        return start
    if start.isdigit() and end.isdigit() and len(start) == len(end):
        common = 0
        while common < len(start) - 1 and start[common] == end[common]:
            common += 1
        end = end[common:]
    return f"{start}-{end}"


_NOTICE_REFS = {"correction": ("ErratumIn", "Erratum in"),
                "expression_of_concern": ("ExpressionOfConcernIn", "Expression of concern in")}
"""PubMed's CommentsCorrections RefType (efetch) and reftype (esummary) per notice kind."""


def _notice_pmid(work: Work, number: int) -> str:
    return derived_pmid(f"{work.id}\0notice\0{number}")


def _retraction_pmid(work: Work) -> str:
    return derived_pmid(f"{work.id}\0retraction")


def _retraction_year(record: RenderedWork) -> int | None:
    notice = record.work.retraction
    return notice.year if notice and notice.year else record.year


def sub_element(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


def _title_element(parent: ET.Element, tag: str, title: str) -> None:
    """ArticleTitle keeps inline markup (``<i>``, ``<sup>``) as elements, like PubMed."""
    try:
        element = ET.fromstring(f"<{tag}>{title}</{tag}>")
    except ET.ParseError:
        sub_element(parent, tag, title)
        return
    parent.append(element)


def _author_list(parent: ET.Element, people: Sequence[Person], complete: bool,
                 kind: str | None = None) -> None:
    attrs = {"CompleteYN": "Y" if complete else "N"}
    if kind:
        attrs["Type"] = kind
    author_list = sub_element(parent, "AuthorList", **attrs)
    for person in people:
        author = sub_element(author_list, "Author", ValidYN="Y")
        if person.literal:
            sub_element(author, "CollectiveName", person.literal)
            continue
        sub_element(author, "LastName", person.family or "")
        if person.given:
            sub_element(author, "ForeName", fore_name(person.given))
            sub_element(author, "Initials", initials_of(person.given))


def _pub_date(parent: ET.Element, year: int | None) -> None:
    date = sub_element(parent, "PubDate")
    if year is not None:
        sub_element(date, "Year", str(year))


def _history(parent: ET.Element, year: int | None) -> None:
    history = sub_element(parent, "History")
    stamp = max(year or 1990, 1966)  # PubMed's Entrez dates begin in the 1960s
    for status in ("pubmed", "medline", "entrez"):
        date = sub_element(history, "PubMedPubDate", PubStatus=status)
        sub_element(date, "Year", str(stamp))
        sub_element(date, "Month", "1")
        sub_element(date, "Day", "1")


def _article_ids(parent: ET.Element, record: RenderedWork, pmid: str) -> None:
    ids = sub_element(parent, "ArticleIdList")
    sub_element(ids, "ArticleId", pmid, IdType="pubmed")
    if record.doi:
        sub_element(ids, "ArticleId", record.doi, IdType="doi")
    pmcid = pmcid_of(record.work)
    if pmcid:
        sub_element(ids, "ArticleId", pmcid, IdType="pmc")


def article_element(record: RenderedWork) -> ET.Element:
    """One ``PubmedArticle`` (or ``PubmedBookArticle`` for a book or chapter)."""
    if record.work.type in ("book", "chapter"):
        return _book_element(record)
    work = record.work
    pmid = pmid_of(work)
    root = ET.Element("PubmedArticle")
    citation = sub_element(root, "MedlineCitation", Status="MEDLINE", Owner="NLM")
    sub_element(citation, "PMID", pmid, Version="1")
    revised = sub_element(citation, "DateRevised")
    for tag, value in (("Year", "2026"), ("Month", "06"), ("Day", "01")):
        sub_element(revised, tag, value)
    article = sub_element(citation, "Article", PubModel="Print")
    journal = sub_element(article, "Journal")
    if work.issn:
        sub_element(journal, "ISSN", work.issn[0], IssnType="Print")
    issue = sub_element(journal, "JournalIssue", CitedMedium="Print")
    if work.volume:
        sub_element(issue, "Volume", work.volume)
    if work.issue:
        sub_element(issue, "Issue", work.issue)
    _pub_date(issue, record.year)
    container = work.container or ""
    sub_element(journal, "Title", container)
    sub_element(journal, "ISOAbbreviation", container)
    _title_element(article, "ArticleTitle", title_text(record))
    if work.pages:
        pagination = sub_element(article, "Pagination")
        # StartPage and MedlinePgn, as in the recorded records (no EndPage).
        sub_element(pagination, "StartPage", page_range(work.pages)[0])
        sub_element(pagination, "MedlinePgn", medline_pages(work.pages))
    if record.doi:
        sub_element(article, "ELocationID", record.doi, EIdType="doi", ValidYN="Y")
    if record.authors:
        _author_list(article, record.authors, len(record.authors) == len(work.authors))
    sub_element(article, "Language", "eng")
    types = sub_element(article, "PublicationTypeList")
    for ui, name in publication_types(work):
        sub_element(types, "PublicationType", name, UI=ui)
    info = sub_element(citation, "MedlineJournalInfo")
    sub_element(info, "MedlineTA", container)
    sub_element(info, "NlmUniqueID", derived_pmid(f"journal\0{container}")[:7])
    if work.issn:
        sub_element(info, "ISSNLinking", work.issn[0])
    comments = None
    if work.retracted:
        comments = sub_element(citation, "CommentsCorrectionsList")
        notice = sub_element(comments, "CommentsCorrections", RefType="RetractionIn")
        year = _retraction_year(record)
        sub_element(notice, "RefSource", f"{container}. {year}" if year else container)
        sub_element(notice, "PMID", _retraction_pmid(work), Version="1")
    for number, other in enumerate(work.notices):
        if comments is None:
            comments = sub_element(citation, "CommentsCorrectionsList")
        ref_type, _ = _NOTICE_REFS[other.kind]
        notice = sub_element(comments, "CommentsCorrections", RefType=ref_type)
        sub_element(notice, "RefSource", f"{container}. {other.year}" if other.year
                    else container)
        sub_element(notice, "PMID", _notice_pmid(work, number), Version="1")
    data = sub_element(root, "PubmedData")
    _history(data, record.year)
    sub_element(data, "PublicationStatus", "ppublish")
    _article_ids(data, record, pmid)
    return root


def _book_element(record: RenderedWork) -> ET.Element:
    work = record.work
    pmid = pmid_of(work)
    root = ET.Element("PubmedBookArticle")
    document = sub_element(root, "BookDocument")
    sub_element(document, "PMID", pmid, Version="1")
    book = sub_element(document, "Book")
    publisher = sub_element(book, "Publisher")
    sub_element(publisher, "PublisherName", work.publisher or "")
    chapter = work.type == "chapter"
    book_title = (work.container or "") if chapter else title_text(record)
    sub_element(book, "BookTitle", book_title)
    _pub_date(book, record.year)
    complete = len(record.authors) == len(work.authors)
    if chapter and work.editors:
        _author_list(book, work.editors, True, "editors")
    if not chapter and record.authors:
        _author_list(book, record.authors, complete, "authors")
    if work.volume:
        sub_element(book, "Volume", work.volume)
    for isbn in work.isbn:
        sub_element(book, "Isbn", isbn)
    if chapter:
        _title_element(document, "ArticleTitle", title_text(record))
        if work.pages:
            pagination = sub_element(document, "Pagination")
            sub_element(pagination, "MedlinePgn", medline_pages(work.pages))
        if record.authors:
            _author_list(document, record.authors, complete, "authors")
    data = sub_element(root, "PubmedBookData")
    _history(data, record.year)
    sub_element(data, "PublicationStatus", "ppublish")
    _article_ids(data, record, pmid)
    return root


def _author_summary_name(person: Person) -> str:
    """esummary's "Family Initials" ("Watson JD") or the collective name."""
    if person.literal:
        return person.literal
    initials = initials_of(person.given)
    return f"{person.family} {initials}" if initials else person.family or ""


def summary_json(record: RenderedWork) -> dict[str, Any]:
    """One esummary (version 0.3) entry, keys in the recorded order."""
    work = record.work
    pmid = pmid_of(work)
    container = work.container or ""
    names = [{"name": _author_summary_name(p),
              "authtype": "CollectiveName" if p.literal else "Author", "clusterid": ""}
             for p in record.authors]
    article_ids: list[dict[str, Any]] = [{"idtype": "pubmed", "idtypen": 1, "value": pmid}]
    pmcid = pmcid_of(work)
    if pmcid:
        article_ids.append({"idtype": "pmc", "idtypen": 8, "value": pmcid})
        article_ids.append({"idtype": "pmcid", "idtypen": 5, "value": f"pmc-id: {pmcid};"})
    if record.doi:
        article_ids.append({"idtype": "doi", "idtypen": 3, "value": record.doi})
    year = str(record.year) if record.year is not None else ""
    title = title_text(record)
    references: list[dict[str, Any]] = []
    if work.retracted:
        notice_year = _retraction_year(record)
        references.append({"refsource": f"{container}. {notice_year}" if notice_year
                           else container, "reftype": "Retraction in",
                           "pmid": int(_retraction_pmid(work)), "note": ""})
    for number, other in enumerate(work.notices):
        references.append({"refsource": f"{container}. {other.year}" if other.year
                           else container, "reftype": _NOTICE_REFS[other.kind][1],
                           "pmid": int(_notice_pmid(work, number)), "note": ""})
    book = work.type in ("book", "chapter")
    return {
        "uid": pmid,
        "pubdate": year,
        "epubdate": "",
        "source": "" if book else container,
        "authors": names,
        "lastauthor": names[-1]["name"] if names else "",
        "title": title,
        "sorttitle": " ".join(tokens(title)),
        "volume": work.volume or "",
        "issue": work.issue or "",
        "pages": medline_pages(work.pages),
        "lang": ["eng"],
        "nlmuniqueid": derived_pmid(f"journal\0{container}")[:7],
        "issn": work.issn[0] if work.issn else "",
        "essn": work.issn[1] if len(work.issn) > 1 else "",
        "pubtype": [name for _, name in publication_types(work)],
        "recordstatus": "PubMed - indexed for MEDLINE",
        "pubstatus": "4",
        "articleids": article_ids,
        "history": [{"pubstatus": s, "date": f"{year or '1990'}/01/01 00:00"}
                    for s in ("pubmed", "medline", "entrez")],
        "references": references,
        "attributes": [],
        "pmcrefcount": "",
        "fulljournalname": "" if book else container,
        "elocationid": f"doi: {record.doi}" if record.doi else "",
        "doctype": ("chapter" if work.type == "chapter" else "book") if book else "citation",
        "srccontriblist": [],
        "booktitle": (work.container or "") if work.type == "chapter" else (
            title if book else ""),
        "medium": "",
        "edition": "",
        "publisherlocation": "",
        "publishername": (work.publisher or "") if book else "",
        "srcdate": "",
        "reportnumber": "",
        "availablefromurl": "",
        "locationlabel": "",
        "doccontriblist": [],
        "docdate": "",
        "bookname": "",
        "chapter": "",
        "sortpubdate": f"{year}/01/01 00:00" if year else "",
        "sortfirstauthor": names[0]["name"] if names else "",
        "vernaculartitle": "",
    }


def summary_docsum(root: ET.Element, record: RenderedWork) -> None:
    entry = summary_json(record)
    docsum = sub_element(root, "DocSum")
    sub_element(docsum, "Id", entry["uid"])

    def item(parent: ET.Element, name: str, value: str, kind: str = "String") -> ET.Element:
        return sub_element(parent, "Item", value, Name=name, Type=kind)

    item(docsum, "PubDate", entry["pubdate"], "Date")
    item(docsum, "Source", entry["source"])
    authors = sub_element(docsum, "Item", Name="AuthorList", Type="List")
    for author in entry["authors"]:
        item(authors, "Author", author["name"])
    item(docsum, "LastAuthor", entry["lastauthor"])
    item(docsum, "Title", entry["title"])
    item(docsum, "Volume", entry["volume"])
    item(docsum, "Issue", entry["issue"])
    item(docsum, "Pages", entry["pages"])
    item(docsum, "ISSN", entry["issn"])
    pubtypes = sub_element(docsum, "Item", Name="PubTypeList", Type="List")
    for name in entry["pubtype"]:
        item(pubtypes, "PubType", name)
    ids = sub_element(docsum, "Item", Name="ArticleIds", Type="List")
    for article_id in entry["articleids"]:
        item(ids, article_id["idtype"], article_id["value"])
    if record.doi:
        item(docsum, "DOI", record.doi)
    item(docsum, "FullJournalName", entry["fulljournalname"])


def to_xml(root: ET.Element) -> str:
    # ElementTree writes "<IdList />"; NCBI writes "<IdList/>".
    return ET.tostring(root, encoding="unicode").replace(" />", "/>")


def esearch_xml(result: Mapping[str, Any]) -> str:
    """The XML form of an esearch result (the JSON ``esearchresult`` dict)."""
    root = ET.Element("eSearchResult")
    sub_element(root, "Count", result["count"])
    sub_element(root, "RetMax", result["retmax"])
    sub_element(root, "RetStart", result["retstart"])
    if "querykey" in result:
        sub_element(root, "QueryKey", result["querykey"])
        sub_element(root, "WebEnv", result["webenv"])
    id_list = sub_element(root, "IdList")
    if result["idlist"]:
        id_list.text = "\n"
        for pmid in result["idlist"]:
            sub_element(id_list, "Id", pmid).tail = "\n"
    sub_element(root, "TranslationSet")
    sub_element(root, "QueryTranslation", result["querytranslation"])
    errors = result.get("errorlist")
    if errors:
        error_list = sub_element(root, "ErrorList")
        for phrase in errors["phrasesnotfound"]:
            sub_element(error_list, "PhraseNotFound", phrase)
        for name in errors["fieldsnotfound"]:
            sub_element(error_list, "FieldNotFound", name)
    warnings = result.get("warninglist")
    if warnings:
        warning_list = sub_element(root, "WarningList")
        for phrase in warnings["phrasesignored"]:
            sub_element(warning_list, "PhraseIgnored", phrase)
        for message in warnings["outputmessages"]:
            sub_element(warning_list, "OutputMessage", message)
    return to_xml(root)
