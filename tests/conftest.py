"""Shared test set-up: makes `tests/gmonwriter.py` importable and locates the project's tools."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def gmonlens_exe() -> Path:
    """The installed `gmonlens` console script (`make install` creates it)."""
    exe = ROOT / ".venv" / "bin" / "gmonlens"
    if not exe.exists():
        pytest.skip(f"{exe} missing: run `make install`")
    return exe
