"""Importing a module from a coroutine without blocking the event loop.

An import reads files and runs the module's body (a large one for aiohttp or the model
pipelines: tens of milliseconds), so code on the loop that loads something on first use
awaits :func:`imported`: the first import runs on a worker thread, later ones cost a
dictionary look-up. Python's import lock makes a module imported by two threads at once
load once. A module another thread is still importing counts as not yet imported: it
sits in ``sys.modules`` half made, and taking it from there would either hand out a
module without its names or wait for that thread's import lock on the loop's thread.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from types import ModuleType


async def imported(name: str) -> ModuleType:
    """The module ``name`` (absolute), imported on a worker thread if it is not yet."""
    module = sys.modules.get(name)
    if module is None or _still_importing(module):
        module = await asyncio.to_thread(importlib.import_module, name)
    return module


def _still_importing(module: ModuleType) -> bool:
    """Whether ``module``'s body is still running (on some thread)."""
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))
