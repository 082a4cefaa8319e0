"""When to try a request again, and how long to wait first.

Pure functions: the paced client (:mod:`verifier.http.client`) calls them; tests call them
with a seeded random source.
"""

from __future__ import annotations

import email.utils
import random
from datetime import UTC, datetime

from verifier.errors import RateLimited, SourceError

from .policy import SourcePolicy


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP-date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def backoff_delay(
    policy: SourcePolicy,
    attempt: int,
    failure: SourceError,
    paused_for: float,
    rng: random.Random | None = None,
) -> float:
    """Exponential backoff with full jitter before attempt ``attempt + 1``; after a 429 the
    service's pause (``paused_for``) is the real wait, so the sleep only has to reach it."""
    ceiling = min(policy.backoff_cap_s, policy.backoff_base_s * 2 ** (attempt - 1))
    delay = (rng or random).uniform(0, ceiling)
    if isinstance(failure, RateLimited):
        delay = max(delay, paused_for)
    return delay
