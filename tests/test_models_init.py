"""The value types' written-out ``__init__`` (see the ``verifier.citations.models``
docstring) against the one the dataclass decorator writes.

Each value class is compared with a twin made by ``dataclasses.make_dataclass`` from the
same fields (so with the ``__init__`` dataclasses generates): the same signature, the same
values for the same arguments, calls that fail failing, and the dataclass behaviours that
must not change (frozen, equality, hashing, repr, pickling, ``dataclasses.replace``).
Compiled, a class's ``__init__`` has no Python signature and words its errors as mypyc
does, and it checks each argument's type: the signature and the errors' wording are
compared on the module's plain-Python form (``pure_modules.pure``), the rest on both.
"""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from enum import Enum
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pure_modules import pure

from verifier.citations import models
from verifier.citations.models import (
    Author,
    BookStatus,
    Citation,
    Identifiers,
    Retraction,
    SourceStatus,
    Status,
    WorkRecord,
    WorkType,
)
from verifier.native import is_compiled

PURE = pure("verifier.citations.models")
"""The models as plain Python (the module itself when it is not compiled)."""

SAMPLES: dict[str, Any] = {
    "str": "<text>", "int": 3, "float": 0.5, "bool": True, "int | None": 2,
    "tuple[str, ...]": ("a",), "tuple[Discrepancy, ...]": (), "dict[str, SourceResult]": {},
    "Citation": Citation(), "WorkRecord | None": None, "Status": Status.VERIFIED,
    "Retraction": Retraction.UNKNOWN, "SourceStatus": SourceStatus.MATCH,
    "BookStatus": BookStatus.FOUND,
}
"""A value of each type a required field has (a compiled ``__init__`` checks types)."""
BIG: dict[str, Any] = {"int": 10**9 + 7, "float": 1234.5678}
"""Numbers no interpreter keeps shared: a new object each time one is made."""

VALUE_CLASSES = [
    cls for cls in vars(models).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == models.__name__
]


def _twin(cls: type) -> type:
    """``cls`` again, as ``@dataclass(frozen=True, slots=True)`` alone makes it."""
    specs = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            spec = dataclasses.field(default=f.default)
        elif f.default_factory is not dataclasses.MISSING:
            spec = dataclasses.field(default_factory=f.default_factory)
        else:
            spec = dataclasses.field()
        specs.append((f.name, f.type, spec))
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True, slots=True)


def _values(obj: object) -> tuple[Any, ...]:
    return tuple(getattr(obj, f.name) for f in dataclasses.fields(obj))  # type: ignore[arg-type]


def _shape(cls: type) -> list[tuple[str, str, Any]]:
    return [(p.name, repr(p.default), p.kind) for p in inspect.signature(cls).parameters.values()]


def _native(cls: type) -> bool:
    """Compiled as a native class (its ``__init__`` a C slot, its fields in a C struct)."""
    return type(cls.__dict__["__init__"]).__name__ == "wrapper_descriptor"


def _field_types(cls: type) -> set[str]:
    return {str(f.type) for f in dataclasses.fields(getattr(PURE, cls.__name__))}


def test_every_value_class_writes_out_its_init() -> None:
    assert len(VALUE_CLASSES) >= 10
    for cls in VALUE_CLASSES:
        assert "__init__" in cls.__dict__
        init = getattr(PURE, cls.__name__).__dict__["__init__"]
        # Written in the class, not by the decorator (whose __init__ is made by exec).
        assert init.__qualname__ == f"{cls.__qualname__}.__init__"
        assert "__dataclass_builtins_object__" not in init.__globals__
    if is_compiled(models):  # native wherever a field allows it
        assert [cls.__name__ for cls in VALUE_CLASSES if not _native(cls)] == [
            cls.__name__ for cls in VALUE_CLASSES if _field_types(cls) & {"int", "float"}]


def test_orjson_writes_every_field_as_it_is_read() -> None:
    # orjson reads a slotted dataclass's fields and drops each reference at once: a
    # native class's unboxed float or large int would be freed before it is written.
    for cls in VALUE_CLASSES:
        fields = dataclasses.fields(getattr(PURE, cls.__name__))
        args = {f.name: BIG.get(str(f.type), SAMPLES.get(str(f.type))) for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        value = cls(**args)
        for _ in range(50):  # a freed float is soon reused by the next one made
            written = orjson.loads(orjson.dumps(value))
            floats = [float(n) + 0.25 for n in range(20)]
            assert {k: written[k] for k in args} == {
                k: v.value if isinstance(v, Enum) else list(v) if isinstance(v, tuple)
                else orjson.loads(orjson.dumps(v)) if dataclasses.is_dataclass(v) else v
                for k, v in args.items()}, cls
            assert floats


@pytest.mark.parametrize("cls", VALUE_CLASSES, ids=lambda c: c.__name__)
def test_the_signature_is_the_stock_one(cls: type) -> None:
    assert _shape(getattr(PURE, cls.__name__)) == _shape(_twin(cls))


@pytest.mark.parametrize("cls", VALUE_CLASSES, ids=lambda c: c.__name__)
def test_defaults_and_factories_are_the_stock_ones(cls: type) -> None:
    plain = getattr(PURE, cls.__name__)
    args = {f.name: SAMPLES[str(f.type)] for f in dataclasses.fields(plain)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    ours, stock = cls(**args), _twin(cls)(**args)
    assert _values(ours) == _values(stock)
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            # A factory is called per instance, as the stock __init__ calls it.
            assert getattr(ours, f.name) is not getattr(cls(**args), f.name) or isinstance(
                getattr(ours, f.name), tuple | str | int | type(None))


def _complaint(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The TypeError text of ``cls(*args, **kwargs)`` without the function's name, or
    None when the call succeeds."""
    try:
        cls(*args, **kwargs)
    except TypeError as exc:
        return str(exc).split("() ", 1)[-1]
    return None


@pytest.mark.parametrize("cls", VALUE_CLASSES, ids=lambda c: c.__name__)
def test_wrong_arguments_fail_as_the_stock_init_fails(cls: type) -> None:
    twin = _twin(cls)
    plain = getattr(PURE, cls.__name__)
    n = len(dataclasses.fields(cls))
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((), {}), ((0,) * (n + 1), {}), ((), {"no_such_field": 1}),
        ((0,), {dataclasses.fields(cls)[0].name: 0}),
    ]
    complaints = [_complaint(plain, args, kwargs) for args, kwargs in calls]
    assert complaints == [_complaint(twin, args, kwargs) for args, kwargs in calls]
    assert complaints[1:] == [c for c in complaints[1:] if c]  # these three always fail
    # Compiled, the same calls fail (in mypyc's words) and the same succeed.
    assert [_complaint(cls, args, kwargs) is None for args, kwargs in calls] == [
        c is None for c in complaints]


texts = st.text(max_size=12)
authors = st.builds(Author, family=texts, given=texts, literal=texts)
identifiers = st.builds(
    Identifiers, doi=st.none() | texts, isbn=st.tuples(texts), issn=st.tuples(texts),
    arxiv=st.none() | texts, pmid=st.none() | texts, pmcid=st.none() | texts,
    url=st.none() | texts)
record_fields = st.fixed_dictionaries(
    {"source": texts, "source_id": texts, "url": texts, "title": texts},
    optional={
        "authors": st.lists(authors, max_size=3).map(tuple),
        "year": st.none() | st.integers(0, 3000),
        "container": texts, "volume": texts, "issue": texts, "pages": texts,
        "publisher": texts, "editors": st.lists(authors, max_size=2).map(tuple),
        "type": st.sampled_from(WorkType), "identifiers": identifiers,
        "retracted": st.none() | st.booleans(), "notices": st.tuples(texts),
        "notice_for": st.none() | texts, "open_access": st.none() | st.booleans(),
    },
)


@given(record_fields, st.integers(0, 4))
def test_a_record_is_built_as_the_stock_init_builds_it(fields: dict[str, Any],
                                                        positional: int) -> None:
    names = [f.name for f in dataclasses.fields(WorkRecord)]
    # Some arguments by position, the rest by keyword, as callers mix them.
    args = [fields[name] for name in names[:positional]]
    kwargs = {k: v for k, v in fields.items() if k not in names[:positional]}
    ours, stock = WorkRecord(*args, **kwargs), _twin(WorkRecord)(*args, **kwargs)
    assert _values(ours) == _values(stock)
    assert hash(ours) == hash(stock)
    assert repr(ours) == repr(stock)
    assert ours == WorkRecord(**fields)
    assert pickle.loads(pickle.dumps(ours)) == ours
    changed = dataclasses.replace(ours, title=ours.title + "x")
    assert changed.title == ours.title + "x"
    assert _values(changed)[4:] == _values(ours)[4:]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours.title = "y"  # type: ignore[misc]


@given(texts, texts, texts)
def test_an_author_is_built_as_the_stock_init_builds_it(family: str, given_: str,
                                                        literal: str) -> None:
    stock = _twin(Author)
    for ours, theirs in [
        (Author(family, given_, literal), stock(family, given_, literal)),
        (Author(family=family), stock(family=family)),
        (Author(literal=literal), stock(literal=literal)),
    ]:
        assert _values(ours) == _values(theirs)
        assert hash(ours) == hash(theirs)
        assert repr(ours) == repr(theirs)
