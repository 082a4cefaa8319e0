"""``verifier serve``'s command line: settings, keys, the open-access rule, ``--world``."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from verifier.cli.locations import world_pairs
from verifier.cli.main import build_parser, main
from verifier.cli.serve import serve_settings, service_keys
from verifier.settings import SOURCE_NAMES


def parse(*argv: str) -> object:
    return build_parser().parse_args(["serve", *argv])


def test_world_puts_every_source_under_its_root_and_base_url_wins() -> None:
    args = parse("--world", "http://127.0.0.1:9000/", "--base-url",
                 "crossref=http://127.0.0.1:9999/cr", "--no-cache")
    settings = serve_settings(args)  # type: ignore[arg-type]
    assert settings.base_urls["crossref"] == "http://127.0.0.1:9999/cr"
    assert settings.base_urls["arxiv"] == "http://127.0.0.1:9000/arxiv"
    assert [pair.split("=")[0] for pair in world_pairs("http://w")] == list(SOURCE_NAMES)


def test_keys_come_from_the_environment_and_the_keys_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keys_file = tmp_path / "keys"
    keys_file.write_text("# ours\nfile-key-1\nfile-key-2, env-key-1\n")
    monkeypatch.setenv("VERIFIER_SERVICE_KEYS", "env-key-1,env-key-2")
    args = parse("--keys-file", str(keys_file))
    assert service_keys(args) == ("env-key-1", "env-key-2", "file-key-1",  # type: ignore[arg-type]
                                  "file-key-2")


def test_serve_refuses_to_start_without_keys_or_open_off_loopback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("VERIFIER_SERVICE_KEYS", raising=False)
    assert main(["serve", "--no-cache", "--port", "0"]) == 2
    assert "no API keys" in capsys.readouterr().err
    assert main(["serve", "--no-cache", "--open", "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "loopback" in capsys.readouterr().err
    assert main(["serve", "--world", "ftp://x"]) == 2


@pytest.mark.parametrize(("where", "said"), [
    ("afile", "is not a folder"),
    ("afile/data", "cannot be created"),
])
def test_a_data_dir_that_cannot_be_one_is_a_usage_error_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, said: str) -> None:
    (tmp_path / "afile").write_text("a file, not a folder")
    data_dir = tmp_path / where
    assert main(["serve", "--no-cache", "--open", "--port", "0",
                 "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err
    assert said in err and str(data_dir) in err


def test_a_port_in_use_is_a_usage_error_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--no-cache", "--open", "--quiet", "--port", str(port),
                     "--data-dir", str(tmp_path / "data")]) == 2
    assert f"port {port} on 127.0.0.1 is in use" in capsys.readouterr().err


@pytest.mark.parametrize(("option", "value"), [
    ("--max-body-mb", "0"), ("--max-batch", "0"), ("--key-rate", "0"),
    ("--key-concurrency", "0"), ("--grace", "-1"), ("--job-workers", "0"),
    ("--cors", "notaurl")])
def test_a_bad_option_value_is_refused_naming_the_option(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str) -> None:
    assert main(["serve", "--no-cache", "--open", "--port", "0", "--data-dir",
                 str(tmp_path / "data"), option, value]) == 2
    assert f"argument {option}: " in capsys.readouterr().err
