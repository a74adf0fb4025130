"""The warm-up subprocess's work (`warmup.warm`): every entry a second start reads, each equal to
what the engine computes on its own; the profile the server already wrote is not computed again;
the line programs decoded once for both line tables, the DWARF walked once for both scopes."""

from __future__ import annotations

from pathlib import Path

import pytest

from binaries import line_table
from gmonlens.common.options import AnalysisOptions
from gmonlens.dwarf.line_table import LineTable
from gmonlens.dwarf.scopes import elf_code_names, function_scopes
from gmonlens.load import diskcache
from gmonlens.load import program as programmod
from gmonlens.load.loader import load_profile
from gmonlens.load.program import Program
from gmonlens_ide import cache_entries, warmup

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time

_KINDS = ("dwarf", "linetable", programmod.LINETABLE_BFD_KIND, "scopes", "scopes-gprof")


def _inputs(ws: Path) -> tuple[str, str]:
    binary = next(p for p in (ws / "build").iterdir() if p.name != "gmon.out")
    return str(binary), str(ws / "build" / "gmon.out")


@pytest.mark.parametrize("ws_name", ["c_ws", "cpp_ws"])
def test_warm_fills_every_entry_with_the_engines_values(
    ws_name: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, gmon = _inputs(request.getfixturevalue(ws_name))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    warmup.warm(binary, [gmon], False)
    program = Program(binary, [gmon])
    key = program.key
    assert all(diskcache.exists(k, key) for k in _KINDS)
    pkey = cache_entries.profile_key(program, AnalysisOptions())
    assert cache_entries.read_profile(pkey) == load_profile(Program(binary, [gmon]))
    for bfd, kind in ((False, "linetable"), (True, programmod.LINETABLE_BFD_KIND)):
        cached = diskcache.load(kind, key, LineTable.from_plain)
        assert cached is not None
        assert cached.to_plain() == line_table(binary, bfd=bfd).to_plain()
    fresh = Program(binary, [gmon])
    alone = function_scopes(fresh.dwarf())
    named = function_scopes(fresh.dwarf(), elf_code_names(fresh.image.symbols))
    assert Program(binary, [gmon]).scopes(compute=False) == alone
    assert Program(binary, [gmon]).gprof_scopes() == named


def test_warm_does_not_compute_a_stored_profile(
    c_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server writes the profile it computed (`reload._finish`) before the warm-up starts."""
    binary, gmon = _inputs(c_ws)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    program = Program(binary, [gmon])
    pkey = cache_entries.profile_key(program, AnalysisOptions())
    assert cache_entries.write_profile(pkey, load_profile(program))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the profile was computed again")

    monkeypatch.setattr("gmonlens.load.loader.load_profile", refuse)
    warmup.warm(binary, [gmon], False)
    assert all(diskcache.exists(k, Program(binary, [gmon]).key) for k in _KINDS)


def test_one_decoding_and_one_walk(c_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary, gmon = _inputs(c_ws)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from gmonlens.dwarf import info_reader as dwarfread
    from gmonlens.dwarf import line_headers as lineheader

    programs, walks = [], []
    real_programs, real_pair = lineheader.programs, dwarfread.DieReader.code_scope_pair
    monkeypatch.setattr(lineheader, "programs", lambda *a: programs.append(1) or real_programs(*a))
    monkeypatch.setattr(
        dwarfread.DieReader, "code_scope_pair", lambda self, n: walks.append(1) or real_pair(self, n)
    )
    p = Program(binary, [gmon])
    p.store_line_tables()
    p.store_scopes()
    assert (len(programs), len(walks)) == (1, 1)
    assert diskcache.exists(programmod.LINETABLE_BFD_KIND, p.key)
