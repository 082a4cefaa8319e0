"""The judging bench's model side: the simulated endpoint in a process of its own.

The endpoint (``python bench/judge_endpoint.py serve ...``, started by
:func:`endpoint_process`) is the world's simulated model endpoint
(:func:`verifier.world.models.serve_models`) answering with the project's offline chat
model (:class:`OfflineAnswers`: the offline baseline's rules, served over the wire), with
the limits and latency the bench gives it. It prints one JSON line
``{"event": "ready", "url", "base_url"}`` and serves until its standard input closes.
``GET <url>/_world/usage`` gives its exact counters. The judge reaches it through
``open_models(session)``, the remote chat backend every run uses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from verifier.llm.offline import OfflineChatModel, OfflineDecisionModel
from verifier.llm.types import ChatMessage, Question

MODEL = "world-chat"


@dataclass(frozen=True, slots=True)
class EndpointLimits:
    rpm: int
    tpm: int
    concurrency: int
    time_scale: float = 1.0


class OfflineAnswers:
    """The world's answer-model protocol over the offline baseline."""

    def __init__(self) -> None:
        self._chat = OfflineChatModel()
        self._decisions: OfflineDecisionModel | None = None

    def decide(self, state: str, questions: Mapping[str, Question]) -> Any:
        if self._decisions is None:
            self._decisions = OfflineDecisionModel()
        return self._decisions.decide(state, questions)

    def complete(self, messages: Sequence[ChatMessage],
                 schema: Mapping[str, Any] | None = None) -> str:
        return self._chat.complete(messages).text


# ----------------------------------------------------------------------------- the child


async def _serve(args: argparse.Namespace) -> None:
    from verifier.world.models import Latency, ModelLimits, ModelWorldOptions, serve_models

    options = ModelWorldOptions(
        limits=ModelLimits(rpm=args.rpm, tpm=args.tpm, concurrency=args.concurrency),
        latency=Latency(ttft_s=args.ttft_s, prefill_s_per_token=args.prefill_s_per_token,
                        per_token_s=args.per_token_s, jitter=0.1, seed=0))
    async with serve_models(options, time_scale=args.time_scale, port=args.port,
                            answer_model=OfflineAnswers()) as handle:
        print(orjson.dumps({"event": "ready", "url": handle.url,
                            "base_url": handle.base_url}).decode(), flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)

        def watch() -> None:
            sys.stdin.read()
            loop.call_soon_threadsafe(stop.set)

        threading.Thread(target=watch, daemon=True).start()
        await stop.wait()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="judge_endpoint.py")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve")
    serve.add_argument("--rpm", type=int, required=True)
    serve.add_argument("--tpm", type=int, required=True)
    serve.add_argument("--concurrency", type=int, required=True)
    serve.add_argument("--time-scale", type=float, default=1.0)
    serve.add_argument("--ttft-s", type=float, default=0.3)
    serve.add_argument("--prefill-s-per-token", type=float, default=0.00002)
    serve.add_argument("--per-token-s", type=float, default=0.004)
    serve.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    asyncio.run(_serve(args))


@dataclass(slots=True)
class Endpoint:
    url: str
    base_url: str

    async def usage(self, reset: bool = False) -> dict[str, Any]:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.request(
                "DELETE" if reset else "GET", f"{self.url}/_world/usage") as response:
            value: dict[str, Any] = await response.json()
        return value


@contextlib.asynccontextmanager
async def endpoint_process(limits: EndpointLimits, *, ttft_s: float, prefill_s_per_token: float,
                           per_token_s: float, port: int = 0) -> AsyncIterator[Endpoint]:
    command = [sys.executable, __file__, "serve", "--rpm", str(limits.rpm), "--tpm",
               str(limits.tpm), "--concurrency", str(limits.concurrency), "--time-scale",
               repr(limits.time_scale), "--ttft-s", repr(ttft_s), "--prefill-s-per-token",
               repr(prefill_s_per_token), "--per-token-s", repr(per_token_s),
               "--port", str(port)]
    child = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        start_new_session=True)
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), 60)
        ready = orjson.loads(line)
        yield Endpoint(ready["url"], ready["base_url"])
    finally:
        if child.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(child.wait(), 10)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    child.kill()
                await child.wait()


if __name__ == "__main__":
    main()
