"""Session fixtures for the gprof comparison tests: each program is built and run once."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from gprof_harness import Workshop


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def workshop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workshop]:
    if shutil.which("gprof") is None:
        pytest.skip("gprof (GNU binutils) not installed")
    yield Workshop(tmp_path_factory.mktemp("programs"))
