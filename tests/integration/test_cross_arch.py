"""32-bit x86 (i686-linux-gnu-gcc, run natively through the cross loader; compared with the native
gprof, which reads elf32-i386) and AArch64 (aarch64-linux-gnu-gcc, run under qemu-aarch64;
compared with aarch64-linux-gnu-gprof). Skipped, with the reason, where a toolchain is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gprof_harness import (
    AARCH64,
    I686,
    Program,
    Target,
    Workshop,
    compare_reports,
    compare_reports_x86_static,
    gmonlens,
    gprof,
)

from gmonwriter import gnu_to_bsd

TARGETS = {"i686": I686, "aarch64": AARCH64}

# Shorter workloads: qemu is slower, and the runs still get a few dozen samples.
PROGRAMS = {
    "recursion": Program("recursion", ("recursion.c",), args=("8000",)),
    "cycles": Program("cycles", ("cycles.c",), args=("10000",)),
    "opt2": Program("opt2", ("opt2.c",), flags=("-O2",), args=("200000",)),
    "statics": Program(
        "statics", ("statics_main.c", "statics_s1.c", "statics_s2.c", "statics_s3.c"), args=("60000",)
    ),
    "shapes": Program("shapes", ("shapes.cpp",), args=("400",)),
}

OPTIONS = {
    "default": (),
    "z": ("-z",),
    "a": ("-a",),
    "c": ("-c",),
    "p": ("-p",),
    "q": ("-q",),
    "k": ("-k", "fact/burn"),
    "F": ("-F", "middle"),
    "Pburn": ("-Pburn",),
}

PARAMS = [
    *(
        pytest.param(t, p, o, id=f"{t}-{p}-{o}")
        for t in TARGETS
        for p in PROGRAMS
        for o in (OPTIONS if p == "recursion" else ("default", "z", "c"))
    ),
]


@pytest.mark.parametrize(("target", "program", "opt"), PARAMS)
def test_cross_target_matches_gprof(workshop: Workshop, target: str, program: str, opt: str) -> None:
    t: Target = TARGETS[target]
    b = workshop.get(PROGRAMS[program], t)
    argv = [*OPTIONS[opt], str(b.binary), str(b.gmon["out"])]
    if opt == "c" and target == "i686":
        compare_reports_x86_static(t, argv, b.dir)  # AArch64 -c stays byte for byte
    else:
        compare_reports(t, argv, b.dir)


@pytest.mark.parametrize("target", list(TARGETS))
def test_cross_target_two_runs_summed(workshop: Workshop, target: str) -> None:
    t = TARGETS[target]
    b = workshop.get(PROGRAMS["recursion"], t, runs={"out": None, "r2": ("3000",)})
    compare_reports(t, [str(b.binary), str(b.gmon["out"]), str(b.gmon["r2"])], b.dir)


@pytest.mark.parametrize("bsd44", [False, True], ids=["oldbsd", "bsd44"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_cross_target_bsd_files(workshop: Workshop, target: str, bsd44: bool) -> None:
    t = TARGETS[target]
    b = workshop.get(PROGRAMS["recursion"], t)
    bsd = b.dir / f"gmon.{'bsd44' if bsd44 else 'oldbsd'}"
    if not bsd.exists():
        data = b.gmon["out"].read_bytes()
        bsd.write_bytes(gnu_to_bsd(data, bsd44=bsd44, address_size=t.address_size, little_endian=True))
    expected, _ = compare_reports(t, [str(b.binary), str(bsd)], b.dir)
    assert expected.stdout == gprof(t, ["-b", str(b.binary), str(b.gmon["out"])], b.dir).stdout


@pytest.mark.parametrize("target", list(TARGETS))
def test_cross_target_sum_file(workshop: Workshop, tmp_path: Path, target: str) -> None:
    t = TARGETS[target]
    b = workshop.get(PROGRAMS["recursion"], t, runs={"out": None, "r2": ("3000",)})
    files = [str(b.gmon["out"]), str(b.gmon["r2"])]
    gdir, ldir = tmp_path / "gprof", tmp_path / "gmonlens"
    gdir.mkdir()
    ldir.mkdir()
    assert gprof(t, ["-s", str(b.binary), *files], gdir).returncode == 0
    r = gmonlens(["-s", str(b.binary), *files], ldir)
    assert r.returncode == 0, r.err
    want, got = (gdir / "gmon.sum").read_bytes(), (ldir / "gmon.sum").read_bytes()
    if target == "aarch64":
        # aarch64-linux-gnu-gprof leaves a heap pointer (it changes with ASLR from run to run) in
        # the header's spare bytes 8..19; the native gprof writes high_pc and hist_size there.
        want, got = want[:8] + want[20:], got[:8] + got[20:]
    assert got == want, sum_diff(want, got)


def sum_diff(want: bytes, got: bytes) -> str:
    first = next((i for i in range(min(len(want), len(got))) if want[i] != got[i]), min(len(want), len(got)))
    return (
        f"gmon.sum differs: sizes {len(want)} (gprof) vs {len(got)} (gmonlens), first difference at byte "
        f"{first}: gprof {want[first : first + 12].hex(' ')} / gmonlens {got[first : first + 12].hex(' ')}"
    )
