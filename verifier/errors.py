"""The engine's one exception tree.

::

    VerifierError
    ├── ConfigError               bad settings or CLI usage (exit code 2)
    ├── InputError                one input item cannot be read; the batch goes on
    └── SourceError               one source could not answer; becomes a SourceResult value
        ├── TransportError        raised by a Transport; lower-layer errors are mapped here
        │   ├── RequestTimeout        no complete answer within the request timeout
        │   ├── ConnectFailed         could not connect (refused, DNS, TLS)
        │   └── ConnectionLost        connection reset or closed mid-answer
        ├── RateLimited           429 (or the service's own throttling signal); retry_after
        ├── ServerError           5xx after retries
        ├── UnexpectedStatus      a status the adapter does not know how to read
        ├── MalformedResponse     a body the adapter cannot parse (or an error inside a 200)
        ├── CircuitOpen           the source failed repeatedly and is resting
        ├── BudgetSpent           the source's daily budget for this run is used up
        └── DeadlineExceeded      the citation's deadline left no time to (re)try

Every ``SourceError`` carries a neutral :class:`FailureKind` (``rate_limited``,
``timed_out``, ``error``, ``skipped``): the HTTP layer knows nothing of citations or
premises, and each pipeline maps the kind to its own status where it fans out (the
citation checker to a ``SourceResult`` status, which is never "not found";
``BudgetSpent`` is ``skipped``: the service was not asked). Anything outside this tree
is a bug and propagates.
"""

from __future__ import annotations

from enum import StrEnum


class FailureKind(StrEnum):
    """Why a service could not answer, in words every pipeline understands."""

    RATE_LIMITED = "rate_limited"
    TIMED_OUT = "timed_out"
    ERROR = "error"
    SKIPPED = "skipped"
    """Not asked (a spent budget): never a failure of the service itself."""


class VerifierError(Exception):
    """Base of every error the engine raises on purpose."""


class ConfigError(VerifierError):
    """Settings or command-line arguments that cannot work."""


class InputError(VerifierError):
    """One input item cannot be read. ``item`` names it (line number, key or id)."""

    def __init__(self, item: str, message: str, text: str = "", field: str = "") -> None:
        super().__init__(f"{item}: {message}")
        self.item = item
        self.message = message
        self.text = text
        """The item's text as far as it could be read (may be cut short)."""
        self.field = field
        """The field at fault when one is ("title" given as a number), else ""."""


class SourceError(VerifierError):
    """One source could not answer one request."""

    kind: FailureKind = FailureKind.ERROR
    """What kind of failure this is; pipelines map it to their own status."""
    requests: int = 0
    """Requests sent before the failure was final (set by the source client)."""


class TransportError(SourceError):
    """A failure below HTTP semantics, raised by a ``Transport``."""


class RequestTimeout(TransportError):
    kind = FailureKind.TIMED_OUT


class ConnectFailed(TransportError):
    pass


class ConnectionLost(TransportError):
    pass


class RateLimited(SourceError):
    """The source said "too many requests". ``retry_after`` is in seconds, if it said."""

    kind = FailureKind.RATE_LIMITED

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServerError(SourceError):
    def __init__(self, message: str, http_status: int) -> None:
        super().__init__(message)
        self.http_status = http_status


class UnexpectedStatus(SourceError):
    def __init__(self, message: str, http_status: int) -> None:
        super().__init__(message)
        self.http_status = http_status


class MalformedResponse(SourceError):
    pass


class CircuitOpen(SourceError):
    """The source's breaker is open; ``kind`` is the kind of its last failure."""

    def __init__(self, message: str, cause: FailureKind = FailureKind.ERROR) -> None:
        super().__init__(message)
        self.kind = cause


class BudgetSpent(SourceError):
    """Asking would exceed the source's daily budget (OpenAlex credits): not asked."""

    kind = FailureKind.SKIPPED


class DeadlineExceeded(SourceError):
    """The citation's deadline ran out (or a wait would have crossed it)."""

    kind = FailureKind.TIMED_OUT

    def __init__(self, message: str, cause: FailureKind = FailureKind.TIMED_OUT) -> None:
        super().__init__(message)
        self.kind = cause
