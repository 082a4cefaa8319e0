"""What the benchmarks share about their result file (``--json``): its argument type, and
how it is written."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import orjson


def result_file(value: str) -> Path:
    """An argparse type for a file a benchmark writes when it is done (``--json``): its
    folder must exist now and it must not be a folder, so a long run is never lost to a
    path it cannot write."""
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value} is a folder, not a file (nothing was run)")
    if not path.absolute().parent.is_dir():
        raise argparse.ArgumentTypeError(
            f"{value}: its folder does not exist (nothing was run)")
    return path


def write_result(path: str | Path, result: Any) -> None:
    """Write a benchmark's result to ``path`` as indented JSON and say where."""
    Path(path).write_bytes(orjson.dumps(
        result, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
        | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY))
    print(f"result file: {path}")
