"""Reading request bodies and fields strictly: what ``/openapi.json`` promises, enforced.

Every endpoint reads its JSON body with :func:`json_object` and names the fields it knows
with :func:`refuse_unknown`: a field it would ignore (a typo such as ``"option"`` for
``"options"``, or ``"source"`` for ``"sources"``) is a 422 naming it, never a request
answered as if it had not been sent. Typed fields are read by :func:`boolean`,
:func:`whole_number`, :func:`one_of` and :func:`text_field`, which take JSON's own types
only: the string ``"false"`` is not a boolean (``bool("false")`` is true), 2.7 is not a
count. Each raises :class:`Problem` with the field's name as ``item``. Pure and synchronous.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import orjson

from .problems import Problem


def json_object(body: bytes, expected: str = "a JSON object") -> dict[str, Any]:
    """``body`` as a JSON object: 400 for bytes that are not UTF-8 or not JSON, 422 for
    JSON that is not an object (``expected`` says what the endpoint takes)."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Problem(400, "invalid-utf8", f"the body is not UTF-8 (byte {exc.start})") \
            from None
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Problem(400, "invalid-json", f"the body is not JSON: {exc.msg} at line "
                      f"{exc.lineno}, column {exc.colno}") from None
    if not isinstance(value, dict):
        raise Problem(422, "wrong-type", f"the body must be {expected}")
    return value


def refuse_unknown(value: Mapping[str, Any], known: Collection[str], where: str, *,
                   kind: str = "unknown-field") -> None:
    """422 (``kind``) naming every key of ``value`` not in ``known``, and the known ones;
    ``item`` is the first unknown in sorted order. ``where`` names the object ("the
    body", "'options'", "the query")."""
    unknown = sorted(set(value) - set(known))
    if unknown:
        listed = ", ".join(repr(name) for name in unknown)
        raise Problem(422, kind, f"unknown field(s) {listed} in {where}; known: "
                      f"{', '.join(sorted(known)) or 'none'}", item=unknown[0])


def boolean(value: Any, name: str) -> bool:
    """A JSON boolean (``true``/``false``), nothing else."""
    if not isinstance(value, bool):
        raise Problem(422, "wrong-type", f"{name!r} must be true or false, not "
                      f"{_shown(value)}", item=name)
    return value


def whole_number(value: Any, name: str, low: int, high: int) -> int:
    """A JSON integer in ``low``..``high`` (a boolean or a fraction is refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Problem(422, "wrong-type", f"{name!r} must be a whole number, not "
                      f"{_shown(value)}", item=name)
    if not low <= value <= high:
        raise Problem(422, "out-of-range", f"{name!r} must be in {low}..{high}, not {value}",
                      item=name)
    return value


def one_of(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of ``choices`` (strings, compared exactly)."""
    if not isinstance(value, str) or value not in choices:
        raise Problem(422, "wrong-type", f"{name!r} must be one of {', '.join(choices)}, "
                      f"not {_shown(value)}", item=name)
    return value


def text_field(value: Any, name: str, *, item: Any = None) -> str:
    """A string with something in it; 422 naming ``name`` (``item``: the problem's item,
    ``name`` by default)."""
    if not isinstance(value, str) or not value.strip():
        raise Problem(422, "invalid-field", f"'{name}' must be a non-empty string",
                      item=item if item is not None else name)
    return value


def _shown(value: Any) -> str:
    """A short JSON rendering of a refused value."""
    shown = orjson.dumps(value, default=repr).decode()
    return shown if len(shown) <= 40 else shown[:37] + "..."
