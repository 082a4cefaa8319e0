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

PROCESS_GC_THRESHOLD = (1_000_000, 20, 10)
"""The collector's thresholds in a ``verifier`` process (Python's default: 700, 10, 10).
A run allocates millions of short-lived, acyclic objects and keeps hundreds of thousands
(modules, patterns, caches). A young collection costs by the objects that outlived
their allocation since the last one: each is visited, and in a warm run they are the
memo entries that fill the process's bounded memos, none of them garbage. Measured over
a warm pass of 19,026 distinct cached citations (``verifier bench throughput``'s
distinct workload): the pass leaves about 250,000 such objects and 15 objects of cyclic
garbage. At 700 a cached re-run of 636 citations collected about 240 times (some
45 ms); at 50,000 a pass over 4,000 citations spent a tenth of its CPU in 5 collections;
at 200,000 the 19,026-citation pass still made 2 collections of about 170 ms (3 % of its
CPU); at 1,000,000 it makes none (passes over that workload alternated between the
two thresholds in one process: ×1.03 citations per CPU-second). The price: a young
collection, when one comes, visits up to a million objects (at the rate measured, about
0.85 s, where 200,000 took 0.17 s), and cyclic garbage waits longer for its collection
(at most some million container objects; the warm pass above made 15)."""


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
