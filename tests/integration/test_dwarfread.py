"""The own `.debug_info` reader (gmonlens.dwarf.info_reader) gives the DWARF index pyelftools gives
(units, file tables, declarations with their names, lines, columns, files and code ranges, the
address -> unit table): C and C++, -O0 to -O3 with inlining and clones, LTO, DWARF 2, 4 and 5,
compressed sections, x86-64, i386 and AArch64."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from gprof_harness import AARCH64, I686, NATIVE, PROGRAMS_DIR, ROOT, run_tool

from binaries import open_elf
from dwarf_compare import assert_same_as_pyelftools
from gmonlens.common.errors import GmonlensError
from gmonlens.dwarf.info_reader import DieReader, Unsupported

# DWARF of the binaries only: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

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
DAMAGED = (".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str")


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


def _read_all(path: Path) -> None:
    with open_elf(str(path)) as elf:
        reader = DieReader(elf)
        files = {offset: reader.file_table(offset) for offset in reader.units}
        for offset in reader.units:
            reader.unit_info(offset, files[offset])
            reader.declarations(offset, files[offset], files.__getitem__)
        reader.unit_ranges()
        reader.code_scopes({})


@pytest.mark.parametrize("build", ["c-O2-dwarf5", "cxx-hdrlib-O2-dwarf4"])
def test_damaged_dwarf_gives_unsupported_or_one_line(build: str, tmp_path: Path) -> None:
    """Bytes of .debug_info, .debug_abbrev, .debug_line and .debug_str changed at random: the own
    reader answers, or raises Unsupported (pyelftools then reads the file, as before) or a
    GmonlensError (a limit); never another exception, never a hang."""
    target, cxx, args = BUILDS[build]
    reason = target.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = tmp_path / "prog"
    r = run_tool([target.cxx if cxx else target.cc, "-pg", "-o", str(exe), *args], tmp_path)
    assert r.returncode == 0, r.err
    good = exe.read_bytes()
    with open_elf(str(exe)) as elf:
        spans = [(s.offset, s.size) for s in elf.sections if s.name in DAMAGED]
    _read_all(exe)
    rng = random.Random(17)
    bad = tmp_path / "bad"
    outcomes = {"read": 0, "unsupported": 0, "limit": 0}
    for _ in range(600):
        data = bytearray(good)
        for _ in range(rng.choice((1, 2, 8))):
            offset, size = rng.choice(spans)
            data[offset + rng.randrange(size)] = rng.choice((0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)))
        bad.write_bytes(bytes(data))
        try:
            _read_all(bad)
            outcomes["read"] += 1
        except Unsupported:
            outcomes["unsupported"] += 1
        except GmonlensError as exc:
            assert "\n" not in str(exc)
            outcomes["limit"] += 1
    assert outcomes["read"] and outcomes["unsupported"], outcomes
