"""The naive baseline: every citation sent to all eight sources at once, first match wins.

It runs in the same process, through the same adapters, pacing, retries and cache as the
engine, so the comparison measures scheduling alone: no planner (every source is asked
for a lookup and a search, whatever the citation), no waiting for agreement (all steps at
once), and one matching source is enough (score it with ``accept_unconfirmed=True``).
"""

from __future__ import annotations

import asyncio
import time

from verifier.citations.checker import Verifier
from verifier.citations.models import CitationInput, Report
from verifier.citations.parsing import parse_citation
from verifier.citations.planner import PlanStep, SourcePlan, StepKind


class NaiveVerifier(Verifier):
    """A Verifier whose every citation fans out to every enabled source at once."""

    async def _check(self, item: CitationInput) -> Report:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        deadline = loop.time() + self.settings.deadline_s
        citation = item.fields if item.fields is not None else parse_citation(item.text)
        sources = list(self._clients)
        steps = tuple(PlanStep(s, kind) for s in sources for kind in StepKind)
        run = self._plan_run(citation, deadline)
        try:
            async with asyncio.timeout_at(deadline + 1.0):
                await run.run(SourcePlan(steps, ()), needed=1, width=len(steps))
        except TimeoutError:
            pass
        return self._report(item, citation, run, None, time.perf_counter() - started)
