"""Rate-limit headers of OpenAI-compatible servers, read into one :class:`ModelRateHint`.

Headers (``shared/docs/models.md`` §1, §6):

- ``x-ratelimit-limit-requests`` / ``-tokens``: the limits per minute;
- ``x-ratelimit-remaining-requests`` / ``-tokens``: what is left;
- ``x-ratelimit-reset-requests`` / ``-tokens``: time to a *full* refill (``1s``,
  ``6m0s``, ``12ms``, ``1h2m3.5s``), not a required wait;
- ``retry-after-ms`` (milliseconds), else ``retry-after`` (seconds or an HTTP date).

Servers that send none (vLLM, llama.cpp) give ``None``. Azure has sent ``-1``/``0``
limits: a limit that is not positive is ignored (read as absent).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from adapters.base import RateHint
from verifier.http.transport import HttpResponse

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_reset(text: str) -> float | None:
    """Seconds in a reset duration (``"6m0s"`` → 360, ``"12ms"`` → 0.012, ``"1.5s"``
    → 1.5; a bare number is seconds), or None when it is not one."""
    text = text.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        pass
    else:
        return value if value >= 0 and math.isfinite(value) else None
    position, total = 0, 0.0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            return None
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        position = match.end()
    return total if position == len(text) else None


def parse_retry_after(response: HttpResponse, now: datetime | None = None) -> float | None:
    """The wait the server asks for, in seconds: ``retry-after-ms``, else ``retry-after``
    as seconds or an HTTP date (relative to ``now``, default the current UTC time)."""
    millis = response.header("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000
        except ValueError:
            value = -1.0
        if value >= 0 and math.isfinite(value):
            return value
    text = response.header("retry-after")
    if text is None or not text.strip():
        return None
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
    return seconds if seconds >= 0 and math.isfinite(seconds) else None


@dataclass(frozen=True, slots=True)
class ModelRateHint:
    """What one answer's headers say about the endpoint's limits.

    Limits are per minute. ``retry_after_s`` is the server's explicit wait (set mostly on
    429s). Every field is None when the server did not send it.
    """

    limit_requests: int | None = None
    remaining_requests: int | None = None
    reset_requests_s: float | None = None
    limit_tokens: int | None = None
    remaining_tokens: int | None = None
    reset_tokens_s: float | None = None
    retry_after_s: float | None = None

    @property
    def exhausted(self) -> bool:
        """True when a budget is spent (remaining requests or tokens at 0)."""
        return self.remaining_requests == 0 or self.remaining_tokens == 0

    def wait_s(self, tokens: int = 0) -> float:
        """How long to wait before sending a request of ``tokens`` tokens.

        The explicit ``retry_after_s`` wins. Otherwise, for a spent request budget, the
        time one request takes to refill (``reset / limit`` in a continuously refilled
        bucket, at most the full reset); for too few tokens left, the time the missing
        tokens take to refill. 0 when nothing says to wait.
        """
        if self.retry_after_s is not None:
            return self.retry_after_s
        waits = [0.0]
        if self.remaining_requests == 0 and self.reset_requests_s is not None:
            waits.append(_refill_time(1, self.limit_requests, 0, self.reset_requests_s))
        if (self.remaining_tokens is not None and self.reset_tokens_s is not None
                and self.remaining_tokens < max(tokens, 1)):
            waits.append(_refill_time(max(tokens, 1), self.limit_tokens,
                                      self.remaining_tokens, self.reset_tokens_s))
        return max(waits)

    def as_source_hint(self) -> RateHint | None:
        """The request side as the sources' :class:`~adapters.base.RateHint` (what the
        source gate applies): ``limit`` per 60 s, and when no request is left, a rest of
        the time one request takes to refill. None when the server sent no request
        limit. (Tokens have no place in that hint: a token budget reads this value.)"""
        if self.limit_requests is None and self.remaining_requests is None:
            return None
        rest = None
        if self.remaining_requests == 0 and self.reset_requests_s is not None:
            rest = _refill_time(1, self.limit_requests, 0, self.reset_requests_s)
        return RateHint(limit=self.limit_requests,
                        interval_s=60.0 if self.limit_requests else None,
                        remaining=self.remaining_requests, reset_s=rest)


def _refill_time(wanted: int, limit: int | None, remaining: int, reset_s: float) -> float:
    """Time for a bucket with ``remaining`` of ``limit`` that is full in ``reset_s`` to
    hold ``wanted``: a linear refill, at most the full reset."""
    if limit is None or limit <= remaining:
        return reset_s
    rate = (limit - remaining) / reset_s if reset_s > 0 else math.inf
    return min(reset_s, (wanted - remaining) / rate) if rate > 0 else reset_s


def _int_header(response: HttpResponse, name: str, *, positive: bool) -> int | None:
    text = response.header(name)
    if text is None:
        return None
    try:
        value = int(float(text.strip()))
    except ValueError:
        return None
    if value < 0 or (positive and value == 0):
        return None
    return value


def parse_rate_hint(response: HttpResponse, now: datetime | None = None) -> ModelRateHint | None:
    """The rate information in a response's headers, or None when it carries none."""
    requests_limit = _int_header(response, "x-ratelimit-limit-requests", positive=True)
    tokens_limit = _int_header(response, "x-ratelimit-limit-tokens", positive=True)

    def remaining(name: str, limit: int | None) -> int | None:
        # Azure's "-1"/"0" limits come with meaningless remainders: ignore them together.
        if limit is None and response.header(f"x-ratelimit-limit-{name}") is not None:
            return None
        return _int_header(response, f"x-ratelimit-remaining-{name}", positive=False)

    def reset(name: str) -> float | None:
        text = response.header(f"x-ratelimit-reset-{name}")
        return parse_reset(text) if text is not None else None

    hint = ModelRateHint(
        limit_requests=requests_limit,
        remaining_requests=remaining("requests", requests_limit),
        reset_requests_s=reset("requests"),
        limit_tokens=tokens_limit,
        remaining_tokens=remaining("tokens", tokens_limit),
        reset_tokens_s=reset("tokens"),
        retry_after_s=parse_retry_after(response, now),
    )
    return None if hint == ModelRateHint() else hint
