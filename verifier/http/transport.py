"""The engine's one I/O seam: an HTTP request in, an HTTP response (or a mapped error) out.

Adapters build :class:`HttpRequest` values and parse :class:`HttpResponse` values as pure
functions; only a :class:`Transport` touches the network. :class:`AiohttpTransport` is the
real one; :class:`~verifier.http.mock.MockTransport` is the in-memory double for tests of
the layers above (wire behaviour is tested against real servers on loopback).

This module imports no HTTP library: the adapters, the settings and the cache import it,
and a run answered wholly from the cache never needs aiohttp. :class:`AiohttpTransport`
imports it (off the event loop) and opens its connection pool on the first request; the
wire work itself is :mod:`verifier.http.aiohttp_session`.
"""

from __future__ import annotations

import asyncio
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING, Final
from urllib.parse import quote_plus

from mypy_extensions import mypyc_attr

from verifier.value_memos import keep, register_memo

from .imports import imported
from .redact import request_secrets

if TYPE_CHECKING:
    from .aiohttp_session import AiohttpSession

MAX_REDIRECTS = 10
"""Redirects one request may follow before it fails (a loop is a ``TransportError``)."""

_FRESH_HEADERS: Final[Mapping[str, str]] = MappingProxyType({})
""":class:`HttpResponse`'s ``headers`` when none are given (then a new empty dict)."""


# Frozen dataclasses made on the warm path define their own __init__ (here and in
# verifier.citations.source_client): the dataclass decorator keeps an __init__ the class
# defines, and that one, compiled, sets each field straight into the object's C struct
# (by object.__setattr__, as the decorator's own does: setting a field from outside still
# raises FrozenInstanceError), where the decorator's runs as Python, about 5 k instructions
# a call. It takes the fields in order with their defaults, so all else (equality, repr,
# dataclasses.replace and fields) is the dataclass's own; tests/test_frozen_inits.py holds
# each to the fields.
@dataclass(frozen=True, slots=True)
class HttpRequest:
    """A request against one service, relative to that service's base URL.

    ``method`` is ``GET`` unless a ``body`` is sent (``POST`` with JSON for model
    endpoints). ``path`` is appended to the base URL as given (already percent-encoded where the
    service needs it); ``params`` become the query string in order. ``request_class``
    names the rate class the source's policy paces it under (e.g. ``"single"`` for a
    record lookup, ``"list"`` for a search). ``identity_params`` and ``headers`` carry
    identification (contact address, API keys) and are left out of the cache key.
    """

    path: str
    params: tuple[tuple[str, str], ...] = ()
    request_class: str = "list"
    headers: tuple[tuple[str, str], ...] = ()
    identity_params: tuple[tuple[str, str], ...] = ()
    cost: float = 1.0
    """What the request costs against a daily budget, in the service's own unit (OpenAlex
    credits: a record lookup 0, a list 1, a search 10); ignored where there is none."""
    method: str = "GET"
    body: bytes | None = None
    """The request body as sent (JSON for model endpoints); part of the cache key."""
    weight: float = 0.0
    """What the request is estimated to use of a weighted limit (a model endpoint's tokens
    per minute); 0 where the service has none."""

    def __init__(
        self, path: str, params: tuple[tuple[str, str], ...] = (), request_class: str = "list",
        headers: tuple[tuple[str, str], ...] = (),
        identity_params: tuple[tuple[str, str], ...] = (), cost: float = 1.0,
        method: str = "GET", body: bytes | None = None, weight: float = 0.0,
    ) -> None:
        # The dataclass's own __init__, written out (see the comment above the class).
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "request_class", request_class)
        object.__setattr__(self, "headers", headers)
        object.__setattr__(self, "identity_params", identity_params)
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "weight", weight)

    def url(self, base_url: str) -> str:
        query = query_string(self.params + self.identity_params)
        url = base_url.rstrip("/") + self.path
        return f"{url}?{query}" if query else url

    def secrets(self) -> tuple[str, ...]:
        """The credential values this request carries (keys in headers or parameters):
        what no error text may show and no other host may receive."""
        return request_secrets(self.headers, self.identity_params + self.params)

    def cache_key(self) -> str:
        """The request as the cache sees it: method, path, sorted parameters and a hash of
        the body; never identity (keys, contact address)."""
        key = self.path + "?" + query_string(sorted(self.params))
        if self.method != "GET":
            key = f"{self.method} {key}"
        if self.body is not None:
            key += "#" + hashlib.sha256(self.body).hexdigest()
        return key


QUOTED_MEMO_SIZE = 1024
"""Parameter names and values whose quoted form is remembered (each memo is emptied when
it fills up, so what every request repeats is soon remembered again)."""

_ALWAYS_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
_SAFE_OR_SPACE = bytes(sorted(_ALWAYS_SAFE)) + b" "
"""The bytes ``quote_plus`` writes as they are, and the space (which it writes as "+")."""
_ESCAPES: Final = [(bytes((b,)), b"%%%02X" % b) for b in range(256)]
"""Each byte value and its escape as ``quote_plus`` writes it ("%XX", upper-case hex)."""


def _quote_plus(value: object) -> str:
    """``quote_plus(str(value))``, the same string (see :func:`_quote_text`)."""
    return _quote_text(value if isinstance(value, str) else str(value))


def _quote_text(text: str) -> str:
    """``quote_plus(text)``, the same string.

    Why it is the same: ``quote_plus`` writes each byte of the text's UTF-8 form on its
    own, a safe byte as it is, a space as "+" and any other byte as "%XX". This writes
    each byte *value* at once instead: one ``bytes.translate`` deletes the safe bytes and
    the spaces, which leaves the bytes to escape (none, in most names and many values:
    then only the spaces change), and each distinct one of them is replaced everywhere
    by one ``bytes.replace``. An escape holds only "%" and hex digits (safe), so with
    "%" escaped first no escape is ever escaped again, and the spaces go last, as their
    "+" is itself a byte to escape when the text holds one. (A per-character mapping,
    ``str.translate`` with a table of escapes, looked every character up through the
    table: three times the instructions on a searched title.)"""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        return quote_plus(text)  # a lone surrogate: quote_plus raises as it always did
    unsafe = raw.translate(None, _SAFE_OR_SPACE)
    if not unsafe:
        return text.replace(" ", "+")  # safe characters and spaces only (so ASCII)
    if 0x25 in unsafe:  # "%": an int, as a bytes operand would cost a raised TypeError
        raw = raw.replace(b"%", b"%25")
    for byte in set(unsafe):
        if byte != 0x25:
            found, escape = _ESCAPES[byte]
            raw = raw.replace(found, escape)
    return raw.replace(b" ", b"+").decode("ascii")


_quoted_names: dict[str, str] = {}
"""``name=`` quoted, by parameter name (a service uses a handful of names)."""
_quoted_values: dict[str, str] = {}
"""Values quoted, by value: the ones every request of a service repeats (a field list, a
page size) are quoted once; a searched title is quoted once and rarely met again."""
register_memo(_quoted_names.clear)
register_memo(_quoted_values.clear)


def query_string(params: Sequence[tuple[object, object]]) -> str:
    """``urllib.parse.urlencode(params)``, the same string: plain ``str`` names and values
    (most of them) quoted from bounded memos, anything else quoted as ``str(value)``."""
    names, values = _quoted_names, _quoted_values
    parts = []
    for k, v in params:
        if type(k) is str and type(v) is str:
            name = names.get(k) or keep(names, k, _quote_text(k) + "=", QUOTED_MEMO_SIZE)
            value = values.get(v)
            if value is None:
                value = keep(values, v, _quote_text(v), QUOTED_MEMO_SIZE)
            parts.append(name + value)
        else:
            parts.append(f"{_quote_plus(k)}={_quote_plus(v)}")
    return "&".join(parts)


@dataclass(frozen=True, slots=True)
class HttpResponse:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    """Header names are lower-cased."""

    def __init__(self, status: int, body: bytes,
                 headers: Mapping[str, str] = _FRESH_HEADERS) -> None:
        # The dataclass's own __init__, written out (see the comment above HttpRequest; a
        # warm run makes a response per cache hit): headers left out are a new empty dict,
        # as the field's default_factory gives.
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "headers", {} if headers is _FRESH_HEADERS else headers)

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


# Compiled with mypyc (native-modules.txt), yet subclassed by interpreted transports.
@mypyc_attr(allow_interpreted_subclasses=True)
class Transport(ABC):
    """Sends one request and returns the response, whatever its status.

    Contract:

    - ``send`` returns for every HTTP status; status handling is the caller's job.
    - It raises only :class:`~verifier.errors.TransportError` subclasses, mapped from the
      lower layer (``ConnectFailed``, ``ConnectionLost``, ``RequestTimeout`` for a
      timeout of the lower layer's own).
    - It sets no deadline of its own: the caller wraps ``send`` in a timeout scope and
      cancellation must leave the transport usable.
    - It is opened and closed inside the running event loop (``async with``).
    """

    @abstractmethod
    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        ...

    async def prepare(self) -> None:  # noqa: B027 - optional hook
        """Get ready to send (open what the first request needs), so that what comes
        after is the request alone: the paced client awaits it before it takes a rate
        slot, so a slow first opening neither bunches paced requests together nor eats
        into a request's timeout. Cheap once ready; the default does nothing."""

    async def __aenter__(self) -> Transport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass


_WIRE_MODULE = "verifier.http.aiohttp_session"


class AiohttpTransport(Transport):
    """The real transport: :class:`~verifier.http.aiohttp_session.AiohttpSession` (one
    ``aiohttp.ClientSession``; its docstring says how redirects and credentials are
    handled), created on the first :meth:`send`, not on entry.

    Lifecycle, as for every transport: entered and closed inside the running loop;
    ``send`` outside ``async with`` (before entry, after close) raises ``RuntimeError``.
    Until the first request nothing is imported or opened, so a run answered wholly from
    the cache pays for no HTTP library and no connection pool. The first request (or
    :meth:`prepare`, which the paced client awaits before pacing a request) imports
    aiohttp on a worker thread when it is not imported yet (an import reads files and
    would block the loop), then opens the session on the loop; concurrent first
    requests share that one opening. Closing closes the session if one was opened.
    """

    def __init__(self, user_agent: str, *, max_connections: int = 100) -> None:
        self._user_agent = user_agent
        self._max_connections = max_connections
        self._open = False
        self._session: AiohttpSession | None = None
        self._opening: asyncio.Lock | None = None

    async def __aenter__(self) -> AiohttpTransport:
        asyncio.get_running_loop()  # fail loudly outside a loop
        self._open = True
        return self

    async def aclose(self) -> None:
        self._open = False
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def prepare(self) -> None:
        if self._session is None:
            await self._connect()

    async def send(self, base_url: str, request: HttpRequest) -> HttpResponse:
        session = self._session or await self._connect()
        return await session.send(base_url, request)

    async def _connect(self) -> AiohttpSession:
        if not self._open:
            raise RuntimeError("AiohttpTransport used outside 'async with'")
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._session is None:
                wire = await imported(_WIRE_MODULE)
                if not self._open:  # closed while aiohttp was being imported
                    raise RuntimeError("AiohttpTransport used outside 'async with'")
                self._session = wire.AiohttpSession(
                    self._user_agent, max_connections=self._max_connections)
            return self._session
