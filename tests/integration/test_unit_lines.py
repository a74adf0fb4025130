"""`Program.lines_of` answers each call site's line from the line programs of only the units that
hold it (the DWARF index's address -> unit table), exactly as the whole line table does: every
call instruction of C and C++ programs built at -O2 and -O3 with inlining (header inlines,
templates, `.cold` parts); the real programs' in tests/realprogs/test_real_unit_lines.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from gprof_harness import NATIVE, PROGRAMS_DIR, ROOT, run_tool

from unit_lines_compare import assert_entry_lines_as_lines_at, assert_same_as_whole_table

# line tables of the binaries only: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

CALC = [*sorted(str(p) for p in (ROOT / "examples" / "calc").glob("*.c")), f"-I{ROOT / 'examples' / 'calc'}"]
HDRINL = [str(PROGRAMS_DIR / f) for f in ("hdrinl_main.c", "hdrinl_render.c", "hdrinl_sum.c")]
HDRLIB = [str(PROGRAMS_DIR / "hdrlib_driver.cpp"), str(PROGRAMS_DIR / "hdrlib_lib.cpp"), f"-I{PROGRAMS_DIR}"]
BUILDS = {
    "c-calc-O2": (False, ["-g", "-O2", *CALC]),
    "c-hdrinl-O2": (False, ["-g", "-O2", "-finline-functions", f"-I{PROGRAMS_DIR}", *HDRINL]),
    "cxx-shapes-O2": (True, ["-g", "-O2", str(PROGRAMS_DIR / "shapes.cpp")]),
    "cxx-hdrlib-O3": (True, ["-g", "-O3", *HDRLIB]),
}


@pytest.mark.parametrize("build", list(BUILDS))
def test_unit_lines_as_whole_table(build: str, tmp_path: Path) -> None:
    cxx, args = BUILDS[build]
    reason = NATIVE.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = tmp_path / "prog"
    r = run_tool([NATIVE.cxx if cxx else NATIVE.cc, "-pg", "-o", str(exe), *args], tmp_path)
    assert r.returncode == 0, r.err
    assert assert_same_as_whole_table(str(exe)) > 3


@pytest.mark.parametrize("build", list(BUILDS))
def test_entry_lines_as_lines_at(build: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cxx, args = BUILDS[build]
    reason = NATIVE.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = tmp_path / "prog"
    r = run_tool([NATIVE.cxx if cxx else NATIVE.cc, "-pg", "-o", str(exe), *args], tmp_path)
    assert r.returncode == 0, r.err
    assert assert_entry_lines_as_lines_at(str(exe), tmp_path / "cache", monkeypatch) > 3
