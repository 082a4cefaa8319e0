"""The judging run's output lines, and the report read back from them.

One line per paper and source (:func:`source_line`)::

    {"id": "<paper_id>:<source>", "paper_id", "source", "backend", "baseline",
     "prompts": {task: "v1"}, "claims": [{"claim_id", "summary", "source_excerpt"}],
     "comments": [{"comment_id", "text", "assessed", "anchor", "specification",
                   "justification", "remedy", "claim_id", "stance",
                   "is_consequential", "critique_type"}],
     "unjudged": n, "errors": [str], "error": str | null,
     "references": {"checked", "given", "total", "statuses", "flags", "input_errors",
                    "wall_s"},
     "calls": n, "usage": {"prompt_tokens", "cached_prompt_tokens", "completion_tokens"}}

``error`` says why the source could not be judged at all (claims not extracted, no
comments); ``errors`` names each failed step of a batch. An input item that could not be
used gets a line of its own (:func:`input_error_line`): ``{"id", "paper_id", "source",
"error", "input_error": true}``. ``baseline`` is true for the offline backend: its
figures are a baseline's.

:func:`judgements_of` rebuilds each judged line's
:class:`~.models.SourceJudgement` (the first line of an id wins, as ``--resume`` keeps
it) and counts what the metrics skip.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from verifier.reviews.models import ItemError

from .models import CritiqueType, JudgedComment, SourceJudgement, Stance
from .pipeline import SourceOutcome
from .prompts import prompt_versions
from .run import ReferenceSummary


def line_id(paper_id: str, source: str) -> str:
    return f"{paper_id}:{source}"


def source_line(outcome: SourceOutcome, references: ReferenceSummary,
                backend: str) -> dict[str, Any]:
    usage = outcome.log.usage
    return {
        "id": line_id(outcome.paper_id, outcome.source),
        "paper_id": outcome.paper_id,
        "source": outcome.source,
        "backend": backend,
        "baseline": backend == "offline",
        "prompts": prompt_versions(),
        "claims": [{"claim_id": c.claim_id, "summary": c.summary,
                    "source_excerpt": c.source_excerpt} for c in outcome.claims],
        "comments": [c.as_json() for c in outcome.comments],
        "unjudged": outcome.unjudged if outcome.failed is None else len(outcome.comments),
        "errors": list(outcome.errors),
        "error": outcome.failed,
        "references": references.as_json(),
        "calls": outcome.log.calls,
        "usage": {"prompt_tokens": usage.prompt_tokens,
                  "cached_prompt_tokens": usage.cached_prompt_tokens,
                  "completion_tokens": usage.completion_tokens},
    }


def input_error_line(error: ItemError, *, paper_id: str | None = None,
                     source: str | None = None) -> dict[str, Any]:
    item = error.item if source is None else line_id(error.item, source)
    return {"id": item, "paper_id": paper_id, "source": source,
            "error": error.reason, "input_error": True}


@dataclass(frozen=True, slots=True)
class Collected:
    judgements: tuple[SourceJudgement, ...]
    skipped: dict[str, int]
    """``input_errors``, ``sources_not_judged``, ``comments_unjudged``,
    ``lines_unreadable``: what the metrics leave out, counted."""
    baseline: bool


def _stance(value: object) -> Stance | None:
    return Stance(value) if isinstance(value, str) and value in Stance.__members__ else None


def _type(value: object) -> CritiqueType | None:
    try:
        return CritiqueType(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def judgement_of(line: Mapping[str, Any]) -> SourceJudgement | None:
    """The judged source of one output line, or None for an error line."""
    if line.get("input_error") or line.get("error"):
        return None
    comments = tuple(
        JudgedComment(_text(c.get("anchor")), _text(c.get("specification")),
                      _text(c.get("justification")), _text(c.get("remedy")),
                      _text(c.get("claim_id")), _stance(c.get("stance")),
                      c.get("is_consequential") if isinstance(c.get("is_consequential"), bool)
                      else None, _type(c.get("critique_type")))
        for c in line.get("comments", []) if isinstance(c, Mapping) and c.get("assessed"))
    claims = tuple(str(c["claim_id"]) for c in line.get("claims", [])
                   if isinstance(c, Mapping) and "claim_id" in c)
    return SourceJudgement(str(line["paper_id"]), str(line["source"]), claims, comments,
                           int(line.get("unjudged", 0)))


def judgements_of(lines: Iterable[Mapping[str, Any] | None]) -> Collected:
    """Every judged source of the lines (None = an unreadable line), with the skips."""
    seen: set[str] = set()
    kept: list[SourceJudgement] = []
    skipped = {"input_errors": 0, "sources_not_judged": 0, "comments_unjudged": 0,
               "lines_unreadable": 0}
    baseline = False
    for line in lines:
        if line is None or not isinstance(line.get("id"), str):
            skipped["lines_unreadable"] += 1
            continue
        if line["id"] in seen:
            continue
        seen.add(line["id"])
        if line.get("input_error"):
            skipped["input_errors"] += 1
            continue
        baseline = baseline or bool(line.get("baseline"))
        judgement = judgement_of(line)
        if judgement is None:
            skipped["sources_not_judged"] += 1
            skipped["comments_unjudged"] += int(line.get("unjudged", 0))
            continue
        skipped["comments_unjudged"] += judgement.unjudged
        kept.append(judgement)
    return Collected(tuple(kept), skipped, baseline)
