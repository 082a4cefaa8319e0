"""Before a run asks a remote model: does its endpoint take the key and serve the model?

A misspelt ``VERIFIER_LLM_MODEL`` or a wrong key otherwise shows only as every comment of
the run ``inconclusive``, one line at a time. :func:`check_model_endpoints` asks each
configured endpoint ``GET /models`` once (``shared/docs/models.md`` §1), through its paced
client (its limits, its retries, the key redacted from any error; the answer is never
cached), and refuses the run with a :class:`~verifier.errors.ConfigError` (exit 2, before
any output is written) only on an answer that settles it:

- the key is refused (401 or 403): every call would be;
- the endpoint lists its models and the configured one is not among them: every call
  would be answered "model does not exist".

Anything else says nothing and the run goes on, its calls reporting their own failures:
an endpoint without a ``/models`` route (some proxies answer 404), a model list that
cannot be read, a network failure, throttling past :data:`PREFLIGHT_S`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass

from adapters.llm import models as model_list
from adapters.llm.failures import FailureClass, classify
from verifier.endpoints import decision_endpoint
from verifier.errors import ConfigError, MalformedResponse, SourceError
from verifier.http.client import PacedClient
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.session import Session

PREFLIGHT_S = 5.0
"""How long one endpoint's answer is waited for (retries and throttling included)."""

@dataclass(frozen=True, slots=True)
class Listing:
    """What an endpoint's ``GET /models`` settled."""

    served: tuple[str, ...] | None = None
    """The model ids it lists (None: it did not say)."""
    refused: str | None = None
    """Why it refused the key (401/403), else None."""


class _ListingReader:
    """Reads ``GET /models`` into a :class:`Listing`; never worth caching."""

    def read(self, request: HttpRequest, response: HttpResponse) -> Listing:
        failure = classify(response)
        if failure is None:
            try:
                return Listing(served=tuple(m.id for m in model_list.parse_response(response)))
            except MalformedResponse:
                return Listing()
        if failure.kind is FailureClass.DENIED:
            return Listing(refused=f"{failure.status} {failure.message}")
        return Listing()

    def positive(self, value: Listing) -> bool:
        return False

    def rate_hint(self, response: HttpResponse) -> None:
        return None


async def endpoint_listing(client: PacedClient, api_key: str | None,
                           wait_s: float = PREFLIGHT_S) -> Listing:
    """``client``'s endpoint's answer to ``GET /models`` (an empty :class:`Listing` when
    it gives none in ``wait_s``)."""
    deadline = asyncio.get_running_loop().time() + wait_s
    try:
        fetched = await client.fetch(model_list.build_request(api_key=api_key), deadline,
                                     _ListingReader())
    except SourceError:
        return Listing()
    return fetched.value


def listing_problem(listing: Listing, *, endpoint: str, model: str, keyed: bool,
                    model_setting: str, key_setting: str) -> str | None:
    """Why a run cannot use ``model`` at ``endpoint`` given its ``listing`` (None: it can,
    or the listing does not say); the settings named are the variables to fix."""
    if listing.refused is not None:
        if not keyed:
            return (f"the model endpoint {endpoint} needs a key ({listing.refused}); set "
                    f"{key_setting}")
        return (f"the model endpoint {endpoint} refused the key ({listing.refused}); "
                f"check {key_setting}")
    if listing.served is not None and model not in listing.served:
        served = ", ".join(listing.served) or "none"
        return (f"the model endpoint {endpoint} does not serve model {model!r} (it serves: "
                f"{served}); set {model_setting} to one of them")
    return None


@dataclass(frozen=True, slots=True)
class _Wanted:
    endpoint: str
    model: str
    api_key: str | None
    model_setting: str
    key_setting: str


def _wanted(session: Session, interfaces: Collection[str]) -> list[_Wanted]:
    """The endpoints the run's models use, with the variables that configure them."""
    models = session.settings.models
    wanted = []
    llm = models.llm
    if llm is not None and "chat" in interfaces:
        wanted.append(_Wanted("llm", llm.model, llm.api_key, "VERIFIER_LLM_MODEL",
                              "VERIFIER_LLM_API_KEY"))
    name = decision_endpoint(session.settings)
    decision = models.decision
    if decision is not None and name is not None and "decisions" in interfaces:
        same_model = llm is not None and decision.model == llm.model
        same_key = llm is not None and decision.api_key == llm.api_key
        wanted.append(_Wanted(
            name, decision.model, decision.api_key,
            "VERIFIER_LLM_MODEL" if same_model else "VERIFIER_DECISION_MODEL",
            "VERIFIER_LLM_API_KEY" if same_key else "VERIFIER_DECISION_API_KEY"))
    return wanted


async def check_model_endpoints(session: Session,
                                interfaces: Collection[str] = ("chat", "decisions")) -> None:
    """Refuse the run (:class:`ConfigError`) when an endpoint of the ``interfaces`` it
    uses settles that it cannot serve it (see the module docs); each endpoint and key is
    asked once, all at once. Nothing is asked of an interface the offline model serves."""
    wanted = _wanted(session, interfaces)
    asks = list(dict.fromkeys((w.endpoint, w.api_key) for w in wanted))
    listings = dict(zip(asks, await asyncio.gather(
        *(endpoint_listing(session.model_client(endpoint), key) for endpoint, key in asks)),
        strict=True))
    for w in wanted:
        problem = listing_problem(listings[w.endpoint, w.api_key],
                                  endpoint=session.model_client(w.endpoint).base_url,
                                  model=w.model, keyed=w.api_key is not None,
                                  model_setting=w.model_setting,
                                  key_setting=w.key_setting)
        if problem is not None:
            raise ConfigError(problem)
