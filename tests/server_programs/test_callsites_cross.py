"""Call-site lines from the arcs' rounded return addresses on other targets: i386 (8-byte granule)
and AArch64 (16 bytes, BL/BLR decoding), built with the Debian cross compilers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings
from workspace_builds import FIXTURES

from .conftest import line_of

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time

TARGETS = {
    "i686": (
        "i686-linux-gnu-gcc",
        ["/usr/i686-linux-gnu/lib/ld-linux.so.2", "--library-path", "/usr/i686-linux-gnu/lib"],
    ),
    "aarch64": ("aarch64-linux-gnu-gcc", ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]),
}


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_call_site_lines_cross(target: str, tmp_path: Path) -> None:
    cc, runner = TARGETS[target]
    if shutil.which(cc) is None or not (shutil.which(runner[0]) or os.path.exists(runner[0])):
        pytest.skip(f"{cc} or {runner[0]} is not installed")
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURES / "cproject", ws)
    (ws / "build").mkdir()
    subprocess.run(
        [cc, "-g", "-pg", "-O0", "-Iinclude", "-o", "build/app", "src/main.c", "src/util.c"],
        cwd=ws,
        check=True,
    )
    subprocess.run([*runner, "./app", "50"], cwd=ws / "build", check=True, capture_output=True, timeout=120)
    loaded = load_folder(str(ws), Settings(), 1).loaded
    assert loaded is not None
    p, ix = loaded.profile, loaded.index
    main_c, util_c = ws / "src" / "main.c", ws / "src" / "util.c"

    def sites(parent: str, child: str) -> list[tuple[str, int]]:
        arc = next(
            a for a in p.arcs if p.routines[a.parent].name == parent and p.routines[a.child].name == child
        )
        return ix.call_site_lines(arc)

    assert sites("work", "util_sum") == [(str(main_c), line_of(main_c, "util_sum(n)"))]
    assert sites("main", "work") == [(str(main_c), line_of(main_c, "result += work"))]
    assert sites("util_sum", "helper") == [(str(util_c), line_of(util_c, "return helper(n)"))]
    assert sites("is_odd", "is_even") == [(str(util_c), line_of(util_c, "return is_even(n - 1)"))]
