"""`gmonlens check` names routines as gprof prints them, says which rules it cannot check, and
writes JUnit XML that Jenkins' schema accepts. A C++ program (check_programs/names_*.cpp: a
namespace, an overloaded member, a static `helper` in two files, a cycle) and the C program of
test_check_programs.py, built with -pg at test time."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gprof_harness import GMONLENS, gmonlens_env

from junit_schema import jenkins_junit_xsd

PROGRAMS = Path(__file__).parent / "check_programs"


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    gxx, gcc = shutil.which("g++"), shutil.which("gcc")
    if gxx is None or gcc is None or shutil.which("gprof") is None:
        pytest.skip("g++, gcc and gprof (GNU binutils) are needed")
    root = tmp_path_factory.mktemp("names")
    sources = [str(PROGRAMS / f"names_{p}.cpp") for p in ("main", "a", "b")]
    subprocess.run([gxx, "-pg", "-g", "-O1", *sources, "-o", str(root / "names")], check=True)
    subprocess.run(
        [gcc, "-pg", "-g", "-O1", str(PROGRAMS / "budgets.c"), "-o", str(root / "budgets")], check=True
    )
    for prog, args in (("names", []), ("budgets", ["hash", "1000", "3"])):
        subprocess.run([str(root / prog), *args], cwd=root, check=True, stdout=subprocess.DEVNULL)
        (root / "gmon.out").rename(root / f"{prog}.gmon")
    yield root


def check(root: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    (root / "b.yaml").write_text(text)
    return subprocess.run([str(GMONLENS), "check", *args, "b.yaml"], cwd=root, capture_output=True, text=True,
                          env={**gmonlens_env(), "XDG_CACHE_HOME": str(root / "cache")}, timeout=120)  # fmt: skip


GOOD = """binary: names
profiles: [names.gmon]
rules:
  - {calls: "ns::Counter::bump(int)", equal: 300}
  - {calls: _ZN2ns7Counter4bumpEd, equal: 200}
  - {calls: "helper(int) (names_a.cpp)", equal: 200}
  - {calls: "names_b.cpp:helper(int)", equal: 100}
  - {calls: "is_odd(unsigned int) <cycle 1> [10]", min: 1}
  - {arc: "from_a(int) -> helper(int) (names_a.cpp)", equal: 200}
  - {arc: {from: "from_b(int)", to: "helper(int) (names_b.cpp)"}, equal: 100}
  - {calls: from_a, equal: 100}
  - {time_share: "is_even(unsigned int)", max_percent: 50, measure: self}
"""


def test_every_name_gprof_prints_resolves(work: Path) -> None:
    out = check(work, GOOD, "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    rules = json.loads(out.stdout)["rules"]
    assert [r["verdict"] for r in rules[:8]] == ["pass"] * 8
    assert rules[0]["measured"] == 300 and rules[4]["measured"] > 0
    assert rules[8]["verdict"] == "undecided"  # a run of a few ms: not enough samples
    assert "not enough samples to decide" in rules[8]["reason"]


BAD = (
    GOOD
    + """  - {calls: "ns::Counter::bump", max: 1}
  - {calls: "helper(int)", max: 1}
  - {calls: hsh, max: 1}
  - {time_share: "is_even(unsigned int)", max_percent: 50}
  - {calls: "helper(int) (names_c.cpp)", max: 1}
"""
)


def test_rules_that_cannot_be_checked_get_one_line_each_and_exit_2(work: Path) -> None:
    out = check(work, BAD)
    assert out.returncode == 2
    errors = out.stderr.strip().splitlines()
    assert len(errors) == 5, out.stderr
    assert errors[0].startswith("b.yaml:13: rule 10 (calls): 'ns::Counter::bump' names 2 routines in names:")
    assert "ns::Counter::bump(int), ns::Counter::bump(double)" in errors[0]
    assert "helper(int) (names_a.cpp), helper(int) (names_b.cpp)" in errors[1]
    assert errors[2] == "b.yaml:15: rule 12 (calls): no routine 'hsh' in names"
    assert "is a member of <cycle 1>" in errors[3] and "measure: self" in errors[3]
    assert "no routine 'helper(int)' in a file 'names_c.cpp'" in errors[4]
    assert "ERROR      calls(hsh) <= 1: no routine 'hsh'" in out.stdout  # and the report says so
    assert "PASS       calls(ns::Counter::bump(int)) == 300: 300" in out.stdout


def test_a_profile_of_another_program_is_refused_in_one_line(work: Path) -> None:
    out = check(work, "binary: names\nprofiles: [budgets.gmon]\nrules:\n  - {calls: main, max: 1}\n")
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("b.yaml: profiles: budgets.gmon: profile does not fit names")


def _validate(xml: Path) -> None:
    xmlschema = pytest.importorskip("xmlschema")
    schema = xmlschema.XMLSchema(str(jenkins_junit_xsd()))
    schema.validate(str(xml))
    broken = xml.read_text().replace('<testsuite name="', '<testsuite label="', 1)  # name is required
    assert not schema.is_valid(broken)


def test_junit_validates_against_jenkins_schema(work: Path) -> None:
    budgets_run = (work / "budgets.gmon").resolve()
    text = BAD + f"""  - {{calls: "from_b(int)", max: 10}}
  - {{scaling: compare, binary: budgets, sizes: {{1000: {budgets_run}, 2000: {budgets_run}, 4000: {budgets_run}}}, max_order: n}}
"""  # fmt: skip
    out = check(work, text, "--junit", "report.xml", "--markdown", "report.md")
    assert out.returncode == 2
    _validate(work / "report.xml")
    xml = (work / "report.xml").read_text()
    assert 'failures="1"' in xml and 'errors="5"' in xml and 'skipped="2"' in xml
    md = (work / "report.md").read_text()
    assert "| ❌ fail | calls\\(from\\_b\\(int\\)\\) &lt;= 10 |" not in md  # parentheses are not escaped
    assert "| ❌ fail | calls(from\\_b(int)) &lt;= 10 | 100 |" in md


def test_per_test_junit_validates(work: Path) -> None:
    folder = work / "suite"
    for name in ("one", "two"):
        (folder / name).mkdir(parents=True, exist_ok=True)
        shutil.copy(work / "names.gmon", folder / name / "gmon.out")
    out = check(work, "binary: names\nprofiles: suite\nrules:\n  - {calls: from_a, max: 10}\n"
                "  - {calls: from_b, max: 1000, tests: [t*, o*]}\n", "--junit", "tests.xml", "--json")  # fmt: skip
    assert out.returncode == 1, out.stderr
    data: dict[str, Any] = json.loads(out.stdout)
    assert data["tests"] == ["one", "two"]  # sub-folders, no index.json
    assert [t["verdict"] for t in data["rules"][0]["tests"]] == ["fail", "fail"]
    _validate(work / "tests.xml")
    assert 'classname="one"' in (work / "tests.xml").read_text()
