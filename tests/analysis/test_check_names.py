"""Routine names as gprof prints them -> routines (gmonlens.check.names; pure)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gmonlens.check.names import NameProblem, RoutineNames, label_of
from gmonlens.common.model import FoldedSymbol, Routine


def routine(
    i: int, name: str, display: str | None = None, file: str | None = None, static: bool = False
) -> Routine:
    return Routine(
        id=i, name=name, display_name=display or name, address=0x1000 + 64 * i, end_address=0x103F + 64 * i,
        is_static=static, is_function=True, file=file, line=0, self_ticks=0, child_ticks=0, prop_self_ticks=0,
        prop_child_ticks=0, calls=0, self_calls=0, cycle=0, index=i + 1, printed=True, in_flat=True, fract=1.0,
    )  # fmt: skip


ROUTINES = [
    routine(0, "main"),
    routine(1, "_ZN2ns4hashEi", "ns::hash(int)"),
    routine(2, "_ZN2ns4hashEd", "ns::hash(double)"),
    routine(3, "_ZL6helperi", "helper(int)", "/src/lib/a.cpp", static=True),
    routine(4, "_ZL6helperi", "helper(int)", "/src/b.cpp", static=True),
    routine(5, "_ZNK2ns1KclEv", "ns::K::operator()() const"),
    routine(6, "parse"),
    routine(7, "_Z3sumIiEvv", "void sum<int>()"),
    routine(8, "lookup", file="/src/l.c"),
]
FOLDED = [FoldedSymbol(6, "parse.part.0", 0, 0, 0, 0)]


@pytest.fixture(scope="module")
def names() -> RoutineNames:
    profile: Any = SimpleNamespace(routines=tuple(ROUTINES), folded=tuple(FOLDED))
    return RoutineNames(profile, "prog")


@pytest.mark.parametrize(
    ("text", "rid"),
    [
        ("main", 0), (" main ", 0), ("main [1]", 0), ("main (1)", 0), ("main <cycle 2> [1]", 0),
        ("_ZN2ns4hashEi", 1), ("ns::hash(int)", 1), ("ns::hash(double)", 2), ("ns::hash(int) [2]", 1),
        ("helper(int) (a.cpp)", 3), ("helper(int) (lib/a.cpp)", 3), ("helper(int) (b.cpp)", 4),
        ("helper(int) (b.cpp:12)", 4), ("b.cpp:helper(int)", 4), ("a.cpp:_ZL6helperi", 3),
        ("ns::K::operator()() const", 5), ("ns::K::operator()", 5), ("parse", 6),
        ("void sum<int>()", 7), ("void sum<int>", 7), ("lookup (l.c)", 8), ("lookup (other.c)", 8),
    ],
)  # fmt: skip
def test_names_gprof_prints(names: RoutineNames, text: str, rid: int) -> None:
    assert names.find(text) == rid


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ns::hash", "'ns::hash' names 2 routines in prog: ns::hash(int), ns::hash(double); name one as listed"),
        ("helper(int)", "'helper(int)' names 2 routines in prog: helper(int) (a.cpp), helper(int) (b.cpp); name one as listed"),
        ("_ZL6helperi", "'_ZL6helperi' names 2 routines in prog: helper(int) (a.cpp), helper(int) (b.cpp); name one as listed"),
        ("helper(int) (c.cpp)", "no routine 'helper(int)' in a file 'c.cpp' in prog (it is in a.cpp, b.cpp)"),
        ("parsee", "no routine 'parsee' in prog (nearest: parse)"),
        ("zzzz", "no routine 'zzzz' in prog"),
        ("parse.part.0", "'parse.part.0' is a clone gprof counts as part of 'parse' in prog: name that"),
    ],
)  # fmt: skip
def test_names_that_name_no_routine_or_several(names: RoutineNames, text: str, message: str) -> None:
    with pytest.raises(NameProblem) as e:
        names.find(text)
    assert e.value.message == message


def test_labels() -> None:
    assert label_of(ROUTINES[3]) == "helper(int) (a.cpp)"
    assert label_of(ROUTINES[8]) == "lookup"  # gprof labels statics only
