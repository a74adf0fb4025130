"""Real programs (SQLite; QuickJS + zstd + LZ4), each of at least 2,000 routines, at -O2, PIE, no
configuration: the server finds the program in the workspace root, in build/, and beside a stripped
copy and an unrelated newer executable; every routine with time or calls in gprof's flat profile has a lens on its definition with gprof's
figures; hover and call hierarchy answer on the hottest ten."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from . import programs
from .zerocheck import Oracle, copy_program, serve_zero_config

pytestmark = pytest.mark.asyncio


def _sources(prog: programs.RealProgram) -> list[Path]:
    """The program's source files and the headers beside them (static inline routines)."""
    dirs = {s.parent for s in prog.sources}
    headers = sorted(h for d in dirs for h in d.glob("*.h"))
    return [*prog.sources, *headers]


async def _check(prog: programs.RealProgram, oracle: Oracle, unrelated: Path, tmp_path: Path) -> None:
    count = programs.routines(prog.binary)
    assert count >= programs.MIN_ROUTINES, f"{prog.name}: only {count} routines (nm T/t symbols)"
    assert len(oracle.flat) > 100, f"{prog.name}: only {len(oracle.flat)} routines in gprof's flat profile"
    cache = tmp_path / "cache"
    sources = _sources(prog)
    # 1. the workspace root holds the program and its profile
    root = tmp_path / "root"
    copy_program(prog.binary, prog.gmon, root)
    # 2. build/ holds them
    in_build = tmp_path / "inbuild"
    copy_program(prog.binary, prog.gmon, in_build / "build")
    # 3. beside a stripped copy and an unrelated executable, both newer
    beside = tmp_path / "beside"
    exe = copy_program(prog.binary, prog.gmon, beside)
    subprocess.run(["strip", "-o", str(beside / f"{exe.name}-stripped"), str(exe)], check=True)
    shutil.copy2(unrelated, beside / "zz-newer-tool")
    later = time.time() + 60
    for name in (f"{exe.name}-stripped", "zz-newer-tool"):
        os.utime(beside / name, (later, later))
    for folder, binary, full in ((root, root / exe.name, False), (in_build, in_build / "build" / exe.name, False),
                                 (beside, exe, True)):  # fmt: skip
        served = await serve_zero_config(folder, cache, oracle, sources, full=full, hottest=full)
        assert served.state == "loaded", f"{prog.name} in {folder.name}: {served.message}"
        assert any(f"loaded {binary} " in m for m in served.logs), served.logs
        assert served.routines == oracle.entries, (served.routines, oracle.entries)
        assert served.lenses, f"{prog.name} in {folder.name}: no lenses"
        assert not served.problems, f"{prog.name} in {folder.name}:\n" + "\n".join(served.problems[:40])


async def test_sqlite_zero_config(sqlite_prog: tuple[programs.RealProgram, Oracle], unrelated_exe: Path,
                                  tmp_path: Path) -> None:  # fmt: skip
    programs.need("strip")
    await _check(*sqlite_prog, unrelated_exe, tmp_path)


async def test_quickjs_zstd_zero_config(qjs_prog: tuple[programs.RealProgram, Oracle], unrelated_exe: Path,
                                        tmp_path: Path) -> None:  # fmt: skip
    programs.need("strip")
    await _check(*qjs_prog, unrelated_exe, tmp_path)
