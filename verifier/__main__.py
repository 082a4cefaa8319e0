"""The ``verifier`` process: ``python -m verifier`` and the ``verifier`` script run
:func:`entry`, which runs :func:`verifier.cli.main.main` with what suits a process that
ends when the command does. (Tests and other callers in a process that goes on call
``main`` itself and get none of this.)

- Compiled regular expressions come from the store of earlier processes
  (:mod:`verifier.regex_store`), read before the CLI and the engine are imported, and
  the store gets what this process compiled anew (nothing is written when nothing is).
- The collector runs less often (:data:`PROCESS_GC_THRESHOLD`), and once the command
  returns every object is frozen (``gc.freeze``), so the interpreter's shutdown frees
  them without a last full collection. Everything else about the exit is as usual:
  threads joined, ``atexit`` handlers run, files flushed and closed.
"""

from __future__ import annotations

import gc
import sys
from typing import NoReturn

from . import regex_store

PROCESS_GC_THRESHOLD = (50_000, 20, 10)
"""The collector's thresholds in a ``verifier`` process (Python's default: 700, 10, 10).
A run allocates millions of short-lived, acyclic objects and keeps hundreds of thousands
(modules, patterns, caches): at the default, a cached re-run of 636 citations collected
about 240 times, some 45 ms; at these, a few times, under 20 ms."""


def entry() -> NoReturn:
    """Run the command line of ``sys.argv`` and exit with its code (see the module
    docstring)."""
    gc.set_threshold(*PROCESS_GC_THRESHOLD)
    regex_store.preload()
    from .cli.main import main

    code = main()
    regex_store.save()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
