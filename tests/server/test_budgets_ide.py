"""A folder's budget file seen from the editor (issue 30, phase 2), without a toolchain (programs
described in Python: tests/golden_programs.py): which file belongs to the folder, the untrusted
workspace's fence, each routine's budgets on the load (the whole run, one test, a whole suite
checked test by test, rules against a baseline), what the hover and the lens say, and the
budgets computed again when their file changes, without loading the profile again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gmonlens_ide import budgets
from gmonlens_ide.session import LoadedFolder, load_folder
from gmonlens_ide.settings import Settings, effective_settings
from gmonlens_lsp import to_lsp
from gmonlens_lsp.features.code_lens import _ROUTINES, budget_marks
from golden_programs import Call, Program, Routine, elf_bytes, gmon_bytes
from routine_keys import named

NAMES = ["main", "parse", "hash", "sort", "cmp", "lookup", "x_*[weird]<b>", "zz_end"]
SAMPLES = {"main": 30, "parse": 50, "hash": 200, "sort": 120, "cmp": 100}
CALLS = (Call("main", "parse", 1), Call("parse", "hash", 1000), Call("main", "sort", 1), Call("sort", "cmp", 5000),
         Call("main", "x_*[weird]<b>", 3))  # fmt: skip


def program(calls: tuple[Call, ...] = CALLS) -> Program:
    return Program("t", tuple(Routine(n, samples=SAMPLES.get(n, 0)) for n in NAMES), calls, ())


@pytest.fixture(autouse=True)
def _cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "prog").write_bytes(elf_bytes(program()))
    os.chmod(ws / "prog", 0o755)
    (ws / "gmon.out").write_bytes(gmon_bytes(program()))
    return ws


def write_budgets(path: Path, rules: str, head: str = "binary: prog\nprofiles: [gmon.out]\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + "rules:\n" + rules)
    return path


def load(ws: Path, settings: Settings | None = None) -> LoadedFolder:
    out = load_folder(str(ws), settings or Settings(), 1)
    assert out.loaded is not None, out.blocking
    return out.loaded


def rid(loaded: LoadedFolder, name: str) -> int:
    return named(loaded.profile.routines, "name")[name].id


def computed(loaded: LoadedFolder) -> budgets.FolderBudgets:
    return loaded.budgets.compute(budgets.facts(loaded))


def texts(loaded: LoadedFolder, name: str) -> list[tuple[str, str]]:
    value = loaded.budgets.ready()
    assert value is not None
    return [(b.text, b.verdict) for b in value.of(rid(loaded, name))]


def test_which_budget_file(ws: Path) -> None:
    prog = str(ws / "prog")
    assert budgets.find_budgets(str(ws), Settings(), prog).path is None
    (ws / "budgets.yaml").write_text("max_upload_mb: 10\n")  # another tool's: passed over quietly
    found = budgets.find_budgets(str(ws), Settings(), prog)
    assert found.path is None and not found.problems and "not a gmonlens budget file" in found.notes[0]
    perf = write_budgets(ws / "perf" / "budgets.yaml", "  - {calls: hash, max: 2000}\n",
                         "binary: ../prog\nprofiles: [../gmon.out]\n")  # fmt: skip  # the README's CI recipe
    assert budgets.find_budgets(str(ws), Settings(), prog).path == str(perf)
    other = write_budgets(
        ws / "gmonlens-budgets.yaml", "  - {calls: hash, max: 1}\n", "binary: other\nprofiles: [gmon.out]\n"
    )
    found = budgets.find_budgets(str(ws), Settings(), prog)  # about another program: passed over
    assert found.path == str(perf) and any("budgets of" in n and "other" in n for n in found.notes)
    assert budgets.find_budgets(str(ws), Settings(), None).path == str(other)  # any program's (MCP)
    named = budgets.find_budgets(str(ws), Settings(budgets="gmonlens-budgets.yaml"), prog)
    assert named.path == str(other) and "checked on the loaded" in named.notes[0]  # the setting wins
    (ws / "gmonlens-budgets.yaml").write_text("binary: prog\nrules:\n  - {calls: hash, max: -3}\n")
    found = budgets.find_budgets(str(ws), Settings(), prog)  # ours but broken: said, passed over
    assert found.path == str(perf)
    assert (
        found.broken
        == f"{ws / 'gmonlens-budgets.yaml'}:3: rule 1 (calls): 'max': a whole number >= 0 is expected, not -3"
    )
    assert found.problems == (found.broken,)
    gone = budgets.find_budgets(str(ws), Settings(budgets="nope.yaml"), prog)
    assert gone.path is None and gone.broken is not None and "nope.yaml" in gone.broken


def test_build_folders_are_searched(ws: Path) -> None:
    write_budgets(ws / "build" / "budgets.yaml", "  - {calls: hash, max: 2000}\n",
                  "binary: ../prog\nprofiles: [../gmon.out]\n")  # fmt: skip
    assert budgets.find_budgets(str(ws), Settings(), str(ws / "prog")).path == str(
        ws / "build" / "budgets.yaml"
    )
    assert str(ws / "build" / "gmonlens-budgets.yaml") in budgets.watched_paths(str(ws), Settings())


def test_an_untrusted_workspace_reads_no_budget_file_outside(ws: Path, tmp_path: Path) -> None:
    far = write_budgets(tmp_path / "elsewhere" / "b.yaml", "  - {calls: hash, max: 2000}\n",
                        f"binary: {ws / 'prog'}\nprofiles: [{ws / 'gmon.out'}]\n")  # fmt: skip
    os.symlink(far, ws / "budgets.yaml")
    found = budgets.find_budgets(str(ws), Settings(), str(ws / "prog"))
    assert found.path is None
    assert found.problems == (f"{ws / 'budgets.yaml'}: leads outside the workspace folder: read only in a trusted "
                              "workspace (VS Code: trust the folder; other clients: trustedWorkspace in "
                              "initializationOptions); budgets ignored",)  # fmt: skip
    assert budgets.find_budgets(str(ws), Settings(trusted=True), str(ws / "prog")).path == str(
        ws / "budgets.yaml"
    )
    os.unlink(ws / "budgets.yaml")
    (ws / "gmonlens.yaml").write_text(f"budgets: {far}\n")  # the file's setting is fenced too
    settings, problems = effective_settings(str(ws), None)
    assert settings.budgets is None and any("`budgets` entry" in p for p in problems)
    settings, problems = effective_settings(str(ws), {"trustedWorkspace": True})
    assert settings.budgets == str(far) and not problems
    os.unlink(ws / "gmonlens.yaml")
    settings, problems = effective_settings(str(ws), {"budgets": 7})
    assert problems == ["client settings (gmonlens): `budgets` must be a string (a budget file); ignored"]
    # a budget file inside naming profiles and a baseline outside: those paths are not read
    inside = write_budgets(ws / "b.yaml", "  - {calls: hash, max: 2000}\n",
                           f"binary: prog\nprofiles: [gmon.out]\nbaseline: {{profiles: [{far}]}}\n")  # fmt: skip
    from gmonlens.check.budget_file import load_budgets

    assert budgets.outside_paths(str(ws), load_budgets(str(inside)), trusted=False) == [str(far)]
    assert budgets.outside_paths(str(ws), load_budgets(str(inside)), trusted=True) == []


def test_the_hover_and_the_lens_of_the_whole_run(ws: Path) -> None:
    write_budgets(ws / "budgets.yaml", "  - {calls: hash, max: 1200}\n  - {calls: cmp, max: 4999}\n"
                  "  - {arc: {from: main, to: 'x_*[weird]<b>'}, max: 3}\n  - {calls: nope, max: 1}\n"
                  "  - {time_share: hash, max_percent: 30}\n  - {calls: sort, min: 2}\n"
                  "  - {calls: parse, max: 5, tests: [t1]}\n")  # fmt: skip
    loaded = load(ws)
    value = computed(loaded)
    assert value.path == str(ws / "budgets.yaml") and value.broken is None
    assert value.problems == (f"{ws / 'budgets.yaml'}:7: rule 4 (calls): no routine 'nope' in prog",)
    assert texts(loaded, "hash") == [
        ("calls 1,000 of 1,200 allowed", "pass"),
        ("time 40.0% (33.7-46.7%) of the run (30% allowed): over budget", "fail"),
    ]
    assert texts(loaded, "cmp") == [("calls 5,000 of 4,999 allowed: over budget", "fail")]
    assert texts(loaded, "sort") == [("calls 1 (at least 2 required): below the minimum", "fail")]
    assert texts(loaded, "parse") == []  # a rule for test t1 only: not on the whole run
    hover = to_lsp.budget_markdown(budgets.routine_budgets_of(loaded, rid(loaded, "hash")))
    link = f"({(ws / 'budgets.yaml').as_uri()}#L"
    assert hover == (
        "**Budgets**:\n"
        f"- calls 1,000 of 1,200 allowed · pass · [rule 1, budgets.yaml:4]{link}4)\n"
        f"- time 40.0% (33.7-46.7%) of the run (30% allowed): over budget · [rule 5, budgets.yaml:8]{link}8)"
    )
    one = to_lsp.budget_markdown(budgets.routine_budgets_of(loaded, rid(loaded, "cmp")))
    assert one == f"**Budget**: calls 5,000 of 4,999 allowed: over budget · [rule 2, budgets.yaml:5]{link}5)"
    weird = to_lsp.budget_markdown(budgets.routine_budgets_of(loaded, rid(loaded, "main")))
    assert r"calls to x\_\*\[weird\]\<b\> 3 of 3 allowed · pass" in weird  # names made inert
    assert to_lsp.budget_markdown(budgets.routine_budgets_of(loaded, rid(loaded, "lookup"))) == ""
    assert budgets.lens_suffix(loaded, rid(loaded, "cmp")) == " · over budget"
    assert budgets.lens_suffix(loaded, rid(loaded, "main")) == ""
    lenses = [{"range": {}, "command": {"title": t, "command": "c"}} for t in ("a", "b")]
    loaded.lens_cache[_ROUTINES + "f.c"] = [rid(loaded, "cmp"), rid(loaded, "main")]
    assert [x["command"]["title"] for x in budget_marks(loaded, "f.c", lenses)] == ["a · over budget", "b"]
    assert lenses[0]["command"]["title"] == "a"  # the cached lenses are not changed


def test_an_edit_of_the_budget_file_computes_the_budgets_again(ws: Path) -> None:
    path = write_budgets(ws / "budgets.yaml", "  - {calls: hash, max: 999}\n")
    loaded = load(ws)
    computed(loaded)
    holder = loaded.budgets
    assert texts(loaded, "hash") == [("calls 1,000 of 999 allowed: over budget", "fail")]
    (ws / "notes.txt").write_text("unrelated")  # another file: nothing to do
    assert not holder.changed() and not holder.changed()
    write_budgets(path, "  - {calls: hash, max: 1000}  # raised\n")
    assert not holder.changed()  # seen once: wait for the write to settle
    assert holder.changed()  # still so: compute again
    assert not holder.changed()  # said once
    holder.compute(budgets.facts(loaded), force=True)
    assert texts(loaded, "hash") == [("calls 1,000 of 1,000 allowed", "pass")]
    path.write_text("binary: prog\nrules: [")  # broken while being typed
    assert not holder.changed() and holder.changed()
    value = holder.compute(budgets.facts(loaded), force=True)
    assert value.path is None and value.routines == {}
    assert value.broken == (
        f"{path}:2: not valid YAML: while parsing a flow node expected the node content, but found '<stream end>'"
    )
    assert value.problems == (value.broken,)
    (ws / "gmonlens-budgets.yaml").write_text(
        "binary: prog\nprofiles: [gmon.out]\nrules:\n  - {calls: hash, max: 5}\n"
    )
    assert not holder.changed() and holder.changed()  # a budget file appearing counts too


def test_rules_against_the_budget_files_baseline(ws: Path) -> None:
    base = ws / "base"
    base.mkdir()
    (base / "gmon.out").write_bytes(gmon_bytes(program(CALLS[:4])))  # x_* was never called then
    write_budgets(ws / "budgets.yaml", "  - {no_new_callers: 'x_*[weird]<b>'}\n  - {no_new_callers: hash}\n",
                  "binary: prog\nprofiles: [gmon.out]\nbaseline: {profiles: [base/gmon.out]}\n")  # fmt: skip
    loaded = load(ws, Settings(profiles=("gmon.out",)))
    computed(loaded)
    assert texts(loaded, "x_*[weird]<b>") == [("no new callers allowed: main", "fail")]
    assert texts(loaded, "hash") == [("no new callers allowed: none", "pass")]


def suite(ws: Path) -> Path:
    """A `gmonlens test` folder of prog: t1 calls hash 1000 times, t2 1500 times, t3 500."""
    folder = ws / "gmonlens-test"
    tests = []
    for name, n in (("t1", 1000), ("t2", 1500), ("t3", 500)):
        calls = (
            Call("main", "parse", 1),
            Call("parse", "hash", n),
            Call("main", "sort", 1),
            Call("sort", "cmp", 10),
        )
        (folder / name).mkdir(parents=True)
        (folder / name / "gmon.out").write_bytes(gmon_bytes(program(calls)))
        tests.append(
            {"name": name, "status": "passed", "binary": "../prog", "profiles": [f"{name}/gmon.out"]}
        )
    (folder / "index.json").write_text(json.dumps({"schema": "gmonlens-test/1", "tests": tests}))
    os.unlink(ws / "gmon.out")
    write_budgets(ws / "budgets.yaml", "  - {calls: hash, max: 1200}\n  - {calls: cmp, max: 5, tests: [t2]}\n",
                  "binary: prog\nprofiles: gmonlens-test\n")  # fmt: skip
    return folder


def test_one_test_of_a_suite_shows_that_tests_rules(ws: Path) -> None:
    folder = suite(ws)
    loaded = load(ws, Settings(binary="prog", profiles=(str(folder / "t2" / "gmon.out"),)))
    value = computed(loaded)
    assert not value.per_test
    assert texts(loaded, "hash") == [("calls 1,500 of 1,200 allowed: over budget", "fail")]
    assert texts(loaded, "cmp") == [("calls 10 of 5 allowed: over budget", "fail")]  # t2's own rule
    loaded = load(ws, Settings(binary="prog", profiles=(str(folder / "t3" / "gmon.out"),)))
    computed(loaded)
    assert texts(loaded, "hash") == [("calls 500 of 1,200 allowed", "pass")]
    assert texts(loaded, "cmp") == []  # the rule is t2's


def test_a_whole_suite_is_checked_test_by_test(ws: Path) -> None:
    suite(ws)
    loaded = load(ws)  # no profile of its own: the whole suite, summed (3,000 calls of hash)
    assert loaded.profile.routines[rid(loaded, "hash")].calls == 3000
    value = computed(loaded)
    assert value.per_test and not value.problems
    (hash_line,) = value.of(rid(loaded, "hash"))
    assert (hash_line.text, hash_line.test, hash_line.tests, hash_line.failing) == (
        "calls 1,500 of 1,200 allowed: over budget", "t2", 3, 1)  # fmt: skip
    (cmp_line,) = value.of(rid(loaded, "cmp"))
    assert (cmp_line.verdict, cmp_line.test, cmp_line.tests) == ("fail", "t2", 1)
    hover = to_lsp.budget_markdown(budgets.routine_budgets_of(loaded, rid(loaded, "hash")))
    assert hover.startswith(
        "**Budget**: calls 1,500 of 1,200 allowed: over budget in t2 · fails in 1 of 3 tests · [rule 1"
    )
    write_budgets(
        ws / "budgets.yaml", "  - {calls: hash, max: 2000}\n", "binary: prog\nprofiles: gmonlens-test\n"
    )
    loaded.budgets.compute(budgets.facts(loaded), force=True)
    hover = to_lsp.budget_markdown(budgets.routine_budgets_of(loaded, rid(loaded, "hash")))
    assert hover.startswith(
        "**Budget**: calls 1,500 of 2,000 allowed in t2 · pass · passes in all 3 tests"
    ), hover


def test_the_hover_computes_them_when_asked_first(ws: Path) -> None:
    write_budgets(ws / "budgets.yaml", "  - {calls: hash, max: 1200}\n")
    loaded = load(ws)
    got = budgets.routine_budgets_of(loaded, rid(loaded, "hash"), wait=30)
    assert got is not None and got.label == "budgets.yaml" and got.lines[0].verdict == "pass"
