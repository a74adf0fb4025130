"""SourceIndex, discovery and the cache on built fixtures."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from gmonlens.load.loader import load_profile
from gmonlens.load.program import Program
from gmonlens_ide import cache_entries as cache
from gmonlens_ide.discovery import discover, find_profiles, profile_fits
from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings

from .conftest import line_of

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time


def test_routines_in_and_routine_at(c_ws: Path) -> None:
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    ix, p = loaded.index, loaded.profile
    main_c, util_c = c_ws / "src" / "main.c", c_ws / "src" / "util.c"
    names = [(p.routines[rid].name, place.line) for rid, place in ix.routines_in(str(main_c))]
    assert names == [("helper", line_of(main_c, "static long helper")), ("work", line_of(main_c, "long work(")),
                     ("main", line_of(main_c, "int main("))]  # fmt: skip
    # call site in work of main.c's static helper
    rid = ix.routine_at(str(main_c), line_of(main_c, "total = helper(n)"), "helper")
    assert rid is not None and ix.place(rid).path == str(main_c)
    rid = ix.routine_at(str(util_c), line_of(util_c, "return helper(n)"), "helper")
    assert rid is not None and ix.place(rid).path == str(util_c)
    assert ix.routine_at(str(main_c), line_of(main_c, "long acc = 0"), "acc") is None
    # call sites of the arc work -> util_sum
    arc = next(
        a for a in p.arcs if p.routines[a.parent].name == "work" and p.routines[a.child].name == "util_sum"
    )
    assert ix.call_site_lines(arc) == [(str(main_c), line_of(main_c, "util_sum(n)"))]


def test_discovery_finds_profile_and_fitting_binary(c_ws: Path, cpp_ws: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(c_ws, ws)
    # a second executable that does not fit, newer than the right one
    shutil.copy(cpp_ws / "build" / "shapes", ws / "build" / "shapes")
    os.utime(ws / "build" / "shapes", (time.time() + 10, time.time() + 10))
    found = discover(str(ws), Settings())
    assert found.problem is None
    assert found.binary == str(ws / "build" / "app")
    assert found.profiles == (str(ws / "build" / "gmon.out"),)
    assert not profile_fits(str(ws / "build" / "shapes"), str(ws / "build" / "gmon.out"))
    # gmon.sum, when present with the parts, is used alone when it is the newer set
    shutil.copy(ws / "build" / "gmon.out", ws / "build" / "gmon.out.2")
    shutil.copy(ws / "build" / "gmon.out", ws / "build" / "gmon.sum")
    now = time.time()
    for name in ("gmon.out", "gmon.out.2"):
        os.utime(ws / "build" / name, (now - 60, now - 60))
    assert find_profiles(str(ws)) == [str(ws / "build" / "gmon.sum")]
    found = discover(str(ws), Settings())
    assert found.profiles == (str(ws / "build" / "gmon.sum"),)
    assert found.choice and "using gmon.sum" in found.choice
    # a run after the summing: the parts are the newer set
    os.utime(ws / "build" / "gmon.out", (now + 60, now + 60))
    assert find_profiles(str(ws)) == [str(ws / "build" / "gmon.out"), str(ws / "build" / "gmon.out.2")]
    assert "not gmon.sum" in (discover(str(ws), Settings()).choice or "")


def test_discovery_problems(tmp_path: Path) -> None:
    assert "no gmon.out" in (discover(str(tmp_path), Settings()).problem or "")
    found = discover(str(tmp_path), Settings(profiles=("runs/gmon.*",)))
    assert found.problem == f"{tmp_path}/runs/gmon.*: no file matches"


def test_profile_cache_round_trip(c_ws: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    binary, gmon = str(c_ws / "build" / "app"), str(c_ws / "build" / "gmon.out")
    profile = load_profile(binary, [gmon])
    key = cache.profile_key(Program(binary, [gmon]), "opts")
    assert key and cache.read_profile(key) is None
    assert cache.write_profile(key, profile)
    assert cache.read_profile(key) == profile
    (tmp_path / "gmonlens" / f"profile-{key}.gmc").write_bytes(b"garbage")
    assert cache.read_profile(key) is None
    # the key follows the binary's identity
    os.utime(binary, (time.time() + 5, time.time() + 5))
    assert cache.profile_key(Program(binary, [gmon]), "opts") != key
    monkeypatch.setenv("GMONLENS_CACHE", "off")
    assert cache.cache_dir() is None and not cache.write_profile(key, profile)


def test_profile_key_follows_content_not_mtime(c_ws: Path, tmp_path: Path, monkeypatch) -> None:
    """A profile replaced by another of the same size and mtime (`cp -p`, `touch -r`, archives)
    used to keep its old key, so the server showed the old numbers even after a restart."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    binary = str(c_ws / "build" / "app")
    gmon = tmp_path / "gmon.out"
    shutil.copy2(c_ws / "build" / "gmon.out", gmon)
    key = cache.profile_key(Program(binary, [str(gmon)]), "opts")
    st = gmon.stat()
    data = bytearray(gmon.read_bytes())
    data[-1] ^= 1  # another run: same size
    gmon.write_bytes(bytes(data))
    os.utime(gmon, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime
    assert key is not None and cache.profile_key(Program(binary, [str(gmon)]), "opts") != key


def test_superseded_load_stops_between_phases(c_ws: Path) -> None:
    """A load whose generation was overtaken stops at the next phase, quietly (no problem text)."""
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 1  # superseded right after the first phase

    outcome = load_folder(str(c_ws), Settings(), 1, stop)
    assert outcome.superseded and outcome.loaded is None and outcome.blocking is None
    assert len(asked) == 2
    assert load_folder(str(c_ws), Settings(), 1, lambda: False).loaded is not None


def test_cold_load_decodes_only_the_units_entry_lines(c_ws: Path, tmp_path: Path, monkeypatch) -> None:
    """A cold load and the first lenses decode no line program wholesale: the load's static
    routines (cproject has `static helper`) and the open file's routines take their entry lines
    from the line programs of only the units holding them (`Program.lines_of`), not from
    `lines_at` over every routine nor the whole `LineTable` (1.1 s CPU at 100,000 routines).
    The lenses are those that every routine's entry lines give."""
    import gmonlens.load.program as program_module
    from gmonlens.dwarf.line_table import LineTable
    from gmonlens_lsp.features.code_lens import lenses_for

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls: list[str] = []
    real_at, real_elf = program_module.lines_at, LineTable.from_elf

    def counted(path: str, wanted: set[int], **kw: object) -> dict[int, tuple[str, int]]:
        calls.append(f"lines_at {len(wanted)}")
        return real_at(path, wanted, **kw)  # type: ignore[arg-type]

    def whole(*args: object, **kw: object) -> LineTable:
        calls.append("whole table")
        return real_elf(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(program_module, "lines_at", counted)
    monkeypatch.setattr(LineTable, "from_elf", staticmethod(whole))
    loaded = load_folder(str(c_ws), Settings(), 1).loaded
    assert loaded is not None
    assert any(r.name == "helper" and r.file for r in loaded.profile.routines)  # statics got files
    main_c = str(c_ws / "src" / "main.c")
    lenses = lenses_for(loaded, main_c)
    assert lenses
    assert calls == []
    monkeypatch.setattr(program_module, "lines_at", real_at)
    monkeypatch.setattr(LineTable, "from_elf", staticmethod(real_elf))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other"))
    again = load_folder(str(c_ws), Settings(), 1).loaded
    assert again is not None
    again.index._lines_of = None  # every routine's entry lines, as before the units' lookups
    assert lenses_for(again, main_c) == lenses


def test_cold_load_checks_the_fit_once(c_ws: Path, tmp_path: Path, monkeypatch) -> None:
    """Discovery's fit check and the engine's load share one run of the fit rule (the load ran it
    again on the same symbols and records)."""
    import gmonlens.load.loader as loader_module
    import gmonlens.load.program as program_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls: list[str] = []

    def counted(real: Any, where: str) -> Any:
        def run(*args: Any) -> Any:
            calls.append(where)
            return real(*args)

        return run

    monkeypatch.setattr(program_module, "profile_fit", counted(program_module.profile_fit, "program"))
    monkeypatch.setattr(loader_module, "profile_fit", counted(loader_module.profile_fit, "loader"))
    assert load_folder(str(c_ws), Settings(), 1).loaded is not None
    assert calls == ["program"]
