"""`gmonlens record` on programs built with gcc at test time: each broken set-up is recorded and
checked by its diagnosis code; working ones leave the profiles expected (per process and binary)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gprof_harness import GMONLENS

from gmonlens.runs.outdir import PROFILE_NAME
from gmonwriter import Hist, gnu_file
from routine_keys import named

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")
TIMEOUT = 300

SPIN = """
volatile unsigned long sink;
__attribute__((noinline)) void spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
"""
SOURCES = {
    "plain.c": SPIN + "int main(void) { spin(20000000); return 0; }\n",
    "tiny.c": SPIN + "int main(void) { spin(1000); return 0; }\n",
    "selfstop.c": SPIN
    + textwrap.dedent("""
        #include <signal.h>
        #include <stdlib.h>
        #include <unistd.h>
        int main(int argc, char **argv) {
          spin(3000000);
          if (argc > 1 && argv[1][0] == '_') _exit(0);
          if (argc > 1) raise(atoi(argv[1]));
          return 0;
        }
        """),
    "forker.c": SPIN
    + textwrap.dedent("""
        #include <sys/stat.h>
        #include <sys/wait.h>
        #include <unistd.h>
        __attribute__((noinline)) void parent_work(void) { spin(2000000); }
        __attribute__((noinline)) void child_work(void) { spin(2000000); }
        int main(int argc, char **argv) {
          if (argc > 1 && chdir(argv[1]) != 0) return 3;  /* a directory it cannot write */
          pid_t p = fork();
          if (p == 0) { child_work(); return 0; }
          parent_work();
          waitpid(p, 0, 0);
          return 0;
        }
        """),
    "forever.c": SPIN
    + textwrap.dedent("""
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {
          for (int i = 0;; i++) {
            spin(100000);
            usleep(2000);
            if (i == 20) fprintf(stderr, "started\\n");  /* 21 calls counted by now */
          }
        }
        """),
    "libwork.c": "volatile double acc;\nvoid lib_work(long n) { for (long i = 0; i < n; i++) acc += (double)i * 0.5; }\n",
    "uselib.c": SPIN
    + "void lib_work(long n);\nint main(void) { spin(30000000); lib_work(300000000L); return 0; }\n",
    "unit_a.c": SPIN
    + "int b_fn(int); int c_fn(int);\nint main(void) { spin(100000); return b_fn(1) + c_fn(2) > 100; }\n",
    "unit_b.c": "int b_fn(int x) { return x + 1; }\n",
    "unit_c.c": "int c_fn(int x) { return x * 2; }\n",
    "notimer.c": SPIN
    + textwrap.dedent("""
        #include <sys/time.h>
        int main(void) {
          struct itimerval off = {{0, 0}, {0, 0}};
          setitimer(ITIMER_PROF, &off, 0);  /* the profiling clock stopped, as WSL1 never starts it */
          spin(400000000UL);
          return 0;
        }
        """),
    "hot.c": SPIN
    + "__attribute__((noinline)) void hot(void) { spin(150000000); }\nint main(void) { hot(); return 0; }\n",
}


def _table_program(n: int) -> str:
    """More arcs than glibc's buffer holds, through one call site (a table of n functions): the
    call-site estimate cannot see them."""
    fns = "".join(f"int f{i}(int x) {{ return x + {i}; }}\n" for i in range(n))
    table = "typedef int (*fp)(int);\nfp tab[] = {" + ",".join(f"f{i}" for i in range(n)) + "};\n"
    loops = "".join(f"  for (int i = 0; i < {n}; i++) s += tab[i](i);\n" for _ in range(2))
    return (
        fns
        + table
        + "volatile int sink;\nint main(void) {\n  int s = 0;\n"
        + loops
        + "  sink = s;\n  return 0;\n}\n"
    )


def _direct_program(n: int, rounds: int) -> str:
    """n functions, each called directly from `rounds` call sites: n * rounds arcs, more than
    glibc's 3% of the code when rounds is 3; the estimate sees every one."""
    fns = "".join(f"__attribute__((noinline)) int f{i}(int x) {{ return x + {i}; }}\n" for i in range(n))
    calls = "".join(f" s += f{i}(s);" for _ in range(rounds) for i in range(n))
    return "volatile int sink;\n" + fns + "int main(void) { int s = 0;" + calls + " sink = s; return 0; }\n"


@dataclass(frozen=True)
class Built:
    dir: Path

    def __getitem__(self, name: str) -> Path:
        return self.dir / name


def _cc(out: Path, *args: str, cwd: Path) -> None:
    subprocess.run(["gcc", "-g", "-O0", "-o", str(out), *args], cwd=cwd, check=True, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    d = tmp_path_factory.mktemp("record-programs")
    for name, text in SOURCES.items():
        (d / name).write_text(text)
    (d / "table.c").write_text(_table_program(1000))
    (d / "direct.c").write_text(_direct_program(2000, 3))
    for prog in ("plain", "tiny", "selfstop", "forker", "notimer", "hot", "table", "direct", "forever"):
        _cc(d / prog, "-pg", f"{prog}.c", cwd=d)
    _cc(d / "nopg", "plain.c", cwd=d)  # neither compiled nor linked with -pg
    subprocess.run(["gcc", "-g", "-c", "plain.c", "-o", "plain_nopg.o"], cwd=d, check=True)
    _cc(d / "compiled_without", "-pg", "plain_nopg.o", cwd=d)  # linked with -pg only
    subprocess.run(["gcc", "-g", "-pg", "-c", "plain.c", "-o", "plain_pg.o"], cwd=d, check=True)
    _cc(d / "linked_without", "plain_pg.o", cwd=d)  # compiled with -pg only
    for unit, flags in (("unit_a", ["-pg"]), ("unit_b", []), ("unit_c", [])):
        subprocess.run(["gcc", "-g", *flags, "-c", f"{unit}.c", "-o", f"{unit}.o"], cwd=d, check=True)
    _cc(d / "units", "-pg", "unit_a.o", "unit_b.o", "unit_c.o", cwd=d)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", "libwork.so", "libwork.c"], cwd=d, check=True)
    _cc(d / "uselib", "-pg", "uselib.c", "-L.", "-lwork", f"-Wl,-rpath,{d}", cwd=d)
    return Built(d)


@dataclass(frozen=True)
class Recorded:
    status: int
    doc: dict[str, Any]
    err: str

    @property
    def codes(self) -> list[str]:
        return [d["code"] for d in self.doc["diagnosis"]]

    def finding(self, code: str) -> dict[str, Any]:
        return next(d for d in self.doc["diagnosis"] if d["code"] == code)


def record(
    cwd: Path, argv: Sequence[str], *options: str, out: str = "rec", env: dict[str, str] | None = None
) -> Recorded:
    r = subprocess.run(
        [str(GMONLENS), "record", "--json", "--out", out, *options, "--", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
        check=False,
    )
    assert "Traceback" not in r.stderr, r.stderr
    return Recorded(r.returncode, json.loads(r.stdout), r.stderr)


def test_a_working_program(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["plain"])])
    assert r.status == 0 and r.doc["usable"] and r.doc["schema"] == "gmonlens-record/1"
    (p,) = r.doc["profiles"]
    assert p["binary"] == str(built["plain"]) and p["fit"] == "exact" and p["found_by"] == "process log"
    assert Path(p["path"]).parent == tmp_path / "rec" and PROFILE_NAME.fullmatch(Path(p["path"]).name)
    assert p["pid"] == r.doc["runs"][0]["pid"] and Path(p["path"]).name == f"gmon.out.{p['pid']}"
    assert stat_mode(tmp_path / "rec") == 0o700
    (b,) = r.doc["binaries"]
    assert named(b["top"], "name")["spin"]["calls"] == 1
    assert r.doc["runs"][0]["cpu_seconds"] > 0
    manifest = json.loads((tmp_path / "rec" / "record.json").read_text())
    assert manifest == r.doc
    # the report command it gives reads the profile
    report = subprocess.run(
        [str(GMONLENS), *b["report"][1:]],
        capture_output=True,
        text=True,
        check=True,
        timeout=TIMEOUT,
        cwd=tmp_path,
    )
    assert "spin" in report.stdout
    # a second recording replaces the first's profiles
    again = record(tmp_path, [str(built["plain"])])
    assert [x["path"] for x in again.doc["profiles"]] != [p["path"]] and not Path(p["path"]).exists()


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_pg_missing_at_compile_and_link(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["nopg"])])
    assert r.status == 125 and not r.doc["usable"] and r.codes == ["no_profiling_calls"]
    assert "compiled and linked without -pg" in r.finding("no_profiling_calls")["message"]
    assert "gmonlens record: no usable profile:" in r.err


def test_pg_missing_at_compile(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["compiled_without"])])
    assert "no_profiling_calls" in r.codes
    assert "linked with -pg but compiled without it" in r.finding("no_profiling_calls")["message"]
    assert r.doc["profiles"] and r.doc["profiles"][0]["arcs"] == 0


def test_pg_missing_at_link(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["linked_without"])])
    assert r.status == 125 and r.codes == ["not_linked_with_pg"] and r.doc["profiles"] == []
    assert r.doc["preflight"]["profiling_calls"] == ["mcount"] and not r.doc["preflight"]["startup_linked"]


def test_units_without_pg_are_named(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["units"])])
    assert (
        r.status == 0
        and r.codes[0] == "units_without_pg"
        and set(r.codes) <= {"units_without_pg", "few_samples"}
    )
    assert sorted(u["name"] for u in r.doc["preflight"]["units_without_pg"]) == ["unit_b.c", "unit_c.c"]
    assert r.finding("units_without_pg")["message"].startswith(
        "2 of 3 units were compiled without -pg: unit_b.c, unit_c.c"
    )


def test_killed_by_sigterm_and_saved_by_on_signal_exit(built: Built, tmp_path: Path) -> None:
    killed = record(tmp_path, [str(built["selfstop"]), "15"])
    assert (
        killed.status == 125
        and killed.codes == ["killed_by_signal"]
        and killed.doc["runs"][0]["signal"] == "SIGTERM"
    )
    assert "--on-signal=exit" in killed.finding("killed_by_signal")["fix"]
    rerun = killed.finding("killed_by_signal")["rerun"]
    assert rerun == ["--on-signal=exit"]  # what an editor's "Record again" button adds
    saved = record(tmp_path, [str(built["selfstop"]), "15"], *rerun)
    assert saved.status == 143 and saved.doc["usable"]  # the command's own status: exit(128 + 15)
    assert "stopped_by_signal" in saved.codes and set(saved.codes) <= {"stopped_by_signal", "few_samples"}
    assert named(saved.doc["binaries"][0]["top"], "name")["spin"]["calls"] == 1


def test_sigterm_to_gmonlens_reaches_the_program(built: Built, tmp_path: Path) -> None:
    """A supervisor (a CI timeout) stops gmonlens: the program gets the signal, writes its profile
    with --on-signal=exit, and gmonlens reports."""
    proc = subprocess.Popen(
        [str(GMONLENS), "record", "--json", "--out", "rec", "--on-signal=exit", "--", str(built["forever"])],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = "-"
    while line and "started" not in line:  # the program runs (its stderr passes through)
        line = proc.stderr.readline()
    assert line, "the program never started"
    proc.send_signal(signal.SIGTERM)
    out, _err = proc.communicate(timeout=TIMEOUT)
    doc = json.loads(out)
    assert proc.returncode == 143 and doc["usable"] and doc["runs"][0]["interrupted"] == "SIGTERM"
    assert "stopped_by_signal" in [d["code"] for d in doc["diagnosis"]]
    assert named(doc["binaries"][0]["top"], "name")["spin"]["calls"] > 20


def test_exit_through_underscore_exit(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["selfstop"]), "_"])
    assert r.status == 125 and r.codes == ["exited_without_profile"]
    assert "_exit()" in r.finding("exited_without_profile")["message"]


def test_chdir_into_a_read_only_directory(built: Built, tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    r = record(tmp_path, [str(built["forker"]), str(ro)])
    assert r.status == 0 and r.doc["usable"] and len(r.doc["profiles"]) == 2
    assert list(ro.iterdir()) == []  # nothing written where the program ran
    assert all(Path(p["path"]).parent == tmp_path / "rec" for p in r.doc["profiles"])


def test_fork_without_exec_gives_two_profiles_kept_apart(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["forker"])])
    profiles = r.doc["profiles"]
    assert len(profiles) == 2 and len({p["pid"] for p in profiles}) == 2
    assert {p["binary"] for p in profiles} == {str(built["forker"])} and all(
        p["fit"] == "exact" for p in profiles
    )
    parent = r.doc["runs"][0]["pid"]
    child = next(p["pid"] for p in profiles if p["pid"] != parent)
    assert next(h for h in r.doc["processes"] if h["pid"] == child)["ppid"] == parent
    (b,) = r.doc["binaries"]
    assert sorted(b["pids"]) == sorted(p["pid"] for p in profiles) and len(b["profiles"]) == 2
    calls = named(b["top"], "name")
    assert [calls[n]["calls"] for n in ("parent_work", "child_work", "spin")] == [1, 1, 2]  # summed


def test_time_in_a_shared_library(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["uselib"])])
    assert r.doc["usable"] and "time_outside_program" in r.codes
    message = r.finding("time_outside_program")["message"]
    share = int(message.split("% of it went outside")[0].rsplit(" ", 1)[1])
    assert share > 50, message


def test_a_tiny_program_has_few_samples(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["tiny"])])
    assert r.doc["binaries"][0]["samples"] < 10 and "few_samples" in r.codes
    assert r.finding("few_samples")["rerun"] == ["--precision=5%"]
    assert r.doc["usable"]  # its call counts are there


def test_no_profiling_timer(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["notimer"])])
    assert r.doc["runs"][0]["cpu_seconds"] >= 0.2 and r.doc["binaries"][0]["samples"] == 0
    assert r.codes == ["no_profiling_timer"]
    assert "the profiling clock ticks on this system" in r.finding("no_profiling_timer")["message"]


def test_call_graph_overflow_said_and_fixed(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["table"])])
    assert r.status == 125 and r.codes == ["arcs_overflow"]
    assert "call graph buffer size limit exceeded" in r.doc["runs"][0]["glibc_messages"][0]
    rerun = r.finding("arcs_overflow")["rerun"]
    assert len(rerun) == 1 and rerun[0].startswith("--arcs=")
    again = record(tmp_path, [str(built["table"])], *rerun)  # the editor's "Record again" button
    assert again.doc["usable"] and "arcs_overflow" not in again.codes
    fixed = record(tmp_path, [str(built["table"])], "--arcs", "4000")
    assert fixed.status == 0 and fixed.doc["usable"] and fixed.codes in ([], ["few_samples"])
    assert fixed.doc["binaries"][0]["calls"] == 2000
    assert fixed.doc["processes"][0]["arcs_buffer"][1] == 4000


def test_call_graph_sized_from_the_binary(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["direct"])])
    arcs = r.doc["preflight"]["arcs"]
    assert arcs["direct_call_sites"] >= 6000 > arcs["glibc_limit"] and arcs["requested"] >= 6000
    assert r.status == 0 and r.doc["usable"] and r.doc["binaries"][0]["calls"] == 6000
    default = record(tmp_path, [str(built["direct"])], "--arcs", "default")
    assert default.codes == ["arcs_overflow"]


def test_a_crafted_profile_with_rate_zero(built: Built, tmp_path: Path) -> None:
    plain = record(tmp_path, [str(built["plain"])], out="first")
    real = Path(plain.doc["profiles"][0]["path"]).read_bytes()
    low, high = _hist_range(real)
    crafted = tmp_path / "crafted"
    crafted.write_bytes(gnu_file([Hist(low, high, [0] * ((high - low) // 4) + [7], prof_rate=0)]))
    shell = f'cat {crafted} > "$GMON_OUT_PREFIX.$$"'
    r = record(tmp_path, ["sh", "-c", shell], "--binary", str(built["plain"]))
    assert (
        r.doc["profiles"][0]["binary"] == str(built["plain"]) and r.doc["profiles"][0]["found_by"] == "named"
    )
    assert "rate_zero" in r.codes and r.status == 125


def _hist_range(data: bytes) -> tuple[int, int]:
    assert data[:4] == b"gmon" and data[20] == 0  # the first record is the histogram
    return int.from_bytes(data[21:29], "little"), int.from_bytes(data[29:37], "little")


def test_a_stripped_program_and_a_stripped_launcher(built: Built, tmp_path: Path) -> None:
    stripped = tmp_path / "stripped"
    shutil.copy(built["plain"], stripped)
    subprocess.run(["strip", str(stripped)], check=True)
    r = record(tmp_path, [str(stripped)])
    assert r.codes[0] == "binary_unreadable" and "unknown_binary" in r.codes and r.status == 125
    assert "has no symbols" in r.finding("binary_unreadable")["message"]
    # sh is stripped too, but makes no profile of its own: nothing to say about it
    launched = record(tmp_path, ["sh", "-c", str(built["plain"])])
    assert "binary_unreadable" not in launched.codes and launched.doc["usable"]


@pytest.mark.parametrize("helper", [True, False])
def test_profiles_of_two_programs_are_told_apart(built: Built, tmp_path: Path, helper: bool) -> None:
    """One command runs two programs: each profile is matched with its own by the fit rule, with
    the helper's process log or (without it) from the programs named."""
    plain, forker = str(built["plain"]), str(built["forker"])
    options = [] if helper else ["--no-preload", "--binary", plain, "--binary", forker]
    r = record(tmp_path, ["sh", "-c", f"{plain}; {forker}"], *options)
    by_binary: dict[str, list[int]] = {}
    for p in r.doc["profiles"]:
        by_binary.setdefault(p["binary"], []).append(p["pid"])
        assert p["fit"] == "exact" and p["found_by"] == ("process log" if helper else "named")
    assert sorted(by_binary) == sorted([plain, forker]) and len(by_binary[forker]) == 2
    assert sorted(b["binary"] for b in r.doc["binaries"]) == sorted([plain, forker])


def test_a_script_names_the_binary_it_ran(built: Built, tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text(f"#!/bin/sh\necho on-stdout\ncd /\nexec {built['plain']}\n")
    script.chmod(0o755)
    r = record(tmp_path, ["./run.sh"])
    assert r.doc["command"]["kind"] == "script" and r.doc["command"]["interpreter"] == ["/bin/sh"]
    assert r.doc["command"]["profiled_binaries"] == [str(built["plain"])]
    assert "is a script; the profiles were written by " + str(built["plain"]) in r.err
    assert "on-stdout" in r.err  # with --json the command's standard output goes to standard error


def test_precision_stops_when_the_error_target_is_met(built: Built, tmp_path: Path) -> None:
    target = 12.0
    r = record(tmp_path, [str(built["hot"])], "--precision", f"{target}%", "--runs", "30")
    prec = r.doc["precision"]
    history = prec["history"]
    assert len(history) == len(r.doc["runs"]) == prec["runs"] and prec["max_runs"] == 30
    hottest = r.doc["binaries"][0]["top"][0]
    assert hottest["name"] == "spin"
    # the error of a routine of n samples is sqrt(n)/n
    assert hottest["error_percent"] == pytest.approx(100 * hottest["samples"] ** 0.5 / hottest["samples"])
    assert history[-1]["error_percent"] == pytest.approx(hottest["error_percent"])
    errors = [h["error_percent"] for h in history]
    assert all(e is None or e > target for e in errors[:-1])  # it did not stop before the target was met
    assert prec["met"] and errors[-1] <= target  # ~15 samples a run: met within a few runs
    assert 1 < len(history) < 30
    assert f"{len(history)} run" in r.err


def test_runs_repeat_and_sum(built: Built, tmp_path: Path) -> None:
    r = record(tmp_path, [str(built["tiny"])], "--runs", "3")
    assert len(r.doc["runs"]) == 3 and len(r.doc["profiles"]) == 3
    assert {p["run"] for p in r.doc["profiles"]} == {1, 2, 3}
    assert named(r.doc["binaries"][0]["top"], "name")["spin"]["calls"] == 3


def test_refusals(built: Built, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "elsewhere")
    r = subprocess.run([str(GMONLENS), "record", "--out", "out", "--", str(built["plain"])], cwd=tmp_path,
                       capture_output=True, text=True, timeout=TIMEOUT, check=False)  # fmt: skip
    assert r.returncode == 1 and "is a symbolic link" in r.stderr and len(r.stderr.splitlines()) == 1
    assert list((tmp_path / "elsewhere").iterdir()) == []
    missing = subprocess.run([str(GMONLENS), "record", "--", "no-such-command-x"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=TIMEOUT, check=False)  # fmt: skip
    assert missing.returncode == 127 and "command not found" in missing.stderr


def test_no_helper_without_a_compiler(built: Built, tmp_path: Path) -> None:
    env = dict(os.environ, CC="/nonexistent/cc")
    r = record(tmp_path, [str(built["forker"])], env=env)
    assert not r.doc["helper"]["used"] and "no C compiler" in r.doc["helper"]["problem"]
    assert r.doc["usable"] and {p["found_by"] for p in r.doc["profiles"]} == {"command"}
    refused = subprocess.run([str(GMONLENS), "record", "--on-signal=exit", "--", str(built["plain"])], cwd=tmp_path,
                             capture_output=True, text=True, timeout=TIMEOUT, check=False, env=env)  # fmt: skip
    assert refused.returncode == 1 and "--on-signal=exit needs" in refused.stderr


def test_helper_is_cached_and_never_written_through_a_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gmonlens.runs.preload import build_preload

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    env = dict(os.environ)
    home = tmp_path / "cache" / "gmonlens" / "preload"
    first = build_preload(env, str(tmp_path))
    assert first.path is not None and Path(first.path).parent == home and not first.cached
    assert stat_mode(home) == 0o700
    again = build_preload(env, str(tmp_path))
    assert again.cached and again.path == first.path
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    os.unlink(first.path)
    os.symlink(victim, first.path)  # a link planted where the library goes
    third = build_preload(env, str(tmp_path))
    assert not third.cached and victim.read_bytes() == b"keep"
    assert third.path == first.path and not os.path.islink(third.path)
    home.chmod(0o777)  # a cache others may write to is not used: built for this recording only
    fourth = build_preload(env, str(tmp_path))
    assert fourth.temporary is not None and fourth.path is not None and not fourth.path.startswith(str(home))
    shutil.rmtree(fourth.temporary)
    other = build_preload(dict(env, CC="gcc -O0"), str(tmp_path))  # another compiler command: another key
    assert other.path != first.path
    if other.temporary:
        shutil.rmtree(other.temporary)
