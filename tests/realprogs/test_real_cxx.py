"""A real C++ program (LevelDB + snappy, -O2, PIE: classes, virtual iterators, anonymous
namespaces, libstdc++ template instances) against gprof byte for byte: flat profile and call graph,
annotated source and execution counts (whose line rule this program caught: a unit's line row at
the end of a sequence), and `-c` (gprof's plus the backward calls only, README "-c")."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from . import programs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import NATIVE, compare_reports, compare_reports_x86_static

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("args", [(), ("-A", "-C"), ("-z", "-p", "-q")], ids=["default", "A-C", "z"])
def test_reports_as_gprof(leveldb_prog: tuple[programs.RealProgram, object], args: tuple[str, ...],
                          tmp_path: Path) -> None:  # fmt: skip
    prog = leveldb_prog[0]
    count = programs.routines(prog.binary)
    assert count >= programs.LEVELDB_MIN_ROUTINES, f"{prog.name}: only {count} routines (nm T/t symbols)"
    compare_reports(NATIVE, [*args, str(prog.binary), str(prog.gmon)], tmp_path)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="gprof's -c byte scan is pinned for x86-64")
def test_static_call_graph(leveldb_prog: tuple[programs.RealProgram, object], tmp_path: Path) -> None:
    prog = leveldb_prog[0]
    compare_reports_x86_static(NATIVE, ["-c", str(prog.binary), str(prog.gmon)], tmp_path)
