"""Bad input through the CLI: a clear one-line error naming the file, a non-zero exit, no
traceback, no hang, no big allocation. Arcs outside the program: the report plus a warning."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gprof_harness import GMONLENS, NATIVE, Built, Program, Result, Workshop, gmonlens, gprof

from gmonlens.common.errors import GmonlensError
from gmonlens.profile.gmon import parse_gmon
from gmonwriter import BB, Arc, GmonWriter, Hist, bsd_file, gnu_file

PROGRAM = Program("recursion", ("recursion.c",), args=("30000",))
OTHER = Program("cycles", ("cycles.c",), args=("40000",))


@pytest.fixture(scope="module")
def prog(workshop: Workshop) -> Built:
    return workshop.get(PROGRAM)


def assert_one_line_error(r: Result, path: str | Path) -> str:
    """Fatal: non-zero exit, exactly one stderr line naming `path`, no traceback, no stdout."""
    assert "Traceback" not in r.err, r.err
    assert r.returncode != 0, f"expected failure, got exit 0; stderr: {r.err!r}"
    lines = r.err.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {len(lines)}: {r.err!r}"
    assert str(path) in lines[0], f"stderr does not name {path}: {lines[0]!r}"
    return lines[0]


def bad_profile(tmp_path: Path, data: bytes, name: str = "bad.out") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_empty_profile(prog: Built, tmp_path: Path) -> None:
    p = bad_profile(tmp_path, b"")
    assert_one_line_error(gmonlens([str(prog.binary), str(p)], tmp_path), p)


@pytest.mark.parametrize("cut", [3, 19, 21, 33, 60, 300, -7, -1])
def test_truncated_profile(prog: Built, tmp_path: Path, cut: int) -> None:
    data = prog.gmon["out"].read_bytes()
    p = bad_profile(tmp_path, data[:cut])
    assert_one_line_error(gmonlens([str(prog.binary), str(p)], tmp_path), p)


def test_header_only_profile_says_so(prog: Built, tmp_path: Path) -> None:
    """20 bytes = a GNU header and no record: gprof prints nothing and exits 0, which reads as
    success (issue 33, item 12); we say it in one line and exit 1, as for an empty file."""
    p = bad_profile(tmp_path, prog.gmon["out"].read_bytes()[:20])
    expected = gprof(NATIVE, ["-b", str(prog.binary), str(p)], tmp_path)
    assert expected.returncode == 0 and expected.stdout == b""  # gprof's silence
    for args in (["-b"], [], ["--json"]):
        line = assert_one_line_error(gmonlens([*args, str(prog.binary), str(p)], tmp_path), p)
        assert line.endswith("no samples and no arcs (nothing after the file's header): nothing to report"), (
            line
        )
    both = gmonlens(["-b", str(prog.binary), str(p), str(prog.gmon["out"])], tmp_path)  # summed: a profile
    assert both.returncode == 0 and both.stdout


def _random_invalid(seed: int, size: int) -> bytes:
    """Seeded random bytes that the engine rejects (as almost all random bytes are)."""
    rng = random.Random(seed)
    while True:
        data = rng.randbytes(size)
        try:
            parse_gmon(data, path="x", address_size=8, little_endian=True)
        except GmonlensError:
            return data


@pytest.mark.parametrize(("seed", "size"), [(1, 7), (2, 64), (3, 4096), (4, 100_000)])
def test_random_profile(prog: Built, tmp_path: Path, seed: int, size: int) -> None:
    p = bad_profile(tmp_path, _random_invalid(seed, size))
    assert_one_line_error(gmonlens([str(prog.binary), str(p)], tmp_path), p)


@pytest.mark.parametrize("seed", [5, 6])
def test_random_body_behind_gnu_header(prog: Built, tmp_path: Path, seed: int) -> None:
    body = random.Random(seed).randbytes(5000)
    p = bad_profile(tmp_path, gnu_file([]) + bytes([7]) + body)  # tag 7 does not exist
    line = assert_one_line_error(gmonlens([str(prog.binary), str(p)], tmp_path), p)
    assert "tag" in line


def test_bad_version(prog: Built, tmp_path: Path) -> None:
    p = bad_profile(tmp_path, gnu_file([], version=9))
    assert_one_line_error(gmonlens([str(prog.binary), str(p)], tmp_path), p)


@pytest.mark.parametrize("bins", [2**31, 2**32 - 1])
def test_huge_histogram_fails_fast(prog: Built, tmp_path: Path, bins: int) -> None:
    """gprof hangs on this; gmonlens must refuse at once without allocating for 2^31 bins."""
    w = GmonWriter().gnu_header()
    w.u8(0)  # tag: histogram
    w.ptr(0)  # low_pc
    w.ptr(0x1448)  # high_pc
    w.u32(bins)  # hist_size: 2^31 bins claimed
    w.u32(100)  # prof_rate
    w.raw(b"seconds".ljust(15, b"\0") + b"s")  # dimen, dimen_abbrev
    w.raw(b"\0" * 200)  # a few bins only
    p = bad_profile(tmp_path, w.getvalue())
    r, _elapsed, peak_kb = run_measured([str(GMONLENS), "report", str(prog.binary), str(p)], tmp_path)
    assert_one_line_error(r, p)  # no hang: run_measured fails the test after 30 s
    assert peak_kb < 300_000, f"peak RSS {peak_kb} kB"


# Runs argv as a grandchild of a fresh Python and writes its peak RSS (kB) to argv[1]. Measured
# from here directly, the figure would not be the command's own: Linux carries the forking
# process's peak RSS into a forked child (the copied mm) and keeps it across exec (the signal
# struct's maxrss), so a pytest grown past the limit by earlier tests fails this test whatever
# the command does. The launcher is a fresh process of a few MB: what its child inherits is that.
_LAUNCH = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(argv: list[str], cwd: Path) -> tuple[Result, float, int]:
    """Run argv; return its result, wall time and its own peak RSS (kB; see _LAUNCH)."""
    out, err, peak = cwd / "stdout", cwd / "stderr", cwd / "peak_rss_kb"
    t0 = time.perf_counter()
    with out.open("wb") as o, err.open("wb") as e:
        launch = [sys.executable, "-I", "-c", _LAUNCH, str(peak), *argv]
        proc = subprocess.Popen(launch, cwd=cwd, stdout=o, stderr=e, start_new_session=True)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            pytest.fail(f"{argv} still running after 30 s")
    elapsed = time.perf_counter() - t0
    result = Result(tuple(argv), proc.returncode, out.read_bytes(), err.read_bytes())
    return result, elapsed, int(peak.read_text())


def test_binary_not_elf(prog: Built, tmp_path: Path) -> None:
    b = tmp_path / "notelf"
    b.write_text("#!/bin/sh\necho hello\n")
    assert_one_line_error(gmonlens([str(b), str(prog.gmon["out"])], tmp_path), b)


def test_binary_truncated_elf(prog: Built, tmp_path: Path) -> None:
    b = tmp_path / "half"
    b.write_bytes(prog.binary.read_bytes()[:100])
    assert_one_line_error(gmonlens([str(b), str(prog.gmon["out"])], tmp_path), b)


def test_stripped_binary(prog: Built, tmp_path: Path) -> None:
    if shutil.which("strip") is None:
        pytest.skip("strip (binutils) not installed")
    b = tmp_path / "stripped"
    shutil.copy(prog.binary, b)
    subprocess.run(["strip", str(b)], check=True)
    line = assert_one_line_error(gmonlens([str(b), str(prog.gmon["out"])], tmp_path), b)
    assert "symbol" in line


@pytest.mark.parametrize("direction", ["bigger-profile", "smaller-profile"])
def test_profile_of_another_program(workshop: Workshop, prog: Built, tmp_path: Path, direction: str) -> None:
    """gprof prints a report of nonsense and says nothing; gmonlens must say the profile does not
    fit. `cycles` has more code than `recursion`, so its histogram is too big for it, and
    recursion's histogram too small for cycles."""
    other = workshop.get(OTHER)
    binary, p = (
        (prog.binary, other.gmon["out"])
        if direction == "bigger-profile"
        else (other.binary, prog.gmon["out"])
    )
    r = gmonlens([str(binary), str(p)], tmp_path)
    assert "Traceback" not in r.err
    lines = r.err.splitlines()
    assert lines, "no diagnostic for a profile of another program"
    assert any(str(p) in ln or p.name in ln for ln in lines), r.err
    assert "fit" in r.err or "another program" in r.err, r.err


def test_missing_binary(prog: Built, tmp_path: Path) -> None:
    b = tmp_path / "nope"
    assert_one_line_error(gmonlens([str(b), str(prog.gmon["out"])], tmp_path), b)


def test_missing_profile(prog: Built, tmp_path: Path) -> None:
    p = tmp_path / "nope.out"
    assert_one_line_error(gmonlens([str(prog.binary), str(p)], tmp_path), p)


def test_missing_second_profile(prog: Built, tmp_path: Path) -> None:
    p = tmp_path / "second.out"
    assert_one_line_error(gmonlens([str(prog.binary), str(prog.gmon["out"]), str(p)], tmp_path), p)


def test_defaults_missing(tmp_path: Path) -> None:
    """No arguments: a.out and gmon.out in the current directory, as gprof."""
    r = gmonlens([], tmp_path)
    assert_one_line_error(r, "a.out")


def test_default_profile_name(prog: Built, tmp_path: Path) -> None:
    shutil.copy(prog.binary, tmp_path / "a.out")
    shutil.copy(prog.gmon["out"], tmp_path / "gmon.out")
    expected = gprof(NATIVE, ["-b"], tmp_path)
    actual = gmonlens(["-b"], tmp_path)
    assert actual.returncode == 0, actual.err
    assert actual.stdout == expected.stdout


def test_directory_as_binary(prog: Built, tmp_path: Path) -> None:
    assert_one_line_error(gmonlens([str(tmp_path), str(prog.gmon["out"])], tmp_path), tmp_path)


def test_directory_as_profile(prog: Built, tmp_path: Path) -> None:
    d = tmp_path / "dir.out"
    d.mkdir()
    assert_one_line_error(gmonlens([str(prog.binary), str(d)], tmp_path), d)


def test_arcs_outside_program(prog: Built, tmp_path: Path) -> None:
    """Arcs whose ends lie outside every routine: gprof drops them silently; gmonlens prints the
    same report and warns once on stderr."""
    data = prog.gmon["out"].read_bytes()
    extra = gnu_file(
        [Arc(0x7FFF_0000_1000, 0x11D7, 5), Arc(0x1220, 0x7FFF_0000_2000, 9), Arc(0x10, 0x20, 1)]
    )[20:]  # records only, no header
    p = bad_profile(tmp_path, data + extra, "outside.out")
    expected = gprof(NATIVE, ["-b", str(prog.binary), str(p)], tmp_path)
    actual = gmonlens(["-b", str(prog.binary), str(p)], tmp_path)
    assert "Traceback" not in actual.err
    assert actual.returncode == 0, actual.err
    assert actual.stdout == expected.stdout
    lines = actual.err.splitlines()
    assert len(lines) == 1, f"expected one warning line, got {actual.err!r}"
    assert "arc" in lines[0], lines[0]


# ---------------------------------------------------------------------------------------------------
# gprof's refusals when summing several files: both tools fail; gmonlens says why in one line.
# ---------------------------------------------------------------------------------------------------
def _refusal_files(kind: str, tmp_path: Path) -> list[Path]:
    end = 0x1448  # the recursion program's glibc high_pc region; exact value irrelevant here
    if kind == "scales":
        a, b = Hist(0, end, [1] * (end // 4)), Hist(0, end, [1] * (end // 8))
        datas = [gnu_file([a]), gnu_file([b])]
    elif kind == "overlap":
        a, b = Hist(0, end, [1] * (end // 4)), Hist(0x800, end + 0x800, [1] * (end // 4))
        datas = [gnu_file([a]), gnu_file([b])]
    elif kind == "bsd-headers":
        a, b = Hist(0, end, [1] * (end // 4)), Hist(0, end, [1] * (end // 4 + 8))
        datas = [bsd_file(a, bsd44=False), bsd_file(b, bsd44=False)]
    else:  # bsd44-rates
        a, b = Hist(0, end, [1] * (end // 4), prof_rate=100), Hist(0, end, [1] * (end // 4), prof_rate=1000)
        datas = [bsd_file(a), bsd_file(b)]
    paths = []
    for i, d in enumerate(datas):
        paths.append(bad_profile(tmp_path, d, f"{kind}{i}.out"))
    return paths


@pytest.mark.parametrize("kind", ["scales", "overlap", "bsd-headers", "bsd44-rates"])
def test_summing_refusals(prog: Built, tmp_path: Path, kind: str) -> None:
    paths = _refusal_files(kind, tmp_path)
    argv = [str(prog.binary), *map(str, paths)]
    expected = gprof(NATIVE, ["-b", *argv], tmp_path)
    assert expected.returncode != 0, f"gprof accepted {kind}: {expected.stdout[:200]!r}"
    actual = gmonlens(["-b", *argv], tmp_path)
    assert_one_line_error(actual, paths[1])


@pytest.mark.parametrize("with_profile", [True, False], ids=["after-profile", "bb-only"])
def test_basic_block_records_ignored(prog: Built, tmp_path: Path, with_profile: bool) -> None:
    """Tag-2 records: gprof warns "ignoring basic-block exec counts" and prints the same report."""
    bb = GmonWriter().gnu_bb(BB([(0x1220, 5), (0x1300, 7)])).getvalue()  # a tag 2 record
    head = prog.gmon["out"].read_bytes() if with_profile else gnu_file([])
    p = bad_profile(tmp_path, head + bb, "bb.out")
    expected = gprof(NATIVE, ["-b", str(prog.binary), str(p)], tmp_path)
    actual = gmonlens(["-b", str(prog.binary), str(p)], tmp_path)
    assert "Traceback" not in actual.err
    assert actual.returncode == expected.returncode == 0, actual.err
    assert actual.stdout == expected.stdout
