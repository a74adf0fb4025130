"""Two checkouts of gmonlens side by side in one run: `gmonlens report -b` start-up and time, and
the language server's first lenses, on the same files, interleaved (the order alternates per
repetition), CPU seconds (user + system of the child) as the measure, outputs compared byte for byte.

Usage: `.venv/bin/python bench/side_by_side.py --before /path/to/old/.venv/bin/python
        [--after .venv/bin/python] [--repeat 5] [--skip-sqlite]`

Programs: the bundled example (examples/calc, -O0: start-up dominates), the generated
20,000-routine program (bench/gen_program.py) and the SQLite amalgamation (bench/sqlite_prog.py,
-O2). Reports run with an empty cache ("cold") and again with the cache the cold run filled
("warm"); first lenses as `bench/server_bench.py` measures them (process start to the first
`textDocument/codeLens` answer), cold and warm.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))


def _cpu_run(argv: list[str], env: dict[str, str]) -> tuple[float, bytes]:
    """(child CPU seconds, stdout) of one run."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, _status, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, out


def _calc() -> tuple[Path, Path, Path]:
    work = BENCH / "work" / "calc"
    exe, gmon = work / "calc", work / "gmon.out"
    if not gmon.exists():
        work.mkdir(parents=True, exist_ok=True)
        for f in (ROOT / "examples" / "calc").glob("*.[ch]"):
            shutil.copy(f, work / f.name)
        subprocess.run(["gcc", "-g", "-pg", "-O0", "-o", "calc", "main.c", "lexer.c", "parser.c", "eval.c"],
                       cwd=work, check=True)  # fmt: skip
        subprocess.run(["./calc", "2000"], cwd=work, check=True, stdout=subprocess.DEVNULL)
    return work, exe, gmon


def programs(skip_sqlite: bool) -> list[tuple[str, Path, Path, Path, Path]]:
    """(label, folder, binary, profile, a source file to open)."""
    import gen_program

    work, exe, gmon = _calc()
    out = [("calc", work, exe, gmon, work / "eval.c")]
    src, gexe, ggmon = gen_program.default_program()
    out.append(("generated 20k", src, gexe, ggmon, src / "mod_100.c"))
    if not skip_sqlite:
        import sqlite_prog

        s = sqlite_prog.fetch()
        sexe = sqlite_prog.build(s, opt="-O2")
        sgmon = sqlite_prog.run_workload(sexe)
        out.append(("sqlite -O2", s.parent, sexe, Path(sgmon), s / "sqlite3.c"))
    return out


def reports(label: str, exe: Path, gmon: Path, pythons: dict[str, str], repeat: int) -> list[str]:
    rows, outputs = [], {}
    cpu: dict[tuple[str, str], list[float]] = {}
    for rep in range(repeat):
        order = list(pythons) if rep % 2 == 0 else list(reversed(pythons))
        for side in order:
            gmonlens = str(Path(pythons[side]).parent / "gmonlens")
            cache = tempfile.mkdtemp(prefix="gmonlens-sbs-")
            env = {**os.environ, "XDG_CACHE_HOME": cache}
            for kind in ("cold", "warm"):
                t, out = _cpu_run([gmonlens, "report", "-b", str(exe), str(gmon)], env)
                cpu.setdefault((side, kind), []).append(t)
                outputs.setdefault(side, out)
            shutil.rmtree(cache, ignore_errors=True)
    same = len(set(outputs.values())) == 1
    for kind in ("cold", "warm"):
        b, a = (statistics.median(cpu[(s, kind)]) for s in ("before", "after"))
        rows.append(
            f"| report -b {kind} | {label} | {b:.3f} | {a:.3f} | {a / b:.2f} | {'yes' if same else 'NO'} |"
        )
    return rows


def lenses(label: str, folder: Path, exe: Path, gmon: Path, source: Path, pythons: dict[str, str],
           repeat: int) -> list[str]:  # fmt: skip
    import server_bench

    settings = {"binary": str(exe), "profiles": [str(gmon)]}
    cpu: dict[tuple[str, str], list[float]] = {}
    counts: dict[str, int] = {}
    for rep in range(repeat):
        order = list(pythons) if rep % 2 == 0 else list(reversed(pythons))
        for side in order:
            sys.executable = pythons[side]  # server_bench starts `sys.executable -m gmonlens_lsp serve`
            cache = Path(tempfile.mkdtemp(prefix="gmonlens-sbs-"))
            for kind in ("cold", "warm"):
                _t, n, _ = asyncio.run(server_bench.first_lenses(folder, source, settings, cache))
                cpu.setdefault((side, kind), []).append(server_bench.LAST_CPU[0])
                counts[side] = n
            shutil.rmtree(cache, ignore_errors=True)
    rows = []
    same = len(set(counts.values())) == 1
    for kind in ("cold", "warm"):
        b, a = (statistics.median(cpu[(s, kind)]) for s in ("before", "after"))
        rows.append(f"| first lenses {kind} | {label} | {b:.3f} | {a:.3f} | {a / b:.2f} | "
                    f"{'yes' if same else 'NO'} ({counts['after']} lenses) |")  # fmt: skip
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, help="the other checkout's .venv/bin/python")
    ap.add_argument("--after", default=str(ROOT / ".venv" / "bin" / "python"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-sqlite", action="store_true")
    a = ap.parse_args()
    pythons = {"before": a.before, "after": a.after}
    # stale bytecode would be compiled at every start (PYTHONDONTWRITEBYTECODE)
    for python in pythons.values():
        # CHECKOUT/.venv/bin/python, not resolved (the venv's python links to the interpreter's)
        tree = Path(python).absolute().parent.parent.parent
        subprocess.run(
            [python, "-m", "compileall", "-q", str(tree / "analysis"), str(tree / "server")], check=False
        )
    rows = [
        "| what | program | before CPU s | after CPU s | after/before | same output |",
        "|---|---|---:|---:|---:|---|",
    ]
    for label, folder, exe, gmon, source in programs(a.skip_sqlite):
        rows += reports(label, exe, gmon, pythons, a.repeat)
        rows += lenses(label, folder, exe, gmon, source, pythons, a.repeat)
        print("\n".join(rows), flush=True)
    print(f"\nmedians of {a.repeat} interleaved runs; CPU = the child's user + system seconds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
