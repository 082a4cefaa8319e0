"""Coverage: which sources hold a work (the coverage model's rates per class, field,
journal and publisher, drawn per work) and the rendering options of each source.
"""

from __future__ import annotations

import random
from typing import Any

from wwgen.model import (
    ACADEMIC_PUBLISHER,
    ADJACENT_TOPICS,
    ARTICLE_CROSSREF,
    ARXIV_ARTICLE,
    ARXIV_CORE_TOPICS,
    ARXIV_FRINGE_TOPICS,
    ARXIV_PROCEEDINGS,
    BIOMEDICAL_TOPICS,
    BOOK_CROSSREF,
    BOOKSHELF_BOOK,
    BOOKSHELF_REPORT,
    COVERAGE,
    DOAJ_JOURNALS,
    DOAJ_OA_JOURNAL,
    DOAJ_OTHER_JOURNAL_SHARE,
    DOAJ_PREFIXES,
    MEDLINE_JOURNALS,
    PUBMED_MEDLINE_JOURNAL,
    PUBMED_TOPIC,
    RENDER_RATES,
    SOURCES,
    Chained,
)
from wwgen.text import clean_space, unit
from wwgen.works import Spec

# ============================================================================ coverage


def journal_key(name: str | None) -> str:
    return clean_space((name or "").lower()).strip()


def pubmed_group(topic: int) -> str:
    if topic in BIOMEDICAL_TOPICS:
        return "biomedical"
    if topic in ADJACENT_TOPICS:
        return "adjacent"
    return "other"


def is_doaj_journal(seed: int, name: str | None) -> bool:
    key = journal_key(name)
    if not key:
        return False
    if key in DOAJ_JOURNALS or key.startswith(DOAJ_PREFIXES):
        return True
    return unit("doaj-journal", key) < DOAJ_OTHER_JOURNAL_SHARE


def base_rate(spec: Spec, source: str, seed: int) -> float | Chained:
    rule = COVERAGE[spec.cls][source]
    if isinstance(rule, (float, Chained)):
        return rule
    if rule == "by-field":
        return ARTICLE_CROSSREF.get(spec.field_code, 0.7)
    if rule == "by-journal-topic":
        if journal_key(spec.container) in MEDLINE_JOURNALS:
            return PUBMED_MEDLINE_JOURNAL
        return PUBMED_TOPIC[pubmed_group(spec.topic)]
    if rule == "by-journal":
        return DOAJ_OA_JOURNAL if is_doaj_journal(seed, spec.container) else 0.0
    if rule == "by-topic":
        if spec.year is not None and spec.year < 1992:
            return 0.0
        if spec.topic in ARXIV_CORE_TOPICS:
            return ARXIV_ARTICLE["core"]
        return ARXIV_ARTICLE["fringe"] if spec.topic in ARXIV_FRINGE_TOPICS else 0.0
    if rule == "by-topic-proceedings":
        if spec.year is not None and spec.year < 1992:
            return 0.0
        return ARXIV_PROCEEDINGS["core" if spec.topic in ARXIV_CORE_TOPICS else "other"]
    if rule == "by-publisher":
        academic = bool(spec.publisher and ACADEMIC_PUBLISHER.search(spec.publisher))
        return BOOK_CROSSREF["academic" if academic else "other"]
    if rule == "bookshelf":
        return BOOKSHELF_BOOK if spec.topic in BIOMEDICAL_TOPICS else 0.0
    if rule == "bookshelf-report":
        return BOOKSHELF_REPORT if pubmed_group(spec.topic) != "other" else 0.0
    raise ValueError(f"unknown coverage rule {rule!r}")


def presence_model(spec: Spec, seed: int) -> dict[str, float]:
    """Marginal P(source holds the work) for every source (chained rates resolved), with
    any forced presence (a real DOI is a Crossref DOI) applied."""
    marginal: dict[str, float] = {}
    for source in SOURCES:
        rate = spec.forced.get(source)
        if rate is None:
            rule = base_rate(spec, source, seed)
            if isinstance(rule, Chained):
                p_parent = marginal[rule.parent]
                rate = p_parent * rule.if_parent + (1 - p_parent) * rule.otherwise
            else:
                rate = rule
        marginal[source] = rate
    return marginal


def draw_presence(spec: Spec, seed: int) -> dict[str, bool]:
    present: dict[str, bool] = {}
    for source in SOURCES:
        forced = spec.forced.get(source)
        if forced is not None:
            rate = forced
        else:
            rule = base_rate(spec, source, seed)
            if isinstance(rule, Chained):
                rate = rule.if_parent if present[rule.parent] else rule.otherwise
            else:
                rate = rule
        present[source] = unit(seed, "presence", spec.key, source) < rate
    return present


def render_options(spec: Spec, source: str, rng: random.Random) -> dict[str, Any]:
    """Rendering options for one source (WW_WORLD.md 1.4)."""
    rates = RENDER_RATES.get(source, {})
    opts: dict[str, Any] = {}
    n_auth = len(spec.authors)
    has_sub = spec.subtitle is not None
    if source == "crossref":
        if rng.random() < rates["title_case_title"]:
            opts["title_case"] = "title"
        if rng.random() < rates["initials"]:
            opts["initials"] = True
        if has_sub and rng.random() < rates["drop_subtitle"]:
            opts["drop_subtitle"] = True
    elif source == "openalex":
        r = rng.random()
        if spec.cls in ("article", "proceedings") and spec.year is not None:
            if r < rates["year_minus"]:
                opts["year_offset"] = -1
            elif r < rates["year_minus"] + rates["year_plus"]:
                opts["year_offset"] = 1
        if rng.random() < rates["initials"]:
            opts["initials"] = True
        if has_sub and rng.random() < rates["drop_subtitle"]:
            opts["drop_subtitle"] = True
        if rng.random() < rates["title_case_lower"]:
            opts["title_case"] = "lower"
        if spec.doi and rng.random() < rates["omit_doi"]:
            opts["omit_doi"] = True
    elif source == "semanticscholar":
        if rng.random() < rates["initials"]:
            opts["initials"] = True
        if has_sub and rng.random() < rates["drop_subtitle"]:
            opts["drop_subtitle"] = True
        if spec.year is not None and rng.random() < rates["year_pm"]:
            opts["year_offset"] = rng.choice((-1, 1))
        if spec.doi and rng.random() < rates["omit_doi"]:
            opts["omit_doi"] = True
    elif source == "pubmed":
        if rng.random() < rates["initials"]:
            opts["initials"] = True
        if spec.year is not None and rng.random() < rates["year_minus"]:
            opts["year_offset"] = -1
        if spec.doi and rng.random() < rates["omit_doi"]:
            opts["omit_doi"] = True
    elif source == "openlibrary":
        r = rng.random()
        if n_auth >= 2 and r < rates["max1"]:
            opts["max_authors"] = 1
        elif n_auth >= 3 and r < rates["max1"] + rates["max2"]:
            opts["max_authors"] = 2
        if has_sub and rng.random() < rates["drop_subtitle"]:
            opts["drop_subtitle"] = True
        if rng.random() < rates["title_case_title"]:
            opts["title_case"] = "title"
        if spec.year is not None and spec.cls != "early" and rng.random() < rates["year_pm"]:
            opts["year_offset"] = rng.choice((-1, 1))
    elif source == "googlebooks":
        if n_auth >= 3 and rng.random() < rates["max_short"]:
            opts["max_authors"] = rng.randint(1, 3)
        if has_sub and rng.random() < rates["drop_subtitle"]:
            opts["drop_subtitle"] = True
        if spec.year is not None:
            if spec.cls == "early":
                if rng.random() < rates["early_modern_year"]:
                    opts["year_offset"] = rng.randint(1950, 2015) - spec.year
            elif rng.random() < rates["year_edition"]:
                opts["year_offset"] = rng.randint(1, 5)
    elif source == "doaj":
        if spec.doi and rng.random() < rates["omit_doi"]:
            opts["omit_doi"] = True
    elif source == "arxiv":
        if spec.year is not None and rng.random() < rates["year_minus"]:
            opts["year_offset"] = -1
        if spec.doi and rng.random() < rates["omit_doi"]:
            opts["omit_doi"] = True
    return opts


