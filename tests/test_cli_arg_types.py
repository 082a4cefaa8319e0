"""Option value types (in memory): each refuses a bad value with a message argparse puts
after the option's name."""

from __future__ import annotations

import argparse

import pytest

from verifier.arg_types import (
    non_negative_number,
    positive_number,
    positive_whole_number,
    whole_number,
)
from verifier.cli.serve import cors_origin


@pytest.mark.parametrize(("value", "said"), [
    ("0", "0 is out of range 1..8"), ("9", "9 is out of range 1..8"),
    ("2.5", "'2.5' is not a whole number"), ("x", "'x' is not a whole number")])
def test_a_whole_number_outside_its_range_is_refused(value: str, said: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=said):
        whole_number(1, 8)(value)
    assert whole_number(1, 8)("8") == 8


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "x"])
def test_a_positive_number_is_finite_and_above_zero(value: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="seconds"):
        positive_number("seconds")(value)
    assert positive_number()("0.5") == 0.5


def test_a_non_negative_number_takes_zero_but_not_less() -> None:
    assert non_negative_number("seconds")("0") == 0.0
    with pytest.raises(argparse.ArgumentTypeError, match="is not a non-negative number of "
                                                         "seconds"):
        non_negative_number("seconds")("-1")


@pytest.mark.parametrize(("given", "origin"), [
    ("*", "*"), ("https://App.Example.org/", "https://app.example.org"),
    ("http://localhost:3000", "http://localhost:3000")])
def test_a_cors_origin_is_written_as_browsers_send_it(given: str, origin: str) -> None:
    assert cors_origin(given) == origin


@pytest.mark.parametrize("given", ["notaurl", "app.example.org", "ftp://x.org",
                                   "https://x.org/app", "https://x.org/?a=1", "https://"])
def test_a_cors_value_that_can_never_match_an_origin_is_refused(given: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="is not an origin"):
        cors_origin(given)


@pytest.mark.parametrize(("value", "said"), [
    ("0", "0 is not a positive number of tokens"), ("-5", "-5 is not a positive number"),
    ("1.5", "'1.5' is not a whole number")])
def test_a_positive_whole_number_has_no_upper_bound(value: str, said: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=said):
        positive_whole_number("tokens")(value)
    assert positive_whole_number("tokens")("10000000000") == 10_000_000_000
