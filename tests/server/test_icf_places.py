"""gcc's identical-code folding (-fipa-icf, on at -O2): the folded copy keeps its code and symbol,
but its DWARF subprogram has no DW_AT_low_pc. The routine still gets its place (and a lens) on its
own definition, found by name."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gmonlens_lsp.session import load_folder
from gmonlens_lsp.settings import Settings

from .conftest import line_of

SOURCE = """\
static unsigned long mix_a(unsigned long x)
{
    for (int i = 0; i < 500; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

static unsigned long mix_b(unsigned long x)
{
    for (int i = 0; i < 500; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

/* both addresses taken: gcc keeps two symbols, and mix_b's DIE loses its code */
unsigned long (*volatile table[2])(unsigned long) = {mix_a, mix_b};

int main(int argc, char **argv)
{
    unsigned long s = (unsigned long)argc;
    (void)argv;
    for (int n = 0; n < 2000; n++) { s += table[0](s); s ^= table[1](s + 1); }
    return (int)(s & 1);
}
"""


@pytest.fixture(scope="module")
def icf_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    ws = tmp_path_factory.mktemp("icf")
    (ws / "src").mkdir()
    (ws / "src" / "icf.c").write_text(SOURCE)
    subprocess.run([gcc, "-O2", "-fipa-icf", "-pg", "-g", "src/icf.c", "-o", "icf"], cwd=ws, check=True)
    subprocess.run([str(ws / "icf")], cwd=ws, check=False, timeout=60)
    assert (ws / "gmon.out").exists()
    dump = subprocess.run(["readelf", "--debug-dump=info", str(ws / "icf")], capture_output=True, text=True)
    block = dump.stdout.split(": mix_b\n", 1)[1].split("DW_TAG_", 1)[0] if ": mix_b\n" in dump.stdout else ""
    if "DW_AT_low_pc" in block:
        pytest.skip("this gcc did not fold mix_b into mix_a")
    return ws


def test_folded_copy_is_placed_on_its_definition(icf_ws: Path) -> None:
    loaded = load_folder(str(icf_ws), Settings(), 1).loaded
    assert loaded is not None
    ix, p = loaded.index, loaded.profile
    src = icf_ws / "src" / "icf.c"
    names = {p.routines[rid].name: place.line for rid, place in ix.routines_in(str(src))}
    assert names["mix_a"] == line_of(src, "static unsigned long mix_a")
    assert names["mix_b"] == line_of(src, "static unsigned long mix_b")
    rid = next(r.id for r in p.routines if r.name == "mix_b")
    place = ix.place(rid)
    assert place is not None and place.name == "mix_b" and place.path == str(src)
