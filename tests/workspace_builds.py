"""Fixture workspaces (tests/fixtures/workspaces/NAME) copied and built with their build.sh
(gcc -pg, run once), for the server's unit tests and the LSP end-to-end tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "workspaces"


def need_tools(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


def build_workspace(name: str, dest: Path) -> Path:
    """Copy fixture `name` to `dest` and run its build.sh there; skips without gcc (g++ for cpp*)."""
    need_tools("gcc", "g++" if name.startswith("cpp") else "gcc")
    shutil.copytree(FIXTURES / name, dest)
    subprocess.run([str(dest / "build.sh")], check=True, capture_output=True, timeout=120)
    return dest
