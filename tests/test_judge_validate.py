"""The judge spec's post-validation of model answers."""

from __future__ import annotations

import pytest

from verifier.judge.models import ClaimMapping, CritiqueType, Stance
from verifier.judge.validate import (
    MAX_CLAIMS,
    ParsedBatch,
    Rejected,
    validate_claims,
    validate_mapping,
    validate_parsed,
    validate_type,
)

IDS = {"p1:claim-1", "p1:claim-2"}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"claim_id": "p1:claim-2", "stance": "CRITICAL", "is_consequential": True},
         ClaimMapping("p1:claim-2", Stance.CRITICAL, True)),
        # Unknown claim id → null, and with it stance and consequence.
        ({"claim_id": "p1:claim-9", "stance": "CRITICAL", "is_consequential": True},
         ClaimMapping(None, None, None)),
        ({"claim_id": None, "stance": "SUPPORTIVE", "is_consequential": False},
         ClaimMapping(None, None, None)),
        ({"claim_id": 2, "stance": "CRITICAL"}, ClaimMapping(None, None, None)),
        # Invalid stance → null; the claim stays.
        ({"claim_id": "p1:claim-1", "stance": "HOSTILE", "is_consequential": True},
         ClaimMapping("p1:claim-1", None, True)),
        ({"claim_id": "p1:claim-1", "stance": 3, "is_consequential": True},
         ClaimMapping("p1:claim-1", None, True)),
        # Stances are compared after stripping and upper-casing.
        ({"claim_id": "p1:claim-1", "stance": " supportive ", "is_consequential": False},
         ClaimMapping("p1:claim-1", Stance.SUPPORTIVE, False)),
        # Consequence with a claim: missing → false; invalid → false; "true" accepted.
        ({"claim_id": "p1:claim-1", "stance": "NEUTRAL"},
         ClaimMapping("p1:claim-1", Stance.NEUTRAL, False)),
        ({"claim_id": "p1:claim-1", "stance": "NEUTRAL", "is_consequential": "maybe"},
         ClaimMapping("p1:claim-1", Stance.NEUTRAL, False)),
        ({"claim_id": "p1:claim-1", "stance": "NEUTRAL", "is_consequential": "True"},
         ClaimMapping("p1:claim-1", Stance.NEUTRAL, True)),
        ({"claim_id": "p1:claim-1", "stance": "NEUTRAL", "is_consequential": 1},
         ClaimMapping("p1:claim-1", Stance.NEUTRAL, False)),
    ],
)
def test_mapping_post_validation(answer: dict[str, object], expected: ClaimMapping) -> None:
    assert validate_mapping(answer, IDS) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [("validity", CritiqueType.VALIDITY), ("Clarity ", CritiqueType.CLARITY),
     ("transparency", CritiqueType.TRANSPARENCY), ("novelty", None), (None, None), (3, None)],
)
def test_critique_type_post_validation(value: object, expected: CritiqueType | None) -> None:
    assert validate_type(value) is expected


def test_claims_get_ids_from_code_and_at_most_seven_are_kept() -> None:
    answer = [{"summary": f"claim {i}", "source_excerpt": "..." if i % 2 else ""}
              for i in range(1, 10)]
    answer.insert(0, {"summary": "   ", "source_excerpt": "dropped: no summary"})
    claims = validate_claims(answer, "elife-1")
    assert not isinstance(claims, Rejected)
    assert len(claims) == MAX_CLAIMS
    assert [c.claim_id for c in claims[:2]] == ["elife-1:claim-1", "elife-1:claim-2"]
    assert claims[0].summary == "claim 1" and claims[1].source_excerpt is None


@pytest.mark.parametrize("answer", [[], {"claims": []}, "text", [{"summary": None}], [1, 2]])
def test_an_empty_or_invalid_claims_answer_is_rejected(answer: object) -> None:
    assert isinstance(validate_claims(answer, "p"), Rejected)


def test_parsed_comments_fields_are_text_or_null_and_bad_indices_dropped() -> None:
    answer = [
        {"comment_index": 2, "anchor": "Figure 3", "specification": "n is unclear",
         "justification": "", "remedy": None},
        {"comment_index": 1, "anchor": 7, "specification": "  x  ", "justification": "why",
         "remedy": "fix"},
        {"comment_index": 2, "anchor": "repeat"},
        {"comment_index": 0, "anchor": "out of range"},
        {"comment_index": True, "anchor": "a bool is not an index"},
        {"comment_index": "3", "anchor": "a string is not an index"},
    ]
    got = validate_parsed(answer, batch_size=4)
    assert isinstance(got, ParsedBatch)
    assert [c.comment_index for c in got.comments] == [1, 2]
    first, second = got.comments
    assert (first.anchor, first.specification, first.remedy) == (None, "x", "fix")
    assert (second.anchor, second.justification, second.remedy) == ("Figure 3", None, None)
    assert len(got.dropped) == 4 and "repeated" in got.dropped[0]
    assert got.missing == (3, 4)


@pytest.mark.parametrize("answer", [[], None, {"comment_index": 1},
                                    [{"comment_index": 5, "anchor": "x"}]])
def test_an_empty_or_unusable_parsed_batch_is_rejected(answer: object) -> None:
    assert isinstance(validate_parsed(answer, batch_size=3), Rejected)
