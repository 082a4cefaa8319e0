"""Run settings: who we are, where the sources live, which sources to ask, cache and time.

``Settings()`` is a plain value with the real services' base URLs and no identification.
``Settings.from_env()`` reads the environment once, at start-up (never at import):

=========================  ==========================================================
``VERIFIER_MAILTO``        contact address: polite pools and the User-Agent
``CROSSREF_PLUS_TOKEN``    Crossref Metadata Plus token
``OPENALEX_API_KEY``       OpenAlex key
``NCBI_API_KEY``           PubMed (E-utilities) key
``S2_API_KEY``             Semantic Scholar key
``GOOGLE_BOOKS_API_KEY``   Google Books key
``VERIFIER_CACHE_DIR``     disk cache folder (default: ``~/.cache/citation-verifier``)
``VERIFIER_INDEPENDENCE``  ``distinct`` (default) or ``lineage``
``VERIFIER_KEEP_PARSES``   ``0`` keeps no reference parses beside the cache (default ``1``)
``VERIFIER_<SOURCE>_URL``  base URL of one source, SOURCE in ``CROSSREF``, ``OPENALEX``,
                           ``PUBMED``, ``SEMANTICSCHOLAR``, ``OPENLIBRARY``,
                           ``GOOGLEBOOKS``, ``DOAJ``, ``ARXIV``
=========================  ==========================================================

The language-model endpoints are the ``models`` section (:class:`ModelSettings`, read by
:meth:`ModelSettings.from_env`; its docstring lists the variables). None set: the offline
models answer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from adapters import SERVICES

from .errors import ConfigError

SOURCE_NAMES: tuple[str, ...] = tuple(service.name for service in SERVICES)
DEFAULT_BASE_URLS: Mapping[str, str] = {service.name: service.base_url for service in SERVICES}
KEY_ENV_VARS: Mapping[str, str] = {
    service.name: service.key_env for service in SERVICES if service.key_env
}
"""All three derive from the sources' declarations (``SERVICE`` in each adapter module)."""

VERSION = "0.1.0"
_MAILTO = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

ENVIRONMENT: frozenset[str] = frozenset({
    "VERIFIER_MAILTO", "VERIFIER_CACHE_DIR", "VERIFIER_KEEP_PARSES", "VERIFIER_INDEPENDENCE",
    *(f"VERIFIER_{name.upper()}_URL" for name in SOURCE_NAMES),
    *(f"VERIFIER_LLM_{name}" for name in ("URL", "MODEL", "API_KEY", "RPM", "TPM",
                                          "CONCURRENCY", "CONTEXT", "JSON_MODE", "PRICES")),
    *(f"VERIFIER_DECISION_{name}" for name in ("URL", "MODEL", "API_KEY", "FORMAT", "RPM",
                                               "TPM", "CONCURRENCY")),
    "VERIFIER_SERVICE_KEYS", "VERIFIER_SERVICE_DIR",  # verifier serve
    "VERIFIER_REGEX_STORE", "VERIFIER_REVIEWBENCH",
    "VERIFIER_PURE_PYTHON",  # read when installing (setup.py)
    "VERIFIER_API_SAMPLES",  # read by the test suite
})
"""Every ``VERIFIER_*`` environment variable this project reads (a test holds the list to
every such name in the source)."""


def unknown_environment(env: Mapping[str, str]) -> list[str]:
    """A warning for each ``VERIFIER_*`` variable in ``env`` that nothing reads (a typo
    such as ``VERIFIER_CACHEDIR`` is otherwise ignored in silence), naming the closest
    known one."""
    from difflib import get_close_matches

    warnings = []
    for name in sorted(env):
        if name.startswith("VERIFIER_") and name not in ENVIRONMENT:
            close = get_close_matches(name, ENVIRONMENT, n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]}?)" if close else ""
            warnings.append(f"{name} is not a setting and is ignored{hint}")
    return warnings


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citation-verifier"


@dataclass(frozen=True, slots=True)
class Settings:
    mailto: str | None = None
    api_keys: Mapping[str, str] = field(default_factory=dict)
    base_urls: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_BASE_URLS))
    sources: tuple[str, ...] = SOURCE_NAMES
    """Sources the engine may ask, in the user's order (the planner decides the real order)."""
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    """None disables the disk cache."""
    cache_read: bool = True
    """False with a cache is ``--refresh``: answers are fetched anew and stored."""
    keep_parses: bool = True
    """Keep reference parses in the cache folder for the next run
    (:mod:`verifier.citations.parse_store`); no effect without a cache."""
    positive_ttl_s: float = 30 * 86400
    negative_ttl_s: float = 1 * 86400
    deadline_s: float = 120.0
    """Per-citation deadline: past it, sources still out are reported ``timed_out``."""
    time_scale: float = 1.0
    """Divides every published rate interval (tests against a sped-up stand-in)."""
    independence: str = "distinct"
    """What makes two agreeing sources independent: ``distinct`` (any two databases) or
    ``lineage`` (a copy agreeing with the source it ingests through the same identifier,
    such as OpenAlex with Crossref through one DOI, counts as that one; see
    ``verifier.citations.verdict.LINEAGES``)."""
    models: ModelSettings = field(default_factory=lambda: ModelSettings())
    """The language-model endpoints (none: the offline models)."""

    def __post_init__(self) -> None:
        unknown = [s for s in self.sources if s not in SOURCE_NAMES]
        if unknown:
            raise ConfigError(
                f"unknown source(s) {', '.join(unknown)}; known: {', '.join(SOURCE_NAMES)}"
            )
        if not self.sources:
            raise ConfigError("no sources enabled")
        if self.independence not in ("distinct", "lineage"):
            raise ConfigError(
                "independence (VERIFIER_INDEPENDENCE) must be 'distinct' or 'lineage', got "
                f"{self.independence!r}"
            )
        if self.mailto is not None and not _MAILTO.match(self.mailto):
            raise ConfigError(f"VERIFIER_MAILTO {self.mailto!r} is not an e-mail address")
        for name, value in (
            ("deadline_s", self.deadline_s),
            ("positive_ttl_s", self.positive_ttl_s),
            ("negative_ttl_s", self.negative_ttl_s),
            ("time_scale", self.time_scale),
        ):
            if not value > 0:
                raise ConfigError(f"{name} must be positive, got {value!r}")
        for source, url in self.base_urls.items():
            if source not in SOURCE_NAMES:
                raise ConfigError(f"base URL given for unknown source {source!r}")
            if not is_http_url(url):
                raise ConfigError(f"base URL for {source} (VERIFIER_{source.upper()}_URL, "
                                  f"--base-url or --world) must be http(s), got {url!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from the environment; keyword ``overrides`` win (CLI options)."""
        env = os.environ if environ is None else environ
        keys = {src: env[var] for src, var in KEY_ENV_VARS.items() if env.get(var)}
        urls = dict(DEFAULT_BASE_URLS)
        for source in SOURCE_NAMES:
            value = env.get(f"VERIFIER_{source.upper()}_URL")
            if value:
                urls[source] = value
        cache_dir = env.get("VERIFIER_CACHE_DIR")
        base = cls(
            mailto=env.get("VERIFIER_MAILTO") or None,
            api_keys=keys,
            base_urls=urls,
            cache_dir=Path(cache_dir) if cache_dir else default_cache_dir(),
            independence=env.get("VERIFIER_INDEPENDENCE") or "distinct",
            keep_parses=env.get("VERIFIER_KEEP_PARSES", "1").strip().lower()
            not in ("0", "false", "no", "off"),
            models=ModelSettings.from_env(env),
        )
        return replace(base, **overrides)  # type: ignore[arg-type]

    def with_base_urls(self, pairs: Mapping[str, str] | Iterable[str]) -> Settings:
        """Apply where sources live: a mapping of source name to URL (a library caller's
        form), or ``SOURCE=URL`` pairs (the ``--base-url`` option's)."""
        urls = dict(self.base_urls)
        if isinstance(pairs, Mapping):
            pairs = [f"{source}={url}" for source, url in pairs.items()]
        elif isinstance(pairs, str):
            pairs = [pairs]  # one pair, not its characters
        for pair in pairs:
            source, sep, url = pair.partition("=")
            if not sep or not url:
                raise ConfigError(f"--base-url takes SOURCE=URL, got {pair!r}")
            urls[source.strip().lower()] = url.strip()
        return replace(self, base_urls=urls)

    def key(self, source: str) -> str | None:
        return self.api_keys.get(source)

    @property
    def user_agent(self) -> str:
        contact = f"; mailto:{self.mailto}" if self.mailto else ""
        return f"citation-verifier/{VERSION} (+https://github.com/citation-verifier{contact})"


# ----------------------------------------------------------------------------- models

DECISION_FORMATS: tuple[str, ...] = ("logprobs", "decisions", "systemone", "offline")
JSON_MODES: tuple[str, ...] = ("json_schema", "json_schema_top_level", "json_object", "text")


def is_http_url(url: str) -> bool:
    """Whether ``url`` is an http(s) URL: what every base URL and endpoint must be (the
    settings and the command line check it here)."""
    return url.startswith(("http://", "https://"))


def _positive_int(env: Mapping[str, str], name: str) -> int | None:
    text = env.get(name)
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {text!r}") from None
    if value < 1:
        raise ConfigError(f"{name} must be at least 1, got {value}")
    return value


def _endpoint_url(env: Mapping[str, str], name: str) -> str | None:
    """The model endpoint URL in variable ``name`` (None when unset), refused naming the
    variable when it is not http(s)."""
    url = env.get(name) or None
    if url is not None and not is_http_url(url):
        raise ConfigError(f"{name} must be an http(s) URL (…/v1), got {url!r}")
    return url


def parse_prices(text: str) -> dict[str, tuple[float, float | None, float]]:
    """``MODEL=IN/CACHED/OUT[,MODEL=...]`` in USD per million tokens; a cached price of
    ``-`` means cached input is billed at the input price."""
    prices: dict[str, tuple[float, float | None, float]] = {}
    for part in filter(None, (p.strip() for p in re.split(r"[,;]", text))):
        model, sep, figures = part.partition("=")
        numbers = figures.split("/")
        if not sep or not model.strip() or len(numbers) != 3:
            raise ConfigError(f"VERIFIER_LLM_PRICES takes MODEL=IN/CACHED/OUT, got {part!r}")
        try:
            cached = None if numbers[1].strip() in ("", "-") else float(numbers[1])
            row = (float(numbers[0]), cached, float(numbers[2]))
        except ValueError:
            raise ConfigError(f"VERIFIER_LLM_PRICES: not a price in {part!r}") from None
        if min(row[0], row[2], 0.0 if cached is None else cached) < 0:
            raise ConfigError(f"VERIFIER_LLM_PRICES: a negative price in {part!r}")
        prices[model.strip()] = row
    return prices


@dataclass(frozen=True, slots=True)
class ModelEndpointSettings:
    """One configured model endpoint: where it is, which model, its key, limit overrides.

    ``url`` is the base URL ending in ``/v1`` (``https://api.openai.com/v1``,
    ``http://localhost:8000/v1``). The key is never shown (``repr``), logged, cached or
    written to results. ``rpm``, ``tpm``, ``concurrency``: None keeps the defaults of
    :mod:`verifier.endpoints`.
    """

    url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    rpm: int | None = None
    tpm: int | None = None
    concurrency: int | None = None

    def __post_init__(self) -> None:
        if not is_http_url(self.url):
            raise ConfigError(f"model endpoint URL must be http(s), got {self.url!r}")
        if not self.model:
            raise ConfigError(f"model endpoint {self.url} needs a model name")
        for name in ("rpm", "tpm", "concurrency"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"model endpoint {name} must be at least 1, got {value}")


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """The ``models`` section: which language-model endpoints answer, and how.

    From the environment (:meth:`from_env`):

    =============================  ======================================================
    ``VERIFIER_LLM_URL``           chat endpoint base URL (``…/v1``); unset: offline chat
    ``VERIFIER_LLM_MODEL``         its model (required with the URL)
    ``VERIFIER_LLM_API_KEY``       its key; falls back to ``OPENAI_API_KEY``
    ``VERIFIER_LLM_JSON_MODE``     ``json_schema`` (default; OpenAI, vLLM),
                                   ``json_schema_top_level`` (llama.cpp), ``json_object``
                                   or ``text`` (the schema goes in the prompt)
    ``VERIFIER_LLM_RPM``,          limits of the endpoint(s) (defaults in
    ``_TPM``, ``_CONCURRENCY``     :mod:`verifier.endpoints`)
    ``VERIFIER_LLM_CONTEXT``       context tokens of the model (default 128,000)
    ``VERIFIER_LLM_PRICES``        extra price rows, ``MODEL=IN/CACHED/OUT`` per 1M tokens
    ``VERIFIER_DECISION_URL``      decision endpoint; default: the chat endpoint
    ``VERIFIER_DECISION_MODEL``    default: the chat model
    ``VERIFIER_DECISION_FORMAT``   ``logprobs`` (default), ``decisions``, ``systemone`` or
                                   ``offline``
    ``VERIFIER_DECISION_API_KEY``  default: the chat endpoint's key
    ``VERIFIER_DECISION_RPM`` …    limits of a separate decision endpoint
    =============================  ======================================================

    Nothing set: both interfaces are the offline baselines. A decision endpoint at the
    chat endpoint's URL is the same endpoint: one set of limits for both.
    """

    llm: ModelEndpointSettings | None = None
    decision: ModelEndpointSettings | None = None
    decision_format: str = "logprobs"
    json_mode: str = "json_schema"
    context_tokens: int = 128_000
    max_completion_tokens: int = 2048
    """Reply tokens a chat (JSON) call may use; reserved against the TPM limit."""
    prices: Mapping[str, tuple[float, float | None, float]] = field(default_factory=dict)
    """Extra price rows (model → USD per 1M input, cached input, output tokens) on top of
    :data:`verifier.llm.usage.PRICES`; they win over a shipped row of the same model."""

    def __post_init__(self) -> None:
        if self.decision_format not in DECISION_FORMATS:
            raise ConfigError(f"VERIFIER_DECISION_FORMAT must be one of "
                              f"{', '.join(DECISION_FORMATS)}, got {self.decision_format!r}")
        if self.json_mode not in JSON_MODES:
            raise ConfigError(f"VERIFIER_LLM_JSON_MODE must be one of {', '.join(JSON_MODES)}, "
                              f"got {self.json_mode!r}")
        if self.context_tokens < 256 or self.max_completion_tokens < 1:
            raise ConfigError("context_tokens must be at least 256 and "
                              "max_completion_tokens at least 1")
        if self.decision is not None and self.decision_format == "offline":
            raise ConfigError("a decision endpoint is configured but the format is 'offline'")

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ModelSettings:
        url = _endpoint_url(env, "VERIFIER_LLM_URL")
        model = env.get("VERIFIER_LLM_MODEL") or None
        key = env.get("VERIFIER_LLM_API_KEY") or env.get("OPENAI_API_KEY") or None
        if url and not model:
            raise ConfigError("VERIFIER_LLM_URL is set but VERIFIER_LLM_MODEL is not")
        if model and not url:
            raise ConfigError("VERIFIER_LLM_MODEL is set but VERIFIER_LLM_URL is not")
        llm = None
        if url and model:
            llm = ModelEndpointSettings(
                url=url, model=model, api_key=key,
                rpm=_positive_int(env, "VERIFIER_LLM_RPM"),
                tpm=_positive_int(env, "VERIFIER_LLM_TPM"),
                concurrency=_positive_int(env, "VERIFIER_LLM_CONCURRENCY"))
        fmt = env.get("VERIFIER_DECISION_FORMAT") or "logprobs"
        d_url = _endpoint_url(env, "VERIFIER_DECISION_URL")
        d_model = env.get("VERIFIER_DECISION_MODEL") or None
        decision = None
        if fmt != "offline" and (d_url or llm is not None):
            base = d_url or (llm.url if llm else "")
            chosen = d_model or (llm.model if llm else None)
            if not chosen:
                raise ConfigError("VERIFIER_DECISION_URL is set but VERIFIER_DECISION_MODEL "
                                  "is not (and no VERIFIER_LLM_MODEL to fall back on)")
            same = llm is not None and base.rstrip("/") == llm.url.rstrip("/")
            prefix = "VERIFIER_LLM" if same else "VERIFIER_DECISION"
            decision = ModelEndpointSettings(
                url=base, model=chosen,
                api_key=env.get("VERIFIER_DECISION_API_KEY") or key,
                rpm=_positive_int(env, f"{prefix}_RPM") or (llm.rpm if llm else None),
                tpm=_positive_int(env, f"{prefix}_TPM") or (llm.tpm if llm else None),
                concurrency=_positive_int(env, f"{prefix}_CONCURRENCY") or (
                    llm.concurrency if llm else None))
        context = _positive_int(env, "VERIFIER_LLM_CONTEXT")
        return cls(llm=llm, decision=decision, decision_format=fmt,
                   json_mode=env.get("VERIFIER_LLM_JSON_MODE") or "json_schema",
                   context_tokens=context or 128_000,
                   prices=parse_prices(env.get("VERIFIER_LLM_PRICES") or ""))

    @property
    def configured(self) -> bool:
        """Whether any remote endpoint is configured."""
        return self.llm is not None or self.decision is not None
