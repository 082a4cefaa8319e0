"""Compiled regular expressions kept across processes, so a new ``verifier`` process does
not compile its patterns again.

Python compiles every pattern anew in each process: the parser's patterns (generated
alternations of tens of kilobytes) take over 0.1 s of a ``verifier check`` start. The
compiled form is a list of integers that depends only on the pattern, its flags and the
Python build, so it can be kept. :func:`preload` reads the store and puts the patterns it
holds into :mod:`re`'s own cache, where ``re.compile`` finds them; :func:`save` adds the
patterns this process compiled that the store lacked.

The contract:

- Only the CLI's process entry uses it (:mod:`verifier.cli.entry`): a library user's
  process is left alone.
- The store is a cache: a missing, unreadable, corrupt or foreign file (another Python
  build) is ignored and replaced; a folder that cannot be written means no store.
  Neither call ever raises.
- A stored pattern is exactly what ``re.compile`` builds: each entry is checked equal
  (``==`` on patterns compares pattern, flags and compiled code) to the pattern
  ``re.compile`` built before it is stored, and ``_sre`` validates the code it is given.
- It relies on CPython internals (``re._cache``, ``re._parser``, ``re._compiler``,
  ``_sre.compile``) as they are in 3.11 to 3.13; on any other interpreter, or if they
  differ, both calls do nothing.
- At most :data:`MAX_PATTERNS` entries: past it the store keeps this process's patterns
  only. Written whole to a temporary file and renamed, so a reader sees an old or a new
  store, never half of one.
"""

from __future__ import annotations

import contextlib
import importlib
import marshal
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

_re: Any = re
"""``re`` as this module reads it: its internals (``_cache``, ``_parser``, ``_compiler``)."""
try:
    _sre: Any = importlib.import_module("_sre")
except ImportError:  # not CPython
    _sre = None

MAX_PATTERNS = 1024
"""Entries kept at most (about 3 KB each on average for the parser's patterns)."""

_FORMAT = 1
_SUPPORTED = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)

Key = tuple[type, str | bytes, int]
Entry = tuple[str | bytes, int, int, list[int], int, dict[str, int], tuple[str | None, ...]]
"""(pattern, flags as given, flags compiled, code, groups - 1, group index, index group)."""

_loaded: dict[Key, Entry] = {}
"""What :func:`preload` read (``save`` keeps it and adds what is new)."""


def default_path() -> Path:
    """The store for this Python build, in the user's cache folder (where the response
    cache lives by default: ``$XDG_CACHE_HOME`` or ``~/.cache``, ``citation-verifier``);
    ``VERIFIER_REGEX_STORE`` names another file."""
    given = os.environ.get("VERIFIER_REGEX_STORE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citation-verifier" / f"regex-{sys.implementation.cache_tag}.bin"


def _stamp() -> tuple[int, str, int]:
    """What a store must have been written by: this format, this exact Python build."""
    return (_FORMAT, sys.version, getattr(_sre, "MAGIC", 0))


def preload(path: Path | None = None) -> int:
    """Put the store's patterns into ``re``'s cache; return how many (0 when there is no
    usable store). Call it before the modules whose patterns it should spare."""
    if not _SUPPORTED or not isinstance(getattr(_re, "_cache", None), dict):
        return 0
    try:
        stamp, entries = marshal.loads((path or default_path()).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return 0
    if stamp != _stamp() or not isinstance(entries, list):
        return 0
    room = max(0, getattr(_re, "_MAXCACHE", 512) - 64 - len(_re._cache))
    seeded = 0
    for entry in entries:
        try:
            pattern, flags = entry[0], entry[1]
            key: Key = (type(pattern), pattern, flags)
            compiled = _sre.compile(pattern, *entry[2:]) if seeded < room else None
        except Exception:  # a bad entry is skipped, never raised
            continue
        _loaded[key] = entry  # known (not new to save) even when there is no room for it
        if compiled is not None:
            _re._cache.setdefault(key, compiled)
            seeded += 1
    return seeded


def save(path: Path | None = None) -> bool:
    """Store the patterns in ``re``'s cache that the store lacks (with those it holds);
    return whether the store was written. Nothing is written when nothing is new."""
    if not _SUPPORTED or not isinstance(getattr(_re, "_cache", None), dict):
        return False
    current = {key: compiled for key, compiled in list(_re._cache.items())
               if isinstance(key, tuple) and len(key) == 3 and key[0] in (str, bytes)
               and not key[2] & re.DEBUG}
    new = {key: entry for key, compiled in current.items() if key not in _loaded
           and (entry := _entry(key, compiled)) is not None}
    if not new:
        return False
    kept = {**_loaded, **new}
    if len(kept) > MAX_PATTERNS:
        kept = {key: entry for key in current
                if (entry := new.get(key) or _loaded.get(key)) is not None}
    target = path or default_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        data = marshal.dumps((_stamp(), list(kept.values())[:MAX_PATTERNS]))
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except (OSError, ValueError):
        return False
    _loaded.update(new)
    return True


def _entry(key: Key, compiled: Any) -> Entry | None:
    """What ``_sre.compile`` needs to build ``compiled`` again, checked by building it;
    None when this Python's internals are not the ones this module knows."""
    _, pattern, flags = key
    try:
        parsed = _re._parser.parse(pattern, flags)
        code = [int(op) for op in _re._compiler._code(parsed, flags)]
        state = parsed.state
        index = [None] * state.groups
        for name, number in state.groupdict.items():
            index[number] = name
        entry: Entry = (pattern, flags, int(flags | state.flags), code, state.groups - 1,
                        dict(state.groupdict), tuple(index))
        rebuilt = _sre.compile(pattern, *entry[2:])
    except Exception:  # unknown internals: the pattern is not stored
        return None
    return entry if rebuilt == compiled else None
