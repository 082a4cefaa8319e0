"""Comment parsing, claim mapping and critique typing, offline baseline: cue-word tables.

None of this reads meaning; each field comes from a fixed rule:

- **parse**: ``anchor`` is the first place reference ("Section 3.2", "Table 2", "Fig. 4",
  "Eq. (3)", "line 120", "Appendix B" …), else the first quoted passage of 3+ words,
  else null. Each sentence is a *remedy* when it asks for a change (starts with an
  imperative such as "Please", "Add", "Clarify", or says "should", "suggest",
  "recommend", "would be better" …), a *justification* when it gives a reason
  ("because", "since", "otherwise", "undermines", "this matters" …), else an issue.
  ``specification`` is the first issue sentence, ``justification`` the first
  justification sentence (or the clause from "because"/"since" inside the issue),
  ``remedy`` the first remedy sentence; a field with no such sentence is null.
- **map**: a comment maps to the claim with the highest cosine between the two sets of
  content terms, when it is at least :data:`MIN_SIMILARITY` with at least two shared
  terms; otherwise null. ``stance`` counts critical against supportive cue words
  (CRITICAL if more critical, SUPPORTIVE if more supportive, else NEUTRAL);
  ``is_consequential`` is true for a CRITICAL comment with a validity or sufficiency cue
  ("undermines", "confound", "not supported", "insufficient" …), false otherwise; both
  are null without a claim.
- **type**: the critique type whose cue words occur most often (ties in the order
  validity, sufficiency, contribution, clarity, transparency); null when none occurs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from verifier.llm.offline.text import sentences, terms

MIN_SIMILARITY = 0.1
STANCES = ("SUPPORTIVE", "CRITICAL", "NEUTRAL")
CRITIQUE_TYPES = ("validity", "sufficiency", "contribution", "clarity", "transparency")

_ANCHOR = re.compile(
    r"(?i)\b(?:sections?|sec\.|tables?|tab\.|figures?|figs?\.|equations?|eqs?\.|lines?|"
    r"pages?|pp?\.|appendix|appendices|algorithms?|theorems?|lemmas?|propositions?|"
    r"definitions?|corollary)\s*\(?[A-Z]?\d+(?:\.\d+)*[a-z]?\)?(?:\s*[-–]\s*\d+)?"
    r"|\bappendix\s+[A-Z]\b")
_QUOTE = re.compile(r"[\"“]([^\"”]+)[\"”]")
_REMEDY = re.compile(
    r"(?i)^(?:please|consider|add|include|clarify|provide|compare|report|discuss|explain|"
    r"show|use|cite|remove|revise|rephrase|define|describe)\b|\b(?:should|suggest\w*|"
    r"recommend\w*|would (?:be )?(?:better|good|helpful|useful|nice|strengthen)|"
    r"need(?:s)? to|encourage\w*|it would help|must)\b")
_JUSTIFICATION = re.compile(
    r"(?i)\b(?:because|since|otherwise|undermin\w+|this matters|which means|as a result|"
    r"therefore|hence|critical|crucial|essential|important|affects?|invalidat\w+|"
    r"this makes|so that)\b")
_REASON_CLAUSE = re.compile(r"(?i)\b(?:because|since)\b")

_CRITICAL = re.compile(
    r"(?i)\b(?:not|no|unclear|lack\w*|missing|insufficient\w*|weak\w*|concern\w*|fail\w*|"
    r"limited|limitation\w*|overclaim\w*|unconvincing|questionable|problem\w*|issues?|"
    r"however|doubt\w*|incorrect|wrong|flaw\w*|confound\w*|bias\w*|unsupported|"
    r"only|cannot|should|unfair|overstat\w*|inconsistent)\b")
_SUPPORTIVE = re.compile(
    r"(?i)\b(?:convinc(?:ing|ed)|strong|well|compelling|clear|novel|interesting|solid|"
    r"impressive|nice|good|excellent|appreciate\w*|thorough|rigorous|elegant|"
    r"valuable|important contribution|support(?:s|ed)? the)\b")
_CONSEQUENTIAL = re.compile(
    r"(?i)\b(?:undermin\w+|invalid\w*|flaw\w*|confound\w*|not supported|unsupported|"
    r"incorrect|wrong|bias\w*|insufficient|overclaim\w*|overstat\w*|cannot conclude|"
    r"does not (?:support|follow|hold)|questionable|leak\w*|circular)\b")
_TYPE_CUES = {
    "validity": re.compile(
        r"(?i)\b(?:incorrect|wrong|flaw\w*|confound\w*|bias\w*|invalid\w*|error\w*|leak\w*|"
        r"statistic\w*|unsupported|not supported|overclaim\w*|overstat\w*|circular|"
        r"does not (?:follow|hold))\b"),
    "sufficiency": re.compile(
        r"(?i)\b(?:additional|more (?:experiments?|data|evidence|baselines?|analys[ie]s)|"
        r"insufficient|lack\w*|missing|only|small sample|ablations?|baselines?|limited|"
        r"not enough|further experiments?)\b"),
    "contribution": re.compile(
        r"(?i)\b(?:novel\w*|incremental|contributions?|significance|impact|prior work|"
        r"already (?:known|shown)|not new|related work)\b"),
    "clarity": re.compile(
        r"(?i)\b(?:unclear|clarif\w+|confus\w+|hard to follow|typos?|writing|explain\w*|"
        r"notation|define\w*|grammar|readab\w+|presentation|wording)\b"),
    "transparency": re.compile(
        r"(?i)\b(?:code|data availability|reproduc\w+|hyper-?parameters?|details?|release\w*|"
        r"protocol|open[- ]source|implementation details|preregist\w+)\b"),
}


def parse_comment(comment: str) -> dict[str, str | None]:
    """``{anchor, specification, justification, remedy}`` of one comment (module doc)."""
    anchor_match = _ANCHOR.search(comment)
    anchor: str | None = anchor_match.group(0).strip() if anchor_match else None
    if anchor is None:
        quoted = next((q.group(1).strip() for q in _QUOTE.finditer(comment)
                       if len(q.group(1).split()) >= 3), None)
        anchor = quoted
    specification = justification = remedy = None
    for sentence in sentences(comment):
        if _REMEDY.search(sentence):
            remedy = remedy or sentence
        elif specification is None:
            specification = sentence
            reason = _REASON_CLAUSE.search(sentence)
            if reason is not None:
                justification = sentence[reason.start():].strip()
        elif justification is None and _JUSTIFICATION.search(sentence):
            justification = sentence
    return {"anchor": anchor, "specification": specification,
            "justification": justification, "remedy": remedy}


def parse_comments(comments: Sequence[str]) -> list[dict[str, Any]]:
    """One parsed record per comment, with its 1-based ``comment_index``."""
    return [{"comment_index": i, **parse_comment(comment)}
            for i, comment in enumerate(comments, 1)]


def map_comment(comment: str, claims: Mapping[str, str]) -> dict[str, Any]:
    """``{claim_id, stance, is_consequential}`` of a comment against claims (id → text)."""
    own = set(terms(comment))
    best_id: str | None = None
    best = 0.0
    for claim_id, text in claims.items():
        other = set(terms(text))
        shared = len(own & other)
        if shared < 2:
            continue
        similarity = shared / math.sqrt(len(own) * len(other))
        if similarity > best:
            best_id, best = claim_id, similarity
    if best_id is None or best < MIN_SIMILARITY:
        return {"claim_id": None, "stance": None, "is_consequential": None}
    stance = stance_of(comment)
    consequential = stance == "CRITICAL" and _CONSEQUENTIAL.search(comment) is not None
    return {"claim_id": best_id, "stance": stance, "is_consequential": consequential}


def map_comments(comments: Sequence[str], claims: Mapping[str, str]) -> list[dict[str, Any]]:
    """One mapping per comment, with its 1-based ``comment_index``."""
    return [{"comment_index": i, **map_comment(comment, claims)}
            for i, comment in enumerate(comments, 1)]


def stance_of(comment: str) -> str:
    """CRITICAL, SUPPORTIVE or NEUTRAL by counting cue words."""
    critical = len(_CRITICAL.findall(comment))
    supportive = len(_SUPPORTIVE.findall(comment))
    if critical > supportive:
        return "CRITICAL"
    return "SUPPORTIVE" if supportive > critical else "NEUTRAL"


def critique_type(comment: str) -> str | None:
    """The critique type with most cue words, or ``None`` when none occurs."""
    counts = {kind: len(cue.findall(comment)) for kind, cue in _TYPE_CUES.items()}
    best = max(CRITIQUE_TYPES, key=lambda kind: counts[kind])
    return best if counts[best] else None


def type_critiques(comments: Sequence[str]) -> list[dict[str, Any]]:
    """``{comment_index, type}`` per comment."""
    return [{"comment_index": i, "type": critique_type(comment)}
            for i, comment in enumerate(comments, 1)]
