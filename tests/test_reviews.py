"""Review data: readers with per-item errors, and reviews split into comments, by shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.reviews.elife import BOILERPLATE, elife_comments, read_elife, review_units
from verifier.reviews.models import ItemError, Paper, Review
from verifier.reviews.neurips import neurips_comments, read_neurips
from verifier.reviews.splitting import comments_of, split_review

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
ELIFE = SHARED / "elife" / "elife_sample.jsonl"
NEURIPS = SHARED / "reviews" / "neurips2025_openreview" / "papers.jsonl"

OLD_LETTER = """\
eLife posts the editorial decision letter and author response on a selection of the \
published articles (subject to the approval of the authors).

Thank you for choosing to send your work entitled "X" for consideration at eLife.

This is a very nice description of a remarkable finding. The manuscript needs more \
quantitative assessment.

An important limitation is not discussed: the effect is only shown in embryos. Other \
points: (i) the dose is unclear (ii) Figure 2 lacks error bars.
"""

MID_LETTER = """\
In the interests of transparency, eLife publishes the most substantive revision requests.

Acceptance summary:

This paper shows that loss of LRRK2 activates cGAS-STING.

Essential revisions:

1) The reviewers suggest refocusing the manuscript on Figures 1-5.
The in vivo data are mild and equivocal.
2) The statistics in Figure 1 should use a two-factor analysis.

3) JC-1 assays need CCCP controls.
"""

MARKED_LETTER = """\
Essential revisions:

1) Please add the missing control.

Reviewer #1 (Recommendations for the authors):

The sample size in Figure 3 is small.

Reviewer #2 (Recommendations for the authors):

- The title overstates the finding.
- Typo in the legend of Figure 4.
"""

NEW_MODEL_RAW = """\
# Peer review - Round 1

Editors:
- An Editor, Somewhere

Reviewers:
- (Reviewers not individually listed)

## Review text

DOI: [10.7554/eLife.1.sa0](https://doi.org/10.7554/eLife.1.sa0)

This is an important study; the evidence is convincing.

---

# Peer review - Round 1

Reviewers:
- Anonymous Reviewer

## Review text

DOI: [10.7554/eLife.1.sa1](https://doi.org/10.7554/eLife.1.sa1)

Summary:

The authors record ERPs in 120 neonates.

Strengths:

The design is well controlled.

Weaknesses:

The sample at 35 weeks is small.

---

# Peer review - Round 1

Reviewers:
- Anonymous Reviewer

## Review text

DOI: [10.7554/eLife.1.sa2](https://doi.org/10.7554/eLife.1.sa2)

The finding is interesting but the stimuli are not matched for loudness.

[Editors' note: The authors addressed the reviewers' main concern.]
"""

NEURIPS_REVIEW = """\
SUMMARY:
The paper audits differential privacy in one run.

STRENGTHS AND WEAKNESSES:
**Strengths:**

- Comprehensive analysis.

- Empirical results align with theory.

Weaknesses
1. Experiments use a synthetic 1,000-dimensional model only.
2. Adaptive ORA has minimal experimental validation.
3. Possible improvements:
  (1) an overview diagram.
  (2) a table of symbols.

QUESTIONS:
- How sensitive are the results to uniform sampling?

LIMITATIONS:
Yes.
"""


def test_an_old_letter_without_markers_gives_one_comment_per_paragraph() -> None:
    got = split_review(OLD_LETTER, drop=BOILERPLATE)
    assert len(got) == 2
    assert got[0].startswith("This is a very nice description")
    # An inline enumeration stays in its paragraph.
    assert "(i) the dose" in got[1] and "(ii) Figure 2" in got[1]
    # Without the eLife boilerplate table, the standard paragraphs would be comments.
    assert len(split_review(OLD_LETTER)) == 4


def test_numbered_essential_revisions_are_one_comment_each() -> None:
    got = split_review(MID_LETTER, drop=BOILERPLATE)
    assert got == [
        "This paper shows that loss of LRRK2 activates cGAS-STING.",
        "1) The reviewers suggest refocusing the manuscript on Figures 1-5.\n"
        "The in vivo data are mild and equivocal.",
        "2) The statistics in Figure 1 should use a two-factor analysis.",
        "3) JC-1 assays need CCCP controls.",
    ]


def test_reviewer_markers_split_a_letter_when_at_least_two_occur() -> None:
    units = review_units(MARKED_LETTER)
    assert [u.reviewer for u in units] == [
        "Decision letter",
        "Reviewer #1 (Recommendations for the authors)",
        "Reviewer #2 (Recommendations for the authors)",
    ]
    assert units[1].text == "The sample size in Figure 3 is small."
    paper = Paper("e1", "T", "text", (), tuple(units))
    comments, errors = elife_comments(paper)
    assert not errors
    assert [c.comment_id for c in comments] == ["e1:human:1.1", "e1:human:2.1", "e1:human:3.1",
                                                "e1:human:3.2"]
    assert comments[3].text == "- Typo in the legend of Figure 4."
    assert comments[3].reviewer.startswith("Reviewer #2")
    # Prose that starts like a marker is not one.
    prose = "Reviewer 1 also noted this.\n\nReviewer 2 agreed with it.\n\nMore text."
    assert [u.reviewer for u in review_units(prose)] == ["Decision letter"]
    assert [u.reviewer for u in review_units("**Reviewer #1:**\n\nA.\n\nReviewer 2\n\nB.")] \
        == ["Reviewer #1", "Reviewer 2"]
    # One marker alone does not split.
    single = MARKED_LETTER.split("Reviewer #2")[0]
    assert [u.reviewer for u in review_units(single)] == ["Decision letter"]


def test_new_model_public_reviews_are_blocks_after_the_assessment() -> None:
    units = review_units(NEW_MODEL_RAW)
    assert [u.reviewer for u in units] == ["eLife assessment", "Reviewer #1", "Reviewer #2"]
    assert units[0].text == "This is an important study; the evidence is convincing."
    assert "DOI" not in units[1].text and "Peer review" not in units[1].text
    paper = Paper("e2", "T", "text", (), tuple(units))
    comments, _ = elife_comments(paper)
    assert [c.text for c in comments] == [
        "This is an important study; the evidence is convincing.",
        "The authors record ERPs in 120 neonates.",
        "The design is well controlled.",
        "The sample at 35 weeks is small.",
        "The finding is interesting but the stimuli are not matched for loudness.",
    ]


def test_an_openreview_review_splits_into_its_points() -> None:
    got = split_review(NEURIPS_REVIEW)
    assert got == [
        "The paper audits differential privacy in one run.",
        "- Comprehensive analysis.",
        "- Empirical results align with theory.",
        "1. Experiments use a synthetic 1,000-dimensional model only.",
        "2. Adaptive ORA has minimal experimental validation.",
        # A lead-in ending with a colon keeps its first point.
        "3. Possible improvements:\n(1) an overview diagram.",
        "(2) a table of symbols.",
        "- How sensitive are the results to uniform sampling?",
    ]


def test_a_review_with_nothing_to_split_is_an_error_naming_it() -> None:
    paper = Paper("p9", "T", "text", (), (Review("Reviewer 1", "Yes."),
                                          Review("Reviewer 2", "A real point.")))
    comments, errors = comments_of(paper)
    assert [c.comment_id for c in comments] == ["p9:human:2.1"]
    assert errors == [ItemError("p9/Reviewer 1", "the review has no comment after splitting")]


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_elife_reader_reports_bad_items_and_goes_on(tmp_path: Path) -> None:
    good = {"paper_id": "elife-1", "title": "T", "manuscript_markdown": "# T\n\nBody",
            "reviews_raw_markdown": NEW_MODEL_RAW, "references_text": None}
    listed = {"paper_id": "elife-2", "manuscript_markdown": "Body",
              "reviews": [{"reviewer": "Reviewer #1", "text": "The controls are missing."}]}
    path = _write(tmp_path, [
        json.dumps(good), "{not json", "[1, 2]", json.dumps({"title": "no id"}),
        json.dumps({"paper_id": "elife-3", "manuscript_markdown": " ", "reviews": []}),
        json.dumps({"paper_id": "elife-4", "manuscript_markdown": "Body", "reviews": []}),
        json.dumps(listed),
    ])
    got = list(read_elife(path))
    papers = [g for g in got if isinstance(g, Paper)]
    errors = [g for g in got if isinstance(g, ItemError)]
    assert [p.paper_id for p in papers] == ["elife-1", "elife-2"]
    assert [e.item for e in errors] == ["in.jsonl:2", "in.jsonl:3", "in.jsonl:4", "elife-3",
                                        "elife-4"]
    assert "malformed JSON" in errors[0].reason and "manuscript" in errors[3].reason
    assert len(papers[0].reviews) == 3 and papers[0].references == ()
    assert papers[1].reviews == (Review("Reviewer #1", "The controls are missing."),)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-32"])
def test_a_line_that_is_not_utf8_is_an_error_in_place_and_the_rest_is_read(
        tmp_path: Path, encoding: str) -> None:
    first = {"paper_id": "elife-1", "manuscript_markdown": "Body é",
             "reviews": [{"reviewer": "Reviewer #1", "text": "The controls are missing."}]}
    last = {**first, "paper_id": "elife-3"}
    text = f"{json.dumps(first, ensure_ascii=False)}\nBAD\n{json.dumps(last)}\n"
    data = text.encode(encoding)
    if encoding == "utf-8":  # a byte no UTF-8 text holds, on line 2 alone
        data = data.replace(b"BAD", b"B\xffD")
    path = tmp_path / "in.jsonl"
    path.write_bytes(data)
    got = list(read_elife(path))
    papers = [g for g in got if isinstance(g, Paper)]
    assert [p.paper_id for p in papers] == ["elife-1", "elife-3"]
    assert papers[0].text == "Body é"
    errors = [g for g in got if isinstance(g, ItemError)]
    assert [e.item for e in errors] == ["in.jsonl:2"]
    expected = "not valid UTF-8 (byte 0xff" if encoding == "utf-8" else "malformed JSON"
    assert errors[0].reason.startswith(expected)


def test_the_neurips_reader_keeps_ratings_references_and_decision(tmp_path: Path) -> None:
    record = {"paper_id": "abc", "title": "T", "text": "Body", "decision": "Accept (poster)",
              "references": ["[1] A. Author. A paper. 2020.", " "],
              "reviews": [{"reviewer": "Reviewer 1", "text": NEURIPS_REVIEW, "rating": 5,
                           "confidence": 4},
                          {"reviewer": "Reviewer 2", "text": ""}]}
    path = _write(tmp_path, [
        json.dumps(record),
        json.dumps({**record, "paper_id": "bad-refs", "references": "not a list"}),
        json.dumps({**record, "paper_id": "no-text", "text": None}),
        json.dumps({**record, "paper_id": "no-reviews", "reviews": [{"text": " "}]}),
    ])
    got = list(read_neurips(path))
    paper = got[0]
    assert isinstance(paper, Paper)
    assert paper.references == ("[1] A. Author. A paper. 2020.",)
    assert paper.decision == "Accept (poster)"
    assert paper.reviews == (Review("Reviewer 1", NEURIPS_REVIEW, 5, 4),)
    assert [g.item for g in got[1:] if isinstance(g, ItemError)] == ["bad-refs", "no-text",
                                                                     "no-reviews"]
    comments, errors = neurips_comments(paper)
    assert not errors and len(comments) == 8
    assert comments[0].comment_id == "abc:human:1.1"


def _papers(path: Path, reader: object) -> list[Paper]:
    if not path.is_file():
        pytest.skip(f"shared review data not available: {path}")
    items = list(reader(path))  # type: ignore[operator]
    assert not [i for i in items if isinstance(i, ItemError)]
    return items


def test_every_elife_record_yields_comments_and_none_empty() -> None:
    papers = _papers(ELIFE, read_elife)
    assert len(papers) == 4
    for paper in papers:
        comments, errors = elife_comments(paper)
        assert comments and not errors, paper.paper_id
        assert all(c.text.strip() for c in comments)
        assert not any(p.search(c.text) for c in comments for p in BOILERPLATE)
    new_model = next(p for p in papers if p.paper_id == "elife-95393")
    assert [r.reviewer for r in new_model.reviews] == ["eLife assessment", "Reviewer #1",
                                                       "Reviewer #2"]


def test_every_neurips_record_yields_comments_and_none_empty() -> None:
    papers = _papers(NEURIPS, read_neurips)
    assert len(papers) == 200
    for paper in papers:
        comments, errors = neurips_comments(paper)
        assert comments and not errors, paper.paper_id
        assert all(c.text.strip() for c in comments)
        assert {c.comment_id.split(":")[-1].split(".")[0] for c in comments} == {
            str(i) for i in range(1, len(paper.reviews) + 1)}
