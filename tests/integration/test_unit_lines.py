"""`Program.lines_of` answers each call site's line from the line programs of only the units that
hold it (the DWARF index's address -> unit table), exactly as the whole line table does: every
call instruction of C and C++ programs built at -O2 and -O3 with inlining (header inlines,
templates, `.cold` parts), and of the real programs when they are built (GMONLENS_REALPROGS_WORK)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gprof_harness import NATIVE, PROGRAMS_DIR, ROOT, run_tool

from gmonlens.linetable import LineTable
from gmonlens.program import Program

CALC = [*sorted(str(p) for p in (ROOT / "examples" / "calc").glob("*.c")), f"-I{ROOT / 'examples' / 'calc'}"]
HDRINL = [str(PROGRAMS_DIR / f) for f in ("hdrinl_main.c", "hdrinl_render.c", "hdrinl_sum.c")]
HDRLIB = [str(PROGRAMS_DIR / "hdrlib_driver.cpp"), str(PROGRAMS_DIR / "hdrlib_lib.cpp"), f"-I{PROGRAMS_DIR}"]
BUILDS = {
    "c-calc-O2": (False, ["-g", "-O2", *CALC]),
    "c-hdrinl-O2": (False, ["-g", "-O2", "-finline-functions", f"-I{PROGRAMS_DIR}", *HDRINL]),
    "cxx-shapes-O2": (True, ["-g", "-O2", str(PROGRAMS_DIR / "shapes.cpp")]),
    "cxx-hdrlib-O3": (True, ["-g", "-O3", *HDRLIB]),
}
REAL = ("leveldb/build-O2/leveldb_workload", "sqlite/build-O2/sqlite_workload", "qjs/build/qjs_workload")


def _assert_same_as_whole_table(exe: str) -> int:
    """Compare `lines_of` before the whole table is read with the whole table's lookup over every
    call instruction of the code; returns how many call sites the units answered."""
    program = Program(exe)
    finder = program.call_finder()
    calls = [
        at
        for c in program.image.code_sections
        for at, _ret, _target in finder._calls_in(c.address, c.address + len(c.data))
    ]
    assert calls
    whole = LineTable.from_elf(exe)
    want = {a: hit for a in calls if (hit := whole.lookup(a)) is not None}
    by_units: dict[int, tuple[str, int]] = {}
    rest = program._unit_lookups(calls, by_units, False)
    assert program._once.peek("linetable:False") is None  # the units answered, not the table
    assert by_units == {a: hit for a, hit in want.items() if a not in rest}
    assert len(rest) <= 8  # start-up code no unit describes (crt files: _start, .init)
    assert program.lines_of(calls) == want  # and with the whole table for those
    return len(by_units)


@pytest.mark.parametrize("build", list(BUILDS))
def test_unit_lines_as_whole_table(build: str, tmp_path: Path) -> None:
    cxx, args = BUILDS[build]
    reason = NATIVE.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = tmp_path / "prog"
    r = run_tool([NATIVE.cxx if cxx else NATIVE.cc, "-pg", "-o", str(exe), *args], tmp_path)
    assert r.returncode == 0, r.err
    assert _assert_same_as_whole_table(str(exe)) > 3


@pytest.mark.parametrize("name", REAL)
def test_unit_lines_real_programs(name: str) -> None:
    work = os.environ.get("GMONLENS_REALPROGS_WORK")
    exe = Path(work) / name if work else None
    if exe is None or not exe.is_file():
        pytest.skip(f"{name} is not built (GMONLENS_REALPROGS_WORK)")
    assert _assert_same_as_whole_table(str(exe)) > 1000


def _assert_entry_lines_as_lines_at(exe: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Every routine symbol's (T/t/W) entry line from the units holding it (`lines_of` with
    `held_only`, what a cold server load uses) equals `routine_lines`' (`lines_at`, the plain
    reading) without reading the whole table; returns how many entries it compared."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    want = Program(exe).routine_lines()
    program = Program(exe)
    entries = [s.value for s in program.image.symbols if s.class_letter in ("T", "t", "W")]
    assert program.lines_of(entries, held_only=True) == want
    assert program._once.peek("linetable:False") is None  # the units answered, not the table
    statics = Program(exe).routine_lines(statics=True, units=True)
    assert statics == {
        s.value: want[s.value] for s in program.image.symbols if s.class_letter == "t" and s.value in want
    }
    return len(want)


@pytest.mark.parametrize("build", list(BUILDS))
def test_entry_lines_as_lines_at(build: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cxx, args = BUILDS[build]
    reason = NATIVE.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = tmp_path / "prog"
    r = run_tool([NATIVE.cxx if cxx else NATIVE.cc, "-pg", "-o", str(exe), *args], tmp_path)
    assert r.returncode == 0, r.err
    assert _assert_entry_lines_as_lines_at(str(exe), tmp_path / "cache", monkeypatch) > 3


@pytest.mark.parametrize("name", REAL)
def test_entry_lines_real_programs(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = os.environ.get("GMONLENS_REALPROGS_WORK")
    exe = Path(work) / name if work else None
    if exe is None or not exe.is_file():
        pytest.skip(f"{name} is not built (GMONLENS_REALPROGS_WORK)")
    assert _assert_entry_lines_as_lines_at(str(exe), tmp_path / "cache", monkeypatch) > 500
