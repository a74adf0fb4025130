"""Fixture workspaces built with gcc -pg, run once, then moved away from where they were built
(so the paths recorded in DWARF no longer exist and the server must map them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"


def need_tools(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


def build_moved(name: str, base: Path) -> Path:
    """Copy fixture `name` to base/built/, run its build.sh there, move it to base/moved/."""
    need_tools("gcc", "g++" if name.startswith("cpp") else "gcc")
    built = base / "built" / name
    shutil.copytree(FIXTURES / name, built)
    subprocess.run([str(built / "build.sh")], check=True, capture_output=True, timeout=120)
    moved = base / "moved" / name
    moved.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(built), str(moved))
    assert not built.exists()
    return moved


def write_again(path: Path, data: bytes) -> None:
    """Rewrite a file slowly, as a running program would (several writes, then close)."""
    with open(path, "wb") as f:
        for i in range(0, len(data), max(1, len(data) // 4)):
            f.write(data[i : i + max(1, len(data) // 4)])
            f.flush()
            os.fsync(f.fileno())
