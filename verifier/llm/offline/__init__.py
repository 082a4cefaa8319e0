"""The offline default: a decision model and a chat model that need no network and no GPU.

Both run in-process, deterministically, and do no I/O beyond reading the shipped
``weights.json`` once. They are **baselines** and say so in every result
(``backend="offline"``).

What the decision model can do (:class:`OfflineDecisionModel`, see :mod:`.decision`)
------------------------------------------------------------------------------------

- judge a statement against a state (a paper, an abstract, an evidence excerpt) from
  word-level evidence only: BM25 picks the state's sentences nearest the statement, and a
  logistic calibration weighs how much of the statement they cover, whether exactly one
  side is negated, whether the statement's numbers occur in the state and whether the
  passages move the same quantity in the opposite direction;
- answer "is it grounded?" (does the state bear on it) with a second logistic model on
  coverage features;
- answer choice and score questions by documented lexical rules (:mod:`.decision`).

What it cannot do: understand paraphrase, synonyms, scope, causality, hedging, tables or
arithmetic; tell "contradicted" from "not supported" (it answers 1 − P(supported));
know anything beyond the state (general-knowledge premises get no real judgement); judge
options or scales that are not about the state's content. Its probabilities are
moderate by construction (P(true) stays within about 0.3–0.7). Measured with
``verifier bench decisions`` (weights fitted on the other dataset), its P(true) separates
supported from contradicted claims barely better than chance: AUROC 0.561 on SciFact
(n = 200, 95 % CI 0.48–0.64) and 0.575 on Citation-Integrity (n = 2,843, 0.55–0.60).

What the chat model can do (:class:`OfflineChatModel`, see :mod:`.chat`)
-----------------------------------------------------------------------

Answer five tasks by rule, always with schema-valid JSON: premise decomposition
(:func:`decompose`), claim extraction (:func:`extract_claims`), comment parsing
(:func:`parse_comments`), claim mapping (:func:`map_comments`) and critique typing
(:func:`type_critiques`). It picks and trims sentences and counts cue words; it does not
paraphrase, infer or read intent.
"""

from verifier.llm.offline.chat import OfflineChatModel, UnsupportedTask, task_message
from verifier.llm.offline.claims import extract_claims
from verifier.llm.offline.comments import map_comments, parse_comments, type_critiques
from verifier.llm.offline.decision import OfflineDecisionModel, read_predicate
from verifier.llm.offline.premises import decompose
from verifier.llm.offline.text import estimate_tokens
from verifier.llm.offline.weights import OfflineWeights, load_weights

__all__ = [
    "OfflineChatModel",
    "OfflineDecisionModel",
    "OfflineWeights",
    "UnsupportedTask",
    "decompose",
    "estimate_tokens",
    "extract_claims",
    "load_weights",
    "map_comments",
    "parse_comments",
    "read_predicate",
    "task_message",
    "type_critiques",
]
