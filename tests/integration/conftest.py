"""Session fixtures for the gprof comparison tests: each program is built once and run once (once
per independent run under `--profile-runs N`: tests/conftest.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gprof_harness import Built, Workshop


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def _each_run(profile_run: int) -> int:
    """Every test of the tier reads the programs' run `profile_run` (parametrized under
    --profile-runs N, except tests marked `unsampled`)."""
    return profile_run


@pytest.fixture(scope="session")
def _workshop_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[Any, Built]]:
    """Where the session's workshops build, and their builds (shared by every run)."""
    return tmp_path_factory.mktemp("programs"), {}


@pytest.fixture(scope="session")
def workshop(_workshop_builds: tuple[Path, dict[Any, Built]], profile_run: int) -> Iterator[Workshop]:
    if shutil.which("gprof") is None:
        pytest.skip("gprof (GNU binutils) not installed")
    root, builds = _workshop_builds
    yield Workshop(root, profile_run, builds)
