"""The layers' import direction, read from the source with ``ast`` (every import, at any
depth in a module, counts):

- ``verifier.http`` imports nothing above it (only itself and the leaf modules,
  ``verifier.errors``, ``verifier.value_memos`` and ``verifier.threads``, which import
  nothing of ours);
- adapters do no I/O (no aiohttp, asyncio, sockets, files) and know no pipeline run;
- the world imports nothing of the pipelines (only standards, the model value types, the
  offline model that answers for its simulated endpoint and the option value types);
- the pipelines (citations, llm, claims, judge, reviews) never import the CLI, the service
  or the library front door;
- nothing imports the CLI or the service but themselves.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    name = _module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _ours(imported: set[str]) -> set[str]:
    return {m for m in imported if m.split(".")[0] in ("verifier", "adapters")}


def _within(module: str, allowed: tuple[str, ...]) -> bool:
    return any(module == a or module.startswith(a + ".") for a in allowed)


def _violations(paths: list[Path], allowed: tuple[str, ...]) -> list[str]:
    bad = []
    for path in paths:
        for module in sorted(_ours(_imports(path))):
            # "from verifier.x import name" also yields "verifier.x.name": judge the module.
            if not _within(module, allowed) and not _within(module.rsplit(".", 1)[0], allowed):
                bad.append(f"{path.relative_to(ROOT)} imports {module}")
    return bad


LEAF_MODULES = ("verifier.errors", "verifier.value_memos", "verifier.threads")


def test_the_http_layer_imports_nothing_above_it() -> None:
    assert _violations(_modules("verifier/http"), ("verifier.http", *LEAF_MODULES)) == []


@pytest.mark.parametrize("module", LEAF_MODULES)
def test_a_leaf_module_imports_nothing_of_ours(module: str) -> None:
    path = ROOT / (module.replace(".", "/") + ".py")
    assert _ours(_imports(path)) == set()


def test_adapters_do_no_io() -> None:
    io_modules = ("aiohttp", "asyncio", "socket", "urllib.request", "requests", "httpx",
                  "time", "anyio")
    bad = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in _modules("adapters")
        for module in _imports(path)
        if _within(module, io_modules)
    ]
    assert bad == []


def test_adapters_know_no_pipeline_run_nor_anything_on_top() -> None:
    allowed = ("adapters", "verifier.errors", "verifier.http.transport", "verifier.http.policy",
               "verifier.http.service", "verifier.identifiers", "verifier.citations.models",
               "verifier.citations.candidates",
               "verifier.citations.normalize", "verifier.llm.types")
    assert _violations(_modules("adapters"), allowed) == []


WORLD_MAY_IMPORT = ("verifier.world", "verifier.identifiers", "verifier.llm.types",
                    "verifier.llm.offline", "verifier.arg_types")
"""What of ``verifier`` the world may import (also read by ``test_world_process``)."""


def test_the_world_imports_nothing_of_the_pipelines() -> None:
    assert _violations(_modules("verifier/world"), WORLD_MAY_IMPORT) == []


@pytest.mark.parametrize("layer", ["citations", "llm", "claims", "judge", "reviews"])
def test_pipelines_never_import_the_cli_the_service_or_the_front_door(layer: str) -> None:
    folder = ROOT / "verifier" / layer
    if not folder.is_dir():
        pytest.skip(f"verifier/{layer} does not exist yet")
    top = ("verifier.cli", "verifier.service", "verifier.api")
    bad = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in _modules(f"verifier/{layer}")
        for module in _ours(_imports(path))
        if _within(module, top)
    ]
    assert bad == []


def test_nothing_imports_the_cli_or_the_service_but_themselves() -> None:
    bad = []
    for path in _modules("verifier", "adapters"):
        name = _module_name(path)
        if _within(name, ("verifier.cli", "verifier.service")) or name == "verifier.__main__":
            continue
        for module in _ours(_imports(path)):
            if _within(module, ("verifier.cli", "verifier.service")):
                bad.append(f"{path.relative_to(ROOT)} imports {module}")
    assert bad == []


def test_the_rules_see_a_violation() -> None:
    """The checker itself can fail: a relative import reaching upward is resolved."""
    http_client = ROOT / "verifier" / "http" / "client.py"
    assert "verifier.http.gate" in _imports(http_client)
    assert _violations([http_client], ("verifier.errors",)) != []


# ---------------------------------------------------------------- what a process imports

# What `verifier check` over a file (any format but the one read), `verifier --help` and a
# cached run need not import: aiohttp and the rate limiter (only when a request goes out;
# aiolimiter reads its own package metadata at import), the CRF library (only when a
# citation is parsed rather than read from the parse store), the world, the
# drawing progress displays (not under --quiet), the input readers of other formats and
# their libraries, the model and premise pipelines.
NOT_FOR_A_CHECK = (
    "aiohttp", "yarl", "multidict", "verifier.http.aiohttp_session", "aiolimiter",
    "importlib.metadata", "pycrfsuite", "verifier.world.corpus",
    "verifier.world.server", "rich", "verifier.cli.displays", "bibtexparser", "rispy",
    "pylatexenc", "verifier.citations.inputs.bibtex", "verifier.claims.checker",
    "verifier.llm.select", "verifier.llm.structured",
)


def _imported_by(code: str) -> set[str]:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True, text=True, timeout=60, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_the_cli_and_the_engine_import_only_what_a_check_uses() -> None:
    loaded = _imported_by("import verifier.cli.main, verifier.api\n"
                          "from verifier.cli.main import build_parser\n"
                          "build_parser().parse_args(['check', 'x.csv'])")
    assert sorted(m for m in NOT_FOR_A_CHECK if m in loaded) == []
    assert "verifier.citations.checker" in loaded  # the check itself is there


def test_a_cached_run_imports_no_http_library() -> None:
    # A session with its cache and one client per source, entered and closed: what a run
    # answered wholly from the cache does around its reads.
    loaded = _imported_by(
        "import asyncio, tempfile\n"
        "from verifier.session import Session\n"
        "from verifier.settings import Settings\n"
        "async def run():\n"
        "    with tempfile.TemporaryDirectory() as d:\n"
        "        async with Session(Settings(cache_dir=d)) as session:\n"
        "            assert session.clients\n"
        "asyncio.run(run())\n")
    assert sorted(m for m in ("aiohttp", "verifier.http.aiohttp_session", "aiolimiter")
                  if m in loaded) == []
