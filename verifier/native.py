"""Which modules run compiled: the warm path's pure modules are compiled to C with mypyc at
install (``native-modules.txt``, ``setup.py``); each is still its ``.py`` source, which is
what the compiled module is built from and what decides its behaviour.

A compiled module (a ``.so`` beside its ``.py``) is what Python imports; one older than its
source would run code that is no longer there, so installing again rebuilds (``make`` does
it when a listed source changes) and the test suite refuses to run over a stale one."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

_SUFFIX = ".py"
_PACKAGES = frozenset({"verifier", "adapters"})


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension rather than its source."""
    return (getattr(module, "__file__", None) or "").endswith(".so")


def source_of(module: ModuleType) -> Path:
    """The ``.py`` source of ``module``, compiled or not."""
    file = Path(module.__file__ or "")
    if not is_compiled(module):
        return file
    return file.with_name(module.__name__.rpartition(".")[2] + _SUFFIX)


def stale_extensions(tree: Path) -> list[Path]:
    """The compiled modules of the packages in ``tree`` whose source is newer than the
    code built from it (a source edited since the last install): each would be imported
    in its source's place.

    A module's ``.so`` is only a shim; the code is in the library they all share
    (``*__mypyc.*.so`` in ``tree``), which every build rewrites, while a shim whose
    content did not change may keep its old time. So a source counts as built when it is
    older than its shim or the shared library."""
    libraries = [path.stat().st_mtime for path in tree.glob("*__mypyc.*.so")]
    built = max(libraries, default=0.0)
    stale = []
    for package in sorted(_PACKAGES):
        for extension in sorted((tree / package).rglob("*.so")):
            stem = extension.name.split(".", 1)[0]
            source = extension.with_name(stem + _SUFFIX)
            if not source.exists():  # an extension written in C (the CRF decoder)
                source = extension.with_name(stem + ".c")
            if (source.exists()
                    and source.stat().st_mtime > max(extension.stat().st_mtime, built)):
                stale.append(extension)
    return stale


def compiled_loaded() -> list[str]:
    """The names of the engine's modules loaded so far that run compiled (for benchmarks
    to say which build they measured)."""
    return sorted(name for name, module in list(sys.modules.items())
                  if name.split(".")[0] in _PACKAGES and module is not None
                  and is_compiled(module))


def interpreter(maps: Path = Path("/proc/self/maps")) -> dict[str, object]:
    """The Python that runs this process, as a benchmark's result names it: the same code
    runs at different speeds on different builds of one CPython version (the README's
    "Which Python" gives what was measured).

    ``libpython_shared`` says whether the interpreter runs from a shared ``libpython``
    (read from ``maps``, Linux's list of the process's mapped files; None where there is
    none). Whether a build was profile-guided cannot be told from the running
    interpreter (a distribution's build settings are not in ``sysconfig``), so it is not
    guessed here."""
    try:
        mapped = maps.read_text(encoding="utf-8", errors="replace")
    except OSError:
        shared: bool | None = None
    else:
        shared = "libpython" in mapped
    return {"implementation": sys.implementation.name,
            "version": ".".join(map(str, sys.version_info[:3])),
            "executable": sys.executable, "libpython_shared": shared}
