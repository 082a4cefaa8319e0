"""PubMedAdapter: requests it builds, the esearch -> efetch follow-up, and parsing of every
recorded E-utilities response.

Retraction shapes are built by hand from apis.md section 3: no recorded sample has a
"Retracted Publication" type or a ``RetractionIn`` link.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import orjson
import pytest
from recorded import SAMPLES, load_sample

from adapters.base import Identity, RateHint
from adapters.pubmed import PubMedAdapter
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.errors import MalformedResponse, RateLimited, UnexpectedStatus
from verifier.http.transport import HttpRequest, HttpResponse

ADAPTER = PubMedAdapter()
BASE = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
KEYED = Identity(mailto="you@example.org", api_key="ncbi-secret")

ESEARCH = HttpRequest(
    path="/esearch.fcgi",
    params=(("db", "pubmed"), ("term", "x[ti]"), ("retmode", "json")),
    identity_params=(("tool", "citation-verifier"), ("email", "you@example.org")),
)
EFETCH = HttpRequest(
    path="/efetch.fcgi",
    params=(("db", "pubmed"), ("id", "1"), ("retmode", "xml")),
    request_class="single",
)
ESUMMARY = HttpRequest(path="/esummary.fcgi", params=(("db", "pubmed"), ("id", "27933103")))


def json_response(body: Any, status: int = 200) -> HttpResponse:
    return HttpResponse(status, orjson.dumps(body), {"content-type": "application/json"})


def xml_response(body: str, status: int = 200) -> HttpResponse:
    return HttpResponse(status, body.encode(), {"content-type": "text/xml; charset=UTF-8"})


def article(
    *,
    pmid: str = "9500320",
    title: str = "A hand-built article.",
    types: tuple[str, ...] = ("Journal Article",),
    refs: tuple[str, ...] = (),
    pub_date: str = "<Year>1998</Year><Month>Feb</Month><Day>28</Day>",
    pages: str = "<MedlinePgn>637-41</MedlinePgn>",
    authors: str = "<Author ValidYN='Y'><LastName>Wakefield</LastName>"
    "<ForeName>A J</ForeName><Initials>AJ</Initials></Author>",
) -> str:
    """One PubmedArticle in the efetch shape (only the elements the adapter reads)."""
    type_list = "".join(f"<PublicationType>{t}</PublicationType>" for t in types)
    ref_list = "".join(
        f'<CommentsCorrections RefType="{r}"><RefSource>Lancet. 2010</RefSource>'
        f'<PMID Version="1">20137807</PMID></CommentsCorrections>'
        for r in refs
    )
    return f"""<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM">
<PMID Version="1">{pmid}</PMID>
<Article PubModel="Print"><Journal><ISSN IssnType="Print">0140-6736</ISSN>
<JournalIssue CitedMedium="Print"><Volume>351</Volume><Issue>9103</Issue>
<PubDate>{pub_date}</PubDate></JournalIssue>
<Title>Lancet (London, England)</Title><ISOAbbreviation>Lancet</ISOAbbreviation></Journal>
<ArticleTitle>{title}</ArticleTitle><Pagination>{pages}</Pagination>
<AuthorList CompleteYN="Y">{authors}</AuthorList>
<PublicationTypeList>{type_list}</PublicationTypeList></Article>
<CommentsCorrectionsList>{ref_list}</CommentsCorrectionsList>
</MedlineCitation><PubmedData><ArticleIdList>
<ArticleId IdType="pubmed">{pmid}</ArticleId>
<ArticleId IdType="doi">10.1016/s0140-6736(97)11096-0</ArticleId>
</ArticleIdList></PubmedData></PubmedArticle>"""


def article_set(*articles: str) -> HttpResponse:
    return xml_response(
        '<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle,'
        ' 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'
        f"<PubmedArticleSet>{''.join(articles)}</PubmedArticleSet>"
    )


def parse_one(response: HttpResponse, request: HttpRequest = EFETCH) -> WorkRecord:
    records = ADAPTER.parse(request, response)
    assert len(records) == 1
    return records[0]


def query(request: HttpRequest) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(request.url(BASE)).query))


# --- requests -------------------------------------------------------------------------


def test_pmid_lookup_is_one_efetch_with_identity_out_of_the_cache_key() -> None:
    citation = Citation(identifiers=Identifiers(pmid="29915538", doi="10.3389/fphar.2018.00576"))
    request = ADAPTER.lookup_request(citation, KEYED)
    assert request is not None
    assert request.path == "/efetch.fcgi"
    assert request.request_class == "single"
    assert request.params == (("db", "pubmed"), ("id", "29915538"), ("retmode", "xml"))
    assert request.identity_params == (
        ("tool", "citation-verifier"),
        ("email", "you@example.org"),
        ("api_key", "ncbi-secret"),
    )
    assert "ncbi-secret" not in request.cache_key()
    assert "email" not in request.cache_key()
    assert query(request)["api_key"] == "ncbi-secret"
    assert request.url(BASE).startswith(BASE + "/efetch.fcgi?db=pubmed&id=29915538")


def test_doi_lookup_is_an_esearch_on_the_doi_field() -> None:
    citation = Citation(identifiers=Identifiers(doi="https://doi.org/10.3389/FPHAR.2018.00576"))
    request = ADAPTER.lookup_request(citation, Identity())
    assert request is not None
    assert request.path == "/esearch.fcgi"
    assert request.request_class == "single"
    params = dict(request.params)
    assert params["term"] == "10.3389/fphar.2018.00576[doi]"
    assert params["db"] == "pubmed"
    assert params["retmode"] == "json"
    # Without contact or key only the tool name identifies the caller.
    assert request.identity_params == (("tool", "citation-verifier"),)


def test_doi_with_term_syntax_characters_is_quoted() -> None:
    sici = Citation(
        identifiers=Identifiers(doi="10.1002/(SICI)1097-4636(199706)35:4<441::AID>3.0.CO;2-N")
    )
    request = ADAPTER.lookup_request(sici, Identity())
    assert request is not None
    assert dict(request.params)["term"] == (
        '"10.1002/(sici)1097-4636(199706)35:4<441::aid>3.0.co;2-n"[doi]'
    )


def test_no_lookup_without_pmid_or_doi() -> None:
    assert ADAPTER.lookup_request(Citation(title="Some title"), KEYED) is None
    not_a_pmid = Citation(identifiers=Identifiers(pmid="PMC5994433"))
    assert ADAPTER.lookup_request(not_a_pmid, KEYED) is None


def test_search_request_tags_title_words_and_first_author() -> None:
    citation = Citation(
        title="Leucocyte telomere length, genetic variants at the <i>TERT</i> gene region "
        "and risk of pancreatic cancer.",
        authors=(Author(family="Bao", given="Ying"), Author(family="Prescott", given="J.")),
        year=2017,
    )
    request = ADAPTER.search_request(citation, KEYED)
    assert request is not None
    assert request.path == "/esearch.fcgi"
    assert request.request_class == "list"
    params = dict(request.params)
    assert params["term"] == (
        "leucocyte[ti] AND telomere[ti] AND length[ti] AND genetic[ti] AND variants[ti] AND "
        "tert[ti] AND gene[ti] AND region[ti] AND risk[ti] AND pancreatic[ti] AND cancer[ti] "
        "AND bao y[au]"
    )
    assert (params["retmode"], params["retmax"], params["sort"]) == ("json", "5", "relevance")
    assert request.identity_params[0] == ("tool", "citation-verifier")


def test_search_term_keeps_twelve_words_and_drops_syntax_and_risky_tokens() -> None:
    citation = Citation(
        title='"Alzheimer\'s" [disease] AND (the) 2019 Müller-type α-cells: one two three '
        "four five six seven eight nine ten eleven twelve",
        authors=(Author(family="O'Brien (Jr)", given="Émile"),),
    )
    request = ADAPTER.search_request(citation, Identity())
    assert request is not None
    term = dict(request.params)["term"]
    title_part, _, author_part = term.rpartition(" AND ")
    words = [w.removesuffix("[ti]") for w in title_part.split(" AND ")]
    # Brackets, quotes and parentheses gone; "and"/"the" are stopwords; the apostrophe
    # word and the bare number are left out; accents folded; a non-Latin letter dropped.
    assert words == [
        "disease",
        "muller",
        "type",
        "cells",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
    ]
    assert author_part == "o'brien jr e[au]"
    assert "(" not in term and '"' not in term and "[disease]" not in term


def test_search_without_author_or_significant_words() -> None:
    alone = ADAPTER.search_request(Citation(title="Telomere length"), Identity())
    assert alone is not None
    assert dict(alone.params)["term"] == "telomere[ti] AND length[ti]"
    # Only stopwords: the title goes as a quoted phrase rather than not at all.
    stop = ADAPTER.search_request(Citation(title="What is it?"), Identity())
    assert stop is not None
    assert dict(stop.params)["term"] == '"What is it?"[ti]'
    corporate = Citation(title="Telomere length", authors=(Author(literal="WHO"),))
    request = ADAPTER.search_request(corporate, Identity())
    assert request is not None
    assert dict(request.params)["term"] == "telomere[ti] AND length[ti]"
    no_initial = Citation(title="Telomere length", authors=(Author(family="Bao"),))
    request = ADAPTER.search_request(no_initial, Identity())
    assert request is not None
    assert dict(request.params)["term"].endswith(" AND bao[au]")


def test_no_search_without_a_title() -> None:
    cited = Citation(authors=(Author(family="Bao", given="Y"),), year=2017)
    assert ADAPTER.search_request(cited, KEYED) is None
    assert ADAPTER.search_request(Citation(title="  "), KEYED) is None


# --- follow-up ------------------------------------------------------------------------


def test_esearch_json_sample_calls_for_an_efetch_of_its_ids() -> None:
    response = load_sample("pubmed", "esearch_author.json")
    assert ADAPTER.parse(ESEARCH, response) == []
    follow = ADAPTER.follow_up(ESEARCH, response)
    assert follow is not None
    assert follow.path == "/efetch.fcgi"
    assert follow.request_class == "single"
    params = dict(follow.params)
    assert (params["db"], params["retmode"]) == ("pubmed", "xml")
    # The sample holds 20 ids (retmax 20); the adapter fetches as many as it searches for.
    assert params["id"] == "36374290,36370080,36363931,36342372,36315101"
    assert follow.identity_params == ESEARCH.identity_params


def test_esearch_xml_sample_calls_for_an_efetch_too() -> None:
    response = load_sample("pubmed", "esearch_xml.xml")
    assert ADAPTER.parse(ESEARCH, response) == []
    follow = ADAPTER.follow_up(ESEARCH, response)
    assert follow is not None
    assert dict(follow.params)["id"] == "41282813,41148224,41011574,40959146,40937394"


def test_esearch_xml_history_sample_ids_and_remaining_zero_without_a_pause() -> None:
    response = load_sample("pubmed", "esearch_xml_history.xml")
    assert ADAPTER.parse(ESEARCH, response) == []
    follow = ADAPTER.follow_up(ESEARCH, response)
    assert follow is not None
    assert dict(follow.params)["id"] == "1054894,336867,336322,168056,18145"
    # Remaining 0 but no reset time: reported, never a reason to rest.
    assert ADAPTER.rate_hint(response) == RateHint(limit=3.0, interval_s=1.0, remaining=0.0)


def test_no_results_sample_is_an_empty_answer_without_follow_up() -> None:
    response = load_sample("pubmed", "esearch_no_results_xml.xml")
    assert ADAPTER.parse(ESEARCH, response) == []
    assert ADAPTER.follow_up(ESEARCH, response) is None


def test_json_count_zero_is_an_empty_answer_without_follow_up() -> None:
    response = json_response(
        {
            "header": {"type": "esearch", "version": "0.3"},
            "esearchresult": {
                "count": "0",
                "retmax": "0",
                "retstart": "0",
                "idlist": [],
                "translationset": [],
                "querytranslation": "",
                "errorlist": {"phrasesnotfound": ["abcxyz"], "fieldsnotfound": []},
                "warninglist": {"outputmessages": ["No items found."]},
            },
        }
    )
    assert ADAPTER.parse(ESEARCH, response) == []
    assert ADAPTER.follow_up(ESEARCH, response) is None


def test_records_answers_need_no_follow_up() -> None:
    assert ADAPTER.follow_up(EFETCH, load_sample("pubmed", "efetch_pmid.xml")) is None
    assert ADAPTER.follow_up(ESUMMARY, load_sample("pubmed", "esummary_pmid.json")) is None


# --- recorded records -----------------------------------------------------------------


def test_efetch_sample_plain_article() -> None:
    record = parse_one(load_sample("pubmed", "efetch_pmid.xml"))
    assert record.source == "pubmed"
    assert record.source_id == "29915538"
    assert record.url == "https://pubmed.ncbi.nlm.nih.gov/29915538/"
    # PubMed's closing period is not part of the title.
    assert record.title == (
        "Efficacy and Safety of Once-Weekly Semaglutide for the Treatment of Type 2 Diabetes: "
        "A Systematic Review and Meta-Analysis of Randomized Controlled Trials"
    )
    assert [a.family for a in record.authors] == ["Shi", "Li", "Cui", "Zhang", "Gu", "Liu"]
    assert record.authors[0] == Author(family="Shi", given="Fang-Hong")
    assert record.year == 2018
    assert record.container == "Frontiers in pharmacology"
    assert (record.volume, record.issue, record.pages) == ("9", "", "576")
    assert record.type is WorkType.ARTICLE
    assert record.identifiers == Identifiers(
        doi="10.3389/fphar.2018.00576",
        issn=("1663-9812",),
        pmid="29915538",
        pmcid="PMC5994433",
    )
    assert record.retracted is False
    assert record.notices == ()
    assert record.notice_for is None


def test_efetch_sample_keeps_the_text_of_inline_html_in_the_title() -> None:
    record = parse_one(load_sample("pubmed", "efetch_title_with_html_tags.xml"))
    assert record.source_id == "27797938"
    assert record.title == (
        "Leucocyte telomere length, genetic variants at the TERT gene region and risk of "
        "pancreatic cancer"
    )
    assert len(record.authors) == 22
    assert record.authors[0] == Author(family="Bao", given="Ying")
    assert record.authors[19] == Author(family="De Vivo", given="Immaculata")
    assert record.authors[-1] == Author(family="Wolpin", given="Brian M")
    assert record.year == 2017
    assert (record.container, record.volume, record.issue) == ("Gut", "66", "6")
    assert record.pages == "1116-1122"
    assert record.identifiers.doi == "10.1136/gutjnl-2016-312510"
    assert record.identifiers.pmcid == "PMC5442267"
    assert record.identifiers.issn == ("1468-3288",)
    # Dozens of "Cites" links, none about retraction or correction.
    assert record.retracted is False
    assert record.notices == ()


def test_efetch_sample_with_mathml_orcid_and_collective_author() -> None:
    record = parse_one(load_sample("pubmed", "efetch_mathml_orcid.xml"))
    assert record.source_id == "29963580"
    assert record.title == (
        "Development of a pulmonary imaging biomarker pipeline for phenotyping of chronic "
        "lung disease"
    )
    assert record.authors[1] == Author(family="Capaldi", given="Dante")
    assert record.authors[-1] == Author(literal="Canadian Respiratory Research Network")
    assert len(record.authors) == 9
    assert record.year == 2018
    assert record.container == "Journal of medical imaging (Bellingham, Wash.)"
    assert (record.volume, record.issue, record.pages) == ("5", "2", "026002")
    # The record's own DOI, not one of the DOIs in its ReferenceList.
    assert record.identifiers.doi == "10.1117/1.jmi.5.2.026002"
    assert record.identifiers.pmcid == "PMC6022861"
    assert record.identifiers.pmid == "29963580"


def test_efetch_sample_rate_headers() -> None:
    hint = ADAPTER.rate_hint(load_sample("pubmed", "efetch_pmid.xml"))
    assert hint == RateHint(limit=3.0, interval_s=1.0, remaining=1.0)
    assert hint.reset_s is None


def test_esummary_sample_is_read_as_records() -> None:
    record = parse_one(load_sample("pubmed", "esummary_pmid.json"), ESUMMARY)
    assert record.source_id == "27933103"
    assert record.url == "https://pubmed.ncbi.nlm.nih.gov/27933103/"
    assert record.title == (
        "Programmatic conversion of crystal structures into 3D printable files using Jmol"
    )
    assert [a.family for a in record.authors] == [
        "Scalfani",
        "Williams",
        "Tkachenko",
        "Karapetyan",
        "Pshenichnov",
        "Hanson",
        "Liddie",
        "Bara",
    ]
    assert record.authors[0] == Author(family="Scalfani", given="VF")
    assert record.year == 2016
    assert record.container == "Journal of cheminformatics"
    assert (record.volume, record.issue, record.pages) == ("8", "", "66")
    assert record.identifiers == Identifiers(
        doi="10.1186/s13321-016-0181-z",
        issn=("1758-2946",),
        pmid="27933103",
        pmcid="PMC5122160",
    )
    assert record.type is WorkType.ARTICLE
    assert record.retracted is False


@pytest.mark.parametrize("status", [200, 429])
def test_quoted_rate_limit_body_raises_rate_limited_whatever_the_status(status: int) -> None:
    recorded = load_sample("pubmed", "error_429_rate_limit.quoted.json")
    assert recorded.status == 429
    response = HttpResponse(status, recorded.body, recorded.headers)
    with pytest.raises(RateLimited, match="API rate limit exceeded"):
        ADAPTER.parse(ESUMMARY, response)
    assert ADAPTER.follow_up(ESEARCH, response) is None
    assert ADAPTER.rate_hint(response) == RateHint(limit=3.0, interval_s=1.0, remaining=0.0)


COVERED = {
    "efetch_mathml_orcid.xml",
    "efetch_pmid.xml",
    "efetch_title_with_html_tags.xml",
    "error_429_rate_limit.quoted.json",
    "esearch_author.json",
    "esearch_no_results_xml.xml",
    "esearch_xml.xml",
    "esearch_xml_history.xml",
    "esummary_pmid.json",
}


def test_every_recorded_pubmed_sample_is_covered() -> None:
    load_sample("pubmed", "efetch_pmid.xml")  # skips when the samples are absent
    bodies = {
        p.name
        for p in (SAMPLES / "pubmed").iterdir()
        if not p.name.endswith(".meta.json") and p.name != "README.md"
    }
    assert bodies == COVERED


# --- retraction and notices (built by hand) -------------------------------------------


@pytest.mark.parametrize(
    ("types", "refs"),
    [
        (("Journal Article", "Retracted Publication"), ("RetractionIn",)),
        (("Journal Article", "Retracted Publication"), ()),
        (("Journal Article",), ("RetractionIn",)),
        (("Journal Article",), ("RetractedandRepublishedIn",)),
    ],
)
def test_retracted_publication_type_or_retraction_link_retracts_the_work(
    types: tuple[str, ...], refs: tuple[str, ...]
) -> None:
    record = parse_one(
        article_set(
            article(
                title="Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and "
                "pervasive developmental disorder in children.",
                types=types,
                refs=refs,
            )
        )
    )
    assert record.retracted is True
    assert record.notice_for is None
    assert record.title.startswith("Ileal-lymphoid-nodular hyperplasia")
    assert record.identifiers.doi == "10.1016/s0140-6736(97)11096-0"


def test_retraction_notice_is_a_notice_not_a_retracted_work() -> None:
    notice = article(
        pmid="20137807",
        title="Retraction--Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and "
        "pervasive developmental disorder in children.",
        types=("Retraction of Publication",),
        refs=("RetractionOf",),
    )
    record = parse_one(article_set(notice))
    assert record.notice_for == "retraction"
    assert record.retracted is False
    assert record.source_id == "20137807"


def test_notice_by_link_alone_and_other_notice_kinds() -> None:
    by_link = parse_one(article_set(article(refs=("RetractionOf",))))
    assert (by_link.notice_for, by_link.retracted) == ("retraction", False)
    erratum = parse_one(article_set(article(types=("Published Erratum",), refs=("ErratumFor",))))
    assert (erratum.notice_for, erratum.retracted) == ("correction", False)
    concern = parse_one(article_set(article(types=("Expression of Concern",))))
    assert concern.notice_for == "expression_of_concern"


def test_corrections_and_concerns_on_a_work_are_notices_and_not_retraction() -> None:
    record = parse_one(
        article_set(article(refs=("CommentIn", "ErratumIn", "ExpressionOfConcernIn", "ErratumIn")))
    )
    assert record.retracted is False
    assert record.notice_for is None
    assert record.notices == ("correction", "expression_of_concern")


def test_retracted_title_prefix_counts_as_retraction() -> None:
    record = parse_one(article_set(article(title="RETRACTED: A hand-built article.")))
    assert record.title == "A hand-built article"
    assert record.retracted is True


def test_esummary_retraction_types_and_references() -> None:
    def summary(**fields: Any) -> HttpResponse:
        entry = {"uid": "1", "title": "A work.", "pubdate": "1998 Dec-1999 Jan", **fields}
        return json_response(
            {"header": {"type": "esummary"}, "result": {"uids": ["1"], "1": entry}}
        )

    retracted = parse_one(summary(pubtype=["Journal Article", "Retracted Publication"]), ESUMMARY)
    assert retracted.retracted is True
    assert retracted.year == 1998
    linked = parse_one(
        summary(
            pubtype=["Journal Article"], references=[{"reftype": "Retraction in", "pmid": "2"}]
        ),
        ESUMMARY,
    )
    assert linked.retracted is True
    notice = parse_one(summary(pubtype=["Retraction of Publication"]), ESUMMARY)
    assert (notice.notice_for, notice.retracted) == ("retraction", False)
    unknown = parse_one(summary(), ESUMMARY)
    assert unknown.retracted is None  # no pubtype list: nothing known


# --- fields built by hand -------------------------------------------------------------


def test_medline_date_abbreviated_pages_and_invalid_author() -> None:
    record = parse_one(
        article_set(
            article(
                pub_date="<MedlineDate>1998 Dec-1999 Jan</MedlineDate>",
                pages="<MedlinePgn>451-8</MedlinePgn>",
                authors="<Author ValidYN='N'><LastName>Wakefeld</LastName></Author>"
                "<Author ValidYN='Y'><LastName>Wakefield</LastName><Initials>AJ</Initials>"
                "</Author>",
            )
        )
    )
    assert record.year == 1998
    assert record.pages == "451-458"
    assert record.authors == (Author(family="Wakefield", given="AJ"),)


def test_article_date_is_the_year_when_the_issue_has_none() -> None:
    body = article(pub_date="").replace(
        "</Article>",
        '<ArticleDate DateType="Electronic"><Year>2021</Year></ArticleDate></Article>',
    )
    assert parse_one(article_set(body)).year == 2021


def test_translated_title_loses_its_brackets_and_markup_is_flattened() -> None:
    translated = parse_one(article_set(article(title="[Diagnosis of autism in adults].")))
    assert translated.title == "Diagnosis of autism in adults"
    mathml = parse_one(
        article_set(
            article(
                title='CO<sub>2</sub> and <mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML">'
                '<mml:semantics><mml:mi>α</mml:mi><mml:annotation encoding="application/x-tex">'
                "\\alpha</mml:annotation></mml:semantics></mml:math>-cells in <i>E. coli</i>."
            )
        )
    )
    assert mathml.title == "CO2 and α-cells in E. coli"


def test_doi_from_elocation_when_the_id_list_has_none() -> None:
    body = (
        article()
        .replace('<ArticleId IdType="doi">10.1016/s0140-6736(97)11096-0</ArticleId>', "")
        .replace(
            "<Pagination>",
            '<ELocationID EIdType="doi" ValidYN="Y">10.1000/From.ELocation</ELocationID>'
            "<Pagination>",
        )
    )
    assert parse_one(article_set(body)).identifiers.doi == "10.1000/from.elocation"


def test_records_come_back_in_the_order_esearch_ranked_them() -> None:
    request = HttpRequest(
        path="/efetch.fcgi", params=(("db", "pubmed"), ("id", "3,1,2"), ("retmode", "xml"))
    )
    response = article_set(article(pmid="1"), article(pmid="2"), article(pmid="3"))
    assert [r.source_id for r in ADAPTER.parse(request, response)] == ["3", "1", "2"]


def test_book_and_chapter_articles() -> None:
    book = """<PubmedBookArticle><BookDocument><PMID Version="1">20301295</PMID>
<Book><Publisher><PublisherName>University of Washington, Seattle</PublisherName></Publisher>
<BookTitle>GeneReviews®</BookTitle><PubDate><Year>1993</Year></PubDate>
<AuthorList Type="editors"><Author><LastName>Adam</LastName><ForeName>Margaret P</ForeName>
</Author></AuthorList><Isbn>978-0-12-345678-6</Isbn></Book>
<ArticleTitle>Alpha-Thalassemia.</ArticleTitle>
<AuthorList Type="authors"><Author><LastName>Tamary</LastName><ForeName>Hannah</ForeName>
</Author></AuthorList></BookDocument>
<PubmedBookData><ArticleIdList><ArticleId IdType="pubmed">20301295</ArticleId>
</ArticleIdList></PubmedBookData></PubmedBookArticle>"""
    chapter = parse_one(article_set(book))
    assert chapter.type is WorkType.CHAPTER
    assert chapter.title == "Alpha-Thalassemia"
    assert chapter.container == "GeneReviews®"
    assert chapter.authors == (Author(family="Tamary", given="Hannah"),)
    assert chapter.editors == (Author(family="Adam", given="Margaret P"),)
    assert chapter.publisher == "University of Washington, Seattle"
    assert chapter.year == 1993
    assert chapter.identifiers.isbn == ("9780123456786",)
    whole = parse_one(
        article_set(book.replace("<ArticleTitle>Alpha-Thalassemia.</ArticleTitle>", ""))
    )
    assert whole.type is WorkType.BOOK
    assert (whole.title, whole.container) == ("GeneReviews®", "")


# --- "not found", errors inside 200 and malformed answers -----------------------------


def test_empty_article_set_is_an_empty_answer() -> None:
    assert ADAPTER.parse(EFETCH, article_set()) == []
    assert ADAPTER.parse(EFETCH, xml_response("<PubmedArticleSet/>")) == []


def test_esummary_unknown_uid_is_skipped() -> None:
    response = json_response(
        {
            "header": {"type": "esummary", "version": "0.3"},
            "result": {
                "uids": ["123"],
                "123": {"uid": "123", "error": "cannot get document summary"},
            },
        }
    )
    assert ADAPTER.parse(ESUMMARY, response) == []


@pytest.mark.parametrize(
    "body",
    [
        {"esearchresult": {"ERROR": "Empty term and query_key - nothing todo"}},
        {"header": {"type": "esearch"}, "error": "Invalid db name specified: pubmd"},
        {"ERROR": "Something went wrong"},
        {"header": {"type": "esearch"}, "esearchresult": {"retmax": "0"}},
        {"header": {"type": "einfo"}, "einforesult": {}},
        {"result": {"1": {}}},
        ["not", "an", "object"],
    ],
)
def test_errors_and_wrong_shapes_inside_a_200_are_malformed(body: Any) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(ESEARCH, json_response(body))


def test_error_text_is_kept_in_the_message() -> None:
    body = {"esearchresult": {"ERROR": "Empty term and query_key - nothing todo"}}
    with pytest.raises(MalformedResponse, match="Empty term and query_key"):
        ADAPTER.parse(ESEARCH, json_response(body))


def test_rate_limit_seen_in_the_wild_with_a_200() -> None:
    body = {"error": "API rate limit exceeded", "api-key": "192.0.2.1", "count": "4", "limit": "3"}
    with pytest.raises(RateLimited):
        ADAPTER.parse(ESEARCH, json_response(body))


def test_raw_newline_inside_a_json_string_is_malformed() -> None:
    body = (
        b'{"esearchresult":{"ERROR":"Search Backend failed: Exception:\n'
        b"'retstart' cannot be larger than 9998\"}}"
    )
    response = HttpResponse(200, body, {"content-type": "application/json"})
    with pytest.raises(MalformedResponse, match="not JSON"):
        ADAPTER.parse(ESEARCH, response)


@pytest.mark.parametrize(
    "body",
    [
        "<eSearchResult><ERROR>Invalid query</ERROR></eSearchResult>",
        "<eFetchResult><ERROR>Empty id list - nothing todo</ERROR></eFetchResult>",
        "<html><body><h1>Service unavailable</h1></body></html>",
        "<PubmedArticleSet><PubmedArticle><MedlineCitation/></PubmedArticle></PubmedArticleSet>",
        "<PubmedArticleSet><PubmedArticle>",
    ],
)
def test_xml_errors_and_wrong_shapes_inside_a_200_are_malformed(body: str) -> None:
    with pytest.raises(MalformedResponse):
        ADAPTER.parse(EFETCH, xml_response(body))


def test_truncated_efetch_and_plain_text_are_malformed() -> None:
    body = load_sample("pubmed", "efetch_pmid.xml").body
    with pytest.raises(MalformedResponse, match="not XML"):
        ADAPTER.parse(EFETCH, HttpResponse(200, body[: len(body) // 2], {}))
    with pytest.raises(MalformedResponse, match="neither JSON nor XML"):
        ADAPTER.parse(EFETCH, HttpResponse(200, b"Backend down", {"content-type": "text/plain"}))


def test_xml_declaring_entities_is_refused() -> None:
    bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><PubmedArticleSet/>'
    with pytest.raises(MalformedResponse, match="entities"):
        ADAPTER.parse(EFETCH, xml_response(bomb))


@pytest.mark.parametrize("status", [400, 404])
def test_client_error_statuses_are_unexpected(status: int) -> None:
    body = {"error": "Invalid uid 123abc at position=0"}
    with pytest.raises(UnexpectedStatus, match=f"HTTP {status}.*Invalid uid") as raised:
        ADAPTER.parse(ESUMMARY, json_response(body, status))
    assert raised.value.http_status == status
    with pytest.raises(UnexpectedStatus, match="HTTP 404$"):
        ADAPTER.parse(EFETCH, HttpResponse(404, b"<html>Not Found</html>", {}))


def test_no_rate_hint_without_headers() -> None:
    assert ADAPTER.rate_hint(load_sample("pubmed", "efetch_mathml_orcid.xml")) is None
