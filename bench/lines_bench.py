"""`gmonlens report -l` against `gprof -b -l`, side by side (issue 21): CPU and wall time and peak
RSS of each, the first gmonlens run with an empty cache (cold) and the next ones (warm: the line
table and gprof's function scopes come from the disk cache), and whether the outputs are identical.

    .venv/bin/python bench/lines_bench.py [--reps N] [BINARY GMON]

Without arguments: the generated program of 300 routines in 8 files at -O2 (bench/gen_program.py).
CPU time is the figure to compare on a shared machine (wall time waits for other processes).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
GMONLENS = BENCH.parent / ".venv" / "bin" / "gmonlens"


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, env=env, check=False).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, after.ru_maxrss, out


def peak_kb(argv: list[str], env: dict[str, str]) -> int:
    """Peak RSS of one run, from /usr/bin/time (RUSAGE_CHILDREN keeps the maximum over all)."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True, env=env, check=False)
    return int(r.stderr.decode().strip().splitlines()[-1])


def default_program() -> tuple[Path, Path]:
    sys.path.insert(0, str(BENCH))
    import gen_program

    src = gen_program.generate(gen_program.WORK_DIR / "gen300x8", n_routines=300, n_files=8)
    exe = gen_program.build(src, opt="-O2")
    return exe, gen_program.run_program(exe)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    binary, gmon = (Path(a.files[0]), Path(a.files[1])) if a.files else default_program()
    args = ["-b", "-l", str(binary), str(gmon)]
    with tempfile.TemporaryDirectory(prefix="gmonlens-lines-bench-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        cold = run_once([str(GMONLENS), "report", *args], env)
        cold_kb = peak_kb([str(GMONLENS), "report", *args], {**env, "XDG_CACHE_HOME": cache + "-cold"})
        g, m = [], []
        for _ in range(a.reps):
            g.append(run_once(["gprof", *args], env))
            m.append(run_once([str(GMONLENS), "report", *args], env))
        g_kb, m_kb = peak_kb(["gprof", *args], env), peak_kb([str(GMONLENS), "report", *args], env)
    same = all(x[3] == g[0][3] for x in (*g, *m, cold))
    med = statistics.median
    gc, gw = med(x[0] for x in g), med(x[1] for x in g)
    mc, mw = med(x[0] for x in m), med(x[1] for x in m)
    print(
        f"{binary} {gmon}: outputs identical: {same}; medians of {a.reps} runs, load {os.getloadavg()[0]:.1f}"
    )
    print(f"  gprof -b -l           CPU {gc:6.3f} s  wall {gw:6.3f} s  peak {g_kb / 1024:6.1f} MB")
    print(
        f"  gmonlens -l (cold)    CPU {cold[0]:6.3f} s  wall {cold[1]:6.3f} s  peak {cold_kb / 1024:6.1f} MB"
    )
    print(f"  gmonlens -l (warm)    CPU {mc:6.3f} s  wall {mw:6.3f} s  peak {m_kb / 1024:6.1f} MB")
    print(f"  warm/gprof: CPU {mc / gc:.2f}x, wall {mw / gw:.2f}x, memory {m_kb / g_kb:.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
