"""The own line-program header reader (`gmonlens.dwarf.line_headers`) on compiled programs: gcc's
DWARF 2, 3, 4 and 5 for x86-64, i386 and AArch64 (C and C++, type units, compressed sections),
and bare-metal firmware from arm-none-eabi-gcc (DWARF 5 units over the DWARF 3 line programs its
binutils write) and riscv64-unknown-elf-gcc. Each reads every program as pyelftools does (the same
header facts and file names, so the same line tables and `lines_at` answers), and `lines_of`
answers from the units holding an address exactly as the whole table does, without reading it
(before, DWARF 2-4 always read the whole table through pyelftools)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gprof_harness import AARCH64, I686, NATIVE, PROGRAMS_DIR, ROOT, run_tool

from line_headers_compare import assert_programs_as_pyelftools
from unit_lines_compare import assert_entry_lines_as_lines_at, assert_same_as_whole_table

CALC = [*sorted(str(p) for p in (ROOT / "examples" / "calc").glob("*.c")), f"-I{ROOT / 'examples' / 'calc'}"]
HDRLIB = [str(PROGRAMS_DIR / "hdrlib_driver.cpp"), str(PROGRAMS_DIR / "hdrlib_lib.cpp"), f"-I{PROGRAMS_DIR}"]
FIRMWARE = ROOT / "tests" / "integration" / "firmware"
ARM_CC = "arm-none-eabi-gcc"
ARM_FLAGS = ["-mcpu=cortex-m4", "-mthumb", "-O1", "-ffreestanding", "-nostdlib", "-nostartfiles"]
RV32_CC = "riscv64-unknown-elf-gcc"
RV32_SOURCE = """volatile unsigned sink;
static __attribute__((noinline)) void leaf(unsigned n) { for (unsigned i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) unsigned fact(unsigned n) { leaf(5); return n <= 1 ? 1 : n * fact(n - 1); }
int main(void) { return (int)fact(6); }
void _start(void) { main(); for (;;) {} }
"""
BUILDS = {
    "c-dwarf2": (NATIVE, False, ["-gdwarf-2", "-O2", *CALC]),
    "c-dwarf3": (NATIVE, False, ["-gdwarf-3", "-O2", *CALC]),
    "c-dwarf4": (NATIVE, False, ["-gdwarf-4", "-O2", *CALC]),
    "c-dwarf5": (NATIVE, False, ["-gdwarf-5", "-O2", *CALC]),
    "c-dwarf4-compressed": (NATIVE, False, ["-gdwarf-4", "-gz", "-O2", *CALC]),
    "cxx-dwarf4-O2": (NATIVE, True, ["-gdwarf-4", "-O2", *HDRLIB]),
    "cxx-dwarf4-types": (NATIVE, True, ["-gdwarf-4", "-fdebug-types-section", "-O2", *HDRLIB]),
    "cxx-dwarf3-i686": (I686, True, ["-gdwarf-3", "-O2", *HDRLIB]),
    "c-dwarf4-aarch64": (AARCH64, False, ["-gdwarf-4", "-O2", *CALC]),
}


def _build(build: str, where: Path) -> str:
    target, cxx, args = BUILDS[build]
    reason = target.missing(cxx=cxx)
    if reason:
        pytest.skip(reason)
    exe = where / "prog"
    r = run_tool([target.cxx if cxx else target.cc, "-pg", "-o", str(exe), *args], where)
    assert r.returncode == 0, r.err
    return str(exe)


def _firmware(where: Path, debug: str) -> str:
    """tests/integration/firmware's sources linked for a Cortex-M4 (not run)."""
    if shutil.which(ARM_CC) is None:
        pytest.skip(f"{ARM_CC} not installed (Debian: gcc-arm-none-eabi)")
    (where / "fw.ld").write_text((FIRMWARE / "fw.ld").read_text().replace("TEXT_SECTION", ".text"))
    sources = [str(FIRMWARE / s) for s in ("fw_main.c", "gmon_rt.c", "startup.c", "mcount.S")]
    argv = [ARM_CC, *ARM_FLAGS, debug, "-DCPU_HZ=25000000", "-DPROF_HZ=1000", "-DROUNDS=10", "-T", "fw.ld", "-o", "fw.elf",
            *sources, "-lgcc"]  # fmt: skip
    r = run_tool(argv, where)
    assert r.returncode == 0, r.err
    return str(where / "fw.elf")


def _rv32(where: Path) -> str:
    if shutil.which(RV32_CC) is None:
        pytest.skip(f"{RV32_CC} not installed (Debian: gcc-riscv64-unknown-elf)")
    (where / "prog.c").write_text(RV32_SOURCE)
    argv = [RV32_CC, "-march=rv32imac", "-mabi=ilp32", "-O1", "-g", "-ffreestanding", "-nostdlib",
            "-Wl,-Ttext=0x20010000", "-o", "prog", "prog.c"]  # fmt: skip
    r = run_tool(argv, where)
    assert r.returncode == 0, r.err
    return str(where / "prog")


@pytest.mark.parametrize("build", list(BUILDS))
def test_programs_as_pyelftools_reads_them(build: str, tmp_path: Path) -> None:
    assert assert_programs_as_pyelftools(_build(build, tmp_path)) >= 2


@pytest.mark.parametrize("debug", ["-g", "-gdwarf-4", "-gdwarf-2"])
def test_firmware_programs_as_pyelftools_reads_them(debug: str, tmp_path: Path) -> None:
    assert assert_programs_as_pyelftools(_firmware(tmp_path, debug)) == 4


def test_rv32_programs_as_pyelftools_reads_them(tmp_path: Path) -> None:
    assert assert_programs_as_pyelftools(_rv32(tmp_path)) == 1


@pytest.mark.parametrize(
    "build", ["c-dwarf2", "c-dwarf3", "c-dwarf4", "cxx-dwarf4-O2"]
)  # native: crt code is known
def test_dwarf2_to_4_lines_by_unit_as_whole_table(
    build: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exe = _build(build, tmp_path)
    assert assert_same_as_whole_table(exe) > 3
    assert assert_entry_lines_as_lines_at(exe, tmp_path / "cache", monkeypatch) > 3


def test_firmware_lines_by_unit_as_whole_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = _firmware(tmp_path, "-g")
    assert assert_same_as_whole_table(exe) > 3
    assert assert_entry_lines_as_lines_at(exe, tmp_path / "cache", monkeypatch) > 3
