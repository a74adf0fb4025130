"""Record the golden texts of tests/analysis/test_goldens.py from GNU gprof (run by hand).

    .venv/bin/python tests/record_goldens.py            # gprof's texts, checked against gmonlens
    .venv/bin/python tests/record_goldens.py --dumps    # also the engine's Profile dumps

For every program of tests/golden_programs.py it writes the ELF executable and gmon.out into a
temporary directory (nothing is kept), runs `gprof -b OPTIONS a.out gmon.out` for each variant
and stores the output as tests/analysis/golden/<program>.<variant>.txt. It then says where the
engine (fed in memory, as the test feeds it) and `gmonlens report` (reading the files) differ from
gprof; both should be silent.

It then does the same for every target of tests/golden_targets.py whose gprof is installed
(`<target>-gprof`; Debian's binutils-<target>): tests/analysis/golden/targets/<target>.<variant>.txt,
and `.err` beside it with what gprof wrote on stderr, its program name cut off (e.g. `-c not
supported on architecture armv7`).

`--dumps` writes tests/analysis/golden/<program>.profile.txt: every figure of the engine's Profile
for each variant (floats exactly). These come from gmonlens, not gprof: they pin the last bits of
the arithmetic, which the two-decimal report text can hide, so that a refactoring can show it
changed nothing. Rewrite them only for a change meant to alter the engine's figures.
"""

from __future__ import annotations

import argparse
import difflib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

import golden_targets  # noqa: E402
from golden_programs import PROGRAMS, elf_bytes, engine_profile, engine_text, gmon_bytes, profile_dump  # noqa: E402

GOLDEN = TESTS / "analysis" / "golden"


def _diff(name: str, want: str, got: str) -> None:
    print(f"{name}: gmonlens differs from gprof", file=sys.stderr)
    sys.stderr.writelines(
        difflib.unified_diff(want.splitlines(True), got.splitlines(True), "gprof", "gmonlens")
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dumps", action="store_true", help="also write the engine's Profile dumps")
    args = ap.parse_args()
    gprof = shutil.which("gprof")
    if gprof is None:
        print("gprof (GNU binutils) is needed to record the goldens", file=sys.stderr)
        return 2
    gmonlens = Path(sys.executable).parent / "gmonlens"
    GOLDEN.mkdir(parents=True, exist_ok=True)
    bad = 0
    for p in PROGRAMS:
        dumps = []
        with tempfile.TemporaryDirectory() as d:
            Path(d, "a.out").write_bytes(elf_bytes(p))
            Path(d, "gmon.out").write_bytes(gmon_bytes(p))
            for v in p.variants:
                argv = ["-b", *v.options, "a.out", "gmon.out"]
                want = subprocess.run(
                    [gprof, *argv], cwd=d, capture_output=True, check=True, text=True
                ).stdout
                name = f"{p.name}.{v.id}"
                (GOLDEN / f"{name}.txt").write_text(want)
                got = engine_text(p, v)
                if got != want:
                    bad += 1
                    _diff(name + " (engine)", want, got)
                cli = subprocess.run([gmonlens, "report", *argv], cwd=d, capture_output=True, text=True)
                if cli.stdout != want:
                    bad += 1
                    _diff(name + " (gmonlens report)", want, cli.stdout)
                dumps.append(f"== {v.id} {' '.join(v.options)}\n" + profile_dump(engine_profile(p, v)[0]))
        if args.dumps:
            (GOLDEN / f"{p.name}.profile.txt").write_text("".join(dumps))
        print(f"{p.name}: {len(p.variants)} variant(s) recorded")
    bad += record_targets(gmonlens)
    if bad:
        print(f"{bad} difference(s) between gmonlens and gprof", file=sys.stderr)
    return 1 if bad else 0


def record_targets(gmonlens: Path) -> int:
    """Record every installed target's goldens; the number of differences from gmonlens."""
    bad = 0
    where = GOLDEN / "targets"
    where.mkdir(exist_ok=True)
    for t in golden_targets.TARGETS:
        gprof = shutil.which(t.gprof)
        if gprof is None:
            print(f"{t.name}: {t.gprof} not installed, not recorded", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory() as d:
            Path(d, "a.out").write_bytes(golden_targets.elf_bytes(t))
            Path(d, "gmon.out").write_bytes(golden_targets.gmon_bytes(t))
            for v in golden_targets.VARIANTS:
                argv = ["-b", *v.options, "a.out", "gmon.out"]
                want = subprocess.run([gprof, *argv], cwd=d, capture_output=True, check=True, text=True)
                name = f"{t.name}.{v.id}"
                (where / f"{name}.txt").write_text(want.stdout)
                err = where / f"{name}.err"
                prefix = t.gprof + ": "
                if want.stderr:
                    err.write_text("".join(x.removeprefix(prefix) + "\n" for x in want.stderr.splitlines()))
                elif err.exists():
                    err.unlink()
                cli = subprocess.run([gmonlens, "report", *argv], cwd=d, capture_output=True, text=True)
                if cli.stdout != want.stdout:
                    bad += 1
                    _diff(name + " (gmonlens report)", want.stdout, cli.stdout)
        print(f"{t.name}: {len(golden_targets.VARIANTS)} variant(s) recorded")
    return bad


if __name__ == "__main__":
    sys.exit(main())
