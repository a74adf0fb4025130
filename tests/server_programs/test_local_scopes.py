"""C++ routines whose DWARF sits inside a function's body (a lambda's operator(), a member of a
function-local class) get a lens on their line and are found by name there, like any other."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gmonlens_ide.session import load_folder
from gmonlens_ide.settings import Settings
from routine_keys import named_values

from .conftest import line_of

pytestmark = pytest.mark.integration  # builds its inputs with gcc/g++ at test time

SOURCE = """#include <algorithm>
#include <cstdio>
#include <vector>

static long work(std::vector<long>& v) {
  long s = 0;
  std::for_each(v.begin(), v.end(), [&s](long x) {
    for (int i = 0; i < 300; i++) s += (x * i) % 7;
  });
  struct Local {
    static long twice(long a) { long r = 0; for (int i = 0; i < 300; i++) r += (a + i) % 5; return r; }
  };
  for (long x : v) s += Local::twice(x);
  return s;
}

int main() {
  std::vector<long> v(20000);
  for (size_t i = 0; i < v.size(); i++) v[i] = (long)i;
  long t = 0;
  for (int k = 0; k < 5; k++) t += work(v);
  printf("%ld\\n", t);
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_lambda_and_local_class_members_have_places(tmp_path: Path, opt: str) -> None:
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("g++ not installed")
    src = tmp_path / "src" / "lam.cpp"
    src.parent.mkdir()
    src.write_text(SOURCE)
    (tmp_path / "build").mkdir()
    flags = [opt, "-fno-inline"] if opt == "-O2" else [opt]
    subprocess.run([cxx, "-pg", "-g", *flags, "-o", "build/lam", "src/lam.cpp"], cwd=tmp_path, check=True)
    subprocess.run(["./lam"], cwd=tmp_path / "build", check=True, capture_output=True)
    loaded = load_folder(str(tmp_path), Settings(), 1).loaded
    assert loaded is not None
    ix, routines = loaded.index, loaded.profile.routines
    lenses = named_values((routines[rid].display_name, place.line) for rid, place in ix.routines_in(str(src)))
    lam = next(n for n in lenses if "{lambda(long)#1}::operator()" in n)
    twice = next(n for n in lenses if n.endswith("::Local::twice(long)"))
    assert lenses[lam] == line_of(src, "[&s](long x)")
    assert lenses[twice] == line_of(src, "static long twice")
    # hover / call hierarchy find them by the word under the cursor on their line
    at = ix.routine_at(str(src), line_of(src, "static long twice"), "twice")
    assert at is not None and routines[at].display_name == twice
