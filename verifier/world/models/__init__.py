"""A simulated OpenAI-compatible model endpoint, part of the offline world.

Chat completions (with first-token log-probabilities and JSON output), OpenAI Decisions,
System One and the model list, in the real wire shapes, with a latency model, RPM/TPM/
concurrency limits answered as OpenAI answers them, prefix caching reported in
``usage``, exact server-side counters and scripted faults:

- :mod:`.app`: the routes, :func:`serve_models` (standalone on loopback) and
  :func:`mount_models` (beside the bibliographic services, under ``/models``);
- :mod:`.answer`: the answer-model protocol and the lexical stand-in;
- :mod:`.limits`, :mod:`.prefix`, :mod:`.options`: limits, token counting and prefix
  cache, latency and faults.

Like the rest of the world it imports nothing of the pipelines (only the value types of
``verifier.llm.types``).
"""

from .answer import AnswerModel, LexicalAnswerModel
from .app import (
    MODEL_WORLD,
    MODELS_PREFIX,
    ModelsHandle,
    ModelWorld,
    ServedCounters,
    create_models_app,
    mount_models,
    serve_models,
)
from .limits import ModelLimits, format_duration
from .options import FAULT_HEADER, FAULT_NAMES, NO_LATENCY, Latency, ModelFaults, ModelWorldOptions

__all__ = [
    "FAULT_HEADER",
    "FAULT_NAMES",
    "MODELS_PREFIX",
    "MODEL_WORLD",
    "NO_LATENCY",
    "AnswerModel",
    "Latency",
    "LexicalAnswerModel",
    "ModelFaults",
    "ModelLimits",
    "ModelWorld",
    "ModelWorldOptions",
    "ModelsHandle",
    "ServedCounters",
    "create_models_app",
    "format_duration",
    "mount_models",
    "serve_models",
]
