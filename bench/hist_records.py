"""Many one-bin histogram records (issue 9): `gmonlens report` vs `gprof -b`, wall time.

Usage: ``.venv/bin/python bench/hist_records.py [N ...]`` (default 8000 32000). Builds a program
with 360 KB of code in bench/work/histrec, runs it, then replaces its histogram by N one-bin records
of 4 bytes each (N * 43 bytes of file) and times both tools; checks their outputs are identical.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from gmonwriter import Hist, gnu_file, read_gnu  # noqa: E402

WORK = HERE / "work" / "histrec"
GMONLENS = HERE.parent / ".venv" / "bin" / "gmonlens"


def build() -> Path:
    WORK.mkdir(parents=True, exist_ok=True)
    exe = WORK / "big"
    if not (WORK / "gmon.out").exists():
        funcs = [f"void f{k}(void) {{" + " x++;" * 600 + " }" for k in range(40)]
        calls = "".join(f"f{k}();" for k in range(40))
        src = [
            "static volatile int x;",
            *funcs,
            f"int main(void){{for(int i=0;i<2000;i++){{{calls}}}return 0;}}",
        ]
        (WORK / "big.c").write_text("\n".join(src) + "\n")
        subprocess.run(["gcc", "-pg", "-g", "-O0", "-o", str(exe), "big.c"], cwd=WORK, check=True)
        subprocess.run([str(exe)], cwd=WORK, check=True)
    return exe


def records(n: int) -> Path:
    real = read_gnu((WORK / "gmon.out").read_bytes())
    arcs = [r for r in real if not isinstance(r, Hist)]
    hists = [Hist(0x1070 + 4 * i, 0x1074 + 4 * i, [i % 3]) for i in range(n)]
    out = WORK / f"g{n}.out"
    out.write_bytes(gnu_file(hists + arcs))
    return out


def timed(argv: list[str]) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    r = subprocess.run(argv, cwd=WORK, capture_output=True, check=False)
    return time.perf_counter() - t0, r.stdout


def main(argv: list[str]) -> int:
    exe = build()
    for n in [int(a) for a in argv] or [8000, 32000]:
        g = records(n)
        tg, out_g = timed(["gprof", "-b", str(exe), str(g)])
        tl, out_l = timed([str(GMONLENS), "report", "-b", str(exe), str(g)])
        same = "identical" if out_g == out_l else "DIFFERENT"
        print(
            f"{n} records ({g.stat().st_size} bytes): gprof {tg:.2f} s, gmonlens {tl:.2f} s, outputs {same}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
