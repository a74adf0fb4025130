"""Fixture workspaces built with gcc -pg, run once, then moved away from where they were built
(so the paths recorded in DWARF no longer exist and the server must map them)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from workspace_builds import build_workspace


def build_moved(name: str, base: Path) -> Path:
    """Copy fixture `name` to base/built/, run its build.sh there, move it to base/moved/."""
    built = build_workspace(name, base / "built" / name)
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
