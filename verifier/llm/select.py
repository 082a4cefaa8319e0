"""``open_models(session)``: the decision and chat models the settings call for.

The premise checks and the review judge call this once per session and use the two
values through :class:`~verifier.llm.interfaces.DecisionModel` and
:class:`~verifier.llm.interfaces.ChatModel` only:

- ``settings.models.decision`` set: the backend of ``decision_format`` (``logprobs``,
  ``decisions``, ``systemone``) on its endpoint's paced client; else the offline
  decision model (a baseline);
- ``settings.models.llm`` set: :class:`~verifier.llm.backends.ChatBackend`; else the
  offline chat model (a baseline).

Every remote backend of the session writes to one :class:`~verifier.llm.usage.UsageLedger`,
kept on the session's stats as ``stats.meters["models"]`` (the progress line and the
summaries read it).
"""

from __future__ import annotations

from verifier.endpoints import decision_endpoint
from verifier.session import Session

from .backends import ChatBackend, DecisionsBackend, LogprobsBackend, SystemOneBackend
from .interfaces import ChatModel, DecisionModel, OfflineChat, OfflineDecisions
from .usage import PriceTable, UsageLedger

LEDGER = "models"

_DECISION_BACKENDS: dict[str, type[LogprobsBackend | DecisionsBackend | SystemOneBackend]] = {
    "logprobs": LogprobsBackend,
    "decisions": DecisionsBackend,
    "systemone": SystemOneBackend,
}


def ledger_of(session: Session) -> UsageLedger:
    """The session's model usage ledger (created on first use)."""
    meter = session.stats.meters.get(LEDGER)
    if not isinstance(meter, UsageLedger):
        meter = UsageLedger(PriceTable(session.settings.models.prices))
        session.stats.meters[LEDGER] = meter
    return meter


def open_models(session: Session) -> tuple[DecisionModel, ChatModel]:
    """The run's decision and chat models (module docs). Call inside the session's loop."""
    models = session.settings.models
    ledger = ledger_of(session)
    scale = session.settings.time_scale
    decision: DecisionModel = OfflineDecisions()
    name = decision_endpoint(session.settings)
    if models.decision is not None and name is not None:
        backend = _DECISION_BACKENDS[models.decision_format]
        decision = backend(session.model_client(name), model=models.decision.model,
                           api_key=models.decision.api_key, ledger=ledger,
                           context_tokens=models.context_tokens, time_scale=scale)
    chat: ChatModel = OfflineChat()
    if models.llm is not None:
        chat = ChatBackend(session.model_client("llm"), model=models.llm.model,
                           api_key=models.llm.api_key, ledger=ledger,
                           context_tokens=models.context_tokens, time_scale=scale,
                           json_mode=models.json_mode,
                           max_completion_tokens=models.max_completion_tokens)
    return decision, chat
