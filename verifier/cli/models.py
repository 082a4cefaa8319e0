"""``verifier models``: the language-model backends these settings give, and their limits.

One row per interface (chat, decisions): the backend (``offline`` for the in-process
baselines), the endpoint and model, whether a key is set (never the key itself) and the
limits in force (requests and tokens per minute, concurrency, timeout, attempts). A run's
spend (tokens, requests, latency, cost) is shown by the commands that spend it, in their
progress line and summary.
"""

from __future__ import annotations

import argparse
from typing import Any

from verifier.endpoints import summarize
from verifier.settings import Settings

from .json_lines import write_json_lines


def add_models_command(commands: Any) -> None:
    models = commands.add_parser(
        "models", help="list the language-model backends with their limits",
        description="List the chat and decision backends this environment configures "
                    "(VERIFIER_LLM_*, VERIFIER_DECISION_*; none set: the offline "
                    "baselines) with the limits in force.")
    models.add_argument("--json", action="store_true", help="one JSON object per backend")
    models.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    models.set_defaults(handler=run_models)


def run_models(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    rows = summarize(settings)
    if args.json:
        write_json_lines(rows)
        return 0
    print(f"{'interface':<11}{'backend':<11}{'model':<22}{'endpoint':<36}limits in force")
    for row in rows:
        where = row.base_url or "in-process"
        if row.base_url and row.keyed:
            where += " (key)"
        limits = row.limits
        if row.request_timeout_s is not None:
            limits += f"; timeout {row.request_timeout_s:g}s, {row.max_attempts} attempts"
        print(f"{row.interface:<11}{row.backend:<11}{row.model:<22}{where:<36}{limits}")
    models = settings.models
    if models.configured:
        print(f"\ncontext {models.context_tokens:,} tokens; chat JSON mode {models.json_mode}; "
              f"replies up to {models.max_completion_tokens:,} tokens")
    else:
        print("\nno endpoint configured: set VERIFIER_LLM_URL and VERIFIER_LLM_MODEL "
              "(see README, Settings)")
    return 0
