"""The HTTP layer: transport, pacing, retries and the response cache.

It knows nothing of citations, premises or reviews: requests are method, path, query and
body; answers are status, headers and bytes; failures carry a neutral
:class:`~verifier.errors.FailureKind`. Every service the engine talks to (the eight
bibliographic databases, language-model endpoints) goes through it.
"""
