"""gprof's -r (function ordering) on the real programs, byte for byte: with hundreds of called
routines they run gprof's first step for popular routines (ordering.py) on call graphs nobody
generated. The builds are the tier's own (shared with its other tests)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import programs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import NATIVE, compare_reports


@pytest.mark.parametrize("fixture", ["sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog"])
def test_function_ordering(fixture: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    prog: programs.RealProgram = request.getfixturevalue(fixture)[0]
    compare_reports(NATIVE, ["-r", str(prog.binary), str(prog.gmon)], tmp_path)
