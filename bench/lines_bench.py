"""`gmonlens report -l` against `gprof -b -l`, side by side (issue 21 item 7: within 2x of gprof's
time and memory): CPU and wall time and peak RSS of each run, gmonlens with an empty disk cache
(cold) and with the cache its earlier run filled (warm: the line table and gprof's function scopes
come from there), and whether every output is identical to gprof's.

    .venv/bin/python bench/lines_bench.py [--reps N] [--markdown] [--gmonlens PATH] [PROGRAM ... | BINARY GMON]

PROGRAM is one of jq (tests/realprogs/programs.py's build, cached in ~/.cache/gmonlens-tests), brotli and cmark
(bench/lines_programs.py builds them); without arguments, the generated program of 300 routines
in 8 files at -O2 (bench/gen_program.py). Each repetition runs gprof, gmonlens cold (a fresh cache)
and gmonlens warm in turn; medians are printed. Each run's CPU time and peak RSS are its own
(`os.wait4`). CPU time is the figure to compare on a shared machine (wall time waits for others).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, bytes]:
    """(CPU seconds, wall seconds, peak RSS in MB, stdout) of one run of `argv`."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, _, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = 0  # reaped here: Popen must not wait for it again
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, out.read()


def program_files(name: str) -> tuple[Path, Path]:
    """BINARY and GMON of a named program (module docstring)."""
    if name == "jq":  # built (or taken from the tests' build cache) and run as the tests do
        sys.path.insert(0, str(ROOT / "tests"))
        sys.path.insert(0, str(ROOT))
        from tests.realprogs import programs

        prog = programs.jq()
        return prog.binary, prog.gmon
    sys.path.insert(0, str(BENCH))
    import lines_programs

    return {"brotli": lines_programs.brotli, "cmark": lines_programs.cmark}[name]()


def default_program() -> tuple[Path, Path]:
    sys.path.insert(0, str(BENCH))
    import gen_program

    src = gen_program.generate(gen_program.WORK_DIR / "gen300x8", n_routines=300, n_files=8)
    exe = gen_program.build(src, opt="-O2")
    return exe, gen_program.run_program(exe)


def bench(
    binary: Path, gmon: Path, reps: int, gmonlens: Path = GMONLENS
) -> dict[str, list[tuple[float, float, float]]]:
    """{"gprof"|"cold"|"warm": [(CPU s, wall s, peak MB) per repetition]}; raises when an output
    differs from gprof's."""
    args = ["-b", "-l", str(binary), str(gmon)]
    runs: dict[str, list[tuple[float, float, float]]] = {"gprof": [], "cold": [], "warm": []}
    with tempfile.TemporaryDirectory(prefix="gmonlens-lines-bench-") as tmp:
        warm_env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "warm")}
        expected = run_once(["gprof", *args], warm_env)[3]
        if not expected:
            raise SystemExit(f"gprof -b -l printed nothing for {binary} {gmon}")
        run_once([str(gmonlens), "report", *args], warm_env)  # fills the warm cache
        for rep in range(reps):
            cold_env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / f"cold{rep}")}
            for kind, argv, env in (
                ("gprof", ["gprof", *args], warm_env),
                ("cold", [str(gmonlens), "report", *args], cold_env),
                ("warm", [str(gmonlens), "report", *args], warm_env),
            ):
                cpu, wall, peak, out = run_once(argv, env)
                if out != expected:
                    raise SystemExit(f"{kind}: output differs from gprof -b -l's on {binary}")
                runs[kind].append((cpu, wall, peak))
    return runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--markdown", action="store_true", help="also print rows for bench/results.md")
    ap.add_argument(
        "--gmonlens", type=Path, default=GMONLENS, help="the gmonlens to run (another checkout's)"
    )
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if len(a.files) == 2 and Path(a.files[0]).exists():
        programs = [(Path(a.files[0]).name, (Path(a.files[0]), Path(a.files[1])))]
    else:
        programs = [(n, program_files(n)) for n in a.files] or [("gen300x8", default_program())]
    rows = []
    for name, (binary, gmon) in programs:
        runs = bench(binary, gmon, a.reps, a.gmonlens)
        med = {k: tuple(statistics.median(r[i] for r in v) for i in range(3)) for k, v in runs.items()}
        g = med["gprof"]
        print(f"{name} ({binary}): outputs identical; medians of {a.reps}, load {os.getloadavg()[0]:.1f}")
        for kind, label in (
            ("gprof", "gprof -b -l       "),
            ("cold", "gmonlens -l (cold)"),
            ("warm", "gmonlens -l (warm)"),
        ):
            cpu, wall, peak = med[kind]
            ratio = (
                ""
                if kind == "gprof"
                else f"   {cpu / g[0]:.2f}x CPU, {wall / g[1]:.2f}x wall, {peak / g[2]:.2f}x memory"
            )
            print(f"  {label}  CPU {cpu:6.3f} s  wall {wall:6.3f} s  peak {peak:6.1f} MB{ratio}")
            rows.append(f"| {name} | {label.strip()} | {cpu:.3f} | {wall:.3f} | {peak:.1f} | "
                        + ("" if kind == "gprof" else f"{cpu / g[0]:.2f}x / {wall / g[1]:.2f}x / {peak / g[2]:.2f}x")
                        + " |")  # fmt: skip
    if a.markdown:
        print("\n| program | run | CPU s | wall s | peak MB | vs gprof (CPU / wall / memory) |")
        print("| --- | --- | --- | --- | --- | --- |")
        print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
