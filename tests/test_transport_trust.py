"""No credential crosses to another host, and none appears in an error text.

Two loopback servers on two hosts (127.0.0.1 and 127.0.0.2, both loopback on Linux): the
first redirects, the second records every header and query parameter it receives
(issue 9, items 5 and 6). Redaction itself is checked on the texts it must clean.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from verifier.errors import SourceError, TransportError
from verifier.http.redact import redact, request_secrets
from verifier.http.transport import MAX_REDIRECTS, AiohttpTransport, HttpRequest

SENTINEL = "sk-SENTINEL-7f3a9c"
KEYED = HttpRequest(
    "/works",
    params=(("query", "deep learning"),),
    headers=(
        ("Crossref-Plus-API-Token", f"Bearer {SENTINEL}"),
        ("x-api-key", SENTINEL),
        ("Authorization", f"Bearer {SENTINEL}"),
    ),
    identity_params=(("api_key", SENTINEL), ("key", SENTINEL), ("token", SENTINEL),
                     ("mailto", "me@example.org")),
)


@dataclass
class Seen:
    requests: list[tuple[str, dict[str, str], list[tuple[str, str]]]] = field(
        default_factory=list)

    def record(self, request: web.Request) -> None:
        self.requests.append((request.method, dict(request.headers),
                              list(request.query.items())))


@asynccontextmanager
async def serve(host: str, handler: Callable[[web.Request], web.Response]
                ) -> AsyncIterator[str]:
    async def handle(request: web.Request) -> web.Response:
        return handler(request)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, 0)
        await site.start()
        yield f"http://{host}:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


def recorder(seen: Seen) -> Callable[[web.Request], web.Response]:
    def handle(request: web.Request) -> web.Response:
        seen.record(request)
        return web.json_response({"ok": True})

    return handle


def redirecting_to(target: Callable[[], str], seen: Seen,
                   status: int = 302) -> Callable[[web.Request], web.Response]:
    def handle(request: web.Request) -> web.Response:
        seen.record(request)
        # A careless server: the key goes along in the Location it sends.
        return web.Response(status=status, headers={"Location": target() + request.path_qs})

    return handle


@pytest.mark.asyncio
async def test_a_redirect_to_another_host_carries_no_credential() -> None:
    first_seen, second_seen = Seen(), Seen()
    async with serve("127.0.0.2", recorder(second_seen)) as other:
        async with serve("127.0.0.1", redirecting_to(lambda: other, first_seen)) as base:
            async with AiohttpTransport("tests") as transport:
                response = await transport.send(base, KEYED)
    assert response.status == 200
    # The first host got what it was meant to get ...
    (_, headers, query), = first_seen.requests
    assert headers["x-api-key"] == SENTINEL and ("api_key", SENTINEL) in query
    # ... the second none of it, in any header or parameter, under any name.
    (method, headers, query), = second_seen.requests
    assert method == "GET"
    assert not {"crossref-plus-api-token", "x-api-key", "authorization"} & {
        h.lower() for h in headers}
    assert all(SENTINEL not in value for value in headers.values())
    assert all(SENTINEL not in value for _, value in query)
    assert ("query", "deep learning") in query and ("mailto", "me@example.org") in query


@pytest.mark.asyncio
async def test_a_redirect_on_the_same_host_keeps_the_credentials() -> None:
    seen = Seen()

    def handle(request: web.Request) -> web.Response:
        seen.record(request)
        if request.path == "/works":
            return web.Response(status=301, headers={"Location": "/v2" + request.path_qs})
        return web.json_response({"ok": True})

    async with serve("127.0.0.1", handle) as base:
        async with AiohttpTransport("tests") as transport:
            response = await transport.send(base, KEYED)
    assert response.status == 200
    assert len(seen.requests) == 2
    _, headers, query = seen.requests[1]
    assert headers["x-api-key"] == SENTINEL and ("api_key", SENTINEL) in query


@pytest.mark.asyncio
async def test_a_hop_back_from_another_host_does_not_regain_the_credentials() -> None:
    seen_first, seen_second = Seen(), Seen()
    urls: dict[str, str] = {}

    def first(request: web.Request) -> web.Response:
        seen_first.record(request)
        if request.path == "/works":
            return web.Response(status=302, headers={"Location": urls["other"] + "/bounce"})
        return web.json_response({"ok": True})

    def second(request: web.Request) -> web.Response:
        seen_second.record(request)
        return web.Response(status=307, headers={"Location": urls["base"] + "/back"})

    async with serve("127.0.0.2", second) as other, serve("127.0.0.1", first) as base:
        urls.update(other=other, base=base)
        async with AiohttpTransport("tests") as transport:
            response = await transport.send(base, KEYED)
    assert response.status == 200
    _, headers, _query = seen_first.requests[-1]
    assert "x-api-key" not in {h.lower() for h in headers}  # once dropped, gone for good


@pytest.mark.asyncio
async def test_a_redirect_loop_is_a_transport_error_without_the_key() -> None:
    seen = Seen()
    async with serve("127.0.0.1", redirecting_to(lambda: "", seen, status=302)) as base:
        async with AiohttpTransport("tests") as transport:
            with pytest.raises(TransportError) as caught:
                await transport.send(base, KEYED)
    assert "redirect" in str(caught.value)
    assert SENTINEL not in str(caught.value) and SENTINEL not in repr(caught.value.args)
    assert len(seen.requests) == MAX_REDIRECTS + 1


@pytest.mark.asyncio
async def test_a_connection_error_names_no_key() -> None:
    async with serve("127.0.0.1", recorder(Seen())) as base:
        dead = base  # the server is gone once the block ends
    async with AiohttpTransport("tests") as transport:
        with pytest.raises(SourceError) as caught:
            await transport.send(dead + f"/x?api_key={SENTINEL}", KEYED)
    assert "could not connect" in str(caught.value)
    assert SENTINEL not in str(caught.value)


# ----------------------------------------------------------------------------- redaction


@pytest.mark.parametrize("text", [
    f"GET https://api.openalex.org/works?search=x&api_key={SENTINEL}&mailto=a@b.org",
    f"url='http://127.0.0.1:80/x?key={SENTINEL}'",
    f"Authorization: Bearer {SENTINEL}",
    f"{{'Crossref-Plus-API-Token': 'Bearer {SENTINEL}'}}",
    f'{{"error":"API rate limit exceeded","api-key":"{SENTINEL}","count":"4"}}',
    f"x-api-key={SENTINEL}",
    f"a body that echoes the key: {SENTINEL}; and quoted: {SENTINEL.replace('-', '%2D')}"
    .replace("%2D", "-"),
    f"?api_key={SENTINEL.replace('-', '%2D')}&x=1",
])
def test_redaction_removes_every_form_of_a_key(text: str) -> None:
    cleaned = redact(text, [SENTINEL])
    assert SENTINEL not in cleaned and "SENTINEL" not in cleaned
    assert "[redacted]" in cleaned


def test_redaction_keeps_what_identifies_and_what_is_not_a_key() -> None:
    text = "mailto=me@example.org&query=monkey=business&tool=verifier"
    assert redact(text, ["xy"]) == text  # short values are not hunted in free text


def test_a_requests_secrets_are_its_key_values_never_its_contact_address() -> None:
    secrets = request_secrets(KEYED.headers, KEYED.identity_params)
    assert SENTINEL in secrets and f"Bearer {SENTINEL}" in secrets
    assert "me@example.org" not in secrets
