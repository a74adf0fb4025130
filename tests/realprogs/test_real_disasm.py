"""`gmonlens disasm` on the real programs (SQLite; QuickJS + zstd + LZ4; LevelDB + snappy;
libsass), against their gprof: every routine with self time or calls adds up to gprof's self
seconds, its line runs to `gprof -l`'s entries (where gprof -l gets through: it stops on the C++
programs, README), its call instructions' counts to gprof's arcs, callee by callee
(tests/disasm_oracle.py)."""

from __future__ import annotations

import subprocess

import pytest

from disasm_oracle import check_program

from . import programs


def _gprof(prog: programs.RealProgram, *opts: str) -> str | None:
    res = subprocess.run(
        ["gprof", "-b", *opts, str(prog.binary), str(prog.gmon)], capture_output=True, timeout=600
    )
    return res.stdout.decode(errors="replace") if res.returncode == 0 and res.stdout.strip() else None


def _check(prog: programs.RealProgram) -> None:
    flat, graph = _gprof(prog, "-p"), _gprof(prog, "-q")
    assert flat is not None and graph is not None
    checked, problems = check_program(
        str(prog.binary), [str(prog.gmon)], flat, _gprof(prog, "-l", "-p"), graph
    )
    assert checked > 100, f"{prog.name}: only {checked} routines listed"
    assert not problems, f"{prog.name}: {len(problems)} problems\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("which", ["sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog"])
def test_listings_add_up_to_gprof(which: str, request: pytest.FixtureRequest) -> None:
    prog, _oracle = request.getfixturevalue(which)
    _check(prog)
