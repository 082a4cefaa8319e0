"""JSON-lines records with per-line failures as values."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from .models import ItemError


def records(path: Path) -> Iterator[tuple[str, Mapping[str, object]] | ItemError]:
    """``(<file>:<line>, object)`` for each non-blank line holding a JSON object; an
    :class:`ItemError` naming ``<file>:<line>`` for a line that does not."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            where = f"{path.name}:{number}"
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                yield ItemError(where, f"malformed JSON: {exc.msg}")
                continue
            if not isinstance(value, dict):
                yield ItemError(where, f"expected a JSON object, got {type(value).__name__}")
                continue
            yield where, value


def text_field(record: Mapping[str, object], name: str) -> str | None:
    value = record.get(name)
    return value if isinstance(value, str) and value.strip() else None
