"""A program with one very large routine, for the disassembly benchmark (issue 27 item 10: a
generated grammar's lexer of about 56,000 instructions).

`big_step` is a `switch` of CASES cases, each a little arithmetic on its own constants, a branch
and a call through the PLT (`memchr`) or to a local helper, the shape of a generated lexer's state
machine; built with `gcc -pg -g -O2` (PIE) into bench/work/big/ and run once (gmon.out beside it).
With the default 3,000 cases the routine has about 56,000 instructions.

Usage (library): `exe, gmon = big_routine.build_and_run()`; command line: prints both paths.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
WORK_DIR = BENCH_DIR / "work" / "big"
CASES = 3000


def source(cases: int = CASES) -> str:
    """The C program: `big_step` and a driver that runs it over every state many times."""
    out = [
        "#include <stdlib.h>",
        "#include <string.h>",
        'static const char text[] = "abcdefghijklmnopqrstuvwxyz0123456789";',
        "__attribute__((noinline)) static int helper(int x) { return (x * 7) ^ (x >> 3); }",
        "__attribute__((noinline)) int big_step(int state, int c) {",
        "    switch (state) {",
    ]
    for k in range(cases):
        a, b, m = (k * 2654435761) % 977 + 1, (k * 40503) % 613 + 3, k % 3
        call = f"helper(c + {a})" if m == 0 else f"(memchr(text, c + {k % 40}, {b % 36}) != 0)"
        out.append(
            f"    case {k}: if (c == {a % 128}) return {(k * 31 + 7) % cases};"
            f" if (c > {b % 128}) return (c * {a} + {b}) % {cases} + {call};"
            f" return {(k + 1) % cases};"
        )
    out += [
        "    default: return 0;",
        "    }",
        "}",
        "int main(int argc, char **argv) {",
        "    long rounds = argc > 1 ? atol(argv[1]) : 400;",
        "    unsigned s = 0, acc = 0;",
        "    for (long r = 0; r < rounds; r++)",
        f"        for (int i = 0; i < {cases}; i++) {{ s = big_step(i, (int)((s + i) & 127)); acc += s; }}",
        "    return acc == 12345u;",
        "}",
    ]
    return "\n".join(out) + "\n"


def build_and_run(cases: int = CASES, rounds: int = 2000, work: Path = WORK_DIR) -> tuple[Path, Path]:
    """Build (cached by the source's digest) and run once; (executable, gmon.out)."""
    text = source(cases)
    digest = hashlib.sha256(f"{rounds}\n{text}".encode()).hexdigest()[:16]
    work.mkdir(parents=True, exist_ok=True)
    exe, gmon, stamp = work / "big", work / "gmon.out", work / "digest"
    if exe.exists() and gmon.exists() and stamp.exists() and stamp.read_text() == digest:
        return exe, gmon
    (work / "big.c").write_text(text)
    subprocess.run(["gcc", "-pg", "-g", "-O2", "-o", str(exe), "big.c"], cwd=work, check=True)
    gmon.unlink(missing_ok=True)
    subprocess.run([str(exe), str(rounds)], cwd=work, check=True)
    stamp.write_text(digest)
    return exe, gmon


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=CASES)
    ap.add_argument("--rounds", type=int, default=2000)
    a = ap.parse_args(argv)
    exe, gmon = build_and_run(a.cases, a.rounds)
    print(exe)
    print(gmon)
    return 0


if __name__ == "__main__":
    sys.exit(main())
