"""The rule parser's second-pass fast paths give exactly what the plain computations give.

Each property compares a fast path with the computation it replaced (kept here as the
"slow" version) on text generated to reach the edges of the fast path's condition.
"""

from __future__ import annotations

import re
import sys
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from verifier import identifiers as ids
from verifier.citations.identifiers import find_identifiers
from verifier.citations.invisibles import INVISIBLE
from verifier.citations.models import Identifiers, WorkType
from verifier.citations.parsing import core, imprint, journal, names, tail, text
from verifier.citations.parsing.journal import journal_like
from verifier.citations.parsing.parsed import Parsed

# ---------------------------------------------------------------------------------------
# Numeric tails of plain numbers: items read as numbers


def slow_peel_tail(value: str, known_year: int | None) -> tail.Tail:
    stripped = tail.strip_trailing_notes(value)
    match = tail._TAIL.search(stripped, tail._tail_search_start(stripped))
    if match is None:
        return tail.Tail(stripped)
    found = tail._interpret(match.group("tail"), stripped[: match.start()], known_year)
    if found.pages and not found.volume and tail.is_year_range(found.pages):
        return tail.Tail(stripped)
    return found


WORD_PIECES = st.sampled_from([
    "Nature", "Journal of Things", "Phys. Rev. D", "vol.", "no", "pp.", "May", "enero",
    "Suppl", "IV", "e", "E", "en", "ab", "(2004)", "(3)", " ", ", ", ".", "É", "x",
])
NUMBERS = st.sampled_from([
    "1", "12", "2004", "1999", "e26439", "e", "e1", "45-67", "12–13", "7—9", "1‐2", "12.3",
    "-", "–", "e5-e9", "0", "",
])
SEPARATORS = st.sampled_from([" ", "  ", ", ", ",", ";", ":", ".", "-", " - ", ". "])
# Numbers with a separator after each: long runs of digits make the full tail pattern
# backtrack for seconds, which says nothing about the fast path.
PLAIN_TAILS = st.tuples(
    st.lists(WORD_PIECES | st.text(max_size=2), max_size=6).map("".join),
    st.lists(st.tuples(NUMBERS, SEPARATORS).map("".join), min_size=1, max_size=8).map("".join),
).map("".join)


@settings(max_examples=400, deadline=None)
@given(PLAIN_TAILS, st.integers(min_value=0, max_value=40))
@example("Conservation Biology, 30, 318-347", 20)
@example("Energy Policy, 50, e26439", 13)
@example("Periodontology 2000, 62, 7-9", 14)
@example("Revista, enero 12", 8)
def test_a_tail_of_plain_numbers_is_found_as_the_full_pattern_finds_it(
    value: str, start: int
) -> None:
    start = min(start, len(value))
    if tail._PLAIN_NUMBERS.fullmatch(value, start) is None:
        return
    full, fast = tail._TAIL.search(value, start), tail._NUMBER_TAIL.search(value, start)
    assert (full and (full.span(), full.group("tail"))) == (
        fast and (fast.span(), fast.group("tail"))
    )
    if full is not None:
        items = list(tail._ITEM_PARTS.finditer(full.group("tail")))
        assert all(item.lastgroup == "num" for item in items)
        assert [item.group() for item in items] == tail._NUMBER_ITEM.findall(full.group("tail"))


@settings(max_examples=400, deadline=None)
@given(PLAIN_TAILS | st.text(max_size=30), st.sampled_from([None, 1999, 2004]))
@example("Conservation Biology, 30, 318-347", 1995)
@example("Periodontology 2000, 62, 7-9", 2013)
@example("The South African War, 1899-1902", None)
@example("Phys. Rev. D95, 12-14", None)
def test_a_tail_is_peeled_as_before(value: str, known_year: int | None) -> None:
    assert tail.peel_tail(value, known_year) == slow_peel_tail(value, known_year)


# ---------------------------------------------------------------------------------------
# "et al." and its kin: the first-letter look-ahead changes no match

ET_AL_PIECES = st.sampled_from([
    " ", ",", ", ", "&", "& ", "et", "Et", "ET", "et.", "al", "al.", "alii", "and", "others",
    "u.", "a.", "a", "kol.", "i", "in.", "ı", "İ", "и", "др.", "coll.", "col.", "y", "e", "…",
    "...", "(...)", "ſ", "\u212a", "Smith", "E", "Y",
])
ET_AL_TEXTS = st.lists(ET_AL_PIECES | st.text(max_size=2), max_size=8).map("".join)


@settings(max_examples=500)
@given(ET_AL_TEXTS, st.integers(min_value=0, max_value=4))
@example(", et al.", 0)
@example(" & others", 0)
@example(", İ in.", 0)
@example(" (...)", 0)
def test_et_al_matches_as_without_its_look_ahead(value: str, start: int) -> None:
    plain = re.compile(names._ET_AL.pattern.replace("(?=[eaui&иy….(])", ""), names._ET_AL.flags)
    assert plain.pattern != names._ET_AL.pattern
    new, old = names._ET_AL.match(value, start), plain.match(value, start)
    assert (new and new.span()) == (old and old.span())


def test_the_first_letter_class_holds_exactly_the_first_letters_of_the_alternatives() -> None:
    first = re.compile(r"[eaui&иy….(]", re.I)
    alternatives = re.compile(r"(?:e|a|u|i|&|и|y|…|\.|\()", re.I)
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert bool(first.match(char)) == bool(alternatives.match(char)), char


# ---------------------------------------------------------------------------------------
# Clean-up of a prepared text: spaces joined again only after a substitution

CLEANUP_PIECES = st.sampled_from([
    " ", "  ", "\t", "\u00a0", "\u2003", "\n", "( )", "(.)", "[ ; ]", "()", "[]", "( 2004)",
    "https://doi.org/10.1038/x", "doi: 10.1/abc", "10.1234/abc", "www.example.org/a",
    "arXiv:1810.04805", "PMID: 123", "PMCID: PMC123456", "ISBN 978-0-306-40615-7",
    "ISSN 1234-5679", "Retrieved from", "Available at:", "[Online]", "(accessed 3 May 2020)",
    "URL", "DOI", "preprint", "online", "Phys .Rev ,036003", "andR. H.", "Muir,T.L.",
    "glance.J Cell", ". ", ", ", "Smith, J. (2019).", "Title", "12.", "[3]", "ſ", "\u212a",
    "É", "/", "url:", "1.", "(1)",
])
CLEANUP_TEXTS = st.one_of(
    st.text(), st.lists(CLEANUP_PIECES | st.text(max_size=3), max_size=14).map("".join)
)


def slow_strip_links(value: str) -> str:
    lower = value.lower()
    if text._ID_MARKER.search(lower):
        value = text._URL_OR_ID.sub(text._keep_closing_punctuation, value)
    if text._LINK_MARKER.search(lower):
        value = text._LINK_WORDS.sub(" ", value)
    value = text._EMPTY_BRACKETS.sub(" ", value)
    return " ".join(value.split())


@settings(max_examples=500, deadline=None)
@given(CLEANUP_TEXTS)
@example("Smith, J. (2019). Title. https://doi.org/10.1/x ( ).")
@example("Smith , J . ( 2004) Phys .Rev")
@example("[1] Smith, J.")
def test_a_prepared_text_is_cleaned_as_before(value: str) -> None:
    prepared = text.prepare(value)
    assert text.strip_links(value) == slow_strip_links(value)
    assert text.clean_body(prepared) == text.tidy(text.fix_spacing(slow_strip_links(prepared)))


# ---------------------------------------------------------------------------------------
# Identifiers: the rare finders skipped together


def slow_find_identifiers(value: str) -> Identifiers:
    doi = ids.find_doi(value)
    arxiv = ids.find_arxiv(value) or (ids.find_arxiv(doi) if doi else None)
    return Identifiers(
        doi=doi,
        isbn=ids.find_isbns(value),
        issn=ids.find_issns(value),
        arxiv=arxiv,
        pmid=ids.find_pmid(value),
        pmcid=ids.find_pmcid(value),
        url=ids.find_url(value),
    )


@settings(max_examples=500, deadline=None)
@given(CLEANUP_TEXTS | st.lists(st.sampled_from([
    "10.48550/arXiv.2101.00001", "ncbi.nlm.nih.gov/pubmed/123", "PMC1234", "pmcid", "eISSN",
    "ArXiv", "ARXIV:2101.00001", "ıssn 1234-5679", " ",
])).map("".join))
@example("Nature. https://doi.org/10.48550/arXiv.2101.00001")
@example("Smith, J. (2019). Title. Journal, 3, 1-9.")
def test_identifiers_are_found_as_before(value: str) -> None:
    assert find_identifiers(value) == slow_find_identifiers(value)


# ---------------------------------------------------------------------------------------
# Finishing: container searches skipped when they cannot match, empty segments left alone

CONTAINER_PIECES = st.sampled_from([
    " ", "  ", ".", ",", "(", ")", "In ", "in: ", "IN", "Proc.", "Proceedings", "Conf",
    "Symposium", "Workshop", "Congress", "Colloquium", "Meeting", "Convention", "Journal",
    "J.", "j.", "Review", "Letters", "Acta", "Nature", "Science", "PLoS", "BMJ", "JAMA",
    "Technical Report", "Working Paper", "policy brief", "report no", "ſymp", "Jſ", "\u212a",
    "İ", "ı", "Med.", "Phys", "of", "the", "É",
])
CONTAINERS = st.one_of(
    st.text(max_size=20), st.lists(CONTAINER_PIECES | st.text(max_size=2), max_size=8).map("".join)
)


@settings(max_examples=500)
@given(CONTAINERS)
@example("Proc. of the Conf.")
@example("J. Phys.")
@example("Proceedings of ſymposium")
def test_container_searches_are_skipped_only_when_they_cannot_match(value: str) -> None:
    lower = text.ascii_lower(value)
    for pattern, words in (
        (core._PROCEEDINGS, core._PROCEEDINGS_WORDS),
        (core._JOURNAL_WORDS, core._JOURNAL_NAME_WORDS),
        (core._REPORT_TEXT, core._REPORT_WORDS),
    ):
        if not text.may_mention(lower, words):
            assert pattern.search(value) is None, pattern.pattern


def slow_clean_segment(segment: str) -> str:
    segment = " ".join(segment.split()).strip(" ,;:")
    segment = text._LEADING_IN.sub("", segment)
    if segment.endswith(".") and (
        not text.ends_with_abbreviation(segment[:-1]) or "." not in segment[:-1]
    ):
        segment = segment[:-1].rstrip(" ,;:")
    if segment.count("(") < segment.count(")") and segment.endswith(")"):
        segment = segment[:-1].rstrip(" ,;:")
    if segment.count("(") > segment.count(")") and segment.startswith("("):
        segment = segment[1:].lstrip()
    return segment


@settings(max_examples=500)
@given(CONTAINERS)
@example("")
@example(" In Proc. (Conf.")
@example("in: N Engl J Med.")
def test_segments_are_cleaned_as_before(value: str) -> None:
    assert text.clean_segment(value) == slow_clean_segment(value)


def slow_work_type(
    parsed: Parsed, container: str, publisher: str, identifiers: Identifiers, value: str
) -> WorkType:
    """work_type before its container searches were skipped and shared."""
    journal = parsed.journal and (bool(parsed.volume) or not core._PROCEEDINGS.search(container))
    if core._REPORT_TEXT.search(container) or (parsed.genre == "report" and not parsed.part_of):
        return WorkType.REPORT
    if parsed.genre == "thesis" or (not journal and core._THESIS_TEXT.search(value)):
        return WorkType.THESIS
    if not journal and not parsed.part_of and (
        parsed.genre == "report" or core._REPORT_TEXT.search(value)
    ):
        return WorkType.REPORT
    if parsed.part_of:
        return WorkType.PROCEEDINGS if core._PROCEEDINGS.search(container) else WorkType.CHAPTER
    if container and core._PROCEEDINGS.search(container) and not core._JOURNAL_WORDS.search(
        container
    ):
        if not journal:
            return WorkType.PROCEEDINGS
    if journal or (container and core._JOURNAL_WORDS.search(container)):
        return WorkType.ARTICLE
    if container and (parsed.volume or parsed.pages):
        return WorkType.ARTICLE
    if (identifiers.arxiv or core._PREPRINT_TEXT.search(value)) and not container:
        return WorkType.PREPRINT
    if (
        publisher or parsed.place or parsed.edition or identifiers.isbn or parsed.edited
    ) and not container:
        return WorkType.BOOK
    if identifiers.url and not container and not publisher:
        return WorkType.WEB
    if container and journal_like(container):
        return WorkType.ARTICLE
    return WorkType.UNKNOWN


@settings(max_examples=600)
@given(
    CONTAINERS,
    st.sampled_from(["", "Press"]),
    st.sampled_from(["", "thesis", "report"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["", "12"]),
    CONTAINERS,
)
def test_the_type_is_inferred_as_before(
    container: str, publisher: str, genre: str, part_of: bool, journal: bool, volume: str,
    value: str,
) -> None:
    parsed = Parsed(genre=genre, part_of=part_of, journal=journal, volume=volume)
    identifiers = Identifiers()
    assert core.work_type(parsed, container, publisher, identifiers, value) == slow_work_type(
        parsed, container, publisher, identifiers, value
    )


# ---------------------------------------------------------------------------------------
# Sentence ends, commas outside brackets, "In" after a sentence end


def slow_boundaries(value: str, strict: bool) -> list[text.Cut]:
    cuts = []
    for match in text._BOUNDARY.finditer(value):
        following = match.group(3)
        if following[0].islower() and not any(c.isupper() for c in following):
            continue
        if match.group(1) == "." and strict and text.ends_with_abbreviation(
            value[: match.start()]
        ):
            continue
        cuts.append(text.Cut(match.start(), match.end(), match.group(1), match.group(2)))
    return cuts


SENTENCE_PIECES = st.sampled_from([
    ". ", "? ", "! ", ".” ", ".' ", ".\n", ". \n", " ", "In ", "IN ", "in ", "In: ", "Dans ",
    "J. Am. Chem. Soc. ", "U.S. ", "e.g. ", "et al. ", "al. ", "vs. ", "A. ", "Title",
    "Proc. ", "(Ed.). ", "[x]. ", "arXiv ", "eLife", "1.2. ", ", in ", ", In: ", " // ",
    "Smith", "(", ")", "ǅa", "É. ",
])
SENTENCE_TEXTS = st.one_of(
    st.text(), st.lists(SENTENCE_PIECES | st.text(max_size=2), max_size=12).map("".join)
)


@settings(max_examples=500)
@given(SENTENCE_TEXTS)
@example("A title. In Proc. of Things. J. Am. Chem. Soc. 12, 3")
@example("Smith et al. Title")
def test_sentence_ends_are_found_as_before(value: str) -> None:
    for strict in (True, False):
        assert list(text.boundaries(value, strict=strict)) == slow_boundaries(value, strict)
    if value:
        for end in (len(value) // 2, len(value) - 1):
            assert text._abbreviation_before(value, end) == text.ends_with_abbreviation(
                value[:end]
            )


def slow_split_in(rest: str) -> tuple[str, str] | None:
    for cut in text.boundaries(rest, strict=False):
        after = rest[cut.right :]
        match = core._IN.match(after)
        if match and (
            after[0] == "I"
            or after[match.end() - 2 : match.end()].strip() == ":"
            or after[match.end()].isupper()
        ):
            return text.left_of(rest, cut), after[match.end() :]
    for match in core._COMMA_IN.finditer(rest):
        after = rest[match.end() :]
        if match.start() > 3 and (":" in match.group(0) or core._PART_SIGNAL.search(after[:200])):
            return rest[: match.start()], after
    slash = rest.find(" // ")
    if slash > 3:
        return rest[:slash], rest[slash + 4 :]
    return None


@settings(max_examples=500)
@given(SENTENCE_TEXTS)
@example("A title. In J. Smith (Ed.), Book (pp. 1-9)")
@example("A title.” In: Book")
@example("A title. in Book")
def test_a_part_is_split_off_as_before(value: str) -> None:
    assert core.split_in(value) == slow_split_in(value)


def slow_top_level_commas(value: str, marks: str) -> list[int]:
    depth = 0
    found: list[int] = []
    for index, char in enumerate(value):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char in marks and depth == 0:
            found.append(index)
    return found


@settings(max_examples=400)
@given(st.lists(st.sampled_from(["a", ",", ";", "(", ")", "[", "]", " ", "é"])).map("".join))
@example("a, b (c, d), e; f")
@example("a) , (b, c")
def test_commas_outside_brackets_are_found_as_before(value: str) -> None:
    for marks in (",", ",;"):
        assert journal.top_level_commas(value, marks) == slow_top_level_commas(value, marks)


# ---------------------------------------------------------------------------------------
# Unlabelled numbers of a tail


def slow_assign_plain(result: tail.Tail, plain: list[str], known_year: int | None) -> None:
    labelled = bool(result.volume or result.pages)

    def is_year(value: str) -> bool:
        return bool(tail._YEAR_ONLY.match(value)) and known_year in (None, int(value))

    if known_year and len(plain) >= 3 and tail._YEAR_ONLY.match(plain[0]) and not is_year(
        plain[0]
    ):
        result.pre = f"{result.pre.rstrip(' ,')} {plain.pop(0)}"
    if result.year is None and (len(plain) >= 2 or (plain and labelled)):
        if is_year(plain[0]) and (len(plain) == 1 or not tail._YEAR_ONLY.match(plain[1])):
            result.year = int(plain.pop(0))
        elif is_year(plain[-1]):
            result.year = int(plain.pop())
    if len(plain) == 1 and tail._YEAR_ONLY.match(plain[0]) and not (result.volume or result.pages):
        result.year = result.year or int(plain[0])
        return
    if plain and tail._DOTTED_NUMBER.fullmatch(plain[0]) and result.year and not result.issue:
        result.volume, result.issue = plain.pop(0).split(".")
        if plain:
            result.pages = result.pages or plain[-1]
        return
    slots = [s for s in ("volume", "issue", "pages") if not getattr(result, s)]
    if len(plain) == 1:
        target = "pages" if (tail._DASH.search(plain[0]) or result.volume) else "volume"
        if target in slots:
            setattr(result, target, plain[0])
        return
    if len(plain) == 2 and "issue" in slots and len(slots) == 3:
        slots.remove("issue")
    for slot, value in zip(slots, plain[:1] + plain[1:][-(len(slots) - 1) :], strict=False):
        setattr(result, slot, value)


@settings(max_examples=600)
@given(
    st.lists(st.sampled_from(["1999", "2004", "12", "12.3", "45-67", "e5", "3"]), max_size=5),
    st.sampled_from([None, 1999, 2004]),
    st.sampled_from(["", "7"]),
    st.sampled_from(["", "2"]),
    st.sampled_from(["", "1-9"]),
    st.sampled_from([None, 2004]),
)
def test_unlabelled_numbers_are_assigned_as_before(
    plain: list[str], known_year: int | None, volume: str, issue: str, pages: str,
    year: int | None,
) -> None:
    fast = tail.Tail("Journal, ", volume, issue, pages, year)
    slow = tail.Tail("Journal, ", volume, issue, pages, year)
    tail._assign_plain(fast, list(plain), known_year)
    slow_assign_plain(slow, list(plain), known_year)
    assert fast == slow


# ---------------------------------------------------------------------------------------
# Imprint sentences: genre, edition and date searches skipped when they cannot match

IMPRINT_PIECES = st.sampled_from([
    " ", ", ", "PhD thesis", "Diss.", "Dissertação", "Doktorarbeit", "Tesis", "thèse",
    "Technical Report", "TR-12", "TR 3", "CMU-CS-90", "memorandum", "preprint", "Report",
    "Working Paper", "policy brief", "2nd ed.", "3rd edn", "Aufl.", "revised edition",
    "May", "septiembre", "Septiembre. 12", "12", "ſ", "\u212a", "Press", "Oxford",
])
IMPRINTS = st.one_of(st.text(max_size=20), st.lists(IMPRINT_PIECES, max_size=5).map("".join))


@settings(max_examples=500)
@given(IMPRINTS)
@example("septiembre. 12")
@example("Technical Report TR-12")
def test_imprint_searches_are_skipped_only_when_they_cannot_match(value: str) -> None:
    lower = text.ascii_lower(value)
    for pattern, words in (
        (imprint._THESIS, imprint._THESIS_WORDS),
        (imprint._REPORT, imprint._REPORT_WORDS),
        (imprint._EDITION, imprint._EDITION_WORDS),
    ):
        if not text.may_mention(lower, words):
            assert pattern.search(value) is None, pattern.pattern
    if len(value) > imprint._MONTH_DAY_LENGTH:
        assert imprint._MONTH_DAY.fullmatch(value) is None


def test_the_longest_month_and_day_fit_the_length_bound() -> None:
    months = text.MONTH.removeprefix("(?:").removesuffix(r")\.?").replace("(?:", "").replace(
        ")?", ""
    )
    longest = max(months.split("|"), key=len)
    assert imprint._MONTH_DAY.fullmatch(f"{longest}. 12")
    assert len(f"{longest}. 12") == imprint._MONTH_DAY_LENGTH


# ---------------------------------------------------------------------------------------
# A title's last sentence end: only the last two words of the text before it are split


def slow_last_title_cut(pre: str) -> text.Cut | None:
    chosen = None
    for cut in text.boundaries(pre):
        words = pre[: cut.left].split()
        word = words[-1] if words else ""
        previous = words[-2] if len(words) > 1 else ""
        after_abbreviation = (
            previous.endswith(".") and len(previous) <= 7 and previous[:1].isupper()
        )
        short_capital = (
            cut.mark == "."
            and word[:1].isupper()
            and (
                (
                    len(word) <= 5
                    and (not previous or previous.endswith((".", ":")) or len(previous) == 1)
                )
                or (len(word) <= 12 and after_abbreviation)
            )
        )
        lone_word = len(words) == 1 and cut.mark == "." and journal.abbreviated(pre[cut.right :])
        if not (short_capital or lone_word):
            chosen = cut
    slash = pre.rfind(" // ")
    if slash > 0 and (chosen is None or chosen.left < slash):
        return text.Cut(slash, slash + 4, "/", "")
    return chosen


@settings(max_examples=500)
@given(SENTENCE_TEXTS)
@example("Class. Quantum Grav.")
@example("  Biopharm. Drug Dispos.")
@example("A long title of things. Mol. Gen. Genet. // Book")
def test_the_last_title_cut_is_found_as_before(value: str) -> None:
    assert journal._last_title_cut(value) == slow_last_title_cut(value)


# ---------------------------------------------------------------------------------------
# Trailing notes stripped once: a settled text is not stripped again


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([
    "Title", " ", ".", ",", " (in Russian)", " [x]", ", in press", " (to appear)", "(1)",
    " forthcoming", ", submitted", " (abstract)", "12, 3-4", "Journal, 12, 3-4",
])).map("".join))
@example("Title, 12, 3-4 (in Russian) [x] (abstract) (to appear)")
def test_a_settled_text_has_no_note_left_to_strip(value: str) -> None:
    stripped, settled = tail.strip_notes(value)
    assert stripped == tail.strip_trailing_notes(value)
    if settled:
        assert tail.strip_trailing_notes(stripped) == stripped
        for year in (None, 2004):
            assert tail.peel_tail(stripped, year, notes_settled=True) == tail.peel_tail(
                stripped, year
            )


def slow_prepare(value: str) -> str:
    value = unicodedata.normalize("NFC", value[: text.MAX_PARSE_CHARS])
    value = INVISIBLE.sub("", value.replace("*", ""))
    value = value.replace("``", "“").replace("''", "”").replace(",,", "„")
    value = " ".join(value.split())
    return text._LEADING_NUMBER.sub("", value, count=1)


@settings(max_examples=400)
@given(st.one_of(CLEANUP_TEXTS, st.lists(st.sampled_from([
    "[12]", "(3)", "12.", "1)", " ", "\n", "12. Smith", "12.5", "(1) ", "[ 4 ] ", "1.2", "*",
])).map("".join)))
@example("[12] Smith, J.")
@example("12. 13. Smith")
def test_a_text_is_prepared_as_before(value: str) -> None:
    assert text.prepare(value) == slow_prepare(value)
