"""The own `.debug_info` reader (gmonlens.dwarfread) gives the DWARF index pyelftools gives on the
real programs: SQLite, QuickJS with zstd and lz4, LevelDB with Snappy (-O2 and -O0), libsass, jq."""

from __future__ import annotations

import pytest

from dwarf_compare import assert_same_as_pyelftools

from . import programs


@pytest.mark.parametrize("fixture", ["sqlite_prog", "qjs_prog", "leveldb_prog", "libsass_prog", "jq_prog"])
def test_index_as_pyelftools_reads_it(fixture: str, request: pytest.FixtureRequest) -> None:
    prog, _oracle = request.getfixturevalue(fixture)
    assert assert_same_as_pyelftools(str(prog.binary)) > 500


def test_index_as_pyelftools_reads_it_at_o0(leveldb_o0: programs.RealProgram) -> None:
    assert assert_same_as_pyelftools(str(leveldb_o0.binary)) > 500
