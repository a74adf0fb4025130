from __future__ import annotations

from pathlib import Path

import pytest

from workspace_builds import build_workspace


def built(name: str, base: Path) -> Path:
    return build_workspace(name, base / name)


@pytest.fixture(scope="session")
def c_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("cproject", tmp_path_factory.mktemp("unit"))


@pytest.fixture(scope="session")
def cpp_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("cppproject", tmp_path_factory.mktemp("unit"))


@pytest.fixture(scope="session")
def clones_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("clones", tmp_path_factory.mktemp("unit"))


@pytest.fixture(scope="session")
def names_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Routines sharing names: a header's static in six units, one file compiled three times."""
    return built("namesproject", tmp_path_factory.mktemp("unit"))


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)
