"""`gmonlens test` on real suites built at test time (tests/fixtures/workspaces/suiteproject): a
CMake project of a dozen tests, a GoogleTest binary run per test case, a Catch2 binary and a
meson project. `alpha` and `beta` are called a number of times each test states, so every
per-test count is known by construction; the sum over the tests is held against `gprof -s`
over all the files. Each project is built once per session."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gprof_harness import GMONLENS, gmonlens_env

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("gprof") is None, reason="gcc/gprof"
)
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspaces" / "suiteproject"
TIMEOUT = 600


@dataclass(frozen=True)
class Suite:
    code: int
    index: dict[str, Any]
    stdout: str
    stderr: str
    out: Path

    def test(self, name: str) -> dict[str, Any]:
        (found,) = [t for t in self.index["tests"] if t["name"] == name]
        return found

    def calls(self, name: str) -> tuple[int, int]:
        c = self.test(name)["calls"]
        return c.get("alpha", 0), c.get("beta", 0)


def run_suite(cwd: Path, out: Path, *runner: str, options: Sequence[str] = ()) -> Suite:
    argv = [str(GMONLENS), "test", "--out", str(out), "--json", *options, "--", *runner]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, env=gmonlens_env())
    assert done.stdout, done.stderr
    index = json.loads(done.stdout)
    assert json.loads((out / "index.json").read_text()) == index
    return Suite(done.returncode, index, done.stdout, done.stderr, out)


def gprof_sum_calls(binary: Path, files: Sequence[Path], where: Path) -> dict[str, int]:
    """The oracle: gprof -s over `files`, then gprof's flat profile of gmon.sum: calls by routine."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["gprof", "-s", str(binary), *map(str, files)], cwd=where, check=True, capture_output=True)
    flat = subprocess.run(["gprof", "-b", "-p", str(binary), "gmon.sum"], cwd=where, check=True,
                          capture_output=True, text=True).stdout  # fmt: skip
    calls = {}
    for line in flat.splitlines():
        words = line.split()
        if len(words) >= 7 and re.fullmatch(r"\d+", words[3]):
            calls[" ".join(words[6:])] = int(words[3])
    return calls


def all_profiles(s: Suite, binary: Path) -> list[Path]:
    """Every file the index lists as `binary`'s, over all tests."""
    files = []
    for t in s.index["tests"]:
        for part in (t, *t["other_binaries"]):
            if part["binary"] and (s.out / part["binary"]).resolve() == binary.resolve():
                files += [s.out / p for p in part["profiles"]]
    return files


def assert_sum_is_gprofs(s: Suite, binary: Path, tmp: Path) -> None:
    files = all_profiles(s, binary)
    on_disk = sorted(p.resolve() for p in s.out.glob("*/gmon.out.*"))
    assert sorted(p.resolve() for p in files) == on_disk  # every file in DIR is named, none twice
    oracle = gprof_sum_calls(binary, files, tmp)
    for routine in ("alpha", "beta"):
        ours = sum(t["calls"].get(routine, 0) for t in s.index["tests"])
        ours += sum(b["calls"].get(routine, 0) for t in s.index["tests"] for b in t["other_binaries"])
        assert ours == oracle.get(routine, 0), routine
    summary = {b["binary"]: b for b in s.index["summary"]["binaries"]}
    (mine,) = [b for name, b in summary.items() if (s.out / name).resolve() == binary.resolve()]
    parts = [p for t in s.index["tests"] for p in (t, *t["other_binaries"]) if p["binary"] == mine["binary"]]
    assert mine["calls"] == sum(sum(p["calls"].values()) for p in parts)
    if not any("::" in name for name in oracle):  # C: one name a routine, no recursion
        assert mine["calls"] == sum(oracle.values())


# ---- CMake / CTest ---------------------------------------------------------------------------

CTEST_COUNTS = {
    "small": (1, 2), "mid": (10, 20), "big": (100, 200), "only_alpha": (7, 0), "only_beta": (0, 9),
    "none": (0, 0), "failing": (5, 6), "expected_failure": (3, 4), "forking": (11, 13),
    "child_programs": (2, 3), "slow": (2, 3), "labelled": (4, 4),
}  # fmt: skip


@pytest.fixture(scope="session")
def cmake_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("cmake") is None or shutil.which("ctest") is None:
        pytest.skip("cmake not installed")
    root = tmp_path_factory.mktemp("suite-cmake")
    shutil.copytree(FIXTURE, root / "src")
    flags = ["-DCMAKE_C_FLAGS=-pg -g -O0", "-DCMAKE_EXE_LINKER_FLAGS=-pg"]
    subprocess.run(["cmake", "-S", "src", "-B", "build", *flags], cwd=root, check=True, capture_output=True)
    subprocess.run(["cmake", "--build", "build"], cwd=root, check=True, capture_output=True)
    return root


@pytest.fixture(scope="session")
def ctest_suite(cmake_project: Path) -> Suite:
    return run_suite(
        cmake_project, cmake_project / "profiles", "ctest", "--test-dir", "build", options=["-j4"]
    )


def test_ctest_a_profile_set_per_test_with_exact_counts(ctest_suite: Suite) -> None:
    s = ctest_suite
    assert s.code == 1  # `failing` failed; the rest passed (or timed out: `slow`)
    assert s.index["runner"] == "ctest" and s.index["jobs"] == 4
    assert [t["name"] for t in s.index["tests"]] == list(CTEST_COUNTS)
    for name, counts in CTEST_COUNTS.items():
        t = s.test(name)
        assert s.calls(name) == counts, name
        if counts != (0, 0):
            assert t["profiles"] and all(p.startswith(t["directory"] + "/gmon.out.") for p in t["profiles"])
            assert (s.out / t["binary"]).resolve() == (s.out.parent / "build" / "prog").resolve()
        assert t["output"] == f"{t['directory']}/output.txt" and (s.out / t["output"]).is_file()
    folders = [t["directory"] for t in s.index["tests"]]
    assert len(set(folders)) == len(folders)
    statuses = {t["name"]: t["status"] for t in s.index["tests"]}
    assert statuses == {**dict.fromkeys(CTEST_COUNTS, "passed"), "failing": "failed", "slow": "timeout"}
    assert s.index["summary"]["passed"] == 10 and s.index["summary"]["failed"] == 1


def test_ctest_failing_and_stopped_tests_are_still_profiled(ctest_suite: Suite) -> None:
    failing, slow = ctest_suite.test("failing"), ctest_suite.test("slow")
    assert failing["exit_status"] == 1 and failing["profiles"]
    assert slow["status"] == "timeout" and slow["profiles"]  # SIGTERM made exit() by the helper
    assert "stopped after its time limit of 2 s" in slow["notes"]
    assert ctest_suite.test("expected_failure")["exit_status"] == 1  # WILL_FAIL: passed


def test_ctest_forks_and_child_programs_are_summed_into_their_test(ctest_suite: Suite) -> None:
    forking = ctest_suite.test("forking")
    assert len(forking["profiles"]) == 2 and len(set(forking["pids"])) == 2
    child = ctest_suite.test("child_programs")
    assert len(child["profiles"]) == 2 and child["other_binaries"] == []  # sh is not profiled


def test_ctest_sum_over_tests_is_gprofs_sum(ctest_suite: Suite, cmake_project: Path, tmp_path: Path) -> None:
    assert_sum_is_gprofs(ctest_suite, cmake_project / "build" / "prog", tmp_path)


def test_ctest_reverse_map(ctest_suite: Suite) -> None:
    reaching = {
        r: {t["name"] for t in ctest_suite.index["tests"] if t["calls"].get(r)} for r in ("alpha", "beta")
    }
    assert reaching["alpha"] == {n for n, (a, _) in CTEST_COUNTS.items() if a}
    assert reaching["beta"] == {n for n, (_, b) in CTEST_COUNTS.items() if b}


def test_ctest_selection_is_ctests_and_the_folder_is_replaced(cmake_project: Path) -> None:
    out = cmake_project / "selected"
    first = run_suite(cmake_project, out, "ctest", "--test-dir", "build", "-R", "^(small|mid)$")
    assert [t["name"] for t in first.index["tests"]] == ["small", "mid"] and first.code == 0
    second = run_suite(cmake_project, out, "ctest", "--test-dir", "build", "-L", "special")
    assert [t["name"] for t in second.index["tests"]] == ["labelled"]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [second.test("labelled")["directory"], "index.json"]
    )
    assert "gmonlens test: [1/1] passed" in second.stderr


def test_check_reads_the_folder(ctest_suite: Suite, cmake_project: Path) -> None:
    """The CI recipe: gmonlens test, then gmonlens check on its folder, a rule per test."""
    budgets = cmake_project / "budgets.yaml"
    budgets.write_text("binary: build/prog\nprofiles: profiles\nrules:\n  - {calls: alpha, max: 50}\n")
    done = subprocess.run([str(GMONLENS), "check", "--json", str(budgets)], cwd=cmake_project,
                          capture_output=True, text=True, env=gmonlens_env(), timeout=TIMEOUT)  # fmt: skip
    (rule,) = json.loads(done.stdout)["rules"]
    assert rule["verdict"] == "fail" and rule["test"] == "big" and rule["measured"] == 100
    assert {t["test"] for t in rule["tests"]} == set(CTEST_COUNTS)  # each wrote a profile, `none` too


def test_markdown_summary(cmake_project: Path, tmp_path: Path) -> None:
    md = tmp_path / "summary.md"
    out = cmake_project / "md"
    done = run_suite(cmake_project, out, "ctest", "--test-dir", "build", "-R", "^(big|failing)$",
                     options=["--markdown", str(md)])  # fmt: skip
    assert done.code == 1
    text = md.read_text()
    assert "### gmonlens test: 2 tests, 1 passed, 1 failed" in text
    assert "| big | ✅ passed |" in text and "| failing | ❌ failed |" in text
    assert "#### Hottest routines per test" in text and "| beta | prog |" in text


# ---- GoogleTest ------------------------------------------------------------------------------

GTEST_COUNTS = {"Alpha.Small": (3, 0), "Alpha.Large": (300, 1), "Beta.Small": (0, 5), "Beta.Fails": (3, 2),
                "Fork.Both": (6, 8), "Each/Sizes.Alpha/0": (1, 0), "Each/Sizes.Alpha/1": (2, 0),
                "Each/Sizes.Alpha/2": (4, 0)}  # fmt: skip


def _compile(root: Path, out: str, sources: Sequence[str], *extra: str, cxx: bool = True) -> Path:
    cc = "g++" if cxx else "gcc"
    subprocess.run(
        [cc, "-pg", "-g", "-O0", "-o", out, *sources, *extra], cwd=root, check=True, capture_output=True
    )
    return root / out


@pytest.fixture(scope="session")
def gtest_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not Path("/usr/include/gtest/gtest.h").exists() or shutil.which("g++") is None:
        pytest.skip("GoogleTest (libgtest-dev) not installed")
    root = tmp_path_factory.mktemp("suite-gtest")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    subprocess.run(["gcc", "-pg", "-g", "-O0", "-c", "work.c"], cwd=root, check=True)
    return _compile(root, "gtest_suite", ["gtest_suite.cc", "work.o"], "-lgtest", "-lgtest_main", "-pthread")


@pytest.fixture(scope="session")
def gtest_suite(gtest_binary: Path) -> Suite:
    return run_suite(gtest_binary.parent, gtest_binary.parent / "profiles", "./gtest_suite", options=["-j4"])


def test_gtest_a_process_per_test_case(gtest_suite: Suite, gtest_binary: Path, tmp_path: Path) -> None:
    s = gtest_suite
    assert s.index["runner"] == "gtest" and s.index["per"] == "test" and s.code == 1
    assert [t["name"] for t in s.index["tests"]] == list(GTEST_COUNTS)  # DISABLED_ not run
    for name, counts in GTEST_COUNTS.items():
        assert s.calls(name) == counts, name
        assert s.test(name)["command"][-1] == f"--gtest_filter={name}"
        assert s.test(name)["file"] == "gtest_suite.cc" and s.test(name)["line"] > 0
    assert s.test("Beta.Fails")["status"] == "failed" and s.test("Beta.Fails")["profiles"]
    assert len(s.test("Fork.Both")["profiles"]) == 2
    assert not list(gtest_binary.parent.glob("gmon.out*"))  # listing the tests left no profile here
    assert_sum_is_gprofs(s, gtest_binary, tmp_path)
    alpha = {t["name"] for t in s.index["tests"] if t["calls"].get("alpha")}
    assert alpha == {n for n, (a, _) in GTEST_COUNTS.items() if a}


def test_gtest_per_suite(gtest_binary: Path) -> None:
    s = run_suite(gtest_binary.parent, gtest_binary.parent / "per-suite", "./gtest_suite", "--gtest_filter=Alpha.*:Beta.*",
                  options=["--per", "suite"])  # fmt: skip
    assert [t["name"] for t in s.index["tests"]] == ["Alpha", "Beta"]
    assert s.calls("Alpha") == (303, 1) and s.calls("Beta") == (3, 7)
    assert s.index["per"] == "suite"


# ---- Catch2 ----------------------------------------------------------------------------------

CATCH2_COUNTS = {"alpha, twice [and brackets]": (2, 0), "beta *stars* \\ and a backslash": (0, 7),
                 "both": (5, 5), "fails": (2, 1)}  # fmt: skip


@pytest.fixture(scope="session")
def catch2_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not Path("/usr/include/catch2/catch.hpp").exists() or shutil.which("g++") is None:
        pytest.skip("Catch2 (catch2) not installed")
    root = tmp_path_factory.mktemp("suite-catch2")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    subprocess.run(["g++", "-O0", "-c", "catch2_main.cc"], cwd=root, check=True)  # Catch2's own main: no -pg
    subprocess.run(["gcc", "-pg", "-g", "-O0", "-c", "work.c"], cwd=root, check=True)
    return _compile(root, "catch2_suite", ["catch2_suite.cc", "catch2_main.o", "work.o"])


def test_catch2_a_process_per_test_case(catch2_binary: Path, tmp_path: Path) -> None:
    s = run_suite(catch2_binary.parent, catch2_binary.parent / "profiles", "./catch2_suite", options=["-j4"])
    assert s.index["runner"] == "catch2" and s.code == 1
    assert [t["name"] for t in s.index["tests"]] == list(CATCH2_COUNTS)  # [.] hidden: not run
    for name, counts in CATCH2_COUNTS.items():
        assert s.calls(name) == counts, name
    assert s.test("fails")["status"] == "failed" and s.test("fails")["profiles"]
    assert_sum_is_gprofs(s, catch2_binary, tmp_path)
    selected = run_suite(catch2_binary.parent, catch2_binary.parent / "tagged", "./catch2_suite", "[beta]")
    assert [t["name"] for t in selected.index["tests"]] == ["beta *stars* \\ and a backslash"]
    by_file = run_suite(
        catch2_binary.parent, catch2_binary.parent / "by-file", "./catch2_suite", options=["--per", "suite"]
    )
    assert [t["name"] for t in by_file.index["tests"]] == ["catch2_suite.cc"]
    assert by_file.calls("catch2_suite.cc") == (9, 13)


# ---- meson -----------------------------------------------------------------------------------

MESON_COUNTS = {"small": (1, 2), "mid": (10, 20), "only_beta": (0, 9), "failing": (5, 6), "forking": (11, 13),
                "serial": (4, 4)}  # fmt: skip


@pytest.fixture(scope="session")
def meson_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("meson") is None or shutil.which("ninja") is None:
        pytest.skip("meson not installed")
    root = tmp_path_factory.mktemp("suite-meson")
    shutil.copytree(FIXTURE, root / "src")
    env = {**os.environ, "CFLAGS": "-g -O0"}
    subprocess.run(["meson", "setup", "build", "src"], cwd=root, check=True, capture_output=True, env=env)
    return root


def test_meson_tests_from_its_introspection(meson_project: Path, tmp_path: Path) -> None:
    s = run_suite(meson_project, meson_project / "profiles", "meson", "test", "-C", "build", options=["-j4"])
    assert s.index["runner"] == "meson" and s.code == 1  # `meson compile` ran first: nothing was built
    assert [t["name"] for t in s.index["tests"]] == list(MESON_COUNTS)
    for name, counts in MESON_COUNTS.items():
        assert s.calls(name) == counts, name
    assert s.test("failing")["status"] == "failed" and s.test("failing")["profiles"]
    assert any("should_fail" in n for n in s.test("failing")["notes"]) and not s.test("small")["notes"]
    assert s.test("small")["labels"] == ["suiteproject:quick"]
    assert_sum_is_gprofs(s, meson_project / "build" / "prog", tmp_path)
    quick = run_suite(meson_project, meson_project / "quick", "meson", "test", "-C", "build", "--no-rebuild",
                      "--suite", "quick", "--no-suite", "bad")  # fmt: skip
    assert [t["name"] for t in quick.index["tests"]] == ["small", "mid"] and quick.code == 0


# ---- a list of commands ----------------------------------------------------------------------


def test_a_yaml_list_of_commands(cmake_project: Path, tmp_path: Path) -> None:
    listing = cmake_project / "tests.yaml"
    listing.write_text(
        "environment: {LC_ALL: C}\ntests:\n"
        "  - {name: one, command: build/prog 3 1}\n"
        "  - {name: two, command: [build/prog, 0, 5], timeout: 30}\n"
        "  - {name: shell, command: [sh, -c, 'build/prog 1 0 && build/prog 2 0']}\n"
    )
    s = run_suite(cmake_project, tmp_path / "yaml-out", "tests.yaml", options=["-j2"])
    assert s.code == 0 and s.index["runner"] == "commands"
    assert [(t["name"], s.calls(t["name"])) for t in s.index["tests"]] == [
        ("one", (3, 1)),
        ("two", (0, 5)),
        ("shell", (3, 0)),
    ]
    listing.write_text("tests:\n  - {name: x, comand: y}\n  - {name: x}\n")
    done = subprocess.run([str(GMONLENS), "test", "--out", str(tmp_path / "bad"), "--", "tests.yaml"],
                          cwd=cmake_project, capture_output=True, text=True, env=gmonlens_env())  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"gmonlens test: {listing}:2: test 1 ('x'): unknown key 'comand' (did you mean 'command'?)",
        f"gmonlens test: {listing}:3: test 2 ('x'): 'command' must be a list of strings or a string",
    ]
