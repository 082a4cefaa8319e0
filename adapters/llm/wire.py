"""What every language-model wire format shares: JSON POST requests, JSON answers, usage.

Pure functions over :class:`~verifier.http.transport.HttpRequest` and
:class:`~verifier.http.transport.HttpResponse` values: nothing here does I/O.

Paths are relative to a base URL that ends in ``/v1`` (``https://api.openai.com/v1``,
``http://localhost:8000/v1`` for vLLM), as OpenAI's SDK and vLLM's documentation write it:
a chat request goes to ``/chat/completions`` below it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.llm.types import Usage

JSON_TYPE = "application/json"


def post_json(
    path: str,
    payload: Mapping[str, Any],
    *,
    api_key: str | None = None,
    request_class: str = "chat",
    estimated_tokens: int = 0,
) -> HttpRequest:
    """A ``POST`` of ``payload`` as JSON to ``path``.

    The API key goes in an ``Authorization: Bearer`` header (headers are identification:
    left out of cache keys, never logged). ``estimated_tokens`` is carried as the
    request's ``weight`` (what the endpoint's tokens-per-minute limit reserves before
    sending) and, as before, its ``cost``.
    """
    headers: tuple[tuple[str, str], ...] = (("Content-Type", JSON_TYPE),)
    if api_key:
        headers += (("Authorization", f"Bearer {api_key}"),)
    return HttpRequest(
        path=path,
        method="POST",
        body=orjson.dumps(dict(payload)),
        headers=headers,
        request_class=request_class,
        cost=float(estimated_tokens),
        weight=float(estimated_tokens),
    )


def payload_of(request: HttpRequest) -> dict[str, Any]:
    """The JSON document a request built here carries (for tests and cache keys)."""
    if request.body is None:
        raise ValueError("the request has no body")
    document = orjson.loads(request.body)
    if not isinstance(document, dict):
        raise ValueError("the request body is not a JSON object")
    return document


def json_object(response: HttpResponse) -> dict[str, Any]:
    """The response body as a JSON object, or ``MalformedResponse`` (a truncated or
    non-JSON body, or JSON that is not an object)."""
    try:
        document = orjson.loads(response.body)
    except orjson.JSONDecodeError as exc:
        preview = response.body[:80].decode("utf-8", "replace")
        raise MalformedResponse(f"reply is not JSON ({exc}): {preview!r}") from exc
    if not isinstance(document, dict):
        raise MalformedResponse(f"reply is JSON but not an object: {type(document).__name__}")
    return document


def _count(value: Any, what: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedResponse(f"usage field {what} is not a token count: {value!r}")
    return value


def parse_usage(document: Mapping[str, Any]) -> Usage:
    """The ``usage`` of one reply as a :class:`Usage` of one request.

    Reads both spellings: chat completions (``prompt_tokens``, ``completion_tokens``,
    ``prompt_tokens_details.cached_tokens``) and the decision formats (``input_tokens``,
    ``output_tokens``, ``input_tokens_details.cached_tokens``). A reply without ``usage``
    counts one request and no tokens (llama.cpp's System One reports ``output_tokens`` 0).
    Cached tokens are part of the prompt tokens, never more.
    """
    usage = document.get("usage")
    if usage is None:
        return Usage(requests=1)
    if not isinstance(usage, Mapping):
        raise MalformedResponse(f"usage is not an object: {usage!r}")
    if "prompt_tokens" in usage or "completion_tokens" in usage:
        prompt = _count(usage.get("prompt_tokens"), "prompt_tokens")
        completion = _count(usage.get("completion_tokens"), "completion_tokens")
        details = usage.get("prompt_tokens_details") or {}
    else:
        prompt = _count(usage.get("input_tokens"), "input_tokens")
        completion = _count(usage.get("output_tokens"), "output_tokens")
        details = usage.get("input_tokens_details") or {}
    if not isinstance(details, Mapping):
        raise MalformedResponse(f"usage details are not an object: {details!r}")
    cached = _count(details.get("cached_tokens"), "cached_tokens")
    if cached > prompt:
        raise MalformedResponse(f"usage reports {cached} cached of {prompt} prompt tokens")
    return Usage(prompt_tokens=prompt, cached_prompt_tokens=cached,
                 completion_tokens=completion, requests=1)


def model_of(document: Mapping[str, Any], default: str) -> str:
    """The model the server says answered (``default``: the one asked for)."""
    model = document.get("model")
    return model if isinstance(model, str) and model else default
