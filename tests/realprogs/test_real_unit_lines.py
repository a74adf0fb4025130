"""`Program.lines_of` on the real programs: every call site's line from the units holding it, and
every routine's entry line, equal the whole line table's (unit_lines_compare)."""

from __future__ import annotations

from pathlib import Path

import pytest

from unit_lines_compare import assert_entry_lines_as_lines_at, assert_same_as_whole_table

# the binaries' line tables only: nothing here depends on a run's samples
pytestmark = pytest.mark.unsampled

REAL = ["sqlite_prog", "qjs_prog", "leveldb_prog"]


@pytest.mark.parametrize("fixture", REAL)
def test_unit_lines_real_programs(fixture: str, request: pytest.FixtureRequest) -> None:
    prog, _oracle = request.getfixturevalue(fixture)
    assert assert_same_as_whole_table(str(prog.binary)) > 1000


@pytest.mark.parametrize("fixture", REAL)
def test_entry_lines_real_programs(
    fixture: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prog, _oracle = request.getfixturevalue(fixture)
    assert assert_entry_lines_as_lines_at(str(prog.binary), tmp_path / "cache", monkeypatch) > 500
