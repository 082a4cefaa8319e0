"""The simulated endpoint's rate limits: requests and tokens per minute, and concurrency.

OpenAI's documented model (``shared/docs/models.md`` §6): each limit is a bucket refilled
continuously at ``limit / 60`` per second; a request is admitted when the request bucket
holds one request and the token bucket holds the request's *charge*, and both are
debited on admission. A bucket holds at most ``burst × limit`` (default one minute's
worth, as OpenAI's "time to full refill" reset implies). The charge is reserved on
arrival, as OpenAI does, from the character count: ``Σ (ceil(chars/4) + 4) + 2`` over
the messages plus ``max_completion_tokens`` (default :data:`DEFAULT_COMPLETION`); it is
never refunded. Refused requests are not charged.

Every answer carries the headers ``x-ratelimit-limit-requests|tokens``,
``x-ratelimit-remaining-requests|tokens`` and ``x-ratelimit-reset-requests|tokens``
(time to a full bucket, formatted like OpenAI: ``1s``, ``6m0s``, ``12ms``). Every
period is world time: a world ``time_scale`` of 20 allows 20 times the rates, and the
waits it announces are real seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..limits import WorldClock

DEFAULT_COMPLETION = 16
"""Tokens a request reserves for its reply when it names no ``max_completion_tokens``."""


@dataclass(frozen=True, slots=True)
class ModelLimits:
    """Per-minute limits and concurrency of the simulated endpoint (None: unlimited)."""

    rpm: int | None = 500
    tpm: int | None = 200_000
    concurrency: int | None = 32
    burst: float = 1.0
    """A bucket's capacity in minutes of its limit (1.0: one minute's worth)."""

    def __post_init__(self) -> None:
        for name in ("rpm", "tpm", "concurrency"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if not self.burst > 0:
            raise ValueError("burst must be positive")


def format_duration(seconds: float) -> str:
    """A duration as OpenAI writes resets and waits: ``12ms`` under a second,
    ``1.146s``, ``6m0s``, ``1h2m3s``."""
    if seconds < 1:
        return f"{max(0, math.ceil(seconds * 1000))}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.3f}".rstrip("0").rstrip(".") + "s"
    if hours >= 1:
        return f"{int(hours)}h{int(minutes)}m{text}"
    if minutes >= 1:
        return f"{int(minutes)}m{text}"
    return text


class Bucket:
    """A continuously refilled bucket: ``limit`` per world minute, ``capacity`` at most."""

    __slots__ = ("_at", "_clock", "_level", "capacity", "limit")

    def __init__(self, limit: int, clock: WorldClock, burst: float = 1.0) -> None:
        self.limit = limit
        self.capacity = limit * burst
        self._clock = clock
        self._level = self.capacity
        self._at = clock.now()

    @property
    def rate(self) -> float:
        """Refill per real second."""
        return self.limit / 60.0 * self._clock.time_scale

    def level(self, now: float) -> float:
        self._level = min(self.capacity, self._level + (now - self._at) * self.rate)
        self._at = now
        return self._level

    def wait(self, amount: float, now: float) -> float:
        """Real seconds until ``amount`` fits (0: now; inf: never, above capacity)."""
        if amount > self.capacity:
            return math.inf
        return max(0.0, (amount - self.level(now)) / self.rate)

    def take(self, amount: float, now: float) -> None:
        self._level = self.level(now) - amount

    def reset(self, now: float) -> float:
        """Real seconds to a full bucket."""
        return (self.capacity - self.level(now)) / self.rate


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request was not admitted, and for how long (real seconds; None: never)."""

    reason: str
    """``requests``, ``tokens``, ``too_large`` or ``concurrency``."""
    wait_s: float | None
    used: int = 0


class ModelLimiter:
    """The endpoint's buckets and its in-flight count."""

    def __init__(self, limits: ModelLimits, clock: WorldClock) -> None:
        self.limits = limits
        self.clock = clock
        self.requests = Bucket(limits.rpm, clock, limits.burst) if limits.rpm else None
        self.tokens = Bucket(limits.tpm, clock, limits.burst) if limits.tpm else None
        self.in_flight: dict[int, float] = {}
        """Admitted requests by id → when (real time) they are expected to finish."""
        self._next_id = 0

    def admit(self, charge: int, now: float) -> Refusal | int:
        """A ticket for an admitted request (release it when answered), or the refusal."""
        if self.tokens is not None and charge > self.tokens.capacity:
            return Refusal("too_large", None)
        cap = self.limits.concurrency
        if cap is not None and len(self.in_flight) >= cap:
            soonest = min(self.in_flight.values(), default=now)
            return Refusal("concurrency", max(0.001, soonest - now), len(self.in_flight))
        if self.requests is not None:
            wait = self.requests.wait(1, now)
            if wait > 0:
                return Refusal("requests", wait,
                               int(self.requests.capacity - self.requests.level(now)))
        if self.tokens is not None:
            wait = self.tokens.wait(charge, now)
            if wait > 0:
                return Refusal("tokens", wait,
                               int(self.tokens.capacity - self.tokens.level(now)))
        if self.requests is not None:
            self.requests.take(1, now)
        if self.tokens is not None:
            self.tokens.take(charge, now)
        self._next_id += 1
        self.in_flight[self._next_id] = now
        return self._next_id

    def expect(self, ticket: int, finish: float) -> None:
        self.in_flight[ticket] = finish

    def release(self, ticket: int) -> None:
        self.in_flight.pop(ticket, None)

    def headers(self, now: float) -> dict[str, str]:
        """The ``x-ratelimit-*`` headers as things stand."""
        out: dict[str, str] = {}
        for name, bucket in (("requests", self.requests), ("tokens", self.tokens)):
            if bucket is None:
                continue
            out[f"x-ratelimit-limit-{name}"] = str(bucket.limit)
            out[f"x-ratelimit-remaining-{name}"] = str(max(0, math.floor(bucket.level(now))))
            out[f"x-ratelimit-reset-{name}"] = format_duration(bucket.reset(now))
        return out
