from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"


def built(name: str, base: Path) -> Path:
    if shutil.which("gcc") is None or (name.startswith("cpp") and shutil.which("g++") is None):
        pytest.skip("gcc/g++ is not installed")
    ws = base / name
    shutil.copytree(FIXTURES / name, ws)
    subprocess.run([str(ws / "build.sh")], check=True, capture_output=True, timeout=120)
    return ws


@pytest.fixture(scope="session")
def c_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("cproject", tmp_path_factory.mktemp("unit"))


@pytest.fixture(scope="session")
def cpp_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("cppproject", tmp_path_factory.mktemp("unit"))


@pytest.fixture(scope="session")
def clones_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("clones", tmp_path_factory.mktemp("unit"))


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)
