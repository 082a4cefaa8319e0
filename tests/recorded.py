"""Recorded real responses from ``shared/data/api_samples`` as ``HttpResponse`` values.

The samples live outside the repository (``../shared`` from the repo root, or the folder
named by ``VERIFIER_API_SAMPLES``) and are never copied in. Each body ``<name>.<ext>`` has
a ``<name>.meta.json`` sidecar with the recorded status and headers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verifier.http.transport import HttpResponse

SAMPLES = Path(
    os.environ.get("VERIFIER_API_SAMPLES")
    or Path(__file__).resolve().parents[2] / "shared" / "data" / "api_samples"
)

# Used when a sidecar recorded no headers (bodies quoted from issues and docs).
_CONTENT_TYPES = {
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".txt": "text/plain",
    ".xml": "application/xml",
    ".atom": "application/atom+xml",
}


def load_sample(source: str, filename: str) -> HttpResponse:
    """The recorded response ``filename`` of ``source`` (e.g. ``"crossref"``), with the
    status and lower-cased headers of its sidecar. Skips the test when the samples
    folder is not available."""
    folder = SAMPLES / source
    if not folder.is_dir():
        pytest.skip(f"recorded samples not available: {folder}")
    path = folder / filename
    meta = json.loads(path.with_suffix(".meta.json").read_text(encoding="utf-8"))
    headers = {name.lower(): str(value) for name, value in (meta.get("headers") or {}).items()}
    if "content-type" not in headers and path.suffix in _CONTENT_TYPES:
        headers["content-type"] = _CONTENT_TYPES[path.suffix]
    return HttpResponse(status=int(meta["status"]), body=path.read_bytes(), headers=headers)
