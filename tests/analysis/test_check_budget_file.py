"""The budget file as untrusted input: every field typed and checked, one line per problem naming
the file, the line and the rule; hostile YAML refused in one line (pure, plus a temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gmonlens.check.budget_file import load_budgets
from gmonlens.check.rules import (
    ArcRule,
    Bounds,
    CallsRule,
    NoNewArcsRule,
    NoNewCallersRule,
    NoNewRoutinesRule,
    ReachedRule,
    ScalingRule,
    TimeRule,
    TimeShareRule,
)
from gmonlens.common.safe_yaml import MAX_BYTES, YamlFileError


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("gmon.out", "base.out", "gmon.1k", "gmon.2k", "gmon.4k", "gmon.out.1", "gmon.out.2"):
        (tmp_path / name).write_bytes(b"")
    return tmp_path


def write(folder: Path, text: str) -> str:
    path = folder / "budgets.yaml"
    path.write_text(text)
    return str(path)


def problems(folder: Path, text: str) -> list[str]:
    with pytest.raises(YamlFileError) as e:
        load_budgets(write(folder, text))
    prefix = str(folder / "budgets.yaml")
    assert all(line.startswith(prefix) for line in e.value.lines)
    assert str(e.value) == "\n".join(e.value.lines)
    return [line.removeprefix(prefix) for line in e.value.lines]


ISSUE_EXAMPLE = """binary: prog
profiles: [gmon.out]                # or a `gmonlens test` folder
baseline: {binary: prog-base, profiles: [base.out]}
rules:
  - {calls: hash, max: 1000000}
  - {arc: parse -> hash, max: 100}
  - {no_new_callers: hash}          # against the baseline
  - {scaling: sort, sizes: {1000: gmon.1k, 2000: gmon.2k, 4000: gmon.4k}, max_order: n log n}
  - {time_share: sort, max_percent: 30}
"""


def test_the_issues_example(folder: Path) -> None:
    b = load_budgets(write(folder, ISSUE_EXAMPLE))
    assert b.current is not None and b.baseline is not None
    assert b.current.binary == str(folder / "prog")
    assert b.current.profiles.files == (str(folder / "gmon.out"),)
    assert b.baseline.binary == str(folder / "prog-base")
    calls, arc, callers, scaling, share = b.rules
    assert calls == CallsRule(index=1, line=5, routine="hash", bounds=Bounds(None, 1_000_000))
    assert isinstance(arc, ArcRule) and (arc.caller, arc.callee, arc.bounds.max) == ("parse", "hash", 100)
    assert isinstance(callers, NoNewCallersRule) and callers.needs_baseline
    assert isinstance(scaling, ScalingRule) and scaling.order.label == "n log n" and scaling.of == "calls"
    assert [n for n, _ in scaling.sizes] == [1000, 2000, 4000]
    assert scaling.sizes[0][1] == (str(folder / "gmon.1k"),) and scaling.binary == str(folder / "prog")
    assert isinstance(share, TimeShareRule) and share.max_percent == 30 and share.measure == "total"
    assert [r.describe() for r in b.rules] == [
        "calls(hash) <= 1,000,000",
        "calls(parse -> hash) <= 100",
        "no new callers of hash",
        "calls(sort) grows at most as O(n log n)",
        "time share(sort) <= 30%",
    ]


def test_every_rule_kind_and_spelling(folder: Path) -> None:
    b = load_budgets(write(folder, """binary: prog
profiles: "gmon.out.*"
baseline: {profiles: base.out}
threshold: 4
version: 1
rules:
  - {calls: hash, ==: 1e6}
  - {calls: hash, equal: "1,000,000", name: exact hash}
  - {calls: hash, range: [10, 1_000]}
  - {calls: hash, min: 5, max: 7}
  - {arc: {from: "A::operator->()", to: "B"}, min: 1}
  - {arc: "a::operator->() -> b", max: 3}
  - {no_new_arcs: true}
  - {no_new_arcs: parse, tests: [unit*]}
  - {reached: hash}
  - {not_reached: [debug_dump, trace]}
  - {no_new_routines: true}
  - {scaling: sort, sizes: {1k: gmon.1k, 2k: [gmon.2k], 4k: "gmon.out.*"}, max_order: 2, of: time, measure: self, tolerance: 0.2}
  - {time_share: sort, max_percent: "30%", measure: self}
  - {time: sort, max_increase_percent: 10, max_seconds: 2.5, normalize: true}
  - {time: sort, max_seconds: 1}
"""))  # fmt: skip
    assert b.threshold == 4 and b.current is not None
    assert b.current.profiles.files == (str(folder / "gmon.out.1"), str(folder / "gmon.out.2"))
    assert b.baseline is not None and b.baseline.binary == str(folder / "prog")
    r = b.rules
    assert [x.bounds for x in r[:4]] == [
        Bounds(10**6, 10**6),
        Bounds(10**6, 10**6),
        Bounds(10, 1000),
        Bounds(5, 7),
    ]  # type: ignore[attr-defined]
    assert r[1].title() == "exact hash" and r[1].describe() == "calls(hash) == 1,000,000"
    assert (r[4].caller, r[4].callee) == ("A::operator->()", "B")  # type: ignore[attr-defined]
    assert (r[5].caller, r[5].callee) == ("a::operator->()", "b")  # type: ignore[attr-defined]
    assert isinstance(r[6], NoNewArcsRule) and r[6].routine is None
    assert isinstance(r[7], NoNewArcsRule) and r[7].routine == "parse" and r[7].tests == ("unit*",)
    assert isinstance(r[8], ReachedRule) and r[8].reached and r[8].names == ("hash",)
    assert isinstance(r[9], ReachedRule) and not r[9].reached
    assert isinstance(r[10], NoNewRoutinesRule)
    s = r[11]
    assert isinstance(s, ScalingRule) and (s.of, s.measure, s.tolerance, s.order.label) == (
        "time",
        "self",
        0.2,
        "n^2",
    )
    assert s.sizes[2] == (4000, (str(folder / "gmon.out.1"), str(folder / "gmon.out.2")))
    assert isinstance(r[13], TimeRule) and r[13].needs_baseline and r[13].normalize
    assert isinstance(r[14], TimeRule) and not r[14].needs_baseline


def test_a_folder_makes_the_profiles_per_test(folder: Path) -> None:
    (folder / "suite").mkdir()
    b = load_budgets(write(folder, "binary: prog\nprofiles: suite\nrules: [{calls: a, max: 1}]\n"))
    assert b.current is not None and b.current.profiles.folder == str(folder / "suite")
    assert problems(folder, "binary: prog\nprofiles: [suite, gmon.out]\nrules: [{calls: a, max: 1}]\n") == [
        ":2: 'profiles': a `gmonlens test` folder ("
        + str(folder / "suite")
        + ") stands alone, not with other profiles"
    ]


def test_every_problem_is_one_line_naming_file_line_and_rule(folder: Path) -> None:
    lines = problems(folder, """binary: prog
profiles: [gmon.*.nomatch]
rulez: 3
rules:
  - {calls: hash, maxx: 1000000}
  - {arc: parse, max: 100}
  - {calls: on, max: -3}
  - {scaling: sort, sizes: {1000: gmon.1k, 2000: gmon.2k}, max_order: n log}
  - {time_share: sort, max_percent: 130}
  - {calls: hash, max: 5, equal: 5}
  - {no_new_callers: hash}
  - 17
  - {}
  - {calls: a, arc: a -> b}
  - {time: x}
  - {calls: x, range: [5, 1]}
  - {calls: x, min: 9, max: 2}
  - {scaling: x, sizes: {1000: a, 1k: b, 3: c}, max_order: n, tests: [t]}
  - {no_new_arcs: false}
  - {calls: x, max: 1.5}
""")  # fmt: skip
    assert lines == [
        ":2: 'profiles': no file matches 'gmon.*.nomatch'",
        ":3: unknown key 'rulez' (did you mean 'rules'?)",
        ":5: rule 1 (calls): unknown key 'maxx' (did you mean 'max'?)",
        ":5: rule 1 (calls): a limit is missing: max, min, equal (or ==), or range: [min, max]",
        ":6: rule 2 (arc): 'arc': 'CALLER -> CALLEE' is expected (or {from: CALLER, to: CALLEE} when a name holds '->')",
        ":7: rule 3 (calls): 'calls': a routine name is expected, not true (quote a name YAML reads as another type)",
        ":7: rule 3 (calls): 'max': a whole number >= 0 is expected, not -3",
        ":8: rule 4 (scaling): 'sizes': three sizes or more are needed to fit an exponent, not 2",
        ":8: rule 4 (scaling): 'max_order': an order is expected (n, n log n, n^2, an exponent such as 1.5), not 'n log'",
        ":9: rule 5 (time_share): 'max_percent': a number from 0 to 100 is expected, not 130",
        ":10: rule 6 (calls): one limit per rule (max, equal given): max and min together, or equal, or range",
        ":11: rule 7 (no_new_callers): needs a baseline: add 'baseline: {binary: ..., profiles: [...]}'",
        ":12: rule 8: a mapping is expected ({calls: hash, max: 1000}, ...)",
        ":13: rule 9: no rule kind: one of calls, arc, no_new_callers, no_new_arcs, reached, not_reached, "
        "no_new_routines, scaling, time_share, time is expected",
        ":14: rule 10: one kind per rule, not 2 (calls, arc)",
        ":15: rule 11 (time): a limit is missing: max_increase_percent (against the baseline) or max_seconds",
        ":16: rule 12 (calls): 'range': min 5 is above max 1",
        ":17: rule 13 (calls): min 9 is above max 2",
        ":18: rule 14 (scaling): 'sizes': size 1,000 given twice",
        ":18: rule 14 (scaling): 'tests' does not apply to a scaling rule (its profiles are named by size)",
        ":19: rule 15 (no_new_arcs): 'no_new_arcs': true (every arc) or a routine name is expected, not false",
        ":20: rule 16 (calls): 'max': a whole number >= 0 is expected, not 1.5",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", ": a mapping (binary, profiles, rules) is expected at the top"),
        ("- a\n- b\n", ": a mapping (binary, profiles, rules) is expected at the top"),
        ("binary: p\nprofiles: gmon.out\n", ":1: 'rules' is missing"),
        ("binary: p\nprofiles: gmon.out\nrules: []\n", ":3: rules: a non-empty list of rules is expected"),
        ("profiles: gmon.out\nrules: [{calls: a, max: 1}]\n", ":1: 'binary' is missing"),
        ("binary: p\nrules: [{calls: a, max: 1}]\n", ":2: rule 1 (calls): needs 'profiles' at the top of the file"),
        ("binary: p\nversion: 2\nprofiles: gmon.out\nrules: [{calls: a, max: 1}]\n", ":1: 'version': 1 is expected, not 2"),
        ("binary: p\nthreshold: 0\nprofiles: gmon.out\nrules: [{calls: a, max: 1}]\n",
         ":2: 'threshold': a number from 0.1 to 100 is expected, not 0"),
        ("binary: p\nprofiles: gmon.out\nbaseline: base.out\nrules: [{calls: a, max: 1}]\n",
         ":3: baseline: a mapping {binary: ..., profiles: [...]} is expected"),
        ("binary: p\nprofiles: gmon.out\nbaseline: {binary: q}\nrules: [{calls: a, max: 1}]\n",
         ":3: baseline: 'profiles' is missing"),
        ("binary: [p]\nprofiles: gmon.out\nrules: [{calls: a, max: 1}]\n", ":1: 'binary': a path is expected, not a list"),
    ],
)  # fmt: skip
def test_top_level_problems(folder: Path, text: str, problem: str) -> None:
    assert problems(folder, text)[0] == problem


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: &x [1]\nb: *x\n", ":2: aliases (*name) are not accepted in a budget file"),
        ("a: 1\na: 2\n", ":2: key 'a' repeated in one mapping"),
        ("[" * 40 + "]" * 40, ":1: nested deeper than 32 levels"),
        ("a: [\n", ":2: not valid YAML: while parsing a flow node expected the node content, but found '<stream end>'"),
        ("a: !!python/object/apply:os.system [ls]\n",
         ":1: not valid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system'"),
        ("x: " + "y" * 5000 + "\n", ":1: a value longer than 4096 characters"),
        ("{[1]: 2}\n", ":1: not valid YAML: while constructing a mapping found unhashable key"),
        ("a: b\n\0\n", ":2: a NUL byte"),
    ],
)  # fmt: skip
def test_hostile_yaml_is_one_line(folder: Path, text: str, problem: str) -> None:
    assert problems(folder, text) == [problem]


def test_a_billion_laughs_is_refused_at_its_first_alias(folder: Path) -> None:
    laughs = 'a: &a ["lol","lol"]\nb: &b [*a,*a]\nc: &c [*b,*b]\nd: [*c,*c]\n'
    assert problems(folder, laughs) == [":2: aliases (*name) are not accepted in a budget file"]


def test_files_that_are_not_budget_files(folder: Path) -> None:
    big = folder / "big.yaml"
    big.write_bytes(b"#" * (MAX_BYTES + 1))
    with pytest.raises(YamlFileError, match="too large"):
        load_budgets(str(big))
    with pytest.raises(YamlFileError, match="is a directory"):
        load_budgets(str(folder))
    with pytest.raises(YamlFileError, match="no such file"):
        load_budgets(str(folder / "missing.yaml"))
    (folder / "latin1.yaml").write_bytes(b"binary: caf\xe9\n")
    with pytest.raises(YamlFileError, match=r"latin1.yaml:1: not UTF-8 text"):
        load_budgets(str(folder / "latin1.yaml"))
    fifo = folder / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(YamlFileError, match="named pipe"):
        load_budgets(str(fifo))


def test_paths_are_relative_to_the_budget_file(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")
    (folder / "ci").mkdir()
    path = folder / "ci" / "b.yaml"
    path.write_text("binary: ../prog\nprofiles: [../gmon.out, /abs/gmon.out]\nrules: [{calls: a, max: 1}]\n")
    b = load_budgets(str(path))
    assert b.current is not None and b.current.binary == str(folder / "prog")
    assert b.current.profiles.files == (str(folder / "gmon.out"), "/abs/gmon.out")


def test_a_glob_does_not_escape_through_the_folder_name(tmp_path: Path) -> None:
    odd = tmp_path / "a[b]"  # a folder whose name is itself a glob pattern
    odd.mkdir()
    (odd / "gmon.out.7").write_bytes(b"")
    b = load_budgets(write(odd, "binary: p\nprofiles: 'gmon.out.*'\nrules: [{calls: a, max: 1}]\n"))
    assert b.current is not None and b.current.profiles.files == (str(odd / "gmon.out.7"),)
