"""The simulated endpoint's knobs: latency, faults, limits, models served.

**Latency.** A reply takes ``ttft_s + prefill_s_per_token × uncached prompt tokens +
per_token_s × completion tokens`` world seconds, times ``1 + jitter × u`` with ``u``
uniform in [-1, 1] from a generator seeded with ``seed`` (the same requests in the same
order take the same times). A world ``time_scale`` divides it like every period.

**Faults** (:class:`ModelFaults`): each admitted request draws, from a generator seeded
with ``seed``, at most one fault with the given probability; a request header
``x-world-fault: NAME`` forces one (a test hook). Faults:

- ``500``, ``502``, ``503``: an OpenAI-shaped ``server_error`` body with that status;
- ``timeout``: no answer for ``timeout_hold_s`` world seconds (then a 504): the client's
  own timeout fires first;
- ``truncated``: the normal 200 answer with its JSON body cut in half;
- ``length``: a chat reply cut at a few tokens with ``finish_reason: "length"``;
- ``no_logprobs``: a chat reply with ``logprobs: null`` although they were asked for;
- ``refusal``: a chat reply with ``content: null`` and ``refusal`` text; for the decision
  formats, the first question's answer is a refusal;
- ``empty``: a chat reply with empty content;
- ``quota``: a 429 ``insufficient_quota`` (billing: never worth retrying).

A fault that does not apply to a route (``length`` on ``/decisions``) leaves the answer
as it is. Faulted requests still count against the limits; the request counters record
the fault.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .limits import ModelLimits

FAULT_NAMES: frozenset[str] = frozenset({
    "500", "502", "503", "timeout", "truncated", "length", "no_logprobs", "refusal",
    "empty", "quota",
})
FAULT_HEADER = "x-world-fault"


@dataclass(frozen=True, slots=True)
class Latency:
    ttft_s: float = 0.3
    prefill_s_per_token: float = 0.00005
    per_token_s: float = 0.02
    jitter: float = 0.2
    seed: int = 0

    def __post_init__(self) -> None:
        if min(self.ttft_s, self.prefill_s_per_token, self.per_token_s) < 0:
            raise ValueError("latencies cannot be negative")
        if not 0 <= self.jitter < 1:
            raise ValueError("jitter must be in [0, 1)")


NO_LATENCY = Latency(0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class ModelFaults:
    rates: Mapping[str, float] = field(default_factory=dict)
    """Fault name → probability per admitted request (they must sum to at most 1)."""
    seed: int = 0
    timeout_hold_s: float = 120.0

    def __post_init__(self) -> None:
        unknown = set(self.rates) - FAULT_NAMES
        if unknown:
            raise ValueError(f"unknown model faults {sorted(unknown)} "
                             f"(known: {', '.join(sorted(FAULT_NAMES))})")
        if any(not 0 <= r <= 1 for r in self.rates.values()) or sum(self.rates.values()) > 1:
            raise ValueError("fault rates must be probabilities summing to at most 1")

    @classmethod
    def parse(cls, text: str, seed: int = 0) -> ModelFaults:
        """``"500:0.1,timeout:0.05"`` (a bare name means every request)."""
        rates: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, rate = part.partition(":")
            try:
                rates[name.strip()] = float(rate) if rate else 1.0
            except ValueError:
                raise ValueError(f"bad fault rate in {part!r}") from None
        return cls(rates, seed)


DEFAULT_MODELS: tuple[str, ...] = ("world-chat", "gpt-6-luna", "jev")


@dataclass(frozen=True, slots=True)
class ModelWorldOptions:
    """Everything the simulated endpoint is configured by (see the module docs)."""

    models: tuple[str, ...] = DEFAULT_MODELS
    """Model ids served (any route answers any of them; others are a 404)."""
    limits: ModelLimits = field(default_factory=ModelLimits)
    latency: Latency = field(default_factory=Latency)
    faults: ModelFaults | None = None
    max_context: int = 128_000
    """Prompt plus reply tokens a request may ask for (more: a 400)."""
    cache_ttl_s: float = 600.0
    answer_model: Any = None
    """An :class:`~verifier.world.models.answer.AnswerModel` (default: the lexical one)."""

    def __post_init__(self) -> None:
        if not self.models:
            raise ValueError("serve at least one model")
