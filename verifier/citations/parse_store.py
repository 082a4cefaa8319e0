"""Parses kept between runs: a re-run of the same references reads each parse instead of
parsing the text again.

A parse is a pure function of the text and of the parser's code and model, so it can be
kept like an answer. The store is one SQLite file in the cache folder, named by the
parser's **fingerprint** (:func:`parser_fingerprint`: a hash of every file the parser is
made of, model included), so a parser that changed in any way never reads an old parse;
files of other fingerprints are deleted when the store opens.

The contract, as for the response cache it lives beside:

- It is a cache: it cannot be opened, read or written? The run parses as if it were not
  there (no error, no notice: the parse is only slower). ``--no-cache`` means no store;
  ``--refresh`` means parses are made anew and stored.
- :meth:`ParseStore.get_now` runs on the event loop's thread: one indexed ``SELECT`` on a
  read-only connection with a busy timeout of milliseconds (a writer in another process
  never stalls the loop: it is a miss). Opening, writing and closing run on a worker
  thread; new parses are written in batches and at close.
- What is stored is :func:`encode` of the :class:`~verifier.citations.models.Citation`;
  :func:`decode` gives back an equal value (a test checks every parse of the gold data).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from verifier import identifiers as _standard_identifiers
from verifier import value_memos as _value_memos
from verifier.native import source_of
from verifier.threads import open_off_loop

from . import identifiers as _citation_identifiers
from . import invisibles as _invisibles
from . import models as _models
from .models import Author, Citation, Identifiers, WorkType

CODEC_VERSION = 1
"""Bumped whenever :func:`encode` changes its layout."""

READ_BUSY_TIMEOUT_S = 0.005
"""How long a read on the loop's thread may wait for another process's lock."""

BATCH = 512
"""New parses written together (and at close)."""

_CITATIONS = Path(__file__).resolve().parent
_DERIVED = frozenset({".pyc", ".so"})
"""Files built from the parser's sources (bytecode, modules compiled at install): the
sources decide the parses, so only they are fingerprinted."""
_PARSING = _CITATIONS / "parsing"


def parser_files() -> list[Path]:
    """Every file the parser is made of: the parsing package (sources and model) and the
    modules it imports from outside it (``tests/test_parse_store.py`` checks that this
    covers every module importing the parser loads)."""
    files = sorted(p for p in _PARSING.rglob("*") if p.is_file()
                   and p.suffix not in _DERIVED and "__pycache__" not in p.parts)
    files += [source_of(module).resolve()
              for module in (_standard_identifiers, _value_memos, _citation_identifiers,
                             _invisibles, _models)]
    return [*files, _CITATIONS / "__init__.py"]


@functools.cache
def parser_fingerprint() -> str:
    """A hash of the codec version and of every parser file's path and bytes, computed
    once per process (the parser a process runs is the one it loaded)."""
    digest = hashlib.sha256(f"codec {CODEC_VERSION}\n".encode())
    for path in parser_files():
        digest.update(path.relative_to(_CITATIONS.parent.parent).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def _author(a: Author) -> list[str]:
    return [a.family, a.given, a.literal]


def encode(citation: Citation) -> bytes:
    """The citation as compact JSON (a list in field order)."""
    ids = citation.identifiers
    return orjson.dumps([
        [_author(a) for a in citation.authors], citation.et_al, citation.year, citation.title,
        citation.container, citation.volume, citation.issue, citation.pages,
        citation.publisher, [_author(a) for a in citation.editors], citation.type.value,
        [ids.doi, list(ids.isbn), list(ids.issn), ids.arxiv, ids.pmid, ids.pmcid, ids.url],
        citation.place, citation.edition,
    ])


def decode(value: bytes) -> Citation:
    """The citation :func:`encode` wrote (ValueError, TypeError or KeyError on anything
    else)."""
    (authors, et_al, year, title, container, volume, issue, pages, publisher, editors, kind,
     ids, place, edition) = orjson.loads(value)
    doi, isbn, issn, arxiv, pmid, pmcid, url = ids
    return Citation(
        authors=tuple(Author(f, g, lit) for f, g, lit in authors), et_al=et_al, year=year,
        title=title, container=container, volume=volume, issue=issue, pages=pages,
        publisher=publisher, editors=tuple(Author(f, g, lit) for f, g, lit in editors),
        type=WorkType(kind),
        identifiers=Identifiers(doi=doi, isbn=tuple(isbn), issn=tuple(issn), arxiv=arxiv,
                                pmid=pmid, pmcid=pmcid, url=url),
        place=place, edition=edition,
    )


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class ParseStore:
    """The parses of one parser fingerprint in ``directory`` (see the module docstring).
    Open with :meth:`open` and close with :meth:`close`, both off the event loop."""

    def __init__(self, path: Path, *, read: bool) -> None:
        self.path = path
        self._read = read
        self._writer: sqlite3.Connection | None = None
        self._reader: sqlite3.Connection | None = None
        self._pending: dict[bytes, bytes] = {}
        self._write_lock = threading.Lock()
        self._flushing: set[asyncio.Task[None]] = set()
        self.hits = 0
        self.misses = 0

    @classmethod
    async def open(cls, directory: Path, *, read: bool = True) -> ParseStore | None:
        """The store for this parser in ``directory``, or None when it cannot be opened
        (the run parses without it)."""
        try:
            return await open_off_loop(lambda: cls._open_blocking(directory, read),
                                       lambda store: store._close_blocking(()))
        except (OSError, sqlite3.Error, ValueError):
            return None

    @classmethod
    def _open_blocking(cls, directory: Path, read: bool) -> ParseStore:
        directory.mkdir(parents=True, exist_ok=True)
        name = f"parses-{parser_fingerprint()}.sqlite3"
        for old in directory.glob("parses-*.sqlite3*"):
            if not old.name.startswith(name):
                with contextlib.suppress(OSError):
                    old.unlink()  # another parser's: never read again
        store = cls(directory.absolute() / name, read=read)  # a file URI needs it whole
        writer = sqlite3.connect(store.path, timeout=5.0, check_same_thread=False,
                                 isolation_level=None)
        try:
            writer.execute("PRAGMA journal_mode=WAL")
            writer.execute("CREATE TABLE IF NOT EXISTS parses "
                           "(key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID")
        except sqlite3.Error:
            writer.close()
            raise
        store._writer = writer
        if read:
            reader = sqlite3.connect(f"{store.path.as_uri()}?mode=ro", uri=True,
                                     timeout=READ_BUSY_TIMEOUT_S, check_same_thread=False)
            store._reader = reader
        return store

    def get_now(self, text: str) -> Citation | None:
        """The stored parse of ``text``, or None (a miss, a busy or failing database, an
        entry that does not decode). On the loop's thread: one indexed SELECT."""
        reader = self._reader
        if reader is None:
            return None
        try:
            rows = self._select_on_loop(reader, _key(text))
            citation = decode(rows[0][0]) if rows else None
        except (sqlite3.Error, ValueError, TypeError, KeyError):
            citation = None
        if citation is None:
            self.misses += 1
        else:
            self.hits += 1
        return citation

    @staticmethod
    def _select_on_loop(reader: sqlite3.Connection, key: bytes) -> list[Any]:
        """The one blocking call made on the loop's thread, bounded by the busy timeout
        (the test suite's blocking-call detector allows exactly this function)."""
        return reader.execute("SELECT value FROM parses WHERE key = ?", (key,)).fetchall()

    def remember(self, text: str, citation: Citation) -> None:
        """Keep ``citation`` as the parse of ``text``: written with the next batch, on a
        worker thread."""
        try:
            self._pending[_key(text)] = encode(citation)
        except TypeError:  # a string JSON cannot hold (a lone surrogate): not kept
            return
        if len(self._pending) >= BATCH:
            batch, self._pending = list(self._pending.items()), {}
            task = asyncio.get_running_loop().create_task(asyncio.to_thread(self._write, batch))
            self._flushing.add(task)
            task.add_done_callback(self._flushing.discard)

    def _write(self, batch: Sequence[tuple[bytes, bytes]]) -> None:
        writer = self._writer
        if writer is None or not batch:
            return
        with self._write_lock, contextlib.suppress(sqlite3.Error):  # a failed write: a miss
            writer.executemany("INSERT OR REPLACE INTO parses (key, value) VALUES (?, ?)",
                               batch)

    async def close(self) -> None:
        """Write what is pending and close, off the loop."""
        if self._flushing:
            await asyncio.gather(*self._flushing, return_exceptions=True)
        batch, self._pending = list(self._pending.items()), {}
        await asyncio.to_thread(self._close_blocking, batch)

    def _close_blocking(self, batch: Sequence[tuple[bytes, bytes]]) -> None:
        self._write(batch)
        for connection in (self._reader, self._writer):
            if connection is not None:
                with contextlib.suppress(sqlite3.Error):
                    connection.close()
        self._reader = self._writer = None
