"""FactReview's claim-status program: a fixed program, not a model, decides a claim's status.

A :class:`Claim` says under which ``conditions`` it is asserted and which kinds of evidence
(``needs``) it should be checked with. Each :class:`Evidence` item comes from a source
(paper, literature, theory, code, execution), carries a :class:`Pointer` to where it can be
checked, covers some of the claim's conditions, points one way (support or flaw) and is
marked sufficient or not by whoever produced it.

Definitions the rules use (all pure functions of the values):

- **Coverage.** The claim's universe is its conditions, or the single pseudo-condition
  :data:`WHOLE_CLAIM` when it has none. An item with no conditions covers the whole
  universe, and so does any item on a claim asserted without conditions (evidence under
  any condition speaks to an unconditional claim); otherwise an item covers its
  conditions that are in the universe.
- **Affects.** An item affects the claim when it covers at least one condition of the
  universe. An item that does not is a *note*: it is reported, never decides.
- **Effectively sufficient.** Marked sufficient *and* its pointer is verifiable
  (:func:`pointer_is_verifiable`). Evidence without a verifiable pointer is never sufficient.
- **Concern.** An affecting flaw that is not effectively sufficient.
- **Decisive.** A flaw whose producer marked it ``decisive`` (it refutes the claim as
  asserted, e.g. a reproduced counter-example), and that is effectively sufficient.
- **Checks and the gate.** The claim's applicable checks are its ``needs`` (m of them); a
  check is sufficient when an affecting, effectively sufficient support item comes from that
  source (n of them). :data:`GATES` says how many must be sufficient: Lenient n ≥ 1,
  Moderate n ≥ ⌈2m/3⌉, Strict n = m; with m = 0 no gate passes (the claim stays
  Unverified).

The rules (:data:`RULES`), first match wins, in FactReview's order:

1. notes are set aside (they never reach the rules below);
2. sufficient support and sufficient flaw covering a common condition → ``questioned``;
3. a decisive sufficient flaw → ``flawed``;
4. any concern, or any sufficient flaw → ``questioned``;
5. sufficient support covering every condition, and the gate passes → ``supported``;
6. otherwise → ``unverified``.

Partial coverage never gives ``supported``. :func:`premise_evidence` turns a premise
check's probability into an evidence item whose pointer is the premise id and passage.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum


class ClaimStatus(StrEnum):
    SUPPORTED = "supported"
    QUESTIONED = "questioned"
    FLAWED = "flawed"
    UNVERIFIED = "unverified"


class EvidenceSource(StrEnum):
    PAPER = "paper"
    LITERATURE = "literature"
    THEORY = "theory"
    CODE = "code"
    EXECUTION = "execution"


class Direction(StrEnum):
    SUPPORT = "support"
    FLAW = "flaw"


class PointerKind(StrEnum):
    QUOTE = "quote"
    """``location`` = the page (or section), ``passage`` = the quoted text."""
    DOI = "doi"
    """``location`` = the DOI, ``passage`` = the passage of that work."""
    FILE_LINE = "file_line"
    """``location`` = ``path:line`` (or ``path:first-last``)."""
    LOG = "log"
    """``location`` = the log file's path."""
    PREMISE = "premise"
    """``location`` = the premise id, ``passage`` = the paper passage it was checked on."""


class Gate(StrEnum):
    LENIENT = "lenient"
    MODERATE = "moderate"
    STRICT = "strict"


@dataclass(frozen=True, slots=True)
class Pointer:
    """Where an evidence item can be checked by a person."""

    kind: PointerKind
    location: str
    passage: str = ""


@dataclass(frozen=True, slots=True)
class Evidence:
    source: EvidenceSource
    pointer: Pointer | None
    direction: Direction
    sufficient: bool
    conditions: frozenset[str] = frozenset()
    """The claim conditions this item speaks to; empty = the claim as a whole."""
    decisive: bool = False
    """Flaws only: refutes the claim as asserted (not just weakens it)."""
    item_id: str = ""


@dataclass(frozen=True, slots=True)
class Claim:
    text: str
    location: str = ""
    conditions: frozenset[str] = frozenset()
    needs: frozenset[EvidenceSource] = frozenset({EvidenceSource.PAPER})
    """The applicable checks: the kinds of evidence this claim should be checked with."""
    core: bool = False


WHOLE_CLAIM = "<whole claim>"
"""The pseudo-condition of a claim asserted without conditions."""

_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_FILE_LINE = re.compile(r"^\S.*:\d+(-\d+)?$")

# Per pointer kind: (the location's pattern or None for "non-empty", the passage is required).
POINTER_RULES: dict[PointerKind, tuple[re.Pattern[str] | None, bool]] = {
    PointerKind.QUOTE: (None, True),
    PointerKind.DOI: (_DOI, True),
    PointerKind.FILE_LINE: (_FILE_LINE, False),
    PointerKind.LOG: (None, False),
    PointerKind.PREMISE: (None, True),
}


def pointer_is_verifiable(pointer: Pointer | None) -> bool:
    """True when a person could follow the pointer: a location in the shape its kind
    requires (:data:`POINTER_RULES`) and, where the kind requires one, a passage."""
    if pointer is None:
        return False
    pattern, needs_passage = POINTER_RULES[pointer.kind]
    location = pointer.location.strip()
    if not location or (pattern is not None and not pattern.match(location)):
        return False
    return not needs_passage or bool(pointer.passage.strip())


def universe(claim: Claim) -> frozenset[str]:
    return claim.conditions or frozenset({WHOLE_CLAIM})


def covered(item: Evidence, claim: Claim) -> frozenset[str]:
    """The conditions of the claim's universe that ``item`` covers."""
    whole = universe(claim)
    if not item.conditions or not claim.conditions:
        return whole
    return item.conditions & whole


def effectively_sufficient(item: Evidence) -> bool:
    return item.sufficient and pointer_is_verifiable(item.pointer)


def gate_passes(gate: Gate, sufficient_checks: int, checks: int) -> bool:
    """Lenient n ≥ 1, Moderate n ≥ ⌈2m/3⌉, Strict n = m; m = 0 never passes."""
    if checks == 0:
        return False
    return sufficient_checks >= GATES[gate](checks)


GATES: dict[Gate, Callable[[int], int]] = {
    Gate.LENIENT: lambda m: 1,
    Gate.MODERATE: lambda m: math.ceil(2 * m / 3),
    Gate.STRICT: lambda m: m,
}
"""Sufficient checks each gate requires out of m applicable checks (m ≥ 1)."""


@dataclass(frozen=True, slots=True)
class Facts:
    """What the rules look at, computed once from the claim and its affecting items."""

    claim: Claim
    gate: Gate
    supports: tuple[Evidence, ...]
    """Affecting, effectively sufficient support."""
    flaws: tuple[Evidence, ...]
    """Affecting, effectively sufficient flaws."""
    concerns: tuple[Evidence, ...]
    checks: int
    sufficient_checks: int


def _conflicts(f: Facts) -> tuple[Evidence, ...]:
    hit = [
        (s, x) for s in f.supports for x in f.flaws if covered(s, f.claim) & covered(x, f.claim)
    ]
    return tuple(dict.fromkeys(item for pair in hit for item in pair))


def _decisive(f: Facts) -> tuple[Evidence, ...]:
    return tuple(x for x in f.flaws if x.decisive)


def _concerns_or_flaws(f: Facts) -> tuple[Evidence, ...]:
    return f.concerns + f.flaws


def _full_support(f: Facts) -> tuple[Evidence, ...]:
    reached: set[str] = set()
    for s in f.supports:
        reached |= covered(s, f.claim)
    if reached < universe(f.claim) or not gate_passes(f.gate, f.sufficient_checks, f.checks):
        return ()
    return f.supports


def _always(f: Facts) -> tuple[Evidence, ...]:
    return f.supports + f.flaws + f.concerns


class Rule(StrEnum):
    CONFLICT = "conflicting sufficient support and flaw on the same conditions"
    DECISIVE_FLAW = "a decisive sufficient flaw"
    CONCERN = "a concern or a sufficient flaw"
    FULL_SUPPORT = "sufficient support covering every condition, gate passed"
    OTHERWISE = "nothing decides the claim"


RULES: tuple[tuple[Rule, Callable[[Facts], tuple[Evidence, ...]], ClaimStatus, bool], ...] = (
    # (rule, the items that make it fire, status, fires even with no items)
    (Rule.CONFLICT, _conflicts, ClaimStatus.QUESTIONED, False),
    (Rule.DECISIVE_FLAW, _decisive, ClaimStatus.FLAWED, False),
    (Rule.CONCERN, _concerns_or_flaws, ClaimStatus.QUESTIONED, False),
    (Rule.FULL_SUPPORT, _full_support, ClaimStatus.SUPPORTED, False),
    (Rule.OTHERWISE, _always, ClaimStatus.UNVERIFIED, True),
)
"""FactReview's rules 2–6 in order; rule 1 (notes) is applied before them."""


@dataclass(frozen=True, slots=True)
class Assessment:
    status: ClaimStatus
    rule: Rule
    deciding: tuple[Evidence, ...]
    """The items that made the rule fire (for ``unverified``: whatever affecting evidence
    there was)."""
    notes: tuple[Evidence, ...] = ()
    checks: int = 0
    sufficient_checks: int = 0
    gate: Gate = Gate.MODERATE


def assess(claim: Claim, evidence: Iterable[Evidence], gate: Gate = Gate.MODERATE) -> Assessment:
    """The claim's status under ``gate`` from its evidence, by :data:`RULES`."""
    items = tuple(evidence)
    notes = tuple(e for e in items if not covered(e, claim))
    affecting = [e for e in items if covered(e, claim)]
    supports = tuple(
        e for e in affecting if e.direction is Direction.SUPPORT and effectively_sufficient(e)
    )
    flaws = tuple(
        e for e in affecting if e.direction is Direction.FLAW and effectively_sufficient(e)
    )
    concerns = tuple(
        e for e in affecting if e.direction is Direction.FLAW and not effectively_sufficient(e)
    )
    sources = {e.source for e in supports}
    facts = Facts(
        claim=claim,
        gate=gate,
        supports=supports,
        flaws=flaws,
        concerns=concerns,
        checks=len(claim.needs),
        sufficient_checks=len(claim.needs & sources),
    )
    for rule, firing, status, unconditional in RULES:
        deciding = firing(facts)
        if deciding or unconditional:
            return Assessment(status, rule, deciding, notes, facts.checks,
                              facts.sufficient_checks, gate)
    raise AssertionError("the last rule always fires")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class PremiseThresholds:
    """How a premise check's P(true) becomes evidence: at or above ``support`` a sufficient
    support; at or below ``flaw`` a sufficient flaw; in between an insufficient item on the
    side of 0.5 it falls (an insufficient flaw is a concern)."""

    support: float = 0.8
    flaw: float = 0.2

    def __post_init__(self) -> None:
        if not 0.0 <= self.flaw < 0.5 < self.support <= 1.0:
            raise ValueError("need 0 <= flaw < 0.5 < support <= 1")


def premise_evidence(
    premise_id: str,
    p_true: float,
    passage: str,
    *,
    paper_grounded: bool = True,
    conditions: frozenset[str] = frozenset(),
    thresholds: PremiseThresholds | None = None,
) -> Evidence:
    """A premise check as an evidence item: source ``paper`` when the premise was checked
    against the paper, ``literature`` when from general knowledge; the pointer is the
    premise id and the passage it was checked on (an empty passage makes it unverifiable,
    hence never sufficient)."""
    if not 0.0 <= p_true <= 1.0:
        raise ValueError(f"p_true must be in [0, 1], got {p_true}")
    t = thresholds or PremiseThresholds()
    direction = Direction.SUPPORT if p_true >= 0.5 else Direction.FLAW
    sufficient = p_true >= t.support or p_true <= t.flaw
    return Evidence(
        source=EvidenceSource.PAPER if paper_grounded else EvidenceSource.LITERATURE,
        pointer=Pointer(PointerKind.PREMISE, premise_id, passage),
        direction=direction,
        sufficient=sufficient,
        conditions=conditions,
        item_id=premise_id,
    )
