"""Citation verification engine: are the cited works real, and correctly cited?

The library is used inside the caller's own event loop::

    from verifier import Settings, Verifier

    async with Verifier(Settings.from_env()) as verifier:
        report = await verifier.verify("Smith, J. (2019). Title. Journal, 3(2), 1-9.")

The names below are imported on first use, so ``import verifier`` (and ``verifier
--help``) pay only for what they touch, and the adapters can be imported first.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import Verifier as Verifier
    from .citations.models import Author as Author
    from .citations.models import Citation as Citation
    from .citations.models import CitationInput as CitationInput
    from .citations.models import Discrepancy as Discrepancy
    from .citations.models import Identifiers as Identifiers
    from .citations.models import MatchScores as MatchScores
    from .citations.models import Report as Report
    from .citations.models import Retraction as Retraction
    from .citations.models import SourceResult as SourceResult
    from .citations.models import SourceStatus as SourceStatus
    from .citations.models import Status as Status
    from .citations.models import WorkRecord as WorkRecord
    from .citations.models import WorkType as WorkType
    from .citations.models import report_to_json as report_to_json
    from .errors import ConfigError as ConfigError
    from .errors import InputError as InputError
    from .errors import SourceError as SourceError
    from .errors import VerifierError as VerifierError
    from .options import CheckOptions as CheckOptions
    from .session import Session as Session
    from .settings import SOURCE_NAMES as SOURCE_NAMES
    from .settings import Settings as Settings

_WHERE = {
    "Verifier": ".api",
    "Session": ".session",
    "CheckOptions": ".options",
    "ConfigError": ".errors",
    "InputError": ".errors",
    "SourceError": ".errors",
    "VerifierError": ".errors",
    "SOURCE_NAMES": ".settings",
    "Settings": ".settings",
    **dict.fromkeys(
        ("Author", "Citation", "CitationInput", "Discrepancy", "Identifiers", "MatchScores",
         "Report", "Retraction", "SourceResult", "SourceStatus", "Status", "WorkRecord",
         "WorkType", "report_to_json"),
        ".citations.models",
    ),
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
