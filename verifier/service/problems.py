"""Errors as RFC 9457 problem bodies: ``type``, ``title``, ``status``, ``detail`` and, for
a bad item, ``item`` (its position or the offending value)."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

PROBLEM_TYPE = "application/problem+json"
_BASE = "https://citation-verifier.invalid/problems/"

TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    503: "Service unavailable",
}


def problem(status: int, kind: str, detail: str, *, item: Any = None,
            headers: dict[str, str] | None = None) -> web.Response:
    """A problem response. ``kind`` names the problem (``invalid-json``, ``unknown-source``
    ...); it becomes the ``type`` URI."""
    body: dict[str, Any] = {"type": _BASE + kind, "title": TITLES.get(status, "Error"),
                            "status": status, "detail": detail}
    if item is not None:
        body["item"] = item
    return web.Response(status=status, body=orjson.dumps(body), content_type=PROBLEM_TYPE,
                        headers=headers)


class Problem(Exception):
    """Raised by handlers and parsers; the middleware answers it with :func:`problem`."""

    def __init__(self, status: int, kind: str, detail: str, *, item: Any = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.kind, self.detail = status, kind, detail
        self.item, self.headers = item, headers

    def response(self) -> web.Response:
        return problem(self.status, self.kind, self.detail, item=self.item,
                       headers=self.headers)
