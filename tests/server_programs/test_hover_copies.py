"""The hover on a line that declares several routines of one name (issue 27 item 6): the static
`clamp` of include/util.h has a copy in each of the six units including it (five with DWARF), two
of them called;
the copies without figures are counted, not shown as call-graph entries (gprof prints none: no
index, no `<spontaneous>`, no "never called" table); a routine without recorded callers has an
empty "called" cell, not a literal `****`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gmonlens_ide.session import FolderState, LoadedFolder, load_folder
from gmonlens_ide.settings import Settings
from gmonlens_lsp import to_lsp
from gmonlens_lsp.features.hover import hover_parts
from gmonlens_lsp.from_lsp import Cursor
from routine_keys import named

from .conftest import line_of

pytestmark = pytest.mark.integration


def gprof_indexes(ws: Path, binary: str) -> set[int]:
    """The call-graph indexes `gprof -b` prints."""
    if shutil.which("gprof") is None:
        pytest.skip("gprof is not installed")
    text = subprocess.run(["gprof", "-b", binary, "gmon.out"], cwd=ws / "build", capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    return {int(n) for n in re.findall(r"\[(\d+)\]", text)}


def loaded_of(ws: Path) -> LoadedFolder:
    loaded = load_folder(str(ws), Settings(), 1).loaded
    assert loaded is not None
    return loaded


def hover_at(loaded: LoadedFolder, path: Path, needle: str, word: str) -> tuple[list[int], str]:
    at = Cursor(
        FolderState(path.parent.as_uri(), str(path.parent)), loaded, str(path), line_of(path, needle), word
    )
    return at.routines(), "\n\n---\n\n".join(hover_parts(at))


def test_copies_without_figures_are_counted_not_listed(names_ws: Path) -> None:
    loaded = loaded_of(names_ws)
    p = loaded.profile
    rids, text = hover_at(loaded, names_ws / "include" / "util.h", "static int clamp", "clamp")
    idle = [rid for rid in rids if not p.routines[rid].has_figures]
    # five copies have DWARF (nodebug.c's has none): main.c's and render.c's are called
    assert len(rids) == 5 and len(idle) == 3, [p.routines[r].display_name for r in rids]
    printed = gprof_indexes(names_ws, "app")
    shown = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
    assert shown and shown <= printed, (shown - printed, text)  # no index gprof never prints
    assert "spontaneous" not in text and "never called" not in text.replace("3 copies never called", "")
    assert "3 copies never called and without samples" in text
    assert text.count("| index | % time") == 2  # the two called copies, in full
    assert "****" not in text


def test_spontaneous_called_cell_is_empty(names_ws: Path) -> None:
    loaded = loaded_of(names_ws)
    p = loaded.profile
    main = named(p.routines, "name")["main"]
    md = to_lsp.hover_markdown(p, {}, main.id)
    row = next(x for x in md.splitlines() if x.startswith("| **["))
    assert "****" not in md and row.split("|")[5].strip() == "", row
    assert "no recorded calls" in md and "never called" not in md


def test_a_routine_without_figures(names_ws: Path) -> None:
    """`never` (no calls, no samples): said in a line, not a call-graph entry gprof never prints."""
    loaded = loaded_of(names_ws)
    rids, text = hover_at(loaded, names_ws / "src" / "main.c", "static void never", "never")
    assert len(rids) == 1
    assert "never called and without samples" in text and "| index |" not in text
    assert not re.search(r"\[\d+\]", text.split("[Show disassembly]")[0]) and "spontaneous" not in text
