"""The disk cache of raw source responses: one async interface over one diskcache directory.

Raw responses are cached, not parsed records, so a parser change never invalidates the
cache. Each entry is stored as bytes, never as a pickle (the layout, and its encoding and
decoding: :mod:`verifier.http.entry`).

Keys are ``f"v{format_version}:{source}:{origin} {request_key}"``, where ``origin`` is the
normalised base URL the answer came from: the same request to the offline world and to
the real service are two entries, never one (a space cannot occur in a URL, so the pair
cannot blur). A change of this layout bumps :data:`CACHE_FORMAT_VERSION`, so new code
never reads old entries (they age out or are culled under the size limit); nothing is
wiped.

The cache is an optimisation: storage that cannot be opened raises
:class:`~verifier.errors.ConfigError` (the session turns that into one notice and runs
without a cache), and storage that fails in use (locked, corrupt, read-only, full) is
reported once through ``on_failure`` and not touched again by that instance.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import diskcache
from diskcache.core import MODE_BINARY, MODE_RAW

from verifier.errors import ConfigError
from verifier.threads import open_off_loop

from .entry import decode_response, encode_response
from .transport import HttpResponse

__all__ = [
    "CACHE_FORMAT_VERSION",
    "CacheStats",
    "ResponseCache",
    "decode_response",
    "encode_response",
    "normalise_origin",
]

CACHE_FORMAT_VERSION = 2
"""Version of the stored entry layout; part of every key. 2: keys carry the origin (the
base URL the answer came from)."""

LOCK_TIMEOUT_S = 2.0
"""How long one cache operation waits for a lock held by another process before the
storage counts as failed (SQLite's busy timeout; diskcache's default is a minute)."""

READ_BUSY_TIMEOUT_S = 0.005
"""How long a read on the event loop's thread (:meth:`ResponseCache.get_now`) waits for a
lock before giving up and leaving the read to the worker thread. Reads in WAL mode do not
wait for writers, so this bounds only the rare checkpoint or recovery."""

READER_MMAP_BYTES = 1 << 40
"""How much of the database file the loop's reader maps (``PRAGMA mmap_size``): all of
it, as far as SQLite allows (it lowers the figure to its build's ceiling, 2 GiB in common
builds: above the default size limit). A read of a page inside the map is a memory
access; outside it (and outside SQLite's small page cache) a ``pread`` system call. With
diskcache's own default (64 MB) every cache past that size paid the call on most reads:
random reads over a 384 MB cache took 13.4 µs of CPU each, 5.5 µs of it in the kernel,
against 9.7 µs and none with the whole file mapped. Mapped pages are the system's page
cache, shared and given back under memory pressure; the process's resident size counts
those it has touched."""

UNDECIDED: Any = object()
"""What :meth:`ResponseCache.get_now` returns when it could not read on the spot (a lock,
an entry in a file, an entry to check further): ask :meth:`ResponseCache.get`."""

_SELECT = (
    "SELECT mode, value FROM Cache WHERE key = ? AND raw = 1"
    " AND (expire_time IS NULL OR expire_time > ?)"
)
_PREFIXES = 256
"""Key prefixes (format version, source, normalised origin) one instance remembers: a
run has a handful of sources and base URLs, and every read and write names a pair."""
_T = TypeVar("_T")
_log = logging.getLogger(__name__)

# What a storage failure looks like from diskcache: SQLite errors, file errors, and its
# own Timeout when the database stays locked (another process writing).
_STORAGE_ERRORS = (sqlite3.Error, OSError, diskcache.Timeout)


class _NotBytesEntry(Exception):
    """An entry diskcache would have to unpickle or decode as text: never ours."""


class _BytesOnlyDisk(diskcache.Disk):  # type: ignore[misc]  # diskcache ships no stubs
    """Stores and returns ``bytes`` only; refuses to unpickle anything found on disk.

    Small values stay in SQLite (``MODE_RAW``), large ones go to files (``MODE_BINARY``).
    """

    def store(self, value: object, read: bool, key: object = diskcache.UNKNOWN) -> Any:
        if type(value) is not bytes or read:
            raise TypeError(f"the response cache stores bytes only, not {type(value).__name__}")
        return super().store(value, read, key=key)

    def fetch(self, mode: int, filename: str | None, value: object, read: bool) -> Any:
        if mode not in (MODE_RAW, MODE_BINARY) or read:
            raise _NotBytesEntry(f"entry stored in mode {mode}")
        return super().fetch(mode, filename, value, read)


@dataclass(frozen=True, slots=True)
class CacheStats:
    """A snapshot of one :class:`ResponseCache`: the directory's totals and this instance's
    counters since it was opened."""

    entries: int
    """Entries in the directory, all format versions, expired ones not yet culled included."""
    volume_bytes: int
    """Estimated disk use of the directory."""
    hits: int
    misses: int
    """Absent or expired entries, plus corrupt ones and reads that hit a storage failure."""
    stores: int
    corrupt: int
    """Entries that could not be decoded; each was deleted and read as a miss."""
    storage_errors: int
    """Reads and writes dropped because the storage failed (logged, never raised)."""


def normalise_origin(base_url: str) -> str:
    """``base_url`` as the cache keys it: scheme and host lower-cased, no trailing slash,
    no query (so no credential can reach a key)."""
    parts = urlsplit(base_url.strip())
    return urlunsplit(
        (parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), "", "")
    )


_normalised_origin = functools.lru_cache(maxsize=256)(normalise_origin)
""":func:`normalise_origin`, remembered: a run has a handful of base URLs and every cache
read and write names one."""


def _reason(exc: BaseException) -> str:
    """A storage failure in words a user can act on."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, diskcache.Timeout) or "locked" in text:
        return f"the cache is locked by another process ({text})"
    if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text:
        return f"the cache file is corrupt ({text})"
    if isinstance(exc, PermissionError) or "readonly" in text or "read-only" in text:
        return f"the cache folder is not writable ({text})"
    if isinstance(exc, FileExistsError | NotADirectoryError):
        return f"a file stands where the cache folder should be ({text})"
    return text


_running_loop: Callable[[], asyncio.AbstractEventLoop | None] = asyncio.events._get_running_loop
"""The event loop running in this thread, or None (asyncio's own, in C: no exception to
raise and catch when there is none)."""


class ResponseCache:
    """Raw HTTP responses on disk, keyed by source and request, each with its own lifetime.

    Contract:

    - The cache stores what it is given for as long as it is told. It knows no policy:
      the engine decides whether a response is stored and for how long (30 days for an
      answer, 1 day for "not found"; transient errors, throttling and 5xx are never
      stored). ``ttl_s`` must be a positive, finite number of seconds.
    - ``get`` returns ``None`` on a miss, on an expired entry, and on an entry it cannot
      decode (which it deletes). It never raises for what it finds on disk.
    - The cache is an optimisation, never a source of truth: when the storage itself
      fails (disk full, database locked for longer than :data:`LOCK_TIMEOUT_S`, a file
      that is not a database, a read-only folder) the read is a miss, the write is
      dropped, ``on_failure`` is called once with the reason and the fix (from the
      worker thread), and the instance leaves the storage alone from then on: every
      later read is a miss and every write is dropped, so a broken cache costs one
      timeout, not one per request. Using the cache after :meth:`close` is a bug and
      raises ``RuntimeError``; a bad directory at opening raises
      :class:`~verifier.errors.ConfigError`.
    - ``source`` must not contain ``":"`` (it delimits the key); ``origin`` is the base
      URL the response came from (normalised here: scheme and host lower-cased, no
      trailing slash); ``request_key`` is
      :meth:`HttpRequest.cache_key() <verifier.transport.HttpRequest.cache_key>`.
    - Entries written under another ``format_version`` are invisible.

    Reads are made on the calling thread when they can be at once (:meth:`get_now`: one
    read-only connection, a busy timeout of :data:`READ_BUSY_TIMEOUT_S`); everything else
    (writes, deletes, opening, closing, reads that cannot be made at once) runs on one
    worker thread owned by the instance, off the event loop; diskcache keeps one SQLite
    connection per thread, so a single thread means one connection, opened and closed on
    that thread. Several instances and processes may
    share a directory (SQLite in WAL mode). The instance is not bound to an event loop.
    """

    __slots__ = (
        "_cache",
        "_closed",
        "_corrupt",
        "_directory",
        "_executor",
        "_failed",
        "_format_version",
        "_hits",
        "_misses",
        "_on_failure",
        "_prefixes",
        "_reader",
        "_reader_lock",
        "_snapshot_loop",
        "_storage_errors",
        "_stores",
    )

    def __init__(
        self,
        directory: Path,
        *,
        size_limit_bytes: int = 2**30,
        format_version: int = CACHE_FORMAT_VERSION,
        on_failure: Callable[[str], None] | None = None,
        lock_timeout_s: float = LOCK_TIMEOUT_S,
    ) -> None:
        """Open (creating if needed) the cache in ``directory``.

        ``size_limit_bytes`` caps the directory; past it the oldest-stored entries are
        culled. ``format_version`` exists for tests and migrations; leave the default.
        ``on_failure`` is told, once, when the storage fails in use (see the class
        contract); it is called on the cache's worker thread.
        """
        if size_limit_bytes <= 0:
            raise ValueError(f"size_limit_bytes must be positive, not {size_limit_bytes}")
        self._directory = Path(directory)
        self._format_version = format_version
        self._hits = self._misses = self._stores = self._corrupt = self._storage_errors = 0
        self._on_failure = on_failure
        self._prefixes: dict[tuple[str, str], str] = {}
        self._failed: str | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="response-cache")
        self._closed = False
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()
        self._snapshot_loop: asyncio.AbstractEventLoop | None = None
        try:
            self._cache: Any = self._executor.submit(
                self._open, size_limit_bytes, lock_timeout_s).result()
        except BaseException as exc:
            self._closed = True
            self._executor.shutdown(wait=True)
            if isinstance(exc, _STORAGE_ERRORS):
                raise ConfigError(
                    f"cannot open the response cache at {self._directory}: {_reason(exc)}"
                ) from exc
            raise

    def _open(self, size_limit_bytes: int, lock_timeout_s: float) -> Any:
        self._directory.mkdir(parents=True, exist_ok=True)
        database = self._directory / diskcache.core.DBNAME
        if database.exists():
            # diskcache retries a locked database for a minute while it opens: find a
            # lock (or a file that is no database) first, within our own timeout.
            probe = sqlite3.connect(database, timeout=lock_timeout_s, isolation_level=None)
            try:
                probe.execute("BEGIN IMMEDIATE")
                probe.execute("ROLLBACK")
            finally:
                probe.close()
        cache = diskcache.Cache(
            str(self._directory), disk=_BytesOnlyDisk, size_limit=size_limit_bytes,
            timeout=lock_timeout_s,
        )
        try:
            # Opening alone does not read every page: touch the table, so a corrupt file
            # is found now, not on the first request.
            cache.get("v0:probe")
            # The connection for reads on the loop's thread (get_now): opened here, on the
            # worker, read-only, with a busy timeout of milliseconds.
            reader = sqlite3.connect(
                database, timeout=READ_BUSY_TIMEOUT_S, check_same_thread=False,
                isolation_level=None,
            )
            reader.execute("PRAGMA query_only = 1")
            # Map the whole file (READER_MMAP_BYTES): a warm run's reads are then memory
            # accesses, not pread system calls.
            reader.execute(f"PRAGMA mmap_size = {READER_MMAP_BYTES}")
            self._reader = reader
        except BaseException:
            cache.close()
            raise
        return cache

    @property
    def directory(self) -> Path:
        """The cache's directory."""
        return self._directory

    @property
    def format_version(self) -> int:
        """The entry format this instance reads and writes (part of every key)."""
        return self._format_version

    def _key(self, source: str, origin: str, request_key: str) -> str:
        prefix = self._prefixes.get((source, origin))
        if prefix is None:
            if not source or ":" in source:
                raise ValueError(
                    f"source name must be non-empty and free of ':', not {source!r}")
            prefix = f"v{self._format_version}:{source}:{_normalised_origin(origin)} "
            if len(self._prefixes) < _PREFIXES:
                self._prefixes[(source, origin)] = prefix
        return prefix + request_key

    @property
    def failed(self) -> str | None:
        """Why the storage was given up on in use, or None while it works."""
        return self._failed

    async def _run(self, fn: Callable[..., _T], *args: Any) -> _T:
        if self._closed:
            raise RuntimeError(f"{self!r} used after close()")
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def _storage_failed(self, action: str, key: str, exc: BaseException) -> None:
        self._storage_errors += 1
        if self._failed is not None:
            return
        self._failed = reason = f"{action} failed: {_reason(exc)}"
        # Once per instance; after that the counter in stats() tells the story. The key
        # is left out: it holds the request, and the message may end up in a report.
        message = (
            f"cache: not used for the rest of this run: {self._directory}: {reason}. "
            "The run goes on without it (slower; nothing is lost). Fix: close the other "
            "program using the folder, or remove the folder, or choose another one "
            "(--cache-dir DIR or VERIFIER_CACHE_DIR), or run with --no-cache."
        )
        _log.warning("%s", message)
        if self._on_failure is not None:
            self._on_failure(message)

    async def get(
        self, source: str, request_key: str, *, origin: str = ""
    ) -> HttpResponse | None:
        """The stored response for this request from ``source`` at ``origin``, or
        ``None``. Read on the calling thread when that can be done at once
        (:meth:`get_now`), else on the worker thread."""
        found = self.get_now(source, request_key, origin=origin)
        if found is not UNDECIDED:
            return found
        return await self._run(self._get_blocking, self._key(source, origin, request_key))

    def get_now(
        self, source: str, request_key: str, *, origin: str = "", count_miss: bool = True
    ) -> HttpResponse | None | Any:
        """The stored response, ``None`` on a miss, or :data:`UNDECIDED` when it cannot be
        read on the calling thread at once; then :meth:`get` reads it on the worker.
        ``count_miss=False`` leaves a miss out of :meth:`stats` (for a caller whose miss
        is always followed by a read that counts it).

        Meant for the event loop's thread: one indexed SQLite ``SELECT`` (tens of
        microseconds), bounded by :data:`READ_BUSY_TIMEOUT_S` when another process holds
        a lock. Anything else (an entry stored in a file, an entry that does not decode,
        a busy or failing database, another thread using the connection) is
        ``UNDECIDED`` and left to the worker, which handles it as :meth:`get` always has.
        Writes, opening and closing never happen here.

        Reads made in one turn of a running event loop share one SQLite read transaction
        (a snapshot): the turn's first read begins it and a callback the loop runs at its
        next turn ends it. A read thus sees the cache as it was at the first read of its
        turn; an entry committed meanwhile (by this cache's worker or another process)
        is seen from the next turn on, as if the read had been made a moment earlier.
        Without a running loop every read is a transaction of its own."""
        if self._closed:
            raise RuntimeError(f"{self!r} used after close()")
        prefix = self._prefixes.get((source, origin))  # _key's, without a call per read
        key = self._key(source, origin, request_key) if prefix is None else prefix + request_key
        if self._failed is not None:
            self._misses += count_miss
            return None
        reader = self._reader
        if reader is None or not self._reader_lock.acquire(blocking=False):
            return UNDECIDED
        try:
            loop = _running_loop()
            if loop is not self._snapshot_loop:
                self._switch_snapshot(reader, loop)
            row = self._select_on_loop(reader, key)
        except sqlite3.Error:
            return UNDECIDED  # busy, or failing: the worker finds out which, and reports
        finally:
            self._reader_lock.release()
        if row is None:
            self._misses += count_miss
            return None
        mode, value = row
        if mode != MODE_RAW or type(value) is not bytes:
            return UNDECIDED
        try:
            response = decode_response(value)
        except ValueError:
            return UNDECIDED  # the worker discards it and counts it
        self._hits += 1
        return response

    def _switch_snapshot(
        self, reader: sqlite3.Connection, loop: asyncio.AbstractEventLoop | None
    ) -> None:
        """End a snapshot another loop (or no loop) left open, and begin one for this
        turn of ``loop`` (none without a loop). Called with the reader's lock held.

        Why: a read outside a transaction takes and drops SQLite's shared lock and
        checks the file (two ``fcntl`` calls and an ``fstat``, all system calls); in a
        warm run a turn of the loop makes hundreds of reads (measured: 23,120 reads in
        79 turns), and those calls cost 5-15 us per read in the engine."""
        # Whatever transaction is open ends: another loop's, or one whose end failed.
        self._snapshot_loop = None
        self._end_read_on_loop(reader)
        if loop is not None:
            self._begin_read_on_loop(reader)
            self._snapshot_loop = loop
            loop.call_soon(self._end_snapshot, loop)

    def _end_snapshot(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop's callback that ends the snapshot its turn began (if it is still the
        open one: a later loop may have ended it already)."""
        if not self._reader_lock.acquire(blocking=False):
            # Another thread is using the connection (closing it, or reading): try again
            # at the next turn rather than wait on the loop.
            loop.call_soon(self._end_snapshot, loop)
            return
        try:
            reader = self._reader
            if self._snapshot_loop is loop:
                self._snapshot_loop = None
                if reader is not None:
                    self._end_read_on_loop(reader)
        except sqlite3.Error:
            pass  # a transaction that could not end is ended by the next switch or close
        finally:
            self._reader_lock.release()

    @staticmethod
    def _begin_read_on_loop(reader: sqlite3.Connection) -> None:
        """Begin a (deferred) read transaction: takes no lock until the first SELECT, so
        it never waits."""
        reader.execute("BEGIN")

    @staticmethod
    def _end_read_on_loop(reader: sqlite3.Connection) -> None:
        """End the read transaction, if one is open: drops the shared lock, never waits
        (the test suite's blocking-call detector allows this function as it allows
        :meth:`_select_on_loop`)."""
        if reader.in_transaction:
            reader.execute("COMMIT")

    @staticmethod
    def _select_on_loop(reader: sqlite3.Connection, key: str) -> Any:
        """The read made on the loop's thread, bounded by the busy timeout (the test
        suite's blocking-call detector allows this function and the two that begin and
        end a turn's read transaction): the
        entry's ``(mode, value)`` row, or None. One row at most: diskcache keys its table
        by a unique ``(key, raw)`` index, so no second step looks for another."""
        return reader.execute(_SELECT, (key, time.time())).fetchone()

    def _get_blocking(self, key: str) -> HttpResponse | None:
        if self._failed is not None:
            self._misses += 1
            return None
        try:
            value = self._cache.get(key)
        except _NotBytesEntry as exc:
            self._discard(key, exc)
            return None
        except _STORAGE_ERRORS as exc:
            self._storage_failed("read", key, exc)
            self._misses += 1
            return None
        if value is None:
            self._misses += 1
            return None
        try:
            response = decode_response(value)
        except ValueError as exc:
            self._discard(key, exc)
            return None
        self._hits += 1
        return response

    def _discard(self, key: str, reason: Exception) -> None:
        self._corrupt += 1
        self._misses += 1
        _log.warning(
            "response cache %s: dropped undecodable entry %r: %s", self._directory, key, reason
        )
        try:
            self._cache.delete(key)
        except _STORAGE_ERRORS as exc:
            self._storage_failed("delete", key, exc)

    async def put(
        self, source: str, request_key: str, response: HttpResponse, ttl_s: float,
        *, origin: str = "",
    ) -> None:
        """Store ``response`` for ``ttl_s`` seconds, replacing any entry under the same key."""
        if not (math.isfinite(ttl_s) and ttl_s > 0):
            raise ValueError(f"ttl_s must be a positive number of seconds, not {ttl_s}")
        key = self._key(source, origin, request_key)
        await self._run(self._put_blocking, key, encode_response(response), ttl_s)

    def _put_blocking(self, key: str, value: bytes, ttl_s: float) -> None:
        if self._failed is not None:
            return
        try:
            self._cache.set(key, value, expire=ttl_s)
        except _STORAGE_ERRORS as exc:
            self._storage_failed("write", key, exc)
        else:
            self._stores += 1

    async def clear(self) -> None:
        """Remove every entry in the directory, whatever its format version."""
        await self._run(self._cache.clear)

    async def stats(self) -> CacheStats:
        """Directory totals and this instance's counters."""
        entries, volume = await self._run(lambda: (len(self._cache), self._cache.volume()))
        return CacheStats(
            entries=entries,
            volume_bytes=volume,
            hits=self._hits,
            misses=self._misses,
            stores=self._stores,
            corrupt=self._corrupt,
            storage_errors=self._storage_errors,
        )

    def close(self) -> None:
        """Finish pending writes, close the SQLite connection and the worker thread.

        Idempotent. Blocks for as long as pending writes take (normally well under a
        millisecond each).
        """
        if self._closed:
            return
        self._closed = True
        try:
            # On the worker thread: that is where diskcache's connection lives.
            self._executor.submit(self._close_connections).result()
        finally:
            self._executor.shutdown(wait=True)

    def _close_connections(self) -> None:
        with self._reader_lock:
            reader, self._reader = self._reader, None
            self._snapshot_loop = None  # closing the connection ends its transaction
            if reader is not None:
                reader.close()
        self._cache.close()

    @classmethod
    async def open(cls, directory: Path, **options: Any) -> ResponseCache:
        """A cache opened on a worker thread: opening SQLite blocks, so not on the loop."""
        return await open_off_loop(lambda: cls(directory, **options), cls.close)

    async def __aenter__(self) -> ResponseCache:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<ResponseCache {str(self._directory)!r} v{self._format_version} {state}>"
