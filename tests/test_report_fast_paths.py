"""The report's fast paths give exactly the slow paths' output (property-tested).

Each slow path is the code before the fast path, kept here: the author-list comparison
without its in-order shortcut, the field comparison that lists every value first, the
record merge that rebuilds every field, the BibTeX escaping and title bracing by regex
and per-character lists, the verdict that groups witnesses under "distinct" too, and the
report that looks the agreeing records up once per part.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from citation_strategies import (
    AUTHOR_LISTS,
    TYPES,
    author_lists_like,
    citation_and_results,
    citations,
    records_for,
    titles,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier.citations import corrections as C
from verifier.citations import discrepancies as D
from verifier.citations import merging as M
from verifier.citations.models import (
    Author,
    Citation,
    CitationInput,
    Correction,
    Discrepancy,
    Identifiers,
    Report,
    Retraction,
    SourceResult,
    Status,
    WorkRecord,
    WorkType,
)
from verifier.citations.normalize import normalize_title, strip_markup
from verifier.citations.results_report import report_from_results
from verifier.citations.verdict import (
    AGREEMENT,
    Verdict,
    agreeing_records,
    corrected_record,
    decide,
    independent_groups,
    matching_sources,
    retraction_status,
)

_T = TypeVar("_T")

# ---------------------------------------------------------------------------------------
# Slow paths: discrepancies


def slow_authors_agree(cited: Sequence[Author], found: Sequence[Author],
                       et_al: bool = False) -> bool:
    cited, found = D._persons(cited), D._persons(found)
    pairs = D._pair_authors(cited, found)
    if any(p is None for p in pairs):
        return False
    positions = [p for p in pairs if p is not None]
    if positions != sorted(positions):
        return False
    if any(not D._spelt_alike(c, found[p]) for c, p in zip(cited, positions, strict=True)):
        return False
    return et_al or len(found) == len(cited)


def slow_field_discrepancy(
    field: D._Field, citation: Citation, sourced: Sequence[tuple[str, WorkRecord]]
) -> Discrepancy | None:
    cited = field.cited(citation).strip()
    if not cited:
        return None
    values = [(s, v) for s, v in ((s, field.found(r).strip()) for s, r in sourced) if v]
    if field.name == "container":
        values = [(s, v) for s, v in values if not D.is_preprint_server(v)]
    if any(field.same(cited, v) for _, v in values):
        return None
    agreed = D.consensus(values, field.same)
    if agreed is None or field.same(cited, agreed[0]):
        return None
    return Discrepancy(field=field.name, cited=cited, found=agreed[0], sources=agreed[1])


def slow_authors_discrepancy(
    citation: Citation, sourced: Sequence[tuple[str, WorkRecord]]
) -> Discrepancy | None:
    if not D._persons(citation.authors):
        return None
    values = [(s, r.authors) for s, r in sourced if D._persons(r.authors)]
    if any(slow_authors_agree(citation.authors, v, citation.et_al) for _, v in values):
        return None

    def same_list(a: Sequence[Author], b: Sequence[Author]) -> bool:
        shorter, longer = sorted((a, b), key=len)
        return slow_authors_agree(shorter, longer, et_al=True)

    agreed = D.consensus(values, same_list, fullness=len)
    if agreed is None or slow_authors_agree(citation.authors, agreed[0], citation.et_al):
        return None
    return Discrepancy(
        field="authors",
        cited=D.render_authors(citation.authors, citation.et_al),
        found=D.render_authors(agreed[0]),
        sources=agreed[1],
    )


def slow_discrepancies(
    citation: Citation, results: Mapping[str, SourceResult], agreeing: tuple[str, ...]
) -> tuple[Discrepancy, ...]:
    sourced = agreeing_records(results, agreeing)
    if not sourced:
        return ()
    records = [r for _, r in sourced]
    found: list[Discrepancy | None] = []
    for field in D._FIELDS:
        if field.name == "publisher" and not D._is_bookish(citation, records):
            continue
        if field.name == "doi" and D._doi_is_records_arxiv(citation, records):
            continue
        found.append(slow_field_discrepancy(field, citation, sourced))
        if field.name == "title":
            found.append(slow_authors_discrepancy(citation, sourced))
    return tuple(d for d in found if d is not None)


# ---------------------------------------------------------------------------------------
# Slow paths: corrections


def _first_given(values: Sequence[_T]) -> _T:
    for value in values:
        if value:
            return value
    return values[0]


def slow_merge_records(record: WorkRecord, others: Sequence[WorkRecord] = ()) -> WorkRecord:
    if not others:
        return record
    chain = [record, *others]
    pages = _first_given([r.pages for r in chain])
    ids = [r.identifiers for r in chain]
    return replace(
        record,
        title=_first_given([r.title for r in chain]),
        authors=_first_given([r.authors for r in chain]),
        year=next((r.year for r in chain if r.year is not None), None),
        container=_first_given([r.container for r in chain]),
        volume=_first_given([r.volume for r in chain]),
        issue=_first_given([r.issue for r in chain]),
        pages=M._fuller_pages(pages, [r.pages for r in others]),
        publisher=_first_given([r.publisher for r in chain]),
        editors=_first_given([r.editors for r in chain]),
        type=next((r.type for r in chain if r.type is not WorkType.UNKNOWN), WorkType.UNKNOWN),
        identifiers=Identifiers(
            doi=_first_given([i.doi for i in ids]),
            isbn=_first_given([i.isbn for i in ids]),
            issn=_first_given([i.issn for i in ids]),
            arxiv=_first_given([i.arxiv for i in ids]),
            pmid=_first_given([i.pmid for i in ids]),
            pmcid=_first_given([i.pmcid for i in ids]),
            url=ids[0].url,
        ),
    )


_SLOW_LATEX_SPECIAL = re.compile("|".join(re.escape(c) for c in C._LATEX_SPECIALS))


def slow_bibtex_escape(text: str) -> str:
    cleaned = " ".join(strip_markup(text).split())
    return _SLOW_LATEX_SPECIAL.sub(lambda m: C._LATEX_SPECIALS[m.group(0)], cleaned)


def slow_protect_title(title: str) -> str:
    words = slow_bibtex_escape(title).split(" ")
    protected = []
    for position, word in enumerate(words):
        capitals = [c for c in word if c.isupper()]
        plain_first = position == 0 and capitals == [word[:1]] and word[:1].isupper()
        protected.append(f"{{{word}}}" if capitals and not plain_first else word)
    return " ".join(protected)


def slow_bibtex_key(record: WorkRecord) -> str:
    people = [a for a in (*record.authors, *record.editors) if a.family or a.literal]
    first = people[0] if people else None
    if first is None:
        name = "Anon"
    elif first.family:
        name = C._key_word(first.family)
    else:
        name = C._key_word(first.literal.split()[0])
    words = [w for w in normalize_title(record.title).split() if w not in C._KEY_STOPWORDS]
    year = str(record.year) if record.year is not None else "nd"
    return f"{name or 'Anon'}{year}{C._key_word(words[0]) if words else ''}"


def slow_bibtex_fields(record: WorkRecord, kind: WorkType, note: str = ""
                       ) -> list[tuple[str, str]]:
    def names(listed: Sequence[Author]) -> str:
        def one(a: Author) -> str:
            if not a.family:
                return f"{{{slow_bibtex_escape(a.literal)}}}"
            if not a.given:
                return slow_bibtex_escape(a.family)
            return f"{slow_bibtex_escape(a.family)}, {slow_bibtex_escape(a.given)}"
        return " and ".join(one(a) for a in listed if a.family or a.literal)

    parsed = D.parse_pages(record.pages)
    pages = "" if parsed is None else (
        parsed.display("--") if parsed.last else slow_bibtex_escape(record.pages))
    container_field = {
        WorkType.ARTICLE: "journal",
        WorkType.CHAPTER: "booktitle",
        WorkType.PROCEEDINGS: "booktitle",
    }.get(kind, "" if kind in (WorkType.BOOK, WorkType.THESIS) else "howpublished")
    fields = [
        ("author", names(record.authors)),
        ("editor", names(record.editors)),
        ("title", slow_protect_title(record.title)),
        (container_field, slow_bibtex_escape(record.container)),
        ("year", str(record.year) if record.year is not None else ""),
        ("volume", slow_bibtex_escape(record.volume)),
        ("number", slow_bibtex_escape(record.issue)),
        ("pages", pages),
        ("school" if kind is WorkType.THESIS else "publisher",
         slow_bibtex_escape(record.publisher)),
        ("doi", re.sub(r"[{}\s]", "", record.identifiers.doi or "")),
        ("note", slow_bibtex_escape(note)),
    ]
    return [(name, value) for name, value in fields if name and value]


def slow_shown_title(cited: str, titles: Sequence[str]) -> str:
    shown = next((t for t in titles if t), "")
    for other in titles[1:]:
        if C._extends(other, shown):
            shown = other
    if cited and not C.is_all_caps(cited) and (
            normalize_title(cited) == normalize_title(shown) or C._extends(cited, shown)):
        shown = cited
    if C.is_all_caps(shown):
        shown = C._sentence_case(shown, [cited, *titles])
    return shown


def slow_correction_for(citation: Citation, record: WorkRecord,
                        others: Sequence[WorkRecord] = (), *, key: str = "",
                        retracted: bool = False) -> Correction:
    merged = slow_merge_records(record, others)
    merged = replace(merged, title=slow_shown_title(citation.title,
                                                    [r.title for r in (record, *others)]))
    kind = M.work_kind(merged, citation)
    return Correction(apa=C.apa_reference(merged, kind, retracted=retracted),
                      bibtex=C.bibtex_entry(merged, kind, key=key, retracted=retracted))


# ---------------------------------------------------------------------------------------
# Slow paths: the verdict and the report


def slow_decide(results: Mapping[str, SourceResult], independence: str) -> Verdict:
    agreeing = matching_sources(results)
    witnesses = len(independent_groups(results, independence))
    if witnesses >= AGREEMENT:
        return Verdict(Status.VERIFIED, agreeing)
    if agreeing:
        return Verdict(Status.UNCONFIRMED, agreeing)
    if any(r.status.failed for r in results.values()):
        return Verdict(Status.INCONCLUSIVE, ())
    if not any(r.status.answered for r in results.values()):
        return Verdict(Status.INCONCLUSIVE, ())
    return Verdict(Status.NO_TRACE, ())


def slow_report(item: CitationInput, citation: Citation,
                results: Mapping[str, SourceResult], flags: Sequence[str],
                independence: str) -> Report:
    """report_from_results as it was: every part looks the agreeing records up itself."""
    verdict = slow_decide(results, independence)
    found = set(flags)
    agreeing = verdict.agreeing
    if verdict.status in (Status.VERIFIED, Status.UNCONFIRMED):
        found.discard("title_by_other_authors")
        if not citation.authors and not citation.et_al:
            found.add("no_authors_cited")
    if agreeing and D.preprint_cited_as_published(citation, results, agreeing):
        found.add(D.PREPRINT_CITED_AS_PUBLISHED_FLAG)
    if D.doi_not_found(citation, results):
        found.add(D.DOI_NOT_FOUND_FLAG)
    retraction = retraction_status(results, agreeing) if agreeing else Retraction.UNKNOWN
    if retraction is Retraction.RETRACTED:
        found.add("retracted")
    sourced = agreeing_records(results, agreeing)
    correction = slow_correction_for(
        citation, sourced[0][1], [r for _, r in sourced[1:]], key=item.key,
        retracted=retraction is Retraction.RETRACTED) if sourced else None
    return Report(
        id=item.id, index=item.index, input=item.text, citation=citation,
        status=verdict.status, retraction=retraction, flags=tuple(sorted(found)),
        discrepancies=slow_discrepancies(citation, results, agreeing),
        corrected=corrected_record(results, agreeing), agreeing_sources=agreeing,
        sources=dict(results), elapsed_s=0.0, correction=correction,
    )


# ---------------------------------------------------------------------------------------
# The properties


@st.composite
def two_author_lists(draw: st.DrawFn) -> tuple[tuple[Author, ...], tuple[Author, ...]]:
    cited = draw(AUTHOR_LISTS)
    return cited, draw(author_lists_like(cited))


@settings(max_examples=1000)
@given(two_author_lists(), st.booleans())
@example(((Author("Smith", "J."), Author("Smith", "John")),
          (Author("Smith", "John"), Author("Smith", "J."))), False)
@example(((Author("Zhang", "Jun"),), (Author("Jun", "Zhang"),)), False)
@example(((Author("Granoveter", "M."),), (Author("Granovetter", "Mark"),)), False)
@example(((Author("-", "J."),), (Author("-", "J."),)), False)
@example(((Author("Smith", "J."),), (Author("Smith", "J."), Author("Leary", "M."))), True)
def test_authors_agree_is_the_slow_paths(
    lists: tuple[tuple[Author, ...], tuple[Author, ...]], et_al: bool
) -> None:
    cited, found = lists
    assert D.authors_agree(cited, found, et_al) is slow_authors_agree(cited, found, et_al)


@settings(max_examples=300, deadline=None)
@given(citation_and_results())
def test_discrepancies_are_the_slow_paths(
    case: tuple[Citation, dict[str, SourceResult]],
) -> None:
    citation, results = case
    agreeing = matching_sources(results)
    assert D.discrepancies(citation, results, agreeing) == \
        slow_discrepancies(citation, results, agreeing)


@settings(max_examples=300, deadline=None)
@given(citations().flatmap(lambda c: st.tuples(
    st.just(c), st.lists(records_for(c), min_size=1, max_size=4))))
def test_merge_and_correction_are_the_slow_paths(
    case: tuple[Citation, list[WorkRecord]],
) -> None:
    citation, records = case
    record, others = records[0], records[1:]
    assert M.merge_records(record, others) == slow_merge_records(record, others)
    for retracted in (False, True):
        assert C.correction_for(citation, record, others, key="k", retracted=retracted) == \
            slow_correction_for(citation, record, others, key="k", retracted=retracted)


@settings(max_examples=1000)
@given(titles() | st.text())
@example("Costs & {benefits} of 50% R_0 ~ $x^2$ #1 \\ here")
@example("ǅemal and Éire: ÉTUDES")
@example("  spaced\tout <i>title</i>  ")
@example("iPhone use by McDonald's staff in the USA")
@example("A b C")
def test_bibtex_escape_and_title_bracing_are_the_slow_paths(text: str) -> None:
    assert C.bibtex_escape(text) == slow_bibtex_escape(text)
    assert C._protect_title(text) == slow_protect_title(text)


@settings(max_examples=300, deadline=None)
@given(citations().flatmap(records_for), TYPES, st.sampled_from(["", "Retracted"]))
def test_bibtex_fields_and_key_are_the_slow_paths(record: WorkRecord, kind: WorkType,
                                                  note: str) -> None:
    assert C._bibtex_fields(record, kind, note) == slow_bibtex_fields(record, kind, note)
    assert C.bibtex_key(record) == slow_bibtex_key(record)


@settings(max_examples=300, deadline=None)
@given(citation_and_results(), st.sampled_from(["distinct", "lineage"]),
       st.lists(st.sampled_from(["title_by_other_authors", "doi_mismatch"]), unique=True),
       st.sampled_from(["", "key1", "bad key"]))
def test_report_from_results_is_the_slow_paths(
    case: tuple[Citation, dict[str, SourceResult]], independence: str, flags: list[str],
    key: str,
) -> None:
    citation, results = case
    assert decide(results, independence) == slow_decide(results, independence)
    item = CitationInput("c1", 0, "the cited text", key=key)
    fast = report_from_results(item, citation, results, flags, independence=independence)
    assert fast == slow_report(item, citation, results, flags, independence)
    assert fast.to_json() == slow_report(item, citation, results, flags,
                                         independence).to_json()


def test_authority_rank_is_the_position_in_authority() -> None:
    from verifier.citations.verdict import AUTHORITY, authority_rank

    assert [authority_rank(s) for s in AUTHORITY] == [AUTHORITY.index(s) for s in AUTHORITY]
    assert authority_rank("elsewhere") == len(AUTHORITY)


CAPS_TITLES = st.sampled_from(["ADAPTIVE RATES OF THINGS", "THE NHS AND DNA: A STUDY",
                               "Adaptive rates", "", "NHS"])


@settings(max_examples=1000)
@given(titles() | CAPS_TITLES, st.lists(titles() | CAPS_TITLES, max_size=3))
def test_the_title_shown_is_the_slow_paths(cited: str, shown: list[str]) -> None:
    assert C.shown_title(cited, shown) == slow_shown_title(cited, shown)


@settings(max_examples=300, deadline=None)
@given(citations().flatmap(records_for), citations().flatmap(records_for))
def test_a_record_replaced_is_dataclasses_replace(record: WorkRecord, other: WorkRecord
                                                  ) -> None:
    changes: dict[str, Any] = {"title": other.title, "pages": other.pages, "year": other.year,
               "identifiers": other.identifiers, "authors": other.authors}
    for count in range(len(changes) + 1):
        some = dict(list(changes.items())[:count])
        assert M._replaced(record, some) == replace(record, **some)
    ids = {"doi": other.identifiers.doi, "isbn": ("9780000000002",), "pmid": "123"}
    for count in range(len(ids) + 1):
        some = dict(list(ids.items())[:count])
        assert M._replaced(record.identifiers, some) == replace(record.identifiers, **some)


@settings(max_examples=500)
@given(titles() | st.text())
@example("")
@example("!!!")
@example("pp. 45-7")
@example("Vol. LIX")
@example("pp. -")
def test_a_field_marked_reflexive_agrees_with_itself(text: str) -> None:
    """The field comparison's equal-value shortcut holds only where ``same(x, x)``."""
    reflexive = {f.name for f in D._FIELDS if f.reflexive}
    assert reflexive == {"title", "year", "volume", "issue", "pages", "doi"}
    for field in D._FIELDS:
        if field.reflexive:
            agrees = field.same(text, text)
            assert agrees, (field.name, text)
    # The two left out really are not: a name without words agrees with nothing.
    assert not D.publishers_agree("!!!", "!!!")
    assert not D.containers_agree("!!!", "!!!")


def test_every_whitespace_character_but_the_space_is_unprintable() -> None:
    """What the BibTeX DOI shortcut relies on: a printable text without a space holds no
    character the DOI cleaning pattern's ``\\s`` removes."""
    space = re.compile(r"\s")
    for code in range(0x110000):
        character = chr(code)
        if character != " " and space.match(character):
            assert not character.isprintable(), hex(code)


@settings(max_examples=500)
@given(st.text() | st.sampled_from(["10.1000/x y", "10.1000/{x}", "10.1000/x\u00a0y",
                                    "10.1000/x\u2028y", "10.1000/ok"]))
def test_the_bibtex_doi_is_the_pattern_substitution(doi: str) -> None:
    assert C._bibtex_doi(doi) == C._DOI_NOISE.sub("", doi)
