"""gprof's -r (function ordering) on the real programs, byte for byte: with thousands of routines
they run gprof's first step for popular routines (ordering.py) on call graphs nobody generated."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import programs
from .zerocheck import Oracle

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import NATIVE, compare_reports

pytestmark = pytest.mark.e2e


def test_sqlite_function_ordering(sqlite_prog: tuple[programs.RealProgram, Oracle], tmp_path: Path) -> None:
    prog = sqlite_prog[0]
    compare_reports(NATIVE, ["-r", str(prog.binary), str(prog.gmon)], tmp_path)
