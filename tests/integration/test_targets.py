"""Every Linux target gprof reads (issue 31), each against its own gprof (Debian's binutils-<triplet>
2.40) byte for byte: ARM Thumb-2 and A32 (armhf), ARMv5TE (armel), RISC-V 64, POWER (ppc64le,
big-endian ppc64 ELFv1 and ppc32), s390x, MIPS (mips64el, big-endian mips). Programs are built with
Debian's cross compilers and run under qemu-user, once per session (the `workshop` fixture); each
report option is one test. Skipped, with the package to install, where a toolchain is missing.

x86-64, i686 and AArch64 are covered by test_cross_arch.py, test_gprof_modes.py and the rest."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gprof_harness import (
    LINUX_TARGETS,
    Built,
    Program,
    Target,
    Workshop,
    compare_reports,
    gmonlens,
    gprof,
    run_tool,
)

from gmonwriter import gnu_to_bsd

TARGETS = {t.name: t for t in LINUX_TARGETS}

# Short workloads: qemu is slower, and the runs still get a few dozen samples.
RECURSION = Program("recursion", ("recursion.c",), args=("8000",))
STATICS = Program(
    "statics", ("statics_main.c", "statics_s1.c", "statics_s2.c", "statics_s3.c"), args=("60000",)
)
OPT2 = Program("opt2", ("opt2.c",), flags=("-O2",), args=("200000",))

# Every report option the x86-64 tests hold to gprof, on the recursion program (names its own).
OPTIONS: dict[str, tuple[str, ...]] = {
    "default": (),
    "p": ("-p",),
    "q": ("-q",),
    "z": ("-z",),
    "a": ("-a",),
    "c": ("-c",),
    "c-z": ("-c", "-z"),
    "l": ("-l",),
    "l-z": ("-l", "-z"),
    "l-c": ("-l", "-c"),
    "l-q": ("-l", "-q"),
    "A": ("-A",),
    "A-l": ("-A", "-l"),
    "A-x-z": ("-A", "-x", "-z"),
    "C": ("-C",),
    "C-l-z": ("-C", "-l", "-z"),
    "i": ("-i",),
    "r": ("-r",),
    "T": ("-T",),
    "T-l": ("-T", "-l"),
    "T-c": ("-T", "-c"),
    "D": ("-D",),
    "k": ("-k", "fact/burn"),
    "F": ("-F", "middle"),
    "E": ("-E", "burn"),
    "Pburn": ("-Pburn",),
    "qeven": ("-qeven",),
    "w": ("-w", "120"),
}
# The multi-file program: static routines of one name in several files.
STATICS_OPTIONS: dict[str, tuple[str, ...]] = {
    "default": (),
    "l": ("-l",),
    "A": ("-A",),
    "C": ("-C",),
    "c": ("-c",),
    "T": ("-T",),
    "f": ("-f", "statics_s3.c:work"),
    "pfile": ("-pstatics_s2.c",),
}
OPT2_OPTIONS: dict[str, tuple[str, ...]] = {"default": (), "l": ("-l",), "c": ("-c",), "C": ("-C",)}
PROGRAMS = {
    "recursion": (RECURSION, OPTIONS),
    "statics": (STATICS, STATICS_OPTIONS),
    "opt2": (OPT2, OPT2_OPTIONS),
}

CASES = [
    pytest.param(t, p, o, id=f"{t}-{p}-{o}")
    for t in TARGETS
    for p, (_, opts) in PROGRAMS.items()
    for o in opts
]


def _no_finder(err: str) -> str | None:
    """The architecture a `-c not supported on architecture X` message names, or None."""
    marker = "not supported on architecture "
    at = err.find(marker)
    return err[at + len(marker) :].split()[0] if at >= 0 else None


@pytest.mark.parametrize(("target", "program", "opt"), CASES)
def test_target_matches_gprof(workshop: Workshop, target: str, program: str, opt: str) -> None:
    t: Target = TARGETS[target]
    prog, options = PROGRAMS[program]
    b = workshop.get(prog, t)
    opts = options[opt]
    expected, actual = compare_reports(t, [*opts, str(b.binary), str(b.gmon["out"])], b.dir)
    if "-c" in opts:  # where gprof has no finder for the architecture, both say so, naming it alike
        assert _no_finder(actual.err) == _no_finder(expected.err), (expected.err, actual.err)


@pytest.mark.parametrize("target", list(TARGETS))
def test_target_external_symbol_table(workshop: Workshop, target: str) -> None:
    """-S FILE: the routines of an nm listing made by the target's own nm."""
    t = TARGETS[target]
    b = workshop.get(RECURSION, t)
    nm = subprocess.run([t.tool("nm"), str(b.binary)], capture_output=True, text=True, check=True).stdout
    syms = b.dir / "syms.txt"
    syms.write_text("".join(line + "\n" for line in nm.splitlines() if " T " in line or " t " in line))
    compare_reports(t, ["-S", str(syms), str(b.binary), str(b.gmon["out"])], b.dir)


@pytest.mark.parametrize("target", list(TARGETS))
def test_target_two_runs_summed(workshop: Workshop, target: str) -> None:
    t = TARGETS[target]
    b = workshop.get(RECURSION, t, runs={"out": None, "r2": ("3000",)})
    for opts in ((), ("-i",), ("-l", "-p")):
        compare_reports(t, [*opts, str(b.binary), str(b.gmon["out"]), str(b.gmon["r2"])], b.dir)


@pytest.mark.parametrize("bsd44", [False, True], ids=["oldbsd", "bsd44"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_target_bsd_files(workshop: Workshop, target: str, bsd44: bool) -> None:
    """The run's profile rewritten in the BSD formats (the target's word size and byte order)."""
    t = TARGETS[target]
    b = workshop.get(RECURSION, t)
    bsd = b.dir / f"gmon.{'bsd44' if bsd44 else 'oldbsd'}"
    if not bsd.exists():
        data = b.gmon["out"].read_bytes()
        bsd.write_bytes(
            gnu_to_bsd(data, bsd44=bsd44, address_size=t.address_size, little_endian=t.little_endian)
        )
    compare_reports(t, [str(b.binary), str(bsd)], b.dir)


def sum_file_bytes(target: Target, binary: Path, files: list[str], where: Path, ours: bool) -> bytes:
    """gmon.sum as `-s` writes it in `where`: bytes 8..19 of the header cut out. Those are spare
    bytes that Debian's cross gprofs fill with a heap pointer (it changes with ASLR from run to
    run; the native gprof writes high_pc and hist_size there), so no reader can rely on them."""
    where.mkdir()
    argv = ["-s", str(binary), *files]
    r = gmonlens(argv, where) if ours else gprof(target, argv, where)
    assert r.returncode == 0, r.err
    data = (where / "gmon.sum").read_bytes()
    return data[:8] + data[20:]


@pytest.mark.parametrize("target", list(TARGETS))
def test_target_sum_file(workshop: Workshop, tmp_path: Path, target: str) -> None:
    t = TARGETS[target]
    b = workshop.get(RECURSION, t, runs={"out": None, "r2": ("3000",)})
    files = [str(b.gmon["out"]), str(b.gmon["r2"])]
    want = sum_file_bytes(t, b.binary, files, tmp_path / "gprof", ours=False)
    got = sum_file_bytes(t, b.binary, files, tmp_path / "gmonlens", ours=True)
    assert got == want, f"gmon.sum differs: {len(want)} bytes (gprof), {len(got)} (gmonlens)"


def _objects_and_map(built: Built, t: Target) -> Path:
    """The -R map of the statics program, made as gprof's manual says (`nm --extern-only
    --defined-only -v --print-file-name *.o`) from its sources compiled one by one."""
    objdir = built.dir / "objects"
    if (objdir / "map").exists():
        return objdir / "map"
    objdir.mkdir(exist_ok=True)
    objs = []
    for src in built.program.sources:
        obj = Path(src).with_suffix(".o").name
        argv = [
            t.cc,
            "-pg",
            "-g",
            *t.flags,
            *built.program.flags,
            "-c",
            "-o",
            obj,
            str(built.program.src_dir / src),
        ]
        r = run_tool(argv, objdir)
        assert r.returncode == 0, r.err
        objs.append(obj)
    nm = [t.tool("nm"), "--extern-only", "--defined-only", "-v", "--print-file-name", *objs]
    r = run_tool(nm, objdir)
    assert r.returncode == 0, r.err
    (objdir / "map").write_bytes(r.stdout)
    return objdir / "map"


@pytest.mark.parametrize("opts", [(), ("-p", "-q")], ids=["R", "R-p-q"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_target_file_ordering(
    workshop: Workshop, monkeypatch: pytest.MonkeyPatch, target: str, opts: tuple[str, ...]
) -> None:
    monkeypatch.setenv("MALLOC_PERTURB_", "1")  # gprof's clean-memory output (test_file_ordering.py)
    t = TARGETS[target]
    b = workshop.get(STATICS, t)
    mapping = _objects_and_map(b, t)
    compare_reports(t, ["-R", str(mapping), *opts, str(b.binary), str(b.gmon["out"])], b.dir)
