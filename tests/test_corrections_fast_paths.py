"""The corrections' fast paths (verifier.citations.corrections) give exactly what the
module gave before them, on any input: that module is kept as the slow paths in
tests/slow_corrections.py.

The records stress where the paths part: text fields with LaTeX specials, braces, markup
and entities, whitespace other than a single space, capitals and letters outside ASCII,
empty fields, page ranges of every form, identifiers missing in one record and given in
another.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import slow_corrections as slow
from citation_strategies import citations, records_for
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier.citations import corrections as C
from verifier.citations import discrepancies as D
from verifier.citations import merging as M
from verifier.citations.discrepancies import parse_pages
from verifier.citations.models import Author, Citation, Identifiers, WorkRecord, WorkType
from verifier.citations.normalize import normalize_title

# What makes the paths part: ASCII or not, capitals, LaTeX specials and braces, markup
# and entities, whitespace that is not a single space (including the ASCII separators
# \x1c-\x1f, which str.split takes for whitespace), page forms and their dashes.
ALPHABET = list("abcXYZ019 .,;:-?!'") + [
    "\\", "{", "}", "&", "%", "$", "#", "_", "~", "^", "<i>", "</i>", "&amp;", "&lt;b&gt;",
    "  ", "\t", "\n", "\x1c", "\u00a0", "\u2028", "\u3000", "\u00e9", "\u00c9", "\u01c5",
    "\u00df", "\u0130", "\ufb01", "\u2013", "\u2014", "\u0663", "pp. ", "e", "E", "to",
]
texts = st.lists(st.sampled_from(ALPHABET), max_size=24).map("".join) | st.text(max_size=24)
PAGES = (st.from_regex(r"[eEpS]?[0-9\u0663]{1,5}([-\u2013][eES]?[0-9]{0,5}[a-z]?)?",
                       fullmatch=True)
         | st.sampled_from(["", "45-67", "45-7", "pp. 45–7", "45", "e24295", "E12", "913",
                            "913-918", "xi", "-", "pp. –", "S12-19", "0-0", "12-12", "7-"])
         | texts)
WORDS = st.sampled_from(["", "Lanza", "O'Brien", "van der Berg", "Müller", "Robert P.",
                         "M. D.", "JA", "Jean-Paul", "J.-P.", "ǅemal", "R&D {Group}",
                         "World Health Organization", "12", "Vol. 12", "3"])
names = st.builds(Author, family=WORDS | texts, given=WORDS | texts,
                  literal=st.sampled_from(["", ""]) | WORDS | texts)
DOIS = st.sampled_from([None, "", "10.1038/70171", "10.1000/x{y} z", "10.1000/ABC"])


@st.composite
def records(draw: st.DrawFn) -> WorkRecord:
    def field() -> str:
        return draw(WORDS | texts)

    return WorkRecord(
        source=draw(st.sampled_from(["crossref", "openalex", "openlibrary"])),
        source_id="id", url="",
        title=draw(texts | st.sampled_from(["", "Prospects for the Use of DNA: A study",
                                            "THE STRENGTH OF WEAK TIES", "iPhone use"])),
        authors=tuple(draw(st.lists(names, max_size=4))),
        year=draw(st.none() | st.integers(1990, 2024)),
        container=field(), volume=field(), issue=field(),
        pages=draw(PAGES), publisher=field(),
        editors=tuple(draw(st.lists(names, max_size=3))),
        type=draw(st.sampled_from(list(WorkType))),
        identifiers=Identifiers(doi=draw(DOIS),
                                arxiv=draw(st.sampled_from([None, "", "2101.00001"]))),
    )


cited = st.builds(Citation, title=texts | WORDS | st.sampled_from(["THE STRENGTH OF WEAK TIES"]),
                  type=st.sampled_from(list(WorkType)))


def outcome(function: Callable[..., object], *args: Any, **kwargs: Any) -> tuple[str, object]:
    """What ``function`` gives, or the type of error it raises: the fast paths raise where
    the slow ones did (an organisation named by whitespace alone has no first word for a
    BibTeX key, before and after)."""
    try:
        return "gives", function(*args, **kwargs)
    except Exception as error:  # compared, not handled
        return "raises", type(error)


KEYS = st.sampled_from(["", "Lanza1999", "bad key", "k{1}"])


@settings(max_examples=600, deadline=None)
@given(cited, st.lists(records(), min_size=1, max_size=3), KEYS, st.booleans())
def test_a_correction_is_the_slow_paths(citation: Citation, chain: list[WorkRecord],
                                        key: str, retracted: bool) -> None:
    record, others = chain[0], chain[1:]
    assert outcome(C.correction_for, citation, record, others, key=key,
                   retracted=retracted) == \
        outcome(slow.correction_for, citation, record, others, key=key, retracted=retracted)


@settings(max_examples=300, deadline=None)
@given(citations().flatmap(lambda c: st.tuples(
    st.just(c), st.lists(records_for(c), min_size=1, max_size=3))), KEYS, st.booleans())
def test_a_correction_of_near_misses_is_the_slow_paths(
    case: tuple[Citation, list[WorkRecord]], key: str, retracted: bool,
) -> None:
    citation, chain = case
    record, others = chain[0], chain[1:]
    assert outcome(C.correction_for, citation, record, others, key=key,
                   retracted=retracted) == \
        outcome(slow.correction_for, citation, record, others, key=key, retracted=retracted)


@settings(max_examples=600, deadline=None)
@given(records(), st.none() | st.sampled_from(list(WorkType)), KEYS, st.booleans())
@example(WorkRecord("crossref", "id", "", "A title", pages="pp. 45–7"), None, "", False)
def test_each_form_is_the_slow_paths(record: WorkRecord, kind: WorkType | None, key: str,
                                     retracted: bool) -> None:
    assert C.apa_reference(record, kind, retracted=retracted) == \
        slow.apa_reference(record, kind, retracted=retracted)
    assert outcome(C.bibtex_entry, record, kind, key=key, retracted=retracted) == \
        outcome(slow.bibtex_entry, record, kind, key=key, retracted=retracted)
    assert outcome(C.bibtex_key, record) == outcome(slow.bibtex_key, record)
    assert M.work_kind(record) == slow.work_kind(record)
    for note in ("", "Retracted"):
        assert C._bibtex_fields(record, kind or WorkType.OTHER, note) == \
            slow._bibtex_fields(record, kind or WorkType.OTHER, note)


@settings(max_examples=1500, deadline=None)
@given(PAGES)
@example("045-7")
@example("45-123")
@example("12-012")
@example("e")
@example("E0")
@example("1-2-3")
@example("٣-٤")
def test_a_page_range_is_parse_pages(pages: str) -> None:
    parsed = parse_pages(pages)
    assert M.page_range(pages) == (None if parsed is None else (parsed.first, parsed.last))


@settings(max_examples=2000, deadline=None)
@given(texts | WORDS)
@example("")
@example(" ")
@example("a  b")
@example(" a")
@example("a ")
@example("a\u00a0b")
@example("R&D")
@example("x<y")
@example("50% of $x^2$ #1 a_b ~ {c} \\d")
@example("ǅemal and Éire: ÉTUDES")
@example("iPhone use by McDonald's staff in the USA")
@example("A b C")
@example("DNA")
@example("Dna")
def test_cleaning_escaping_and_bracing_are_the_slow_paths(text: str) -> None:
    assert C._cleaned(text) == slow._clean(text)
    assert C._escaped(text) == slow.bibtex_escape(text) == C.bibtex_escape(text)
    assert C._protect_title(text) == slow._protect_title(text)


@settings(max_examples=1000, deadline=None)
@given(texts | WORDS | st.text(alphabet="abcXYZ019", min_size=1))
@example("Lanza")
@example("O'Brien")
@example("Müller")
@example("a1")
def test_a_key_word_is_the_slow_paths(text: str) -> None:
    assert C._key_word_of(text) == slow._key_word(text)


@settings(max_examples=1500, deadline=None)
@given(texts | WORDS)
@example("J.-P.")
@example("M.R.")
@example("John\x1cRonald")
@example("JA")
@example(" . A..b ")
def test_initials_are_the_slow_paths(given_name: str) -> None:
    assert D.initials_display.__wrapped__(given_name) == slow.initials_display(given_name)


def test_the_pattern_whitespace_is_the_split_whitespace() -> None:
    """What the initials' split relies on: re's \\s (str patterns) and str.split() take
    the same characters for whitespace, over all of Unicode."""
    space = re.compile(r"\s")
    for code in range(0x110000):
        character = chr(code)
        assert (space.match(character) is not None) == character.isspace(), hex(code)


def test_the_ascii_flags_are_the_unprintable_characters_and_the_flagged() -> None:
    """What the ASCII cleaning and escaping tests rely on: among ASCII characters,
    ``isprintable()`` refuses exactly the controls the tables flag."""
    for code in range(128):
        assert chr(code).isprintable() == (32 <= code < 127), code
    plain = set(range(128)) - {ord(c) for c in "<&" + "".join(C._LATEX_SPECIALS)}
    flagged = {code for code in range(128) if C._NOT_PLAIN_ASCII[code] == 0}
    assert flagged == {code for code in range(128)
                       if not chr(code).isprintable() or code not in plain}
    assert {code for code in range(128) if C._NOT_CLEAN_ASCII[code] == 0} == \
        {code for code in range(128) if not chr(code).isprintable() or chr(code) in "<&"}


def test_a_capitalised_letter_is_printable_without_whitespace_or_markup() -> None:
    """What the APA name shortcut relies on: initials are letters upper-cased, and no
    letter upper-cased holds an unprintable or whitespace character, "<" or "&"."""
    for code in range(0x110000):
        letter = chr(code)
        if letter.isalpha():
            capital = letter.upper()
            assert letter.isprintable() and capital.isprintable(), hex(code)
            assert not any(c.isspace() for c in capital), hex(code)
            assert "<" not in capital and "&" not in capital, hex(code)


@settings(max_examples=1500, deadline=None)
@given(names)
@example(Author("Lanza", "Robert P."))
@example(Author("Lan<b>za</b>", "R."))
@example(Author("Lanza ", "R."))
@example(Author("", "", " World  Health "))
def test_an_apa_name_is_the_slow_paths(author: Author) -> None:
    if author.family or author.literal:
        assert C._apa_name(author) == slow._clean(slow.short_name(author))


def test_an_empty_text_normalises_to_nothing() -> None:
    """What the APA publisher test relies on for a person (no literal)."""
    assert normalize_title("") == "" and normalize_title.__wrapped__("") == ""
