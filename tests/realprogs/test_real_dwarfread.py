"""The own `.debug_info` reader (gmonlens.dwarf.info_reader) gives the DWARF index pyelftools gives on the
real programs: SQLite, QuickJS with zstd and lz4, LevelDB with Snappy (-O2 and -O0), libsass, jq."""

from __future__ import annotations

import pytest

from binaries import line_table, line_tables
from dwarf_compare import assert_same_as_pyelftools

from . import programs

# the binaries' DWARF only: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled


@pytest.mark.parametrize("fixture", ["sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog", "jq_prog"])
def test_index_as_pyelftools_reads_it(fixture: str, request: pytest.FixtureRequest) -> None:
    prog, _oracle = request.getfixturevalue(fixture)
    assert assert_same_as_pyelftools(str(prog.binary)) > 500


def test_index_as_pyelftools_reads_it_at_o0(leveldb_o0: programs.RealProgram) -> None:
    assert assert_same_as_pyelftools(str(leveldb_o0.binary)) > 500


@pytest.mark.parametrize("fixture", ["sqlite_prog", "leveldb_prog", "libsass_prog"])
def test_one_walk_and_one_decoding_as_two(fixture: str, request: pytest.FixtureRequest) -> None:
    """The warm-up's pairs (`scopes.function_scope_pair`, `LineTable.pair_from_elf`) equal what
    each of the two readings gives alone; in the C++ programs gprof's scopes rename some entries."""
    from gmonlens.dwarf.scopes import elf_code_names, function_scope_pair, function_scopes
    from gmonlens.load.program import Program

    prog, _oracle = request.getfixturevalue(fixture)
    path = str(prog.binary)
    program = Program(path)
    names = elf_code_names(program.image.symbols)
    plain, gprof = function_scope_pair(program.dwarf(), names)
    assert plain == function_scopes(program.dwarf())
    assert gprof == function_scopes(program.dwarf(), names)
    assert (plain is gprof) == (fixture == "sqlite_prog")
    tables = line_tables(path)
    assert [t.to_plain() for t in tables] == [
        line_table(path).to_plain(),
        line_table(path, bfd=True).to_plain(),
    ]
