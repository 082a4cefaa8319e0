"""Which sources the planner asks, how and in what order, per kind of citation."""

from __future__ import annotations

from verifier.citations.models import Author, Citation, Identifiers, WorkType
from verifier.citations.planner import StepKind, book_of, book_plan, plan_sources
from verifier.settings import SOURCE_NAMES

ALL = list(SOURCE_NAMES)
SMITH = (Author(family="Smith", given="J."),)


def steps(citation: Citation, enabled: list[str] = ALL) -> list[tuple[str, str]]:
    return [(s.source, s.kind.value) for s in plan_sources(citation, enabled).steps]


def fallback(citation: Citation, enabled: list[str] = ALL) -> list[tuple[str, str]]:
    return [(s.source, s.kind.value) for s in plan_sources(citation, enabled).fallback]


def if_none(citation: Citation, enabled: list[str] = ALL) -> list[tuple[str, str]]:
    return [(s.source, s.kind.value) for s in plan_sources(citation, enabled).if_none]


def test_article_with_doi_is_looked_up_before_anything_is_searched() -> None:
    cited = Citation(title="Deep learning", authors=SMITH, type=WorkType.ARTICLE,
                     container="Nature", identifiers=Identifiers(doi="10.1038/nature14539"))
    plan = steps(cited)
    lookups = [p for p in plan if p[1] == "lookup"]
    assert lookups == [("crossref", "lookup"), ("openalex", "lookup")]
    first_search = next(i for i, p in enumerate(plan) if p[1] == "search")
    assert all(p[1] == "lookup" for p in plan[:first_search])
    assert ("openlibrary", "lookup") not in plan  # a DOI is nothing Open Library resolves


def test_article_without_identifiers_is_searched_in_the_generous_sources_first() -> None:
    cited = Citation(title="A study of soil", authors=SMITH, type=WorkType.ARTICLE,
                     container="Journal of Soil Science")
    assert steps(cited) == [("crossref", "search"), ("openalex", "search")]
    # Found nowhere: the generous PubMed and DOAJ are asked, not Semantic Scholar (1
    # request a second), which only confirms what a cheaper source found.
    assert if_none(cited) == [("pubmed", "search"), ("doaj", "search")]
    assert fallback(cited) == [("semanticscholar", "search"), ("pubmed", "search"),
                               ("doaj", "search")]


def test_the_doi_goes_to_the_authorities_first_and_elsewhere_only_to_confirm() -> None:
    cited = Citation(title="Deep learning", authors=SMITH, type=WorkType.ARTICLE,
                     identifiers=Identifiers(doi="10.1038/nature14539"))
    later = [s for s, k in fallback(cited) if k == "lookup"]
    assert later == ["semanticscholar", "pubmed", "doaj"]
    assert fallback(cited)[:3] == [(s, "lookup") for s in later]  # before any search
    # A PMID alone: OpenAlex resolves it at once, PubMed confirms.
    pmid = Citation(title="Aspirin", type=WorkType.ARTICLE,
                    identifiers=Identifiers(pmid="12345"))
    assert [p for p in steps(pmid) if p[1] == "lookup"] == [("openalex", "lookup")]
    assert ("pubmed", "lookup") in fallback(pmid)


def test_scarce_sources_are_asked_about_books_and_articles_only_to_confirm() -> None:
    book = Citation(title="The science of justice", authors=SMITH, type=WorkType.BOOK)
    article = Citation(title="Bond markets", authors=SMITH, type=WorkType.ARTICLE)
    assert "googlebooks" not in [s for s, _ in steps(book) + if_none(book)]
    assert fallback(book)[0] == ("googlebooks", "search")
    assert "semanticscholar" not in [s for s, _ in steps(article) + if_none(article)]
    # Where it is the likeliest holder left, a scarce source is asked about a work
    # nobody found: Semantic Scholar for a book, Google Books for a chapter.
    assert if_none(book) == [("semanticscholar", "search")]
    chapter = Citation(title="Origins", authors=SMITH, type=WorkType.CHAPTER,
                       container="Handbook")
    assert steps(chapter)[-1] == ("googlebooks", "search")


def test_book_with_isbn_goes_to_the_book_sources_first() -> None:
    cited = Citation(title="Stonehenge", authors=SMITH, type=WorkType.BOOK,
                     publisher="Yale", identifiers=Identifiers(isbn=("9780300085709",)))
    plan = steps(cited)
    assert plan[0] == ("openlibrary", "lookup")
    searches = [s for s, k in plan if k == "search"]
    assert searches[0] == "openlibrary"
    assert "pubmed" not in searches and "arxiv" not in searches
    # Google Books, the bottleneck (1 request a second), is asked only for a second
    # witness: its ISBN lookup first, then its search.
    assert fallback(cited)[:2] == [("googlebooks", "lookup"), ("googlebooks", "search")]


def test_chapter_is_searched_as_a_chapter_and_its_book_as_a_book() -> None:
    chapter = Citation(
        title="The origins of farming", authors=SMITH, type=WorkType.CHAPTER,
        container="The Oxford Handbook of Prehistory",
        editors=(Author(family="Renfrew", given="C."),), pages="1-20", year=2010,
    )
    searches = [s for s, k in steps(chapter) if k == "search"]
    assert searches[:2] == ["crossref", "openalex"]
    book = book_of(chapter)
    assert book is not None
    assert book.title == "The Oxford Handbook of Prehistory"
    assert book.type is WorkType.BOOK and book.authors == chapter.editors
    assert [s.source for s in book_plan(book, ALL).steps] == ["openlibrary", "crossref",
                                                              "googlebooks"]
    assert book_of(Citation(title="x", type=WorkType.ARTICLE)) is None


def test_arxiv_preprint_goes_to_arxiv() -> None:
    cited = Citation(title="Attention is all you need", authors=SMITH, type=WorkType.PREPRINT,
                     identifiers=Identifiers(arxiv="1706.03762"))
    plan = steps(cited)
    assert ("arxiv", "lookup") in plan and ("semanticscholar", "lookup") in fallback(cited)
    assert [s for s, k in plan if k == "search"][0] == "arxiv"


def test_biomedical_work_includes_pubmed_right_after_the_cheap_two() -> None:
    cited = Citation(title="Aspirin and stroke", authors=SMITH, type=WorkType.CHAPTER,
                     container="Handbook of Clinical Neurology")
    assert [s for s, _ in steps(cited)][:3] == ["crossref", "openalex", "pubmed"]
    plain = Citation(title="Bond markets", authors=SMITH, type=WorkType.CHAPTER,
                     container="Handbook of Finance")
    assert "pubmed" not in [s for s, _ in steps(plain)]


def test_open_access_journals_add_doaj() -> None:
    cited = Citation(title="Coral bleaching", authors=SMITH, type=WorkType.UNKNOWN,
                     container="PLoS ONE")
    assert ("doaj", "search") in steps(cited)
    closed = Citation(title="Coral bleaching", authors=SMITH, type=WorkType.UNKNOWN,
                      container="Marine Biology")
    assert ("doaj", "search") not in steps(closed)


def test_web_page_is_searched_in_general_and_book_sources() -> None:
    cited = Citation(title="Climate change indicators", type=WorkType.WEB,
                     authors=(Author(literal="US EPA"),),
                     identifiers=Identifiers(url="https://www.epa.gov/climate-indicators"))
    plan = steps(cited)
    assert all(k == "search" for _, k in plan)
    assert [s for s, _ in plan] == ["crossref", "openalex", "openlibrary"]
    assert ("googlebooks", "search") in fallback(cited)


def test_only_enabled_sources_are_planned_and_the_rest_are_not_applicable() -> None:
    cited = Citation(title="A study of soil", authors=SMITH, type=WorkType.ARTICLE)
    plan = plan_sources(cited, ["crossref", "arxiv"])
    assert [(s.source, s.kind) for s in plan.steps] == [("crossref", StepKind.SEARCH)]
    assert plan.not_applicable == ("arxiv",)


def test_a_citation_without_a_title_is_only_looked_up() -> None:
    cited = Citation(identifiers=Identifiers(doi="10.1/x"))
    assert all(k == "lookup" for _, k in steps(cited))


def test_the_fallback_names_the_sources_the_plan_skipped_for_a_second_witness() -> None:
    article = Citation(title="High sex ratios in China's future", authors=SMITH,
                       type=WorkType.ARTICLE, container="Science")
    plan = plan_sources(article, ALL)
    searched = {s.source for s in plan.steps if s.kind is StepKind.SEARCH}
    fallback = [s.source for s in plan.fallback]
    assert fallback == ["semanticscholar", "pubmed", "doaj"]  # not searched by the steps
    assert not searched & set(fallback)
    book = Citation(title="The science of justice", authors=SMITH, type=WorkType.BOOK)
    assert [s.source for s in plan_sources(book, ALL).fallback] == [
        "googlebooks", "semanticscholar", "crossref"]


def test_the_fallback_asks_arxiv_by_title_for_an_article_in_arxivs_fields() -> None:
    from verifier.citations.models import Citation, WorkType
    from verifier.citations.planner import plan_sources
    from verifier.settings import SOURCE_NAMES

    physics = Citation(title="Quantum error correction with surface codes",
                       container="Physical Review A", type=WorkType.ARTICLE)
    history = Citation(title="The Boer War and the making of South Africa",
                       container="Journal of Southern African Studies", type=WorkType.ARTICLE)
    asked = [s.source for s in plan_sources(physics, SOURCE_NAMES).fallback]
    assert asked[-1] == "arxiv"
    assert "arxiv" not in [s.source for s in plan_sources(history, SOURCE_NAMES).fallback]
    assert "arxiv" in plan_sources(history, SOURCE_NAMES).not_applicable


def test_the_fallback_asks_google_books_for_theses_and_reports() -> None:
    from verifier.citations.models import Citation, WorkType
    from verifier.citations.planner import plan_sources
    from verifier.settings import SOURCE_NAMES

    for kind in (WorkType.THESIS, WorkType.REPORT):
        plan = plan_sources(Citation(title="Water rights in the Sahel", type=kind),
                            SOURCE_NAMES)
        asked = [s.source for s in (*plan.steps, *plan.fallback)]
        assert "googlebooks" in asked
