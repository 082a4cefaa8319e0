"""Value types for command-line options: each refuses a bad value in argparse's own error,
which names the option ("argument --max-batch: 0 is out of range 1..100000"), before any
command runs.

A leaf module (it imports only the standard library), so the product's CLI and the
offline world's own (``verifier.world.cli``, which imports nothing of the CLI) share it."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """A whole number in ``low``..``high``."""
    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"{number} is out of range {low}..{high}")
        return number

    return parse


def positive_whole_number(unit: str = "") -> Callable[[str], int]:
    """A whole number above 0, with no upper bound (``unit``: what it counts)."""
    of = f" of {unit}" if unit else ""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if number < 1:
            raise argparse.ArgumentTypeError(f"{number} is not a positive number{of}")
        return number

    return parse


port = whole_number(0, 65535)
"""A TCP port; 0 lets the system pick a free one."""

MAX_CHECK_CONCURRENCY = 1000
"""Most citations checked at once: ``verifier check --concurrency``, and each request or
job of ``verifier serve --concurrency``."""
check_concurrency = whole_number(1, MAX_CHECK_CONCURRENCY)


def positive_number(unit: str = "") -> Callable[[str], float]:
    """A finite number above 0 (``unit``: what it counts, for the message: "seconds")."""
    return _number(unit, allow_zero=False)


def non_negative_number(unit: str = "") -> Callable[[str], float]:
    """A finite number, 0 or more."""
    return _number(unit, allow_zero=True)


def _number(unit: str, *, allow_zero: bool) -> Callable[[str], float]:
    of = f" of {unit}" if unit else ""
    kind = "non-negative" if allow_zero else "positive"

    def parse(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a number{of}") from None
        if not (math.isfinite(number) and (number >= 0 if allow_zero else number > 0)):
            raise argparse.ArgumentTypeError(f"{value!r} is not a {kind} number{of}")
        return number

    return parse
