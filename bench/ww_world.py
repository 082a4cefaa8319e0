"""Build the Walters & Wilder world: the offline corpus the 636-citation benchmark runs on.

Run::

    .venv/bin/python bench/ww_world.py --data ../shared/data/walters_wilder_2023 \\
        --out PATH [--seed N] [--background N] [--manifest PATH]

or import :func:`build_world` / :func:`write_world`. The coverage model and every rule
used here are written down, with reasons, in ``bench/WW_WORLD.md``; the figures in
:data:`COVERAGE` are that document's, and change only with it.

The labels of the data (``fabricated``, ``ww_note``, HALLMARK's fields) decide which works
exist and what their true metadata is. Nothing in a corpus line says why a work is in the
world: ids are hashes, lines are sorted by id, and cited, decoy and background works go
through the same generation and rendering code. The optional manifest (``--manifest``,
:func:`build_world_with_manifest`) records each work's role for audits and tests; the
engine must never read it.

Determinism: every random choice comes from a :class:`random.Random` seeded with the
SHA-256 of the seed and a stable key of the work and the purpose of the draw, so the
output does not depend on processing order, set order or ``hash()``.

The citation extraction here is deliberately independent of ``verifier.parse``: it is a
small extractor written for the formats of this data set, so the engine's parser errors
are not baked into the world.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import json
import random
import re
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SOURCES: tuple[str, ...] = (
    "crossref", "openalex", "semanticscholar", "pubmed", "doaj", "arxiv",
    "openlibrary", "googlebooks",
)
CLASSES: tuple[str, ...] = ("article", "book", "early", "report", "chapter", "proceedings", "web")
CORPUS_TYPE: dict[str, str] = {
    "article": "article", "book": "book", "early": "book", "report": "report",
    "chapter": "chapter", "proceedings": "proceedings", "web": "web",
}

# ============================================================================ coverage model
# The figures of WW_WORLD.md section 1 (written before this code and before any benchmark).

BIOMEDICAL_TOPICS: frozenset[int] = frozenset({34, 35, 36, 37, 38})
ADJACENT_TOPICS: frozenset[int] = frozenset({9, 10, 16, 17, 19, 28, 29, 30, 31, 39})
ARXIV_CORE_TOPICS: frozenset[int] = frozenset({4, 6, 42})
ARXIV_FRINGE_TOPICS: frozenset[int] = frozenset({26, 27, 37, 40, 41})

ARTICLE_CROSSREF: dict[str, float] = {"H": 0.55, "S": 0.70, "N": 0.80}


@dataclass(frozen=True, slots=True)
class Chained:
    """P(source | parent holds the work) and P(source | parent does not)."""

    parent: str
    if_parent: float
    otherwise: float


# Per class: base rates (a float) or a rate chained on another source. Sources that depend
# on the work (field, topic, journal, publisher) are resolved in `presence_model`.
COVERAGE: dict[str, dict[str, float | Chained | str]] = {
    "article": {
        "crossref": "by-field", "openalex": Chained("crossref", 0.97, 0.65),
        "semanticscholar": Chained("openalex", 0.88, 0.25), "pubmed": "by-journal-topic",
        "doaj": "by-journal", "arxiv": "by-topic", "openlibrary": 0.01, "googlebooks": 0.02,
    },
    "book": {
        "crossref": "by-publisher", "openalex": Chained("crossref", 0.95, 0.10),
        "semanticscholar": Chained("openalex", 0.35, 0.03), "pubmed": "bookshelf",
        "doaj": 0.0, "arxiv": 0.0, "openlibrary": 0.88,
        "googlebooks": Chained("openlibrary", 0.92, 0.50),
    },
    "early": {
        "crossref": 0.0, "openalex": 0.10, "semanticscholar": 0.03, "pubmed": 0.0,
        "doaj": 0.0, "arxiv": 0.0, "openlibrary": 0.97, "googlebooks": 0.95,
    },
    "report": {
        "crossref": 0.20, "openalex": Chained("crossref", 0.95, 0.35),
        "semanticscholar": Chained("openalex", 0.45, 0.05), "pubmed": "bookshelf-report",
        "doaj": 0.0, "arxiv": 0.0, "openlibrary": 0.25, "googlebooks": 0.40,
    },
    "chapter": {
        "crossref": 0.45, "openalex": Chained("crossref", 0.95, 0.15),
        "semanticscholar": Chained("openalex", 0.45, 0.05), "pubmed": "bookshelf",
        "doaj": 0.0, "arxiv": 0.0, "openlibrary": 0.05, "googlebooks": 0.60,
    },
    "proceedings": {
        "crossref": 0.55, "openalex": Chained("crossref", 0.97, 0.50),
        "semanticscholar": Chained("openalex", 0.85, 0.30), "pubmed": 0.0, "doaj": 0.0,
        "arxiv": "by-topic-proceedings", "openlibrary": 0.0, "googlebooks": 0.10,
    },
    "web": {
        "crossref": 0.02, "openalex": 0.08, "semanticscholar": 0.03, "pubmed": 0.0,
        "doaj": 0.0, "arxiv": 0.0, "openlibrary": 0.03, "googlebooks": 0.05,
    },
}
PUBMED_MEDLINE_JOURNAL = 0.95
PUBMED_TOPIC = {"biomedical": 0.70, "adjacent": 0.25, "other": 0.02}
BOOKSHELF_BOOK = 0.05
BOOKSHELF_REPORT = 0.10
DOAJ_OA_JOURNAL = 0.85
DOAJ_OTHER_JOURNAL_SHARE = 0.05
ARXIV_ARTICLE = {"core": 0.20, "fringe": 0.05}
ARXIV_PROCEEDINGS = {"core": 0.25, "other": 0.03}
BOOK_CROSSREF = {"academic": 0.35, "other": 0.05}

# Journals MEDLINE indexes (among the real journals of the data and the background's).
MEDLINE_JOURNALS: frozenset[str] = frozenset(
    {
        "addiction", "aggressive behavior", "american journal of primatology",
        "american journal of public health", "american psychologist",
        "annals of internal medicine", "annual review of psychology",
        "archives of pediatrics & adolescent medicine", "child development", "circulation",
        "community dentistry and oral epidemiology", "conservation biology", "demography",
        "embo reports", "environmental health perspectives", "food and chemical toxicology",
        "genome biology", "injury prevention", "jama", "journal of adolescence",
        "journal of animal science", "journal of applied gerontology",
        "journal of clinical sleep medicine", "journal of counseling psychology",
        "journal of dental research", "journal of epidemiology and community health",
        "journal of pediatrics", "journal of periodontology",
        "journal of personality and social psychology", "journal of public health dentistry",
        "journal of school health", "journal of sleep research", "journal of sports sciences",
        "journal of the american dental association", "journal of the american heart association",
        "lancet", "the lancet", "nature", "nature reviews cardiology",
        "nature and science of sleep", "new england journal of medicine",
        "nicotine & tobacco research", "pediatrics", "periodontology 2000",
        "personality and social psychology bulletin", "perspectives in biology and medicine",
        "plos one", "population and development review", "preventive medicine",
        "proceedings of the japan academy, series b",
        "proceedings of the national academy of sciences", "psychiatric quarterly",
        "psychological bulletin", "psychological review", "psychological science", "science",
        "science advances", "sleep", "sleep medicine reviews", "the gerontologist",
        "the journal of nutrition", "the milbank quarterly", "theriogenology",
        "therapeutic advances in drug safety", "tobacco control",
        "trends in cognitive sciences", "trends in ecology & evolution",
        "environmental science & technology", "nature biotechnology", "oryx",
    }
)
# Open-access journals in DOAJ (seen in the data); others by a 5 % hash of the name.
DOAJ_JOURNALS: frozenset[str] = frozenset(
    {
        "plos one", "science advances", "batteries", "environmental sciences europe",
        "biogeosciences", "environmental health perspectives", "research & politics",
        "digital humanities quarterly", "journal of cultural analytics",
        "demographic research", "journal of military and strategic studies", "sustainability",
        "genome biology", "nature and science of sleep", "earth's future",
        "the international review of research in open and distributed learning",
        "journal of online learning and teaching",
        "merlot journal of online learning and teaching", "therapeutic advances in drug safety",
        "proceedings of the japan academy, series b", "journal of the american heart association",
        "scientific reports", "journal of technology and science education", "energies",
        "engineering", "nuclear engineering and technology", "nuclear materials and energy",
        "ecology and society",
    }
)
DOAJ_PREFIXES: tuple[str, ...] = ("frontiers in ", "bmc ")
ACADEMIC_PUBLISHER = re.compile(
    r"universit|press|springer|routledge|palgrave|wiley|elsevier|brill|sage|bloomsbury|"
    r"de gruyter|mouton|benjamins|taylor|blackwell|world scientific|woodhead|academic|"
    r"edward elgar|emerald|ashgate|guilford|mit|cabi|earthscan|polity|verso|hart|"
    r"butterworth|columbia|harvard|yale|princeton|oxford|cambridge",
    re.IGNORECASE,
)
REPORT_PUBLISHER = re.compile(
    r"working paper|\bnber\b|national bureau|institut|foundation|organi[sz]ation|agency|"
    r"department|commission|council|\bbank\b|centre|center|programme|\bprogram\b|panel|"
    r"office|\blab\b|mckinsey|service|secretariat|united nations|\bfao\b|\bwho\b|\bipcc\b|"
    r"\boecd\b|brookings|\brand\b|world economic forum|policy analysis|cato|unfccc|"
    r"\bcepr\b|survey|association|society|war college|grid-arendal|health and human",
    re.IGNORECASE,
)

# Rendering options (WW_WORLD.md 1.4).
RENDER_RATES: dict[str, dict[str, float]] = {
    "crossref": {"title_case_title": 0.15, "initials": 0.20, "drop_subtitle": 0.05},
    "openalex": {"year_minus": 0.08, "year_plus": 0.02, "initials": 0.10,
                 "drop_subtitle": 0.05, "title_case_lower": 0.02, "omit_doi": 0.03},
    "semanticscholar": {"initials": 0.45, "drop_subtitle": 0.05, "year_pm": 0.05,
                        "omit_doi": 0.15},
    "pubmed": {"initials": 0.50, "year_minus": 0.05, "omit_doi": 0.20},
    "openlibrary": {"max1": 0.35, "max2": 0.10, "drop_subtitle": 0.30,
                    "title_case_title": 0.25, "year_pm": 0.05},
    "googlebooks": {"max_short": 0.40, "drop_subtitle": 0.25, "year_edition": 0.15,
                    "early_modern_year": 0.90},
    "doaj": {"omit_doi": 0.30},
    "arxiv": {"year_minus": 0.35, "omit_doi": 0.50},
}

# ============================================================================ generation rules
# (WW_WORLD.md section 2)

GIVEN_EXPANSION_RATE = 0.85
"""Share of initials-only people whose records carry a full first name."""
ELIDED_EXTRA_AUTHORS = (1, 8)
"""Authors a citation's "…" or "et al." left out: how many the world puts back."""
SCHOLAR_REAL_RATE = 0.6
"""P(an author named by a fabricated citation is a real scholar), when the data shows no
real work by that family name."""
SCHOLAR_WORKS = (1, 3)
DOI_TRAP_RATE = 0.5
"""P(a fabricated citation's DOI belongs to another, unrelated work)."""
BACKGROUND_NEAR_TITLE_RATE = 0.05
"""Share of background works whose main title is a cited title's main title."""
ISBN_RATE = {"book_modern": 0.97, "book_old": 0.40, "report": 0.40, "early": 0.95}
DATACITE_REPORT_RATE = 0.10
MISSING_ISSUE_RATE = 0.12

STOPWORDS: frozenset[str] = frozenset(
    """a an the of in on for and or to with from by at as its their is are was were be been
    how what why who whom does do did can could should would will between into through
    among amongst toward towards about under after before over during within without across
    vs versus not no nor than that this these those which when where there here it his her
    our your my we they he she them us than so but if via per upon more less most least
    very much many some any all each every other another such new old ii iii i iv v""".split()
)
FIRST_NAMES: dict[str, tuple[str, ...]] = {
    "A": ("Anna", "Andrew", "Aisha", "Alejandro", "Anders"),
    "B": ("Benjamin", "Beatriz", "Brian", "Birgit", "Bao"),
    "C": ("Catherine", "Carlos", "Chen", "Claire", "Christopher"),
    "D": ("David", "Daniela", "Deepak", "Dorothy", "Dmitri"),
    "E": ("Elizabeth", "Erik", "Elena", "Edward", "Emeka"),
    "F": ("Francesca", "Frank", "Fatima", "Felix", "Fiona"),
    "G": ("George", "Gabriela", "Gunnar", "Grace", "Gustavo"),
    "H": ("Helen", "Hiroshi", "Hannah", "Henry", "Hamid"),
    "I": ("Ian", "Ingrid", "Isabel", "Igor", "Irene"),
    "J": ("James", "Julia", "Jun", "Johanna", "Javier"),
    "K": ("Katherine", "Kenji", "Karl", "Kavita", "Kevin"),
    "L": ("Laura", "Lars", "Li", "Lucia", "Leonard"),
    "M": ("Michael", "Maria", "Mohammed", "Margaret", "Mei"),
    "N": ("Nicholas", "Nadia", "Naoko", "Neil", "Nora"),
    "O": ("Olivia", "Oscar", "Olga", "Omar", "Owen"),
    "P": ("Peter", "Patricia", "Priya", "Pablo", "Paul"),
    "Q": ("Qing", "Quentin", "Qiang"),
    "R": ("Robert", "Rachel", "Rajesh", "Rosa", "Richard"),
    "S": ("Sarah", "Stephen", "Sanjay", "Sofia", "Samuel"),
    "T": ("Thomas", "Teresa", "Takeshi", "Tanya", "Timothy"),
    "U": ("Ulrike", "Umar", "Ursula"),
    "V": ("Victoria", "Vikram", "Valentina", "Victor"),
    "W": ("William", "Wei", "Wendy", "Walter"),
    "X": ("Xin", "Xavier", "Xiaoming"),
    "Y": ("Yuki", "Yan", "Yasmin", "Yusuf"),
    "Z": ("Zhang", "Zoe", "Zainab", "Zoltan"),
}
EXTRA_FAMILY_NAMES: tuple[str, ...] = tuple(
    """Abbott Achebe Adeyemi Ahmed Alvarez Andersen Arora Bauer Becker Bergstrom Bianchi
    Bose Brennan Castillo Chandra Chaudhry Costa Dahl Das Delgado Dubois Eriksson Esposito
    Farouk Fischer Fleming Fontaine Friedman Fujita Gallagher Garcia Gomez Gupta Haas
    Hakimi Hansen Hartmann Hayashi Herrera Hoffmann Horvath Hughes Ibrahim Iyer Jansen
    Jensen Kaplan Kato Keller Khan Kowalski Kumar Larsen Laurent Lindqvist Lopez Lund
    Mahmoud Marino Mehta Mendes Meyer Moreau Morita Mueller Murphy Nakamura Nielsen Novak
    Nowak Obi Okafor Oliveira Olsen Ortiz Osei Park Pereira Petrov Popescu Quinn Rahman
    Ramos Rao Reyes Richter Rossi Russo Sato Schmidt Schneider Sharma Silva Singh Sorensen
    Suzuki Takahashi Tanaka Torres Tran Varga Vogel Wagner Walsh Weber Winter Wong Yamada
    Yilmaz Zhou Ziegler Zimmermann""".split()
)
ACADEMIC_PUBLISHERS: tuple[str, ...] = (
    "Oxford University Press", "Cambridge University Press", "Routledge", "Springer",
    "Palgrave Macmillan", "Wiley-Blackwell", "SAGE Publications", "Bloomsbury Academic",
    "Edward Elgar", "University of Chicago Press", "Princeton University Press",
    "Harvard University Press", "Yale University Press", "MIT Press", "Polity Press",
    "Johns Hopkins University Press", "University of California Press",
)
TRADE_PUBLISHERS: tuple[str, ...] = (
    "Penguin Books", "HarperCollins", "Simon & Schuster", "Random House", "W. W. Norton",
    "Little, Brown", "Macmillan", "Vintage", "Basic Books", "PublicAffairs",
)
PLACES: tuple[str, ...] = (
    "the United States", "China", "Europe", "the United Kingdom", "Australia", "India",
    "Canada", "Brazil", "Germany", "Japan", "Indonesia", "Africa", "Latin America",
    "Scandinavia", "New Zealand", "South Korea", "the Netherlands", "Bangladesh",
)
METHODS: tuple[str, ...] = (
    "Longitudinal", "Comparative", "Qualitative", "Mixed-Methods", "Historical",
    "Quantitative", "Critical", "Systematic", "Experimental", "Multilevel",
)
GENRE_TAILS: tuple[str, ...] = (
    "A Review", "A Meta-Analysis", "A Systematic Review", "Evidence and Implications",
    "Theory and Practice", "Past, Present and Future", "Lessons for Policy",
    "New Perspectives", "A Reappraisal", "An Introduction", "A Case Study",
    "Challenges and Opportunities", "Trends and Prospects", "A Critical Assessment",
)
ORG_WORDS = re.compile(
    r"\b(?:Department|Organi[sz]ation|Agency|Commission|Foundation|Institute|Institution|"
    r"Council|Union|Panel|Programme|Program|Society|Service|Administration|Office|Bank|"
    r"Forum|Association|Scientists|Nations|Survey|Secretariat|Center|Centre|"
    r"Convention|Protection|Review|Board|Group|Ministry|Bureau|Fund|Network|Inc)\b"
)

# ============================================================================ determinism


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


def unit(*parts: object) -> float:
    """A deterministic number in [0, 1) from the parts."""
    return int.from_bytes(_digest(*parts)[:8], "big") / 2.0**64


def rng_for(seed: int, *parts: object) -> random.Random:
    return random.Random(int.from_bytes(_digest(seed, *parts)[:16], "big"))


def corpus_id(seed: int, key: str) -> str:
    return "ww" + hashlib.sha256(f"{seed}\x1f{key}".encode()).hexdigest()[:14]


# ============================================================================ text helpers


def fold(text: str) -> str:
    """Letters and digits only, accents removed, case-folded (for keys and comparisons)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def title_key(title: str) -> str:
    return fold(title)


def clean_space(text: str) -> str:
    text = text.replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip()


def split_title(full: str) -> tuple[str, str | None]:
    """Main title and subtitle, split at the first colon."""
    full = clean_space(full).rstrip(".").strip()
    m = re.match(r"^(.+?):\s+(.+)$", full)
    if m and len(m.group(1)) >= 3:
        return m.group(1).strip(), m.group(2).strip()
    return full, None


def join_title(title: str, subtitle: str | None) -> str:
    return f"{title}: {subtitle}" if subtitle else title


# ============================================================================ people

Person = dict[str, str]
INITIAL_WORD = re.compile(r"^(?:[A-Z]\.)(?:-?[A-Z]\.)*$")
PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "du", "la", "le", "di", "del"})


def is_initials(token: str) -> bool:
    """"M." "M. L." "B.A." "F.-M." (initials only)."""
    words = _initial_words(token)
    return bool(words) and all(INITIAL_WORD.match(p) or re.fullmatch(r"[A-Z]\.-[A-Z]\.", p)
                               for p in words)


def _initial_words(token: str) -> list[str]:
    # "B.A." -> ["B.", "A."], "F.-M." -> ["F.-M."], "M. L." -> ["M.", "L."]
    out: list[str] = []
    for word in token.split():
        if re.fullmatch(r"(?:[A-Z]\.)+", word) and "-" not in word:
            out.extend(re.findall(r"[A-Z]\.", word))
        else:
            out.append(word)
    return out


def normalize_initials(token: str) -> str:
    return " ".join(_initial_words(token))


def initials_family(token: str) -> Person | None:
    """"H.C. Steiner" / "M. Parker Pearson" / "C. de Haan" -> a person, else None."""
    m = re.match(r"^((?:[A-Z]\.\s*-?\s*)+)\s*(.+)$", token.strip())
    if not m:
        return None
    given, family = m.group(1).strip(), m.group(2).strip()
    if not family or not re.search(r"[A-Za-zÀ-ÿ]{2,}", family) or family.endswith("."):
        return None
    if family.split()[0].lower() not in PARTICLES and not family[0].isupper():
        return None
    return {"family": family, "given": normalize_initials(given)}


def is_given_names(token: str) -> bool:
    """"M." "M. L." "B.A." "Matthew L." "Franco" "St. Thomas" "F.-M."."""
    token = token.strip()
    if not token or len(token.split()) > 3:
        return False
    if all(INITIAL_WORD.match(w) or re.fullmatch(r"[A-Z]\.-[A-Z]\.", w)
           for w in _initial_words(token)):
        return True
    return all(re.fullmatch(r"[A-ZÀ-Ý][a-zà-ÿ'’]+\.?|[A-Z]\.", w) for w in token.split())


def parse_name_list(text: str, *, early: bool = False) -> tuple[list[Person], bool, str]:
    """Authors of a citation: (people, elided, elision kind '' / 'middle' / 'end').

    Handles APA ("Family, I. I., & Family, I."), Chicago ("Family, I., I. Family, and
    I. Family"), MLA ("Family, Given") and note lists ("I. Family, I. Family, & I. Family").
    """
    text = clean_space(text).strip().rstrip(",").strip()
    text = re.sub(r"\s*\((?:Eds?|eds?)\.?\)\s*\.?$", "", text).strip()
    kind = ""
    if re.search(r"…|\.\.\.", text):
        kind = "middle" if re.search(r"(?:…|\.\.\.)\s*,?\s*&?", text) and re.search(
            r"(?:…|\.\.\.)\s*,?\s*(?:&|and)?\s*\S", text) else "end"
        text = re.sub(r",?\s*(?:…|\.\.\.)\s*,?\s*", ", ", text)
    if re.search(r"\bet al\.?", text) or re.search(r"\band others\b", text):
        kind = kind or "end"
        text = re.sub(r",?\s*(?:et al\.?|and others)\s*", " ", text)
    text = strip_final_period(text.strip().rstrip(",").strip())
    if not text:
        return [], bool(kind), kind
    if not re.search(r",\s*[A-Z][a-z]?\.|^[A-Z]\.", text) and (
        ORG_WORDS.search(text) or (" " not in text and not early)
        or re.fullmatch(r"[A-Z]{2,}(?:\s*\([^)]*\))?", text)
    ):
        literal = re.sub(r"\s*\([A-Za-z.]+\)$", "", text).strip()
        m = re.match(r"^([A-Z]{2,})\s*\((.+)\)$", text)
        if m:  # "IPCC (Intergovernmental Panel on Climate Change)"
            literal = m.group(2)
        return [{"literal": literal}], bool(kind), kind
    tokens = [t.strip() for t in re.split(r",\s*&\s*|\s+&\s+|,\s+and\s+|\s+and\s+|,\s*", text)]
    tokens = [t for t in tokens if t]
    people: list[Person] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        person = initials_family(tok)
        if person is not None and not (i + 1 < len(tokens) and is_initials(tokens[i + 1])
                                       and not initials_family(tokens[i + 1])):
            people.append(person)
            i += 1
            continue
        if i + 1 < len(tokens) and is_given_names(tokens[i + 1]) and not initials_family(
            tokens[i + 1]
        ):
            given = tokens[i + 1]
            given = normalize_initials(given) if is_initials(given) else given
            people.append({"family": tok, "given": given})
            i += 2
            continue
        if early or not ORG_WORDS.search(tok):
            people.append({"family": tok})
        else:
            people.append({"literal": tok})
        i += 1
    return people, bool(kind), kind


def strip_final_period(text: str) -> str:
    """Drop a sentence's final period, but not an initial's ("Wainwright, G.")."""
    text = text.strip()
    if re.search(r"(?:^|[\s.,-])[A-Z]\.$", text):
        return text
    return text.rstrip(".").strip()


def family_set(people: Iterable[Person]) -> frozenset[str]:
    return frozenset(fold(p.get("family") or p.get("literal") or "") for p in people) - {""}


def expand_given(person: Person, seed: int,
                 known: Mapping[tuple[str, str], str] | None = None) -> Person:
    """The name a database record carries: an initials-only first name becomes a full one —
    the one the data gives for the person where it gives one, else (for
    GIVEN_EXPANSION_RATE of people) one drawn for that person, the same everywhere.
    ``known`` maps (folded family, first initial) to a first name the data gives
    ("Moretti, Franco")."""
    given = person.get("given")
    family = person.get("family")
    if not given or not family or not is_initials(given):
        return dict(person)
    parts = _initial_words(given)
    full = (known or {}).get((fold(family), parts[0][:1]))
    if full:
        return {"family": family, "given": " ".join([full, *parts[1:]])}
    key = (fold(family), given.replace(" ", ""))
    if unit(seed, "expand", *key) >= GIVEN_EXPANSION_RATE:
        return dict(person)
    first = parts[0]
    if "-" in first:
        return dict(person)
    pool = FIRST_NAMES.get(first[0], ("Alex",))
    name = pool[int(unit(seed, "first", *key) * len(pool))]
    return {"family": family, "given": " ".join([name, *parts[1:]])}


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


# ============================================================================ works


@dataclass
class Spec:
    """A work before rendering. ``key`` and ``role`` never reach the corpus."""

    key: str
    role: str
    cls: str
    topic: int
    field_code: str
    title: str
    subtitle: str | None = None
    authors: list[Person] = field(default_factory=list)
    editors: list[Person] = field(default_factory=list)
    year: int | None = None
    container: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    doi: str | None = None
    doi_agency: str | None = None
    isbn: list[str] = field(default_factory=list)
    issn: list[str] = field(default_factory=list)
    corpus_type: str | None = None
    forced: dict[str, float] = field(default_factory=dict)
    rows: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def classify_b(ex: Extracted, note: str) -> str:
    if note.startswith("Early work"):
        return "early"
    blob = f"{ex.publisher or ''} {ex.title}"
    people = [p for p in ex.authors if "family" in p]
    if (ex.publisher and REPORT_PUBLISHER.search(ex.publisher)
            and not re.search(r"University Press|Press$", ex.publisher)):
        return "report"
    if not people and ex.authors:
        return "report"
    if re.search(r"Working Paper|Report\b|Guideline|Inventory", blob):
        return "report"
    return "book"


def classify(row: Row, ex: Extracted) -> str:
    if row.pub_type == "A":
        return "article"
    if row.pub_type == "B":
        return classify_b(ex, row.note)
    if row.pub_type == "C":
        blob = f"{ex.container or ''}"
        if re.search(r"Proceedings|Conference|Workshop|Symposium", blob):
            return "proceedings"
        return "chapter"
    return "web"


# ---------------------------------------------------------------------------- note rules

NOTE_FIXES: dict[str, dict[str, str]] = {
    # The transcribed note is cut short ("Social Psychology 60(5), 685-71."): the work is
    # Eagly & Karau (1991), Journal of Personality and Social Psychology 60(5), 685-710.
    "walters_0120": {"container": "Journal of Personality and Social Psychology",
                     "pages": "685-710"},
}
NOTE_NAME_FIXES: dict[str, str] = {"Spench": "Spence"}  # walters_0077: a typo in the note


def note_segments(note: str) -> list[str]:
    """W&W separate the sentences of a note with two spaces."""
    parts = re.split(r"(?:(?<=\.)|(?<=\.\")|(?<=\.”))\s{2,}", note)
    return [clean_space(s).rstrip(".").strip() for s in parts if s.strip()]


def _name_list_segment(seg: str) -> list[Person] | None:
    """A note's list of people ("K.D. Multon, S.D. Brown, & R.W. Lent"), else None."""
    body = re.sub(r",?\s*…\s*,?", ", ", seg)
    tokens = [t for t in re.split(r",\s*&\s*|\s+&\s+|,\s+and\s+|\s+and\s+|,\s*", body) if t]
    people = [initials_family(t.strip()) for t in tokens]
    if not people or any(p is None for p in people):
        return None
    out = [p for p in people if p is not None]
    for p in out:
        p["family"] = NOTE_NAME_FIXES.get(p["family"], p["family"])
    return out


def _similar_word_index(words: Sequence[str], target: str) -> tuple[int, int] | None:
    """(start, length) of the one or two title words closest to ``target``."""
    t = fold(target)
    best: tuple[float, int, int] | None = None
    for n in (1, 2):
        for i in range(len(words) - n + 1):
            cand = fold("".join(words[i: i + n]))
            if not cand:
                continue
            score = difflib.SequenceMatcher(None, cand, t).ratio()
            if cand.startswith(t) or t.startswith(cand):
                score += 0.2
            if best is None or score > best[0]:
                best = (score, i, n)
    if best is None or best[0] < 0.75:
        return None
    return best[1], best[2]


def apply_title_fragment(title: str, fragment: str, qualifier: str = "") -> str:
    """Put a fragment W&W quote ("Title has ...") into the cited title, replacing the span it
    corrects. See WW_WORLD.md 2.3 for the rules."""
    fragment = fragment.strip().rstrip(".").strip()
    if "single quotes" in qualifier:
        fragment = f"'{fragment}'"
    words = title.split()
    fwords = fragment.split()
    keys = [fold(w) for w in words]
    fkeys = [fold(w) for w in fwords]
    # A bracketed fragment replaces the bracketed group.
    if fragment.startswith("("):
        m = re.search(r"\([^)]*\)", title)
        if m:
            return title[: m.start()] + fragment + title[m.end():]
    if len(fwords) == 1 or (fkeys and fkeys[0] not in keys):
        where = _similar_word_index(words, fragment)
        if where is not None and len(fwords) <= 2:
            i, n = where
            tail = words[i + n - 1]
            trail = re.search(r"[^\w'’)]+$", tail)
            return " ".join([*words[:i], fragment + (trail.group(0) if trail else ""),
                             *words[i + n:]])
    starts = [i for i, k in enumerate(keys) if fkeys and k == fkeys[0]]
    if not starts:
        return title
    i = starts[-1] if len(starts) > 1 and len(fwords) > 3 else starts[0]
    # Anchored at both ends: the fragment replaces the span between its first and last word.
    ends = [j for j in range(i, len(words)) if keys[j] == fkeys[-1]]
    if len(fwords) > 1 and ends:
        end = ends[0]
    else:
        prefix = 0
        while (prefix < len(fkeys) and i + prefix < len(keys)
               and keys[i + prefix] == fkeys[prefix]):
            prefix += 1
        if prefix >= 3:
            # The first words agree: the rest of the fragment replaces as many of the
            # following content words (none when a function word follows: an insertion).
            left = len(fkeys) - prefix
            end = i + prefix - 1
            while left > 0 and end + 1 < len(keys) and keys[end + 1] not in STOPWORDS:
                end += 1
                left -= 1
        else:
            end = len(words) - 1  # otherwise the fragment is the rest of the title
    new_fragment = fragment
    if i > 0 and words[i - 1].endswith(":") and new_fragment[:1].islower():
        new_fragment = new_fragment[0].upper() + new_fragment[1:]
    trail = re.search(r"[^\w'’)]+$", words[end]) if end < len(words) - 1 else None
    if trail and not new_fragment.endswith(trail.group(0)):
        new_fragment += trail.group(0)
    return " ".join([*words[:i], new_fragment, *words[end + 1:]])


def apply_note(spec: Spec, row: Row, rng: random.Random, names: NamePool) -> None:
    """Correct ``spec`` by the row's W&W note (WW_WORLD.md 2.3). Records which error kinds
    the note resolved, for the fallback alterations."""
    resolved: set[str] = set()
    cited_families = family_set(spec.authors)
    fixes = NOTE_FIXES.get(row.id, {})
    for seg in note_segments(row.note):
        low = seg.lower()
        if re.fullmatch(r"\d{4}", seg):
            spec.year = int(seg)
            resolved.add("year")
            spec.notes.append(f"year {seg} from note")
            continue
        m = re.fullmatch(r"Vol\. (\d+)(?:\(([^)]+)\))?, (\S+)", seg)
        if m:
            spec.volume, spec.issue, spec.pages = m.group(1), m.group(2), _pages(m.group(3))
            resolved.add("volume")
            spec.notes.append("volume/issue/pages from note")
            continue
        m = re.fullmatch(r"Pages (\S+)", seg)
        if m:
            spec.pages = _pages(m.group(1))
            resolved.add("volume")
            continue
        m = re.fullmatch(r'Title has "(.+?),?" not "(.+?)\.?"', seg)
        if m:
            full = join_title(spec.title, spec.subtitle)
            new = re.sub(rf"\b{re.escape(m.group(2).rstrip('.'))}\b", m.group(1), full, count=1)
            spec.title, spec.subtitle = split_title(new)
            resolved.add("title")
            continue
        if seg.startswith("Title has "):
            fragments = re.findall(r'"(.+?)"', seg)
            qualifier = seg.rsplit('"', 1)[-1]
            full = join_title(spec.title, spec.subtitle)
            for frag in fragments:
                full = apply_title_fragment(full, frag, qualifier)
            spec.title, spec.subtitle = split_title(full)
            resolved.add("title")
            spec.notes.append("title from note")
            continue
        m = re.match(r'Title is "(.+?),?"', seg)
        if m:
            spec.title, spec.subtitle = split_title(m.group(1).rstrip(","))
            resolved.add("title")
            continue
        m = re.match(r'I\'m counting "(.+?),?" at', seg)
        if m:
            spec.title, spec.subtitle = split_title(m.group(1).rstrip(","))
            continue
        m = re.match(r'Book title has "(.+?)\.?"', seg)
        if m and spec.container:
            words = spec.container.split()
            where = _similar_word_index(words, m.group(1))
            if where is not None:
                i, n = where
                spec.container = " ".join([*words[:i], m.group(1).rstrip("."), *words[i + n:]])
            continue
        m = re.match(r"(\w+) is the editor of the .+, not the author", seg)
        if m:
            spec.editors = [p for p in spec.authors if fold(p.get("family", "")) == fold(
                m.group(1))] or spec.editors
            spec.authors = names.people(rng, 1, avoid=cited_families)
            resolved.add("authorship")
            continue
        m = re.fullmatch(r"Final author is (.+)", seg)
        if m:
            person = initials_family(m.group(1))
            if person and spec.authors:
                spec.authors[-1] = person
            resolved.add("authorship")
            spec.notes.append("final author from note")
            continue
        m = re.search(r"final editor is (.+?), not (.+)$", seg)
        if m:
            new_p, old_p = initials_family(m.group(1)), initials_family(m.group(2))
            if new_p and old_p:
                for i, p in enumerate(spec.editors):
                    if fold(p.get("family", "")) == fold(old_p["family"]):
                        spec.editors[i] = new_p
            resolved.add("authorship")
            continue
        if low == "the article has one more author":
            spec.authors.extend(names.people(rng, 1, avoid=cited_families))
            resolved.add("authorship")
            continue
        m = re.fullmatch(r"there are (\w+) additional authors", low)
        if m:
            n = {"two": 2, "three": 3, "four": 4}.get(m.group(1), 2)
            spec.authors.extend(names.people(rng, n, avoid=cited_families))
            resolved.add("authorship")
            continue
        if "are the first two authors, but the rest" in seg:
            rest = max(1, len(spec.authors) - 2)
            spec.authors = spec.authors[:2] + names.people(rng, rest, avoid=cited_families)
            resolved.add("authorship")
            continue
        if low.startswith("authorship statement is not quite correct"):
            if len(spec.authors) > 1:
                i = 1 + rng.randrange(len(spec.authors) - 1)
                spec.authors[i] = names.people(rng, 1, avoid=cited_families)[0]
            else:
                spec.authors.extend(names.people(rng, 1, avoid=cited_families))
            resolved.add("authorship")
            continue
        m = re.match(r"Editors(?: \(not authors\))? are (.+)$", seg)
        if m:
            people = _name_list_segment(m.group(1))
            if people:
                spec.editors = people
                spec.authors = []
            resolved.add("authorship")
            continue
        m = re.match(r"The ChatGPT citation is for an article, but the work is a (?:(\d{4}) )?"
                     r"(book|chapter in a book)(?: published by (.+)| \((.+)\))?$", seg)
        if m:
            _apply_type_note(spec, m)
            resolved.update({"journal", "volume"})
            continue
        m = re.match(r'"(.+)"$', seg)
        if m:
            spec.title, spec.subtitle = split_title(m.group(1))
            resolved.add("title")
            continue
        m = re.match(r"In (.+?) \(Eds?\.\), (.+?) \(pp\. (.+)\)$", seg)
        if m:
            spec.editors = _name_list_segment(m.group(1)) or spec.editors
            spec.container, spec.pages = m.group(2), _pages(m.group(3))
            continue
        m = re.fullmatch(r"(.+?) \(online content\), (?:https?://doi\.org/)?(10\.\S+)", seg)
        if m:
            spec.container, spec.doi = m.group(1), m.group(2).rstrip(".")
            spec.volume = spec.issue = spec.pages = None
            resolved.update({"journal", "volume"})
            continue
        m = re.fullmatch(r"(.+?) (\d+)\(([^)]+)\), (\S+)", seg)
        if m and not re.search(r"\d", m.group(1)):
            spec.container = m.group(1)
            spec.volume, spec.issue, spec.pages = m.group(2), m.group(3), _pages(m.group(4))
            resolved.update({"journal", "volume"})
            spec.notes.append("journal and volume from note")
            continue
        m = re.search(r"web site now has a (\d{4}) date", seg)
        if m:
            spec.year = int(m.group(1))
            continue
        if "web site is undated" in seg:
            spec.year = None
            continue
        m = re.search(r"they mean the (\d{4}) TV series", seg)
        if m:
            spec.year = int(m.group(1))
            spec.cls, spec.corpus_type = "web", "other"
            continue
        if low.startswith("this is a data set"):
            spec.cls, spec.corpus_type = "web", "other"
            continue
        if "since the chatgpt citation doesn't include that information" in low:
            if not spec.volume:
                spec.volume = str(rng.randint(1, 60))
                spec.issue = str(rng.randint(1, 12))
                first = rng.randint(1, 400)
                spec.pages = f"{first}-{first + rng.randint(4, 25)}"
            resolved.add("volume")
            spec.notes.append("volume/issue/pages supplied (citation had none)")
            continue
        if low.startswith("this article is in the online version"):
            spec.volume = spec.issue = spec.pages = None
            resolved.add("volume")
            continue
        people = _name_list_segment(seg)
        if people is not None:
            if len(people) == 1 and not (family_set(people) & cited_families) and (
                spec.cls in ("book", "report", "early", "chapter")
            ):
                spec.publisher = seg  # "I.B. Tauris": a publisher, not a person
                resolved.add("publisher")
                continue
            spec.authors = people
            resolved.add("authorship")
            spec.notes.append("authors from note")
            continue
        if _is_ignorable(low):
            continue
        if not re.search(r"\d", seg) and len(seg.split()) <= 8:
            if spec.cls == "article":
                spec.container = seg
                resolved.add("journal")
            else:
                spec.publisher = seg
                resolved.add("publisher")
            spec.notes.append("venue/publisher from note")
            continue
        spec.notes.append(f"note segment not used: {seg[:40]}")
    for key, value in fixes.items():
        setattr(spec, key, value)
        resolved.add("journal" if key == "container" else "volume")
    spec.notes.append("resolved:" + ",".join(sorted(resolved)))
    _fallback_alterations(spec, row, resolved, rng, names, cited_families)


def _apply_type_note(spec: Spec, m: re.Match[str]) -> None:
    year, kind, published_by, details = m.group(1), m.group(2), m.group(3), m.group(4)
    if year:
        spec.year = int(year)
    spec.volume = spec.issue = spec.pages = None
    if kind.startswith("chapter"):
        spec.cls = "chapter"
        if details:
            parts = [p.strip() for p in details.split(";")]
            spec.container = parts[0]
            if len(parts) > 1:
                y = re.match(r"(\d{4}),\s*(.+)$", parts[1])
                if y:
                    spec.year, spec.publisher = int(y.group(1)), y.group(2)
        return
    spec.container = None
    if published_by:
        spec.publisher = published_by
        spec.cls = "report" if REPORT_PUBLISHER.search(published_by) else "book"
        return
    if details:
        bits = [b.strip() for b in re.split(r"\.\s{2,}", details)]
        if len(bits) > 1:
            people = _name_list_segment(bits[0].rstrip("."))
            if people:
                spec.authors = people
            details = bits[-1]
        y = re.search(r"(?:^|,\s*)(\d{4})(?:,|$)", details)
        if y:
            spec.year = int(y.group(1))
        publisher = re.sub(r"(?:^|,\s*)\d{4}(?=,|$)", "", details).strip(", ")
        spec.publisher = publisher or spec.publisher
    spec.cls = "report"


def _is_ignorable(low: str) -> bool:
    return any(
        phrase in low
        for phrase in (
            "no longer available online", "couldn't verify", "i've counted it as",
            "it's clear that this is the same work", "appears on beall", "early work",
        )
    )


ERROR_KINDS = {
    "incorrect title": "title", "incorrect authorship": "authorship",
    "incorrect journal": "journal", "incorrect year": "year",
    "incorrect volume/issue/pages": "volume",
}


def _fallback_alterations(
    spec: Spec, row: Row, resolved: set[str], rng: random.Random, names: NamePool,
    cited_families: frozenset[str],
) -> None:
    """WW_WORLD.md 2.4: a field HALLMARK says is wrong, that the note does not correct, is
    altered deterministically so the world holds a *different* (true) value."""
    flagged = {kind for text, kind in ERROR_KINDS.items() if text in row.hallmark_explanation}
    if row.hallmark_type == "near_miss_title":
        flagged.add("title")
    if row.hallmark_type == "swapped_authors":
        flagged.add("authorship")
    if row.hallmark_type == "wrong_venue":
        flagged.add("journal")
    for kind in sorted(flagged - resolved):
        if kind == "year" and spec.year is not None:
            spec.year += rng.choice((-3, -2, -1, 1, 2, 3))
        elif kind == "volume":
            spec.volume = str(max(1, int(spec.volume) + rng.choice((-3, -2, -1, 1, 2))
                                  if spec.volume and spec.volume.isdigit()
                                  else rng.randint(1, 60)))
            first = rng.randint(1, 900)
            spec.pages = f"{first}-{first + rng.randint(5, 30)}"
        elif kind == "title":
            spec.title, spec.subtitle = split_title(
                near_miss_title(join_title(spec.title, spec.subtitle), rng, names))
        elif kind == "authorship":
            keep = spec.authors[:1]
            spec.authors = keep + names.people(rng, max(1, len(spec.authors) - 1),
                                               avoid=cited_families)
        elif kind == "journal":
            spec.container = names.other_journal(rng, spec.field_code, spec.container)
        spec.notes.append(f"fallback alteration: {kind}")


def near_miss_title(title: str, rng: random.Random, names: NamePool) -> str:
    """One content word of the title changed (WW_WORLD.md 2.4)."""
    words = title.split()
    content = [i for i, w in enumerate(words) if fold(w) not in STOPWORDS and len(fold(w)) > 3]
    if not content:
        return f"{title} revisited"
    i = rng.choice(content)
    trail = re.search(r"[^\w]+$", words[i])
    replacement = rng.choice(names.vocab_words or ["changing"])
    if words[i][:1].isupper():
        replacement = replacement[:1].upper() + replacement[1:]
    words[i] = replacement + (trail.group(0) if trail else "")
    return " ".join(words)


# ---------------------------------------------------------------------------- name pools


class NamePool:
    """Family names (seen in the data plus a fixed list), journals and publishers by field."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.families: list[str] = []
        self.journals_by_field: dict[str, list[str]] = defaultdict(list)
        self.journals_by_topic: dict[int, list[str]] = defaultdict(list)
        self.publishers_by_field: dict[str, list[str]] = defaultdict(list)
        self.vocab_words: list[str] = []

    def person(self, rng: random.Random, avoid: frozenset[str] = frozenset()) -> Person:
        for _ in range(50):
            family = rng.choice(self.families)
            if fold(family) not in avoid:
                break
        letter = rng.choice("ABCDEFGHIJKLMNOPRSTW")
        if rng.random() < GIVEN_EXPANSION_RATE:
            given = rng.choice(FIRST_NAMES[letter])
            if rng.random() < 0.4:
                given += f" {rng.choice('ABCDEFGHJKLMNPRSTW')}."
        else:
            given = f"{letter}." + (f" {rng.choice('ABCDEFGHJKLMNPRSTW')}."
                                    if rng.random() < 0.4 else "")
        return {"family": family, "given": given}

    def people(self, rng: random.Random, n: int, avoid: frozenset[str] = frozenset()
               ) -> list[Person]:
        out: list[Person] = []
        taken = set(avoid)
        for _ in range(n):
            p = self.person(rng, frozenset(taken))
            taken.add(fold(p["family"]))
            out.append(p)
        return out

    def other_journal(self, rng: random.Random, field_code: str, current: str | None) -> str:
        pool = [j for j in self.journals_by_field.get(field_code, []) if j != current]
        return rng.choice(pool) if pool else (current or "Journal of Applied Research")


# ============================================================================ identifiers


def isbn13_check(first12: str) -> str:
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(first12))
    return str((10 - total % 10) % 10)


def isbn_valid(isbn: str) -> bool:
    isbn = isbn.replace("-", "")
    if re.fullmatch(r"\d{13}", isbn):
        return isbn13_check(isbn[:12]) == isbn[12]
    if re.fullmatch(r"\d{9}[\dX]", isbn):
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(isbn))
        return total % 11 == 0
    return False


def issn_check(first7: str) -> str:
    total = sum(int(d) * (8 - i) for i, d in enumerate(first7))
    c = (11 - total % 11) % 11
    return "X" if c == 10 else str(c)


ISBN_REGISTRANTS: tuple[tuple[str, str], ...] = (
    ("oxford", "978019"), ("cambridge", "978110"), ("routledge", "978113"),
    ("springer", "978303"), ("palgrave", "978113"), ("mit", "978026"),
    ("harvard", "978067"), ("chicago", "978022"), ("yale", "978030"),
    ("princeton", "978069"), ("california", "978052"), ("penguin", "978014"),
    ("wiley", "978111"), ("sage", "978152"), ("bloomsbury", "978135"),
)


def make_isbn(rng: random.Random, publisher: str | None) -> str:
    pub = (publisher or "").lower()
    prefix = next((p for k, p in ISBN_REGISTRANTS if re.search(rf"\b{k}\b", pub)), None)
    if prefix is None:
        prefix = "978" + rng.choice("01") + str(rng.randint(10, 99))
    body = prefix + "".join(str(rng.randint(0, 9)) for _ in range(12 - len(prefix)))
    return body + isbn13_check(body)


def make_issn(seed: int, journal: str) -> str:
    d = "".join(str(b % 10) for b in _digest(seed, "issn", fold(journal))[:7])
    d = str(int(d[0]) % 3 + 0) + d[1:]
    return f"{d[:4]}-{d[4:]}{issn_check(d)}"


def abbreviation(name: str) -> str:
    words = [w for w in re.findall(r"[A-Za-z]+", name) if w.lower() not in STOPWORDS]
    return "".join(w[0] for w in words).lower()[:6] or "x"


def make_doi(rng: random.Random, spec: Spec) -> str:
    """A plausible DOI for the work's venue or publisher (WW_WORLD.md 2.8)."""
    year = spec.year or rng.randint(1990, 2022)
    venue = (spec.container or "").lower()
    pub = (spec.publisher or "").lower()
    ab = abbreviation(spec.container or spec.publisher or spec.title)

    def d(n: int) -> str:
        return "".join(str(rng.randint(0, 9)) for _ in range(n))

    isbn = spec.isbn[0] if spec.isbn else make_isbn(rng, spec.publisher)
    if spec.cls in ("book", "early", "report"):
        if "routledge" in pub or "taylor" in pub:
            return f"10.4324/{isbn}"
        if "oxford" in pub:
            return f"10.1093/oso/{isbn}.001.0001"
        if "cambridge" in pub:
            return f"10.1017/{isbn}"
        if "springer" in pub or "palgrave" in pub:
            return f"10.1007/{isbn[:3]}-{isbn[3]}-{isbn[4:7]}-{isbn[7:12]}-{isbn[12]}"
        if "mit" in pub.split():
            return f"10.7551/mitpress/{d(5)}.001.0001"
        if "national bureau" in pub or "nber" in pub:
            return f"10.3386/w{d(5)}"
        if "world bank" in pub:
            return f"10.1596/{isbn}"
        if "oecd" in pub:
            return f"10.1787/{rng.getrandbits(32):08x}-en"
        return f"10.2307/j.ctt{d(2)}{rng.choice('bcdfghjkmnpqrstvwxz')}{d(3)}"
    if spec.cls in ("chapter", "proceedings"):
        if spec.cls == "proceedings":
            return f"10.1145/{d(7)}.{d(7)}"
        if "elsevier" in pub or "woodhead" in pub or "academic press" in pub:
            return f"10.1016/B978-0-12-{d(6)}-{d(1)}.{d(5)}-{d(1)}"
        if "springer" in pub or "palgrave" in pub:
            return f"10.1007/978-3-{d(3)}-{d(5)}-{d(1)}_{rng.randint(1, 20)}"
        if "routledge" in pub or "taylor" in pub:
            return f"10.4324/{isbn}-{rng.randint(1, 20)}"
        if "oxford" in pub:
            return f"10.1093/oxfordhb/{isbn}.013.{rng.randint(1, 40)}"
        if "cambridge" in pub:
            return f"10.1017/CBO{d(10)}.{rng.randint(3, 20):03d}"
        return f"10.1002/{isbn}.ch{rng.randint(1, 20)}"
    if spec.cls == "web":
        return f"10.2305/IUCN.UK.{year}-{rng.randint(1, 3)}.RLTS.T{d(8)}A{d(8)}.en"
    if venue in ("nature", "nature biotechnology") or venue.startswith("nature "):
        return f"10.1038/s{d(5)}-{d(3)}-{d(5)}-{d(1)}" if year >= 2012 else f"10.1038/{d(8)}"
    if venue.startswith("plos"):
        return f"10.1371/journal.pone.{d(7)}"
    if "lancet" in venue:
        return f"10.1016/S0140-6736({year % 100:02d}){d(5)}-{d(1)}"
    if venue.startswith("frontiers in"):
        return f"10.3389/f{ab[1:5]}.{year}.{d(5)}"
    if venue in ("science", "science advances"):
        return (f"10.1126/sciadv.a{d(6)}" if "advances" in venue else f"10.1126/science.{d(7)}")
    if "national academy of sciences" in venue:
        return f"10.1073/pnas.{d(7)}{d(3)}"
    if "new england journal" in venue:
        return f"10.1056/NEJMoa{d(7)}"
    if venue == "jama" or venue.startswith("jama "):
        return f"10.1001/jama.{year}.{d(5)}"
    if re.search(r"psycholog|counseling", venue) and re.search(r"journal of|bulletin|review|"
                                                               r"american psychologist", venue):
        return f"10.1037/{'a' if year >= 2008 else '0'}{d(7)}"
    if venue.startswith("annual review"):
        return f"10.1146/annurev-{ab}-{d(6)}-{d(6)}"
    if venue in ("batteries", "sustainability", "energies"):
        return f"10.3390/{ab}{d(7)}"
    families: tuple[tuple[str, Callable[[], str]], ...] = (
        ("10.1016", lambda: f"j.{ab}.{year}.{rng.randint(1, 12):02d}.{d(3)}"),
        ("10.1007", lambda: f"s{d(5)}-{year % 1000:03d}-{d(4)}-{d(1)}"),
        ("10.1111", lambda: f"{ab}.{d(5)}"),
        ("10.1002", lambda: f"{ab}.{d(4)}"),
        ("10.1080", lambda: f"{d(8)}.{year}.{d(7)}"),
        ("10.1177", lambda: f"{d(10)}{d(6)}"),
        ("10.1093", lambda: f"{ab}/{d(3)}.{rng.randint(1, 12)}.{d(3)}"),
        ("10.1017", lambda: f"S{d(10)}{d(6)}"),
        ("10.1086", lambda: f"{d(6)}"),
        ("10.1257", lambda: f"{ab}.{d(2)}.{rng.randint(1, 4)}.{d(3)}"),
        ("10.3102", lambda: f"{d(10)}{d(6)}"),
        ("10.1108", lambda: f"{ab.upper()}-{rng.randint(1, 12):02d}-{year}-{d(4)}"),
    )
    index = int(unit(spec.field_code, "prefix", fold(spec.container or spec.title)) * len(families))
    prefix, suffix = families[index]
    return f"{prefix}/{suffix()}"


def make_arxiv_id(rng: random.Random, year: int, topic: int) -> str:
    month = rng.randint(1, 12)
    if year >= 2015:
        return f"{year % 100:02d}{month:02d}.{rng.randint(1, 29999):05d}"
    if year >= 2007:
        return f"{year % 100:02d}{month:02d}.{rng.randint(1, 9999):04d}"
    archive = {4: "cs", 6: "cs", 42: "physics", 40: "physics", 41: "physics"}.get(topic, "cs")
    return f"{archive}/{year % 100:02d}{month:02d}{rng.randint(1, 999):03d}"


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


# ============================================================================ vocabulary


def title_chunks(title: str) -> list[str]:
    """Content phrases of a title: runs of 1-4 non-stopwords between stopwords/punctuation."""
    chunks: list[str] = []
    for piece in re.split(r"[:;,.?!()\[\]“”\"—–]|\s-\s", title):
        run: list[str] = []
        for word in piece.split():
            bare = word.strip("'’\"“”")
            if not bare or fold(bare) in STOPWORDS or re.fullmatch(r"\d+", bare):
                if run:
                    chunks.append(" ".join(run))
                run = []
            else:
                run.append(bare)
                if len(run) == 4:
                    chunks.append(" ".join(run))
                    run = []
        if run:
            chunks.append(" ".join(run))
    return [c for c in chunks if len(fold(c)) >= 5 and not re.search(r"\d[-–]\d|^\d", c)
            and not PARTICIPLE_ENDING.search(c) and (" " in c or not ADJECTIVE_ENDING.search(c))]


PARTICIPLE_ENDING = re.compile(r"(?:ing|ed)$", re.I)


ADJECTIVE_ENDING = re.compile(r"(?:al|ic|ive|ous|ful|less|able|ible|ary|ed|ing|ly)$", re.I)


def proper_words(titles: Iterable[str]) -> set[str]:
    """Words written capitalised inside sentence-case titles (names, places: "Ohio")."""
    out: set[str] = set()
    for title in titles:
        words = title.split()
        lower = sum(1 for w in words[1:] if w[:1].islower())
        if lower < max(2, len(words) // 3):
            continue  # a Title Case title says nothing about names
        for prev, word in zip(words, words[1:], strict=False):
            bare = word.strip("'’\"“”(),.:;?")
            if bare[:1].isupper() and not prev.endswith(":"):
                out.add(bare)
    return out


def phrase_case(phrase: str, proper: frozenset[str] = frozenset()) -> str:
    """Lower-case a phrase unless a word looks like a proper noun or acronym."""
    out = []
    for w in phrase.split():
        if (re.fullmatch(r"[A-Z0-9]{2,}s?|[A-Z][a-z]+[A-Z]\w*", w) or w in _PROPER_HINTS
                or w.strip("'’") in proper):
            out.append(w)
        else:
            out.append(w.lower())
    return " ".join(out)


_PROPER_HINTS = frozenset(
    """China Chinese America American Americans US U.S. UK Europe European Britain British
    Australia Australian Borneo Sumatra Indonesia Indonesian Bangladesh Netherlands Dutch
    Stonehenge Boer Africa African English Christian Christianity Catholic Gothic Victorian
    Brexit EU Uber Chicago Boston Michigan Jersey Washington Mary Kay Oprah Chanel Body
    Shop Lauder Boeing Japan Japanese Flaubert Dostoevsky Tolstoy Austen Bronte Brontë
    Kalimantan Mexico Jamaica Caribbean Pacific Ming Progressive Great Depression New Deal
    Purgatory God Middle Ages""".split()
)


def capitalize_title(text: str, style: str) -> str:
    if style == "title":
        small = {"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or",
                 "the", "to", "with", "from"}
        words = text.split()
        out = []
        for i, w in enumerate(words):
            prev = words[i - 1] if i else ""
            if i and w.lower() in small and not prev.endswith(":"):
                out.append(w.lower())
            else:
                out.append(w[:1].upper() + w[1:])
        return " ".join(out)
    text = text[:1].upper() + text[1:]
    return re.sub(r"([:?]\s+)(\w)", lambda m: m.group(1) + m.group(2).upper(), text)


TEMPLATES: tuple[str, ...] = (
    "{A} and {B}: {C} in {P}",
    "The {A} of {B}",
    "{A} and the {B} of {C}",
    "{A}: Evidence from {P}",
    "Rethinking {A}: {B} and {C}",
    "{A}, {B}, and {C}",
    "Towards a {M} understanding of {A}",
    "{A} in {B}: {G}",
    "The impact of {A} on {B}",
    "Understanding {A}: A {M} approach",
    "A comparative study of {A} and {B}",
    "{A} revisited",
    "{A} and {B} in {P}",
    "Beyond {A}: {B} and the politics of {C}",
    "{A}: {G}",
    "Does {A} affect {B}? {M} evidence from {P}",
    "From {A} to {B}: {C} since {Y}",
    "{A} as {B}",
    "Assessing {A}: the role of {B}",
    "{A}, {B} and {C} in {P}, {Y}-{Y2}",
    "{A} and {B} in comparative perspective",
    "What drives {A}? {B} and {C}",
    "{A} after {B}: {G}",
)


class TopicVocab:
    """Each topic's title phrases (from its citation titles), recombined by templates."""

    def __init__(self, chunks_by_topic: Mapping[int, list[str]],
                 cited_titles: Mapping[int, list[str]], proper: frozenset[str]) -> None:
        self.chunks = chunks_by_topic
        self.cited = cited_titles
        self.proper = proper

    def title(self, rng: random.Random, topic: int, *, must: Sequence[str] = (),
              year: int | None = None) -> str:
        chunks = self.chunks.get(topic) or ["research", "theory", "practice"]
        picks: list[str] = []
        for chunk in [*must, *rng.sample(chunks, min(len(chunks), 6))]:
            if fold(chunk) not in {fold(p) for p in picks}:
                picks.append(chunk)
        while len(picks) < 3:
            picks.append(rng.choice(("policy", "practice", "theory", "evidence")))
        a, b, c = (phrase_case(x, self.proper) for x in picks[:3])
        end = (year or 2020) - rng.randint(5, 30)
        start = end - rng.randint(5, 60)
        text = rng.choice(TEMPLATES).format(
            A=a, B=b, C=c, P=rng.choice(PLACES), M=rng.choice(METHODS).lower(),
            G=rng.choice(GENRE_TAILS).lower(), Y=start, Y2=end,
        )
        text = re.sub(r"\s+", " ", text).strip()
        text = re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", r"\1n ", text)
        return capitalize_title(text, rng.choice(("sentence", "sentence", "title")))

    def near_title(self, rng: random.Random, topic: int) -> str | None:
        titles = self.cited.get(topic) or []
        if not titles:
            return None
        main, _ = split_title(rng.choice(titles))
        chunks = self.chunks.get(topic) or ["research"]
        tail = capitalize_title(
            rng.choice((f"{rng.choice(GENRE_TAILS)}", f"Evidence from {rng.choice(PLACES)}",
                        f"The role of {phrase_case(rng.choice(chunks), self.proper)}")),
            "sentence")
        return f"{main}: {tail}"


# ============================================================================ the builder


@dataclass
class Built:
    specs: list[Spec]
    lines: list[dict[str, Any]]
    manifest: list[dict[str, Any]]


def _real_scholar_known(families_real: frozenset[str], person: Person) -> bool:
    return fold(person.get("family", "")) in families_real


class Builder:
    def __init__(self, data_dir: Path, seed: int, background: int) -> None:
        self.seed = seed
        self.background = background
        self.rows = load_rows(data_dir)
        self.hallmark = load_hallmark(data_dir)
        self.names = NamePool(seed)
        self.specs: list[Spec] = []
        self.extracted: dict[str, Extracted] = {}
        self.fabricated_keys: set[tuple[str, frozenset[str]]] = set()
        self.cited_title_keys: set[str] = set()
        self.used_dois: set[str] = set()
        self.used_isbns: set[str] = set()
        self.topic_field: dict[int, str] = {}
        self.known_given: dict[tuple[str, str], str] = {}

    # -------------------------------------------------------------------- preparation

    def prepare(self) -> None:
        families: set[str] = set()
        known_given: dict[tuple[str, str], str] = {}
        chunks: dict[int, list[str]] = defaultdict(list)
        cited_titles: dict[int, list[str]] = defaultdict(list)
        vocab: Counter[str] = Counter()
        for row in self.rows:
            self.topic_field[row.topic] = row.field
            early = row.note.startswith("Early work")
            ex = extract_citation(row.text, row.pub_type, early=early)
            for p in ex.authors:
                given = p.get("given") or ""
                first = given.split()[0] if given else ""
                if p.get("family") and len(first) > 2 and not first.endswith("."):
                    known_given[(fold(p["family"]), first[0])] = first
            if row.hallmark_key and row.hallmark_key in self.hallmark:
                fields = self.hallmark[row.hallmark_key]
                people, elided = hallmark_people(fields["author"])
                if people:
                    ex.authors = people
                    if elided and not ex.elided:
                        ex.elided = "end"
                ex.title = fields["title"].strip()
                ex.year = int(fields["year"]) if fields["year"].isdigit() else ex.year
                ex.container = clean_journal(fields["journal"])
            self.extracted[row.id] = ex
            for p in ex.authors:
                if p.get("family") and re.fullmatch(r"[A-Z][\w'’ -]+", p["family"]):
                    if len(p["family"]) <= 20:
                        families.add(p["family"])
            chunks[row.topic].extend(title_chunks(ex.title))
            cited_titles[row.topic].append(ex.title)
            vocab.update(fold(w) for w in ex.title.split() if len(fold(w)) > 5)
            self.cited_title_keys.add(title_key(ex.title))
            if not row.fabricated and row.pub_type == "A" and ex.container:
                if ex.container not in self.names.journals_by_topic[row.topic]:
                    self.names.journals_by_topic[row.topic].append(ex.container)
                if ex.container not in self.names.journals_by_field[row.field]:
                    self.names.journals_by_field[row.field].append(ex.container)
            if (not row.fabricated and ex.publisher and row.pub_type in "BC"
                    and (ex.year or 0) >= 1950 and not re.search(r"\d", ex.publisher)):
                pubs = self.names.publishers_by_field[row.field]
                if ex.publisher not in pubs and len(ex.publisher) < 60:
                    pubs.append(ex.publisher)
            if row.fabricated:
                persons = [p for p in ex.authors if p.get("family")]
                self.fabricated_keys.add((title_key(ex.title), family_set(persons)))
        self.known_given = known_given
        self.names.families = sorted(families | set(EXTRA_FAMILY_NAMES))
        self.names.vocab_words = sorted(w for w, _ in vocab.most_common(400) if w.isalpha())
        self.vocab = TopicVocab(
            {t: sorted(set(c)) for t, c in chunks.items()},
            {t: list(v) for t, v in cited_titles.items()},
            frozenset(proper_words(t for v in cited_titles.values() for t in v)),
        )
        self.real_families = frozenset(
            fold(p["family"])
            for row in self.rows if not row.fabricated
            for p in self.extracted[row.id].authors if p.get("family")
        )

    # -------------------------------------------------------------------- cited works

    def rng(self, *parts: object) -> random.Random:
        return rng_for(self.seed, *parts)

    def real_works(self) -> None:
        by_family: dict[str, list[Spec]] = defaultdict(list)
        # GPT-4 rows first: when two citations of one real work disagree and no note says
        # which is right, the GPT-4 citation (W&W: far fewer errors) gives the fields.
        for row in sorted(self.rows, key=lambda r: (r.gpt != "4", r.id)):
            if row.fabricated:
                continue
            ex = self.extracted[row.id]
            rng = self.rng("real", row.id)
            cls = classify(row, ex)
            title, subtitle = split_title(ex.title)
            spec = Spec(
                key=f"real:{row.id}", role="real", cls=cls, topic=row.topic, field_code=row.field,
                title=title, subtitle=subtitle, authors=[dict(p) for p in ex.authors],
                editors=[dict(p) for p in ex.editors], year=ex.year, container=ex.container,
                volume=ex.volume, issue=ex.issue, pages=ex.pages, publisher=ex.publisher,
                rows=[row.id],
            )
            if ex.editors_are_authors and not ex.editors:
                spec.editors, spec.authors = spec.authors, []
            if ex.elided:
                self._restore_elided(spec, ex, rng)
            before = self._fingerprint(spec)
            if row.note or row.hallmark_type or "incorrect" in row.hallmark_explanation:
                apply_note(spec, row, rng, self.names)
            after = self._fingerprint(spec)
            if before != after:
                spec.role = "corrected"
            # A DOI the citation gives is kept unless the note moved the work to another
            # journal or volume (then the cited DOI is another work's or none): 2.8.
            venue_moved = (before[3], before[4]) != (after[3], after[4])
            if spec.doi is None and ex.doi and not venue_moved:
                spec.doi = ex.doi
            spec.authors = [expand_given(p, self.seed, self.known_given) for p in spec.authors]
            spec.editors = [expand_given(p, self.seed, self.known_given) for p in spec.editors]
            lead = (spec.authors or spec.editors or [{"family": ""}])[0]
            family = fold(lead.get("family") or lead.get("literal") or "")
            same = self._same_work(by_family[family], spec)
            if same is not None:
                same.rows.append(row.id)
                same.doi = same.doi or spec.doi
                if same.doi:
                    same.forced["crossref"] = 1.0
                continue
            if spec.doi:
                spec.forced["crossref"] = 1.0  # a real DOI is a Crossref DOI (2.8)
            by_family[family].append(spec)
            self.specs.append(spec)
            if cls == "chapter" and spec.container:
                self._host_book(spec, role="host_book")

    @staticmethod
    def _same_work(candidates: Sequence[Spec], spec: Spec) -> Spec | None:
        """A real work already built that this citation also points at: same first author,
        same class, titles at least 0.9 alike, and (books) years at most one apart (2.6)."""
        key = title_key(join_title(spec.title, spec.subtitle))
        for other in candidates:
            other_key = title_key(join_title(other.title, other.subtitle))
            if other.cls != spec.cls or difflib.SequenceMatcher(
                    None, key, other_key).ratio() < 0.9:
                continue
            if spec.cls in ("article", "early") or spec.year is None or other.year is None:
                return other
            if abs(spec.year - other.year) <= 1:
                return other
            # more than a year apart: two editions of the book, both real
        return None

    @staticmethod
    def _fingerprint(spec: Spec) -> tuple[object, ...]:
        return (spec.title, spec.subtitle, spec.year, spec.container, spec.volume,
                spec.issue, spec.pages, spec.publisher, spec.cls, spec.corpus_type,
                json.dumps(spec.authors), json.dumps(spec.editors))

    def _restore_elided(self, spec: Spec, ex: Extracted, rng: random.Random) -> None:
        n = rng.randint(*ELIDED_EXTRA_AUTHORS)
        extra = self.names.people(rng, n, avoid=family_set(spec.authors))
        if ex.elided == "middle" and len(spec.authors) >= 2:
            spec.authors = spec.authors[:-1] + extra + spec.authors[-1:]
        else:
            spec.authors = spec.authors + extra

    def _host_book(self, chapter: Spec, role: str, *, year: int | None = None,
                   key_suffix: str = "") -> Spec:
        rng = self.rng("host", chapter.key, key_suffix)
        container = re.sub(r",\s*Paper No\..*$", "", chapter.container or "Collected essays")
        title, subtitle = split_title(container)
        publisher = chapter.publisher
        if publisher is None and re.search(r"Proceedings|Conference|Workshop", container):
            publisher = proceedings_publisher(container)
        book = Spec(
            key=f"host:{chapter.key}{key_suffix}", role=role, cls="book", topic=chapter.topic,
            field_code=chapter.field_code, title=title, subtitle=subtitle,
            editors=[dict(p) for p in chapter.editors] or self.names.people(rng, 2),
            year=year if year is not None else chapter.year,
            publisher=publisher or rng.choice(ACADEMIC_PUBLISHERS), rows=list(chapter.rows),
        )
        isbn = self._isbn(rng, book.publisher)
        book.isbn = [isbn]
        chapter.isbn = [isbn]
        self.specs.append(book)
        return book

    def _isbn(self, rng: random.Random, publisher: str | None) -> str:
        for _ in range(100):
            isbn = make_isbn(rng, publisher)
            if isbn not in self.used_isbns:
                self.used_isbns.add(isbn)
                return isbn
        raise RuntimeError("could not make a unique ISBN")

    # -------------------------------------------------------------------- decoys

    def decoys(self) -> None:
        for row in self.rows:
            if not row.fabricated:
                continue
            ex = self.extracted[row.id]
            rng = self.rng("decoy", row.id)
            note = row.note
            cited_fams = family_set(p for p in ex.authors if p.get("family"))
            m = re.search(r"There's an? (book|documentary)[^,]* with this title(?: and an "
                          r"article in [^,]+)?, but the author\(s\) are entirely different",
                          note)
            if m:
                cls = "web" if m.group(1) == "documentary" else "book"
                self._same_title(row, ex, rng, cls, cited_fams)
            m = re.search(r"An article with (this|a very similar) title appeared in (?:the )?"
                          r"(.+?) in (\d{4}), but the author", note)
            if m:
                container = m.group(2)
                if m.group(1) == "this":
                    self._same_title(row, ex, rng, "article", cited_fams,
                                     container=container, year=int(m.group(3)))
                else:
                    self._same_title(row, ex, rng, "article", cited_fams,
                                     container=container, year=int(m.group(3)),
                                     near_miss=True)
            m = re.search(r"(.+?) published a paper with this title in (\d{4})", note)
            if m:
                self._same_title(row, ex, rng, "report", cited_fams, year=int(m.group(2)),
                                 publisher=re.sub(r"^The ", "", m.group(1)))
            m = re.search(r"There's a book with this title, but no such chapter|"
                          r"The book is real \((\d{4})\)|"
                          r"The book \(and the journal\) are real|"
                          r"The Proceedings are real|The Encylopedia is real", note)
            if m and ex.container:
                chapter = self._fab_shell(row, ex)
                year = int(m.group(1)) if m.group(1) else ex.year
                if "Encylopedia" in m.group(0):
                    self._container_web(row, ex)
                else:
                    self._host_book(chapter, role="container_decoy", year=year)
            if "several books with this title, but none with this chapter" in note and (
                ex.container
            ):
                chapter = self._fab_shell(row, ex)
                for k in range(1 + rng.randint(1, 2)):
                    book = self._host_book(chapter, role="container_decoy",
                                           year=(ex.year or 2015) - rng.randint(0, 15),
                                           key_suffix=f":{k}")
                    book.editors = self.names.people(self.rng("eds", row.id, k), 2)
            journal = None
            m = re.search(r"Elsevier publishes (.+?), but", note)
            if m:
                journal = m.group(1)
            m = re.search(r'There\'s a "(.+?)" \(singular\)', note)
            if m:
                journal = m.group(1)
            if "appears on Beall" in note:
                journal = ex.container
            if journal:
                for k in range(2):
                    self._journal_article(row, journal, k)
            self._scholar_works(row, ex)
            if ex.doi:
                self._doi_trap(row, ex, journal=journal)

    def _fab_shell(self, row: Row, ex: Extracted) -> Spec:
        """The fabricated chapter as a template for its (real) host book; never emitted."""
        return Spec(key=f"fab:{row.id}", role="shell", cls="chapter", topic=row.topic,
                    field_code=row.field, title=ex.title, editors=[dict(p) for p in ex.editors],
                    year=ex.year, container=ex.container, publisher=ex.publisher,
                    rows=[row.id])

    def _container_web(self, row: Row, ex: Extracted) -> None:
        title, subtitle = split_title(ex.container or "")
        self.specs.append(Spec(
            key=f"container-web:{row.id}", role="container_decoy", cls="web", topic=row.topic,
            field_code=row.field, title=title, subtitle=subtitle, year=None,
            authors=[{"literal": title}], rows=[row.id]))

    def _same_title(
        self, row: Row, ex: Extracted, rng: random.Random, cls: str, avoid: frozenset[str],
        *, container: str | None = None, year: int | None = None,
        publisher: str | None = None, near_miss: bool = False,
    ) -> None:
        full = ex.title
        if near_miss:
            full = near_miss_title(full, rng, self.names)
        title, subtitle = split_title(full)
        authors = self.names.people(rng, rng.randint(1, 3), avoid=avoid)
        spec = Spec(
            key=f"same-title:{row.id}", role="similar_title_decoy" if near_miss
            else "same_title_decoy", cls=cls, topic=row.topic, field_code=row.field, title=title,
            subtitle=subtitle, authors=authors,
            year=year if year is not None else (ex.year or 2010) + rng.randint(-6, 6),
            rows=[row.id],
        )
        if cls == "article":
            spec.container = container or self.names.other_journal(rng, row.field, None)
            self._article_numbers(spec, rng)
        elif cls in ("book", "report"):
            # The note says only that the authors differ: the publisher is the cited one.
            spec.publisher = publisher or ex.publisher or rng.choice(
                self.names.publishers_by_field.get(row.field) or list(ACADEMIC_PUBLISHERS))
        elif cls == "web":
            spec.publisher = "GeniusU"
        self.specs.append(spec)

    def _journal_article(self, row: Row, journal: str, k: int) -> None:
        rng = self.rng("journal-decoy", row.id, k)
        spec = Spec(
            key=f"journal:{row.id}:{k}", role="journal_decoy", cls="article", topic=row.topic,
            field_code=row.field, title="", authors=self.names.people(rng, rng.randint(1, 3)),
            year=rng.randint(2010, 2022), container=journal, rows=[row.id],
        )
        spec.title, spec.subtitle = split_title(self.vocab.title(rng, row.topic,
                                                                 year=spec.year))
        self._article_numbers(spec, rng)
        self.specs.append(spec)

    def _scholar_works(self, row: Row, ex: Extracted) -> None:
        persons = [p for p in ex.authors if p.get("family") and p.get("given")][:3]
        chunks = title_chunks(ex.title)
        for person in persons:
            ident = (fold(person["family"]), (person.get("given") or "")[:1])
            real = _real_scholar_known(self.real_families, person) or unit(
                self.seed, "scholar", *ident) < SCHOLAR_REAL_RATE
            key = f"scholar:{ident[0]}:{ident[1]}"
            if not real or any(s.key.startswith(key + ":") for s in self.specs):
                continue
            rng = self.rng("scholar", *ident)
            n = rng.randint(*SCHOLAR_WORKS)
            me = expand_given(person, self.seed, self.known_given)
            coauthors = [p for p in ex.authors if p.get("family") and p is not person]
            for k in range(n):
                cls = "article" if row.pub_type in "AW" else rng.choice(("book", "chapter"))
                if row.pub_type == "A" and rng.random() < 0.2:
                    cls = "chapter"
                must = rng.sample(chunks, min(2, len(chunks))) if k == 0 and chunks else []
                year = max(1960, min(2023, (ex.year or 2012) + rng.randint(-12, 6)))
                title = self.vocab.title(rng, row.topic, must=must, year=year)
                if title_key(title) == title_key(ex.title):
                    title = self.vocab.title(rng, row.topic, year=year)
                others = self.names.people(rng, rng.randint(0, 3),
                                           avoid=frozenset({ident[0]}))
                if coauthors and k == 0 and rng.random() < 0.5:
                    others = [expand_given(coauthors[0], self.seed, self.known_given), *others]
                authors = others[:]
                authors.insert(0 if k == 0 or rng.random() < 0.5 else len(authors), me)
                spec = Spec(
                    key=f"{key}:{k}", role="scholar_work", cls=cls, topic=row.topic,
                    field_code=row.field, title="", authors=authors, year=year, rows=[row.id],
                )
                spec.title, spec.subtitle = split_title(title)
                self._fill_venue(spec, rng)
                self.specs.append(spec)

    def _doi_trap(self, row: Row, ex: Extracted, *, journal: str | None = None) -> None:
        if unit(self.seed, "doi-trap", row.id) >= DOI_TRAP_RATE or ex.doi is None:
            return
        rng = self.rng("doi-trap", row.id)
        doi = ex.doi
        cls = "article"
        if "/B978" in doi:
            cls = "chapter"
        elif re.search(r"/97[89]\d{10}$", doi):
            cls = "book"
        spec = Spec(
            key=f"doi-trap:{row.id}", role="doi_trap", cls=cls, topic=row.topic,
            field_code=row.field, title="", authors=self.names.people(
                rng, rng.randint(1, 4), avoid=family_set(ex.authors)),
            year=ex.year, rows=[row.id], doi=doi,
        )
        spec.title, spec.subtitle = split_title(self.vocab.title(rng, row.topic, year=ex.year))
        if cls == "article":
            spec.container = journal or ex.container  # the real journal, where a note says
            self._article_numbers(spec, rng)
        else:
            self._fill_venue(spec, rng)
            spec.publisher = ex.publisher or spec.publisher
        spec.forced["crossref"] = 1.0
        self.specs.append(spec)

    # -------------------------------------------------------------------- background

    def background_works(self) -> None:
        topics = sorted(self.topic_field)
        type_mix: dict[int, Counter[str]] = defaultdict(Counter)
        for row in self.rows:
            type_mix[row.topic][row.pub_type] += 1
        per_topic = [self.background // len(topics)] * len(topics)
        for i in range(self.background % len(topics)):
            per_topic[i] += 1
        for topic, count in zip(topics, per_topic, strict=True):
            mix = type_mix[topic]
            weights = [mix["A"] + 1, mix["B"] + 1, mix["C"] + 1, (mix["W"] + 1) / 2]
            made = 0
            i = 0
            while made < count:
                rng = self.rng("background", topic, i)
                i += 1
                pub_type = rng.choices(("A", "B", "C", "W"), weights=weights)[0]
                cls = {"A": "article", "C": "chapter", "W": "web"}.get(pub_type, "book")
                if pub_type == "B" and rng.random() < 0.2:
                    cls = "report"
                if pub_type == "C" and rng.random() < 0.15:
                    cls = "proceedings"
                made += self._background_one(topic, i, cls, rng, room=count - made)

    def _background_one(self, topic: int, i: int, cls: str, rng: random.Random, *,
                        room: int) -> int:
        """One background work (and, for a chapter, sometimes its book): the number made."""
        field_code = self.topic_field[topic]
        year = 2023 - int(73 * rng.random() ** 2)
        if cls == "web":
            year = rng.randint(2005, 2023)
        title = None
        if rng.random() < BACKGROUND_NEAR_TITLE_RATE:
            title = self.vocab.near_title(rng, topic)
        for _ in range(10):
            if title and title_key(title) not in self.cited_title_keys:
                break
            title = self.vocab.title(rng, topic, year=year)
        assert title is not None
        n_auth = {"article": rng.choice((1, 1, 2, 2, 2, 3, 3, 4, 5, 6, 8)),
                  "book": rng.choice((1, 1, 1, 2, 2, 3)), "report": rng.choice((0, 1, 2, 4)),
                  "chapter": rng.choice((1, 1, 2, 3)), "proceedings": rng.choice((1, 2, 3, 4)),
                  "web": 0}[cls]
        authors = self.names.people(rng, n_auth)
        if not authors and cls in ("report", "web"):
            authors = [{"literal": rng.choice(ORGANISATIONS)}]
        spec = Spec(key=f"bg:{topic}:{i}", role="background", cls=cls, topic=topic,
                    field_code=field_code, title="", authors=authors, year=year)
        spec.title, spec.subtitle = split_title(title)
        before = len(self.specs)
        self._fill_venue(spec, rng, host_allowed=room >= 2)
        self.specs.append(spec)
        return len(self.specs) - before

    def _fill_venue(self, spec: Spec, rng: random.Random, *, host_allowed: bool = True
                    ) -> None:
        topic_journals = self.names.journals_by_topic.get(spec.topic) or []
        field_journals = (self.names.journals_by_field.get(spec.field_code)
                          or ["Journal of Research"])
        publishers = (self.names.publishers_by_field.get(spec.field_code)
                      or list(ACADEMIC_PUBLISHERS))
        if spec.cls == "article":
            pool = topic_journals if topic_journals and rng.random() < 0.85 else field_journals
            spec.container = rng.choice(pool)
            self._article_numbers(spec, rng)
        elif spec.cls in ("book", "early"):
            spec.publisher = rng.choice(
                publishers if rng.random() < 0.6 else
                (ACADEMIC_PUBLISHERS if rng.random() < 0.7 else TRADE_PUBLISHERS))
        elif spec.cls == "report":
            spec.publisher = rng.choice(ORGANISATIONS)
        elif spec.cls == "chapter":
            spec.editors = self.names.people(rng, rng.randint(1, 3))
            house = rng.choice(("Routledge", "Oxford", "Cambridge", "Palgrave", "SAGE"))
            subject = phrase_case(self._chunk(rng, spec.topic), self.vocab.proper)
            book_title = capitalize_title(
                rng.choice((f"The {house} handbook of {subject}",
                            self.vocab.title(rng, spec.topic, year=spec.year))), "title")
            spec.container = book_title
            spec.publisher = rng.choice(publishers if rng.random() < 0.5
                                        else ACADEMIC_PUBLISHERS)
            first = rng.randint(1, 500)
            spec.pages = f"{first}-{first + rng.randint(10, 35)}"
            if rng.random() < 0.5 and host_allowed:
                self._host_book(spec, role="background" if spec.role == "background"
                                else "host_book")
        elif spec.cls == "proceedings":
            kind = rng.choice(("Annual", "International", "European"))
            subject = capitalize_title(
                phrase_case(self._chunk(rng, spec.topic), self.vocab.proper), "title")
            spec.container = f"Proceedings of the {kind} Conference on {subject}"
            first = rng.randint(1, 900)
            spec.pages = f"{first}-{first + rng.randint(4, 12)}"
            spec.publisher = rng.choice(("ACM", "IEEE", "Association for Computational "
                                         "Linguistics", "AAAI Press", "Springer"))
        elif spec.cls == "web":
            spec.publisher = spec.authors[0].get("literal") if spec.authors else None

    def _chunk(self, rng: random.Random, topic: int) -> str:
        return rng.choice(self.vocab.chunks.get(topic) or ["research"])

    def _article_numbers(self, spec: Spec, rng: random.Random) -> None:
        age = max(1, (spec.year or 2010) - 1950)
        spec.volume = str(max(1, int(age * rng.uniform(0.5, 1.5))))
        if rng.random() >= MISSING_ISSUE_RATE:
            spec.issue = str(rng.randint(1, 12))
        if rng.random() < 0.1:
            spec.pages = f"e{rng.randint(100, 99999)}"
        else:
            first = rng.randint(1, 1800)
            spec.pages = f"{first}-{first + rng.randint(5, 30)}"

    # -------------------------------------------------------------------- rendering

    def finalize(self) -> Built:
        lines: list[dict[str, Any]] = []
        manifest: list[dict[str, Any]] = []
        ids: set[str] = set()
        arxiv_ids: set[str] = set()
        # DOIs of cited real works and traps are fixed: reserve them first.
        for spec in self.specs:
            if spec.doi:
                self.used_dois.add(spec.doi.lower())
        for spec in sorted(self.specs, key=lambda s: s.key):
            if spec.role == "shell":
                continue
            persons = [p for p in spec.authors if p.get("family")]
            if spec.role not in ("real", "corrected") and (
                title_key(join_title(spec.title, spec.subtitle)), family_set(persons)
            ) in self.fabricated_keys:
                continue  # never let a generated work be a fabricated citation
            rng = self.rng("final", spec.key)
            self._identifiers(spec, rng)
            present = draw_presence(spec, self.seed)
            if present["crossref"] and not spec.doi:
                spec.doi = self._doi(spec, rng)
            if not present["crossref"] and spec.doi and spec.role not in (
                "real", "corrected", "doi_trap"
            ):
                spec.doi = None
            if (not spec.doi and spec.cls == "report" and not present["crossref"]
                    and (spec.year or 0) >= 2014 and rng.random() < DATACITE_REPORT_RATE):
                spec.doi = f"10.5281/zenodo.{rng.randint(1000000, 9999999)}"
                spec.doi_agency = "datacite"
            wid = corpus_id(self.seed, spec.key)
            if wid in ids:
                raise RuntimeError(f"corpus id collision for {spec.key}")
            ids.add(wid)
            sources: dict[str, dict[str, Any]] = {}
            for source in SOURCES:
                if not present[source]:
                    continue
                opts = render_options(spec, source, self.rng("render", spec.key, source))
                if source == "arxiv":
                    year = (spec.year or 2015) + int(opts.get("year_offset", 0))
                    for _ in range(100):
                        aid = make_arxiv_id(self.rng("arxiv", spec.key, _), year, spec.topic)
                        if aid not in arxiv_ids:
                            break
                    arxiv_ids.add(aid)
                    opts["id"] = aid
                sources[source] = opts
            line = self._line(wid, spec, sources)
            lines.append(line)
            manifest.append({
                "id": wid, "role": spec.role, "class": spec.cls, "topic": spec.topic,
                "field": spec.field_code, "rows": spec.rows,
                "p": {s: round(p, 6) for s, p in presence_model(spec, self.seed).items()},
                "notes": spec.notes,
            })
        order = sorted(range(len(lines)), key=lambda i: lines[i]["id"])
        return Built(self.specs, [lines[i] for i in order], [manifest[i] for i in order])

    def _identifiers(self, spec: Spec, rng: random.Random) -> None:
        if spec.cls == "article" and spec.container and not spec.issn:
            spec.issn = [make_issn(self.seed, spec.container)]
        if spec.cls in ("book", "early", "report") and not spec.isbn:
            modern = spec.year is None or spec.year >= 1970
            rate = ISBN_RATE["early" if spec.cls == "early" else "report" if spec.cls ==
                             "report" else "book_modern" if modern else "book_old"]
            if rng.random() < rate:
                spec.isbn = [self._isbn(rng, spec.publisher)]

    def _doi(self, spec: Spec, rng: random.Random) -> str:
        for _ in range(200):
            doi = make_doi(rng, spec)
            if doi.lower() not in self.used_dois:
                self.used_dois.add(doi.lower())
                return doi
        raise RuntimeError(f"could not make a unique DOI for {spec.key}")

    def _line(self, wid: str, spec: Spec, sources: dict[str, dict[str, Any]]
              ) -> dict[str, Any]:
        line: dict[str, Any] = {
            "id": wid, "type": spec.corpus_type or CORPUS_TYPE[spec.cls], "title": spec.title,
        }
        if spec.subtitle:
            line["subtitle"] = spec.subtitle
        if spec.authors:
            line["authors"] = [_person_out(p) for p in spec.authors]
        if spec.editors:
            line["editors"] = [_person_out(p) for p in spec.editors]
        for key in ("year", "container", "volume", "issue", "pages", "publisher", "doi"):
            value = getattr(spec, key)
            if value is not None and value != "":
                line[key] = value
        if spec.isbn:
            line["isbn"] = list(spec.isbn)
        if spec.issn:
            line["issn"] = list(spec.issn)
        if spec.doi and spec.doi_agency and spec.doi_agency != "crossref":
            line["doi_agency"] = spec.doi_agency
        line["sources"] = sources
        return line


def proceedings_publisher(container: str) -> str:
    if re.search(r"NAACL|\bACL\b|Computational Linguistics", container):
        return "Association for Computational Linguistics"
    if re.search(r"AAAI|ACM", container):
        return "ACM"
    if re.search(r"\bESV\b", container):
        return "National Highway Traffic Safety Administration"
    return "IEEE"


ORGANISATIONS: tuple[str, ...] = (
    "World Health Organization", "OECD Publishing", "World Bank", "RAND Corporation",
    "Brookings Institution", "National Academies Press", "Pew Research Center",
    "European Commission", "United Nations Development Programme", "Urban Institute",
    "Institute for Fiscal Studies", "Congressional Research Service",
    "Food and Agriculture Organization of the United Nations", "Chatham House",
    "International Energy Agency", "U.S. Government Accountability Office",
)


def _person_out(p: Person) -> dict[str, str]:
    if "literal" in p:
        return {"literal": p["literal"]}
    out = {"family": p["family"]}
    if p.get("given"):
        out["given"] = p["given"]
    return out


# ============================================================================ public API


def build_world_with_manifest(
    data_dir: Path, *, seed: int = 2023, background: int = 6000
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Corpus lines and the audit manifest (the role of every line; never for the engine)."""
    builder = Builder(Path(data_dir), seed, background)
    builder.prepare()
    builder.real_works()
    builder.decoys()
    builder.background_works()
    built = builder.finalize()
    return built.lines, built.manifest


def build_world(data_dir: Path, *, seed: int = 2023, background: int = 6000
                ) -> list[dict[str, Any]]:
    """The corpus lines of the Walters & Wilder world, sorted by id."""
    return build_world_with_manifest(data_dir, seed=seed, background=background)[0]


def dumps_line(line: Mapping[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False, sort_keys=False, separators=(",", ":"))


def write_world(lines: Iterable[Mapping[str, Any]], path: Path) -> None:
    """Write corpus lines as JSON Lines (UTF-8, one work per line, "\\n" endings)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for line in lines:
            fh.write(dumps_line(line) + "\n")


def summary(lines: Sequence[Mapping[str, Any]], manifest: Sequence[Mapping[str, Any]]
            ) -> dict[str, Any]:
    roles = Counter(m["role"] for m in manifest)
    per_source = Counter(s for line in lines for s in line["sources"])
    return {"works": len(lines), "roles": dict(sorted(roles.items())),
            "per_source": dict(sorted(per_source.items()))}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "data"
                        / "walters_wilder_2023")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=2023)
    parser.add_argument("--background", type=int, default=6000)
    parser.add_argument("--manifest", type=Path, default=None,
                        help="also write the audit manifest (roles; never for the engine)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    lines, manifest = build_world_with_manifest(args.data, seed=args.seed,
                                                background=args.background)
    write_world(lines, args.out)
    if args.manifest:
        write_world(manifest, args.manifest)
    info = summary(lines, manifest)
    info["seconds"] = round(time.perf_counter() - started, 2)
    print(json.dumps(info, indent=2), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
