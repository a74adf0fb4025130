"""gprof's -r (--function-ordering) and -B against `gmonlens report`, byte for byte, on C, C++ and
-O2 programs (the programs and workloads of test_gprof_modes.py, so builds are shared), alone and
after the other sections; plus generated call graphs that pin each placement rule of
gmonlens/ordering.py (chains, fan-in, fan-out, ties, the 99% cut, arcs from an uncalled main).
-R (--file-ordering) is in test_file_ordering.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from gprof_harness import I686, NATIVE, Program, Workshop, compare_reports
from test_gprof_modes import PROGRAMS

pytestmark = pytest.mark.skipif(NATIVE.missing() is not None, reason=str(NATIVE.missing()))

CASES = [
    *((p, ("-r",)) for p in PROGRAMS if p != "shapes"),  # C++: a known difference (README)
    ("recursion", ("-r", "-p")),
    ("recursion", ("-q", "-r")),
    ("recursion", ("-r", "-a")),
    ("recursion", ("-r", "-C")),
    ("statics", ("-r", "-a", "-p")),
    ("cycles", ("-r", "-c")),
    ("recursion", ("-B",)),
    ("recursion", ("-B", "-p")),
    ("shapes", ("-Qmain", "-B")),
]


@pytest.mark.parametrize(("name", "opts"), CASES, ids=[f"{p}{''.join(o)}" for p, o in CASES])
def test_ordering_matches_gprof(workshop: Workshop, name: str, opts: tuple[str, ...]) -> None:
    b = workshop.get(PROGRAMS[name])
    compare_reports(NATIVE, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)


def test_ordering_cross_i686(workshop: Workshop) -> None:
    if I686.missing():
        pytest.skip(str(I686.missing()))
    b = workshop.get(Program("recursion", ("recursion.c",), args=("8000",)), target=I686)
    compare_reports(I686, ["-r", str(b.binary), str(b.gmon["out"])], b.dir)


# Generated programs: main drives every arc `P>C:N` (main calls P N times asking it to call C once),
# so arcs from main (uncalled, hence "unused") weigh in the 99% cut but place nothing.
GRAPHS = {
    "chain-fanin-prepend": "a>b:20 c>a:10",
    "fanout-second-child-unplaced": "a>b:20 a>c:10",
    "no-chain-joining": "c>d:30 a>b:20 b>c:10",
    "new-parent-tie-front": "a>b:32 b>c:31 d>b:30 x>y:1",
    "new-child-nearer-front": "a>b:40 b>c:30 c>d:20 b>e:10 x>y:2",
    "new-child-tie-back": "a>b:30 c>d:20 a>e:10 a>f:8 f>g:5",
    "pass2-new-child-unplaced": "a>b:30 b>c:20 x>y:15 b>e:10",
    "pass2-new-parent-unplaced": "a>b:50 c>a:1",
    "random-10": "f4>f0:100 f1>f4:2 f9>f3:2 f4>f1:10 f0>f5:20 f6>f4:40 f2>f0:20 f3>f1:3 f2>f3:5 f10>f4:20 f3>f4:10",
    "random-8": (
        "f6>f1:10 f7>f5:2 f10>f3:10 f1>f3:100 f4>f1:3 f11>f10:100 f5>f2:5 f2>f7:5 f11>f1:10 "
        "f7>f2:100 f3>f2:10 f8>f6:8 f6>f3:8 f5>f1:8"
    ),
}


def _graph_source(spec: str) -> str:
    arcs = [(pc.split(">")[0], pc.split(">")[1].split(":")[0], int(pc.split(":")[1])) for pc in spec.split()]
    funcs = sorted({f for p, c, _ in arcs for f in (p, c)}, reverse=True)  # addresses not in arc order
    idx = {f: i + 1 for i, f in enumerate(funcs)}
    src = [f"void {f}(int w);" for f in funcs]
    for f in funcs:
        calls = "".join(f" if (w == {idx[c]}) {c}(-1);" for p, c, _ in arcs if p == f)
        src.append(f"void __attribute__((noinline)) {f}(int w) {{{calls} }}")
    src.append("int main(void) {")
    src += [f"  for (int i = 0; i < {n}; i++) {p}({idx[c]});" for p, c, n in arcs]
    src.append("  return 0;\n}\n")
    return "\n".join(src)


@pytest.mark.parametrize("gid", list(GRAPHS))
def test_ordering_rules_on_generated_graphs(tmp_path: Path, gid: str) -> None:
    cc = shutil.which(NATIVE.cc)
    assert cc is not None
    (tmp_path / "g.c").write_text(_graph_source(GRAPHS[gid]))
    subprocess.run([cc, "-pg", "-O0", "g.c", "-o", "g"], cwd=tmp_path, check=True, timeout=120)
    subprocess.run([str(tmp_path / "g")], cwd=tmp_path, check=True, timeout=120)
    compare_reports(NATIVE, ["-r", "g", "gmon.out"], tmp_path)
