"""Word lists the features test tokens against (lower-case, punctuation removed).

Each table maps a lexicon name to its words; a token may be in several. The lists are
short and general (not taken from the training data): months, the words that mark
publishers, journals, places, editors, pages, volumes, issues, editions and genres.
"""

from __future__ import annotations

from collections.abc import Mapping

_WORDS: Mapping[str, str] = {
    "month": """jan january feb february mar march apr april may jun june jul july aug august
        sep sept september oct october nov november dec december spring summer autumn fall
        winter janv janvier fevr février fevrier mars avr avril mai juin juil juillet août
        aout septembre octobre novembre déc décembre decembre januar februar märz marz juni
        juli oktober dezember enero febrero marzo abril mayo junio julio agosto septiembre
        octubre noviembre diciembre gennaio febbraio aprile maggio giugno luglio settembre
        ottobre dicembre""",
    "pub": """press publishing publishers publisher publications verlag verlags books
        edition éditions editions editore editori editorial inc ltd llc co company corp
        wiley springer elsevier routledge sage blackwell gruyter mcgraw hill harper norton
        penguin palgrave macmillan taylor francis kluwer pergamon prentice addison wesley
        academic house suhrkamp beck mohr siebeck gallimard seuil puf hachette dunod
        harvard yale princeton mit clarendon pearson wadsworth freeman dover basic random
        vintage bloomsbury ashgate brill nijhoff benjamins teubner vieweg birkhäuser
        birkhauser ieee acm siam aip ams crc wiley-vch""",
    "univ": """university univ universität universitat université universite universidad
        università universita institute institut institution college school department
        dept laboratory lab laboratories center centre ministry agency council foundation""",
    "journal": """journal j jour rev review reviews proc proceedings trans transactions
        letters lett phys bull bulletin ann annals acta quarterly magazine mag res research
        sci science sciences nature conf conference symposium symp workshop int intl
        international am soc society med medicine chem chemistry biol biology ecol econ
        economics psychol psychology zeitschrift z zeitschr revue rivista cahiers archives
        arch gazette plos lancet jama bmj nat natl acad math mathematics eng engineering
        comput computing stud studies quart commun communications nucl astrophys astron
        opt appl applied theor lect notes series advances adv""",
    "place": """london new york oxford cambridge paris berlin boston chicago princeton
        amsterdam leipzig münchen munchen munich frankfurt wien vienna zürich zurich
        stuttgart hamburg heidelberg tübingen tubingen göttingen gottingen bonn basel
        bern geneva genève lyon madrid barcelona rome roma milano milan torino bologna
        firenze florence napoli tokyo beijing shanghai moscow st petersburg toronto
        montreal montréal ottawa sydney melbourne washington dc philadelphia baltimore
        berkeley stanford ca ny ma nj il tx mass calif los angeles san francisco diego
        dordrecht heidelberg singapore hoboken thousand oaks newbury park upper saddle
        river englewood cliffs malden edinburgh glasgow manchester bristol leiden utrecht
        brussels bruxelles copenhagen stockholm oslo helsinki warsaw prague budapest
        lisboa lisbon athens delhi mumbai seoul cape town dublin uk usa germany france""",
    "editor": """ed eds editor editors edited hrsg hg hgg dir dirs coord éd éds herausgegeben
        herausgeber cura""",
    "trans": "trans transl translated translator übers übersetzt trad traduit",
    "pages": "pp p pages page pgs s seiten pág",
    "vol": "vol vols volume volumes v bd band tome t",
    "issue": "no nos nr issue iss num number heft n",
    "edition": "edition edn ed aufl auflage éd rev revised nd rd th st 2nd 3rd",
    "genre": """thesis dissertation phd ph doctoral doctorate master masters msc diss
        habilitation thèse these report technical tech rep memo memorandum working paper
        papers preprint arxiv manuscript unpublished submitted press forthcoming draft""",
    "in": "in dans",
    "and": "and und et y e",
    "etal": "et al others",
    "access": "retrieved available online accessed url doi http https www isbn issn pmid",
}

LEXICONS: Mapping[str, frozenset[str]] = {
    name: frozenset(words.split()) for name, words in _WORDS.items()
}
"""Lexicon name -> its words."""


def lexicon_names(word: str) -> tuple[str, ...]:
    """The lexicons ``word`` (lower-case) is in, in table order."""
    return tuple(name for name, words in LEXICONS.items() if word in words)
