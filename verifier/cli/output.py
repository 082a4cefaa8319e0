"""The CLI's output: re-exported from where the service shares it.

The line contract lives in :mod:`verifier.citations.report`, the output files (writer,
line queue, ``--resume`` scan) in :mod:`verifier.citations.output_file`.
"""

from __future__ import annotations

from verifier.citations.output_file import (
    JsonlWriter,
    LineQueue,
    PriorOutput,
    Tally,
    completed_ids,
    repair_tail,
    scan_output,
)
from verifier.citations.report import (
    REPORT_KEYS,
    input_error_record,
    input_error_to_json,
    report_to_json,
)

__all__ = [
    "REPORT_KEYS",
    "JsonlWriter",
    "LineQueue",
    "PriorOutput",
    "Tally",
    "completed_ids",
    "input_error_record",
    "input_error_to_json",
    "repair_tail",
    "report_to_json",
    "scan_output",
]
