"""The session: the I/O resources of one event loop, shared by every pipeline on it.

A :class:`Session` is opened once per event loop (``async with Session(settings)``) and
owns, until it closes:

- one HTTP transport (:class:`~verifier.http.transport.AiohttpTransport` unless given);
- the disk cache of raw responses (opened and closed off the loop). A cache that cannot
  be opened, or fails in use (corrupt, read-only, locked), is reported once as a notice
  in ``stats`` and the session runs without it;
- one :class:`~verifier.http.client.PacedClient` per declared service, with its gate:
  its pause, breaker, concurrency, rate and budget state;
- one paced client per configured language-model endpoint (:mod:`verifier.endpoints`):
  an endpoint serving chat and decisions has one set of limits for both. Its answers are
  cached under its base URL, and only answers (never "not positive" ones) are kept.

Pipelines (the citation checker today; premise checks and the review judge next) take the
session and per-call options; they never own resources. Two pipelines on one session share
each service's one set of limiters, so together they stay within its published limits.
Closing is exception-safe: everything opened is closed in reverse order, whatever failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType

from .endpoints import Endpoint, endpoints
from .errors import ConfigError
from .http.cache import ResponseCache
from .http.client import CachePolicy, PacedClient
from .http.gate import SourceGate
from .http.policy import SourcePolicy
from .http.stats import RunStats
from .http.transport import AiohttpTransport, Transport
from .settings import Settings
from .sources import PolicyTable
from .threads import open_off_loop


class Session:
    """Owns the transport, the cache and one paced client per enabled service.

    ``transport`` replaces the real one (tests pass a ``MockTransport``); ``policies``
    overrides the published limits of named services. ``stats`` holds live counters for
    every service; ``unavailable`` maps each disabled service to the reason.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        transport: Transport | None = None,
        policies: Mapping[str, SourcePolicy] | None = None,
        stats: RunStats | None = None,
    ) -> None:
        self.settings = settings
        self.stats = stats if stats is not None else RunStats()
        self.stats.secrets = tuple(
            {*self.stats.secrets, *(key for key in settings.api_keys.values() if key)})
        self.policies = PolicyTable.for_settings(settings, policies)
        self.endpoints: dict[str, Endpoint] = endpoints(settings, policies)
        """The configured model endpoints by name (``llm``, ``decision``)."""
        self.unavailable: dict[str, str] = {}
        self.cache: ResponseCache | None = None
        self._given_transport = transport
        self._transport: Transport | None = None
        self._clients: dict[str, PacedClient] = {}
        self._model_clients: dict[str, PacedClient] = {}
        self._stack: AsyncExitStack | None = None

    @property
    def is_open(self) -> bool:
        return self._stack is not None

    async def __aenter__(self) -> Session:
        if self._stack is not None:
            raise RuntimeError("the session is already open")
        async with AsyncExitStack() as stack:
            transport = self._given_transport or AiohttpTransport(self.settings.user_agent)
            self._transport = await stack.enter_async_context(transport)
            stack.callback(self._forget)
            if self.settings.cache_dir is not None:
                self.cache = await self._open_cache(self.settings.cache_dir)
                stack.push_async_callback(self._close_cache)
            self._open_clients(self._transport)
            self._stack = stack.pop_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await asyncio.shield(stack.aclose())

    def _open_clients(self, transport: Transport) -> None:
        settings = self.settings
        cache_policy = CachePolicy(
            read=settings.cache_read,
            positive_ttl_s=settings.positive_ttl_s,
            negative_ttl_s=settings.negative_ttl_s,
        )
        for name in settings.sources:
            policy = self.policies[name]
            if not policy.enabled:
                reason = policy.disabled_reason or "disabled"
                self.unavailable[name] = reason
                self.stats.notice(f"{name}: skipped: {reason}")
                continue
            self._clients[name] = PacedClient(
                name,
                base_url=settings.base_urls[name],
                gate=SourceGate(name, policy, self.stats.source(name), self.stats.notice),
                transport=transport,
                cache=self.cache,
                cache_policy=cache_policy,
            )
        # A model answer is an answer or an error: nothing is kept at a "not found" TTL.
        model_cache = CachePolicy(read=settings.cache_read,
                                  positive_ttl_s=settings.positive_ttl_s, negative_ttl_s=0.0)
        for name, endpoint in self.endpoints.items():
            self._model_clients[name] = PacedClient(
                name,
                base_url=endpoint.base_url,
                gate=SourceGate(name, endpoint.policy, self.stats.source(name)),
                transport=transport,
                cache=self.cache,
                cache_policy=model_cache,
                cache_scope=endpoint.cache_scope,
            )

    async def _open_cache(self, directory: Path) -> ResponseCache | None:
        """The disk cache, or None (with one notice saying why and what to do) when it
        cannot be opened: the cache is an optimisation, never a reason to stop."""
        loop = asyncio.get_running_loop()

        def failed(message: str) -> None:  # on the cache's worker thread
            loop.call_soon_threadsafe(self.stats.notice, message)

        try:
            return await open_off_loop(lambda: ResponseCache(directory, on_failure=failed),
                                       ResponseCache.close)
        except ConfigError as exc:
            self.stats.notice(
                f"cache: not used this run: {exc}. The run goes on without it (slower; "
                "nothing is lost). Fix: close the other program using the folder, or "
                "remove the folder, or choose another one (--cache-dir DIR or "
                "VERIFIER_CACHE_DIR), or run with --no-cache."
            )
            return None

    async def _close_cache(self) -> None:
        cache, self.cache = self.cache, None
        if cache is not None:
            await asyncio.to_thread(cache.close)

    def _forget(self) -> None:
        self._clients.clear()
        self._model_clients.clear()
        self._transport = None

    # -- what pipelines use --------------------------------------------------------------

    def client(self, name: str) -> PacedClient:
        """The paced client of service ``name`` (raises ``ConfigError`` when the service
        is disabled or unknown; ``unavailable`` says why)."""
        if self._stack is None:
            raise RuntimeError("use 'async with Session(settings) as session:' first")
        client = self._clients.get(name)
        if client is None:
            reason = self.unavailable.get(name, "not configured")
            raise ConfigError(f"service {name!r} is not available: {reason}")
        return client

    def model_client(self, name: str) -> PacedClient:
        """The paced client of model endpoint ``name`` (``llm``, ``decision``); raises
        ``ConfigError`` when no such endpoint is configured."""
        if self._stack is None:
            raise RuntimeError("use 'async with Session(settings) as session:' first")
        client = self._model_clients.get(name)
        if client is None:
            raise ConfigError(f"model endpoint {name!r} is not configured")
        return client

    @property
    def clients(self) -> Mapping[str, PacedClient]:
        """Every available service's client, in the settings' order."""
        return self._clients

    def __repr__(self) -> str:
        state = "open" if self._stack is not None else "closed"
        return (f"<Session {state} services={list(self._clients)} "
                f"models={list(self._model_clients)}>")
