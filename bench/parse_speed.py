"""The parser alone: process CPU per reference of the default parser, by the path it takes.

    verifier bench parse-speed [--distinct N] [--rounds R] [--data DIR]

Parses the ``--distinct`` citations rendered from the W&W world as ``verifier bench
throughput`` renders them (APA, then MLA, then Chicago; default 20,000, fewer after
removing repeats) and the 636 Walters & Wilder citations with
:func:`~verifier.citations.parsing.parse_citation`, the process's value memos emptied
before each round (every parse is a fresh one, its CRF features too), the CRF's model
opened beforehand and the garbage collector's thresholds as the CLI sets them. Prints,
per round, microseconds of process CPU per reference overall and for each path:
``rules`` (an author-date reference the rules complete,
:mod:`verifier.citations.parsing.combined`) and ``crf`` (every other reference,
including an author-date one the rules leave incomplete). Compare two
commits by running it at each, alternately: the machine's load moves the figures.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from throughput import distinct_citations
from walters_wilder import DEFAULT_DATA, read_citations, world_corpus

from verifier.__main__ import PROCESS_GC_THRESHOLD
from verifier.citations.parsing import parse_citation, warm_up
from verifier.citations.parsing.combined import _AUTHOR_DATE
from verifier.citations.parsing.core import parse_citation as parse_rules
from verifier.value_memos import forget_all


def path_of(text: str) -> str:
    """``rules`` when the default parser keeps the rules' reading of ``text``, else ``crf``
    (the test :func:`~verifier.citations.parsing.combined._parse` applies)."""
    if _AUTHOR_DATE.match(text[:500].lstrip()):
        ruled = parse_rules(text)
        if ruled.title and (ruled.authors or ruled.year is not None):
            return "rules"
    return "crf"


def cpu_per_text(texts: Sequence[str]) -> float:
    """Microseconds of process CPU per text for parsing ``texts`` once, the process's value
    memos (the parse memo, the CRF's feature memos) emptied first."""
    forget_all()
    started = time.process_time()
    for text in texts:
        parse_citation(text)
    return 1e6 * (time.process_time() - started) / max(1, len(texts))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench parse-speed",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="the W&W data folder (default: ../shared/data/walters_wilder_2023)")
    parser.add_argument("--distinct", type=int, default=20_000,
                        help="rendered citations (default 20,000; 0 for none)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.distinct < 0:
        parser.error("--rounds must be at least 1 and --distinct not negative")
    data = Path(args.data)
    texts = [c.text for c in read_citations(data / "ww2023_citations.csv")]
    if args.distinct > 0:
        with tempfile.TemporaryDirectory(prefix="parse-speed-") as tmp:
            corpus = world_corpus(argparse.Namespace(corpus=None, data=str(data)), Path(tmp))
            texts += [c.text for c in distinct_citations(corpus, args.distinct)]
    texts = list(dict.fromkeys(texts))
    warm_up()
    paths: dict[str, list[str]] = {"rules": [], "crf": []}
    for text in texts:
        paths[path_of(text)].append(text)
    gc.set_threshold(*PROCESS_GC_THRESHOLD)
    print(f"{len(texts):,} references: {len(paths['rules']):,} rules, "
          f"{len(paths['crf']):,} crf")
    for number in range(args.rounds):
        figures = {"all": cpu_per_text(texts)} | {name: cpu_per_text(group)
                                                   for name, group in paths.items()}
        print(f"round {number}: " + ", ".join(f"{name} {value:.1f} us"
                                                for name, value in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
