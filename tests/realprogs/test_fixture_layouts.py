"""The small C fixture (tests/fixtures/workspaces/cproject) built for x86-64, i386 and AArch64 (PIE,
the toolchains' default), run (i386 through its loader, AArch64 under qemu), and served with no
configuration in the three layouts: program and profile in the root, in build/, and beside a
stripped copy and an unrelated newer executable. Lenses against the target's own gprof."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .zerocheck import Oracle, copy_program, gprof_oracle, serve_zero_config

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import AARCH64, I686, NATIVE, Target

pytestmark = pytest.mark.asyncio

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces" / "cproject"
TARGETS = {"x86-64": NATIVE, "i686": I686, "aarch64": AARCH64}
_built: dict[tuple[str, int], tuple[Path, Path, Oracle]] = {}


def build(target: Target, base: Path, run: int) -> tuple[Path, Path, Oracle]:
    """cproject built and run once per target, session and independent run (--profile-runs):
    (binary, gmon.out, gprof's figures)."""
    if (target.name, run) in _built:
        return _built[target.name, run]
    why = target.missing()
    if why or shutil.which("strip") is None:
        pytest.skip(why or "strip is not installed")
    src = base / f"cproject-{target.name}-run{run}"
    shutil.copytree(FIXTURE, src)
    exe = src / "out" / "app"
    exe.parent.mkdir()
    cmd = [target.cc, "-g", "-pg", "-O0", "-Iinclude", "-o", str(exe), "src/main.c", "src/util.c"]
    subprocess.run(cmd, cwd=src, check=True, capture_output=True, timeout=300)
    env = {**os.environ, **target.env}
    subprocess.run([*target.runner, str(exe), "200"], cwd=exe.parent, env=env, check=True, capture_output=True,
                   timeout=300)  # fmt: skip
    gmon = exe.parent / "gmon.out"
    _built[target.name, run] = (exe, gmon, gprof_oracle(target.gprof, exe, gmon))
    return _built[target.name, run]


@pytest.mark.parametrize("layout", ["root", "build", "beside"])
@pytest.mark.parametrize("arch", list(TARGETS))
async def test_fixture_zero_config(arch: str, layout: str, tmp_path_factory: pytest.TempPathFactory,
                                   unrelated_exe: Path, tmp_path: Path, profile_run: int) -> None:  # fmt: skip
    exe, gmon, oracle = build(TARGETS[arch], tmp_path_factory.getbasetemp(), profile_run)
    ws = tmp_path / "ws"
    binary = copy_program(exe, gmon, ws / "build" if layout == "build" else ws)
    if layout == "beside":
        strip = TARGETS[arch].cc.removesuffix("gcc") + "strip"  # the target's binutils
        if shutil.which(strip) is None:
            pytest.skip(f"{strip} is not installed")
        subprocess.run([strip, "-o", str(ws / "app-stripped"), str(binary)], check=True)
        shutil.copy2(unrelated_exe, ws / "zz-newer-tool")
        later = time.time() + 60
        for name in ("app-stripped", "zz-newer-tool"):
            os.utime(ws / name, (later, later))
    src = exe.parent.parent
    sources = [src / "src" / "main.c", src / "src" / "util.c", src / "include" / "util.h"]
    served = await serve_zero_config(ws, tmp_path / "cache", oracle, sources, full=True, hottest=True)
    assert served.state == "loaded", served.message
    assert any(f"loaded {binary} " in m for m in served.logs), served.logs
    assert served.routines == oracle.entries
    assert not served.problems, "\n".join(served.problems)
