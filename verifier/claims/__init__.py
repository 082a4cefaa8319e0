"""Checking the claims of review comments: premise scores, claim statuses, evaluation.

- :mod:`.status`: FactReview's claim-status program (rules as a table, gate levels);
- :mod:`.aggregate`: a comment's score from its premises (minimum, routing, phrasings);
- :mod:`.evaluation`: AUROC, the paired paper-level bootstrap, cost and latency summaries;
- :mod:`.checker`: the PremiseCheck pipeline on the model interfaces (decompose, route,
  verify, aggregate), with :mod:`.decompose`, :mod:`.paper_context` (the paper cut to a
  token budget) and :mod:`.prompt_files` (our versioned prompts in ``prompts/``).
"""
