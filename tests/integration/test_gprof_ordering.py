"""gprof's -r (--function-ordering) and -B against `gmonlens report`, byte for byte, on C, C++ and
-O2 programs (the programs and workloads of test_gprof_modes.py, so builds are shared), alone and
after the other sections; plus generated call graphs that pin each placement rule of
gmonlens/ordering.py (chains, fan-in, fan-out, ties, the 99% cut, arcs from an uncalled main, and
gprof's first step for popular routines on programs of 80 used routines or more).
-R (--file-ordering) is in test_file_ordering.py."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from gprof_harness import AARCH64, I686, NATIVE, Program, Target, Workshop, compare_reports
from test_gprof_modes import PROGRAMS

pytestmark = pytest.mark.skipif(NATIVE.missing() is not None, reason=str(NATIVE.missing()))

CASES = [
    *((p, ("-r",)) for p in PROGRAMS),
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


# Popular routines (80 used routines or more). Spec tokens: `P>C:N` main calls P once, asking it to
# call C N times (so main, uncalled, is a caller of every P); `P>C:N!` P calls C on its first N
# calls of its own (no arc from main); a routine named u* is called by qsort from main (uncalled,
# "unused", yet a caller); `pairs=K` adds K pairs p_i>q_i:1000+50i; `hub=H:K:N` adds K callers
# H_c_j>H:N+j; `order=a,b` puts those routines first in the address order.
def _popular_source(spec: str) -> str:
    arcs: list[tuple[str, str, int, bool]] = []
    order: list[str] = []
    for tok in spec.split():
        key, _, val = tok.partition("=")
        if key == "order":
            order += val.split(",")
        elif key == "pairs":
            arcs += [(f"p{i}", f"q{i}", 1000 + 50 * i, False) for i in range(int(val))]
        elif key == "hub":
            h, k, n = val.split(":")
            arcs += [(f"{h}_c{j}", h, int(n) + j, False) for j in range(int(k))]
        else:
            pc, n = tok.split(":")
            p, c = pc.split(">")
            arcs.append((p, c, int(n.rstrip("!")), n.endswith("!")))
    funcs = list(dict.fromkeys([*order, *(f for p, c, _, _ in arcs for f in (p, c) if f != "main")]))
    jobs = {f: [(c, n) for p, c, n, own in arcs if p == f and not own] for f in funcs}
    src = ["#include <stdlib.h>"]
    src += [
        f"int {f}(const void *a, const void *b);" if f[0] == "u" else f"void {f}(int op_);" for f in funcs
    ]
    for f in funcs:
        if f[0] == "u":
            body = "".join(f" for (int j = 0; j < {n}; j++) {c}(0);" for c, n in jobs[f])
            src.append(f"int {f}(const void *a, const void *b) {{ static int d; if (!d++){body} return 0; }}")
            continue
        body = "".join(
            f" if (op_ == {k}) for (int j = 0; j < {n}; j++) {c}(0);" for k, (c, n) in enumerate(jobs[f], 1)
        )
        body += "".join(
            f" {{ static int k; if (op_ == 0 && k < {n}) {{ k++; {c}(0); }} }}"
            for p, c, n, own in arcs
            if p == f and own
        )
        src.append(f"void __attribute__((noinline)) {f}(int op_) {{{body} }}")
    src.append("int main(void) {")
    src += [f"  for (int i = 0; i < {n}; i++) {c}(0);" for p, c, n, own in arcs if p == "main"]
    for f in funcs:
        if f[0] == "u":
            src.append(f"  {{ int v[2] = {{1, 2}}; qsort(v, 2, sizeof v[0], {f}); }}")
        else:
            src += [f"  {f}({k});" for k in range(1, len(jobs[f]) + 1)]
    src.append("  return 0;\n}\n")
    return "\n".join(src)


def _random_spec(seed: int, dense: bool = False) -> str:
    """Hubs of 1 to 12 callers, unused callers, arcs between hubs (many when dense) and cross arcs,
    shuffled addresses."""
    rnd = random.Random(seed)
    npairs = rnd.choice([200, 300, 400, 500] if dense else [40, 45, 80, 85, 120, 160, 200])
    arcs = [f"p{i}>q{i}:{rnd.choice([rnd.randint(1, 3000), 1000 + i, 500, 1000])}" for i in range(npairs)]
    nh = rnd.randint(8, 20) if dense else rnd.randint(2, 8)
    for h in range(nh):
        k = rnd.choice([2, 3, 3, 4, 4, 6, 7, 9, 12] if dense else [1, 2, 2, 3, 3, 4, 5, 6, 7, 9])
        base = rnd.choice([200, 2000, 5000, 20000])
        for j in range(k):
            arcs.append(f"h{h}c{j}>h{h}:{base + rnd.choice([0, j, rnd.randint(0, 3000)])}")
        for _ in range(rnd.choice([0, 0, 1, 2])):
            arcs.append(f"u{rnd.randint(0, 4)}>h{h}:{rnd.randint(1, 3)}")
        if rnd.random() < 0.2:
            arcs.append(f"main>h{h}:{rnd.randint(1, 3)}")
        if rnd.random() < 0.3:
            arcs.append(f"h{h}>z{h}:{rnd.randint(1, 6000)}!")
        if rnd.random() < 0.1:
            arcs.append(f"h{h}>h{h}:{rnd.randint(1, 6000)}!")
    for _ in range(rnd.randint(3, 15) if dense else rnd.randint(0, 4)):
        a, b = rnd.randrange(nh), rnd.randrange(nh)
        if a != b:
            arcs.append(f"h{a}>h{b}:{rnd.choice([1, 50, 3000])}!")
    ends = [a.split(">")[1].split(":")[0] for a in arcs]
    for _ in range(rnd.randint(0, 12)):
        p, c = rnd.choice(ends), rnd.choice(ends)
        if p[0] != "u" and c[0] != "u" and p != "main":
            arcs.append(f"{p}>{c}:{rnd.randint(1, 8000)}")
    funcs = sorted({x for a in arcs for x in a.split(":")[0].split(">")} - {"main"})
    rnd.shuffle(funcs)
    return " ".join(arcs) + " order=" + ",".join(funcs)


HUBS3 = "pairs=120 hub=h:9:8000 hub=g:7:6000 hub=f:3:5000"
POPULAR_GRAPHS = {
    # pass 2 grows its own chains; self arcs weigh in no cut (no popular routine: small programs)
    "pass2-chain-grows": "a>b:1000 x>w:10 v>x:5",
    "self-arcs-weigh-nothing": "a>b:1000 c>a:3 main>a:500 "
    + " ".join(f"main>d{i}:1 d{i}>d{i}:2!" for i in range(10)),
    "last-plain-never-printed": "pairs=40 hub=h:4:5000",
    "plain-printed-ties-by-address": "pairs=80 hub=h:4:5000",
    "walk-stops-at-five-callers": "pairs=80 hub=h:7:5000 hub=g:4:4000 hub=f:5:3000",
    "unused-taker-highest-address": "pairs=40 hub=h:4:5000 u1>h:2 u2>h:1",
    "unused-takers-by-weight": f"{HUBS3} u2>h:3 main>g:1 u0>f:2",
    "parent-before-its-child": f"{HUBS3} h>f:4500!",
    "parent-after-its-child": f"{HUBS3} f>h:1!",
    "parent-takes-first-child": (
        "pairs=155 x1>c1:9000 x2>c1:9000 x3>c2:9000 x4>c3:9000 y1>P:9000 y2>P:9000"
        " P>c2:8000! P>c3:8000! P>c1:10! order=c1,c2,c3,P"
    ),
    "reserved-place": "pairs=80 hub=h:3:30000 hub=g:6:25000 u1>h:1 x>h:3025 x>w:2950",
    # b>a joins two reserved places: the chain takes a's, the earlier (libsass's destructors)
    "reserved-places-joined": "pairs=80 hub=h:2:30000 hub=g:6:25000 u1>h:1 a>h:3120 b>h:2880 main>b:1500 b>a:1400!",
    **{f"random-{seed}": _random_spec(seed) for seed in (115, 147, 152, 168, 239, 24, 5)},
    **{f"dense-{seed}": _random_spec(seed, dense=True) for seed in (403, 412, 420, 424, 432, 265, 506)},
}


@pytest.mark.parametrize("gid", list(POPULAR_GRAPHS))
def test_ordering_popular_routines(tmp_path: Path, gid: str) -> None:
    cc = shutil.which(NATIVE.cc)
    assert cc is not None
    (tmp_path / "g.c").write_text(_popular_source(POPULAR_GRAPHS[gid]))
    subprocess.run([cc, "-pg", "-O0", "-w", "g.c", "-o", "g"], cwd=tmp_path, check=True, timeout=120)
    subprocess.run([str(tmp_path / "g")], cwd=tmp_path, check=True, timeout=120)
    compare_reports(NATIVE, ["-r", "g", "gmon.out"], tmp_path)


@pytest.mark.parametrize("target", [I686, AARCH64], ids=lambda t: t.name)
@pytest.mark.parametrize("gid", ["dense-403", "last-plain-never-printed"])
def test_ordering_popular_routines_cross(tmp_path: Path, target: Target, gid: str) -> None:
    """The popular step on 32-bit and AArch64 binaries (arc order and addresses differ there)."""
    if target.missing():
        pytest.skip(str(target.missing()))
    (tmp_path / "g.c").write_text(_popular_source(POPULAR_GRAPHS[gid]))
    cc = shutil.which(target.cc)
    assert cc is not None
    subprocess.run([cc, "-pg", "-O0", "-w", "g.c", "-o", "g"], cwd=tmp_path, check=True, timeout=120)
    subprocess.run(
        [*target.runner, str(tmp_path / "g")],
        cwd=tmp_path,
        check=True,
        timeout=300,
        env={**os.environ, **target.env},
    )
    compare_reports(target, ["-r", "g", "gmon.out"], tmp_path)
