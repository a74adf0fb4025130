from __future__ import annotations

from pathlib import Path

import pytest

from .workspaces import build_moved


@pytest.fixture(scope="session")
def cproject(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_moved("cproject", tmp_path_factory.mktemp("ws"))


@pytest.fixture(scope="session")
def cppproject(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_moved("cppproject", tmp_path_factory.mktemp("ws"))
