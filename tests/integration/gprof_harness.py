"""Integration harness: build C/C++ programs with `-pg`, run them, and compare `gprof -b` with
`gmonlens report -b` byte for byte.

Programs live in tests/integration/programs/. Each is built and run once per session (see
conftest.py); every run writes its `gmon.out` into a fresh directory and the file is renamed so
that several runs of one binary coexist.
"""

from __future__ import annotations

import atexit
import difflib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
ROOT = Path(__file__).resolve().parents[2]
GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"
TIMEOUT = 120


@dataclass(frozen=True)
class Target:
    """A toolchain: compilers, the matching gprof, and how to run a binary it builds."""

    name: str
    cc: str = "gcc"
    cxx: str = "g++"
    gprof: str = "gprof"
    runner: tuple[str, ...] = ()  # prefix for running a binary (loader or emulator)
    env: Mapping[str, str] = field(default_factory=dict)
    address_size: int = 8
    little_endian: bool = True
    flags: tuple[str, ...] = ()  # compiler flags every build for this target gets (-marm, -march=...)
    package: str = ""  # the Debian packages that bring the toolchain (named in skip reasons)

    def missing(self, cxx: bool = False) -> str | None:
        """Why this target cannot be used here (a skip reason), or None."""
        for tool in (self.cxx if cxx else self.cc, self.gprof, *self.runner[:1]):
            if shutil.which(tool) is None and not Path(tool).exists():
                needs = f"; Debian: {self.package}" if self.package else ""
                return f"{tool} not installed (needed for the {self.name} target{needs})"
        return None

    def tool(self, name: str) -> str:
        """The target's binutils program `name` (objdump, nm, as...): the gprof's prefix + name."""
        return self.gprof[: -len("gprof")] + name


NATIVE = Target("x86-64")
I686_LIBDIR = "/usr/i686-linux-gnu/lib"
I686 = Target(
    "i686",
    cc="i686-linux-gnu-gcc",
    cxx="i686-linux-gnu-g++",
    gprof="gprof",  # the native gprof reads elf32-i386
    runner=(f"{I686_LIBDIR}/ld-linux.so.2", "--library-path", I686_LIBDIR),
    address_size=4,
)
AARCH64 = Target(
    "aarch64",
    cc="aarch64-linux-gnu-gcc",
    cxx="aarch64-linux-gnu-g++",
    gprof="aarch64-linux-gnu-gprof",
    runner=("qemu-aarch64",),
    env={"QEMU_LD_PREFIX": "/usr/aarch64-linux-gnu"},
)


def linux_target(
    name: str, triplet: str, qemu: str, *, size: int = 8, little: bool = True, flags: tuple[str, ...] = (),
    package: str = "",
) -> Target:  # fmt: skip
    """A Debian cross target: `<triplet>-gcc` and `<triplet>-gprof`, the binaries run under
    `qemu-<qemu>` with the cross libc's root as QEMU_LD_PREFIX."""
    return Target(
        name,
        cc=f"{triplet}-gcc",
        cxx=f"{triplet}-g++",
        gprof=f"{triplet}-gprof",
        runner=(f"qemu-{qemu}",),
        env={"QEMU_LD_PREFIX": f"/usr/{triplet}"},
        address_size=size,
        little_endian=little,
        flags=flags,
        package=package or f"gcc-{triplet} qemu-user",
    )


# Every Linux target of issue 31 beside x86-64, i686 and AArch64 (run under qemu-user, each
# compared with its own gprof: Debian's binutils-<triplet>, 2.40). Debian's armhf compiler makes
# Thumb-2 code unless told -marm; armel's makes A32 (ARMv5TE).
ARMHF = linux_target("armhf", "arm-linux-gnueabihf", "arm", size=4)
ARMHF_A32 = linux_target("armhf-a32", "arm-linux-gnueabihf", "arm", size=4, flags=("-marm",))
ARMEL = linux_target("armel", "arm-linux-gnueabi", "arm", size=4)
RISCV64 = linux_target("riscv64", "riscv64-linux-gnu", "riscv64")
PPC64LE = linux_target("ppc64le", "powerpc64le-linux-gnu", "ppc64le")
PPC64 = linux_target("ppc64", "powerpc64-linux-gnu", "ppc64", little=False)
PPC32 = linux_target("ppc32", "powerpc-linux-gnu", "ppc", size=4, little=False)
S390X = linux_target("s390x", "s390x-linux-gnu", "s390x", little=False)
MIPS64EL = linux_target("mips64el", "mips64el-linux-gnuabi64", "mips64el")
MIPS = linux_target("mips", "mips-linux-gnu", "mips", size=4, little=False)
LINUX_TARGETS = (ARMHF, ARMHF_A32, ARMEL, RISCV64, PPC64LE, PPC64, PPC32, S390X, MIPS64EL, MIPS)


@dataclass(frozen=True)
class Program:
    """A test program: sources under programs/, build flags, and the workload's arguments."""

    name: str
    sources: tuple[str, ...]
    flags: tuple[str, ...] = ("-O0",)
    libs: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    src_dir: Path = PROGRAMS_DIR

    @property
    def is_cxx(self) -> bool:
        return any(s.endswith((".cpp", ".cc")) for s in self.sources)


@dataclass
class Built:
    """A compiled program and the gmon files of its runs (keyed by run label)."""

    program: Program
    target: Target
    dir: Path
    binary: Path
    gmon: dict[str, Path] = field(default_factory=dict)

    def run(self, label: str, args: Sequence[str] | None = None) -> Path:
        """Run the binary once (in its own directory) and keep its gmon.out as `gmon.<label>`."""
        if label in self.gmon:
            return self.gmon[label]
        rundir = self.dir / f"run-{label}"
        rundir.mkdir()
        env = {**os.environ, **self.target.env}
        argv = [*self.target.runner, str(self.binary), *(self.program.args if args is None else args)]
        proc = subprocess.run(argv, cwd=rundir, env=env, capture_output=True, timeout=TIMEOUT)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv} failed ({proc.returncode}): {proc.stderr.decode(errors='replace')}")
        out = self.dir / f"gmon.{label}"
        (rundir / "gmon.out").rename(out)
        self.gmon[label] = out
        return out


def build(program: Program, target: Target, workdir: Path, extra_flags: Sequence[str] = ()) -> Built:
    """Compile `program` with `-pg -g` for `target` into `workdir`."""
    workdir.mkdir(parents=True, exist_ok=True)
    compiler = target.cxx if program.is_cxx else target.cc
    binary = workdir / program.name
    argv = [
        compiler,
        "-pg",
        "-g",
        *target.flags,
        *program.flags,
        *extra_flags,
        "-o",
        str(binary),
        *(str(program.src_dir / s) for s in program.sources),
        *program.libs,
    ]
    proc = subprocess.run(argv, cwd=workdir, capture_output=True, timeout=TIMEOUT)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{proc.stderr.decode(errors='replace')}")
    return Built(program, target, workdir, binary)


@dataclass(frozen=True)
class Result:
    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def err(self) -> str:
        return self.stderr.decode(errors="replace")


def run_tool(
    argv: Sequence[str], cwd: Path, timeout: float = TIMEOUT, env: Mapping[str, str] | None = None
) -> Result:
    proc = subprocess.run(list(argv), cwd=cwd, capture_output=True, timeout=timeout, env=env)
    return Result(tuple(argv), proc.returncode, proc.stdout, proc.stderr)


_CACHE_HOME: list[str] = []


def gmonlens_env(**extra: str) -> dict[str, str]:
    """The environment for gmonlens runs: a cache directory private to this test session (so runs
    never read or write the user's ~/.cache/gmonlens), shared by the session's runs."""
    if not _CACHE_HOME:
        _CACHE_HOME.append(tempfile.mkdtemp(prefix="gmonlens-test-cache-"))
        atexit.register(shutil.rmtree, _CACHE_HOME[0], True)
    return {**os.environ, "XDG_CACHE_HOME": _CACHE_HOME[0], **extra}


def gprof(target: Target, args: Sequence[str], cwd: Path) -> Result:
    return run_tool([target.gprof, *args], cwd)


def gmonlens(
    args: Sequence[str], cwd: Path, timeout: float = TIMEOUT, env: Mapping[str, str] | None = None
) -> Result:
    if not GMONLENS.exists():
        pytest.fail(f"{GMONLENS} missing: run `make install`")
    return run_tool([str(GMONLENS), "report", *args], cwd, timeout, env or gmonlens_env())


def unified_diff(expected: bytes, actual: bytes, expected_label: str, actual_label: str) -> str:
    a = expected.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = actual.decode("utf-8", errors="replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, expected_label, actual_label, n=2))
    if len(lines) > 200:
        lines = [*lines[:200], f"... ({len(lines) - 200} more diff lines)\n"]
    return "".join(lines).replace("\f", "\\f")


def assert_same_outcome(expected: Result, actual: Result, path: Path, label: str) -> None:
    """gmonlens fails where gprof fails (without a traceback) and prints gprof's stdout otherwise."""
    assert "Traceback" not in actual.err, actual.err
    if expected.returncode != 0:
        assert actual.returncode != 0, f"gprof failed ({expected.err.strip()}), gmonlens did not"
        return
    assert actual.returncode == 0, f"gmonlens failed on {path}: {actual.err}"
    if expected.stdout != actual.stdout:
        diff = unified_diff(expected.stdout, actual.stdout, "gprof -b", "gmonlens report -b")
        pytest.fail(f"{label} ({path}):\n{diff}", pytrace=False)


def compare_reports(
    target: Target, args: Sequence[str], cwd: Path, *, gprof_args: Sequence[str] | None = None
) -> tuple[Result, Result]:
    """Run `gprof -b ARGS` and `gmonlens report -b ARGS` in `cwd`; fail with a unified diff unless
    stdout is byte-identical and both succeed or both fail."""
    expected = gprof(target, ["-b", *(args if gprof_args is None else gprof_args)], cwd)
    actual = gmonlens(["-b", *args], cwd)
    assert "Traceback" not in actual.err, actual.err
    if expected.returncode != 0:
        assert actual.returncode != 0, (
            f"gprof failed ({expected.err.strip()}) but gmonlens succeeded: {' '.join(actual.argv)}"
        )
        return expected, actual
    assert actual.returncode == 0, f"gmonlens failed ({actual.returncode}): {actual.err}"
    if expected.stdout != actual.stdout:
        diff = unified_diff(expected.stdout, actual.stdout, "gprof -b", "gmonlens report -b")
        pytest.fail(f"output differs for {' '.join(args)} in {cwd}:\n{diff}", pytrace=False)
    return expected, actual


# A call-graph line for a count-0 arc: "0.00 0.00 0/N name" or, inside a cycle, "0 name"
# (the children column is 4 wider in -T's layout).
_ZERO_ARC = re.compile(r"^ {16}(0\.00 {4}(?: {4})?0\.00 {7}0/\d+ +|(?: {19}| {23})0 {13})\S")


def compare_reports_x86_static(target: Target, args: Sequence[str], cwd: Path) -> None:
    """`-c` on x86: gmonlens also finds backward calls, which gprof's byte scan misses (a deliberate
    difference, README "-c"; pinned in test_static_calls.py). So require: both succeed, and
    gmonlens' report is gprof's plus count-0 arc lines only (which may replace `<spontaneous>`)."""
    expected = gprof(target, ["-b", *args], cwd)
    actual = gmonlens(["-b", *args], cwd)
    assert "Traceback" not in actual.err, actual.err
    assert expected.returncode == 0, expected.err
    assert actual.returncode == 0, f"gmonlens failed ({actual.returncode}): {actual.err}"
    want = expected.stdout.decode().splitlines()
    got = actual.stdout.decode().splitlines()
    bad = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, want, got, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        # a routine without parents (<spontaneous>) may get count-0 parents instead
        spontaneous = op == "replace" and all(line.strip() == "<spontaneous>" for line in want[i1:i2])
        allowed = op == "insert" or spontaneous
        if not allowed or not all(_ZERO_ARC.match(line) for line in got[j1:j2]):
            bad.append(f"{op} gprof[{i1}:{i2}] {want[i1:i2]!r} -> gmonlens[{j1}:{j2}] {got[j1:j2]!r}")
    if bad:
        diff = unified_diff(expected.stdout, actual.stdout, "gprof -b", "gmonlens report -b")
        pytest.fail("not only extra count-0 arcs:\n" + "\n".join(bad[:10]) + "\n" + diff, pytrace=False)


def nm_symbols(binary: Path, nm: str = "nm") -> dict[str, int]:
    """name -> address for the defined symbols `nm` lists (duplicates: first kept)."""
    out = subprocess.run([nm, "--defined-only", str(binary)], capture_output=True, text=True, check=True)
    syms: dict[str, int] = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms.setdefault(parts[2], int(parts[0], 16))
    return syms


class Workshop:
    """Builds (program, target, flags) once per session, lazily, and runs it once per label."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[tuple[str, str, tuple[str, ...]], Built] = {}

    def get(
        self,
        program: Program,
        target: Target = NATIVE,
        runs: dict[str, tuple[str, ...] | None] | None = None,
        extra_flags: tuple[str, ...] = (),
    ) -> Built:
        """The built program with one gmon file per run label (default: one run labelled 'out')."""
        reason = target.missing(cxx=program.is_cxx)
        if reason:
            pytest.skip(reason)
        key = (program.name, target.name, extra_flags)
        built = self.cache.get(key)
        if built is None:
            sub = f"{program.name}-{target.name}" + ("-" + "_".join(extra_flags) if extra_flags else "")
            built = build(program, target, self.root / sub.replace("/", "_"), extra_flags)
            self.cache[key] = built
        for label, args in (runs or {"out": None}).items():
            built.run(label, args)
        return built
