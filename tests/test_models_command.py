"""``verifier models``: the configured backends and their limits, never a key."""

from __future__ import annotations

import json

import pytest

from verifier.cli.main import main

MODEL_VARS = ("VERIFIER_LLM_URL", "VERIFIER_LLM_MODEL", "VERIFIER_LLM_API_KEY", "OPENAI_API_KEY",
              "VERIFIER_LLM_RPM", "VERIFIER_LLM_TPM", "VERIFIER_LLM_CONCURRENCY",
              "VERIFIER_DECISION_URL", "VERIFIER_DECISION_MODEL", "VERIFIER_DECISION_FORMAT",
              "VERIFIER_DECISION_API_KEY", "VERIFIER_LLM_PRICES", "VERIFIER_LLM_JSON_MODE")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in MODEL_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_models_lists_the_offline_baselines_when_nothing_is_set(
        capsys: pytest.CaptureFixture[str], clean_env: pytest.MonkeyPatch) -> None:
    assert main(["models", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["interface"], r["backend"]) for r in rows] == [
        ("chat", "offline"), ("decisions", "offline")]


def test_models_shows_the_limits_in_force_and_never_the_key(
        capsys: pytest.CaptureFixture[str], clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("VERIFIER_LLM_URL", "http://127.0.0.1:8000/v1")
    clean_env.setenv("VERIFIER_LLM_MODEL", "qwen")
    clean_env.setenv("OPENAI_API_KEY", "sk-NEVER-SHOWN")
    clean_env.setenv("VERIFIER_LLM_TPM", "30000")
    clean_env.setenv("VERIFIER_DECISION_FORMAT", "logprobs")
    assert main(["models", "--json"]) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in out.splitlines()]
    assert {r["backend"] for r in rows} == {"chat", "logprobs"}
    assert all(r["tpm"] == 30000 and r["rpm"] == 500 and r["keyed"] for r in rows)
    assert main(["models"]) == 0
    text = capsys.readouterr().out
    assert "30,000 tokens/min" in text
    assert "NEVER-SHOWN" not in out + text


def test_a_bad_model_setting_is_a_usage_error(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("VERIFIER_LLM_URL", "http://127.0.0.1:8000/v1")
    assert main(["models"]) == 2


def test_the_summary_and_status_line_show_the_model_spend() -> None:
    from pathlib import Path

    from verifier.cli.output import Tally
    from verifier.cli.progress import RunProgress, summary_lines
    from verifier.http.stats import RunStats
    from verifier.llm.types import Usage
    from verifier.llm.usage import UsageLedger

    stats = RunStats()
    ledger = UsageLedger()
    ledger.reply("llm", "gpt-5.4-mini", Usage(1_000_000, 0, 0, 1))
    ledger.call(sent=True, cached=False, latency_s=1.0, ok=True)
    stats.meters["models"] = ledger
    lines = summary_lines(Tally(), stats, 1.0, Path("out.jsonl"))
    assert "models 1 calls (0 cached), 1.0M tokens (0 prompt cached), $0.7500" in lines
    status = RunProgress(stats, [], total=1).status_line()
    assert status.endswith("| models 1 calls (0 cached), 1.0M tokens (0 prompt cached), "
                           "$0.7500")
