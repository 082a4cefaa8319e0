"""A service declared once: its name, where it lives, its key, its published limits.

Each adapter module declares its service with one :class:`ServiceDeclaration` (``SERVICE``
beside the adapter class); settings, the policy table and ``verifier sources`` derive
from those declarations, so adding a service is one module. The policy is a function of
the identification the run carries (a contact address, a key), because most services
sell their limits by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .policy import RateClass, SourcePolicy


@dataclass(frozen=True, slots=True)
class Identification:
    """Who the run says it is to one service."""

    mailto: str | None = None
    api_key: str | None = None


@dataclass(frozen=True, slots=True)
class ServiceDeclaration:
    name: str
    """Lower-case name used on the command line, in settings and in reports."""
    base_url: str
    """The real service's base URL (``VERIFIER_<NAME>_URL`` or ``--world`` replace it)."""
    key_env: str | None
    """The environment variable holding its key, if it takes one."""
    policy: Callable[[Identification], SourcePolicy]
    """The published limits for the pool this identification buys."""


SHARED_CLASS = "all"
"""The one rate class of a service whose limit covers every endpoint alike."""


def one_class(rate: float, period_s: float = 1.0, concurrency: int = 1) -> dict[str, RateClass]:
    """A single rate class, so lookups and searches share one limiter (two classes of the
    same figures would let the service see twice its limit)."""
    return {SHARED_CLASS: RateClass(rate, period_s, concurrency)}
