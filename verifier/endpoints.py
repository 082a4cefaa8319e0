"""The language-model endpoints as one run configures them: declarations and policies.

A model endpoint is one more service with its own policy (like :mod:`verifier.sources`
for the bibliographic ones): the session opens one paced client per endpoint declared
here, and every backend on that endpoint (chat, logprobs, Decisions, System One) shares
its one set of limits.

Endpoints come from the settings' ``models`` section:

- ``llm``: the chat endpoint (``VERIFIER_LLM_URL``);
- ``decision``: the decision endpoint (``VERIFIER_DECISION_URL``), only when it is at
  another URL; at the same URL (or unset) the decision backend uses ``llm``.

**Default policy** (:func:`model_policy`), each figure overridable per endpoint in
settings (``VERIFIER_LLM_RPM``, ``_TPM``, ``_CONCURRENCY``):

=====================  =========  ===================================================
limit                  default    why
=====================  =========  ===================================================
requests per minute    500        OpenAI's tier-1 figure for small models; evenly spaced
tokens per minute      200,000    the same tier; each request reserves its estimate
                                  (prompt + max completion) and is corrected from usage;
                                  the client's bucket holds 80 % of a minute's tokens
                                  (the same rate), so the server's bucket keeps a margin
                                  for requests that bunch up on the way
concurrency            32         requests in flight at once
request timeout        120 s      a long JSON reply at ~50 tokens/s
retries                3 attempts 429 (with the stated wait), 5xx, connection errors;
                                  never quota or "Request too large"
backoff                0.5 s·2ⁿ,  full jitter, as the SDK
                       cap 8 s
pause on a 429         15 s       when the server states no wait (the cookbook's figure)
breaker                5 / 30 s   failures in a row / rest
=====================  =========  ===================================================

``x-ratelimit-*`` headers only ever slow an endpoint down (a lower advertised limit, a
spent budget), never speed it past its policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote

from .http.policy import RateClass, SourcePolicy
from .settings import ModelEndpointSettings, Settings

DEFAULT_RPM = 500
DEFAULT_TPM = 200_000
DEFAULT_CONCURRENCY = 32
TOKEN_BURST = 0.8
"""The client's token bucket as a fraction of the server's one-minute bucket."""
CLASS = "model"
"""The one rate class of an endpoint: chat, logprobs and decision requests share it."""


def model_policy(endpoint: ModelEndpointSettings, time_scale: float = 1.0) -> SourcePolicy:
    """The endpoint's policy: defaults overridden by the settings, scaled by
    ``time_scale`` (a sped-up stand-in)."""
    rpm = endpoint.rpm or DEFAULT_RPM
    tpm = endpoint.tpm or DEFAULT_TPM
    concurrency = endpoint.concurrency or DEFAULT_CONCURRENCY
    return SourcePolicy(
        classes={CLASS: RateClass(rpm, 60.0, concurrency)},
        max_concurrency=concurrency,
        request_timeout_s=120.0,
        source_budget_s=300.0,
        max_attempts=3,
        backoff_base_s=0.5,
        backoff_cap_s=8.0,
        default_pause_s=15.0,
        breaker_threshold=5,
        breaker_cooldown_s=30.0,
        pool="model",
        weighted=RateClass(tpm * TOKEN_BURST, 60.0 * TOKEN_BURST, 1),
    ).scaled(time_scale)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One model endpoint of the run: its name in stats, where it is, its key, policy."""

    name: str
    base_url: str
    api_key: str | None = field(repr=False)
    serves: tuple[str, ...]
    """``chat`` and/or ``decisions`` (the decision backend, whatever its format)."""
    policy: SourcePolicy

    @property
    def cache_scope(self) -> str:
        """The cache namespace of its answers: keyed by the base URL (``:`` escaped, as
        the cache's keys use it as a separator), never the key."""
        return "model@" + quote(self.base_url.rstrip("/"), safe="/@")


def endpoints(settings: Settings,
              overrides: Mapping[str, SourcePolicy] | None = None) -> dict[str, Endpoint]:
    """The run's endpoints by name (``llm``, ``decision``); empty when none is set."""
    models = settings.models
    found: dict[str, Endpoint] = {}
    scale = settings.time_scale
    if models.llm is not None:
        found["llm"] = Endpoint("llm", models.llm.url, models.llm.api_key, ("chat",),
                                model_policy(models.llm, scale))
    decision = models.decision
    if decision is not None:
        llm = found.get("llm")
        if llm is not None and llm.base_url.rstrip("/") == decision.url.rstrip("/"):
            found["llm"] = Endpoint("llm", llm.base_url, llm.api_key,
                                    ("chat", "decisions"), llm.policy)
        else:
            found["decision"] = Endpoint("decision", decision.url, decision.api_key,
                                         ("decisions",), model_policy(decision, scale))
    for name, policy in (overrides or {}).items():
        if name in found:
            old = found[name]
            found[name] = Endpoint(old.name, old.base_url, old.api_key, old.serves, policy)
    return found


def decision_endpoint(settings: Settings) -> str | None:
    """The name of the endpoint the decision backend uses (None: offline)."""
    found = endpoints(settings)
    if "decision" in found:
        return "decision"
    return "llm" if settings.models.decision is not None else None


@dataclass(frozen=True, slots=True)
class EndpointSummary:
    """One row of ``verifier models``."""

    interface: str
    """``chat`` or ``decisions``."""
    backend: str
    """``offline``, ``chat``, ``logprobs``, ``decisions`` or ``systemone``."""
    endpoint: str | None
    base_url: str | None
    model: str
    keyed: bool
    limits: str
    """The limits in force, e.g. "500 requests/min, 200,000 tokens/min, 32 at a time"."""
    rpm: float | None
    tpm: float | None
    concurrency: int | None
    request_timeout_s: float | None
    max_attempts: int | None


def _limits_text(policy: SourcePolicy) -> str:
    rate = next(iter(policy.classes.values()))
    text = f"{rate.rate * 60 / rate.period_s:,.0f} requests/min"
    if policy.weighted is not None:
        w = policy.weighted
        text += f", {w.rate * 60 / w.period_s:,.0f} tokens/min"
    return text + f", {policy.max_concurrency} at a time"


def summarize(settings: Settings) -> list[EndpointSummary]:
    """The chat and decision backends these settings give, with their limits."""
    found = endpoints(settings)
    models = settings.models
    rows = []

    def row(interface: str, backend: str, name: str | None, model: str) -> EndpointSummary:
        endpoint = found.get(name) if name else None
        if endpoint is None:
            return EndpointSummary(interface, backend, None, None, model, False,
                                   "in-process (no network), a baseline", None, None, None,
                                   None, None)
        policy = endpoint.policy
        rate = next(iter(policy.classes.values()))
        tpm = (policy.weighted.rate * 60 / policy.weighted.period_s
               if policy.weighted is not None else None)
        return EndpointSummary(interface, backend, endpoint.name, endpoint.base_url, model,
                               endpoint.api_key is not None, _limits_text(policy),
                               rate.rate * 60 / rate.period_s, tpm, policy.max_concurrency,
                               policy.request_timeout_s, policy.max_attempts)

    if models.llm is not None:
        rows.append(row("chat", "chat", "llm", models.llm.model))
    else:
        rows.append(row("chat", "offline", None, "offline-heuristic-1"))
    if models.decision is not None:
        rows.append(row("decisions", models.decision_format, decision_endpoint(settings),
                        models.decision.model))
    else:
        rows.append(row("decisions", "offline", None, "offline-lexical-1"))
    return rows
