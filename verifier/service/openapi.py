"""The OpenAPI 3.1 document of API v1, served at ``/openapi.json``.

Written by hand as data; ``tests/test_service_api.py`` holds it to the application's real
routes (every documented path and method is routed, every route is documented).
"""

from __future__ import annotations

from typing import Any

from verifier.citations.inputs import AUTO, READERS
from verifier.settings import SOURCE_NAMES, VERSION

_PROBLEM = {"$ref": "#/components/responses/Problem"}
_JSON = "application/json"
_NDJSON = "application/x-ndjson"


def _ok(description: str, schema: dict[str, Any], media: str = _JSON) -> dict[str, Any]:
    return {"description": description, "content": {media: {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(code): _PROBLEM for code in codes}


_AUTHED: list[dict[str, list[str]]] = [{"bearer": []}]
_CITATION = {"oneOf": [
    {"type": "string", "description": "a citation as text"},
    {"type": "object", "description": "a citation as a JSON lines input line: a 'text' "
     "key, BibTeX 'fields' with 'bibtex_type', or CSL-JSON fields; optional 'id'"},
]}
_OPTIONS = {"type": "object", "additionalProperties": False, "properties": {
    "sources": {"type": "array", "items": {"enum": list(SOURCE_NAMES)}, "minItems": 1},
    "deadline_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 600},
    "independence": {"enum": ["distinct", "lineage"]},
}}
_JOB = {"type": "object", "required": ["id", "state", "total", "done", "counts"], "properties": {
    "id": {"type": "string"},
    "state": {"enum": ["queued", "running", "done", "cancelled", "failed"]},
    "total": {"type": "integer"}, "done": {"type": "integer"},
    "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
    "error": {"type": ["string", "null"]}, "results": {"type": "string"},
    "created": {"type": "number"}, "finished": {"type": ["number", "null"]},
    "retry_of": {"type": ["string", "null"],
                 "description": "the job whose inconclusive citations this one checks again"},
}}
_JOB_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}


def openapi_document() -> dict[str, Any]:
    report = {"$ref": "#/components/schemas/Report"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "citation-verifier", "version": VERSION,
                 "description": "Checks whether cited works exist and are cited correctly. "
                 "Reports follow the JSON lines contract of 'verifier check'."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "responses": {"Problem": {"description": "an RFC 9457 problem",
                                      "content": {"application/problem+json": {"schema": {
                                          "$ref": "#/components/schemas/Problem"}}}}},
            "schemas": {
                "Problem": {"type": "object", "required": ["type", "title", "status", "detail"],
                            "properties": {"type": {"type": "string"},
                                           "title": {"type": "string"},
                                           "status": {"type": "integer"},
                                           "detail": {"type": "string"},
                                           "item": {"description": "the offending item"}}},
                "Report": {"type": "object", "description": "one output line of 'verifier "
                           "check' (keys: id, index, input, citation, status, retraction, "
                           "flags, discrepancies, corrected, agreeing_sources, sources, "
                           "elapsed_s, error, correction, book)",
                           "required": ["id", "index", "status"],
                           "properties": {"status": {"enum": ["verified", "unconfirmed",
                                                              "no_trace", "inconclusive"]}}},
                "CheckRequest": {"type": "object", "additionalProperties": False, "properties": {
                    "citation": _CITATION,
                    "citations": {"type": "array", "items": _CITATION},
                    "document": {"type": "string", "description": "a whole input file"},
                    "format": {"enum": [AUTO, *READERS]},
                    "filename": {"type": "string"},
                    "options": _OPTIONS},
                    "description": "exactly one of citation, citations, document ('format' "
                                   "and 'filename' go with 'document'; a document holding "
                                   "no citation is a 422)"},
                "Job": _JOB,
            },
        },
        "paths": {
            "/": {"get": {"summary": "the web page", "security": [],
                          "responses": {"200": _ok("HTML", {"type": "string"}, "text/html")}}},
            "/static/{name}": {"get": {
                "summary": "the page's script and style", "security": [],
                "parameters": [{"name": "name", "in": "path", "required": True,
                                "schema": {"enum": ["page.js", "page.css"]}}],
                "responses": {"200": {"description": "the file"}, **_errors(404)}}},
            "/openapi.json": {"get": {"summary": "this document", "security": [],
                                      "responses": {"200": _ok("OpenAPI", {"type": "object"})}}},
            "/healthz": {"get": {"summary": "alive", "security": [],
                                 "responses": {"200": _ok("ok", {"type": "object"})}}},
            "/readyz": {"get": {"summary": "ready to check", "security": [],
                                "responses": {"200": _ok("ready", {"type": "object"}),
                                              "503": _ok("not ready", {"type": "object"})}}},
            "/metrics": {"get": {"summary": "Prometheus metrics", "security": [],
                                 "responses": {"200": _ok("text exposition format",
                                                          {"type": "string"}, "text/plain")}}},
            "/v1/sources": {"get": {
                "summary": "the sources with their pools, limits and state",
                "security": _AUTHED,
                "responses": {"200": _ok("one object per source", {"type": "array"}),
                              **_errors(401, 429)}}},
            "/v1/citations/check": {"post": {
                "summary": "check one citation, a list, or a whole document",
                "security": _AUTHED,
                "requestBody": {"required": True, "content": {_JSON: {"schema": {
                    "$ref": "#/components/schemas/CheckRequest"}}}},
                "responses": {
                    "200": {"description": "one citation: a report; a list: a JSON array of "
                            "reports in input order, or with 'Accept: application/x-ndjson' "
                            "a line per report as each is decided",
                            "content": {_JSON: {"schema": {"oneOf": [
                                report, {"type": "array", "items": report}]}},
                                _NDJSON: {"schema": report}}},
                    **_errors(400, 401, 413, 422, 429)}}},
            "/v1/premises/check": {"post": {
                "summary": "premise checks of review comments on a paper: each comment "
                           "scored by the minimum over its premises",
                "security": _AUTHED,
                "requestBody": {"required": True, "content": {_JSON: {"schema": {
                    "type": "object", "required": ["paper"], "additionalProperties": False,
                    "description": "exactly one of comment, comments",
                    "properties": {
                        "paper": {"type": "string"}, "paper_id": {"type": "string"},
                        "comment": {"type": "string"},
                        "comments": {"type": "array", "maxItems": 200, "items": {"oneOf": [
                            {"type": "string"},
                            {"type": "object", "required": ["comment"],
                             "additionalProperties": False,
                             "properties": {"comment_id": {"type": "string"},
                                            "comment": {"type": "string"}}}]}},
                        "options": {"type": "object", "additionalProperties": False,
                                    "properties": {
                                        "aggregate": {"enum": ["min", "mean"]},
                                        "routing": {"type": "boolean"},
                                        "phrasings": {"type": "integer", "minimum": 1},
                                        "field": {"enum": ["general", "machine_learning",
                                                           "natural_science"]},
                                        "holistic_only": {"type": "boolean"}}}}}}}},
                "responses": {"200": _ok("one result ('comment'), or {'results': [...]} in "
                                         "input order: the lines of 'verifier premises'",
                                         {"type": "object"}),
                              **_errors(400, 401, 413, 422, 429)}}},
            "/v1/reviews/judge": {"post": {
                "summary": "judge how review comments engage with a paper's claims, with the "
                           "paper's reference check beside it",
                "security": _AUTHED,
                "requestBody": {"required": True, "content": {_JSON: {"schema": {
                    "type": "object", "required": ["paper", "comments"],
                    "additionalProperties": False, "properties": {
                        "paper": {"type": "object", "required": ["paper_id", "text"],
                                  "additionalProperties": False, "properties": {
                                      "paper_id": {"type": "string"},
                                      "title": {"type": "string"},
                                      "text": {"type": "string"},
                                      "references": {"type": "array",
                                                     "items": {"type": "string"}}}},
                        "comments": {"type": "array", "maxItems": 200, "items": {
                            "type": "object", "required": ["source", "comment"],
                            "additionalProperties": False,
                            "properties": {"source": {"type": "string"},
                                           "comment": {"type": "string"}}}},
                        "check_references": {"type": "boolean"}}}}}},
                "responses": {"200": _ok("the judged lines of every source (as 'verifier "
                                         "judge' writes them) and the reference summary",
                                         {"type": "object"}),
                              **_errors(400, 401, 413, 422, 429)}}},
            "/v1/render": {"post": {
                "summary": "report lines (NDJSON) in another format", "security": _AUTHED,
                "parameters": [{"name": "format", "in": "query", "schema": {
                    "enum": ["jsonl", "csv", "bibtex", "markdown", "html"]}}],
                "requestBody": {"required": True, "content": {_NDJSON: {"schema": report}}},
                "responses": {"200": {"description": "the file (CSV, corrected BibTeX under "
                                      "the input's keys, a Markdown or HTML report)"},
                              **_errors(401, 413, 422, 429)}}},
            "/v1/jobs": {"post": {
                "summary": "submit a file of citations (any 'verifier check' input format)",
                "security": _AUTHED,
                "parameters": [
                    {"name": "format", "in": "query", "schema": {"enum": [AUTO, *READERS]}},
                    {"name": "filename", "in": "query", "schema": {"type": "string"}},
                    {"name": "sources", "in": "query", "schema": {"type": "string"},
                     "description": "comma-separated"},
                    {"name": "deadline_s", "in": "query", "schema": {"type": "number"}},
                    {"name": "independence", "in": "query",
                     "schema": {"enum": ["distinct", "lineage"]}}],
                "requestBody": {"required": True, "content": {
                    "application/octet-stream": {"schema": {"type": "string",
                                                            "format": "binary"}}}},
                "responses": {"202": _ok("the job, queued", _JOB),
                              **_errors(400, 401, 413, 422, 429)}}},
            "/v1/jobs/{id}": {
                "get": {"summary": "a job's progress and counts", "security": _AUTHED,
                        "parameters": [_JOB_ID],
                        "responses": {"200": _ok("the job", _JOB), **_errors(401, 404, 429)}},
                "delete": {"summary": "cancel a job (its written results stay)",
                           "security": _AUTHED, "parameters": [_JOB_ID],
                           "responses": {"200": _ok("the job", _JOB),
                                         **_errors(401, 404, 429)}}},
            "/v1/jobs/{id}/retry": {"post": {
                "summary": "check a finished job's inconclusive citations again, as a new "
                           "job (no body; input errors are not retried)",
                "security": _AUTHED, "parameters": [_JOB_ID],
                "responses": {"202": _ok("the new job, queued (retry_of names the first)",
                                         _JOB),
                              **_errors(401, 404, 409, 422, 429)}}},
            "/v1/jobs/{id}/results": {"get": {
                "summary": "a job's result lines from an offset (resumable)",
                "security": _AUTHED,
                "parameters": [_JOB_ID,
                               {"name": "offset", "in": "query", "schema": {
                                   "type": "integer", "minimum": 0},
                                "description": "lines already read"},
                               {"name": "limit", "in": "query", "schema": {
                                   "type": "integer", "minimum": 1, "maximum": 100000}}],
                "responses": {"200": {"description": "whole lines; X-Next-Offset is the "
                                      "offset to ask next, X-Job-State the job's state",
                                      "content": {_NDJSON: {"schema": report}}},
                              **_errors(401, 404, 422, 429)}}},
        },
        "security": _AUTHED,
    }
