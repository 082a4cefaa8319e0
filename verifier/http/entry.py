"""One cached response as the disk cache stores it: bytes, never a pickle::

    +---------------------+------------------------------------+----------+
    | 4 bytes, big-endian | orjson header {"status": int,      | raw body |
    | header length N     |  "headers": {str: str}} (N bytes)  |          |
    +---------------------+------------------------------------+----------+

The header keeps what describes the answer (its content type, the service's rate and
retry headers, anything a reader may look at) and leaves out what describes only the
exchange it came in: :data:`UNSTORED_HEADERS`. A warm run decodes every hit's header, so
what is never read is never stored; and a session cookie, which is a credential, is
never written to disk.

Pure functions, compiled (``native-modules.txt``): a warm run decodes one entry per cache
hit. :mod:`verifier.http.cache` stores and reads them (and says how they are keyed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import orjson

from verifier.value_memos import keep, register_memo

from .transport import HttpResponse

_LENGTH_BYTES: Final = 4

HEADER_MEMO_SIZE: Final = 1024
"""Decoded entry headers kept by their bytes. A service sends the same few headers on
most answers (in the throughput bench's cache, 1,425 distinct headers over 24,453
entries, five of them on 85 % of the entries), so a warm run decodes each once."""

_headers_seen: dict[bytes, tuple[int, dict[str, str]]] = {}
register_memo(_headers_seen.clear)

UNSTORED_HEADERS: Final = frozenset({
    # The connection and the transfer: the body is stored whole and decoded, so these
    # would misdescribe it (a stored body is never gzip, whatever the wire said).
    "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
    # The moment and the path it came by: the cache keeps its own store time.
    "date", "age", "server", "via", "alt-svc", "x-powered-by",
    # A browser's policies: nothing here is a browser.
    "strict-transport-security", "permissions-policy", "report-to", "nel",
    # A session: a cookie is a credential, never written to disk.
    "set-cookie",
})
"""Response headers (lower-cased, as :class:`HttpResponse` holds them) never stored, with
every header starting ``access-control-`` (a browser's cross-origin rules)."""


def stored_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """``headers`` less :data:`UNSTORED_HEADERS` and the ``access-control-`` ones."""
    return {name: value for name, value in headers.items()
            if name not in UNSTORED_HEADERS and not name.startswith("access-control-")}


def encode_response(response: HttpResponse) -> bytes:
    """The stored form of ``response``: length prefix, orjson header (status and the
    :func:`stored_headers`), raw body."""
    header = orjson.dumps({"status": response.status,
                           "headers": stored_headers(response.headers)})
    return len(header).to_bytes(_LENGTH_BYTES, "big") + header + response.body


def decode_response(value: object) -> HttpResponse:
    """The inverse of :func:`encode_response`; ``ValueError`` for anything else."""
    if type(value) is not bytes:
        raise ValueError(f"entry is {type(value).__name__}, not bytes")
    if len(value) < _LENGTH_BYTES:
        raise ValueError("entry shorter than its length prefix")
    # The big-endian length prefix (int.from_bytes(value[:4], "big"), without the slice
    # and the method call).
    end = _LENGTH_BYTES + ((value[0] << 24) | (value[1] << 16) | (value[2] << 8) | value[3])
    if end > len(value):
        raise ValueError("header length runs past the end of the entry")
    # A copy of the header's bytes (a hundred or so): cheaper than a memoryview and its
    # slice, two objects more; and the memo's key.
    header = value[_LENGTH_BYTES:end]
    seen = _headers_seen.get(header)
    if seen is None:
        seen = keep(_headers_seen, header, _decode_header(header), HEADER_MEMO_SIZE)
    # Each response its own headers: a caller may change them.
    return HttpResponse(seen[0], value[end:], dict(seen[1]))


def _decode_header(raw: bytes) -> tuple[int, dict[str, str]]:
    """The status and headers an entry's header holds; ``ValueError`` for anything else."""
    try:
        header = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"header is not JSON: {exc}") from exc
    # orjson makes plain dicts, ints and strs, never subclasses: exact type tests suffice.
    if type(header) is not dict:
        raise ValueError("header is not an object")
    status = header.get("status")
    headers = header.get("headers")
    if type(status) is not int or type(headers) is not dict:
        raise ValueError("header lacks an integer status or a headers object")
    # orjson reads every object key as a str: only the values need a look.
    for text in headers.values():
        if type(text) is not str:
            raise ValueError("header names and values must be strings")
    return status, headers
