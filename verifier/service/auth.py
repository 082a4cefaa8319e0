"""Bearer API keys, compared in constant time, and each key's concurrency and rate limits.

A caller is named in logs and metrics by a label derived from its key (``key-`` and the
first 8 hex digits of its SHA-256), never by the key. With open access (loopback only)
every caller is ``open``.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

OPEN_CALLER = "open"


def key_label(key: str) -> str:
    return "key-" + hashlib.sha256(key.encode()).hexdigest()[:8]


class KeyRing:
    """The accepted keys. :meth:`caller` compares the presented token with every key in
    constant time (no early exit on the first match, no length leak through ``==``)."""

    def __init__(self, keys: tuple[str, ...], *, open_access: bool) -> None:
        self._keys = [(key.encode(), key_label(key)) for key in keys]
        self.open_access = open_access

    def caller(self, authorization: str | None) -> str | None:
        """The caller's label for an ``Authorization`` header, or None when refused."""
        token = _bearer(authorization)
        if token is not None:
            presented = token.encode()
            found = None
            for key, label in self._keys:
                if hmac.compare_digest(presented, key):
                    found = label
            if found is not None:
                return found
        return OPEN_CALLER if self.open_access else None


def _bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float
    in_flight: int = 0


@dataclass(slots=True)
class CallerLimits:
    """Per caller: at most ``concurrency`` requests in progress, and requests started at
    ``rate`` per second on average with bursts of ``burst`` (a token bucket). Excess is
    refused at once, with the seconds to wait, never queued."""

    concurrency: int
    rate: float
    burst: int
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def acquire(self, caller: str) -> float:
        """0.0 when the request may start (then :meth:`release` it), else the seconds
        after which to retry."""
        now = self.clock()
        bucket = self._buckets.get(caller)
        if bucket is None:
            bucket = self._buckets[caller] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        if bucket.in_flight >= self.concurrency:
            return 1.0
        if bucket.tokens < 1.0:
            return (1.0 - bucket.tokens) / self.rate
        bucket.tokens -= 1.0
        bucket.in_flight += 1
        return 0.0

    def release(self, caller: str) -> None:
        bucket = self._buckets.get(caller)
        if bucket is not None and bucket.in_flight > 0:
            bucket.in_flight -= 1

    def in_flight(self, caller: str) -> int:
        bucket = self._buckets.get(caller)
        return bucket.in_flight if bucket else 0


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
