"""Where test code runs: whether the calling thread is running an event loop (what the
CLI must not do while it imports, draws or joins threads)."""

from __future__ import annotations

import asyncio


def on_event_loop() -> bool:
    """Whether the calling thread is running an event loop right now."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
