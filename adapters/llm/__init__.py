"""Wire formats of language-model endpoints: pure request builders and reply parsers.

Same contract as the source adapters (``adapters/base.py``): values in, values out, no
I/O, no sleeping, no retries. Paths are relative to a base URL ending in ``/v1``.

- :mod:`.decisions`: OpenAI Decisions (``POST /decisions``);
- :mod:`.systemone`: System One (``POST /systemone``);
- :mod:`.logprobs`: decisions from first-token log-probabilities over chat completions;
- :mod:`.chat`: chat completions for structured (JSON) output, and JSON repair;
- :mod:`.schema`: a parsed answer checked against its JSON schema;
- :mod:`.models`: ``GET /models``;
- :mod:`.failures`: error bodies and their classification (retry, never retry, wait);
- :mod:`.ratelimits`: ``x-ratelimit-*`` and ``retry-after`` headers;
- :mod:`.tokens`: token estimates before a call; :mod:`.wire`: JSON and ``usage``.
"""

from __future__ import annotations

from .failures import (
    ApiFailure,
    EmptyReply,
    FailureClass,
    ModelRefused,
    NoLogprobs,
    RequestRejected,
    TruncatedReply,
    classify,
    error_for,
    raise_for_status,
)
from .ratelimits import ModelRateHint, parse_rate_hint, parse_reset, parse_retry_after
from .schema import problems as schema_problems
from .tokens import (
    estimate_prompt_tokens,
    estimate_request_tokens,
    estimate_text_tokens,
    truncate_to_tokens,
)
from .wire import parse_usage

__all__ = [
    "ApiFailure",
    "EmptyReply",
    "FailureClass",
    "ModelRateHint",
    "ModelRefused",
    "NoLogprobs",
    "RequestRejected",
    "TruncatedReply",
    "classify",
    "error_for",
    "estimate_prompt_tokens",
    "estimate_request_tokens",
    "estimate_text_tokens",
    "parse_rate_hint",
    "parse_reset",
    "parse_retry_after",
    "parse_usage",
    "raise_for_status",
    "schema_problems",
    "truncate_to_tokens",
]
