"""Field-level accuracy of the reference parsers on hand-labelled references, side by side.

Run::

    .venv/bin/python bench/parsing.py [--data DIR] [--json FILE] [--limit N]
                                      [--show-misses N] [--dataset NAME] [--field F] [--type T]
                                      [--parser NAME]

Parsers (all run by default, on the same rows):

* ``combined`` :func:`verifier.citations.parsing.parse_citation`, the default: the rules
  for author-date references they complete, the CRF for the rest
  (:mod:`verifier.citations.parsing.combined`).
* ``trained``  :func:`verifier.citations.parsing.crf.parse_trained`, the CRF model shipped
  in the package (trained by ``bench/train_parser.py`` on the training split) alone.
* ``rules``    :func:`verifier.citations.parsing.core.parse_citation`, the rule parser alone.

The default (``verifier.citations.parsing.parse_citation``) is named in the report's
``default``; its scores are at the top level of ``--json``, each parser's under
``parsers``, with references parsed per second in ``timing`` (CPU time of this
process, one core: other load on the machine does not count against it).

Only the validation split of ``parsing_gold`` is measured
(:func:`verifier.citations.parsing.crf.split.is_validation`: SHA-1 of the normalised
text modulo 10 is 8 or 9), never a row the model was trained on. The HALLMARK rows are
not training data and are all measured.

Datasets (read from ``../shared/data`` beside the repository, or ``--data DIR``; never
copied into the repository):

* ``anystyle_dev``  ``parsing_gold/anystyle_dev.jsonl`` (2,073 strings, humanities-heavy)
* ``grobid_dev``    ``parsing_gold/grobid_dev.jsonl`` (6,003 strings, sciences, PDF noise)
* ``hallmark_ww``   the 341 Walters & Wilder (2023) ChatGPT journal articles that HALLMARK
  parsed (``walters_wilder_2023/hallmark_ww_articles.jsonl``), joined by ``hallmark_key``
  to their text in ``ww2023_citations.csv``; gold fields author/title/year/journal only.

How a prediction is compared with the gold (see ``parsing_gold/README.md``)
--------------------------------------------------------------------------

* Text fields (title, container, volume, issue, pages, publisher) are compared by
  :func:`text_key`: Unicode NFKC, case-folded, every run of characters that are not
  letters or digits (punctuation, dashes, quotes, whitespace) read as one space. Two
  values agree when their keys are equal. A gold value given as a list (the label
  repeats) agrees with a prediction that equals any one element or all of them joined.
* The gold ``publisher`` falls back to ``institution`` when a reference has no publisher
  (GROBID labels a thesis's university as institution, AnyStyle as publisher).
* year: the gold ``year`` (first 4-digit year of the date) against ``str(citation.year)``.
* authors / editors: scored per name, micro-averaged over names. The gold author string
  is split into names by :func:`gold_names` (independent of the parser's own code); a
  predicted name matches a gold name when their family keys are equal (``family_key``:
  letters and digits only, case-folded) or their full-name keys are (every word of the
  name, sorted: this lets a corporate author match however it is split). Names are
  matched one to one. "et al." and role words ("eds.", "edited by") are not names.
  Support is the number of gold names.
* author_list: per reference, correct when the predicted names match every gold name
  and nothing else (the whole author list is right).
* Every other field is scored per reference: precision = correct predicted values /
  non-empty predicted values, recall = correct / non-empty gold values, support = the
  number of references with a non-empty gold value. A value predicted where the gold has
  none counts against precision only.
* type: accuracy of ``citation.type`` against the gold ``type``; the parser's
  PROCEEDINGS counts as ``chapter`` and PREPRINT as ``report`` (the gold's subtypes),
  UNKNOWN as ``other``.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_args import result_file, write_result

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.citations.models import Author, Citation, WorkType  # noqa: E402
from verifier.citations.parsing import DEFAULT_PARSER, parse_citation  # noqa: E402
from verifier.citations.parsing.core import parse_citation as parse_rules  # noqa: E402
from verifier.citations.parsing.crf import parse_trained  # noqa: E402
from verifier.citations.parsing.crf.split import is_validation  # noqa: E402

DEFAULT_DATA = ROOT / ".." / "shared" / "data"
DATASETS = ("anystyle_dev", "grobid_dev", "hallmark_ww")
PARSERS: Mapping[str, Callable[[str], Citation]] = {
    "combined": parse_citation,
    "trained": parse_trained,
    "rules": parse_rules,
}
"""Every parser the bench measures, by name."""
MAIN_FIELDS = ("authors", "title", "year", "container")
SECONDARY_FIELDS = ("volume", "issue", "pages", "publisher", "editors")
FIELDS = (*MAIN_FIELDS, "author_list", *SECONDARY_FIELDS)
TYPES = ("article", "book", "chapter", "thesis", "report", "web", "other")
_TEXT_FIELDS = {
    "title": "title",
    "container": "container-title",
    "volume": "volume",
    "issue": "issue",
    "pages": "pages",
}
_TYPE_OF = {
    WorkType.ARTICLE: "article",
    WorkType.BOOK: "book",
    WorkType.CHAPTER: "chapter",
    WorkType.PROCEEDINGS: "chapter",
    WorkType.THESIS: "thesis",
    WorkType.REPORT: "report",
    WorkType.PREPRINT: "report",
    WorkType.WEB: "web",
    WorkType.OTHER: "other",
    WorkType.UNKNOWN: "other",
}

GoldValue = str | list[str]

# ---------------------------------------------------------------------------------------
# Keys


_NOT_ALNUM = re.compile(r"[\W_]+")


def text_key(value: str) -> str:
    """``value`` reduced for comparison: NFKC, case-folded, every run of non-alphanumeric
    characters one space, no space at either end. "Phys.Rev .D" -> "phys rev d"."""
    folded = unicodedata.normalize("NFKC", value).casefold()
    return " ".join(_NOT_ALNUM.sub(" ", folded).split())


def family_key(value: str) -> str:
    """A family name as one key: letters and digits only, case-folded ("Martin- Facklam"
    and "Martin-Facklam" agree)."""
    return text_key(value).replace(" ", "")


def full_key(value: str) -> str:
    """Every word of a name, sorted: "Smith John" and "John Smith" agree."""
    return " ".join(sorted(text_key(value).split()))


@dataclass(frozen=True, slots=True)
class Name:
    """One person or organisation as compared: family key and full-name key."""

    family: str
    full: str

    def matches(self, other: Name) -> bool:
        """Same family key or same full-name key."""
        return bool(
            (self.family and self.family == other.family) or (self.full and self.full == other.full)
        )


def name_of(family: str, given: str = "") -> Name:
    """The comparison keys of one name."""
    return Name(family_key(family), full_key(f"{given} {family}"))


def predicted_names(authors: Sequence[Author]) -> list[Name]:
    """The parser's authors as names; a corporate author's literal is its family."""
    names = [name_of(a.family or a.literal, a.given) for a in authors]
    return [n for n in names if n.family or n.full]


# ---------------------------------------------------------------------------------------
# Gold author strings -> names

_ROLE = re.compile(
    r"\(\s*(?:eds?|editors?|hrsg|hg|dirs?|coords?|comps?|trans|tr)\.?\s*\)"
    r"|\b(?:edited|translated|compiled|ed\.)\s+by\b"
    r"|(?<![\w.])(?:eds?|editors?|hrsg|hg|dirs?|trans|tr)\.?(?=\s*(?:[,;:)]|$))"
    r"|^\s*in:?\s+",
    re.I,
)
_GOLD_ET_AL = re.compile(r"\bet\.?\s*al\b\.?|\band\s+others\b|…|\.{3}|\bu\.\s*a\.", re.I)
_STRONG_SEPARATOR = re.compile(r"\s*(?:;|/|\s(?:and|&|und|et)\s|&)\s*", re.I)
_INITIALS = re.compile(r"^(?:[^\W\d_][a-z]?\s*\.\s*-?\s*)*[^\W\d_]\.?$|^[^\W\d_]{1,3}$")
_LEADING_INITIALS = re.compile(r"^(?:[^\W\d_][a-z]?\s*\.\s*-?\s*)+(?=[^\W\d_])")
_TRAILING_INITIALS = re.compile(r"^(?P<family>.+?)\s+(?:[^\W\d_]{1,3}|(?:[^\W\d_]\.\s*-?\s*)+)$")
_SUFFIX = re.compile(r"^(?:jr|sr|ii|iii|iv)\.?$", re.I)
_GOLD_PARTICLES = frozenset(
    "van von der den de del della di da du des dos das do la le ter ten zu bin ibn al el".split()
)


def _is_gold_initials(piece: str) -> bool:
    """ "V.", "W. E.", "M.S.C.", "J.-P.", "SJ" (upper-case only) are initials."""
    if not _INITIALS.match(piece):
        return False
    letters = [c for c in piece if c.isalpha()]
    return piece.endswith(".") or "." in piece or all(c.isupper() for c in letters)


def _is_given_words(piece: str) -> bool:
    """Given names written out after a family name: "John", "Kai Ming", "Robert K."."""
    words = piece.split()
    return 1 <= len(words) <= 3 and all(w[:1].isupper() for w in words)


def _is_bare(piece: str) -> bool:
    """A piece that may be a family name alone: no initials in it, one to three words."""
    words = piece.split()
    return 1 <= len(words) <= 3 and not any(_is_gold_initials(w) for w in words)


def _family_of_piece(piece: str) -> tuple[str, str]:
    """(family, given) of one name written without a comma: "G. Pappas", "Galli SJ",
    "Mary Jones", "van der Berg", "COLLECTIF"."""
    leading = _LEADING_INITIALS.match(piece)
    if leading:
        return piece[leading.end() :].strip(), piece[: leading.end()].strip()
    trailing = _TRAILING_INITIALS.match(piece)
    if trailing and " " in piece and piece[len(trailing.group("family")) :].strip().isupper():
        family = trailing.group("family")
        return family, piece[len(family) :].strip()
    words = piece.split()
    if len(words) <= 1:
        return piece, ""
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _GOLD_PARTICLES:
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start])


def _gold_groups(value: str) -> Iterator[list[str]]:
    """The comma pieces of each group between strong separators (";", "/", "and", "&")."""
    value = _GOLD_ET_AL.sub(",", _ROLE.sub(",", value))
    for group in _STRONG_SEPARATOR.split(value):
        pieces = [
            p.strip(" .,:") if not _is_gold_initials(p.strip(" ,:")) else p.strip(" ,:")
            for p in group.split(",")
        ]
        pieces = [p for p in pieces if p and any(c.isalpha() for c in p)]
        if pieces:
            yield pieces


def gold_names(value: GoldValue) -> list[Name]:
    """The names in a gold author or editor string.

    Handles "Family, I., Family, I. & Family, I." (initials pair with the family before
    them), "I. Family, I. Family", "Family I, Family I" (Vancouver), "Family, Given,
    and Given Family" (MLA: a family name followed by written-out given names pairs when
    it opens a group or follows such a pair), ";" and "/" lists, "et al." and role words.
    """
    values = value if isinstance(value, list) else [value]
    names: list[Name] = []
    for one in values:
        for pieces in _gold_groups(one):
            names.extend(_names_of_group(pieces))
    return [n for n in names if n.family or n.full]


def _names_of_group(pieces: list[str]) -> list[Name]:
    names: list[Name] = []
    paired_by_words = False
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        following = pieces[index + 1] if index + 1 < len(pieces) else None
        if _SUFFIX.match(piece) or _is_gold_initials(piece):
            index += 1  # "Jr." or initials that belong to no family name: not a name
            continue
        if following is not None and _is_gold_initials(following) and _is_bare(piece):
            names.append(name_of(piece, following))
            index, paired_by_words = index + 2, False
            continue
        if (
            following is not None
            and (index == 0 or paired_by_words)
            and _is_bare(piece)
            and _is_given_words(following)
            and " " not in piece.strip()
        ):
            names.append(name_of(piece, following))
            index, paired_by_words = index + 2, True
            continue
        family, given = _family_of_piece(piece)
        names.append(name_of(family, given))
        index, paired_by_words = index + 1, False
    return names


def match_names(gold: Sequence[Name], predicted: Sequence[Name]) -> int:
    """How many gold names a distinct predicted name matches (greedy, in order)."""
    unused = list(predicted)
    hits = 0
    for name in gold:
        for position, candidate in enumerate(unused):
            if name.matches(candidate):
                hits += 1
                del unused[position]
                break
    return hits


# ---------------------------------------------------------------------------------------
# Scoring


@dataclass(slots=True)
class Tally:
    """Counts for one field: correct predictions, non-empty predictions, non-empty gold."""

    correct: int = 0
    predicted: int = 0
    gold: int = 0

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to these."""
        self.correct += other.correct
        self.predicted += other.predicted
        self.gold += other.gold

    def metrics(self) -> dict[str, float]:
        """precision, recall, f1 (0.0 when undefined) and support (= gold count)."""
        precision = self.correct / self.predicted if self.predicted else 0.0
        recall = self.correct / self.gold if self.gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"precision": precision, "recall": recall, "f1": f1, "support": self.gold}


def _gold_text(fields: Mapping[str, GoldValue], name: str) -> GoldValue:
    value = fields.get(name, "")
    if name == "publisher" and not value:
        value = fields.get("institution", "")
    if isinstance(value, list):
        return [v for v in value if text_key(v)]
    return value if text_key(value) else ""


def text_agrees(gold: GoldValue, predicted: str) -> bool:
    """True when ``predicted`` has the key of the gold value (of any one element of a
    list, or of the elements joined)."""
    key = text_key(predicted)
    if not key:
        return False
    options = gold if isinstance(gold, list) else [gold]
    return key in {text_key(o) for o in options} or key == text_key(" ".join(options))


def score_text(gold: GoldValue, predicted: str) -> Tally:
    """The tally of one text field of one reference (each count 0 or 1)."""
    has_gold = bool(gold)
    has_prediction = bool(text_key(predicted))
    correct = has_gold and has_prediction and text_agrees(gold, predicted)
    return Tally(int(correct), int(has_prediction), int(has_gold))


def score_names(gold: GoldValue, predicted: Sequence[Author]) -> tuple[Tally, Tally]:
    """(per-name tally, whole-list tally) for an author or editor field."""
    gold_list = gold_names(gold) if gold else []
    mine = predicted_names(predicted)
    hits = match_names(gold_list, mine)
    per_name = Tally(hits, len(mine), len(gold_list))
    exact = bool(gold_list) and hits == len(gold_list) == len(mine)
    return per_name, Tally(int(exact), int(bool(mine)), int(bool(gold_list)))


def score_citation(fields: Mapping[str, GoldValue], citation: Citation) -> dict[str, Tally]:
    """Tallies of every field in :data:`FIELDS` for one reference."""
    scores: dict[str, Tally] = {}
    scores["authors"], scores["author_list"] = score_names(
        fields.get("author", ""), citation.authors
    )
    scores["editors"], _ = score_names(fields.get("editor", ""), citation.editors)
    for name, gold_name in _TEXT_FIELDS.items():
        scores[name] = score_text(_gold_text(fields, gold_name), getattr(citation, name))
    scores["publisher"] = score_text(_gold_text(fields, "publisher"), citation.publisher)
    year = "" if citation.year is None else str(citation.year)
    scores["year"] = score_text(_gold_text(fields, "year"), year)
    return scores


def predicted_type(citation: Citation) -> str:
    """The parser's type in the gold's vocabulary (subtypes folded in, UNKNOWN as other)."""
    return _TYPE_OF[citation.type]


@dataclass(slots=True)
class Results:
    """Tallies by (dataset, gold type, field), type agreement, and misses for display."""

    tallies: dict[tuple[str, str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    types: Counter[tuple[str, str, bool]] = field(default_factory=Counter)
    misses: list[Miss] = field(default_factory=list)
    seconds: float = 0.0
    count: int = 0

    def add(self, row: GoldRow, citation: Citation) -> None:
        """Score ``citation`` against ``row`` and keep its misses on the main fields."""
        for name, tally in score_citation(row.fields, citation).items():
            self.tallies[(row.dataset, row.type, name)].add(tally)
            if name in MAIN_FIELDS and tally.correct < max(tally.gold, tally.predicted):
                self.misses.append(Miss(row, name, citation))
        self.types[(row.dataset, row.type, predicted_type(citation) == row.type)] += 1

    def tally(self, field_name: str, dataset: str | None = None, type_: str | None = None) -> Tally:
        """The summed tally of a field, over all datasets/types or the given ones."""
        total = Tally()
        for (ds, ty, name), tally in self.tallies.items():
            if name == field_name and dataset in (None, ds) and type_ in (None, ty):
                total.add(tally)
        return total

    def type_accuracy(self, dataset: str | None = None, type_: str | None = None) -> float:
        """Share of references whose predicted type is the gold type."""
        right = wrong = 0
        for (ds, ty, agrees), count in self.types.items():
            if dataset in (None, ds) and type_ in (None, ty):
                right, wrong = (right + count, wrong) if agrees else (right, wrong + count)
        return right / (right + wrong) if right + wrong else 0.0

    def summary(self, dataset: str | None = None) -> dict[str, Any]:
        """{"overall": {FIELD: metrics}, "by_type": {TYPE: {FIELD: metrics}}, "type_accuracy"}."""
        present = sorted({ty for (ds, ty, _) in self.tallies if dataset in (None, ds)})
        return {
            "overall": {f: self.tally(f, dataset).metrics() for f in FIELDS},
            "by_type": {
                t: {f: self.tally(f, dataset, t).metrics() for f in FIELDS} for t in present
            },
            "type_accuracy": {
                "overall": self.type_accuracy(dataset),
                **{t: self.type_accuracy(dataset, t) for t in present},
            },
        }


# ---------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True, slots=True)
class GoldRow:
    id: str
    dataset: str
    text: str
    type: str
    fields: Mapping[str, GoldValue]


@dataclass(frozen=True, slots=True)
class Miss:
    row: GoldRow
    field: str
    citation: Citation


def load_jsonl_gold(path: Path, dataset: str, limit: int | None) -> list[GoldRow]:
    """The validation rows of a ``parsing_gold`` JSONL file (the first ``limit`` of them
    only, if given); training rows are never read."""
    rows: list[GoldRow] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if not is_validation(record["text"]):
                continue
            rows.append(
                GoldRow(record["id"], dataset, record["text"], record["type"], record["fields"])
            )
            if limit is not None and len(rows) >= limit:
                break
    return rows


def load_hallmark(folder: Path, limit: int | None) -> list[GoldRow]:
    """The HALLMARK articles with their citation text; gold author/title/year/journal."""
    with (folder / "ww2023_citations.csv").open(encoding="utf-8", newline="") as handle:
        text_of = {r["hallmark_key"]: r["citation_text"] for r in csv.DictReader(handle)}
    rows: list[GoldRow] = []
    with (folder / "hallmark_ww_articles.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            gold = record["fields"]
            fields = {
                "author": gold.get("author", ""),
                "title": gold.get("title", ""),
                "year": gold.get("year", ""),
                "container-title": gold.get("journal", ""),
            }
            key = record["bibtex_key"]
            rows.append(GoldRow(key, "hallmark_ww", text_of[key], "article", fields))
            if limit is not None and len(rows) >= limit:
                break
    return rows


def load(data: Path, dataset: str, limit: int | None) -> list[GoldRow]:
    """The rows of one dataset from the shared data folder ``data``."""
    if dataset == "hallmark_ww":
        return load_hallmark(data / "walters_wilder_2023", limit)
    return load_jsonl_gold(data / "parsing_gold" / f"{dataset}.jsonl", dataset, limit)


def run(
    rows: Iterable[GoldRow], results: Results, parse: Callable[[str], Citation] = parse_trained
) -> None:
    """Parse every row with ``parse`` (timed) and score it into ``results``."""
    rows = list(rows)
    if rows:
        parse(rows[0].text)  # load the model before the clock starts
    start = time.process_time()
    parsed = [parse(row.text) for row in rows]
    results.seconds += time.process_time() - start
    results.count += len(rows)
    for row, citation in zip(rows, parsed, strict=True):
        results.add(row, citation)


# ---------------------------------------------------------------------------------------
# Display


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}"


def format_summary(title: str, summary: Mapping[str, Any]) -> str:
    """A summary as a table: P/R/F1/support per field, type accuracy, F1 by gold type."""
    lines = [f"== {title}", f"{'field':<12} {'P':>6} {'R':>6} {'F1':>6} {'support':>8}"]
    for name, m in summary["overall"].items():
        if not m["support"]:
            continue  # no gold values (HALLMARK has author/title/year/journal only)
        lines.append(
            f"{name:<12} {_pct(m['precision']):>6} {_pct(m['recall']):>6} {_pct(m['f1']):>6} "
            f"{m['support']:>8}"
        )
    accuracy = summary["type_accuracy"]
    lines.append(f"type accuracy {_pct(accuracy['overall'])}")
    header = " ".join(f"{f[:9]:>9}" for f in MAIN_FIELDS)
    lines.append(f"F1 by type   {header} {'type acc':>9} {'n':>6}")
    for type_, fields in summary["by_type"].items():
        cells = " ".join(
            f"{_pct(fields[f]['f1']):>9}" if fields[f]["support"] else f"{'-':>9}"
            for f in MAIN_FIELDS
        )
        n = max(fields[f]["support"] for f in ("title", "year", "container", "author_list"))
        lines.append(f"  {type_:<10} {cells} {_pct(accuracy[type_]):>9} {n:>6}")
    return "\n".join(lines)


def _show_value(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _predicted_value(citation: Citation, field_name: str) -> object:
    if field_name in ("authors", "editors"):
        people = citation.authors if field_name == "authors" else citation.editors
        return [a.display for a in people]
    return getattr(citation, field_name)


def format_misses(
    misses: Sequence[Miss], per_field: int, field_name: str | None, type_: str | None
) -> str:
    """Up to ``per_field`` misses per (dataset, field), a fixed random sample."""
    groups: dict[tuple[str, str], list[Miss]] = defaultdict(list)
    for miss in misses:
        if field_name in (None, miss.field) and type_ in (None, miss.row.type):
            groups[(miss.row.dataset, miss.field)].append(miss)
    lines: list[str] = []
    rng = random.Random(0)
    gold_name = {"authors": "author", "container": "container-title"}
    for (dataset, name), group in sorted(groups.items()):
        lines.append(f"-- misses {dataset} {name}: {len(group)}")
        for miss in rng.sample(group, min(per_field, len(group))):
            gold = miss.row.fields.get(gold_name.get(name, name), "")
            lines.append(f"  [{miss.row.id} {miss.row.type}] {miss.row.text}")
            lines.append(f"      gold: {_show_value(gold)}")
            lines.append(f"      got:  {_show_value(_predicted_value(miss.citation, name))}")
    return "\n".join(lines)


def parser_report(results: Results, datasets: Sequence[str]) -> dict[str, Any]:
    """One parser's scores: ``overall``, ``by_type``, ``type_accuracy``, per ``dataset``,
    and ``timing`` (citations, seconds, per_second)."""
    report: dict[str, Any] = results.summary()
    report["dataset"] = {d: results.summary(d) for d in datasets}
    rate = results.count / results.seconds if results.seconds else 0.0
    report["timing"] = {"citations": results.count, "seconds": results.seconds, "per_second": rate}
    return report


def combined_report(reports: Mapping[str, Mapping[str, Any]], default: str) -> dict[str, Any]:
    """The ``--json`` document: the default parser's report at the top level (the shape
    a single-parser run always had), every parser's under ``parsers`` and the default's
    name under ``default``."""
    top = dict(reports[default]) if default in reports else dict(next(iter(reports.values())))
    top["default"] = default if default in reports else next(iter(reports))
    top["parsers"] = {name: dict(report) for name, report in reports.items()}
    return top


def format_side_by_side(reports: Mapping[str, Mapping[str, Any]]) -> str:
    """F1 of every field, type accuracy, title F1 by type and speed, one column per
    parser."""
    names = list(reports)
    head = " ".join(f"{n:>9}" for n in names)
    lines = ["== side by side (F1 on the validation split)", f"{'field':<16} {head}"]
    first = reports[names[0]]
    for name in FIELDS:
        if not first["overall"][name]["support"]:
            continue
        cells = " ".join(f"{_pct(reports[n]['overall'][name]['f1']):>9}" for n in names)
        lines.append(f"{name:<16} {cells}")
    cells = " ".join(f"{_pct(reports[n]['type_accuracy']['overall']):>9}" for n in names)
    lines.append(f"{'type accuracy':<16} {cells}")
    for type_ in first["by_type"]:
        for name in ("title", "container"):
            if not first["by_type"][type_][name]["support"]:
                continue
            cells = " ".join(
                f"{_pct(reports[n]['by_type'][type_][name]['f1']):>9}" for n in names
            )
            lines.append(f"{name + ' ' + type_:<16} {cells}")
        cells = " ".join(f"{_pct(reports[n]['type_accuracy'][type_]):>9}" for n in names)
        lines.append(f"{'type acc ' + type_:<16} {cells}")
    cells = " ".join(f"{reports[n]['timing']['per_second']:>9,.0f}" for n in names)
    lines.append(f"{'references/s':<16} {cells}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bench; 0 on success, 2 when the data folder is missing."""
    parser = argparse.ArgumentParser(prog="verifier bench parsing",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="shared data folder")
    parser.add_argument("--json", type=result_file, help="write the scores as JSON to this file")
    parser.add_argument("--limit", type=int, help="first N rows of each dataset only")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N")
    parser.add_argument("--dataset", choices=DATASETS, action="append")
    parser.add_argument("--parser", choices=list(PARSERS), action="append", dest="parsers")
    parser.add_argument("--field", choices=MAIN_FIELDS, help="misses of this field only")
    parser.add_argument("--type", choices=TYPES, dest="type_", help="misses of this type only")
    args = parser.parse_args(argv)
    datasets = args.dataset or list(DATASETS)
    chosen = args.parsers or list(PARSERS)
    try:
        rows = {dataset: load(args.data, dataset, args.limit) for dataset in datasets}
    except FileNotFoundError as error:
        print(f"data not found: {error.filename} (use --data DIR)", file=sys.stderr)
        return 2
    results = {name: Results() for name in chosen}
    for name in chosen:
        for dataset in datasets:
            run(rows[dataset], results[name], PARSERS[name])
    reports = {name: parser_report(results[name], datasets) for name in chosen}
    report = combined_report(reports, DEFAULT_PARSER)
    shown = report["default"]
    for dataset in datasets:
        print(format_summary(f"{shown}: {dataset}", reports[shown]["dataset"][dataset]), end="\n\n")
    for name in chosen:
        print(format_summary(f"{name}: overall", reports[name]), end="\n\n")
    print(format_side_by_side(reports))
    for name in chosen:
        timing = reports[name]["timing"]
        print(
            f"{name}: parsed {timing['citations']} citations in {timing['seconds']:.2f} s "
            f"({timing['per_second']:,.0f}/s)"
        )
    if args.show_misses:
        print(format_misses(results[shown].misses, args.show_misses, args.field, args.type_))
    if args.json:
        write_result(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
