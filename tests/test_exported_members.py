"""The public API is what ``verifier.__all__`` says, complete and sorted."""

from __future__ import annotations

import verifier


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in dir(verifier) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(verifier, name)).__name__ == "module"}
    assert verifier.__all__ == sorted(verifier.__all__)
    assert set(verifier.__all__) == public - modules


def test_the_adapters_package_imports_first_on_its_own() -> None:
    """A library user may import the adapters before the engine: no import cycle."""
    import subprocess
    import sys

    for first in ("adapters", "adapters.pubmed", "verifier.world.server"):
        done = subprocess.run([sys.executable, "-c", f"import {first}"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
