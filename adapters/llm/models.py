"""``GET /models``: which models an endpoint serves (``shared/docs/models.md`` §1).

``{"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}``;
vLLM adds ``max_model_len``, llama.cpp flags decision models with ``"decisions"`` in
``architecture.output_modalities``.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.errors import MalformedResponse
from verifier.http.transport import HttpRequest, HttpResponse

from .failures import raise_for_status
from .wire import json_object

PATH = "/models"


@dataclass(frozen=True, slots=True)
class ModelInfo:
    id: str
    owned_by: str | None = None
    max_model_len: int | None = None
    """Context length where the server says (vLLM)."""
    decisions: bool = False
    """The server flags it as a decision model (llama.cpp)."""


def build_request(*, api_key: str | None = None) -> HttpRequest:
    headers = (("Authorization", f"Bearer {api_key}"),) if api_key else ()
    return HttpRequest(path=PATH, headers=headers, request_class="models")


def parse_response(response: HttpResponse) -> list[ModelInfo]:
    """The models listed, in the server's order."""
    raise_for_status(response)
    document = json_object(response)
    data = document.get("data")
    if not isinstance(data, list):
        raise MalformedResponse("model list has no data")
    models = []
    for entry in data:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise MalformedResponse(f"model entry without an id: {entry!r}")
        length = entry.get("max_model_len")
        architecture = entry.get("architecture")
        modalities = architecture.get("output_modalities") if isinstance(
            architecture, dict) else None
        models.append(ModelInfo(
            id=entry["id"],
            owned_by=entry.get("owned_by") if isinstance(entry.get("owned_by"), str) else None,
            max_model_len=length if isinstance(length, int) and length > 0 else None,
            decisions=isinstance(modalities, list) and "decisions" in modalities,
        ))
    return models
