"""`gmonlens check` end to end on programs described in Python (tests/golden_programs.py writes the
ELF and gmon.out bytes; no compiler): the verdicts, the exit statuses, per-test folders, the
reports and --suggest, through the command as a user runs it (dispatch.run, in process)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from gmonlens.commands.dispatch import run
from golden_programs import Call, Program, Routine, elf_bytes, gmon_bytes
from routine_keys import named


def program(
    calls: Sequence[Call], samples: dict[str, int] | None = None, extra: Sequence[str] = ()
) -> Program:
    names = ["main", "parse", "hash", "sort", "cmp", "lookup", "even", "odd", *extra, "zz_end"]
    s = samples or {}
    return Program("t", tuple(Routine(n, samples=s.get(n, 0)) for n in names), tuple(calls), ())


BASE_CALLS = (Call("main", "parse", 1), Call("parse", "hash", 1000), Call("main", "sort", 1),
              Call("sort", "cmp", 5000), Call("sort", "sort", 40), Call("main", "even", 1),
              Call("even", "odd", 10), Call("odd", "even", 10))  # fmt: skip
SAMPLES = {"main": 30, "parse": 50, "hash": 200, "sort": 120, "cmp": 100, "even": 5, "odd": 5}


@pytest.fixture(autouse=True)
def _cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def write(folder: Path, name: str, p: Program) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(elf_bytes(p))
    (folder / f"{name}.gmon").write_bytes(gmon_bytes(p))


def gmon(folder: Path, name: str, p: Program) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(gmon_bytes(p))
    return folder / name


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = run(["check", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def check_json(capsys: pytest.CaptureFixture[str], budgets: Path, status: int, *argv: str) -> dict[str, Any]:
    code, out, err = check(capsys, "--json", *argv, str(budgets))
    assert code == status, out + err
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.fixture
def base(tmp_path: Path) -> Path:
    write(tmp_path, "prog", program(BASE_CALLS, SAMPLES))
    return tmp_path


def budgets(folder: Path, rules: str, head: str = "binary: prog\nprofiles: [prog.gmon]\n") -> Path:
    path = folder / "budgets.yaml"
    path.write_text(head + "rules:\n" + rules)
    return path


def test_exact_rules_and_exit_statuses(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = budgets(base, "  - {calls: hash, max: 1000}\n  - {arc: parse -> hash, equal: 1000}\n"
                       "  - {calls: sort, equal: 41}\n  - {reached: [hash, cmp, odd]}\n  - {not_reached: lookup}\n")  # fmt: skip
    code, out, err = check(capsys, str(ok))
    assert code == 0 and err == ""
    assert out.splitlines() == [
        f"gmonlens check {ok}: {base / 'prog'}, {base / 'prog.gmon'}",
        "PASS       calls(hash) <= 1,000: 1,000",
        "PASS       calls(parse -> hash) == 1,000: 1,000",
        "PASS       calls(sort) == 41: 41 (1 + 40 recursive)",
        "PASS       reached: hash, cmp, odd: all reached",
        "PASS       not reached: lookup: none",
        "5 rules: 5 passed, 0 failed, 0 undecided",
    ]
    bad = budgets(base, "  - {calls: hash, max: 999}\n  - {arc: parse -> hash, range: [1, 10]}\n"
                        "  - {reached: [lookup]}\n  - {not_reached: [hash, cmp]}\n  - {calls: hash, min: 1}\n")  # fmt: skip
    code, out, _ = check(capsys, str(bad))
    assert code == 1
    assert (
        "FAIL       calls(hash) <= 999: 1,000 (calls 1,000, allowed <= 999)\n             parse -> hash: 1,000\n"
        in out
    )
    assert "FAIL       calls(parse -> hash) in [1, 10]: 1,000" in out
    assert "FAIL       reached: lookup: lookup (not reached (1): lookup)" in out
    assert "FAIL       not reached: hash, cmp: hash, cmp (reached (2): hash, cmp)" in out
    assert out.endswith("5 rules: 1 passed, 4 failed, 0 undecided\n")


def test_rules_against_a_baseline(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new_calls = (*BASE_CALLS[:1], Call("parse", "hash", 1100), *BASE_CALLS[2:], Call("parse", "lookup", 3),
                 Call("lookup", "hash", 3))  # fmt: skip
    write(base / "new", "prog", program(new_calls, SAMPLES))
    path = budgets(base, "  - {no_new_callers: hash}\n  - {no_new_callers: cmp}\n  - {no_new_arcs: true}\n"
                         "  - {no_new_arcs: sort}\n  - {no_new_routines: true}\n  - {calls: hash, max: 1200}\n",
                   "binary: new/prog\nprofiles: [new/prog.gmon]\nbaseline: {binary: prog, profiles: [prog.gmon]}\n")  # fmt: skip
    rules = check_json(capsys, path, 1)["rules"]
    assert [r["verdict"] for r in rules] == ["fail", "pass", "fail", "pass", "fail", "pass"]
    assert rules[0]["measured"] == ["lookup"] and rules[0]["limit"] == {"max_new": 0}
    assert rules[2]["measured"] == ["lookup -> hash", "parse -> lookup"]
    assert rules[4]["measured"] == ["lookup"]
    arcs = rules[5]["arcs"]  # the arcs that carry the change into hash, largest first
    assert [(a["caller"], a["count"], a["baseline"]) for a in arcs] == [
        ("parse", 1100, 1000),
        ("lookup", 3, 0),
    ]


def test_time_rules_on_a_twenty_sample_profile_cannot_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "prog", program(BASE_CALLS, {"main": 2, "parse": 3, "hash": 10, "sort": 5}))
    path = budgets(tmp_path, "  - {time_share: hash, max_percent: 90}\n  - {time: hash, max_seconds: 100}\n"
                             "  - {time: hash, max_increase_percent: 10}\n  - {calls: hash, max: 1000}\n",
                   "binary: prog\nprofiles: [prog.gmon]\nbaseline: {profiles: [prog.gmon]}\n")  # fmt: skip
    code, out, _ = check(capsys, str(path))
    assert code == 0
    lines = out.splitlines()
    for line in lines[1:4]:
        assert (
            line.startswith("UNDECIDED")
            and "not enough samples to decide: the run has 20 samples (at least 100" in line
        )
    assert lines[4].startswith("PASS")
    assert check(capsys, "--fail-undecided", str(path))[0] == 1


def test_time_rules_beyond_noise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = {k: 20 * v for k, v in SAMPLES.items()}  # 10,000 samples; hash 40%, sort's total 44%
    write(tmp_path, "prog", program(BASE_CALLS, big))
    gmon(tmp_path, "slower.gmon", program(BASE_CALLS, {**big, "hash": 3 * big["hash"]}))
    path = budgets(tmp_path, "  - {time_share: hash, max_percent: 45}\n  - {time_share: hash, max_percent: 35}\n"
                             "  - {time_share: hash, max_percent: 41}\n  - {time_share: sort, max_percent: 30, measure: self}\n"
                             "  - {time: hash, max_seconds: 200}\n  - {time: hash, max_seconds: 35}\n"
                             "  - {time: hash, max_increase_percent: 10}\n  - {time: sort, max_increase_percent: 10}\n",
                   "binary: prog\nprofiles: [slower.gmon]\nbaseline: {profiles: [prog.gmon]}\n")  # fmt: skip
    rules = check_json(capsys, path, 1)["rules"]
    shares = [r["measured"] for r in rules[:4]]
    assert [r["verdict"] for r in rules] == ["fail", "fail", "fail", "pass", "pass", "fail", "fail", "pass"]
    assert shares[0] == pytest.approx(100 * 12000 / 18200)  # of every sample: the call graph's 100%
    assert rules[6]["z"] > 3 and "+200%" in rules[6]["reason"]
    path = budgets(tmp_path, "  - {time_share: hash, max_percent: 45}\n  - {time_share: hash, max_percent: 35}\n"
                             "  - {time_share: hash, max_percent: 40.5}\n  - {time: parse, max_increase_percent: 10}\n",
                   "binary: prog\nprofiles: [prog.gmon]\nbaseline: {profiles: [prog.gmon]}\n")  # fmt: skip
    rules = check_json(capsys, path, 1)["rules"]
    assert [r["verdict"] for r in rules] == ["pass", "fail", "undecided", "pass"]
    assert rules[0]["low"] < 40 < rules[0]["high"] < 45
    assert rules[2]["reason"].startswith(
        "not enough samples to decide: the limit is within the share's noise"
    )


def test_what_cannot_be_checked_is_one_line_each_and_exit_2(
    base: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = budgets(base, "  - {calls: hsh, max: 1}\n  - {time_share: even, max_percent: 50}\n"
                         "  - {time_share: even, max_percent: 50, measure: self}\n  - {calls: hash, max: 1}\n"
                         "  - {calls: hash, max: 5, tests: [x]}\n")  # fmt: skip
    code, out, err = check(capsys, str(path))
    assert code == 2
    assert err.splitlines() == [
        f"{path}:4: rule 1 (calls): no routine 'hsh' in {base / 'prog'} (nearest: hash)",
        f"{path}:5: rule 2 (time_share): 'even' is a member of <cycle 1> (even, odd): gprof does not split a "
        "cycle's total time among its members; use 'measure: self' (its own samples)",
        f"{path}:8: rule 5 (calls): 'tests' applies to per-test profiles (a `gmonlens test` folder)",
    ]
    assert "ERROR      calls(hsh) <= 1: no routine 'hsh'" in out and "FAIL       calls(hash) <= 1" in out


def test_a_profile_of_another_program(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = Program(
        "o", (Routine("main", size=4096, samples=5), Routine("f", size=4096, samples=5), Routine("z")), (), ()
    )
    gmon(base, "other.gmon", other)
    code, out, err = check(
        capsys, str(budgets(base, "  - {calls: hash, max: 1}\n", "binary: prog\nprofiles: other.gmon\n"))
    )
    assert code == 2
    assert "ERROR      calls(hash) <= 1: not checked: its profiles could not be read" in out
    (line,) = err.splitlines()
    assert line.startswith(
        f"{base / 'budgets.yaml'}: profiles: {base / 'other.gmon'}: profile does not fit {base / 'prog'}"
    )
    code, _, err = check(
        capsys, str(budgets(base, "  - {calls: hash, max: 1}\n", "binary: prog\nprofiles: nothere.gmon\n"))
    )
    assert code == 2 and err.strip().endswith("nothere.gmon: no such file")


def test_a_bad_budget_file_exits_2_with_its_lines(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = budgets(base, "  - {calls: hash, maxx: 1}\n  - {time_share: sort}\n")
    code, out, err = check(capsys, str(path))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"{path}:4: rule 1 (calls): unknown key 'maxx' (did you mean 'max'?)",
        f"{path}:4: rule 1 (calls): a limit is missing: max, min, equal (or ==), or range: [min, max]",
        f"{path}:5: rule 2 (time_share): 'max_percent' is missing",
    ]


def per_test_folder(folder: Path, runs: dict[str, Program], index: bool = True) -> Path:
    tests = []
    for name, p in runs.items():
        gmon(folder / name, "gmon.out.1", p)
        tests.append({"name": name, "status": "passed", "duration": 0.1, "profiles": [f"{name}/gmon.out.1"]})
    if index:
        (folder / "index.json").write_text(json.dumps({"tests": tests}))
    return folder


def test_per_test_profiles(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small = program((Call("main", "parse", 1), Call("parse", "hash", 10)), SAMPLES)
    large = program((Call("main", "parse", 1), Call("parse", "hash", 2000)), SAMPLES)
    per_test_folder(base / "suite", {"Parser.Small": small, "Parser.Large": large, "Other": small})
    per_test_folder(base / "old", {"Parser.Small": small, "Parser.Large": small}, index=False)
    path = budgets(base, "  - {calls: hash, max: 1000}\n  - {calls: hash, max: 5, tests: ['Parser.*']}\n"
                         "  - {no_new_callers: hash}\n  - {calls: hash, max: 5, tests: [Nope]}\n",
                   "binary: prog\nprofiles: suite\nbaseline: {profiles: old}\n")  # fmt: skip
    data = check_json(capsys, path, 2)
    assert data["tests"] == ["Parser.Small", "Parser.Large", "Other"]
    first, second, callers, _ = data["rules"]
    assert [(t["test"], t["verdict"]) for t in first["tests"]] == [
        ("Parser.Small", "pass"),
        ("Parser.Large", "fail"),
        ("Other", "pass"),
    ]
    assert first["test"] == "Parser.Large" and first["measured"] == 2000
    assert first["arcs"][0]["baseline"] == 10  # Parser.Large's own baseline ran the small workload
    assert [t["test"] for t in second["tests"]] == ["Parser.Small", "Parser.Large"]
    assert [t["verdict"] for t in callers["tests"]] == ["pass", "pass", "undecided"]
    assert callers["tests"][2]["reason"] == "test 'Other' has no baseline profile"
    assert data["errors"] == [f"{path}:8: rule 4 (calls): no test matches 'Nope'"]


def test_one_test_of_per_test_profiles(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--test NAME` (the MCP `check` tool's `test`): the rules that apply to that test, on its
    profiles alone; scaling rules (runs of their own) and other tests' rules are left out."""
    small = program((Call("main", "parse", 1), Call("parse", "hash", 10)), SAMPLES)
    large = program((Call("main", "parse", 1), Call("parse", "hash", 2000)), SAMPLES)
    per_test_folder(base / "suite", {"Parser.Small": small, "Parser.Large": large, "Other": small})
    path = budgets(base, "  - {calls: hash, max: 1000}\n  - {calls: hash, max: 5, tests: ['Parser.*']}\n"
                         "  - {calls: hash, max: 5, tests: [Nope]}\n",
                   "binary: prog\nprofiles: suite\n")  # fmt: skip
    data = check_json(capsys, path, 1, "--test", "Parser.Large")
    assert data["tests"] == ["Parser.Large"] and data["errors"] == []  # `Nope`'s rule is not this test's
    assert [(r["index"], r["verdict"], r["measured"]) for r in data["rules"]] == [
        (1, "fail", 2000),
        (2, "fail", 2000),
    ]
    data = check_json(capsys, path, 0, "--test", "Other")
    assert [(r["index"], r["verdict"], r["test"]) for r in data["rules"]] == [(1, "pass", "Other")]
    code, _, err = check(capsys, "--test", "Parser.Huge", str(path))
    assert code == 2
    assert (
        err
        == f"gmonlens check: {base / 'suite'}: no test named 'Parser.Huge' (tests: Parser.Small, Parser.Large, Other)\n"
    )
    plain = budgets(base, "  - {calls: hash, max: 1000}\n")
    code, _, err = check(capsys, "--test", "Other", str(plain))
    assert code == 2 and "the profiles are not per test" in err


def test_a_per_test_baseline_is_summed_against_plain_profiles(
    base: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = program((Call("main", "parse", 1), Call("parse", "hash", 400)), SAMPLES)
    per_test_folder(base / "old", {"a": one, "b": one})  # 800 calls of hash over the suite
    path = budgets(base, "  - {calls: hash, max: 5000}\n  - {no_new_callers: cmp}\n",
                   "binary: prog\nprofiles: [prog.gmon]\nbaseline: {profiles: old}\n")  # fmt: skip
    calls, callers = check_json(capsys, path, 1)["rules"]
    assert calls["verdict"] == "pass" and calls["arcs"][0]["baseline"] == 800
    assert callers["verdict"] == "fail" and callers["measured"] == ["sort"]
    assert callers["reason"] == "new callers (1): sort"  # cmp is in the baseline, never called there


@pytest.mark.parametrize(
    ("index", "problem"),
    [
        (
            {"tests": [{"name": "a", "profiles": ["../../etc/passwd"]}]},
            "profile path '../../etc/passwd' leaves the folder",
        ),
        (
            {"tests": [{"name": "a", "profiles": ["/etc/passwd"]}]},
            "profile path '/etc/passwd' leaves the folder",
        ),
        (
            {
                "tests": [
                    {"name": "a", "profiles": ["a/gmon.out.1"]},
                    {"name": "a", "profiles": ["b/gmon.out.2"]},
                ]
            },
            "test 'a' is listed twice",
        ),
        ({"tests": {"a": 1}}, "a JSON object with a list 'tests' is expected"),
        ({"tests": [{"profiles": []}]}, "each test needs a 'name'"),
        ({"tests": [{"name": "a", "profiles": [], "other_binaries": {}}]}, "'other_binaries' must be a list"),
        (
            {
                "tests": [
                    {"name": "a", "profiles": [], "other_binaries": [{"binary": "x", "profiles": ["/x"]}]}
                ]
            },
            "profile path '/x' leaves the folder",
        ),
        ({"tests": [{"name": "a", "status": "failed", "binary": None, "profiles": []}]}, "no test profiles"),
        ({"tests": []}, "no test profiles"),
    ],
)
def test_a_hostile_test_index(
    base: Path, capsys: pytest.CaptureFixture[str], index: Any, problem: str
) -> None:
    (base / "suite").mkdir()
    (base / "suite" / "index.json").write_text(json.dumps(index))
    code, _, err = check(
        capsys, str(budgets(base, "  - {calls: hash, max: 1}\n", "binary: prog\nprofiles: suite\n"))
    )
    assert code == 2
    (line,) = err.splitlines()
    assert problem in line and "suite" in line


def test_a_gmonlens_test_index_gives_a_run_per_test_and_binary(tmp_path: Path) -> None:
    """gmonlens test's index (schema gmonlens-test/1): the main binary's run, then the other
    binaries' (same test name); a test that wrote no profile (a crash) is no run."""
    from gmonlens.check.test_runs import read_test_folder, runs_of

    index = {"schema": "gmonlens-test/1", "tests": [
        {"name": "T.a", "status": "passed", "binary": "../build/prog", "profiles": ["T.a/gmon.out.7"],
         "other_binaries": [{"binary": "/usr/bin/helper", "profiles": ["T.a/gmon.out.8", "T.a/gmon.out.9"]}]},
        {"name": "T.crash", "status": "failed", "binary": None, "profiles": [], "other_binaries": []},
        {"name": "T.b", "status": "failed", "binary": "../build/prog", "profiles": ["T.b/gmon.out.3"]},
    ]}  # fmt: skip
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "index.json").write_text(json.dumps(index))
    runs = read_test_folder(str(folder))
    assert [(r.name, r.binary, r.status, len(r.profiles)) for r in runs] == [
        ("T.a", str(tmp_path / "build" / "prog"), "passed", 1),
        ("T.a", "/usr/bin/helper", "passed", 2),
        ("T.b", str(tmp_path / "build" / "prog"), "failed", 1),
    ]
    assert runs[1].profiles == (str(folder / "T.a" / "gmon.out.8"), str(folder / "T.a" / "gmon.out.9"))
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "prog").write_bytes(b"")
    assert [r.name for r in runs_of(runs, str(tmp_path / "build" / "prog"))] == ["T.a", "T.b"]


def test_scaling_on_calls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "prog", program(BASE_CALLS, SAMPLES))
    sizes = {}
    for n in (1000, 2000, 4000, 8000):
        compares = n * (n.bit_length() - 1) - n  # ~ n log2 n - n
        runs = (Call("main", "sort", 1), Call("sort", "cmp", compares), Call("sort", "sort", 2 * n - 2))
        sizes[n] = gmon(tmp_path, f"gmon.{n}", program(runs, SAMPLES))
    entries = ", ".join(f"{n}: {p.name}" for n, p in sizes.items())
    path = budgets(tmp_path, f"  - {{scaling: cmp, sizes: {{{entries}}}, max_order: n log n}}\n"
                             f"  - {{scaling: cmp, sizes: {{{entries}}}, max_order: n}}\n"
                             f"  - {{scaling: sort, sizes: {{{entries}}}, max_order: n}}\n"
                             f"  - {{scaling: sort, sizes: {{{entries}}}, max_order: O(1), tolerance: 0.5}}\n"
                             f"  - {{scaling: sort, of: time, sizes: {{{entries}}}, max_order: n}}\n"
                             f"  - {{scaling: even, of: time, measure: self, sizes: {{{entries}}}, max_order: n}}\n"
                             f"  - {{scaling: hash, sizes: {{{entries}}}, max_order: n}}\n", "binary: prog\n")  # fmt: skip
    rules = check_json(capsys, path, 1)["rules"]
    assert [r["verdict"] for r in rules] == ["pass", "fail", "pass", "fail", "pass", "undecided", "undecided"]
    assert rules[0]["like"] == "n log n" and abs(rules[0]["exponent"] - rules[0]["order_exponent"]) < 0.1
    assert rules[0]["measured"][0] == {"size": 1000, "value": 8000.0}
    assert rules[2]["exponent"] == pytest.approx(1.0, abs=0.01) and "exponent_error" in rules[2]
    assert (
        rules[4]["exponent"] == pytest.approx(0) and rules[4]["like"] == "1"
    )  # the same samples at every size
    assert (
        rules[5]["reason"] == "not enough samples to decide: even has 5 samples at size 1,000 (at least 10)"
    )
    assert rules[6]["reason"] == "hash is not called at size 1,000: no exponent"


def test_reports(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = "a|b*c_<d>`[x](y)"
    write(base, "prog", program((*BASE_CALLS, Call("parse", hostile, 7)), SAMPLES, extra=[hostile]))
    path = budgets(base, f"  - {{calls: hash, max: 1}}\n  - {{calls: {json.dumps(hostile)}, max: 10}}\n"
                         "  - {time_share: hash, max_percent: 41, name: hash's share}\n  - {calls: nope, max: 1}\n")  # fmt: skip
    code, _, _ = check(capsys, "--junit", "r.xml", "--markdown", "r.md", str(path))
    assert code == 2
    root = ET.parse(base / "r.xml").getroot()
    suite = root.find("testsuite")
    assert suite is not None and root.tag == "testsuites"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "4",
        "1",
        "1",
        "1",
    )
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "rule 1: calls(hash) <= 1",
        f"rule 2: calls({hostile}) <= 10",
        "rule 3: hash's share",
        "rule 4: calls(nope) <= 1",
    ]
    assert [child.tag for c in cases for child in c] == ["failure", "system-out", "skipped", "error"]
    md = (base / "r.md").read_text()
    assert md.startswith("### ❌ gmonlens check: 1 failed, 1 undecided, 1 passed, 1 not checked\n")
    assert "| ✅ pass | calls(a\\|b\\*c\\_&lt;d&gt;\\`\\[x\\](y)) &lt;= 10 | 7 |" in md
    assert "| ⚠️ not checked | calls(nope) &lt;= 1 |" in md
    for line in md.splitlines():
        if line.startswith("| "):
            assert line.replace("\\|", "").count("|") == 5, line  # every row keeps its four cells


def test_junit_of_per_test_profiles(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    per_test_folder(base / "suite", {"t1": program(BASE_CALLS, SAMPLES), "t2": program(BASE_CALLS, SAMPLES)})
    path = budgets(
        base, "  - {calls: hash, max: 5}\n  - {calls: hash, max: 5000}\n", "binary: prog\nprofiles: suite\n"
    )
    assert check(capsys, "--junit", "t.xml", str(path))[0] == 1
    cases = ET.parse(base / "t.xml").getroot().findall("testsuite/testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("t1", "rule 1: calls(hash) <= 5"), ("t2", "rule 1: calls(hash) <= 5"),
        ("t1", "rule 2: calls(hash) <= 5,000"), ("t2", "rule 2: calls(hash) <= 5,000"),
    ]  # fmt: skip


def test_reports_are_not_written_through_links(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (base / "target").write_text("keep")
    os.symlink(base / "target", base / "r.xml")
    code, _, err = check(capsys, "--junit", "r.xml", str(budgets(base, "  - {calls: hash, max: 1000}\n")))
    assert code == 2 and "is a symbolic link" in err
    assert (base / "target").read_text() == "keep"


def test_suggest_writes_budgets_that_pass(base: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(capsys, "--suggest", "--headroom", "0", "--top", "3", "prog", "prog.gmon")
    assert code == 0, err
    rules = [line for line in out.splitlines() if line.startswith("  - ")]
    assert rules[:3] == ['  - {calls: "cmp", max: 5000}  # today 5,000', '  - {calls: "hash", max: 1000}  # today 1,000',
                         '  - {calls: "sort", max: 41}  # today 41']  # fmt: skip
    assert any(line.startswith('  - {time_share: "hash", max_percent: ') for line in rules)
    (base / "ci").mkdir()
    assert check(capsys, "--suggest", "-o", "ci/b.yaml", "prog", "prog.gmon")[0] == 0
    text = (base / "ci" / "b.yaml").read_text()
    assert 'binary: "../prog"' in text and 'profiles: ["../prog.gmon"]' in text and "max: 1100}" in text
    code, out, _ = check(capsys, "ci/b.yaml")
    assert code == 0, out


def test_suggest_from_a_test_folder_takes_each_routines_largest_count(
    base: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    per_test_folder(
        base / "suite", {"a": program(BASE_CALLS, SAMPLES), "b": program((Call("parse", "hash", 4000),))}
    )
    code, out, _ = check(capsys, "--suggest", "--headroom", "0", "prog", "suite")
    assert code == 0 and '{calls: "hash", max: 4000}' in out and "time_share" not in out
    assert 'profiles: ["suite"]' in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "usage: gmonlens check"),
        (["a.yaml", "b.yaml"], "need one BUDGETS.yaml"),
        (["--threshold", "0", "a.yaml"], "--threshold must be above 0"),
        (["--threshold", "x", "a.yaml"], "--threshold needs a number"),
        (["--frobnicate", "a.yaml"], "unknown option '--frobnicate'"),
        (["--junit"], "option '--junit' requires an argument"),
        (["--suggest"], "--suggest needs BINARY"),
        (["--suggest", "--top", "0", "p"], "--top must be from 1"),
        (["--test", "", "a.yaml"], "--test needs a test's name"),
    ],
)
def test_usage(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = check(capsys, *argv)
    assert code == 2 and message in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = check(capsys, "--help")
    assert code == 0 and "exit status: 0 pass, 1 a rule failed, 2 the budgets could not be checked" in out


def test_routine_budgets_for_the_editor(base: Path) -> None:
    """The servers' entry point: a profile they hold -> each routine's budgets (no file read but
    the budget file)."""
    from gmonlens.check.budget_file import load_budgets
    from gmonlens.check.routine_budgets import about_binary, routine_budgets
    from gmonlens.load.loader import load_profile

    path = budgets(base, "  - {calls: hash, max: 1200}\n  - {arc: parse -> hash, equal: 1000}\n"
                         "  - {calls: cmp, range: [1, 10]}\n  - {time_share: hash, max_percent: 30}\n"
                         "  - {reached: [lookup, parse]}\n  - {calls: nope, max: 1}\n  - {no_new_callers: hash}\n"
                         "  - {calls: sort, max: 1, tests: [t1]}\n  - {time_share: even, max_percent: 5}\n",
                   "binary: prog\nprofiles: [prog.gmon]\nbaseline: {profiles: [prog.gmon]}\n")  # fmt: skip
    profile = load_profile(str(base / "prog"), [str(base / "prog.gmon")])
    assert about_binary(load_budgets(str(path)), str(base / "prog"))
    assert not about_binary(load_budgets(str(path)), str(base / "budgets.yaml"))
    view = routine_budgets(load_budgets(str(path)), profile, "prog")
    hash_id = named(profile.routines, "name")["hash"].id
    parse_id = named(profile.routines, "name")["parse"].id
    assert [(b.text, b.verdict, b.measured, b.limit) for b in view.of(hash_id)] == [
        ("calls 1,000 of 1,200 allowed", "pass", 1000.0, 1200.0),
        ("calls from parse 1,000 (exactly 1,000 allowed)", "pass", 1000.0, 1000.0),
        ("time 39.2% (33.0-45.8%) of the run (30% allowed): over budget", "fail", 200 / 510 * 100, 30.0),
    ]
    assert [b.text for b in view.of(parse_id)] == [
        "calls to hash 1,000 (exactly 1,000 allowed)",
        "must be reached: reached",
    ]
    assert [b.text for b in view.budgets if b.kind == "calls" and b.rule == 3] == [
        "calls 5,000 (1 to 10 allowed): over budget"
    ]
    assert [b.text for b in view.budgets if b.rule == 5] == [
        "must be reached: not reached",
        "must be reached: reached",
    ]
    assert view.problems == (
        f"{path}:10: rule 6 (calls): no routine 'nope' in prog",
        f"{path}:13: rule 9 (time_share): 'even' is a member of <cycle 1> (even, odd): gprof does not split a cycle's "
        "total time among its members; use 'measure: self' (its own samples)",
    )
    assert not [b for b in view.budgets if b.rule in (7, 8)]  # no baseline given; a rule for test t1 only
    with_test = routine_budgets(load_budgets(str(path)), profile, "prog", baseline=profile, test="t1")
    assert [b.text for b in with_test.budgets if b.rule in (7, 8)] == [
        "no new callers allowed: none",
        "calls 41 of 1 allowed: over budget",
    ]
    low = budgets(base, "  - {calls: hash, min: 2000}\n  - {arc: parse -> hash, range: [1001, 1100]}\n")
    assert [b.text for b in routine_budgets(load_budgets(str(low)), profile, "prog").of(hash_id)] == [
        "calls 1,000 (at least 2,000 required): below the minimum",
        "calls from parse 1,000 (1,001 to 1,100 allowed): below the minimum",
    ]
