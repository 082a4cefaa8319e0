"""Plan-run step answers a test scripts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from verifier.citations.planner import PlanStep
from verifier.citations.step_asker import StepOutcome


class ScriptedAnswers:
    """A :class:`~verifier.citations.step_asker.StepAsker` answering with ``answer`` for
    each awaited step and ``answer_now`` for each step tried at once (None: no answer at
    once, as on a cache miss)."""

    def __init__(self, answer: Callable[[PlanStep], Awaitable[StepOutcome]],
                 answer_now: Callable[[PlanStep], StepOutcome | None]) -> None:
        self._answer = answer
        self._answer_now = answer_now

    async def ask(self, step: PlanStep) -> StepOutcome:
        return await self._answer(step)

    def ask_now(self, step: PlanStep) -> StepOutcome | None:
        return self._answer_now(step)


async def _never_awaited(step: PlanStep) -> StepOutcome:
    raise AssertionError(f"{step} was asked; this run's answers are added by the test")


NOT_ASKED = ScriptedAnswers(_never_awaited, lambda step: None)
"""For a run whose answers a test adds itself: asking a step fails the test."""
