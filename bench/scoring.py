"""Scoring of a labelled benchmark run, and the rate-limit lower bound of its wall time.

Pure functions over plain values, so they are tested on their own (tests/test_bench_scoring.py)
and shared by every bench script.

Scoring rule (the benchmark's, fixed before any run): a citation counts as recognised
real only when its status is ``verified``; every other status (``unconfirmed``,
``no_trace``, ``inconclusive``) counts as a prediction of "fabricated". The alternative
scoring also accepts ``unconfirmed`` as real.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

TYPES: tuple[str, ...] = ("article", "book", "chapter", "web_other", "all")
W_AND_W_TYPES: Mapping[str, str] = {"A": "article", "B": "book", "C": "chapter", "W": "web_other"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One labelled citation and the engine's status for it."""

    id: str
    type: str
    """One of TYPES except "all"."""
    fabricated: bool
    status: str


def predicted_real(status: str, *, accept_unconfirmed: bool = False) -> bool:
    return status == "verified" or (accept_unconfirmed and status == "unconfirmed")


def table(
    outcomes: Iterable[Outcome], *, accept_unconfirmed: bool = False
) -> dict[str, dict[str, float | int]]:
    """Per type and "all": citations, fabricated, fabricated_caught, real_recognized
    (both as fractions of their class) and accuracy (fraction of citations right)."""
    counts: dict[str, Counter[str]] = {t: Counter() for t in TYPES}
    for outcome in outcomes:
        real = predicted_real(outcome.status, accept_unconfirmed=accept_unconfirmed)
        for kind in (outcome.type, "all"):
            c = counts[kind]
            c["citations"] += 1
            if outcome.fabricated:
                c["fabricated"] += 1
                c["caught"] += not real
            else:
                c["real"] += 1
                c["recognized"] += real
    result: dict[str, dict[str, float | int]] = {}
    for kind, c in counts.items():
        right = c["caught"] + c["recognized"]
        result[kind] = {
            "citations": c["citations"],
            "fabricated": c["fabricated"],
            "fabricated_caught": _ratio(c["caught"], c["fabricated"]),
            "real_recognized": _ratio(c["recognized"], c["real"]),
            "accuracy": _ratio(right, c["citations"]),
        }
    return result


def ceiling(
    labelled: Iterable[tuple[str, str, bool]], holders: Mapping[str, int], *, needed: int = 2
) -> dict[str, float]:
    """The coverage ceiling per type and "all": the share of citations the two-source rule
    could get right given which databases hold each work. ``labelled`` gives (id, type,
    fabricated); ``holders`` the number of sources holding each real citation's work (a
    real citation absent from it is held by none). A fabricated citation can always be
    right (caught); a real one only when at least ``needed`` sources hold its work."""
    counts: dict[str, Counter[str]] = {t: Counter() for t in TYPES}
    for cid, kind, fabricated in labelled:
        possible = fabricated or holders.get(cid, 0) >= needed
        for key in (kind, "all"):
            counts[key]["n"] += 1
            counts[key]["possible"] += possible
    return {kind: _ratio(c["possible"], c["n"]) for kind, c in counts.items()}


def with_ceiling(rows: Mapping[str, Mapping[str, float | int]], ceilings: Mapping[str, float]
                 ) -> dict[str, dict[str, float | int]]:
    """``rows`` (a :func:`table`) with ``ceiling`` and ``accuracy_over_ceiling`` per type."""
    out: dict[str, dict[str, float | int]] = {}
    for kind, row in rows.items():
        cap = ceilings.get(kind, 0.0)
        out[kind] = {**row, "ceiling": cap,
                     "accuracy_over_ceiling": _ratio_f(float(row["accuracy"]), cap)}
    return out


def _ratio_f(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def status_counts(outcomes: Iterable[Outcome]) -> dict[str, int]:
    counts = Counter(o.status for o in outcomes)
    return {s: counts.get(s, 0) for s in ("verified", "unconfirmed", "no_trace", "inconclusive")}


def lower_bound_s(
    requests: Mapping[tuple[str, str], int], rates: Mapping[tuple[str, str], float]
) -> tuple[float, str]:
    """The least wall time the run's requests allow: for each (source, rate class), its
    requests divided by its permitted rate per second; the bound is the largest. Returns
    the bound and the (source/class) that sets it."""
    bound, where = 0.0, ""
    for key, count in requests.items():
        rate = rates.get(key)
        if not rate:
            continue
        seconds = count / rate
        if seconds > bound:
            bound, where = seconds, f"{key[0]}/{key[1]}"
    return bound, where


def status_changes(
    before: Mapping[str, str], after: Mapping[str, str]
) -> dict[str, int]:
    """How many citations moved from one status to another ("verified->inconclusive")."""
    changes: Counter[str] = Counter()
    for cid, old in before.items():
        new = after.get(cid)
        if new is not None and new != old:
            changes[f"{old}->{new}"] += 1
    return dict(sorted(changes.items()))


def markdown_table(rows: Mapping[str, Mapping[str, float | int]],
                   alternative: Mapping[str, Mapping[str, float | int]] | None = None) -> str:
    """The benchmark table in the issue's form (rates as percentages)."""
    head = "| Type | Citations | Fabricated | Fabricated caught | Real recognized | Accuracy |"
    if alternative is not None:
        head += " Accuracy (unconfirmed = real) |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    names = {"article": "Articles", "book": "Books", "chapter": "Chapters",
             "web_other": "Web and other", "all": "All"}
    for kind in TYPES:
        r = rows[kind]
        line = (f"| {names[kind]} | {r['citations']} | {r['fabricated']} | "
                f"{r['fabricated_caught']:.1%} | {r['real_recognized']:.1%} | "
                f"{r['accuracy']:.1%} |")
        if alternative is not None:
            line += f" {alternative[kind]['accuracy']:.1%} |"
        lines.append(line)
    return "\n".join(lines)
