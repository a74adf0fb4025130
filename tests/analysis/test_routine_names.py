"""Every name gprof prints names its routine (profile/routine_names.py; issue 27 items 12-13):
two static `clamp` from one header in two units, three static `match` of one file compiled three
times, a C++ destructor's two symbols of one printed name, anonymous namespaces and templates."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gmonlens.common.model import Routine
from gmonlens.profile.routine_names import RoutineNames, without_params


def _r(
    rid: int, name: str, display: str, file: str | None, index: int, calls: int = 1, static: bool = True
) -> Routine:
    return Routine(
        rid, name, display, 0x1000 + 0x100 * rid, 0x10FF + 0x100 * rid, static, True, file, 3 + rid,
        0.0, 0.0, 0.0, 0.0, calls, 0, 0, index, True, True, 1.0,
    )  # fmt: skip


ROUTINES = (
    _r(0, "clamp", "clamp", "/w/src/util.h", 4),
    _r(1, "clamp", "clamp", "/w/src/util.h", 5),
    _r(2, "match", "match", "/w/pcre2/src/pcre2_match.c", 1),
    _r(3, "match", "match", "/w/pcre2/src/pcre2_match.c", 2),
    _r(4, "match", "match", "/w/pcre2/src/pcre2_match.c", 0, calls=0),  # never called: no index printed
    _r(5, "_ZN3geo5ShapeD1Ev", "geo::Shape::~Shape()", "/w/shape.cpp", 6, static=False),
    _r(6, "_ZN3geo5ShapeD2Ev", "geo::Shape::~Shape()", "/w/shape.cpp", 7, static=False),
    _r(
        7,
        "_ZN12_GLOBAL__N_15indexILm128EEEmm",
        "(anonymous namespace)::index<128ul>(unsigned long)",
        "/w/t.cpp",
        8,
    ),
    _r(8, "_ZNK3geo6Circle4areaEv", "geo::Circle::area() const", "/w/shape.cpp", 9, static=False),
    _r(9, "main", "main", "/w/src/main.c", 3, static=False),
)
# gprof's files (BFD's rule): each header static by the .c file holding it
GPROF_FILES = {0: "/w/build/../src/main.c", 1: "/w/src/render.c"}
NAMES = RoutineNames(SimpleNamespace(routines=ROUTINES), GPROF_FILES)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "file", "want"),
    [
        ("clamp (main.c)", None, [0]),  # gprof's index label
        ("clamp (render.c)", None, [1]),
        ("clamp (src/render.c)", None, [1]),
        ("render.c:clamp", None, [1]),  # gprof's symspec
        ("clamp", "render.c", [1]),
        ("clamp", "main.c", [0]),
        ("clamp", "util.h", [0, 1]),  # the true file names both
        ("clamp", None, [0, 1]),
        ("match", None, [2, 3, 4]),
        ("match [2]", None, [3]),
        ("[2]", None, [3]),
        ("(2)", None, [3]),
        ("match @ 0x1400", None, [4]),
        ("match@0x1400", None, [4]),
        ("0x1410", None, [4]),  # inside its range
        ("geo::Shape::~Shape()", None, [5, 6]),
        ("_ZN3geo5ShapeD2Ev", None, [6]),
        ("geo::Shape::~Shape", None, [5, 6]),
        ("Shape::~Shape", None, [5, 6]),
        ("index<128ul>", None, [7]),
        ("(anonymous namespace)::index<128ul>", None, [7]),
        ("Circle::area", None, [8]),
        ("area", None, [8]),
        ("geo::Circle::area() const", None, [8]),
        ("nothing", None, []),
        ("clamp (nothing.c)", None, []),
    ],
)
def test_every_spelling(text: str, file: str | None, want: list[int]) -> None:
    assert NAMES.find(text, file) == want


def test_labels_are_distinct_and_usable_as_given() -> None:
    labels = {r.id: NAMES.label(r.id) for r in ROUTINES}
    assert labels[0] == "clamp (main.c)" and labels[1] == "clamp (render.c)"
    assert labels[2] == "match [1]" and labels[3] == "match [2]"
    assert labels[4] == "match @ 0x1400"  # never called: gprof prints no index for it
    assert labels[5] == "geo::Shape::~Shape() [6]"
    assert labels[9] == "main"
    assert len(set(labels.values())) == len(labels)
    for rid, label in labels.items():
        assert NAMES.find(label) == [rid], label


def test_without_params() -> None:
    assert without_params("geo::Circle::area() const") == "geo::Circle::area"
    assert (
        without_params("(anonymous namespace)::index<128ul>(unsigned long)")
        == "(anonymous namespace)::index<128ul>"
    )
    assert without_params("operator()(long) const") == "operator()"
    assert without_params("main") == "main"
