"""The offline chat model: each task's heuristic and the JSON shape the pipelines read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from verifier.llm.offline import (
    OfflineChatModel,
    UnsupportedTask,
    decompose,
    extract_claims,
    map_comments,
    parse_comments,
    task_message,
    type_critiques,
)
from verifier.llm.offline.chat import read_list
from verifier.llm.offline.text import estimate_tokens
from verifier.llm.types import ChatMessage, Role

PAPER = """Sparse Attention for Long Documents
A. Author, B. Author
Abstract
Long documents are costly for transformers. We show that sparse attention cuts memory use by
40% without loss of accuracy. The models were trained on eight GPUs. Our results indicate that
sparse attention improves summarisation quality on three benchmarks. Future work may extend
this to speech.
1 Introduction
Transformers scale quadratically with sequence length, which limits them on long documents.
Many approximations have been proposed for efficient attention in recent years. We find that
a fixed sparse pattern outperforms learned patterns on long inputs. Table 1 lists the data.
"""
COMMENTS = [
    "The claim in Section 4.2 that sparse attention improves summarisation is not supported, "
    "because only one seed is reported. The authors should report several seeds.",
    "The memory results for sparse attention are convincing, and the paper reads well.",
    "Please fix the typo on line 12.",
]
CLAIMS = [{"claim_id": "p:claim-1", "summary": "Sparse attention improves summarisation quality"},
          {"claim_id": "p:claim-2", "summary": "Sparse attention cuts memory use by 40%"}]
MODEL = OfflineChatModel()


def ask(task: str, **sections: str) -> dict[str, Any]:
    result = MODEL.complete([ChatMessage(Role.SYSTEM, "Answer in JSON."),
                             ChatMessage(Role.USER, task_message(task, **sections))])
    assert result.backend == "offline" and result.finish_reason == "stop"
    answer = json.loads(result.text)
    assert isinstance(answer, dict)
    return answer


def is_text_or_null(value: object) -> bool:
    return value is None or (isinstance(value, str) and bool(value.strip()))


# ---------------------------------------------------------------------------------------
# Decomposition


def test_decompose_keeps_declarative_sentences_and_drops_questions_and_hedges() -> None:
    premises = decompose("I think the baseline is weak; the authors only compare to BERT. "
                         "Why not RoBERTa? However, the gains in Table 2 are within noise.")
    assert premises == ["The baseline is weak.", "The authors only compare to BERT.",
                        "The gains in Table 2 are within noise."]


def test_decompose_caps_at_six_and_never_returns_nothing_for_a_real_comment() -> None:
    many = " ".join(f"Experiment {i} lacks a proper baseline." for i in range(9))
    assert len(decompose(many)) == 6
    assert decompose("Why?") == ["Why?"]
    assert decompose("   ") == []


def test_the_decompose_task_answers_a_list_of_premises() -> None:
    answer = ask("decompose", comment=COMMENTS[0])
    assert set(answer) == {"premises"}
    assert 1 <= len(answer["premises"]) <= 6
    assert all(isinstance(p, str) and p.endswith(".") for p in answer["premises"])
    assert answer["premises"][0].startswith("The claim in Section 4.2")


# ---------------------------------------------------------------------------------------
# Claim extraction


def test_extract_claims_picks_finding_sentences_of_the_opening_in_order() -> None:
    claims = extract_claims(PAPER)
    assert 3 <= len(claims) <= 7
    excerpts = [claim["source_excerpt"] for claim in claims]
    assert all(excerpt in " ".join(PAPER.split()) or excerpt in PAPER for excerpt in excerpts)
    assert any("cuts memory use by 40%" in e for e in excerpts)
    assert not any("trained on eight GPUs" in e for e in excerpts)   # a method detail
    assert [PAPER.index(e.split()[0] + " " + e.split()[1]) for e in excerpts] == sorted(
        PAPER.index(e.split()[0] + " " + e.split()[1]) for e in excerpts)
    first = next(c for c in claims if "40%" in c["source_excerpt"])
    assert first["summary"].startswith("Sparse attention cuts memory")   # "We show that" cut


def test_the_extract_claims_task_answers_summary_and_excerpt_objects() -> None:
    answer = ask("extract_claims", paper=PAPER)
    assert set(answer) == {"claims"} and 3 <= len(answer["claims"]) <= 7
    for claim in answer["claims"]:
        assert set(claim) == {"summary", "source_excerpt"}
        assert all(isinstance(v, str) and v for v in claim.values())


# ---------------------------------------------------------------------------------------
# Comment parsing, mapping, typing


def test_parse_comments_finds_anchor_issue_reason_and_fix() -> None:
    first, second, third = parse_comments(COMMENTS)
    assert first["comment_index"] == 1 and first["anchor"] == "Section 4.2"
    assert first["specification"].startswith("The claim in Section 4.2")
    assert first["justification"] == "because only one seed is reported."
    assert first["remedy"] == "The authors should report several seeds."
    assert second["anchor"] is None and second["remedy"] is None
    assert third["anchor"] == "line 12" and third["remedy"] == "Please fix the typo on line 12."
    assert third["specification"] is None


def test_map_comments_points_to_the_closest_claim_with_a_stance() -> None:
    claims = {c["claim_id"]: c["summary"] for c in CLAIMS}
    first, second, third = map_comments(COMMENTS, claims)
    assert first == {"comment_index": 1, "claim_id": "p:claim-1", "stance": "CRITICAL",
                     "is_consequential": True}
    assert second["claim_id"] == "p:claim-2" and second["stance"] == "SUPPORTIVE"
    assert second["is_consequential"] is False
    assert third == {"comment_index": 3, "claim_id": None, "stance": None,
                     "is_consequential": None}


def test_type_critiques_uses_the_cue_tables() -> None:
    assert [t["type"] for t in type_critiques(COMMENTS)] == ["validity", None, "clarity"]
    assert type_critiques(["Lovely."]) == [{"comment_index": 1, "type": None}]


@pytest.mark.parametrize("task, key, fields", [
    ("parse_comments", "comments",
     {"comment_index", "anchor", "specification", "justification", "remedy"}),
    ("map_comments", "mappings", {"comment_index", "claim_id", "stance", "is_consequential"}),
    ("type_critiques", "types", {"comment_index", "type"}),
])
def test_the_comment_tasks_answer_one_valid_record_per_comment(
        task: str, key: str, fields: set[str]) -> None:
    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(COMMENTS, 1))
    sections = {"comments": numbered}
    if task == "map_comments":
        sections["claims"] = json.dumps(CLAIMS)
    answer = ask(task, **sections)
    assert set(answer) == {key}
    records = answer[key]
    assert [r["comment_index"] for r in records] == [1, 2, 3]
    for record in records:
        assert set(record) == fields
        for name in fields - {"comment_index", "stance", "is_consequential", "claim_id"}:
            assert is_text_or_null(record[name])
        if task == "map_comments":
            assert record["claim_id"] in {None, "p:claim-1", "p:claim-2"}
            assert record["stance"] in {None, "SUPPORTIVE", "CRITICAL", "NEUTRAL"}
            assert (record["stance"] is None) == (record["claim_id"] is None)
            assert (record["is_consequential"] is None) == (record["claim_id"] is None)
        if task == "type_critiques":
            assert record["type"] in {None, "validity", "sufficiency", "contribution",
                                      "clarity", "transparency"}


# ---------------------------------------------------------------------------------------
# Dispatch


def test_lists_are_read_as_json_or_numbered_lines_with_continuations() -> None:
    assert read_list('["a b", "c"]') == ["a b", "c"]
    assert read_list("1. first\n   goes on\n2) second\n[3] third") == [
        "first goes on", "second", "third"]


def test_the_task_line_may_sit_in_the_system_message_and_untagged_input_is_read() -> None:
    result = MODEL.complete([ChatMessage(Role.SYSTEM, "You split comments.\ntask: decompose"),
                             ChatMessage(Role.USER, "The ablation lacks a baseline.")])
    assert json.loads(result.text) == {"premises": ["The ablation lacks a baseline."]}
    assert result.usage.prompt_tokens == (estimate_tokens("You split comments.\ntask: decompose")
                                          + estimate_tokens("The ablation lacks a baseline."))
    assert result.usage.completion_tokens == estimate_tokens(result.text)


def test_a_request_without_a_known_task_is_refused_loudly() -> None:
    with pytest.raises(UnsupportedTask):
        MODEL.complete([ChatMessage(Role.USER, "Summarise this paper.")])
    with pytest.raises(UnsupportedTask):
        MODEL.complete([ChatMessage(Role.USER, "task: write_poem\nAbout cats.")])
    with pytest.raises(UnsupportedTask):
        MODEL.complete([ChatMessage(Role.USER, task_message("map_comments", comments="1. x"))])
    with pytest.raises(UnsupportedTask):
        MODEL.complete([ChatMessage(Role.USER, task_message(
            "map_comments", comments="1. x", claims="not json"))])


def test_the_same_request_gives_the_same_text() -> None:
    messages = [ChatMessage(Role.USER, task_message("extract_claims", paper=PAPER))]
    assert MODEL.complete(messages) == OfflineChatModel().complete(messages)
