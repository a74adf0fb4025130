"""gcc's identical-code folding (-fipa-icf, on at -O2): the folded copy keeps its code and symbol,
but its DWARF subprogram has no DW_AT_low_pc. The routine still gets its place (and a lens) on its
own definition, found by name."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings
from routine_keys import named, named_values

from .conftest import line_of

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time

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
    names = named_values((p.routines[rid].name, place.line) for rid, place in ix.routines_in(str(src)))
    assert names["mix_a"] == line_of(src, "static unsigned long mix_a")
    assert names["mix_b"] == line_of(src, "static unsigned long mix_b")
    rid = named(p.routines, "name")["mix_b"].id
    place = ix.place(rid)
    assert place is not None and place.name == "mix_b" and place.path == str(src)


# libsass's Prelexer::re_pseudo_selector: a global C++ function declared in a header, folded into
# an identical one; its DIE in the .cpp's unit only completes the header's declaration (no code, no
# line of its own), so no DIE places it: the line table does (its entry, as gprof -l has it)
HEADER = """\
namespace Lex {
  const char* functional(const char* src);
  const char* pseudo(const char* src);
}
"""

LEXER = """\
#include "lex.hpp"
namespace Lex {
  template <char c> const char* exactly(const char* src) { return *src == c ? src + 1 : nullptr; }
  const char* word(const char* src) { while (*src >= 'a' && *src <= 'z') ++src; return src; }
  const char* functional(const char* src) {
    const char* p = word(src); return p ? exactly<'('>(p) : nullptr;
  }
  const char* pseudo(const char* src) {
    const char* p = word(src); return p ? exactly<'('>(p) : nullptr;
  }
}
"""

MAIN = """\
#include "lex.hpp"
int main(int argc, char** argv) {
  long n = 0;
  for (int i = 0; i < 20000; ++i)
    n += (Lex::pseudo(argv[0]) != nullptr) + (Lex::functional(argv[0]) != nullptr);
  return (int)(n & 1) + argc - 1;
}
"""


def test_folded_cpp_function_is_placed_by_the_line_table(tmp_path: Path) -> None:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not installed")
    src = tmp_path / "src"
    src.mkdir()
    for name, text in (("lex.hpp", HEADER), ("lex.cpp", LEXER), ("main.cpp", MAIN)):
        (src / name).write_text(text)
    cmd = [gxx, "-O2", "-pg", "-g", "src/lex.cpp", "src/main.cpp", "-o", "lex"]
    subprocess.run(cmd, cwd=tmp_path, check=True)
    subprocess.run([str(tmp_path / "lex")], cwd=tmp_path, check=False, timeout=60)
    assert (tmp_path / "gmon.out").exists()
    loaded = load_folder(str(tmp_path), Settings(), 1).loaded
    assert loaded is not None
    ix, p = loaded.index, loaded.profile
    lexer = src / "lex.cpp"
    lines = named_values(
        (p.routines[rid].display_name, place.line) for rid, place in ix.routines_in(str(lexer))
    )
    assert lines.get("Lex::pseudo(char const*)") == line_of(lexer, "const char* pseudo("), lines
    assert lines.get("Lex::functional(char const*)") == line_of(lexer, "const char* functional("), lines
