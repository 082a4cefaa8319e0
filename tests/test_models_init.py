"""The value types' quicker ``__init__`` (``models._quick_init``) against the stock one.

Each value class is compared with a twin made by ``dataclasses.make_dataclass`` from the
same fields (so with the ``__init__`` dataclasses generates): the same signature, the same
values for the same arguments, the same errors, and the dataclass behaviours that must
not change (frozen, equality, hashing, repr, pickling, ``dataclasses.replace``).
"""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.citations import models
from verifier.citations.models import Author, Identifiers, WorkRecord, WorkType

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


def test_every_value_class_uses_the_quick_init() -> None:
    assert len(VALUE_CLASSES) >= 10
    for cls in VALUE_CLASSES:
        assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
        # The stock dataclass __init__ calls object.__setattr__ by name; ours does not.
        assert "__dataclass_builtins_object__" not in cls.__init__.__globals__


@pytest.mark.parametrize("cls", VALUE_CLASSES, ids=lambda c: c.__name__)
def test_the_signature_is_the_stock_one(cls: type) -> None:
    assert _shape(cls) == _shape(_twin(cls))


@pytest.mark.parametrize("cls", VALUE_CLASSES, ids=lambda c: c.__name__)
def test_defaults_and_factories_are_the_stock_ones(cls: type) -> None:
    required = [f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    args = {name: f"<{name}>" for name in required}
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
    n = len(dataclasses.fields(cls))
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((), {}), ((0,) * (n + 1), {}), ((), {"no_such_field": 1}),
        ((0,), {dataclasses.fields(cls)[0].name: 0}),
    ]
    complaints = [_complaint(cls, args, kwargs) for args, kwargs in calls]
    assert complaints == [_complaint(twin, args, kwargs) for args, kwargs in calls]
    assert complaints[1:] == [c for c in complaints[1:] if c]  # these three always fail


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


def test_a_class_whose_stock_init_does_more_than_set_fields_is_refused() -> None:
    # The quick __init__ only sets fields: a __post_init__ or a keyword-only field would
    # be silently skipped or misplaced, so such a class is refused when it is defined.
    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        value: int = 0

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        value: int = 0

    for cls in (Checked, KeywordOnly):
        with pytest.raises(TypeError, match="not supported"):
            models._quick_init(cls)
