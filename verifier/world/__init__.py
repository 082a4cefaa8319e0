"""An offline stand-in ("world") for the bibliographic services the engine queries.

A local aiohttp server on loopback speaks each service's real protocol (same paths,
parameters, JSON shapes and "not found" shapes, rate headers) over a corpus of works, so
the engine runs unchanged against it by pointing its base URLs at the world:

- :mod:`~verifier.world.corpus` — the corpus format and each source's rendered view;
- :mod:`~verifier.world.crossref`, :mod:`~verifier.world.openalex` — one module of
  routes per service;
- :mod:`~verifier.world.server` — mounts every service under ``/<source>``, keeps the
  request log, and serves it (:func:`serve_world`);
- :mod:`~verifier.world.cli` — the ``serve`` command (``verifier-world serve``,
  ``python -m verifier.world serve``, ``verifier world serve``);
- :mod:`~verifier.world.process` — the world in a child process of its own
  (:func:`~verifier.world.process.world_process`), for measurements of an engine that
  must not share its event loop with the stand-in;
- :mod:`~verifier.world.demo` — the demo corpus and references (package data).

It serves all eight sources the engine asks, and on request (``serve_world(models=...)``,
``verifier world serve --models``) a simulated OpenAI-compatible model endpoint under
``/models/v1`` (:mod:`~verifier.world.models`). It imports nothing of the engine's
pipelines (only :mod:`verifier.identifiers` and the model value types): it is the other
side of the wire.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .corpus import (
        Clause,
        Corpus,
        CorpusError,
        Hit,
        Person,
        RenderedWork,
        Rendering,
        Retraction,
        SourceView,
        Work,
    )
    from .server import (
        REQUEST_LOG,
        SERVICES,
        RequestLogEntry,
        WorldHandle,
        create_app,
        serve_world,
    )

_SERVER_NAMES = frozenset(
    {"REQUEST_LOG", "SERVICES", "RequestLogEntry", "WorldHandle", "create_app", "serve_world"}
)
_CORPUS_NAMES = frozenset({"Clause", "Corpus", "CorpusError", "Hit", "Person", "RenderedWork",
                           "Rendering", "Retraction", "SourceView", "Work"})


def __getattr__(name: str) -> Any:
    # The server module loads on first use, so `python -m verifier.world.server` does not
    # find itself already imported by the package; the corpus too, so the CLI can build
    # its `world serve` parser (verifier.world.cli) without loading either.
    if name in _SERVER_NAMES:
        from verifier.world import server

        return getattr(server, name)
    if name in _CORPUS_NAMES:
        from verifier.world import corpus

        return getattr(corpus, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "REQUEST_LOG",
    "SERVICES",
    "Clause",
    "Corpus",
    "CorpusError",
    "Hit",
    "Person",
    "RenderedWork",
    "Rendering",
    "RequestLogEntry",
    "Retraction",
    "SourceView",
    "Work",
    "WorldHandle",
    "create_app",
    "serve_world",
]
