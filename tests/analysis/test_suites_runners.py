"""`gmonlens test`'s runners without a toolchain: CTest's JSON listing and its properties,
GoogleTest's lists, Catch2's test specs, meson's selection and introspection, the YAML list of
commands as untrusted input, and each runner's verdict rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gmonlens.common.safe_yaml import YamlFileError
from gmonlens.suites import catch2, ctest, gtest, meson
from gmonlens.suites.command_list import read_command_list
from gmonlens.suites.model import FAILED, PASSED, SKIPPED, TIMEOUT, Verdict
from gmonlens.suites.status import decide

# ---- CTest -----------------------------------------------------------------------------------


def ctest_doc(*tests: dict[str, object]) -> bytes:
    graph = {"commands": ["add_test"], "files": ["/src/CMakeLists.txt"],
             "nodes": [{"file": 0}, {"command": 0, "file": 0, "line": 12, "parent": 0}]}  # fmt: skip
    return json.dumps({"kind": "ctestInfo", "version": {"major": 1, "minor": 0}, "backtraceGraph": graph,
                       "tests": list(tests)}).encode()  # fmt: skip


def prop(name: str, value: object) -> dict[str, object]:
    return {"name": name, "value": value}


def test_ctest_environment_modification_reset() -> None:
    """`reset` goes back to the value before the modifications: ENVIRONMENT's, else the base's."""
    props = {"ENVIRONMENT": ["A=env"], "ENVIRONMENT_MODIFICATION": ["A=set:x", "B=set:y", "A=reset:", "B=reset:",
                                                                      "C=string_prepend:p", "C=reset:"]}  # fmt: skip
    assert ctest.environment({"B": "base"}, props) == {"A": "env", "B": "base"}


def test_ctest_properties_become_the_tests_spec() -> None:
    data = ctest_doc(
        {"name": "setup", "command": ["/b/prog", "0"], "properties": [prop("FIXTURES_SETUP", ["db"])]},
        {"name": "t", "command": ["/b/prog", "1"], "backtrace": 1, "properties": [
            prop("ENVIRONMENT", ["A=1", "B=x=y"]), prop("ENVIRONMENT_MODIFICATION", ["PATH=path_list_prepend:/opt/bin",
            "A=string_append:2", "GONE=unset:", "C=set:3", "L=cmake_list_append:z"]),
            prop("WORKING_DIRECTORY", "/w"), prop("TIMEOUT", 7.5), prop("WILL_FAIL", True),
            prop("SKIP_RETURN_CODE", 77), prop("PASS_REGULAR_EXPRESSION", ["ok", "fine"]),
            prop("DEPENDS", ["setup"]), prop("FIXTURES_REQUIRED", ["db"]), prop("RESOURCE_LOCK", ["r"]),
            prop("RUN_SERIAL", True), prop("PROCESSORS", 3), prop("LABELS", ["slow"])]},
        {"name": "cleanup", "command": ["/b/prog", "2"], "properties": [prop("FIXTURES_CLEANUP", ["db"])]},
        {"name": "off", "command": ["/b/prog"], "properties": [prop("DISABLED", True)]},
        {"name": "nocommand", "properties": []},
        {"name": 3}, "junk",
    )  # fmt: skip
    base = {"PATH": "/usr/bin", "GONE": "1", "L": "a"}
    setup, t, cleanup, off, nocommand = ctest.parse_listing(data, base, "/cwd", 30.0)
    assert setup.cwd == "/cwd" and setup.timeout == 30.0 and setup.setups == ("db",)
    assert t.env == {"PATH": "/opt/bin:/usr/bin", "A": "12", "B": "x=y", "C": "3", "L": "a;z"}
    assert (t.cwd, t.timeout, t.depends, t.requires, t.locks, t.serial, t.processors, t.labels) == (
        "/w",
        7.5,
        ("setup",),
        ("db",),
        ("r",),
        True,
        3,
        ("slow",),
    )
    assert t.verdict == Verdict(will_fail=True, skip_codes=(77,), pass_patterns=("ok", "fine"))
    assert (t.file, t.line) == ("/src/CMakeLists.txt", 12)
    assert cleanup.depends == ("t",)  # a cleanup waits for the tests that require its fixture
    assert off.disabled and off.problem == "disabled (DISABLED property)"
    assert nocommand.argv == () and nocommand.problem == "CTest gives no command for it"


@pytest.mark.parametrize(
    ("args", "listing", "jobs", "timeout"),
    [
        (["--test-dir", "b", "-j4", "-L", "x"], ["--test-dir", "b", "-L", "x"], 4, None),
        (["-j", "3", "--timeout", "9", "-R", "a"], ["-R", "a"], 3, 9.0),
        (["--parallel=2", "--timeout=1.5"], [], 2, 1.5),
        (["-E", "slow"], ["-E", "slow"], None, None),
    ],
)
def test_ctest_arguments_gmonlens_takes(
    args: list[str], listing: list[str], jobs: int | None, timeout: float | None
) -> None:
    got = ctest.split_args(args)
    assert (list(got.listing), got.jobs, got.timeout) == (listing, jobs, timeout)


@pytest.mark.parametrize("data", [b"not json", b"[]", b'{"tests": 3}'])
def test_ctest_a_listing_that_is_not_ctests(data: bytes) -> None:
    with pytest.raises(Exception, match="ctest: its --show-only=json-v1 output"):
        ctest.parse_listing(data, {}, "/", None)


# ---- GoogleTest ------------------------------------------------------------------------------


def test_gtest_text_listing() -> None:
    text = ("Running main() from gtest_main.cc\nAlpha.\n  Small\n  DISABLED_Off\nMy/Ty/0.  # TypeParam = int\n"
            "  Works\nInst/P.\n  Param/0  # GetParam() = 1\n  Param/1  # GetParam() = (1, \"a b\")\n")  # fmt: skip
    assert gtest.text_listing(text) == [("Alpha", "Small"), ("Alpha", "DISABLED_Off"), ("My/Ty/0", "Works"),
                                        ("Inst/P", "Param/0"), ("Inst/P", "Param/1")]  # fmt: skip


def test_gtest_json_listing() -> None:
    doc = {
        "testsuites": [{"name": "A", "testsuite": [{"name": "x", "file": "a.cc", "line": 4}, {"name": "y"}]}]
    }
    assert gtest.json_listing(json.dumps(doc).encode()) == [("A", "x", "a.cc", 4), ("A", "y", None, 0)]
    with pytest.raises(ValueError):
        gtest.json_listing(b'{"testsuites": [{"name": 1}]}')


# ---- Catch2 ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "spec"),
    [
        ("plain name", "plain name"),
        ('a, b [x] *y* \\z "q"', 'a\\, b \\[x\\] \\*y\\* \\\\z \\"q\\"'),
        ("~not", "\\~not"),
    ],
)
def test_catch2_spec_escaping(name: str, spec: str) -> None:
    assert catch2.escape_spec(name) == spec


def test_catch2_arguments_kept_for_the_runs() -> None:
    options, specs = catch2.split_args(
        ["[fast]", "-r", "xml", "--abort", "-f", "names.txt", "~[slow]", "-c", "sec"]
    )
    assert options == ["-r", "xml", "--abort", "-c", "sec"] and specs == ["[fast]", "~[slow]"]


# ---- meson -----------------------------------------------------------------------------------


def test_meson_arguments() -> None:
    a = meson.parse_args(["-C", "build", "--suite", "quick", "--no-suite=bad", "--num-processes", "3", "-t", "2",
                          "--test-args", "-v --x='a b'", "--wrapper", "valgrind -q", "--no-rebuild", "t1"], "/p")  # fmt: skip
    assert (a.builddir, a.suites, a.no_suites, a.jobs, a.multiplier) == (
        "/p/build",
        ("quick",),
        ("bad",),
        3,
        2.0,
    )
    assert (a.test_args, a.wrapper, a.rebuild, a.names) == (
        ("-v", "--x=a b"),
        ("valgrind", "-q"),
        False,
        ("t1",),
    )
    with pytest.raises(Exception, match="--setup is not supported"):
        meson.parse_args(["--setup", "valgrind"], "/p")


@pytest.mark.parametrize(
    ("suites", "wanted", "expected"),
    [
        (["proj:quick"], ["quick"], True),
        (["proj:quick"], ["proj"], True),
        (["proj:quick"], ["proj:quick"], True),
        (["proj:quick"], ["other:quick"], False),
        (["proj"], ["proj"], True),  # a test without a suite of its own
        (["proj"], ["quick"], False),
        (["sub:quick"], ["proj:quick"], False),
    ],
)
def test_meson_suite_matching(suites: list[str], wanted: list[str], expected: bool) -> None:
    assert meson.in_suites(suites, wanted) is expected


def test_meson_introspection_selected_and_ordered() -> None:
    doc = [
        {"name": "a", "cmd": ["/b/p", "1"], "env": {"X": "1"}, "workdir": None, "timeout": 30, "suite": ["proj:quick"],
         "is_parallel": True, "priority": 0, "protocol": "exitcode"},
        {"name": "b", "cmd": ["/b/p", "2"], "env": {}, "workdir": "/w", "timeout": 0, "suite": ["proj"],
         "is_parallel": False, "priority": 5, "protocol": "tap"},
        {"name": "c", "cmd": ["/b/p"], "suite": ["sub:quick"], "priority": 0},
        "junk",
    ]  # fmt: skip
    args = meson.parse_args(["-C", "build", "-t", "2", "--test-args", "-v"], "/p")
    b, a, _c = meson.parse_listing(json.dumps(doc).encode(), args, {"HOME": "/h"})
    assert (b.name, b.serial, b.timeout, b.cwd, b.verdict.protocol) == ("b", True, None, "/w", "tap")
    assert (a.argv, a.env, a.timeout, a.cwd, a.labels) == (
        ("/b/p", "1", "-v"),
        {"HOME": "/h", "X": "1"},
        60.0,
        "/p/build",
        ("proj:quick",),
    )
    assert a.verdict.skip_codes == (77,) and a.verdict.error_codes == (99,)
    only = meson.parse_listing(json.dumps(doc).encode(), meson.parse_args(["sub:c", "a"], "/p"), {})
    assert [s.name for s in only] == ["a", "c"]


# ---- a YAML list of commands -----------------------------------------------------------------


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "tests.yaml"
    path.write_text(text)
    return str(path)


def test_a_list_of_commands(tmp_path: Path) -> None:
    path = write(tmp_path, "environment: {A: 1, B: true}\ndirectory: build\ntimeout: 60\ntests:\n"
                           "  - {name: one, command: \"./prog 'a b' c\"}\n"
                           "  - {name: two, command: [./prog, 3], directory: other, environment: {A: x}, timeout: 5}\n")  # fmt: skip
    one, two = read_command_list(path, {"HOME": "/h"})
    assert (one.argv, one.cwd, one.env, one.timeout) == (
        ("./prog", "a b", "c"),
        str(tmp_path / "build"),
        {"HOME": "/h", "A": "1", "B": "1"},
        60.0,
    )
    assert (two.argv, two.cwd, two.env["A"], two.timeout) == (
        ("./prog", "3"),
        str(tmp_path / "other"),
        "x",
        5.0,
    )
    (plain,) = read_command_list(write(tmp_path, "- {name: x, command: [prog]}\n"), {})
    assert plain.cwd == str(tmp_path)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("tests:\n  - {name: a, comand: x}\n", [":2: test 1 ('a'): unknown key 'comand' (did you mean 'command'?)"]),
        ("tests:\n  - {name: a, command: []}\n  - {name: '', command: x}\n",
         [":2: test 1 ('a'): 'command' must name a program (at most 4096 words, no NUL)",
          ":3: test 2: 'name' must be a non-empty string"]),
        ("- {name: a, command: x}\n- {name: a, command: y}\n", [":2: test 2 ('a'): the name 'a' is used by an earlier test"]),
        ("- {name: a, command: x, timeout: 0}\n", [":1: test 1 ('a'): 'timeout' must be a number of seconds above 0"]),
        ("- {name: a, command: x, environment: [1]}\n", [":1: test 1 ('a'): 'environment' must be a mapping NAME: value"]),
        ("- {name: a, command: 'unclosed \"quote'}\n", [":1: test 1 ('a'): 'command' cannot be split into words (No closing quotation)"]),
        ("tests: 3\n", [":1: a list of tests, or a mapping with a list 'tests', is expected"]),
        ("tests: []\nextra: 1\n", [":1: unknown key 'extra' (known: tests, environment, directory, timeout)"]),
        ("tests: []\n", [": no tests listed"]),
        ("a: &x [1]\nb: *x\n", [":2: aliases (*name) are not accepted in a list of tests"]),
        ("- {name: a, command: x, name: b}\n", [":1: key 'name' repeated in one mapping"]),
        ("- !!python/object:os.system {}\n", [":1: not valid YAML: could not determine a constructor for the tag"]),
    ],
)  # fmt: skip
def test_a_bad_list_is_one_line_per_problem(tmp_path: Path, text: str, lines: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(YamlFileError) as e:
        read_command_list(path, {})
    assert len(e.value.lines) == len(lines)
    for got, want in zip(e.value.lines, lines, strict=True):
        assert got.startswith(path + want), got


def test_a_list_that_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(YamlFileError, match="is a directory"):
        read_command_list(str(tmp_path), {})
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (2 << 20))
    with pytest.raises(YamlFileError, match="too large"):
        read_command_list(str(big), {})


# ---- verdicts --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdict", "code", "text", "status"),
    [
        (Verdict(), 0, "", PASSED),
        (Verdict(), 1, "", FAILED),
        (Verdict(), 139, "", FAILED),
        (Verdict(will_fail=True), 1, "", PASSED),
        (Verdict(will_fail=True), 0, "", FAILED),
        (Verdict(skip_codes=(77,)), 77, "", SKIPPED),
        (Verdict(skip_codes=(77,), will_fail=True), 77, "", SKIPPED),
        (Verdict(pass_patterns=("all good",)), 3, "x all good y", PASSED),  # the exit status is not looked at
        (Verdict(pass_patterns=("all good",)), 0, "nothing", FAILED),
        (Verdict(fail_patterns=("ERROR",)), 0, "an ERROR", FAILED),
        (Verdict(skip_patterns=("^SKIP",)), 0, "x\nSKIP this", SKIPPED),
        (
            Verdict(pass_patterns=("[unclosed",)),
            0,
            "a [unclosed b",
            PASSED,
        ),  # not Python's syntax: plain text
        (Verdict(skip_codes=(77,), error_codes=(99,), protocol="exitcode"), 99, "", FAILED),
        (Verdict(protocol="tap"), 0, "1..2\nok 1\nnot ok 2 # TODO later\n", PASSED),
        (Verdict(protocol="tap"), 0, "1..2\nok 1\nnot ok 2 broken\n", FAILED),
        (Verdict(protocol="tap"), 0, "1..1\nBail out! no db\n", FAILED),
        (Verdict(protocol="tap"), 0, "1..0 # SKIP no network\n", SKIPPED),
        (Verdict(protocol="tap"), 1, "1..1\nok 1\n", FAILED),
        (Verdict(gtest_skip=True), 0, "[  PASSED  ] 0 tests.\n[  SKIPPED ] 1 test, listed below:\n", SKIPPED),
        (Verdict(gtest_skip=True), 0, "[  PASSED  ] 1 test.\n", PASSED),
    ],
)
def test_verdicts(verdict: Verdict, code: int, text: str, status: str) -> None:
    assert decide(verdict, code, text) == status


def test_a_time_limit_is_a_timeout_whatever_else() -> None:
    assert decide(Verdict(will_fail=True), 143, "", timed_out=True) == TIMEOUT
