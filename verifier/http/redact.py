"""Credentials out of every text the engine shows, and off every request to another host.

The one place that knows what a credential looks like on the wire:

- query parameters named in :data:`CREDENTIAL_PARAMS` (``api_key``, ``key``, ``token``
  ...; ``mailto``, ``email`` and ``tool`` identify, they are not secret);
- headers named in :data:`CREDENTIAL_HEADERS` (``Authorization``, ``x-api-key``,
  ``Crossref-Plus-API-Token`` ...);
- and the configured key values themselves, wherever they appear.

:func:`redact` is applied where error texts are built (the transport's exception
mapping, the paced client's failures) and once more where reports and notices are
made, as a last line of defence. :func:`strip_credentials` is what a request keeps when
a redirect sends it to another host.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote, quote_plus

if TYPE_CHECKING:
    from yarl import URL

__all__ = [
    "CREDENTIAL_HEADERS",
    "CREDENTIAL_PARAMS",
    "REDACTED",
    "is_credential_header",
    "is_credential_param",
    "redact",
    "request_secrets",
    "strip_credentials",
]

REDACTED = "[redacted]"

CREDENTIAL_PARAMS: frozenset[str] = frozenset({
    "api_key", "apikey", "api-key", "key", "token", "access_token", "auth", "auth_token",
    "client_secret", "secret", "password", "sig", "signature",
})
"""Query parameter names whose values are secrets (compared lower-cased)."""

CREDENTIAL_HEADERS: frozenset[str] = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "api-key",
    "crossref-plus-api-token", "cookie",
})
"""Header names whose values are secrets (compared lower-cased)."""

_MIN_SECRET = 4
"""Shorter configured values are not searched for in texts (they would blank out
ordinary words); their parameter and header names still are."""

_PARAM_NAMES = "|".join(sorted((re.escape(p) for p in CREDENTIAL_PARAMS), key=len, reverse=True))
_PARAM = re.compile(rf"(?i)(?<![\w-])((?:{_PARAM_NAMES})(?:=|%3D))[^&#\s'\"<>,;)\]}}]+")
_HEADER_NAMES = "|".join(re.escape(h) for h in sorted(CREDENTIAL_HEADERS, key=len, reverse=True))
_HEADER = re.compile(rf"(?i)((?:{_HEADER_NAMES})['\"]?\s*[:=]\s*['\"]?)"
                     r"(?:(?:Bearer|Basic|Token)\s+)?[^\s'\",;)\]}]+")
_JSON_KEY = re.compile(rf"(?i)(['\"](?:{_PARAM_NAMES})['\"]\s*:\s*['\"])[^'\"]+")


def is_credential_param(name: str) -> bool:
    return name.lower() in CREDENTIAL_PARAMS


def is_credential_header(name: str) -> bool:
    return name.lower() in CREDENTIAL_HEADERS


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every credential replaced by :data:`REDACTED`: the values of
    credential query parameters, headers and JSON keys, and each of ``secrets`` wherever
    it appears (as given and percent-encoded)."""
    for secret in sorted({s for s in secrets if s and len(s) >= _MIN_SECRET},
                         key=len, reverse=True):
        text = text.replace(secret, REDACTED)
        for quoted in {quote(secret, safe=""), quote_plus(secret, safe=""), quote(secret)}:
            if quoted != secret:
                text = text.replace(quoted, REDACTED)
    text = _PARAM.sub(rf"\g<1>{REDACTED}", text)
    text = _HEADER.sub(rf"\g<1>{REDACTED}", text)
    return _JSON_KEY.sub(rf"\g<1>{REDACTED}", text)


def request_secrets(
    headers: Iterable[tuple[str, str]], params: Iterable[tuple[str, str]]
) -> tuple[str, ...]:
    """The secret values a request carries: its credential headers (with and without an
    auth scheme such as ``Bearer``) and credential query parameters."""
    found: list[str] = []
    for name, value in headers:
        if is_credential_header(name) and value:
            found.append(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() in ("bearer", "basic", "token"):
                found.append(token.strip())
    found.extend(value for name, value in params if is_credential_param(name) and value)
    return tuple(found)


def strip_credentials(
    url: URL, headers: Mapping[str, str], secrets: Iterable[str] = ()
) -> tuple[URL, dict[str, str]]:
    """``url`` and ``headers`` without any credential: what may be sent to a host other
    than the one the credentials were meant for."""
    known = set(secrets)
    query = [(k, v) for k, v in url.query.items()
             if not is_credential_param(k) and v not in known]
    clean = url.with_query(query) if len(query) != len(url.query) else url
    if clean.user or clean.password:
        clean = clean.with_user(None)
    kept = {k: v for k, v in headers.items() if not is_credential_header(k) and v not in known}
    return clean, kept
