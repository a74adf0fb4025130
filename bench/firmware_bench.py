"""A 300 KB-text firmware opened in the editor (issue 31): first lenses from the server's start
(wall and the server's CPU seconds), cold (empty disk cache), on a binary never opened (the cache
of an earlier start) and warm, and `gmonlens report` beside `arm-none-eabi-gprof -b`.

The firmware: generated C (`--routines N` routines in files of 100, each with a loop and calls to
two others; a table-driven main), built with arm-none-eabi-gcc for a Cortex-M4 (Thumb-2, -O0 -g
-pg) with tests/integration/firmware's startup and runtime, its text in flash at 0x21000000. Its
gmon.out is written here as the firmware's runtime writes it (16-bit bins of 4 bytes over the
text at 1 kHz, an arc per call site from main's table and the routines' calls), seeded, so runs
compare. Built under bench/work/firmware (cached).

    .venv/bin/python bench/firmware_bench.py [--routines 3000] [--reps 3]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIRMWARE = ROOT / "tests" / "integration" / "firmware"
WORK = HERE / "work" / "firmware"
sys.path[:0] = [str(HERE), str(ROOT / "tests")]

import server_bench  # noqa: E402
from server_bench import first_lenses  # noqa: E402

from gmonwriter import Arc, Hist, gnu_file  # noqa: E402

CC = "arm-none-eabi-gcc"
CFLAGS = ["-mcpu=cortex-m4", "-mthumb", "-O0", "-g", "-ffreestanding"]


def generate(where: Path, n: int) -> list[Path]:
    """The C files of an `n`-routine firmware workload (fN calls two later routines)."""
    where.mkdir(parents=True, exist_ok=True)
    files = []
    for f in range(0, n, 100):
        lines = ["extern volatile unsigned sink;"]
        lines += [f"unsigned r{i}(unsigned x);" for i in range(n)]
        for i in range(f, min(f + 100, n)):
            a, b = min(i + 1, n - 1), min(i + 7, n - 1)
            calls = f"x > 3 ? r{a}(x - 1) + r{b}(x - 2) : 1" if i + 1 < n else "1"
            lines.append(
                f"unsigned r{i}(unsigned x) {{ unsigned s = 0; for (unsigned k = 0; k < x * 3; k++) "
                f"s += k ^ (s >> 2) ^ {i}u; sink += s; return {calls}; }}"
            )
        p = where / f"m{f // 100:03d}.c"
        p.write_text("\n".join(lines) + "\n")
        files.append(p)
    main = where / "fw_main.c"
    table = ", ".join(f"r{i}" for i in range(0, n, max(1, n // 200)))
    main.write_text(
        "volatile unsigned sink;\n"
        + "".join(f"unsigned r{i}(unsigned x);\n" for i in range(0, n, max(1, n // 200)))
        + f"static unsigned (*const table[])(unsigned) = {{{table}}};\n"
        "int main(void) { unsigned a = 0; for (unsigned i = 0; i < sizeof table / sizeof *table; i++) "
        "a += table[i](5); return (int)(a & 1); }\n"
    )
    return [main, *files]


def build(n: int) -> tuple[Path, Path, Path]:
    """(folder, ELF, one source) of the `n`-routine firmware, built once."""
    folder = WORK / f"fw{n}"
    elf = folder / "build" / "fw.elf"
    if elf.exists():
        return folder, elf, folder / "src" / "m000.c"
    if shutil.which(CC) is None:
        raise SystemExit(f"{CC} not installed (Debian: gcc-arm-none-eabi)")
    sources = generate(folder / "src", n)
    (folder / "build").mkdir(parents=True, exist_ok=True)
    (folder / "build" / "fw.ld").write_text(
        (FIRMWARE / "fw.ld")
        .read_text()
        .replace("TEXT_SECTION", ".text")
        .replace("LENGTH = 1M", "LENGTH = 4M")
    )
    objs = []
    for src in sources:
        obj = folder / "build" / (src.stem + ".o")
        subprocess.run([CC, *CFLAGS, "-pg", "-c", str(src), "-o", str(obj)], check=True)
        objs.append(str(obj))
    for src, extra in (
        ("gmon_rt.c", ["-DCPU_HZ=25000000", "-DPROF_HZ=1000"]),
        ("startup.c", []),
        ("mcount.S", []),
    ):
        obj = folder / "build" / (Path(src).stem + "_rt.o")
        subprocess.run([CC, *CFLAGS, *extra, "-c", str(FIRMWARE / src), "-o", str(obj)], check=True)
        objs.append(str(obj))
    subprocess.run(
        [CC, *CFLAGS, "-nostdlib", "-nostartfiles", "-T", str(folder / "build" / "fw.ld"), "-o", str(elf), *objs,
         "-lgcc"], check=True,
    )  # fmt: skip
    return folder, elf, folder / "src" / "m000.c"


def write_profile(elf: Path, seed: int = 31) -> Path:
    """gmon.out as the firmware's runtime writes it: bins over .text, arcs from each call site."""
    nm = subprocess.run(
        ["arm-none-eabi-nm", "-n", str(elf)], capture_output=True, text=True, check=True
    ).stdout
    funcs = [(int(a, 16) & ~1, name) for a, kind, name in (ln.split() for ln in nm.splitlines() if len(ln.split()) == 3)
             if kind in "Tt" and name.startswith("r")]  # fmt: skip
    sec = subprocess.run(["arm-none-eabi-readelf", "-SW", str(elf)], capture_output=True, text=True).stdout
    row = next(line.split() for line in sec.splitlines() if " .text " in line)
    start = int(row[row.index(".text") + 2], 16)
    size = int(row[row.index(".text") + 4], 16)
    rng = random.Random(seed)
    nbins = (size + 3) // 4
    counts = [0] * nbins
    for _ in range(20000):
        a, _name = rng.choice(funcs)
        k = (a + rng.randrange(0, 64) - start) // 4
        if 0 <= k < nbins:
            counts[k] += 1
    arcs = [Arc(a + 24, funcs[min(i + d, len(funcs) - 1)][0] + 4, rng.randrange(1, 500))
            for i, (a, _n) in enumerate(funcs) for d in (1, 7)]  # fmt: skip
    gmon = elf.parent / "gmon.out"
    gmon.write_bytes(
        gnu_file([Hist(start, start + 4 * nbins, counts, prof_rate=1000), *arcs], address_size=4)
    )
    return gmon


SCENARIOS = ("cold", "new binary", "warm")


def _forget_binary(cache: Path) -> None:
    """The cache as a start on a binary never opened finds it: only the start-up's own entry
    (gmonlens_lsp.generated_code) stays."""
    for entry in (cache / "gmonlens").glob("*"):
        if not entry.name.startswith("startcode-"):
            entry.unlink()


def lenses(folder: Path, source: Path, reps: int) -> None:
    """First lenses from the server's start, wall and server CPU seconds, in three scenarios per
    repetition: cold (an empty cache: the first start ever), new binary (the cache of an earlier
    start, but nothing of this binary: opening a firmware for the first time) and warm."""
    wall: dict[str, list[float]] = {k: [] for k in SCENARIOS}
    cpu: dict[str, list[float]] = {k: [] for k in SCENARIOS}
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp)
            for kind in ("cold", "warm", "new binary"):
                if kind == "new binary":
                    _forget_binary(cache)
                t, n, _ = asyncio.run(first_lenses(folder, source, {}, cache))
                wall[kind].append(t)
                cpu[kind].append(server_bench.LAST_CPU[0])
                print(f"first lenses {kind}: {t:.2f} s, {cpu[kind][-1]:.2f} s CPU ({n} lenses)", flush=True)
    for kind in SCENARIOS:
        print(
            f"median {kind}: {statistics.median(wall[kind]):.2f} s wall, {statistics.median(cpu[kind]):.2f} s CPU"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--routines", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    folder, elf, source = build(args.routines)
    gmon = write_profile(elf)
    text = subprocess.run(["arm-none-eabi-size", "-A", str(elf)], capture_output=True, text=True).stdout
    text_size = next(int(line.split()[1]) for line in text.splitlines() if line.startswith(".text"))
    print(f"firmware: {args.routines} routines, .text {text_size / 1024:.0f} KB ({elf})")
    gprof = ["arm-none-eabi-gprof", "-b", str(elf), str(gmon)]
    ours = [str(ROOT / ".venv" / "bin" / "gmonlens"), "report", "-b", str(elf), str(gmon)]
    for name, cmd in (("arm-none-eabi-gprof -b", gprof), ("gmonlens report -b", ours)):
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, check=True).stdout
        print(f"{name}: {time.perf_counter() - t:.2f} s, {len(out)} bytes")
    same = (
        subprocess.run(gprof, capture_output=True).stdout == subprocess.run(ours, capture_output=True).stdout
    )
    print(f"report byte-identical: {same}")
    lenses(folder, source, args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
