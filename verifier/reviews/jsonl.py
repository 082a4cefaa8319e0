"""JSON-lines records with per-line failures as values."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from verifier.citations.inputs.lines import decode_line, text_lines
from verifier.errors import InputError

from .models import ItemError


def records(path: Path) -> Iterator[tuple[str, Mapping[str, object]] | ItemError]:
    """``(<file>:<line>, object)`` for each non-blank line holding a JSON object; an
    :class:`ItemError` naming ``<file>:<line>`` for a line that does not, or that is not
    UTF-8. The file is read as the citation inputs are (a byte-order mark skipped, UTF-16
    or UTF-32 text read as UTF-8: :func:`~verifier.citations.inputs.lines.text_lines`),
    but its lines are not bounded in length (a record may hold a whole paper)."""
    with path.open("rb") as raw:
        for number, data in enumerate(text_lines(raw), start=1):
            where = f"{path.name}:{number}"
            if not data.strip():
                continue
            line = decode_line(where, data)
            if isinstance(line, InputError):
                yield ItemError(where, line.message)
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
