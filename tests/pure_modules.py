"""A module as plain Python, for the tests that watch a module's own calls.

The warm path's modules run compiled (``native-modules.txt``): a compiled module calls its
own functions directly, past any ``monkeypatch`` of its attributes. A test that counts or
replaces such a call loads the module's source as a separate, plain module and watches
that one: the same code the compiled module is built from."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

from verifier.native import is_compiled, source_of


def pure(name: str) -> ModuleType:
    """Module ``name`` as plain Python: the module itself when it is not compiled, else a
    fresh copy run from its source (its own imports are the installed modules)."""
    module = importlib.import_module(name)
    if not is_compiled(module):
        return module
    copy_name = f"{name}__pure"
    if copy_name in sys.modules:
        return sys.modules[copy_name]
    spec = importlib.util.spec_from_file_location(copy_name, source_of(module))
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    copy.__package__ = name.rpartition(".")[0]
    sys.modules[copy_name] = copy  # dataclasses look their module up while it runs
    spec.loader.exec_module(copy)
    return copy
