"""The `gmonlens test` fixture workspace (tests/fixtures/workspaces/suiteproject) built with CMake
and run by `gmonlens test` into its default `gmonlens-test/` folder: the editor's and the MCP
server's tests of a suite (the CLI's are tests/integration/test_suites.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "workspaces" / "suiteproject"
GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"
SKIPPED = ("slow",)  # the test that waits for its time limit (2 s): not needed here


def build_suite_workspace(ws: Path) -> Path:
    """`ws`: the fixture, built with -pg, its CTest suite run at -j4 (but SKIPPED) by gmonlens test."""
    if shutil.which("cmake") is None or shutil.which("gcc") is None:
        pytest.skip("cmake/gcc not installed")
    if not GMONLENS.exists():
        pytest.skip("run `make install` first")
    shutil.copytree(FIXTURE, ws)
    flags = ["-DCMAKE_C_FLAGS=-pg -g -O0", "-DCMAKE_EXE_LINKER_FLAGS=-pg"]
    subprocess.run(["cmake", "-S", ".", "-B", "build", *flags], cwd=ws, check=True, capture_output=True)
    subprocess.run(["cmake", "--build", "build"], cwd=ws, check=True, capture_output=True)
    done = subprocess.run(
        [str(GMONLENS), "test", "-j4", "--", "ctest", "--test-dir", "build", "-E", "|".join(SKIPPED)],
        cwd=ws, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # `failing` fails
    assert (ws / "gmonlens-test" / "index.json").is_file(), done.stderr
    return ws
