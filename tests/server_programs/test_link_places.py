"""A hover's links to callers and callees decode no large compilation unit within the request: a
`main.c` that declares thousands of functions (the 100,000-routine benchmark's declares them all,
seconds of DWARF decoding) is linked by its line-table line until something decodes its unit;
a small unit's routine gets its declaration's place as before."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gmonlens_ide import index as index_module
from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings
from gmonlens_lsp.features.hover import _entry as hover_entry
from routine_keys import named

from .conftest import line_of

pytestmark = pytest.mark.integration  # builds its inputs with gcc at test time

N = 8000  # declarations in main.c: its unit (some 60 KB) is far over LINK_BYTES
LINK_BYTES = 16 * 1024  # the link budget here (the server's is larger: a 8000-declaration unit is fast)

WORK = """\
volatile long sink;
void
work (int n)
{
  for (volatile int k = 0; k < n; k++) sink += k;
}
"""


def _main() -> str:
    decls = "".join(f"void f{i}(void);\n" for i in range(N))
    table = ",".join(f"f{i}" for i in range(N))
    return (
        f"void work (int n);\n{decls}"
        f"void (*volatile table[])(void) = {{{table}}};\n"
        "int\nmain (void)\n{\n  for (int i = 0; i < 3000; i++) work (20000);\n  return table[0] == 0;\n}\n"
    )


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    ws = tmp_path_factory.mktemp("links")
    (ws / "work.c").write_text(WORK)
    (ws / "main.c").write_text(_main())
    (ws / "defs.c").write_text("".join(f"void f{i}(void) {{}}\n" for i in range(N)))
    cmd = [gcc, "-pg", "-g", "-O1", "main.c", "work.c", "defs.c", "-o", "prog"]
    subprocess.run(cmd, cwd=ws, check=True)
    subprocess.run([str(ws / "prog")], cwd=ws, check=True, timeout=120)
    return ws


def test_hover_links_decode_no_large_unit(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # cold: no DWARF index from a cache
    monkeypatch.setattr(index_module, "LINK_DECODE_BYTES", LINK_BYTES)
    loaded = load_folder(str(ws), Settings(), 1).loaded
    assert loaded is not None
    profile, index = loaded.profile, loaded.index
    work = named(profile.routines, "name")["work"]
    main = named(profile.routines, "name")["main"]
    dwarf = index.dwarf
    assert dwarf is not None and dwarf.pending_bytes(main.address) > LINK_BYTES
    text = hover_entry(loaded, work.id, ws.as_uri())  # the hover's call-graph entry, as the server renders it
    # main linked at its line-table line (the brace after `main (void)`), its unit left undecoded
    assert f"main.c#L{line_of(ws / 'main.c', 'main (void)') + 1})" in text, text
    assert dwarf.pending_bytes(main.address) > 0
    # the small unit's routine: its declaration's place (the name's line), as `place` gives it
    assert index.link_place(work.id) == index.place(work.id)
    assert index.link_place(work.id).line == line_of(ws / "work.c", "work (int n)")
    # once the unit is decoded, links carry the declaration's line
    assert index.place(main.id).line == line_of(ws / "main.c", "main (void)")
    assert dwarf.pending_bytes(main.address) == 0
    assert index.link_place(main.id) == index.place(main.id)
