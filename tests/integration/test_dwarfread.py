"""The own `.debug_info` reader (gmonlens.dwarfread) gives the DWARF index pyelftools gives
(units, file tables, declarations with their names, lines, columns, files and code ranges, the
address -> unit table): C and C++, -O0 to -O3 with inlining and clones, LTO, DWARF 2, 4 and 5,
compressed sections, x86-64, i386 and AArch64."""

from __future__ import annotations

from pathlib import Path

import pytest
from gprof_harness import AARCH64, I686, NATIVE, PROGRAMS_DIR, ROOT, run_tool

from dwarf_compare import assert_same_as_pyelftools

CALC = [*sorted(str(p) for p in (ROOT / "examples" / "calc").glob("*.c")), f"-I{ROOT / 'examples' / 'calc'}"]
SHAPES = [str(PROGRAMS_DIR / "shapes.cpp")]
HDRLIB = [str(PROGRAMS_DIR / "hdrlib_driver.cpp"), str(PROGRAMS_DIR / "hdrlib_lib.cpp"), f"-I{PROGRAMS_DIR}"]
BUILDS = {
    "c-O0-dwarf5": (NATIVE, False, ["-g", "-O0", *CALC]),
    "c-O2-dwarf5": (NATIVE, False, ["-g", "-O2", *CALC]),
    "c-O3-dwarf4": (NATIVE, False, ["-gdwarf-4", "-O3", *CALC]),
    "c-O0-dwarf2": (NATIVE, False, ["-gdwarf-2", "-O0", *CALC]),
    "c-lto": (NATIVE, False, ["-g", "-O2", "-flto", *CALC]),
    "c-compressed": (NATIVE, False, ["-g", "-gz", "-O2", *CALC]),
    "cxx-O0": (NATIVE, True, ["-g", "-O0", *SHAPES]),
    "cxx-O2": (NATIVE, True, ["-g", "-O2", *SHAPES]),
    "cxx-hdrlib-O3-dwarf5": (NATIVE, True, ["-g", "-O3", *HDRLIB]),
    "cxx-hdrlib-O2-dwarf4": (NATIVE, True, ["-gdwarf-4", "-O2", *HDRLIB]),
    "cxx-hdrlib-O0-dwarf4": (NATIVE, True, ["-gdwarf-4", "-O0", *HDRLIB]),
    "cxx-types-section": (NATIVE, True, ["-gdwarf-4", "-fdebug-types-section", "-O2", *HDRLIB]),
    "cxx-i686": (I686, True, ["-g", "-O2", *SHAPES]),
    "cxx-aarch64": (AARCH64, True, ["-g", "-O2", *SHAPES]),
}


@pytest.mark.parametrize("build", list(BUILDS))
def test_index_as_pyelftools_reads_it(build: str, tmp_path: Path) -> None:
    target, cxx, args = BUILDS[build]
    reason = target.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = tmp_path / "prog"
    r = run_tool([target.cxx if cxx else target.cc, "-pg", "-o", str(exe), *args], tmp_path)
    assert r.returncode == 0, r.err
    assert assert_same_as_pyelftools(str(exe)) > 5
