"""Citation verification engine: are the cited works real, and correctly cited?

The library is used inside the caller's own event loop::

    from verifier import Settings, Verifier

    async with Verifier(Settings.from_env()) as verifier:
        report = await verifier.verify("Smith, J. (2019). Title. Journal, 3(2), 1-9.")
"""

from .citations.checker import Verifier
from .citations.models import (
    Author,
    Citation,
    CitationInput,
    Discrepancy,
    Identifiers,
    MatchScores,
    Report,
    Retraction,
    SourceResult,
    SourceStatus,
    Status,
    WorkRecord,
    WorkType,
)
from .errors import (
    ConfigError,
    InputError,
    SourceError,
    VerifierError,
)
from .settings import SOURCE_NAMES, Settings

__all__ = [
    "Author",
    "Citation",
    "CitationInput",
    "ConfigError",
    "Discrepancy",
    "Identifiers",
    "InputError",
    "MatchScores",
    "Report",
    "Retraction",
    "SOURCE_NAMES",
    "Settings",
    "SourceError",
    "SourceResult",
    "SourceStatus",
    "Status",
    "Verifier",
    "VerifierError",
    "WorkRecord",
    "WorkType",
]
