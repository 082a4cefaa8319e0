"""Build the Walters & Wilder world: the offline corpus the 636-citation benchmark runs on.

Run::

    .venv/bin/python bench/ww_world.py --data ../shared/data/walters_wilder_2023 \\
        --out PATH [--seed N] [--background N] [--manifest PATH]

or import :func:`build_world` / :func:`write_world`. The coverage model and every rule
used here are written down, with reasons, in ``bench/WW_WORLD.md``; the figures in
:data:`COVERAGE` are that document's, and change only with it.

The labels of the data (``fabricated``, ``ww_note``, HALLMARK's fields) decide which works
exist and what their true metadata is. Nothing in a corpus line says why a work is in the
world: ids are hashes, lines are sorted by id, and cited, decoy and background works go
through the same generation and rendering code. The optional manifest (``--manifest``,
:func:`build_world_with_manifest`) records each work's role for audits and tests; the
engine must never read it.

Determinism: every random choice comes from a :class:`random.Random` seeded with the
SHA-256 of the seed and a stable key of the work and the purpose of the draw, so the
output does not depend on processing order, set order or ``hash()``.

The citation extraction here is deliberately independent of ``verifier.parse``: it is a
small extractor written for the formats of this data set, so the engine's parser errors
are not baked into the world.

This module is the public face and the command line; the generator lives in
:mod:`wwgen` (``bench/wwgen/``), one module per part of ``WW_WORLD.md``:

- ``model`` — the coverage model and generation rules (the document's figures);
- ``text``, ``extract`` — determinism, names, and the citation extractor;
- ``works``, ``notes`` — a work before rendering, and the ``ww_note`` rules;
- ``identifiers``, ``coverage``, ``vocab`` — DOIs/ISBNs/ISSNs, which source holds a
  work and how it renders it, generated titles;
- ``builder``, ``decoys``, ``background`` — the cited works, the decoys around them, the
  background corpus, and the final lines.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from wwgen.builder import Builder
from wwgen.coverage import presence_model
from wwgen.extract import extract_citation, load_rows
from wwgen.identifiers import isbn_valid, issn_check
from wwgen.model import SOURCES
from wwgen.notes import apply_title_fragment
from wwgen.text import fold, join_title
from wwgen.works import Spec

# ============================================================================ public API


def build_world_with_manifest(
    data_dir: Path, *, seed: int = 2023, background: int = 6000
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Corpus lines and the audit manifest (the role of every line; never for the engine)."""
    builder = Builder(Path(data_dir), seed, background)
    builder.prepare()
    builder.real_works()
    builder.decoys()
    builder.background_works()
    built = builder.finalize()
    return built.lines, built.manifest


def build_world(data_dir: Path, *, seed: int = 2023, background: int = 6000
                ) -> list[dict[str, Any]]:
    """The corpus lines of the Walters & Wilder world, sorted by id."""
    return build_world_with_manifest(data_dir, seed=seed, background=background)[0]


def dumps_line(line: Mapping[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False, sort_keys=False, separators=(",", ":"))


def write_world(lines: Iterable[Mapping[str, Any]], path: Path) -> None:
    """Write corpus lines as JSON Lines (UTF-8, one work per line, "\\n" endings)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for line in lines:
            fh.write(dumps_line(line) + "\n")


def summary(lines: Sequence[Mapping[str, Any]], manifest: Sequence[Mapping[str, Any]]
            ) -> dict[str, Any]:
    roles = Counter(m["role"] for m in manifest)
    per_source = Counter(s for line in lines for s in line["sources"])
    return {"works": len(lines), "roles": dict(sorted(roles.items())),
            "per_source": dict(sorted(per_source.items()))}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "data"
                        / "walters_wilder_2023")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=2023)
    parser.add_argument("--background", type=int, default=6000)
    parser.add_argument("--manifest", type=Path, default=None,
                        help="also write the audit manifest (roles; never for the engine)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    lines, manifest = build_world_with_manifest(args.data, seed=args.seed,
                                                background=args.background)
    write_world(lines, args.out)
    if args.manifest:
        write_world(manifest, args.manifest)
    info = summary(lines, manifest)
    info["seconds"] = round(time.perf_counter() - started, 2)
    print(json.dumps(info, indent=2), file=sys.stderr)
    return 0



__all__ = [
    "SOURCES", "Spec", "apply_title_fragment", "build_world", "build_world_with_manifest",
    "dumps_line", "extract_citation", "fold", "isbn_valid", "issn_check", "join_title",
    "load_rows", "main", "presence_model", "summary", "write_world",
]


if __name__ == "__main__":
    raise SystemExit(main())
