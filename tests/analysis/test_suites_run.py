"""`gmonlens test`'s machinery without a compiler: the scheduler's rules, the output folder as
untrusted ground, the index and the texts, the command line; and a whole run of shell commands
(no profile: statuses, time limits, folders, the index)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gmonlens.commands.dispatch import run as gmonlens
from gmonlens.commands.test_command import parse_test_args
from gmonlens.common.errors import GmonlensError
from gmonlens.suites.index_json import to_json
from gmonlens.suites.model import (
    FAILED,
    NOT_RUN,
    PASSED,
    TIMEOUT,
    BinaryProfile,
    RoutineCalls,
    SuiteRun,
    TestResult,
    TestSpec,
)
from gmonlens.suites.render_markdown import render_markdown
from gmonlens.suites.render_text import render
from gmonlens.suites.schedule import Plan
from gmonlens.suites.suite import SuiteOptions, run_suite
from gmonlens.suites.test_dir import folder_name, open_suite_dir


def spec(name: str, **kw: object) -> TestSpec:
    return TestSpec(name, ("true",), "/", **kw)  # type: ignore[arg-type]


# ---- the scheduler ---------------------------------------------------------------------------


def test_plan_starts_what_fits() -> None:
    plan = Plan([spec("a"), spec("b", processors=2), spec("c"), spec("d")], jobs=3)
    assert plan.startable() == [0, 1]  # a (1 slot) and b (2 slots) fill 3; c waits
    for i in (0, 1):
        plan.start(i)
    assert plan.startable() == []
    plan.finish(0, PASSED)
    assert plan.startable() == [2]


def test_plan_depends_locks_serial() -> None:
    specs = [spec("setup"), spec("x", depends=("setup", "unknown")), spec("y", locks=("db",)),
             spec("z", locks=("db",)), spec("alone", serial=True), spec("after")]  # fmt: skip
    plan = Plan(specs, jobs=8)
    assert plan.startable() == [0, 2, 5]  # x waits for setup, z for the lock, alone for quiet
    for i in (0, 2, 5):
        plan.start(i)
    plan.finish(5, PASSED)
    plan.finish(0, PASSED)
    assert plan.startable() == [1]
    plan.start(1)
    plan.finish(1, PASSED)
    plan.finish(2, PASSED)
    assert plan.startable() == [3]
    plan.start(3)
    plan.finish(3, PASSED)
    assert plan.startable() == [4]  # serial: nothing beside it
    plan.start(4)
    assert plan.startable() == []


def test_plan_fixture_setup_failed_blocks() -> None:
    plan = Plan([spec("s", setups=("db",)), spec("t", requires=("db",), depends=("s",))], jobs=2)
    plan.start(0)
    plan.finish(0, FAILED)
    assert plan.blocked(1) == "the setup test 's' of fixture 'db' did not pass (failed)"


def test_plan_breaks_a_cycle() -> None:
    plan = Plan([spec("a", depends=("b",)), spec("b", depends=("a",))], jobs=2)
    assert plan.startable() == [0]


# ---- the folder ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "folder"),
    [("Parser.Big", "Parser.Big"), ("My/Ty/0.Works", "My_Ty_0.Works"), ("../../etc", "_.._etc"),
     (".hidden", "hidden"), ("", "test"), ("a b,[c]*", "a_b__c__"), ("x" * 300, "x" * 100)],
)  # fmt: skip
def test_folder_names(name: str, folder: str) -> None:
    assert folder_name(name) == folder


def test_folders_unique_and_the_previous_run_cleared(tmp_path: Path) -> None:
    with open_suite_dir("out", str(tmp_path)) as d:
        names = [d.make_folder(n) for n in ("a/b", "a_b", "A_B", "ok")]
        assert names == ["a_b", "a_b-2", "A_B-3", "ok"]
        (tmp_path / "out" / "a_b" / "gmon.out.12").write_bytes(b"x")
        (tmp_path / "out" / "a_b" / "output.txt").write_bytes(b"x")
        (tmp_path / "out" / "ok" / "gmon.out.3").write_bytes(b"x")
        (tmp_path / "out" / "ok" / "mine.txt").write_bytes(b"user's")
        os.symlink("/etc/passwd", tmp_path / "out" / "ok" / "gmon.out.4")
        index = {
            "tests": [
                {"directory": "a_b"},
                {"directory": "ok"},
                {"directory": "../x"},
                {"directory": "a_b-2"},
            ]
        }
        d.write_index(json.dumps(index).encode())
    with open_suite_dir("out", str(tmp_path)) as d:
        assert d.clear_previous() == 2  # a_b and a_b-2 emptied; ok keeps mine.txt and the link
    left = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert left == ["A_B-3", "index.json", "ok"]
    assert sorted(p.name for p in (tmp_path / "out" / "ok").iterdir()) == ["gmon.out.4", "mine.txt"]
    assert Path("/etc/passwd").exists()


def test_the_folder_is_refused_when_a_link_or_others_may_write(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(GmonlensError, match="is a symbolic link"):
        open_suite_dir("link", str(tmp_path))
    (tmp_path / "open").mkdir(mode=0o777)
    os.chmod(tmp_path / "open", 0o777)
    with pytest.raises(GmonlensError, match="writable by other users"):
        open_suite_dir("open", str(tmp_path))


# ---- the index and the texts -----------------------------------------------------------------


def suite_run(tmp_path: Path) -> SuiteRun:
    out = str(tmp_path / "out")
    binary = str(tmp_path / "build" / "prog")
    routines = (RoutineCalls("parse|x*", 0x10, 120_000, 81.0, 90.0), RoutineCalls("hash (h.c)", 0x20, 5, 0.0, 0.0),
                RoutineCalls("main", 0x30, 0, 1.0, 91.0))  # fmt: skip
    big = BinaryProfile(binary, (f"{out}/big/gmon.out.7",), (7,), 100.0, 100, routines)
    other = BinaryProfile("/usr/bin/helper", (f"{out}/big/gmon.out.8",), (8,), 0.0, 0, ())
    tests = (
        TestResult(TestSpec("Parser.Big", ("prog",), "/w"), PASSED, 0, 1.5, 1.2, "big", "big/output.txt", (big, other)),
        TestResult(TestSpec("crash <b>", ("prog",), "/w"), FAILED, 139, 0.1, 0.1, "crash", "crash/output.txt",
                   notes=("killed by SIGSEGV: no profile is written by a process that does not exit",)),
        TestResult(TestSpec("slow", ("prog",), "/w"), TIMEOUT, 143, 2.0, 2.0, "slow", "slow/output.txt"),
        TestResult(TestSpec("gone", ("nope",), "/w"), NOT_RUN, None, 0.0, 0.0, "gone", None, notes=("nope: command not found in PATH",)),
    )  # fmt: skip
    return SuiteRun("ctest", ("ctest",), str(tmp_path), out, 4, "test", tests)


def test_the_index(tmp_path: Path) -> None:
    doc = to_json(suite_run(tmp_path))
    assert doc["schema"] == "gmonlens-test/1" and doc["jobs"] == 4
    assert doc["summary"]["tests"] == 4 and doc["summary"]["passed"] == 1 and doc["summary"]["not run"] == 1
    big, crash, _slow, gone = doc["tests"]
    assert big["binary"] == "../build/prog" and big["profiles"] == ["big/gmon.out.7"]
    assert (big["samples"], big["seconds"], big["seconds_error"]) == (100.0, 1.0, 0.1)
    assert big["calls"] == {"parse|x*": 120_000, "hash (h.c)": 5}  # called routines only
    assert big["hottest"][0] == {
        "name": "parse|x*",
        "self_seconds": 0.81,
        "total_seconds": 0.9,
        "calls": 120_000,
    }
    assert [b["binary"] for b in big["other_binaries"]] == [
        os.path.relpath("/usr/bin/helper", tmp_path / "out")
    ]
    assert crash["binary"] is None and crash["profiles"] == [] and crash["exit_status"] == 139
    assert gone["output"] is None and gone["notes"] == ["nope: command not found in PATH"]
    assert doc["summary"]["binaries"][0] == {"binary": "../build/prog", "tests": 1, "profiles": 1,
                                             "samples": 100.0, "seconds": 1.0, "calls": 120_005}  # fmt: skip


def test_the_table_and_the_markdown(tmp_path: Path) -> None:
    run = suite_run(tmp_path)
    text = render(run)
    lines = text.splitlines()
    assert lines[0].startswith(
        "gmonlens test: 4 tests (ctest, -j4): 1 passed, 1 failed, 1 timeout, 1 not run;"
    )
    assert lines[2].split() == ["1.00", "0.10", "100", "120,005", "1.50", "passed", "Parser.Big"]  # by time
    assert "  failed: crash <b> (output: " in text and "killed by SIGSEGV" in text
    md = render_markdown(run)
    assert "| Parser.Big | ✅ passed | 1.00 ± 0.10 | 100 | 120,005 | 1.50 |" in md
    assert "| crash &lt;b&gt; | ❌ failed |" in md  # names cannot become markup
    assert "| parse\\|x\\* | prog | 0.81 | 0.90 | 120,000 |" in md


# ---- the command line ------------------------------------------------------------------------


def test_command_line() -> None:
    a = parse_test_args(["-o", "d", "--json", "-j4", "--per", "suite", "--timeout=9", "--markdown", "m.md",
                         "--binary", "x", "--no-preload", "--on-signal=default", "--", "ctest", "-j2"])  # fmt: skip
    assert (a.out, a.json, a.jobs, a.per, a.timeout, a.markdown, a.binaries) == (
        "d",
        True,
        4,
        "suite",
        9.0,
        "m.md",
        ["x"],
    )
    assert (a.preload, a.on_signal_exit, a.command) == (False, False, ["ctest", "-j2"])
    assert parse_test_args(["-j", "--", "ctest"]).jobs == (os.cpu_count() or 1)
    assert parse_test_args(["./unit"]).command == ["./unit"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["test", "--per", "file", "--", "x"], "--per takes 'test' or 'suite'"),
        (["test", "-j", "0", "--", "x"], "-j needs a number above 0"),
        (["test", "--bogus"], "unknown option '--bogus'"),
        (["test", "--json"], "no test runner given"),
        (["test", "--", "/bin/true"], "is not a test runner gmonlens knows"),
        (["test", "--runner", "jest", "--", "x"], "--runner takes ctest, gtest, catch2, meson, commands"),
    ],
)
def test_command_line_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert gmonlens(argv) == 2
    assert message in capsys.readouterr().err


def test_a_listing_that_leaves_a_process_behind(tmp_path: Path) -> None:
    """The listing's output is taken once it ended and its pipes stay quiet; what it left running
    is stopped."""
    from gmonlens.suites.listing import capture

    marker = tmp_path / "still-running"
    script = f"echo one; (sleep 30; touch {marker}) & echo two >&2"
    out = capture(["sh", "-c", script], str(tmp_path), dict(os.environ), str(tmp_path))
    assert (out.status, out.stdout, out.stderr) == (0, b"one\n", b"two\n")
    assert out.first_error_line() == "two"
    with pytest.raises(GmonlensError, match="no-such-lister: cannot run it to list its tests"):
        capture(["no-such-lister"], str(tmp_path), {}, str(tmp_path))


# ---- a whole run, shell commands (no profiles) -----------------------------------------------


def test_a_run_of_commands(tmp_path: Path) -> None:
    (tmp_path / "tests.yaml").write_text(
        "tests:\n"
        "  - {name: ok, command: [sh, -c, 'echo hello; echo err >&2']}\n"
        "  - {name: bad, command: [sh, -c, 'exit 3']}\n"
        "  - {name: slow, command: [sleep, '30'], timeout: 0.5}\n"
        "  - {name: missing, command: [no-such-program-here]}\n"
        "  - {name: nowhere, command: [sh], directory: does/not/exist}\n"
        "  - {name: 'a/b', command: [sh, -c, 'pwd'], directory: sub}\n"
    )
    (tmp_path / "sub").mkdir()
    seen: list[tuple[str, int, int]] = []
    run = run_suite(["tests.yaml"], str(tmp_path), "out", SuiteOptions(jobs=3, preload=False,
                    progress=lambda r, done, total: seen.append((r.spec.name, done, total))))  # fmt: skip
    status = {t.spec.name: t.status for t in run.tests}
    assert status == {
        "ok": PASSED,
        "bad": FAILED,
        "slow": TIMEOUT,
        "missing": NOT_RUN,
        "nowhere": NOT_RUN,
        "a/b": PASSED,
    }
    assert sorted(s[0] for s in seen) == sorted(status) and {s[2] for s in seen} == {6}
    out = tmp_path / "out"
    by = {t.spec.name: t for t in run.tests}
    assert (out / by["ok"].directory / "output.txt").read_text() in ("hello\nerr\n", "err\nhello\n")
    assert (out / by["a/b"].directory / "output.txt").read_text() == f"{tmp_path / 'sub'}\n"
    assert by["bad"].exit_status == 3 and by["slow"].notes[0] == "stopped after its time limit of 0.5 s"
    assert "command not found" in by["missing"].notes[0] and "does not exist" in by["nowhere"].notes[0]
    doc = json.loads((out / "index.json").read_text())
    assert [t["name"] for t in doc["tests"]] == ["ok", "bad", "slow", "missing", "nowhere", "a/b"]
    assert doc["helper"] == "turned off (--no-preload)" and not (out / ".listing").exists()


def test_interrupted_run_stops_the_tests_and_writes_the_index(tmp_path: Path) -> None:
    """^C (KeyboardInterrupt in the main thread): the running tests' groups are stopped, they are
    `interrupted`, the waiting ones `not run`, and the index is written."""
    import _thread
    import threading

    (tmp_path / "tests.yaml").write_text(
        "tests:\n" + "".join(f"  - {{name: t{k}, command: [sleep, '30']}}\n" for k in range(4))
    )
    timer = threading.Timer(1.0, _thread.interrupt_main)
    timer.start()
    try:
        run = run_suite(["tests.yaml"], str(tmp_path), "out", SuiteOptions(jobs=2, preload=False))
    finally:
        timer.cancel()
    assert run.interrupted
    # stopped by gmonlens (SIGTERM to their groups), not slept out: `sleep 30` run to its end exits 0
    assert [t.exit_status for t in run.tests] == [143, 143, None, None]
    assert [t.status for t in run.tests] == ["interrupted", "interrupted", "not run", "not run"]
    doc = json.loads((tmp_path / "out" / "index.json").read_text())
    assert doc["interrupted"] is True and doc["summary"]["interrupted"] == 2
