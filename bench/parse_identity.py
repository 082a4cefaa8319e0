"""Every parse of a fixed set of reference texts, for proving a speed change identical.

    verifier bench parse-identity --out FILE [--data DIR] [--distinct N]

Writes one JSON line per text: the text, then its parse by the default (combined)
parser, by the rules alone and by the CRF alone (:mod:`verifier.citations.parsing`).
The texts are every string of the parsing gold data (``parsing_gold/*.jsonl``, all
splits), the 636 Walters & Wilder citations and ``--distinct`` citations rendered from
the W&W world as ``verifier bench throughput`` renders them (APA, then MLA, then
Chicago), in that order. Run it at two commits and compare the files byte for byte
(``cmp``): a change that only makes parsing faster must leave them identical. It prints
the number of texts and the file's SHA-256.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import orjson
from throughput import distinct_citations
from walters_wilder import DEFAULT_DATA, read_citations, world_corpus

from verifier.citations.parsing.combined import _parse
from verifier.citations.parsing.core import parse_citation as parse_rules
from verifier.citations.parsing.crf import parse_trained


def texts(data: Path, gold: Path, distinct: int) -> Iterator[str]:
    """The gold texts, the W&W citations, then ``distinct`` rendered citations."""
    for path in sorted(gold.glob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            if line.strip():
                yield str(orjson.loads(line)["text"])
    yield from (c.text for c in read_citations(data / "ww2023_citations.csv"))
    if distinct > 0:
        with tempfile.TemporaryDirectory(prefix="parse-identity-") as tmp:
            args = argparse.Namespace(corpus=None, data=str(data))
            corpus = world_corpus(args, Path(tmp))
            yield from (c.text for c in distinct_citations(corpus, distinct))


def parse_line(text: str) -> bytes:
    """One output line: [text, combined, rules, CRF] (the parsers' own ``Citation``s)."""
    return orjson.dumps([text, _parse(text), parse_rules(text), parse_trained(text)]) + b"\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench parse-identity",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", required=True, help="write the parses here")
    parser.add_argument("--data", default=str(DEFAULT_DATA),
                        help="the W&W data folder (default: ../shared/data/walters_wilder_2023)")
    parser.add_argument("--gold", help="the parsing gold folder (default: beside --data)")
    parser.add_argument("--distinct", type=int, default=20_000,
                        help="rendered citations to add (default 20,000; 0 for none)")
    args = parser.parse_args(argv)
    data = Path(args.data)
    gold = Path(args.gold) if args.gold else data.parent / "parsing_gold"
    if not gold.is_dir():
        parser.error(f"no parsing gold folder at {gold}")
    digest = hashlib.sha256()
    count = 0
    with Path(args.out).open("wb") as out:
        for text in texts(data, gold, args.distinct):
            line = parse_line(text)
            out.write(line)
            digest.update(line)
            count += 1
    print(f"{count:,} texts parsed three ways into {args.out} (sha256 {digest.hexdigest()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
