"""The public API is what ``verifier.__all__`` says, complete and sorted."""

from __future__ import annotations

import verifier


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in dir(verifier) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(verifier, name)).__name__ == "module"}
    assert verifier.__all__ == sorted(verifier.__all__)
    assert set(verifier.__all__) == public - modules
