"""FactReview's claim-status program: every rule, every precedence tie, every gate level."""

from __future__ import annotations

import pytest

from verifier.claims.status import (
    GATES,
    Claim,
    ClaimStatus,
    Direction,
    Evidence,
    EvidenceSource,
    Gate,
    Pointer,
    PointerKind,
    PremiseThresholds,
    Rule,
    assess,
    gate_passes,
    pointer_is_verifiable,
    premise_evidence,
)

S, Q, F, U = (ClaimStatus.SUPPORTED, ClaimStatus.QUESTIONED, ClaimStatus.FLAWED,
              ClaimStatus.UNVERIFIED)
PAPER, CODE, EXEC, LIT = (EvidenceSource.PAPER, EvidenceSource.CODE, EvidenceSource.EXECUTION,
                          EvidenceSource.LITERATURE)
QUOTE = Pointer(PointerKind.QUOTE, "p. 4", "Table 2 shows a 3.1 point gain.")


def item(direction: Direction, *conditions: str, sufficient: bool = True,
         decisive: bool = False, source: EvidenceSource = PAPER,
         pointer: Pointer | None = QUOTE, name: str = "") -> Evidence:
    return Evidence(source=source, pointer=pointer, direction=direction, sufficient=sufficient,
                    conditions=frozenset(conditions), decisive=decisive, item_id=name)


def sup(*conditions: str, **kw: object) -> Evidence:
    return item(Direction.SUPPORT, *conditions, **kw)  # type: ignore[arg-type]


def flaw(*conditions: str, **kw: object) -> Evidence:
    return item(Direction.FLAW, *conditions, **kw)  # type: ignore[arg-type]


def claim(*conditions: str, needs: tuple[EvidenceSource, ...] = (PAPER,)) -> Claim:
    return Claim("The method beats the baseline.", "Section 4", frozenset(conditions),
                 frozenset(needs))


AB = claim("dataset A", "dataset B")

CASES = [
    # (name, claim, evidence, status, rule) under the Moderate gate
    ("no evidence at all", claim(), [], U, Rule.OTHERWISE),
    ("one sufficient support, unconditional claim", claim(), [sup()], S, Rule.FULL_SUPPORT),
    ("insufficient support", claim(), [sup(sufficient=False)], U, Rule.OTHERWISE),
    ("support without a pointer is never sufficient", claim(), [sup(pointer=None)], U,
     Rule.OTHERWISE),
    ("support whose DOI pointer is malformed", claim(),
     [sup(pointer=Pointer(PointerKind.DOI, "not-a-doi", "passage"))], U, Rule.OTHERWISE),
    ("support whose quote has no passage", claim(),
     [sup(pointer=Pointer(PointerKind.QUOTE, "p. 3", " "))], U, Rule.OTHERWISE),
    ("a sufficient, non-decisive flaw", claim(), [flaw()], Q, Rule.CONCERN),
    ("a decisive sufficient flaw", claim(), [flaw(decisive=True)], F, Rule.DECISIVE_FLAW),
    ("a decisive flaw without a pointer is only a concern", claim(),
     [flaw(decisive=True, pointer=None)], Q, Rule.CONCERN),
    ("a decisive flaw marked insufficient is only a concern", claim(),
     [flaw(decisive=True, sufficient=False)], Q, Rule.CONCERN),
    ("a concern outranks full support (rule 4 before 5)", claim(),
     [sup(), flaw(sufficient=False)], Q, Rule.CONCERN),
    ("conflict outranks a decisive flaw (rule 2 before 3)", claim(),
     [sup(), flaw(decisive=True)], Q, Rule.CONFLICT),
    ("conflict on a shared condition", AB, [sup("dataset A"), flaw("dataset A")], Q,
     Rule.CONFLICT),
    ("support and decisive flaw on different conditions: flawed", AB,
     [sup("dataset A"), flaw("dataset B", decisive=True)], F, Rule.DECISIVE_FLAW),
    ("support and plain flaw on different conditions: questioned, not a conflict", AB,
     [sup("dataset A"), flaw("dataset B")], Q, Rule.CONCERN),
    ("whole-claim support conflicts with a flaw on one condition", AB,
     [sup(), flaw("dataset B")], Q, Rule.CONFLICT),
    ("an insufficient support never conflicts", AB,
     [sup("dataset A", sufficient=False), flaw("dataset A", decisive=True)], F,
     Rule.DECISIVE_FLAW),
    ("partial coverage never gives supported", AB, [sup("dataset A")], U, Rule.OTHERWISE),
    ("two supports whose union covers every condition", AB,
     [sup("dataset A"), sup("dataset B")], S, Rule.FULL_SUPPORT),
    ("a support with no conditions covers every condition", AB, [sup()], S, Rule.FULL_SUPPORT),
    ("a flaw on a condition outside the claim is a note", AB,
     [sup(), flaw("dataset C", decisive=True)], S, Rule.FULL_SUPPORT),
    ("a support outside the claim's conditions is a note", AB, [sup("dataset C")], U,
     Rule.OTHERWISE),
    ("any flaw speaks to an unconditional claim", claim(), [sup(), flaw("dataset C")], Q,
     Rule.CONFLICT),
    ("support from a source the claim does not need passes no check", claim(),
     [sup(source=LIT)], U, Rule.OTHERWISE),
    ("a claim with no applicable checks stays unverified", claim(needs=()), [sup()], U,
     Rule.OTHERWISE),
    ("a file:line pointer without a line number is unverifiable", claim(needs=(CODE,)),
     [sup(source=CODE, pointer=Pointer(PointerKind.FILE_LINE, "src/model.py"))], U,
     Rule.OTHERWISE),
    ("a file:line pointer with a line range", claim(needs=(CODE,)),
     [sup(source=CODE, pointer=Pointer(PointerKind.FILE_LINE, "src/model.py:10-24"))], S,
     Rule.FULL_SUPPORT),
]


@pytest.mark.parametrize(("name", "the_claim", "evidence", "status", "rule"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_status_rules_in_order(name: str, the_claim: Claim, evidence: list[Evidence],
                                   status: ClaimStatus, rule: Rule) -> None:
    got = assess(the_claim, evidence, Gate.MODERATE)
    assert (got.status, got.rule) == (status, rule)


def test_notes_are_reported_and_never_decide() -> None:
    note = flaw("dataset C", decisive=True, name="off-topic")
    got = assess(AB, [sup(name="s"), note])
    assert got.notes == (note,)
    assert note not in got.deciding


def test_the_deciding_items_are_the_ones_that_made_the_rule_fire() -> None:
    s, x, n = sup("dataset A", name="s"), flaw("dataset A", name="x"), flaw("dataset B", name="n")
    got = assess(AB, [s, x, n])
    assert got.rule is Rule.CONFLICT
    assert set(got.deciding) == {s, x}
    d = flaw("dataset B", decisive=True, name="d")
    got = assess(AB, [sup("dataset A", name="s"), d, flaw("dataset A", sufficient=False)])
    assert got.deciding == (d,)


NEEDS3 = (PAPER, CODE, EXEC)
CODE_PTR = Pointer(PointerKind.FILE_LINE, "train.py:88")
LOG_PTR = Pointer(PointerKind.LOG, "runs/seed0/train.log")
PAPER_ONLY = [sup()]
PAPER_CODE = [sup(), sup(source=CODE, pointer=CODE_PTR)]
ALL_THREE = [*PAPER_CODE, sup(source=EXEC, pointer=LOG_PTR)]


@pytest.mark.parametrize(
    ("evidence", "lenient", "moderate", "strict"),
    [
        (PAPER_ONLY, S, U, U),  # n = 1 of m = 3; Moderate needs ⌈2·3/3⌉ = 2
        (PAPER_CODE, S, S, U),  # n = 2 of 3
        (ALL_THREE, S, S, S),  # n = 3 of 3
        # Two items from one source are one check.
        ([sup(), sup(name="again")], S, U, U),
        # An execution log with no path is no pointer: that check is not sufficient.
        ([*PAPER_CODE, sup(source=EXEC, pointer=Pointer(PointerKind.LOG, ""))], S, S, U),
    ],
)
def test_gate_levels_over_three_checks(evidence: list[Evidence], lenient: ClaimStatus,
                                       moderate: ClaimStatus, strict: ClaimStatus) -> None:
    c = claim(needs=NEEDS3)
    assert [assess(c, evidence, g).status for g in (Gate.LENIENT, Gate.MODERATE, Gate.STRICT)] \
        == [lenient, moderate, strict]
    got = assess(c, evidence, Gate.STRICT)
    assert got.checks == 3


@pytest.mark.parametrize(
    ("m", "moderate_needs"),
    [(1, 1), (2, 2), (3, 2), (4, 3), (5, 4), (6, 4), (7, 5), (9, 6)],
)
def test_moderate_needs_two_thirds_rounded_up(m: int, moderate_needs: int) -> None:
    assert GATES[Gate.MODERATE](m) == moderate_needs
    assert gate_passes(Gate.MODERATE, moderate_needs, m)
    assert not gate_passes(Gate.MODERATE, moderate_needs - 1, m)
    assert gate_passes(Gate.LENIENT, 1, m) and not gate_passes(Gate.LENIENT, 0, m)
    assert gate_passes(Gate.STRICT, m, m) and not gate_passes(Gate.STRICT, m - 1, m)


@pytest.mark.parametrize("gate", list(Gate))
def test_no_applicable_check_never_passes_a_gate(gate: Gate) -> None:
    assert not gate_passes(gate, 0, 0)
    assert assess(claim(needs=()), [sup()], gate).status is U


@pytest.mark.parametrize(
    ("pointer", "verifiable"),
    [
        (Pointer(PointerKind.QUOTE, "p. 2", "the quote"), True),
        (Pointer(PointerKind.QUOTE, "", "the quote"), False),
        (Pointer(PointerKind.DOI, "10.1038/nature12373", "passage"), True),
        (Pointer(PointerKind.DOI, "10.1038/nature12373", ""), False),
        (Pointer(PointerKind.DOI, "nature12373", "passage"), False),
        (Pointer(PointerKind.FILE_LINE, "a/b.py:7"), True),
        (Pointer(PointerKind.FILE_LINE, "a/b.py:x"), False),
        (Pointer(PointerKind.LOG, "logs/run.txt"), True),
        (Pointer(PointerKind.LOG, "  "), False),
        (Pointer(PointerKind.PREMISE, "c1:p2", "Table 3 reports 71.2."), True),
        (Pointer(PointerKind.PREMISE, "c1:p2", ""), False),
        (None, False),
    ],
)
def test_which_pointers_are_verifiable(pointer: Pointer | None, verifiable: bool) -> None:
    assert pointer_is_verifiable(pointer) is verifiable


@pytest.mark.parametrize(
    ("p_true", "direction", "sufficient"),
    [
        (0.95, Direction.SUPPORT, True),
        (0.8, Direction.SUPPORT, True),  # the support threshold is inclusive
        (0.79, Direction.SUPPORT, False),
        (0.5, Direction.SUPPORT, False),  # 0.5 falls on the support side
        (0.49, Direction.FLAW, False),  # a concern
        (0.2, Direction.FLAW, True),  # the flaw threshold is inclusive
        (0.0, Direction.FLAW, True),
    ],
)
def test_a_premise_check_becomes_an_evidence_item(p_true: float, direction: Direction,
                                                  sufficient: bool) -> None:
    e = premise_evidence("c7:p1", p_true, "Table 2: 71.2 vs 70.9")
    assert (e.direction, e.sufficient) == (direction, sufficient)
    assert e.pointer == Pointer(PointerKind.PREMISE, "c7:p1", "Table 2: 71.2 vs 70.9")
    assert e.source is PAPER and e.item_id == "c7:p1"


def test_premise_evidence_feeds_the_program() -> None:
    c = claim()
    holds = premise_evidence("c1:p1", 0.9, "Section 4.2 reports the ablation.")
    fails = premise_evidence("c1:p2", 0.1, "Table 3 has no error bars.")
    assert assess(c, [holds]).status is S
    assert assess(c, [holds, fails]).rule is Rule.CONFLICT
    # No passage: the pointer cannot be followed, so the support is not sufficient.
    assert assess(c, [premise_evidence("c1:p1", 0.9, "")]).status is U
    knowledge = premise_evidence("c1:p3", 0.9, "textbook fact", paper_grounded=False)
    assert knowledge.source is LIT


def test_premise_thresholds_must_straddle_one_half() -> None:
    with pytest.raises(ValueError):
        PremiseThresholds(support=0.5, flaw=0.2)
    with pytest.raises(ValueError):
        premise_evidence("p", 1.2, "x")
    loose = PremiseThresholds(support=0.6, flaw=0.4)
    assert premise_evidence("p", 0.6, "x", thresholds=loose).sufficient
