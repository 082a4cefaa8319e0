"""The demo data, shipped inside the package: a 52-work corpus and 17 APA references.

``corpus.jsonl`` and ``refs.txt`` live beside this module (package data), so the demo
runs from an installed wheel as from a source checkout. Use :func:`demo_files` for real
file paths (a zipped install extracts them for the duration of the block)::

    with demo_files() as demo:
        async with serve_world(demo.corpus) as world:
            ...  # check demo.refs against world.base_urls

What the corpus holds and what each reference should come to: ``fixtures/world/README.md``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

CORPUS_NAME = "corpus.jsonl"
REFS_NAME = "refs.txt"


@dataclass(frozen=True, slots=True)
class DemoFiles:
    """Where the demo's files are, as paths valid inside :func:`demo_files`."""

    corpus: Path
    """The demo corpus (JSON Lines, the world's corpus format)."""
    refs: Path
    """The demo references, one APA citation per line."""


@contextlib.contextmanager
def demo_files() -> Iterator[DemoFiles]:
    """The demo's corpus and references as files, for the duration of the block. Raises
    ``FileNotFoundError`` if the package was installed without its data."""
    root = files(__name__)
    with as_file(root / CORPUS_NAME) as corpus, as_file(root / REFS_NAME) as refs:
        for path in (corpus, refs):
            if not path.is_file():
                raise FileNotFoundError(f"demo data {path} missing from the installed package")
        yield DemoFiles(corpus=corpus, refs=refs)


__all__ = ["CORPUS_NAME", "REFS_NAME", "DemoFiles", "demo_files"]
