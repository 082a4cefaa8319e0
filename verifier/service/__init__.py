"""The HTTP service: ``verifier serve``, API v1, its OpenAPI document and the web page.

One :class:`~verifier.session.Session` serves the whole process, so every request and
every job shares each source's limits and the disk cache. :func:`create_app` builds the
aiohttp application from a :class:`ServiceConfig` and an open session; the CLI's
``verifier serve`` (:mod:`verifier.cli.serve`) runs it with a graceful shutdown.
"""

from __future__ import annotations

from .app import create_app
from .config import ServiceConfig

__all__ = ["ServiceConfig", "create_app"]
