"""A judging-shaped load on the model backends against the simulated endpoint.

Run::

    .venv/bin/verifier bench models [--papers 20] [--questions 30] [--time-scale 20]
                                    [--json FILE]

The load: ``--papers`` synthetic papers of about 3,000 tokens each (deterministic text,
seed 7), and for each paper, all at once, ``--questions`` predicates through the
**logprobs** backend (one request per question, the paper first and identical in every
request so the server's prefix cache hits), the same questions in one request through
the **Decisions** backend, and one structured **chat JSON** call (``complete_json``, a
claims schema, 512 reply tokens reserved). Every backend shares the one endpoint's paced
client, as in a judging run.

Two phases, each against its own endpoint process (``serve_models`` in a child process,
so the server's work does not share the engine's event loop), time-scaled like the
world (every period divided by ``--time-scale``, in the endpoint and the engine alike):

1. **hosted** (the endpoint's defaults, OpenAI tier-1-like): 500 requests/min,
   200,000 tokens/min, 32 concurrent, latency 0.3 s + 0.05 ms per uncached prompt token
   + 20 ms per reply token (±20 %); the client is configured with the same limits. Tokens
   per minute bind. Then the same load again in a new session over the same disk cache:
   the **re-run**.
2. **self-hosted** (vLLM-like: no request or token limits, 8 requests at a time, the same
   latency model, time scale ``--self-hosted-time-scale``, default 2, so that a request's
   service time stays well above the per-request overhead of two processes on one small
   machine): ``--self-hosted-papers`` papers of the logprobs load with the client's
   concurrency set to 8. Concurrency binds.

Reported (``--json FILE`` writes them; the top-level keys are the issue's):

- ``utilisation.tpm``: tokens the server admitted in the hosted phase over what its
  limit allowed in that wall time (a full bucket of one minute's tokens plus the refill
  over the wall time);
- ``utilisation.concurrency``: the server's busy time (sum over admitted requests of the
  time in flight) over ``concurrency × wall`` in the self-hosted phase;
- each phase's other utilisation too (not binding there, so low);
- ``throttled``: 429s the server sent in both phases;
- ``wall_s`` / ``lower_bound_s``: the hosted phase's wall time against its limit-derived
  lower bound, the largest of ``(tokens charged − bucket) / refill``,
  ``(requests − bucket) / refill`` and ``busy time / concurrency``; the self-hosted
  phase's wall and ``busy time / concurrency`` beside them;
- ``rerun_calls``: requests the server received during the re-run; ``rerun_hit_rate``:
  calls answered from the cache / calls;
- ``usage_matches_server``: the client's ledger (prompt, cached-prompt and completion
  tokens, billed replies) equals the server's own counters (``/_world/usage``), in both
  phases.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_args import result_file, write_result

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.http.policy import SourcePolicy  # noqa: E402
from verifier.llm.backends import ChatBackend, DecisionsBackend, LogprobsBackend  # noqa: E402
from verifier.llm.select import ledger_of  # noqa: E402
from verifier.llm.structured import complete_json  # noqa: E402
from verifier.llm.types import ChatMessage, Predicate, Question, Role  # noqa: E402
from verifier.session import Session  # noqa: E402
from verifier.settings import ModelEndpointSettings, ModelSettings, Settings  # noqa: E402

CHAT_MODEL, DECISIONS_MODEL = "world-chat", "gpt-6-luna"
HOSTED: dict[str, int] = {"rpm": 500, "tpm": 200_000, "concurrency": 32}
SELF_HOSTED_CONCURRENCY = 8
SELF_HOSTED: dict[str, int | None] = {"rpm": None, "tpm": None,
                                      "concurrency": SELF_HOSTED_CONCURRENCY}
CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["claims"], "properties": {
        "claims": {"type": "array", "items": {
            "type": "object", "required": ["summary", "source_excerpt"],
            "properties": {"summary": {"type": "string"},
                           "source_excerpt": {"type": "string"}}}}}}
"""The shape the offline chat model's ``extract_claims`` task answers in (the simulated
endpoint answers with the offline model)."""
JSON_REPLY_TOKENS = 512

_TOPICS = ("sparse attention", "protein folding", "graph networks", "speech recognition",
           "reinforcement learning", "image segmentation", "causal inference",
           "federated learning", "language modelling", "robot grasping")
_VERBS = ("improves", "reduces", "does not change", "increases", "lowers")
_MEASURES = ("accuracy", "training time", "memory use", "error rate", "latency", "recall",
             "sample efficiency", "calibration")
_DATA = ("ImageNet", "CIFAR-10", "LibriSpeech", "MS MARCO", "OGB", "MuJoCo", "PDB", "COCO")


# ----------------------------------------------------------------------------- the load


def paper(index: int, rng: random.Random, tokens: int = 3000) -> tuple[str, list[str]]:
    """A synthetic paper of about ``tokens`` tokens and its claim sentences."""
    topic = _TOPICS[index % len(_TOPICS)]
    claims: list[str] = []
    sentences = [f"Paper {index}. We study {topic}."]
    while sum(len(s) + 1 for s in sentences) < tokens * 4:
        claim = (f"Our {topic} method {rng.choice(_VERBS)} {rng.choice(_MEASURES)} on "
                 f"{rng.choice(_DATA)} by {rng.randint(1, 40)} points.")
        claims.append(claim)
        sentences.append(claim)
        sentences.append(f"We describe the setting in section {rng.randint(1, 9)} and "
                         f"report the {rng.choice(_MEASURES)} over {rng.randint(2, 9)} runs.")
    return " ".join(sentences), claims


def questions_for(claims: list[str], n: int, rng: random.Random) -> dict[str, Question]:
    picked = rng.sample(claims, min(n, len(claims)))
    out: dict[str, Question] = {}
    for i, claim in enumerate(picked):
        statement = claim if i % 3 else claim.replace(" by ", " by more than ")
        out[f"q{i:02d}"] = Predicate(f"Is this premise true according to the paper? "
                                     f"Premise: {statement}")
    return out


@dataclass(frozen=True, slots=True)
class Load:
    papers: list[tuple[str, dict[str, Question]]]

    @classmethod
    def make(cls, papers: int, questions: int, seed: int = 7) -> Load:
        rng = random.Random(seed)
        made = []
        for i in range(papers):
            text, claims = paper(i, rng)
            made.append((text, questions_for(claims, questions, rng)))
        return cls(made)


async def run_load(session: Session, load: Load, *, decisions: bool = True,
                   chat: bool = True) -> int:
    """Every call of the load at once; returns the number of calls. A call that fails is
    counted (``FAILURES``) and printed, never fatal: the others go on."""
    client = session.model_client("llm")
    scale = session.settings.time_scale
    ledger = ledger_of(session)
    common: dict[str, Any] = {"ledger": ledger, "time_scale": scale}
    by_logprobs = LogprobsBackend(client, model=CHAT_MODEL, **common)
    by_decisions = DecisionsBackend(client, model=DECISIONS_MODEL, **common)
    by_chat = ChatBackend(client, model=CHAT_MODEL, max_completion_tokens=JSON_REPLY_TOKENS,
                          **common)
    jobs: list[Any] = []
    for text, questions in load.papers:
        jobs.append(by_logprobs.decide(text, questions))
        if decisions:
            jobs.append(by_decisions.decide(text, questions))
        if chat:
            messages = [ChatMessage(Role.SYSTEM, "You extract the claims of a paper as JSON."),
                        ChatMessage(Role.USER, f"task: extract_claims\n<paper>{text}</paper>")]
            jobs.append(complete_json(by_chat, messages, CLAIMS_SCHEMA))
    for outcome in await asyncio.gather(*jobs, return_exceptions=True):
        if isinstance(outcome, BaseException):
            name = type(outcome).__name__
            FAILURES[name] = FAILURES.get(name, 0) + 1
            if FAILURES[name] == 1:
                print(f"a call failed: {name}: {outcome}", file=sys.stderr)
    return ledger.calls


FAILURES: dict[str, int] = {}


# ----------------------------------------------------------------------------- endpoint


@dataclass(slots=True)
class Endpoint:
    base_url: str
    url: str

    async def counters(self) -> dict[str, Any]:
        import aiohttp

        async with aiohttp.ClientSession() as http, \
                http.get(f"{self.url}/_world/usage") as response:
            response.raise_for_status()
            value: dict[str, Any] = await response.json()
        return value


@asynccontextmanager
async def endpoint_process(limits: dict[str, Any], time_scale: float
                           ) -> AsyncIterator[Endpoint]:
    """The simulated endpoint in a child process, until the block ends."""
    spec = json.dumps({"limits": limits, "time_scale": time_scale})
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--child", spec, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE)
    try:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), 60)
        ready = json.loads(line)
        yield Endpoint(ready["base_url"], ready["url"])
    finally:
        if child.stdin is not None:
            child.stdin.close()
        try:
            await asyncio.wait_for(child.wait(), 10)
        except TimeoutError:
            child.kill()
            await child.wait()


async def serve_child(spec: str) -> None:
    """The child: serve until standard input closes."""
    from verifier.world.models import ModelLimits, ModelWorldOptions, serve_models

    options = json.loads(spec)
    limits = ModelLimits(**options["limits"])
    async with serve_models(ModelWorldOptions(limits=limits),
                            time_scale=options["time_scale"]) as handle:
        print(json.dumps({"base_url": handle.base_url, "url": handle.url}), flush=True)
        await asyncio.to_thread(sys.stdin.read)


# ----------------------------------------------------------------------------- phases


def settings_for(base_url: str, limits: dict[str, Any], time_scale: float,
                 cache_dir: Path) -> Settings:
    big = 10**9  # a limit the server does not have: the client does not pace by it
    endpoint = ModelEndpointSettings(base_url, CHAT_MODEL, rpm=limits["rpm"] or big,
                                     tpm=limits["tpm"] or big,
                                     concurrency=limits["concurrency"])
    return Settings(cache_dir=cache_dir, time_scale=time_scale,
                    models=ModelSettings(llm=endpoint))


def usage_check(session: Session, served: dict[str, Any]) -> dict[str, Any]:
    snap = ledger_of(session).snapshot()
    client = {"prompt_tokens": snap.prompt_tokens, "cached_tokens": snap.cached_prompt_tokens,
              "completion_tokens": snap.completion_tokens, "replies": snap.requests}
    server = {"prompt_tokens": served["prompt_tokens"], "cached_tokens": served["cached_tokens"],
              "completion_tokens": served["completion_tokens"],
              "replies": served["billed_replies"]}
    return {"client": client, "server": server, "match": client == server}


def _policy(session: Session) -> SourcePolicy:
    return session.endpoints["llm"].policy


async def hosted(load: Load, time_scale: float, cache_dir: Path) -> dict[str, Any]:
    async with endpoint_process(HOSTED, time_scale) as endpoint:
        settings = settings_for(endpoint.base_url, HOSTED, time_scale, cache_dir)
        async with Session(settings) as session:
            started = time.perf_counter()
            calls = await run_load(session, load)
            wall = time.perf_counter() - started
            served = await endpoint.counters()
            usage = usage_check(session, served)
            snap = ledger_of(session).snapshot()
            client_throttled = session.stats.sources["llm"].throttled
        per_s_tokens = HOSTED["tpm"] / 60 * time_scale
        per_s_requests = HOSTED["rpm"] / 60 * time_scale
        admitted = served["requests"] - sum(served["throttled"].values())
        bounds = {
            "tpm": max(0.0, served["charged_tokens"] - HOSTED["tpm"]) / per_s_tokens,
            "rpm": max(0.0, admitted - HOSTED["rpm"]) / per_s_requests,
            "concurrency": served["busy_s"] / HOSTED["concurrency"],
        }
        allowed_tokens = HOSTED["tpm"] + per_s_tokens * wall
        # Re-run: a new session over the same cache.
        async with Session(settings) as session:
            before = (await endpoint.counters())["requests"]
            started = time.perf_counter()
            rerun_calls = await run_load(session, load)
            rerun_wall = time.perf_counter() - started
            rerun_sent = (await endpoint.counters())["requests"] - before
            rerun = ledger_of(session).snapshot()
    return {
        "calls": calls, "requests": served["requests"], "wall_s": wall,
        "lower_bound_s": max(bounds.values()), "bounds_s": bounds,
        "binding": max(bounds, key=lambda k: bounds[k]),
        "utilisation": {"tpm": served["charged_tokens"] / allowed_tokens,
                        "concurrency": served["busy_s"] / (HOSTED["concurrency"] * wall)},
        "throttled": served["throttled"], "client_throttled": client_throttled,
        "max_in_flight": served["max_in_flight"], "charged_tokens": served["charged_tokens"],
        "usage": usage, "latency_p50_s": snap.latency_p50_s,
        "latency_p95_s": snap.latency_p95_s, "cost": snap.as_json()["cost"],
        "rerun": {"calls": rerun_calls, "sent": rerun_sent, "cache_hits": rerun.cache_hits,
                  "hit_rate": rerun.cache_hits / rerun_calls if rerun_calls else 0.0,
                  "wall_s": rerun_wall},
    }


async def self_hosted(load: Load, time_scale: float, cache_dir: Path) -> dict[str, Any]:
    async with endpoint_process(SELF_HOSTED, time_scale) as endpoint:
        settings = settings_for(endpoint.base_url, SELF_HOSTED, time_scale, cache_dir)
        async with Session(settings) as session:
            started = time.perf_counter()
            calls = await run_load(session, load, decisions=False, chat=False)
            wall = time.perf_counter() - started
            served = await endpoint.counters()
            usage = usage_check(session, served)
            snap = ledger_of(session).snapshot()
    concurrency = SELF_HOSTED_CONCURRENCY
    return {
        "calls": calls, "requests": served["requests"], "wall_s": wall,
        "lower_bound_s": served["busy_s"] / concurrency, "binding": "concurrency",
        "utilisation": {"concurrency": served["busy_s"] / (concurrency * wall)},
        "throttled": served["throttled"], "max_in_flight": served["max_in_flight"],
        "usage": usage, "latency_p50_s": snap.latency_p50_s,
        "latency_p95_s": snap.latency_p95_s,
    }


def report(first: dict[str, Any], second: dict[str, Any]) -> None:
    def pct(x: float) -> str:
        return f"{100 * x:.1f} %"

    print(f"{'':34}{'hosted (TPM-bound)':>22}{'self-hosted (concurrency)':>28}")
    rows = [
        ("calls / requests sent", f"{first['calls']} / {first['requests']}",
         f"{second['calls']} / {second['requests']}"),
        ("utilisation of TPM", pct(first["utilisation"]["tpm"]), "no TPM limit"),
        ("utilisation of concurrency", pct(first["utilisation"]["concurrency"]),
         pct(second["utilisation"]["concurrency"])),
        ("429s received", str(sum(first["throttled"].values())),
         str(sum(second["throttled"].values()))),
        ("wall / lower bound", f"{first['wall_s']:.2f} / {first['lower_bound_s']:.2f} s",
         f"{second['wall_s']:.2f} / {second['lower_bound_s']:.2f} s"),
        ("latency p50 / p95 (call)", f"{first['latency_p50_s']:.2f} / "
         f"{first['latency_p95_s']:.2f} s", f"{second['latency_p50_s']:.3f} / "
         f"{second['latency_p95_s']:.3f} s"),
        ("usage == server counters", str(first["usage"]["match"]),
         str(second["usage"]["match"])),
    ]
    for name, a, b in rows:
        print(f"{name:<34}{a:>22}{b:>28}")
    rerun = first["rerun"]
    print(f"\nre-run (hosted, same cache): {rerun['calls']} calls, {rerun['sent']} sent, "
          f"hit rate {pct(rerun['hit_rate'])}, {rerun['wall_s']:.2f} s")
    client = first["usage"]["client"]
    print(f"hosted usage: {client['prompt_tokens']:,} prompt tokens "
          f"({client['cached_tokens']:,} cached), {client['completion_tokens']:,} completion, "
          f"{client['replies']} replies; cost {first['cost']} (the world's models have no "
          "price row)")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    load = Load.make(args.papers, args.questions)
    small = Load(load.papers[: args.self_hosted_papers])
    with tempfile.TemporaryDirectory(prefix="bench-models-") as tmp:
        first = await hosted(load, args.time_scale, Path(tmp) / "hosted")
        second = await self_hosted(small, args.self_hosted_time_scale, Path(tmp) / "self")
    report(first, second)
    return {
        "utilisation": {"concurrency": second["utilisation"]["concurrency"],
                        "tpm": first["utilisation"]["tpm"]},
        "throttled": sum(first["throttled"].values()) + sum(second["throttled"].values()),
        "wall_s": first["wall_s"], "lower_bound_s": first["lower_bound_s"],
        "rerun_calls": first["rerun"]["sent"],
        "rerun_hit_rate": first["rerun"]["hit_rate"],
        "usage_matches_server": first["usage"]["match"] and second["usage"]["match"],
        "hosted": first, "self_hosted": second,
        "settings": {"papers": args.papers, "questions": args.questions,
                     "time_scale": args.time_scale,
                     "self_hosted_papers": args.self_hosted_papers,
                     "self_hosted_time_scale": args.self_hosted_time_scale,
                     "hosted_limits": HOSTED, "self_hosted_limits": SELF_HOSTED},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier bench models",
                                     description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--papers", type=int, default=20)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--time-scale", type=float, default=20.0)
    parser.add_argument("--self-hosted-papers", type=int, default=10)
    parser.add_argument("--self-hosted-time-scale", type=float, default=2.0)
    parser.add_argument("--json", type=result_file, help="write the results as JSON here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        asyncio.run(serve_child(args.child))
        return 0
    results = asyncio.run(run(args))
    if args.json:
        write_result(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
