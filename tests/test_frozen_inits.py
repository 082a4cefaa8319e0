"""The warm path's dataclasses that write out their own ``__init__`` (compiled, it
fills the object's C struct; see the comment above ``verifier.http.transport.HttpRequest``)
take the fields in order with the fields' own defaults, and the frozen ones stay frozen
dataclasses; the
client's answer, a plain compiled class, compares, shows and refuses changes as the frozen
dataclass it was."""

from __future__ import annotations

import dataclasses
from dataclasses import FrozenInstanceError, dataclass
from typing import Any

import pytest

from verifier.citations import plan_run
from verifier.citations.models import Author, SourceResult, SourceStatus, Status, WorkType
from verifier.citations.parsing import names
from verifier.citations.parsing.names import AuthorScan
from verifier.citations.parsing.parsed import Parsed
from verifier.citations.parsing.tail import Tail
from verifier.citations.parsing.text import Cut
from verifier.citations.planner import Traits
from verifier.citations.source_client import QueryResult, SourceAnswer
from verifier.citations.step_asker import StepOutcome
from verifier.citations.verdict import Verdict
from verifier.http import cached_answers
from verifier.http.transport import HttpRequest, HttpResponse
from verifier.native import is_compiled

# Each class, the arguments its required fields take, and a value for every field.
CASES: list[tuple[type[Any], tuple[Any, ...], dict[str, Any]]] = [
    (HttpRequest, ("/p",), {
        "path": "/q", "params": (("a", "1"),), "request_class": "single",
        "headers": (("x-key", "k"),), "identity_params": (("mailto", "m"),), "cost": 10.0,
        "method": "POST", "body": b"{}", "weight": 3.0}),
    (HttpResponse, (200, b"x"), {"status": 404, "body": b"y", "headers": {"a": "b"}}),
    (SourceAnswer, ([], None), {"candidates": [], "follow_up": HttpRequest("/f")}),
    (QueryResult, ([], 0, True), {"candidates": [], "requests": 2, "cached": False}),
]

_RESULT = SourceResult(SourceStatus.MATCH)
CASES += [  # the citation pipeline's own, one or more per citation
    (StepOutcome, (_RESULT,), {"result": SourceResult(SourceStatus.NO_MATCH),
                               "flags": frozenset({"x"})}),
    (Verdict, (Status.VERIFIED, ("a",)), {"status": Status.NO_TRACE, "agreeing": ()}),
    (Traits, (WorkType.BOOK, frozenset(), True, False, False, False), {
        "type": WorkType.ARTICLE, "identifiers": frozenset({"doi"}), "titled": False,
        "biomedical": True, "open_access": True, "arxiv_fields": True}),
    (AuthorScan, ((Author("A"),), False, 3), {
        "authors": (Author("B"),), "et_al": True, "end": 9, "editors": True, "form": "apa",
        "clean_end": True}),
    (Cut, (1, 2, ".", ""), {"left": 3, "right": 4, "mark": ",", "quotes": '"'}),
    (plan_run._SourceState, (), {"outcomes": [_RESULT], "flags": {"f"}, "pending": True,
                                 "matched": True, "_result": _RESULT}),
    (names._Entry, (Author("A"), "apa", 3, False), {
        "author": Author("B"), "form": "mla", "end": 5, "joined_by_conjunction": True}),
    (Parsed, (), {"authors": [Author("A")], "et_al": True, "year": 2001, "title": "t",
                  "container": "c", "volume": "1", "issue": "2", "pages": "3-4",
                  "publisher": "p", "place": "l", "edition": "2nd",
                  "editors": [Author("E")], "genre": "g", "part_of": True, "journal": True,
                  "edited": True}),
    (Tail, ("pre",), {"pre": "x", "volume": "1", "issue": "2", "pages": "3", "year": 1999}),
]
FROZEN = [case for case in CASES if case[0].__dataclass_params__.frozen]


@pytest.mark.parametrize(("cls", "required", "values"), CASES)
def test_defaults_are_the_fields_own(
    cls: type[Any], required: tuple[Any, ...], values: dict[str, Any]
) -> None:
    made = cls(*required)
    for field in dataclasses.fields(cls):
        if field.default is not dataclasses.MISSING:
            assert getattr(made, field.name) == field.default, field.name
        elif field.default_factory is not dataclasses.MISSING:
            assert getattr(made, field.name) == field.default_factory(), field.name
            # A new value each time, never one shared between instances.
            assert getattr(made, field.name) is not getattr(cls(*required), field.name)


@pytest.mark.parametrize(("cls", "required", "values"), CASES)
def test_every_field_is_set_by_position_and_by_name(
    cls: type[Any], required: tuple[Any, ...], values: dict[str, Any]
) -> None:
    names = [field.name for field in dataclasses.fields(cls)]
    assert sorted(names) == sorted(values)
    by_position = cls(*(values[name] for name in names))
    by_name = cls(**values)
    assert by_position == by_name
    for name in names:  # equal (a compiled float field is boxed anew when read)
        assert getattr(by_name, name) == values[name], name
        assert type(getattr(by_name, name)) is type(values[name]), name
    assert repr(by_name).startswith(f"{cls.__name__}({names[0]}=")


@pytest.mark.parametrize(("cls", "required", "values"), FROZEN)
def test_still_a_frozen_dataclass(
    cls: type[Any], required: tuple[Any, ...], values: dict[str, Any]
) -> None:
    made = cls(**values)
    first = dataclasses.fields(cls)[0].name
    with pytest.raises(FrozenInstanceError):
        setattr(made, first, required[0])
    changed = dataclasses.replace(made, **{first: required[0]})
    assert getattr(changed, first) == required[0]
    for field in dataclasses.fields(cls)[1:]:
        assert getattr(changed, field.name) == getattr(made, field.name)


@dataclass(frozen=True, slots=True)
class Fetched:  # the dataclass the client's answer was, as the reference
    value: Any
    response: HttpResponse
    requests: int
    cached: bool


def test_the_clients_answer_behaves_as_the_frozen_dataclass_it_was() -> None:
    from verifier.http import client

    response = HttpResponse(200, b"x", {"a": "b"})
    answer = client.Fetched("v", response, 0, True)
    reference = Fetched("v", response, 0, True)
    assert repr(answer) == repr(reference)
    assert answer == client.Fetched("v", response, 0, True)
    assert answer != client.Fetched("w", response, 0, True)
    assert answer != reference  # another class, as two dataclasses never compare equal
    if is_compiled(cached_answers):  # plain Python leaves Final to the type check
        with pytest.raises(AttributeError):
            answer.value = "w"  # type: ignore[misc]
    with pytest.raises(TypeError):  # the headers dict, hashed as the dataclass hashed it
        hash(answer)
    with pytest.raises(TypeError):
        hash(reference)
    assert client.Fetched[str] is not None  # generic, as it was
