"""PremiseCheck's prompt files load, carry their version, and ask what their section says;
the paper is cut to its token budget by the documented rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.claims import prompt_files
from verifier.claims.aggregate import Field
from verifier.claims.paper_context import GAP, estimate_tokens, layout, paper_state
from verifier.claims.prompt_files import (
    DECOMPOSE_FILES,
    DECOMPOSE_PROMPTS,
    QUESTIONS,
    PromptFile,
    PromptFileError,
    parse_questions,
    read_prompt,
)
from verifier.llm.offline.decision import Intent, read_predicate

PROMPTS_DIR = Path(prompt_files.__file__).parent / "prompts"


def test_every_prompt_file_declares_its_own_name_as_its_version() -> None:
    files = sorted(PROMPTS_DIR.glob("*.txt"))
    assert {f.stem for f in files} >= {*DECOMPOSE_FILES.values(), prompt_files.QUESTIONS_FILE}
    for path in files:
        assert path.read_text(encoding="utf-8").startswith(f"version: {path.stem}\n")
        assert re.search(r"-v\d+$", path.stem)


def test_each_field_has_its_own_decomposition_prompt_with_the_task_line() -> None:
    assert {p.version for p in DECOMPOSE_PROMPTS.values()} == set(DECOMPOSE_FILES.values())
    for prompt in DECOMPOSE_PROMPTS.values():
        assert "\ntask: decompose\n" in prompt.text
    assert "1 to 4" in DECOMPOSE_PROMPTS[Field.MACHINE_LEARNING].text
    assert '"kind"' in DECOMPOSE_PROMPTS[Field.NATURAL_SCIENCE].text


def test_the_question_file_has_sixteen_phrasings_per_verifying_question() -> None:
    assert QUESTIONS.version == "questions-v1" and QUESTIONS.tag == "v1"
    assert QUESTIONS.max_phrasings == 16
    for section in (QUESTIONS.paper, QUESTIONS.contradiction, QUESTIONS.knowledge):
        assert len(set(section)) == len(section)


@pytest.mark.parametrize(("section", "intent"), [
    ("paper", Intent.SUPPORTED), ("knowledge", Intent.SUPPORTED),
    ("contradiction", Intent.CONTRADICTED), ("grounded", Intent.GROUNDED)])
def test_every_phrasing_asks_its_section_s_question_about_the_premise(
        section: str, intent: Intent) -> None:
    phrasings = getattr(QUESTIONS, section)
    for phrasing in (phrasings,) if isinstance(phrasings, str) else phrasings:
        asked, statement = read_predicate(phrasing.replace("{premise}", "The cells divide."))
        assert (asked, statement) == (intent, "The cells divide."), phrasing


def test_a_prompt_whose_version_line_disagrees_with_its_name_is_refused() -> None:
    with pytest.raises(FileNotFoundError):
        read_prompt("questions-v999")
    broken = PromptFile("questions-v1",
                        "version: questions-v1\n[paper]\nIs it? Premise: {premise}\n")
    with pytest.raises(PromptFileError, match="missing"):
        parse_questions(broken)


# -- the paper's truncation rule ------------------------------------------------------------

FILLER = " ".join(["Unrelated filler words about nothing in particular."] * 30)
LONG_PAPER = "\n\n".join([
    "# A long paper",
    "## Abstract",
    "We show that drug X lowers blood pressure in forty patients over twelve weeks.",
    "## Introduction", FILLER, FILLER,
    "## Methods", "Patients took drug X daily.", FILLER,
    "## Results", FILLER,
    "Table 3 lists adverse events: headache in four patients.",
    "Blood pressure fell by 12 mmHg with drug X against placebo.",
    "## Discussion", FILLER, FILLER,
])


def test_a_paper_within_the_budget_is_the_state_unchanged() -> None:
    assert paper_state(LONG_PAPER, ["anything"], budget=10**6) == LONG_PAPER


def test_a_long_paper_keeps_title_named_section_abstract_and_nearest_passage() -> None:
    budget = 260
    state = paper_state(LONG_PAPER, ["The Methods say patients took drug X daily.",
                                     "Blood pressure fell by 12 mmHg."], budget=budget)
    assert state.startswith("# A long paper")
    assert "## Methods\n\nPatients took drug X daily." in state
    assert FILLER not in state  # the named section's long passage did not fit
    assert "We show that drug X lowers blood pressure" in state
    assert "Blood pressure fell by 12 mmHg" in state
    assert "## Discussion" not in state and GAP in state
    assert estimate_tokens(state.replace(GAP, "")) <= budget + 10
    # Document order is kept: the abstract comes before the methods.
    assert state.index("We show") < state.index("Patients took")


def test_a_table_named_by_a_premise_brings_its_passage() -> None:
    state = paper_state(LONG_PAPER, ["Table 3 shows no adverse events."], budget=120)
    assert "Table 3 lists adverse events" in state
    assert "Patients took drug X daily" not in state


def test_plain_text_papers_are_cut_at_numbered_headings() -> None:
    shape = layout("A title\n\n1 Introduction\n\nText one.\n\n2.1 Data\n\nText two.")
    assert [(s.title, s.number) for s in shape.sections] == [
        ("", ""), ("Introduction", "1"), ("Data", "2.1")]
    state = paper_state("A title\n\n1 Introduction\n\n" + FILLER + "\n\n2.1 Data\n\nText two "
                        "about sensors.", ["Section 2.1 uses sensors."], budget=40)
    assert "2.1 Data\n\nText two about sensors." in state and FILLER not in state
