"""The ``--json`` listings of ``verifier sources`` and ``verifier models``: one JSON
object a row on standard output."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import orjson


def write_json_lines(rows: Iterable[Any]) -> None:
    """Each row (a dataclass or a JSON value) as one line of JSON on standard output."""
    for row in rows:
        sys.stdout.buffer.write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
