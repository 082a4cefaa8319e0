"""The process's memos of values: one registry of every bounded memo keyed by the text of
a citation or of an answer (normalised titles and names, parses, title forms,
corrections, cache-key quoting), so that all of them can be emptied at once.

Such a memo pays off when the same text comes back (a work ranked in many searches, a
citation checked twice); on text never met before it is only a miss. So a benchmark of
*distinct* citations empties them all before each timed pass (:func:`forget_all`), or a
pass over the citations its warm-up already checked would read its own results back.
Memos of configuration (plans kept by citation traits, a loaded model, an origin's
normal form) are not values of this kind and are not registered here.

Contract: a registered memo is a pure function's cache, so emptying one changes no
result, only how long the next call takes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_clearers: list[Callable[[], Any]] = []


def value_memo(maxsize: int) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """``functools.lru_cache(maxsize)``, registered so :func:`forget_all` empties it."""
    if maxsize <= 0:
        raise ValueError(f"a value memo needs a positive size, not {maxsize}")

    def decorate(function: Callable[..., T]) -> functools._lru_cache_wrapper[T]:
        memoised = functools.lru_cache(maxsize=maxsize)(function)
        _clearers.append(memoised.cache_clear)
        return memoised

    return decorate


def register_memo(clear: Callable[[], Any]) -> None:
    """Register a memo that is not an ``lru_cache`` (a module's own dict) by the call that
    empties it."""
    _clearers.append(clear)


K = TypeVar("K")
V = TypeVar("V")


def keep(memo: dict[K, V], key: K, value: V, maxsize: int) -> V:
    """Keep ``value`` for ``key`` in ``memo``, a plain dict memo (registered with
    :func:`register_memo`) emptied first when it holds ``maxsize`` entries; returns
    ``value``. Cheaper to look up than a value memo where the key is at hand (no key
    tuple made and hashed per call); starting over keeps it bounded."""
    if len(memo) >= maxsize:
        memo.clear()
    memo[key] = value
    return value


def forget_all() -> int:
    """Empty every registered memo; returns how many there are."""
    for clear in _clearers:
        clear()
    return len(_clearers)
