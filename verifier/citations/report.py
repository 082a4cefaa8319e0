"""The JSON contract of one output line: a report, or an input item that could not be read.

Every line is a JSON object with the keys of :class:`~verifier.citations.models.Report`
(:data:`REPORT_KEYS`): ``id``, ``index``, ``input``, ``citation``, ``status``
(``verified`` | ``unconfirmed`` | ``no_trace`` | ``inconclusive``), ``retraction``,
``flags``, ``discrepancies``, ``corrected``, ``agreeing_sources``, ``sources`` (source name
-> ``{status, record, scores, requests, cached, error, reason}``), ``elapsed_s``, ``error``,
``correction`` and ``book``. An input item that could not be read gets the same keys
(:func:`input_error_record`): status ``inconclusive``, flag ``input_error``, the message in
``error`` and the rest empty. Pure functions: the CLI's files and the service's responses
both write these bytes.
"""

from __future__ import annotations

from dataclasses import fields

import orjson

from verifier.errors import InputError

from .models import INPUT_ERROR_FLAG, Report, Retraction, Status

REPORT_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Report))
"""The keys of every output line, in order."""


def report_to_json(report: Report) -> bytes:
    """One output line (newline included) for a report."""
    return orjson.dumps(report, option=orjson.OPT_APPEND_NEWLINE)


def input_error_record(error: InputError, index: int) -> dict[str, object]:
    """The output object for an input item that could not be read: same keys as a report,
    so readers of the output never need a second schema."""
    return {
        "id": error.item,
        "index": index,
        "input": error.text,
        "citation": None,
        "status": Status.INCONCLUSIVE,
        "retraction": Retraction.UNKNOWN,
        "flags": [INPUT_ERROR_FLAG],
        "discrepancies": [],
        "corrected": None,
        "agreeing_sources": [],
        "sources": {},
        "elapsed_s": 0.0,
        "error": error.message,
        "correction": None,
        "book": None,
    }


def input_error_to_json(error: InputError, index: int) -> bytes:
    """One output line (newline included) for an unreadable input item."""
    return orjson.dumps(input_error_record(error, index), option=orjson.OPT_APPEND_NEWLINE)


def report_record(report: Report) -> dict[str, object]:
    """A report as the plain JSON object of its output line (what formatters read)."""
    value = orjson.loads(orjson.dumps(report))
    assert isinstance(value, dict)
    return value


__all__ = ["REPORT_KEYS", "input_error_record", "input_error_to_json", "report_record",
           "report_to_json"]
