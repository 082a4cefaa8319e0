"""Error answers of model endpoints, classified: which to retry, after how long, which never.

Error bodies come in two shapes (``shared/docs/models.md`` §1, §3), both read:

- OpenAI, llama.cpp and new vLLM: ``{"error": {"message", "type", "param", "code"}}``;
- old vLLM, flat: ``{"object": "error", "message", "type", "param", "code": <int>}``.

A 429 is one of three things, and only the first may be retried:

=================  ==========================================================  ========
kind               how it reads                                                retry
=================  ==========================================================  ========
``rate_limited``   ``code: rate_limit_exceeded``, "... Please try again in     yes
                   1.146s"
``too_large``      "Request too large ... (TPM): Limit L, Requested R": the     never
                   request alone exceeds the limit
``quota``          ``type``/``code`` ``insufficient_quota`` or                 never
                   ``credit_balance_exhausted``: billing
=================  ==========================================================  ========

Other statuses: 408, 409 and 5xx are ``server`` (retry, as OpenAI's SDK does); 401/403
``denied`` (including "not allowed to request logprobs"); other 4xx ``invalid``. An
``x-should-retry: true|false`` header overrides the retry decision, as in the SDK.

The failures that are not HTTP errors but unusable 200s (a refusal, a reply cut at
``max_completion_tokens``, an empty reply, no log-probabilities) are
:class:`~verifier.errors.MalformedResponse` subclasses defined here, so a caller can tell
them apart without reading messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import orjson

from verifier.errors import (
    MalformedResponse,
    RateLimited,
    ServerError,
    SourceError,
    UnexpectedStatus,
)
from verifier.http.transport import HttpResponse

from .ratelimits import ModelRateHint, parse_rate_hint, parse_reset


class FailureClass(StrEnum):
    RATE_LIMITED = "rate_limited"
    TOO_LARGE = "too_large"
    QUOTA = "quota"
    SERVER = "server"
    DENIED = "denied"
    INVALID = "invalid"


RETRYABLE: frozenset[FailureClass] = frozenset({FailureClass.RATE_LIMITED, FailureClass.SERVER})
"""Classes a client may retry (unless ``x-should-retry`` says otherwise)."""

_QUOTA_WORDS = frozenset({"insufficient_quota", "credit_balance_exhausted"})
_TRY_AGAIN = re.compile(r"try again in\s+((?:\d+(?:\.\d+)?(?:ms|h|m|s)?)+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ApiFailure:
    """One error answer, read and classified."""

    status: int
    kind: FailureClass
    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None
    retryable: bool = False
    wait_s: float | None = None
    """How long the server asks to wait: ``retry-after(-ms)``, else the "try again in"
    of a rate-limit message, else None."""
    rate: ModelRateHint | None = None
    """The rate-limit headers of the answer."""


class ModelRefused(MalformedResponse):
    """The model declined to answer (``message.refusal``, or a decision ``refusal``)."""


class TruncatedReply(MalformedResponse):
    """The reply stopped at ``max_completion_tokens`` (``finish_reason: "length"``) or was
    filtered (``content_filter``): its text is not a whole answer."""


class EmptyReply(MalformedResponse):
    """The reply had no text at all."""


class NoLogprobs(MalformedResponse):
    """A log-probability backend got a reply without log-probabilities (or without
    either label among them): never read as 0.5."""


class RequestRejected(UnexpectedStatus):
    """An error answer that retrying cannot fix (``too_large``, ``quota``, ``denied``,
    ``invalid``); ``failure`` holds the classification."""

    def __init__(self, failure: ApiFailure) -> None:
        super().__init__(f"{failure.status} {failure.kind}: {failure.message}", failure.status)
        self.failure = failure


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def error_fields(body: bytes) -> dict[str, str | None]:
    """``message``, ``type``, ``code`` and ``param`` of an error body in either shape
    (all None when the body is not a JSON error; ``message`` then previews the body)."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        document = None
    error: Any = None
    if isinstance(document, dict):
        if isinstance(document.get("error"), dict):
            error = document["error"]
        elif document.get("object") == "error":
            error = document
        elif isinstance(document.get("error"), str):  # {"error": "text"} (some proxies)
            error = {"message": document["error"]}
    if error is None:
        preview = body[:200].decode("utf-8", "replace").strip()
        return {"message": preview or None, "type": None, "code": None, "param": None}
    return {key: _text(error.get(key)) for key in ("message", "type", "code", "param")}


def classify(response: HttpResponse, now: datetime | None = None) -> ApiFailure | None:
    """The failure an answer reports, or None for a 2xx."""
    status = response.status
    if 200 <= status < 300:
        return None
    fields = error_fields(response.body)
    message = fields["message"] or f"HTTP {status}"
    words = {w for w in (fields["type"], fields["code"]) if w}
    if words & _QUOTA_WORDS:
        kind = FailureClass.QUOTA
    elif status == 429 and "request too large" in message.lower():
        kind = FailureClass.TOO_LARGE
    elif status == 429:
        kind = FailureClass.RATE_LIMITED
    elif status in (408, 409) or status >= 500:
        kind = FailureClass.SERVER
    elif status in (401, 403):
        kind = FailureClass.DENIED
    else:
        kind = FailureClass.INVALID
    rate = parse_rate_hint(response, now)
    wait = rate.retry_after_s if rate is not None else None
    if wait is None and kind is FailureClass.RATE_LIMITED:
        match = _TRY_AGAIN.search(message)
        if match:
            wait = parse_reset(match.group(1))
    retryable = kind in RETRYABLE
    should = (response.header("x-should-retry") or "").strip().lower()
    if should in ("true", "false") and kind not in (FailureClass.TOO_LARGE, FailureClass.QUOTA):
        retryable = should == "true"
    return ApiFailure(status=status, kind=kind, message=message, type=fields["type"],
                      code=fields["code"], param=fields["param"], retryable=retryable,
                      wait_s=wait, rate=rate)


def error_for(failure: ApiFailure) -> SourceError:
    """The engine's error for a classified failure: ``RateLimited`` (with the wait) for a
    retryable 429, ``ServerError`` for a retryable server failure, ``RequestRejected``
    for anything retrying cannot fix."""
    if failure.retryable and failure.kind is FailureClass.RATE_LIMITED:
        return RateLimited(failure.message, retry_after=failure.wait_s)
    if failure.retryable:
        return ServerError(failure.message, failure.status)
    return RequestRejected(failure)


def raise_for_status(response: HttpResponse) -> None:
    """Raise :func:`error_for` the response's failure; return for a 2xx."""
    failure = classify(response)
    if failure is not None:
        raise error_for(failure)
