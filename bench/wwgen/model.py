"""The coverage model and the generation rules of the W&W world: the figures of
``bench/WW_WORLD.md`` sections 1 and 2 (written before the code; they change only with it),
and the name and word lists generation draws from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


ORGANISATIONS: tuple[str, ...] = (
    "World Health Organization", "OECD Publishing", "World Bank", "RAND Corporation",
    "Brookings Institution", "National Academies Press", "Pew Research Center",
    "European Commission", "United Nations Development Programme", "Urban Institute",
    "Institute for Fiscal Studies", "Congressional Research Service",
    "Food and Agriculture Organization of the United Nations", "Chatham House",
    "International Energy Agency", "U.S. Government Accountability Office",
)
