"""A paced client's answers the cache gives at once: the hot path of a warm run.

:class:`CachedAnswers` is the front of one :class:`~verifier.http.client.PacedClient`'s
cache: a bounded memo of answers already read (least recently used out), then the disk
cache read on the calling thread (:meth:`ResponseCache.get_now
<verifier.http.cache.ResponseCache.get_now>`, which keeps its own contract: a snapshot
per turn of the loop, the SQLite read in its one named function, :data:`UNDECIDED` when
only the worker can tell), then the caller's reader. A warm run asks it for every request
it makes (about three per citation), so it is compiled (``native-modules.txt``), and so
is :class:`Fetched`, the client's answer, which every hit builds.

The client owns the rest (single flight, the gate, retries, storing) and tells this when
an answer it fetched was stored (:meth:`CachedAnswers.remember`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar

from verifier.errors import SourceError

from .cache import UNDECIDED
from .transport import HttpRequest, HttpResponse

if TYPE_CHECKING:
    from .cache import ResponseCache
    from .gate import SourceGate

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Reader(Protocol[T_co]):
    """What this module asks of a :class:`~verifier.http.client.ResponseReader`."""

    def read(self, request: HttpRequest, response: HttpResponse) -> T_co: ...


class Fetched(Generic[T]):
    """One request's answer: the reader's value, what it cost, where it came from.

    Never changed once made (``Final``: the type check refuses a change and, compiled, so
    does the object, with ``AttributeError``); compared, hashed and shown by its four
    fields as the frozen dataclass it was. A plain class rather than that dataclass
    (mypyc compiles no generic slotted dataclass): compiled, it is made as a C struct is,
    where the dataclass's ``__init__`` ran as Python (7 k instructions, once per hit)."""

    __slots__ = ("value", "response", "requests", "cached")

    def __init__(self, value: T, response: HttpResponse, requests: int, cached: bool) -> None:
        self.value: Final = value
        self.response: Final = response
        self.requests: Final = requests
        """Requests sent to the network for this call (0 for a cache hit or a joined
        flight)."""
        self.cached: Final = cached

    def _fields(self) -> tuple[object, HttpResponse, int, bool]:
        return (self.value, self.response, self.requests, self.cached)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Fetched:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"Fetched(value={self.value!r}, response={self.response!r}, "
                f"requests={self.requests!r}, cached={self.cached!r})")


def flight_key(reader: object, cache_key: str) -> str:
    """What one flight and one remembered answer are keyed by: the request's cache key
    and the reader of its answer (one response may be read by several readers)."""
    return f"{type(reader).__qualname__}:{cache_key}"


class CachedAnswers:
    """One client's answers from the cache without waiting (see the module docstring).

    Counting is the client's: each answer given (from the memo or the disk) counts one
    cache hit on the gate's stats; a miss is left to the fetch that follows."""

    __slots__ = ("_cache", "_gate", "_memo", "_origin", "_scope", "memo_size")

    def __init__(self, cache: ResponseCache | None, *, scope: str, origin: str,
                 gate: SourceGate, memo_size: int) -> None:
        self._cache = cache
        self._scope = scope
        self._origin = origin
        self._gate = gate
        self.memo_size = memo_size
        self._memo: OrderedDict[str, tuple[Any, HttpResponse]] = OrderedDict()

    def __len__(self) -> int:
        """Answers remembered."""
        return len(self._memo)

    def now(self, request: HttpRequest, key: str, flight: str, reader: Reader[T],
            count_miss: bool) -> Fetched[T] | None | Any:
        """The cached answer; None when there is none (or the reader cannot read it);
        :data:`UNDECIDED` when only the cache's worker thread can tell. ``key`` is the
        request's cache key, ``flight`` its :func:`flight_key` with ``reader``. Asked
        only where the client's policy reads the cache (None without a cache)."""
        remembered = self.remembered(flight)
        if remembered is not None:
            return remembered
        cache = self._cache
        if cache is None:
            return None
        found = cache.get_now(self._scope, key, origin=self._origin, count_miss=count_miss)
        if found is UNDECIDED or found is None:
            return found
        return self.read(request, found, reader, flight)

    def remembered(self, flight: str) -> Fetched[Any] | None:
        """The answer remembered for ``flight`` (counted a cache hit), else None: the memo
        alone, never the disk (for a caller that has just read the disk and missed)."""
        memo = self._memo
        remembered = memo.get(flight)
        if remembered is None:
            return None
        memo.move_to_end(flight)
        self._gate.stats.cache_hits += 1
        return Fetched(remembered[0], remembered[1], 0, True)

    def read(self, request: HttpRequest, response: HttpResponse, reader: Reader[T],
             flight: str) -> Fetched[T] | None:
        """``response`` (from the cache) read by ``reader`` and remembered; None when the
        reader cannot read it (an entry the current reader cannot read is a miss)."""
        try:
            value = reader.read(request, response)
        except SourceError:
            return None
        self._gate.stats.cache_hits += 1
        self.remember(flight, value, response)
        return Fetched(value, response, 0, True)

    def remember(self, flight: str, value: Any, response: HttpResponse) -> None:
        """Keep an answer read or stored by the client (least recently used out)."""
        memo = self._memo
        memo[flight] = (value, response)
        memo.move_to_end(flight)
        if len(memo) > self.memo_size:
            memo.popitem(last=False)
