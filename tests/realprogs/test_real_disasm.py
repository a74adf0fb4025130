"""`gmonlens disasm` on the real programs (SQLite; QuickJS + zstd + LZ4; LevelDB + snappy;
libsass), against their gprof: every routine with self time or calls adds up to gprof's self
seconds, its line runs to `gprof -l`'s entries (where gprof -l gets through: it stops on the C++
programs, README), its call instructions' counts to gprof's arcs, callee by callee
(tests/disasm_oracle.py)."""

from __future__ import annotations

import pytest

from disasm_oracle import check_program

from . import programs

# gprof's -l (GPROF_LINES), the slow part (89 s of CPU on SQLite), is started in the background when
# a program is built (conftest.py), and these tests run last in the tier (in their run: --profile-runs)


def _check(prog: programs.RealProgram) -> None:
    flat, graph = programs.gprof_text(prog, "-p"), programs.gprof_text(prog, "-q")
    assert flat is not None and graph is not None
    checked, problems = check_program(
        str(prog.binary), [str(prog.gmon)], flat, programs.gprof_text(prog, *programs.GPROF_LINES), graph
    )
    assert checked > 100, f"{prog.name}: only {checked} routines listed"
    assert not problems, f"{prog.name}: {len(problems)} problems\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("which", ["sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog"])
def test_listings_add_up_to_gprof(which: str, request: pytest.FixtureRequest) -> None:
    prog, _oracle = request.getfixturevalue(which)
    _check(prog)
