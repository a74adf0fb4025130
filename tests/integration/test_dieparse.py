"""The fast DIE walker (gmonlens.dwarf.die_primitives) gives the function scopes pyelftools gives (what `-l`'s
line symbols are named by), on C and C++, -O2 and LTO, DWARF 2, 4 and 5, compressed sections (read
by pyelftools then), x86-64, i386 and AArch64."""

from __future__ import annotations

from pathlib import Path

import pytest
from gprof_harness import AARCH64, I686, NATIVE, PROGRAMS_DIR, ROOT, run_tool

from binaries import dwarf_index, read_image
from gmonlens.dwarf.scopes import _pyelftools_scopes, elf_code_names, function_scopes

# DWARF of the binaries only: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

CALC = sorted(str(p) for p in (ROOT / "examples" / "calc").glob("*.c"))
SHAPES = [str(PROGRAMS_DIR / "shapes.cpp")]
HDRLIB = [str(PROGRAMS_DIR / "hdrlib_driver.cpp"), str(PROGRAMS_DIR / "hdrlib_lib.cpp"), f"-I{PROGRAMS_DIR}"]
BUILDS = {
    "c-O2-dwarf5": (NATIVE, False, ["-g", "-O2", *CALC, f"-I{ROOT / 'examples' / 'calc'}"]),
    "c-O2-dwarf4": (NATIVE, False, ["-gdwarf-4", "-O2", *CALC, f"-I{ROOT / 'examples' / 'calc'}"]),
    "c-O0-dwarf2": (NATIVE, False, ["-gdwarf-2", "-O0", *CALC, f"-I{ROOT / 'examples' / 'calc'}"]),
    "c-lto": (NATIVE, False, ["-g", "-O2", "-flto", *CALC, f"-I{ROOT / 'examples' / 'calc'}"]),
    "c-compressed": (NATIVE, False, ["-g", "-gz", "-O2", *CALC, f"-I{ROOT / 'examples' / 'calc'}"]),
    "cxx-O2": (NATIVE, True, ["-g", "-O2", *SHAPES]),
    "cxx-hdrlib-dwarf4": (NATIVE, True, ["-gdwarf-4", "-O2", *HDRLIB]),
    "cxx-i686": (I686, True, ["-g", "-O2", *SHAPES]),
    "cxx-aarch64": (AARCH64, True, ["-g", "-O2", *SHAPES]),
}


@pytest.mark.parametrize("build", list(BUILDS))
def test_scopes_as_pyelftools_reads_them(build: str, tmp_path: Path) -> None:
    target, cxx, args = BUILDS[build]
    reason = target.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = tmp_path / "prog"
    r = run_tool([target.cxx if cxx else target.cc, "-pg", "-o", str(exe), *args], tmp_path)
    assert r.returncode == 0, r.err
    names = elf_code_names(read_image(str(exe)).symbols)
    for elf_names in (None, names):
        fast = function_scopes(dwarf_index(str(exe)), elf_names)
        assert fast.names, "no scopes"
        assert fast == _pyelftools_scopes(dwarf_index(str(exe)), elf_names)
