"""The pieces of `gmonlens record` that need no compiler: producers' options, glibc's call-graph
buffer and the call-site estimate, the process log, the environment, COMMAND's resolution, DIR's
checks, the repeat loop's error, the argument parser, and a crafted profile with a rate of 0."""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

import pytest

from elfwriter import ElfSym, elf_file
from gmonlens.binary.image import ElfImage
from gmonlens.commands.record_command import parse_record_args
from gmonlens.common.errors import GmonlensError, UsageError
from gmonlens.common.model import CodeSection, ElfSymbol
from gmonlens.runs.arcs import ArcPlan, call_sites, glibc_arc_limit, histogram_span, plan_arcs
from gmonlens.runs.collect import Identifier
from gmonlens.runs.command import CommandNotFound, NotExecutable, interpreter_program, resolve_command
from gmonlens.runs.diagnose import Facts, diagnose
from gmonlens.runs.launch import record_environment
from gmonlens.runs.outdir import open_record_dir
from gmonlens.runs.preflight import compiled_with_pg
from gmonlens.runs.processes import descendants, histories, parse_log
from gmonlens.runs.summary import BinarySummary, TopRoutine, hottest, summarize, worst_error
from gmonwriter import Arc, Hist, gnu_file


@pytest.mark.parametrize(
    ("producer", "verdict"),
    [
        (
            "GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -p -fasynchronous-unwind-tables",
            True,
        ),  # GCC 12's -pg
        ("GNU C11 7.5.0 -mtune=generic -g -pg -O2", True),
        ("GNU C++17 12.2.0 -mtune=generic -g -O2", False),
        ("GNU C17 12.2.0 -g -fprofile-arcs -pie", False),  # -fprofile-* and -pie are not -p
        ("GNU C17 12.2.0", None),  # -gno-record-gcc-switches
        ("GNU AS 2.40", None),
        ("clang version 14.0.6", None),
        ("", None),
    ],
)
def test_producer_options(producer: str, verdict: bool | None) -> None:
    assert compiled_with_pg(producer) is verdict


def image(
    code: bytes, symbols: list[tuple[str, int]], machine: str = "EM_X86_64", start: int = 0x400000
) -> ElfImage:
    syms = tuple(ElfSymbol(n, 0, v, "T", True) for n, v in symbols)
    return ElfImage("/p", machine, 8, True, syms, b"", 0x401000, 0x401000 + len(code),
                    (CodeSection(".text", 0x401000, code),), False, None, start)  # fmt: skip


def test_glibc_buffer_size_as_measured() -> None:
    # measured on glibc 2.36: a 56,136-byte histogram range held 1,684 entries (1,683 arcs)
    assert glibc_arc_limit(56136) == 1684
    assert glibc_arc_limit(100) == 50 and glibc_arc_limit(1 << 40) == 1 << 20
    im = image(b"\x90" * 0x101, [("main", 0x401000)])
    assert histogram_span(im) == 0x1104  # 0x400000 .. 0x401101 rounded up to 4


def x86_call(at: int, target: int) -> bytes:
    return b"\xe8" + struct.pack("<i", target - (at + 5))


def test_x86_call_sites_count_calls_to_entries() -> None:
    base, f, g = 0x401000, 0x401100, 0x401200
    code = bytearray(b"\x90" * 0x300)
    for at in (0x10, 0x20, 0x30):
        code[at : at + 5] = x86_call(base + at, f)
    code[0x40:0x45] = x86_call(base + 0x40, g + 1)  # not an entry: not a call site to count
    code[0x50:0x52] = b"\xff\xd0"  # call *%rax
    im = image(bytes(code), [("main", base), ("f", f), ("g", g)])
    assert call_sites(im) == (3, 1)


def test_aarch64_call_sites() -> None:
    base, f = 0x401000, 0x401100
    words = [0xD503201F] * 0x80  # nop
    words[4] = 0x94000000 | ((f - (base + 16)) // 4)  # bl f
    words[5] = 0x94000000 | ((f - (base + 20)) // 4)
    words[6] = 0xD63F0020  # blr x1
    im = image(struct.pack("<128I", *words), [("main", base), ("f", f)], machine="EM_AARCH64")
    assert call_sites(im) == (2, 1)


def test_buffer_sized_only_past_glibc_default() -> None:
    base = 0x401000
    code = bytearray(b"\x90" * 0x8000)
    entries = [base + 0x4000 + 16 * i for i in range(64)]
    for i in range(700):  # 700 call sites: fewer than glibc's 1,105 entries for a 36 KiB range
        at = 5 * i
        code[at : at + 5] = x86_call(base + at, entries[i % 64])
    im = image(bytes(code), [("main", base)] + [(f"f{i}", e) for i, e in enumerate(entries)])
    small = plan_arcs(im, None)
    assert small.default_limit == glibc_arc_limit(0x9000) and small.requested is None
    for i in range(700, 1600):
        at = 5 * i
        code[at : at + 5] = x86_call(base + at, entries[i % 64])
    big = plan_arcs(
        image(bytes(code), [("main", base)] + [(f"f{i}", e) for i, e in enumerate(entries)]), None
    )
    assert big.direct_sites == 1600 and big.requested == big.estimate and big.requested > big.default_limit
    assert plan_arcs(im, "default").requested is None
    assert plan_arcs(im, 5000).requested == 5000


def test_process_log() -> None:
    data = (
        b"10\t1\tstart\t0\t0\t/bin/sh\0"
        b"10\t1\tstart\t0\t0\t/w/prog\0"
        b"11\t10\tfork\t0\t0\t/w/prog\0"
        b"10\t1\tarcs\t1684\t5000\t/w/prog\0"
        b"11\t10\texit\t250000\t50000\t/w/prog\0"
        b"10\t1\tsignal\t15\t0\t/w/prog\0"
        b"garbage\0"
        b"12\t1\tstart\t0\t0\t/with\ttab\0"
    )
    h = histories(parse_log(data))
    assert h[10].programs == ("/bin/sh", "/w/prog") and h[10].signal == 15 and h[10].arcs == (1684, 5000)
    assert not h[10].exited
    assert h[11].ppid == 10 and h[11].exited and h[11].cpu_seconds == pytest.approx(0.3)
    assert h[12].programs == ("/with\ttab",)
    assert (
        descendants(h, 10) == {10, 11} and descendants(h, 1) == {1, 10, 11, 12} and descendants(h, 11) == {11}
    )


def test_environment_adds_to_the_users() -> None:
    env = record_environment(
        {"LD_PRELOAD": "/u/libfake.so", "GLIBC_TUNABLES": "glibc.malloc.check=3", "PATH": "/bin"},
        "/d/gmon.out",
        log="/d/.record-processes",
        preload="/c/lib.so",
        on_signal_exit=True,
        arcs=5000,
    )
    assert env["GMON_OUT_PREFIX"] == "/d/gmon.out" and env["PATH"] == "/bin"
    assert env["LD_PRELOAD"] == "/u/libfake.so:/c/lib.so"
    assert env["GLIBC_TUNABLES"] == "glibc.malloc.check=3:glibc.gmon.minarcs=5000:glibc.gmon.maxarcs=1048576"
    assert env["GMONLENS_RECORD_SIGNALS"] == "exit" and env["GMONLENS_RECORD_ARCS"] == "5000"
    plain = record_environment({}, "/d/gmon.out")
    assert plain == {"GMON_OUT_PREFIX": "/d/gmon.out"}


def make_exe(path: Path, text: bytes = b"\x7fELF" + b"\0" * 60) -> Path:
    path.write_bytes(text)
    path.chmod(0o755)
    return path


def test_command_resolution(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    make_exe(bin_dir / "tool")
    make_exe(tmp_path / "run.sh", b"#!/usr/bin/env  python3 -u\nprint()\n")
    (tmp_path / "data.txt").write_text("x")
    env = {"PATH": f"/nonexistent:{bin_dir}"}
    found = resolve_command(["tool", "-x"], str(tmp_path), env)
    assert found.path == str(bin_dir / "tool") and found.kind == "elf" and found.argv == ("tool", "-x")
    script = resolve_command(["./run.sh"], str(tmp_path), env)
    assert script.kind == "script" and script.interpreter == ("/usr/bin/env", "python3 -u")
    assert interpreter_program(script, str(tmp_path), {"PATH": str(bin_dir)}) is None  # no python3 there
    make_exe(bin_dir / "python3")
    assert interpreter_program(script, str(tmp_path), {"PATH": str(bin_dir)}) == str(bin_dir / "python3")
    with pytest.raises(CommandNotFound, match="command not found in PATH"):
        resolve_command(["nosuch"], str(tmp_path), env)
    with pytest.raises(NotExecutable, match="not an executable"):
        resolve_command(["./data.txt"], str(tmp_path), env)
    with pytest.raises(CommandNotFound, match="no command"):
        resolve_command([], str(tmp_path), env)


def test_record_dir_checks(tmp_path: Path) -> None:
    d = open_record_dir("new/sub", str(tmp_path))
    assert d.created and stat.S_IMODE(os.stat(d.path).st_mode) == 0o700
    assert d.prefix == str(tmp_path / "new" / "sub" / "gmon.out")
    d.close()
    (tmp_path / "link").symlink_to(tmp_path / "new")
    with pytest.raises(GmonlensError, match="is a symbolic link"):
        open_record_dir("link", str(tmp_path))
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(GmonlensError, match="writable by other users"):
        open_record_dir(str(shared), "/")
    (tmp_path / "file").write_text("")
    with pytest.raises(GmonlensError, match="not a directory"):
        open_record_dir("file", str(tmp_path))


def test_record_dir_keeps_what_it_did_not_write(tmp_path: Path) -> None:
    with open_record_dir("out", str(tmp_path)) as d:
        out = Path(d.path)
        (out / "gmon.out.1").write_bytes(b"old, ours")
        (out / "gmon.out.2").write_bytes(b"old, the user's")
        (out / "gmon.out.3").symlink_to(out / "gmon.out.2")
        (out / "record.json").write_text(
            '{"profiles": [{"path": "/x/gmon.out.1"}, {"path": "/x/gmon.out.3"}, {"path": "/etc/passwd"}]}'
        )
        assert d.clear_previous() == 1  # gmon.out.3 is a link: not deleted
        assert (
            not (out / "gmon.out.1").exists()
            and (out / "gmon.out.2").exists()
            and (out / "gmon.out.3").is_symlink()
        )
        before = d.snapshot()
        assert set(before) == {"gmon.out.2"}  # links are not profiles
        (out / "gmon.out.44").write_bytes(b"new")
        os.utime(out / "gmon.out.2", ns=(1, 1))
        assert d.new_profiles(before) == [(str(out / "gmon.out.2"), 2), (str(out / "gmon.out.44"), 44)]
        log = d.new_log()
        assert stat.S_IMODE(os.stat(log).st_mode) == 0o600 and d.read_log() == b""
        (out / "record.json").unlink()
        (out / "record.json").symlink_to(tmp_path / "elsewhere")
        with pytest.raises(GmonlensError):
            d.write_manifest(b"{}")
        assert not (tmp_path / "elsewhere").exists()


def bs(samples: list[float]) -> BinarySummary:
    top = tuple(
        TopRoutine(f"r{i}", s / 100, 0.0, s, 100 / s**0.5 if s else None, 0, None, 0)
        for i, s in enumerate(samples)
    )
    return BinarySummary("/p", (), (), float(sum(samples)), 100, True, 0, top)


def test_hottest_routines_and_their_error() -> None:
    s = bs([400.0, 300.0, 200.0, 50.0, 50.0])  # 10% of 1,000 is 100: the first three
    assert [r.name for r in hottest(s)] == ["r0", "r1", "r2"]
    assert worst_error(s) == pytest.approx(100 / 200**0.5)
    assert [r.name for r in hottest(bs([30.0] + [20.0] * 30))] == ["r0"]  # none holds 10%: the first
    assert worst_error(bs([0.0])) is None


def test_record_arguments() -> None:
    a = parse_record_args(
        ["--out", "d", "--json", "--precision", "5%", "--runs=9", "--on-signal=exit", "--", "./p", "-o", "x"]
    )
    assert (a.out, a.json, a.precision, a.runs, a.on_signal_exit, a.command) == (
        "d",
        True,
        5.0,
        9,
        True,
        ["./p", "-o", "x"],
    )
    b = parse_record_args(["-o", "d", "--arcs", "default", "--binary", "x", "--binary", "y", "make", "-j4"])
    assert (b.arcs, b.binaries, b.command) == ("default", ["x", "y"], ["make", "-j4"])
    assert parse_record_args(["--arcs=70000", "p"]).arcs == 70000
    for bad in (["--runs", "x", "p"], ["--on-signal=ignore", "p"], ["--bogus", "p"], ["--json"], ["--out"]):
        with pytest.raises(UsageError):
            parse_record_args(bad)


def test_a_profile_with_rate_zero_is_found_named_and_said(tmp_path: Path) -> None:
    text = b"\xc3" * 0x40
    exe = tmp_path / "prog"
    exe.write_bytes(
        elf_file(0x401000, text, [ElfSym("main", 0x401000, 0x20), ElfSym("work", 0x401020, 0x20)])
    )
    gmon = tmp_path / "gmon.out.77"
    gmon.write_bytes(
        gnu_file(
            [Hist(0x400000, 0x401040, [0] * 0x808 + [5, 0] * 8, prof_rate=0), Arc(0x401010, 0x401024, 3)]
        )
    )
    found = Identifier(None, [str(exe)]).identify(str(gmon), 77, 1, None, [])
    assert found.binary == str(exe) and found.rate_zero and found.found_by == "named" and found.samples == 40
    summed = summarize(str(exe), [str(gmon)], [77])
    from gmonlens.runs.command import ResolvedCommand

    rec = Facts(
        ResolvedCommand(("sh",), "/bin/sh", "elf"), None, (), (found,), (summed,), {}, {}, False, None, False
    )
    assert [d.code for d in diagnose(rec)] == ["rate_zero"]
    assert ArcPlan(1, 2, 3, None).estimate == 6


def test_record_usage_and_exit_statuses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from gmonlens.commands.dispatch import run

    assert run(["record"]) == 2 and "usage: gmonlens record" in capsys.readouterr().err
    assert run(["record", "--help"]) == 0 and "exit status:" in capsys.readouterr().out
    assert run(["record", "--bogus", "x"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "gmonlens record: unknown option '--bogus' (gmonlens record --help)"
    )
    assert run(["record", "--out", str(tmp_path / "o"), "--", "/nonexistent/prog"]) == 127
    assert "command not found" in capsys.readouterr().err
    (tmp_path / "data").write_text("")
    assert run(["record", "--out", str(tmp_path / "o"), "--", str(tmp_path / "data")]) == 126
    assert "is not an executable regular file" in capsys.readouterr().err
