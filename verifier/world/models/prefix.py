"""The simulated endpoint's prompt tokens and prefix cache.

**Tokens.** The world counts a prompt the way the documented client-side approximation
estimates it (``shared/docs/models.md`` §6): a segment (a chat message, a decision
input) is ``ceil(chars / 4) + 4`` tokens and a prompt adds 2. Client estimates are
therefore exact against the world (they are not against a real server, whose tokenizer
differs); replies count ``ceil(chars / 4)`` tokens, at least 1.

**Prefix cache** (OpenAI's documented behaviour, §1): a prompt whose leading part is
identical to a prompt seen within ``ttl`` world seconds (default 10 minutes) is served
partly from cache. The shared prefix is counted in tokens segment by segment: every
identical leading segment in full, then the first differing segment's 4 framing tokens
plus ``common characters // 4`` when both have the same role. Nothing is cached below
1024 tokens; above, ``cached_tokens`` is the shared prefix rounded down to a multiple of
128, at most the prompt's own tokens. Every prompt is remembered after it is counted (the
most recent :data:`MAX_ENTRIES`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

PER_SEGMENT = 4
PRIMING = 2
MIN_CACHED = 1024
STEP = 128
MAX_ENTRIES = 512

Segment = tuple[str, str]
"""(role, text)"""


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def prompt_tokens(segments: Sequence[Segment]) -> int:
    """Tokens of a prompt: ``Σ (ceil(chars/4) + 4) + 2``."""
    return sum(text_tokens(text) + PER_SEGMENT for _, text in segments) + PRIMING


def completion_tokens(text: str) -> int:
    return max(1, text_tokens(text))


def common_prefix(a: str, b: str) -> int:
    """Length of the common leading part of ``a`` and ``b``: doubling, then a binary
    search on slices, so the work grows with the common part, not the texts."""
    limit = min(len(a), len(b))
    low, probe = 0, 64
    while probe < limit and a[:probe] == b[:probe]:
        low, probe = probe, probe * 2
    high = min(probe, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def shared_tokens(a: Sequence[Segment], b: Sequence[Segment]) -> int:
    """Tokens of the prefix two prompts share, segment by segment (module docs)."""
    total = 0
    for (role_a, text_a), (role_b, text_b) in zip(a, b, strict=False):
        if role_a != role_b:
            break
        if text_a == text_b:
            total += text_tokens(text_a) + PER_SEGMENT
            continue
        total += PER_SEGMENT + common_prefix(text_a, text_b) // 4
        break
    return total


class PrefixCache:
    """Recently seen prompts, and how much of a new one they cover."""

    def __init__(self, ttl_s: float = 600.0, max_entries: int = MAX_ENTRIES) -> None:
        self.ttl_s = ttl_s
        """World seconds a prompt stays cached after it was last seen."""
        self.max_entries = max_entries
        self._seen: OrderedDict[tuple[Segment, ...], float] = OrderedDict()

    def cached_tokens(self, segments: Sequence[Segment], world_now: float) -> int:
        """Cached tokens of ``segments`` against the prompts seen, then remember it."""
        key = tuple(segments)
        for old, seen in list(self._seen.items()):
            if world_now - seen > self.ttl_s:
                del self._seen[old]
        best = 0
        if key and self._seen:
            head = key[0]
            for old in self._seen:
                if old and old[0][0] == head[0] and old[0][1][:64] == head[1][:64]:
                    best = max(best, shared_tokens(key, old))
        self._seen[key] = world_now
        self._seen.move_to_end(key)
        while len(self._seen) > self.max_entries:
            self._seen.popitem(last=False)
        if best < MIN_CACHED:
            return 0
        return min(best // STEP * STEP, prompt_tokens(segments) // STEP * STEP)
