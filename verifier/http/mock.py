"""An in-memory transport for tests of the layers above the wire.

:class:`MockTransport` hands every request to a handler (a plain or async function of the
base URL and the request) and returns what it returns, or raises the
:class:`~verifier.errors.TransportError` it raises, like a real transport would. It records
each request with the loop time it was sent at, so pacing can be checked on a controlled
clock. Wire behaviour (headers, redirects, bodies on a socket) is tested against real
servers on loopback instead.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .transport import HttpRequest, HttpResponse, Transport

Handler = Callable[[str, HttpRequest], HttpResponse | Awaitable[HttpResponse]]


@dataclass(frozen=True, slots=True)
class SentRequest:
    base_url: str
    request: HttpRequest
    at: float
    """The loop time the request was handed to the transport."""


class MockTransport(Transport):
    """Answers requests with ``handler``; ``sent`` lists every request in order."""

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self.sent: list[SentRequest] = []

    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        self.sent.append(SentRequest(base_url, request, asyncio.get_running_loop().time()))
        answer = self._handler(base_url, request)
        if inspect.isawaitable(answer):
            return await answer
        return answer
