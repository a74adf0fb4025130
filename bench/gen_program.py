"""Generate, build and run a large synthetic C program for the benchmarks.

The program has ``n_routines`` routines (default 20,000) spread over ``n_files`` translation units
(default 200), and a call graph shaped like a big real program:

* about 70% "ring" routines that form ONE strongly connected component: ring member ``i`` always
  calls its successor in a random cyclic order (so the ring edges go forward and backward in address
  order, across files), and sometimes a random "chord" member; every ring member also has a cold
  chord that never runs (an arc only the static call graph, ``-c``, can find);
* leaves (extern, called from everywhere, call nothing), 10 static ``helper_K`` per file (the same
  names in every file), never-called routines (they call leaves and ring members: static-only arcs),
  and a small tree of non-cycle "driver" routines under ``main``.

The workload is deterministic (a fixed seed flows through every call) and spends its time in the
per-routine work loops, whose lengths differ, so samples spread over many routines.

Library use (bench/run.py and bench/server_bench.py)::

    src = generate(workdir / "gen20k", n_routines=20000, n_files=200)
    exe = build(src, opt="-O0")          # bench/work/.../prog-O0, cached
    gmon = run_program(exe)              # gmon.out next to it, cached

Command line: ``python bench/gen_program.py [--routines N] [--files F] [--opt -O0|-O2] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
WORK_DIR = BENCH_DIR / "work"
GENERATOR_VERSION = 3  # bump when the generated code changes: invalidates cached builds


@dataclass(frozen=True)
class Layout:
    """How many routines of each kind, and the seeds; everything the C text depends on."""

    n_routines: int
    n_files: int
    seed: int
    rounds: int  # default workload length (outer loop count in main)

    @property
    def helpers_per_file(self) -> int:
        return 10

    def counts(self) -> dict[str, int]:
        """Routines per kind; they add up to n_routines (main included in the drivers)."""
        n = self.n_routines
        helpers = self.helpers_per_file * self.n_files
        drivers = 3 * self.n_files + 1  # drive_K_0..2 per file, plus main
        leaves = n * 12 // 100
        unused = n * 5 // 100
        ring = n - helpers - drivers - leaves - unused
        if ring < self.n_files:
            raise ValueError(f"too few routines ({n}) for {self.n_files} files")
        return {"ring": ring, "leaf": leaves, "helper": helpers, "unused": unused, "driver": drivers}


def _split(total: int, parts: int) -> list[int]:
    """``total`` items into ``parts`` near-equal consecutive chunk sizes."""
    base, extra = divmod(total, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


def _render(layout: Layout) -> dict[str, str]:
    """File name -> C source text for the whole program."""
    rng = random.Random(layout.seed)
    counts = layout.counts()
    n_ring, n_leaf, n_unused, n_files = counts["ring"], counts["leaf"], counts["unused"], layout.n_files
    ring_in_file = _split(n_ring, n_files)
    leaf_in_file = _split(n_leaf, n_files)
    unused_in_file = _split(n_unused, n_files)

    order = list(range(n_ring))
    rng.shuffle(order)
    successor = [0] * n_ring
    for pos, member in enumerate(order):
        successor[member] = order[(pos + 1) % n_ring]

    files: dict[str, str] = {}
    ring_base = leaf_base = unused_base = 0
    for k in range(n_files):
        externs: set[str] = set()
        body: list[str] = []
        h = layout.helpers_per_file
        # static helpers: same names in every file; some call a leaf
        for j in range(h):
            work = 3 + rng.randrange(25)
            if j % 3 == 0:
                leaf = rng.randrange(n_leaf)
                externs.add(f"unsigned leaf_{leaf}(unsigned);")
                tail = f"  return acc + leaf_{leaf}(acc ^ {j}u);"
            else:
                tail = "  return acc;"
            body.append(
                f"static unsigned helper_{j}(unsigned x)\n{{\n  unsigned acc = x;\n"
                f"  for (int i = 0; i < {work}; i++) acc = acc * 2654435761u + {j + 1}u;\n"
                f"{tail}\n}}\n"
            )
        # leaves: call nothing
        for g in range(leaf_base, leaf_base + leaf_in_file[k]):
            work = 2 + rng.randrange(40)
            body.append(
                f"unsigned leaf_{g}(unsigned x)\n{{\n  unsigned acc = x ^ {g}u;\n"
                f"  for (int i = 0; i < {work}; i++) acc = (acc >> 3) ^ (acc * 747796405u + {g}u);\n"
                f"  return acc;\n}}\n"
            )
        # ring members: the one big cycle
        for g in range(ring_base, ring_base + ring_in_file[k]):
            nxt, chord, cold = successor[g], rng.randrange(n_ring), rng.randrange(n_ring)
            leaf, helper, work = rng.randrange(n_leaf), rng.randrange(h), 4 + rng.randrange(60)
            for callee in (nxt, chord, cold):
                if not ring_base <= callee < ring_base + ring_in_file[k]:
                    externs.add(f"unsigned ring_{callee}(int, unsigned);")
            externs.add(f"unsigned leaf_{leaf}(unsigned);")
            body.append(
                f"unsigned ring_{g}(int depth, unsigned x)\n{{\n  unsigned acc = x + {g}u;\n"
                f"  for (int i = 0; i < {work}; i++) acc = acc * 1103515245u + 12345u + (unsigned)i;\n"
                f"  acc += leaf_{leaf}(acc);\n  acc += helper_{helper}(acc);\n"
                f"  if (depth > 0) {{\n    acc += ring_{nxt}(depth - 1, acc);\n"
                f"    if ((acc & 7u) == 0u) acc += ring_{chord}(depth - 1, acc);\n  }}\n"
                f"  if (depth > 1000) acc += ring_{cold}(depth, acc); /* never runs */\n"
                f"  return acc;\n}}\n"
            )
        # never-called routines: static-only arcs to leaves and into the cycle
        for g in range(unused_base, unused_base + unused_in_file[k]):
            a, b, r = rng.randrange(n_leaf), rng.randrange(n_leaf), rng.randrange(n_ring)
            externs.update(
                {f"unsigned leaf_{a}(unsigned);", f"unsigned leaf_{b}(unsigned);"}
                | (
                    set()
                    if ring_base <= r < ring_base + ring_in_file[k]
                    else {f"unsigned ring_{r}(int, unsigned);"}
                )
            )
            body.append(
                f"unsigned unused_{g}(unsigned x)\n{{\n"
                f"  return leaf_{a}(x) + leaf_{b}(x + 1u) + ring_{r}(1, x);\n}}\n"
            )
        # drivers: drive_K_2 -> drive_K_0, drive_K_1 -> this file's ring members
        mine = list(range(ring_base, ring_base + ring_in_file[k]))
        half = len(mine) // 2
        for d, members in ((0, mine[:half]), (1, mine[half:])):
            calls = "".join(f"  acc += ring_{g}(2, acc);\n" for g in members)
            body.append(
                f"unsigned drive_{k}_{d}(unsigned x)\n{{\n  unsigned acc = x;\n{calls}  return acc;\n}}\n"
            )
        body.append(
            f"unsigned drive_{k}_2(unsigned x)\n{{\n  return drive_{k}_0(x) ^ drive_{k}_1(x + {k}u);\n}}\n"
        )
        # prototypes of this file's ring members and drivers (forward references)
        protos = [f"unsigned ring_{g}(int, unsigned);" for g in mine]
        protos += [f"unsigned drive_{k}_{d}(unsigned);" for d in range(3)]
        files[f"mod_{k:03d}.c"] = (
            f"/* generated by bench/gen_program.py: file {k} */\n"
            + "\n".join(sorted(externs) + protos)
            + "\n\n"
            + "\n".join(body)
        )
        ring_base += ring_in_file[k]
        leaf_base += leaf_in_file[k]
        unused_base += unused_in_file[k]

    decls = "".join(f"unsigned drive_{k}_2(unsigned);\n" for k in range(n_files))
    calls = "".join(f"    acc = acc * 31u + drive_{k}_2(acc + (unsigned)r);\n" for k in range(n_files))
    files["main.c"] = (
        "/* generated by bench/gen_program.py */\n#include <stdio.h>\n#include <stdlib.h>\n"
        f"{decls}\nint main(int argc, char **argv)\n{{\n"
        f"  int rounds = argc > 1 ? atoi(argv[1]) : {layout.rounds};\n  unsigned acc = {layout.seed}u;\n"
        f"  for (int r = 0; r < rounds; r++) {{\n{calls}  }}\n"
        '  printf("%u\\n", acc);\n  return 0;\n}\n'
    )
    return files


def generate(
    out: Path, *, n_routines: int = 20000, n_files: int = 200, seed: int = 1, rounds: int = 0
) -> Path:
    """Write the program's sources into ``out`` (skipped when already there); returns ``out``.

    ``rounds`` = 0 picks a default that runs a few seconds at -O0 for 20,000 routines.
    """
    if rounds <= 0:
        rounds = max(1, 300 * 20000 // n_routines)
    layout = Layout(n_routines, n_files, seed, rounds)
    stamp = out / "layout.json"
    meta = {"generator": GENERATOR_VERSION, **asdict(layout)}
    if stamp.exists() and json.loads(stamp.read_text()) == meta:
        return out
    out.mkdir(parents=True, exist_ok=True)
    files = _render(layout)
    for old in out.glob("*.c"):
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        path = out / name
        if not path.exists() or path.read_text() != text:  # unchanged files keep their objects
            path.write_text(text)
    stamp.write_text(json.dumps(meta))
    return out


def _digest(src: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(src.glob("*.c")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def build(src: Path, *, opt: str = "-O0", jobs: int = 2, cc: str = "gcc") -> Path:
    """Compile ``src/*.c`` with ``-pg -g opt`` into ``src/build{opt}/prog``; cached by source digest."""
    bdir = src / f"build{opt}"
    exe = bdir / "prog"
    stamp = bdir / "digest"
    digest = _digest(src)
    if exe.exists() and stamp.exists() and stamp.read_text() == digest:
        return exe
    bdir.mkdir(exist_ok=True)
    sources = sorted(src.glob("*.c"))

    def compile_one(c: Path) -> Path:
        obj = bdir / (c.stem + ".o")
        if obj.exists() and obj.stat().st_mtime >= c.stat().st_mtime:
            return obj
        subprocess.run([cc, "-pg", "-g", opt, "-c", str(c), "-o", str(obj)], check=True)
        return obj

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        objs = list(pool.map(compile_one, sources))
    subprocess.run([cc, "-pg", "-g", opt, "-o", str(exe), *map(str, objs)], check=True)
    stamp.write_text(digest)
    (bdir / "gmon.out").unlink(missing_ok=True)
    return exe


def run_program(exe: Path, *args: str) -> Path:
    """Run ``exe`` in its own directory (once; cached) and return the gmon.out it wrote."""
    gmon = exe.parent / "gmon.out"
    if gmon.exists() and gmon.stat().st_mtime >= exe.stat().st_mtime:
        return gmon
    gmon.unlink(missing_ok=True)
    subprocess.run([str(exe.resolve()), *args], cwd=exe.parent, check=True, stdout=subprocess.DEVNULL)
    if not gmon.exists():
        raise RuntimeError(f"{exe} wrote no gmon.out")
    return gmon


def default_program(opt: str = "-O0") -> tuple[Path, Path, Path]:
    """The benchmarks' program (20,000 routines in 200 files) at `opt`: its source folder,
    executable and gmon.out, generated, built and run on first use (cached)."""
    src = generate(WORK_DIR / "gen20000x200", n_routines=20000, n_files=200)
    exe = build(src, opt=opt)
    return src, exe, run_program(exe)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--routines", type=int, default=20000)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=0, help="workload length (0: default)")
    ap.add_argument("--opt", default="-O0")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--no-run", action="store_true")
    a = ap.parse_args(argv)
    out = a.out or WORK_DIR / f"gen{a.routines}x{a.files}"
    src = generate(out, n_routines=a.routines, n_files=a.files, seed=a.seed, rounds=a.rounds)
    exe = build(src, opt=a.opt, jobs=min(2, os.cpu_count() or 1))
    print(exe)
    if not a.no_run:
        print(run_program(exe))
    return 0


if __name__ == "__main__":
    sys.exit(main())
