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

PROCESS_GC_THRESHOLD = (200_000, 20, 10)
"""The collector's thresholds in a ``verifier`` process (Python's default: 700, 10, 10).
A run allocates millions of short-lived, acyclic objects and keeps hundreds of thousands
(modules, patterns, caches): at the default, a cached re-run of 636 citations collected
about 240 times, some 45 ms. A young collection costs by the objects that outlived their
allocation since the last one (each is visited, and most of a warm run's are answers and
memo entries that the memos later drop): at 50,000, a pass over 4,000 distinct cached
citations spent about a tenth of its CPU in 5 collections of 85 ms; at 200,000, one
collection of 180 ms (``verifier bench throughput``: ×1.06–×1.14 distinct citations per
CPU-second, peak RSS unchanged). Cyclic garbage waits longer for its collection: at most
some 200,000 container objects, tens of megabytes."""


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
