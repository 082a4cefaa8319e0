"""Checking a parsed JSON answer against the JSON schema it was asked to follow.

A pure validator for the subset of JSON Schema that structured outputs use (OpenAI's
strict mode accepts little more): ``type`` (one or a list, with ``"null"``),
``properties``, ``required``, ``additionalProperties: false``, ``items``,
``minItems``/``maxItems``, ``enum``, ``const``, ``anyOf``, ``minimum``/``maximum``,
``minLength``/``maxLength``. Anything else in a schema is ignored (not enforced), so a
schema using more than this subset is checked only as far as the subset goes.

:func:`problems` lists where a value breaks its schema (empty: it fits), each as
``path: what`` (``$.claims[2].text: expected string, got null``), for an error message or
a repair prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    for name in ("object", "array", "string", "integer", "number"):
        if isinstance(value, _TYPES[name]):
            return name
    return type(value).__name__


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(kind, (object,)))


def problems(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Where ``value`` breaks ``schema``; ``[]`` when it fits."""
    found: list[str] = []
    if "anyOf" in schema:
        options = [problems(value, option, path) for option in schema["anyOf"]]
        if all(options):
            found.append(f"{path}: matches none of anyOf ({options[0][0]})")
        return found
    if "const" in schema and value != schema["const"]:
        return [f"{path}: expected {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {schema['enum']!r}"]
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else list(kind or [])
    if kinds and not any(_is(value, k) for k in kinds):
        return [f"{path}: expected {' or '.join(kinds)}, got {_type_name(value)}"]
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for name in schema.get("required") or ():
            if name not in value:
                found.append(f"{path}: missing required property {name!r}")
        if schema.get("additionalProperties") is False:
            found.extend(f"{path}: unexpected property {name!r}"
                         for name in value if name not in properties)
        for name, sub in properties.items():
            if name in value:
                found.extend(problems(value[name], sub, f"{path}.{name}"))
    elif isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            found.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{path}: more than {schema['maxItems']} items")
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                found.extend(problems(item, items, f"{path}[{i}]"))
    elif isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            found.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            found.append(f"{path}: longer than {schema['maxLength']} characters")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{path}: below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{path}: above the maximum {schema['maximum']}")
    return found
