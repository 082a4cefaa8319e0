"""Settings from the environment, and the pool each identification buys."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.cli.main import main
from verifier.errors import ConfigError
from verifier.options import CheckOptions
from verifier.settings import (
    DEFAULT_BASE_URLS,
    ENVIRONMENT,
    SOURCE_NAMES,
    Settings,
    unknown_environment,
)
from verifier.sources import PolicyTable, default_policy


def test_from_env_reads_identification_keys_urls_and_cache_dir(tmp_path: Path) -> None:
    env = {
        "VERIFIER_MAILTO": "me@example.org",
        "CROSSREF_PLUS_TOKEN": "plus",
        "OPENALEX_API_KEY": "oa",
        "NCBI_API_KEY": "ncbi",
        "S2_API_KEY": "s2",
        "GOOGLE_BOOKS_API_KEY": "gb",
        "VERIFIER_CACHE_DIR": str(tmp_path),
        "VERIFIER_OPENALEX_URL": "http://127.0.0.1:9999/openalex",
    }
    settings = Settings.from_env(env)
    assert settings.mailto == "me@example.org"
    assert settings.api_keys == {"crossref": "plus", "openalex": "oa", "pubmed": "ncbi",
                                 "semanticscholar": "s2", "googlebooks": "gb"}
    assert settings.cache_dir == tmp_path
    assert settings.base_urls["openalex"] == "http://127.0.0.1:9999/openalex"
    assert settings.base_urls["crossref"] == DEFAULT_BASE_URLS["crossref"]
    assert "mailto:me@example.org" in settings.user_agent


def test_every_source_has_a_base_url_variable() -> None:
    env = {f"VERIFIER_{s.upper()}_URL": f"http://127.0.0.1:1/{s}" for s in SOURCE_NAMES}
    settings = Settings.from_env(env)
    assert all(settings.base_urls[s] == f"http://127.0.0.1:1/{s}" for s in SOURCE_NAMES)


def test_overrides_win_over_the_environment() -> None:
    settings = Settings.from_env({"VERIFIER_MAILTO": "a@example.org"}, mailto="b@example.org")
    assert settings.mailto == "b@example.org"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sources": ("crossref", "scopus")}, "scopus"),
        ({"sources": ()}, "no sources"),
        ({"mailto": "not-an-address"}, "not-an-address"),
        ({"deadline_s": 0}, "deadline_s"),
        ({"base_urls": {"crossref": "ftp://x"}}, "ftp://x"),
    ],
)
def test_impossible_settings_fail_loudly_naming_the_value(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("variable", "value"), [
    ("VERIFIER_INDEPENDENCE", "nope"),
    ("VERIFIER_CROSSREF_URL", "ftp://x"),
    ("VERIFIER_MAILTO", "not-an-address"),
    ("VERIFIER_LLM_URL", "localhost:8000/v1"),
    ("VERIFIER_DECISION_URL", "api.example.org/v1"),
])
def test_a_bad_environment_variable_is_named_with_its_value(variable: str, value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env({variable: value})
    assert variable in str(raised.value) and value in str(raised.value)


def test_base_url_pairs_are_checked() -> None:
    settings = Settings().with_base_urls(["crossref=http://127.0.0.1:8/crossref"])
    assert settings.base_urls["crossref"] == "http://127.0.0.1:8/crossref"
    with pytest.raises(ConfigError, match="SOURCE=URL"):
        Settings().with_base_urls(["crossref"])


def test_base_urls_may_be_a_mapping_or_one_pair() -> None:
    """A library caller's dict is read as sources and URLs (iterating it gave its keys, each
    refused as a malformed pair), and one pair is not read as its characters."""
    settings = Settings().with_base_urls({"crossref": "http://127.0.0.1:8/crossref",
                                          "OpenAlex": "http://127.0.0.1:8/openalex"})
    assert settings.base_urls["crossref"] == "http://127.0.0.1:8/crossref"
    assert settings.base_urls["openalex"] == "http://127.0.0.1:8/openalex"
    one = Settings().with_base_urls("arxiv=http://127.0.0.1:8/arxiv")
    assert one.base_urls["arxiv"] == "http://127.0.0.1:8/arxiv"


@pytest.mark.parametrize(("options", "said"), [
    (CheckOptions(sources=()), "sources is empty"),
    (CheckOptions(sources=("crossref", "nosuch")), "nosuch not enabled"),
    (CheckOptions(deadline_s=-1), "positive"),
    (CheckOptions(deadline_s="5"), "number of seconds"),  # type: ignore[arg-type]
    (CheckOptions(independence="whatever"), "independence"),
])
def test_check_options_name_what_is_wrong(options: CheckOptions, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        options.resolve(Settings())


def test_one_source_name_is_a_source_not_its_letters() -> None:
    assert CheckOptions(sources="crossref").resolve(  # type: ignore[arg-type]
        Settings()).sources == ("crossref",)


def test_identification_selects_the_better_pool() -> None:
    anonymous = Settings()
    polite = Settings(mailto="me@example.org")
    plus = Settings(api_keys={"crossref": "t"})
    assert default_policy("crossref", anonymous).rate_class("list").per_second == 1
    assert default_policy("crossref", anonymous).rate_class("single").per_second == 5
    assert default_policy("crossref", polite).rate_class("list").per_second == 3
    assert default_policy("crossref", polite).max_concurrency == 3
    assert default_policy("crossref", plus).pool == "plus"
    assert default_policy("pubmed", anonymous).rate_class("list").per_second == 3
    assert default_policy("pubmed", Settings(api_keys={"pubmed": "k"})).rate_class(
        "list").per_second == 10
    assert default_policy("openlibrary", polite).rate_class("list").per_second == 3
    assert default_policy("arxiv", anonymous).rate_class("list").per_second == pytest.approx(1 / 3)
    assert not default_policy("googlebooks", anonymous).enabled
    assert default_policy("googlebooks", Settings(api_keys={"googlebooks": "k"})).enabled


def test_time_scale_speeds_every_limit_up_equally() -> None:
    table = PolicyTable.for_settings(Settings(time_scale=10.0))
    assert table["arxiv"].rate_class("list").per_second == pytest.approx(10 / 3)
    assert table["crossref"].rate_class("list").per_second == pytest.approx(10)


def test_every_source_has_exactly_one_adapter_in_settings_order() -> None:
    from adapters import ADAPTERS, adapter_for

    assert tuple(a.name for a in ADAPTERS) == SOURCE_NAMES
    assert all(adapter_for(name.upper()).name == name for name in SOURCE_NAMES)
    assert Settings().sources == SOURCE_NAMES


def test_a_verifier_variable_nothing_reads_is_named_with_the_closest_setting() -> None:
    warnings = unknown_environment({
        "VERIFIER_CACHEDIR": "/x", "VERIFIER_MAILTO": "a@b.org", "VERIFIER_FROBNICATE": "1",
        "VERIFIER_LLM_MODLE": "m", "HOME": "/root", "verifier_cache_dir": "/y"})
    assert warnings == [
        "VERIFIER_CACHEDIR is not a setting and is ignored (did you mean VERIFIER_CACHE_DIR?)",
        "VERIFIER_FROBNICATE is not a setting and is ignored",
        "VERIFIER_LLM_MODLE is not a setting and is ignored (did you mean VERIFIER_LLM_MODEL?)",
    ]
    assert unknown_environment(dict.fromkeys(ENVIRONMENT, "1")) == []


_NAME = re.compile(r"VERIFIER_[A-Z][A-Z0-9_]*")


def test_every_verifier_variable_in_the_source_is_a_known_setting() -> None:
    """The list unknown_environment checks against cannot fall behind the code: every
    VERIFIER_* name written anywhere in the project is in it (or a prefix the code builds
    names from, such as VERIFIER_LLM for VERIFIER_LLM_RPM)."""
    root = Path(__file__).resolve().parents[1]
    files = [*root.glob("verifier/**/*.py"), *root.glob("adapters/*.py"),
             *root.glob("bench/*.py"), *root.glob("tests/*.py"), root / "setup.py",
             root / "README.md", root / "Makefile", root / ".ci" / "run"]
    found = {name.rstrip("_") for path in files for name in _NAME.findall(path.read_text())}
    assert len(found) > 20  # the scan reads the source
    unknown = {name for name in found - ENVIRONMENT
               if not any(known.startswith(name + "_") for known in ENVIRONMENT)}
    # The names this test itself writes as examples of typos are the only strangers.
    assert unknown == {"VERIFIER_CACHEDIR", "VERIFIER_FROBNICATE", "VERIFIER_LLM_MODLE"}


def test_the_cli_warns_of_a_variable_nothing_reads(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("VERIFIER_CACHEDIR", "/tmp/somewhere")
    assert main(["sources"]) == 0
    assert "verifier: warning: VERIFIER_CACHEDIR is not a setting and is ignored (did you " \
        "mean VERIFIER_CACHE_DIR?)" in capsys.readouterr().err
