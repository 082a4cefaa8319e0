"""The model endpoints' pre-flight check: ``GET /models`` once per endpoint before a run,
against the simulated endpoint and small servers on loopback. A run is refused only on an
answer that settles it (the key refused, the model not listed); an endpoint that cannot
say lets the run go on; and a refused run leaves an existing output as it was."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import orjson
import pytest
from aiohttp import web
from threaded import served_in_thread
from world_helpers import serve_app

from verifier.cli.main import main
from verifier.errors import ConfigError
from verifier.llm.preflight import (
    Listing,
    check_model_endpoints,
    endpoint_listing,
    listing_problem,
)
from verifier.session import Session
from verifier.settings import KEY_ENV_VARS, ModelEndpointSettings, ModelSettings, Settings
from verifier.world.models import NO_LATENCY, ModelLimits, ModelWorldOptions, serve_models

FAST = ModelWorldOptions(latency=NO_LATENCY,
                         limits=ModelLimits(rpm=None, tpm=None, concurrency=None))


def _settings(llm_url: str | None, llm_model: str = "world-chat", *,
              decision_model: str | None = None, api_key: str | None = "sk-test") -> Settings:
    llm = ModelEndpointSettings(llm_url, llm_model, api_key=api_key) if llm_url else None
    decision = (ModelEndpointSettings(llm_url, decision_model, api_key=api_key)
                if llm_url and decision_model else None)
    return Settings(models=ModelSettings(llm=llm, decision=decision), time_scale=100.0)


async def _refusal(settings: Settings, interfaces: tuple[str, ...] = ("chat", "decisions")
                   ) -> str | None:
    async with Session(settings) as session:
        try:
            await check_model_endpoints(session, interfaces)
        except ConfigError as exc:
            return str(exc)
    return None


@pytest.mark.asyncio
async def test_a_model_the_endpoint_does_not_list_is_refused_naming_the_ones_it_serves(
        ) -> None:
    async with serve_models(FAST) as handle:
        refused = await _refusal(_settings(handle.base_url, "world-chta"))
        fine = await _refusal(_settings(handle.base_url, "world-chat",
                                        decision_model="gpt-6-luna"))
        wrong_decision = await _refusal(_settings(handle.base_url, "world-chat",
                                                  decision_model="gpt-6-lune"))
        chat_only = await _refusal(_settings(handle.base_url, "world-chat",
                                             decision_model="gpt-6-lune"), ("chat",))
        listed = handle.world.counters.by_route["models"]
    assert refused is not None
    assert f"{handle.base_url} does not serve model 'world-chta'" in refused
    assert "world-chat, gpt-6-luna, jev" in refused and "VERIFIER_LLM_MODEL" in refused
    assert fine is None and chat_only is None  # the judge asks only its chat model
    assert wrong_decision is not None and "VERIFIER_DECISION_MODEL" in wrong_decision
    assert listed == 4  # once per run: the shared endpoint and key are asked once


@asynccontextmanager
async def _endpoint(key: str | None = "good", route: bool = True) -> AsyncIterator[str]:
    """An endpoint whose ``GET /v1/models`` lists "m" to ``Bearer good`` and answers 401
    to other keys (or has no such route)."""
    async def models(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {key}":
            return web.json_response({"error": {"message": "Incorrect API key provided",
                                                "type": "invalid_request_error",
                                                "code": "invalid_api_key"}}, status=401)
        return web.json_response({"object": "list", "data": [{"id": "m", "object": "model"}]})

    app = web.Application()
    if route:
        app.router.add_get("/v1/models", models)
    async with serve_app("models", app) as url:
        yield url + "/v1"


@pytest.mark.asyncio
async def test_a_refused_or_missing_key_is_named_by_its_variable() -> None:
    async with _endpoint() as url:
        wrong = await _refusal(_settings(url, "m", api_key="bad"))
        missing = await _refusal(_settings(url, "m", api_key=None))
        right = await _refusal(_settings(url, "m", api_key="good"))
    assert wrong is not None and "refused the key (401 Incorrect API key provided)" in wrong
    assert "VERIFIER_LLM_API_KEY" in wrong and "bad" not in wrong
    assert missing is not None and "needs a key" in missing
    assert right is None


@pytest.mark.asyncio
async def test_an_endpoint_that_cannot_say_lets_the_run_go_on() -> None:
    async with _endpoint(route=False) as no_route:  # a proxy without /models: 404
        assert await _refusal(_settings(no_route, "anything")) is None
    assert await _refusal(_settings(None)) is None  # offline models: nothing asked
    async with Session(_settings("http://127.0.0.1:9/v1", "m")) as session:
        listing = await endpoint_listing(session.model_client("llm"), "k", wait_s=0.5)
    assert listing == Listing()  # nothing listening: it does not say


def test_listing_problem_refuses_only_what_the_listing_settles() -> None:
    def problem(listing: Listing, keyed: bool = True) -> str | None:
        return listing_problem(listing, endpoint="E", model="m", keyed=keyed,
                               model_setting="MODEL_VAR", key_setting="KEY_VAR")

    assert problem(Listing()) is None
    assert problem(Listing(served=("a", "m"))) is None
    assert problem(Listing(served=())) == ("the model endpoint E does not serve model 'm' "
                                          "(it serves: none); set MODEL_VAR to one of them")
    assert problem(Listing(refused="403 blocked")) == (
        "the model endpoint E refused the key (403 blocked); check KEY_VAR")
    assert problem(Listing(refused="401 no key"), keyed=False) == (
        "the model endpoint E needs a key (401 no key); set KEY_VAR")


@pytest.fixture
def model_world() -> Iterator[str]:
    """The simulated endpoint on its own thread and loop (the CLI runs its own loop)."""
    with served_in_thread(lambda: serve_models(FAST), "models") as handle:
        yield handle.base_url


def test_a_run_refused_before_its_start_exits_2_and_leaves_the_output_as_it_was(
        model_world: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for name in list(os.environ):
        if name.startswith("VERIFIER_") or name in KEY_ENV_VARS.values():
            monkeypatch.delenv(name)
    monkeypatch.setenv("VERIFIER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_LLM_URL", model_world)
    monkeypatch.setenv("VERIFIER_LLM_MODEL", "no-such-model")
    comments = tmp_path / "comments.jsonl"
    comments.write_bytes(orjson.dumps({"paper_id": "p", "comment_id": "c", "comment":
                                       "Accuracy was 91 percent.", "paper": "Accuracy was "
                                       "91 percent on the test set."}) + b"\n")
    out = tmp_path / "out.jsonl"
    out.write_text("an earlier run's lines\n")
    code = main(["premises", str(comments), "-o", str(out), "--force", "-q"])
    assert code == 2
    assert out.read_text() == "an earlier run's lines\n"
    assert "does not serve model 'no-such-model'" in capsys.readouterr().err
    monkeypatch.setenv("VERIFIER_LLM_MODEL", "world-chat")
    assert main(["premises", str(comments), "-o", str(out), "--force", "-q"]) == 0
    assert orjson.loads(out.read_bytes())["backend"] == "chat+logprobs"


def test_the_service_does_not_start_with_a_model_its_endpoint_does_not_serve(
        model_world: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VERIFIER_LLM_URL", model_world)
    monkeypatch.setenv("VERIFIER_LLM_MODEL", "no-such-model")
    code = main(["serve", "--no-cache", "--open", "--quiet", "--port", "0",
                 "--data-dir", str(tmp_path / "data")])
    assert code == 2
    assert "does not serve model 'no-such-model'" in capsys.readouterr().err
