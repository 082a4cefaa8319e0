"""A plan run whose sources answer as a test scripts them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from verifier.citations.plan_run import PlanRun, StepOutcome
from verifier.citations.planner import PlanStep


class ScriptedRun(PlanRun):
    """:class:`PlanRun` with ``answer`` for each awaited step and ``answer_now`` for each
    step tried at once (None: no answer at once, as on a cache miss)."""

    def __init__(self, *args: Any, answer: Callable[[PlanStep], Awaitable[StepOutcome]],
                 answer_now: Callable[[PlanStep], StepOutcome | None],
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._answer = answer
        self._answer_now = answer_now

    async def ask(self, step: PlanStep) -> StepOutcome:
        return await self._answer(step)

    def ask_now(self, step: PlanStep) -> StepOutcome | None:
        return self._answer_now(step)
