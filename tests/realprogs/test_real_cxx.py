"""A real C++ program (LevelDB + snappy, -O2, PIE: classes, virtual iterators, anonymous
namespaces, libstdc++ template instances) against gprof byte for byte: flat profile and call graph,
annotated source and execution counts (whose line rule this program caught: a unit's line row at
the end of a sequence), and `-c` (gprof's plus the backward calls only, README "-c"); and, with no
configuration, through the server: every flat-profile routine defined in LevelDB's and snappy's
sources has a lens on its definition with gprof's figures; hover names the ten hottest with
gprof's demangled name and call hierarchy gives gprof's callers."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from . import programs
from .zerocheck import Oracle, base_name, copy_program, serve_zero_config

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
from gprof_harness import NATIVE, compare_reports, compare_reports_x86_static, gmonlens

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("args", [(), ("-A", "-C"), ("-z", "-p", "-q")], ids=["default", "A-C", "z"])
def test_reports_as_gprof(leveldb_prog: tuple[programs.RealProgram, Oracle], args: tuple[str, ...],
                          tmp_path: Path) -> None:  # fmt: skip
    prog = leveldb_prog[0]
    count = programs.routines(prog.binary)
    assert count >= programs.LEVELDB_MIN_ROUTINES, f"{prog.name}: only {count} routines (nm T/t symbols)"
    compare_reports(NATIVE, [*args, str(prog.binary), str(prog.gmon)], tmp_path)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="gprof's -c byte scan is pinned for x86-64")
def test_static_call_graph(leveldb_prog: tuple[programs.RealProgram, Oracle], tmp_path: Path) -> None:
    prog = leveldb_prog[0]
    compare_reports_x86_static(NATIVE, ["-c", str(prog.binary), str(prog.gmon)], tmp_path)


def _defined_in(binary: Path, routines: list[dict[str, Any]], sources: list[Path]) -> set[str]:
    """The routines (display names) whose DWARF declaration is in one of `sources` on a line that
    names them: not libstdc++'s (no source here), not implicit members (their line is the
    class's, which does not name them). Known gap, left out by this: members of a class local to a
    function (`f(int)::State::Match`), whose DWARF entries sit inside the function's, which the
    index does not enter, so they get no lens."""
    from gmonlens.dwarf import DwarfIndex

    dwarf = DwarfIndex.from_elf(str(binary))
    wanted = set(sources)
    out = set()
    for r in routines:
        decl = dwarf.decl_at(r["address"])
        if decl is None or not decl.file or Path(decl.file) not in wanted:
            continue
        lines = Path(decl.file).read_text(errors="replace").splitlines()
        if 0 < decl.line <= len(lines) and base_name(r["display_name"]) in lines[decl.line - 1]:
            out.add(r["display_name"])
    return out


@pytest.mark.asyncio
async def test_zero_config_lenses(leveldb_prog: tuple[programs.RealProgram, Oracle], tmp_path: Path) -> None:
    prog, oracle = leveldb_prog
    dirs = {s.parent for s in prog.sources} | {prog.sources[0].parents[1] / "include" / "leveldb"}
    sources = [*prog.sources, *sorted(h for d in dirs for h in d.glob("*.h"))]
    doc = gmonlens(["--json", str(prog.binary), str(prog.gmon)], tmp_path).stdout
    defined = _defined_in(prog.binary, json.loads(doc)["routines"], sources)
    flat = [r for r in oracle.flat if r.name in defined]
    assert len(flat) > 300, f"only {len(flat)} of {len(oracle.flat)} flat-profile routines in the sources"
    root = tmp_path / "root"
    copy_program(prog.binary, prog.gmon, root)
    served = await serve_zero_config(root, tmp_path / "cache", dataclasses.replace(oracle, flat=flat), sources,
                                     full=True, hottest=True)  # fmt: skip
    assert served.state == "loaded", served.message
    assert served.routines == oracle.entries, (served.routines, oracle.entries)
    assert not served.problems, "\n".join(served.problems[:40])
