"""What a running service is allowed to do: who may call it and how much."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from verifier.errors import ConfigError


def is_loopback(host: str) -> bool:
    """True for a loopback address or ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """The service's limits. ``keys`` empty and ``open_access`` False refuses every call
    to the API; ``open_access`` is accepted only on a loopback host."""

    data_dir: Path
    """Jobs live in ``data_dir/jobs`` (inputs, results, state)."""
    keys: tuple[str, ...] = ()
    open_access: bool = False
    host: str = "127.0.0.1"
    max_body_bytes: int = 20 * 1024 * 1024
    max_batch: int = 1000
    """Most citations in one ``/v1/citations/check`` request (larger: a job)."""
    max_job_citations: int = 100_000
    per_key_concurrency: int = 8
    """Requests of one key in progress at once."""
    per_key_rate: float = 20.0
    """Requests per second one key may start, on average ..."""
    per_key_burst: int = 40
    """... with bursts of up to this many."""
    check_concurrency: int = 16
    """Citations of one request (or job) checked at once."""
    job_workers: int = 2
    """Jobs running at once; the others wait, queued."""
    cors_origins: tuple[str, ...] = ()
    grace_s: float = 10.0
    """On shutdown: time in-flight requests get to finish before they are cancelled."""

    def __post_init__(self) -> None:
        if self.open_access and not is_loopback(self.host):
            raise ConfigError(f"open access (--open) is only allowed on a loopback host, "
                              f"not {self.host!r}; give API keys instead")
        if any(not key or key != key.strip() or "," in key for key in self.keys):
            raise ConfigError("API keys must be non-empty, without spaces or commas")
        for name in ("max_body_bytes", "max_batch", "per_key_concurrency", "per_key_burst",
                     "check_concurrency", "job_workers", "max_job_citations"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1")
        if not self.per_key_rate > 0 or not self.grace_s >= 0:
            raise ConfigError("per_key_rate must be positive and grace_s not negative")

    @property
    def auth_required(self) -> bool:
        return not self.open_access


def parse_keys(text: str) -> tuple[str, ...]:
    """Keys from ``VERIFIER_SERVICE_KEYS`` (comma-separated) or a keys file (one per line or
    comma-separated; ``#`` starts a comment line)."""
    keys: list[str] = []
    for line in text.splitlines():
        if line.strip().startswith("#"):
            continue
        keys.extend(part.strip() for part in line.split(",") if part.strip())
    return tuple(dict.fromkeys(keys))
