"""Argument types the benchmarks share."""

from __future__ import annotations

import argparse
from pathlib import Path


def result_file(value: str) -> Path:
    """An argparse type for a file a benchmark writes when it is done (``--json``): its
    folder must exist now, so a long run is never lost to a path it cannot write."""
    path = Path(value)
    if not path.absolute().parent.is_dir():
        raise argparse.ArgumentTypeError(
            f"{value}: its folder does not exist (nothing was run)")
    return path
