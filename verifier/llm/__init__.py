"""Language models as sources: decision and chat interfaces, backends, the offline model.

- :mod:`.types`: the values every backend speaks (questions, decisions, chat, usage);
- :mod:`.interfaces`: the ``DecisionModel`` and ``ChatModel`` protocols and the offline
  baselines behind them (:mod:`.offline`);
- :mod:`.backends`: the remote backends (OpenAI Decisions, System One, logprobs over a
  chat endpoint, chat completions) through the session's paced clients;
- :mod:`.structured`: ``complete_json`` (repair, validation, two attempts) over any chat
  model;
- :mod:`.usage`: the price table and the run's usage ledger;
- :mod:`.select`: ``open_models(session)``, the pair the settings call for.
"""
