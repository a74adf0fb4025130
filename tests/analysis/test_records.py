"""`records.maker`: records equal to their class's own, still frozen; classes it does not fit are
made by the class itself."""

from __future__ import annotations

import dataclasses

import pytest

from gmonlens.common.model import Routine, Symbol
from gmonlens.common.records import maker

ROUTINE = (
    3,
    "f",
    "f()",
    0x10,
    0x1F,
    True,
    False,
    "a.c",
    7,
    1.5,
    2.0,
    1.5,
    2.0,
    4,
    1,
    0,
    9,
    True,
    True,
    1.0,
    True,
)


@pytest.mark.parametrize(
    ("cls", "values"),
    [(Symbol, ("f", 0x10, 0x1F, False, True, "a.c", 3, True)), (Symbol, ("g", 1, 2, True, False, None, 0, False)),
     (Routine, ROUTINE)],
)  # fmt: skip
def test_made_records_equal_the_classes(cls: type, values: tuple[object, ...]) -> None:
    made = maker(cls)(*values)
    assert made == cls(*values) and hash(made) == hash(cls(*values)) and type(made) is cls
    field = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, field, None)


def test_classes_it_does_not_fit_make_their_own() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    assert maker(NoSlots) is NoSlots and maker(Checked) is Checked


def test_routines_and_symbols_are_made_as_their_twins() -> None:
    """The fast way (a twin of the same slots, then `__class__`) fits the classes -l makes by
    the ten thousand."""
    from gmonlens.common.records import _twin

    assert _twin(Routine) is not None and _twin(Symbol) is not None


@pytest.mark.parametrize(
    ("cls", "values"), [(Symbol, ("f", 0x10, 0x1F, False, True, "a.c", 3, True)), (Routine, ROUTINE)]
)
def test_without_a_twin_the_slots_are_set_through_the_descriptors(
    cls: type, values: tuple[object, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gmonlens.common import records

    monkeypatch.setattr(records, "_twin", lambda cls: None)
    make = records.maker.__wrapped__(cls)
    made = make(*values)
    assert made == cls(*values) and type(made) is cls


def test_a_class_of_another_layout_has_no_twin() -> None:
    from gmonlens.common.records import _twin

    class Base:
        __slots__ = ("a",)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived(Base):
        b: int

    assert _twin(Derived) is None
