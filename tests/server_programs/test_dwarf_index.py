"""DwarfIndex (analysis/gmonlens/dwarf.py) on programs built by gcc: declarations, C++ scopes,
clones, export round trip."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from binaries import dwarf_index, open_elf
from gmonlens.dwarf.declarations import DwarfIndex
from routine_keys import Named, named_values

from .conftest import line_of

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time


def symbols(binary: Path) -> Named[int]:
    out = subprocess.run(
        ["nm", "--defined-only", str(binary)], capture_output=True, text=True, check=True
    ).stdout
    return named_values(
        (p[2], int(p[0], 16)) for p in (line.split() for line in out.splitlines()) if len(p) == 3
    )


def test_c_declarations_name_positions(c_ws: Path) -> None:
    ix = dwarf_index(str(c_ws / "build" / "app"))
    by = {(d.name, Path(d.file or "").name): d for d in ix.all_decls()}
    main_c, util_c, util_h = c_ws / "src" / "main.c", c_ws / "src" / "util.c", c_ws / "include" / "util.h"
    work = by[("work", "main.c")]
    assert (work.file, work.line, work.column) == (str(main_c), line_of(main_c, "long work("), 6)
    # two static helpers of the same name stay apart
    assert by[("helper", "main.c")].line == line_of(main_c, "static long helper")
    assert by[("helper", "util.c")].line == line_of(util_c, "static long helper")
    assert by[("helper", "main.c")].low_pc != by[("helper", "util.c")].low_pc
    # an out-of-line static inline from a header is declared in the header
    assert by[("clamp", "util.h")].line == line_of(util_h, "static inline int clamp")


def test_decl_at_and_units(c_ws: Path) -> None:
    binary = c_ws / "build" / "app"
    ix = dwarf_index(str(binary))
    syms = symbols(binary)
    assert ix.decl_at(syms["util_sum"]).name == "util_sum"
    assert ix.decl_at(syms["util_sum"] + 3).name == "util_sum"  # inside the routine
    assert ix.decl_at(1) is None
    names = {Path(u.name).name for u in ix.units()}
    assert names == {"main.c", "util.c"}
    main_unit = next(u for u in ix.units() if u.name.endswith("main.c"))
    assert any(f.endswith("include/util.h") for f in main_unit.files)
    assert ix.units_naming({main_unit.name}) == [main_unit.offset]


def test_cpp_methods_templates_overloads(cpp_ws: Path) -> None:
    ix = dwarf_index(str(cpp_ws / "build" / "shapes"))
    by_link = {d.linkage_name: d for d in ix.all_decls() if d.linkage_name}
    cpp, hpp = cpp_ws / "src" / "shapes.cpp", cpp_ws / "src" / "shapes.hpp"
    circle = by_link["_ZNK3geo6Circle4areaEv"]  # out-of-class definition: DW_AT_specification
    assert (circle.name, Path(circle.file).name, circle.line) == (
        "area",
        "shapes.cpp",
        line_of(cpp, "double Circle::area"),
    )
    square = by_link["_ZNK3geo6Square4areaEv"]  # defined in the class
    assert (Path(square.file).name, square.line) == (
        "shapes.hpp",
        line_of(hpp, "double area() const override {"),
    )
    assert by_link["_ZN3geo5scaleEd"].line == line_of(cpp, "double scale(double")
    assert by_link["_ZN3geo5scaleEi"].line == line_of(cpp, "int scale(int")
    acc_i = by_link["_ZN3geo10accumulateIiEET_RKSt6vectorIS1_SaIS1_EE"]
    acc_d = by_link["_ZN3geo10accumulateIdEET_RKSt6vectorIS1_SaIS1_EE"]
    assert acc_i.line == acc_d.line == line_of(hpp, "T accumulate(")
    assert acc_i.low_pc != acc_d.low_pc


def test_clones_map_to_their_origin(clones_ws: Path) -> None:
    binary = clones_ws / "build" / "clones"
    src = clones_ws / "clones.c"
    ix = dwarf_index(str(binary))
    syms = symbols(binary)
    clones = [
        (n, a)
        for n in syms
        if any(s in n for s in (".part.", ".constprop.", ".isra.", ".cold"))
        for a in syms.every(n)  # each symbol, even of a name two files' statics share
    ]
    if not clones:
        pytest.skip("this gcc made no clones")
    for name, address in clones:
        origin = name.split(".", 1)[0]
        decl = ix.decl_at(address)
        assert decl is not None, name
        assert decl.name == origin, (name, decl)
        assert decl.line == line_of(src, f" {origin}("), (name, decl)


def test_export_round_trip(cpp_ws: Path) -> None:
    binary = str(cpp_ws / "build" / "shapes")
    ix = dwarf_index(binary)
    decls = list(ix.all_decls())
    ix.prepare_ranges()
    assert ix.complete()
    again = DwarfIndex.from_export(binary, ix.export(), open_elf(binary).with_budget)
    assert list(again.all_decls()) == decls
    assert again.units() == ix.units()
    some = decls[len(decls) // 2]
    assert again.decl_at(some.low_pc) == ix.decl_at(some.low_pc)


def test_no_debug_info(tmp_path: Path) -> None:
    src = tmp_path / "n.c"
    src.write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-o", str(tmp_path / "n"), str(src)], check=True)
    ix = dwarf_index(str(tmp_path / "n"))
    assert not ix.has_debug_info
    assert ix.units() == ()
    assert ix.decl_at(0x1000) is None


def test_out_of_class_member_in_the_same_file_lands_on_its_definition(tmp_path: Path) -> None:
    """GCC gives such a definition its own DW_AT_decl_line but no DW_AT_decl_file (the same file as
    the in-class declaration it completes): the line is the definition's, not the declaration's."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    src = tmp_path / "one.cpp"
    src.write_text(
        "struct Counter {\n"
        "    int n = 0;\n"
        "    int bump(int by);\n"
        "    static int twice(int x);\n"
        "};\n"
        "\n"
        "int Counter::bump(int by)\n"
        "{\n"
        "    return n += by;\n"
        "}\n"
        "\n"
        "int Counter::twice(int x) { return 2 * x; }\n"
        "\n"
        "int main() { Counter c; return c.bump(Counter::twice(1)) - 2; }\n"
    )
    exe = tmp_path / "one"
    subprocess.run(["g++", "-g", "-O0", "-o", str(exe), str(src)], check=True)
    by_link = {d.linkage_name: d for d in dwarf_index(str(exe)).all_decls() if d.linkage_name}
    bump, twice = by_link["_ZN7Counter4bumpEi"], by_link["_ZN7Counter5twiceEi"]
    assert (Path(bump.file or "").name, bump.line, bump.name) == ("one.cpp", 7, "bump")
    assert (twice.line, twice.column) == (12, 5)
