"""The workspace's `gmonlens test` folder for agents (issue 29): the `tests` tool (the suite's tests,
or which tests reach a routine, with calls and time), and test selection in the other tools (a
`test` argument: answer from that test's profile alone, `TestViews`).

The suite folder is found as the language server finds it (`gmonlens_ide.suites`); each test's
figures are the CLI's (`gmonlens.suites.figures`), computed once per load; a test's own load
(`TestViews.view`) is discovery's with that test chosen (`suites.Choice`), kept for the last few
tests asked and loaded again when one of its files changes, as the workspace's own view is.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .rpc import ToolResult
from .workspace import Stamp, ToolFailure, View, Workspace, stamp

WITH_TEST = (
    "profile_summary",
    "top_routines",
    "routine_entry",
    "callers",
    "callees",
    "hot_lines",
    "disassembly",
)
TEST = {
    "type": "string",
    "minLength": 1,
    "maxLength": 4096,
    "description": "A test of the workspace's `gmonlens test` folder (a name the `tests` tool lists): answer "
    "from that test's profile alone instead of the workspace's",
}
FIGURES_WAIT = 300.0  # seconds the tool waits for the tests' figures (computed once per load)
KEPT = 4  # tests' loads kept


class TestViews:
    """Loads of single tests, beside the workspace's own (module docstring)."""

    __test__ = False

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._views: OrderedDict[str, tuple[Stamp, View]] = OrderedDict()
        self.generation = 1 << 20  # apart from the workspace's own loads' generations

    def view(self, test: str) -> View:
        """The load of `test`'s profiles; raises ToolFailure (unknown test, no suite, a bad file)."""
        from gmonlens_ide.session import load_folder
        from gmonlens_ide.suites import Choice

        held = self._views.get(test)
        if held is not None and stamp(list(held[1].outcome.inputs)) == held[0]:
            self._views.move_to_end(test)
            return held[1]
        settings, problems = self.workspace.settings()
        self.generation += 1
        outcome = load_folder(self.workspace.folder, settings, self.generation, None, Choice(test))
        if outcome.loaded is None:
            raise ToolFailure(outcome.blocking or f"test {test!r}: no profile loaded")
        view = View(outcome.loaded, outcome, tuple(problems))
        self._views[test] = (stamp(list(outcome.inputs)), view)
        while len(self._views) > KEPT:
            self._views.popitem(last=False)
        return view


def _suite_tests(view: View) -> ToolResult:
    from gmonlens_ide.suite_views import listing

    s = view.loaded.settings
    found = listing(view.folder, s.profiles, s.trusted, None)
    if found.suite is None:
        raise ToolFailure(found.problem or f"{view.folder}: no `gmonlens test` folder")
    tests = [
        {"name": t.name, "status": t.status, "duration_seconds": t.duration,
         "seconds": t.main.seconds if t.main else None, "binary": view.rel(t.main.binary) if t.main else None}
        for t in found.suite.tests
    ]  # fmt: skip
    out = {"suite": view.rel(found.suite.path), "tests": tests}
    failing = [str(t["name"]) for t in tests if t["status"] not in ("passed", "skipped", None)]
    text = f"{len(tests)} tests in {out['suite']}" + (
        f"; not passed: {', '.join(failing)}" if failing else ""
    )
    return ToolResult(out, text)


def _reaching(view: View, rid: int, limit: int) -> ToolResult:
    from gmonlens_ide.suite_views import reaches

    holder = reaches(view.loaded)
    if holder is None:
        raise ToolFailure(f"{view.folder}: no `gmonlens test` folder (run the tests with `gmonlens test`)")
    figures = holder.get(FIGURES_WAIT)
    if figures is None:
        raise ToolFailure("the tests' profiles are still being counted; ask again")
    if holder.problem is not None:
        raise ToolFailure(holder.problem)
    r = view.profile.routines[rid]
    rows: list[dict[str, Any]] = []
    for f in figures:
        found = next((x for x in f.profile.routines if x.address == r.address), None)
        if found is None:
            continue
        hz = f.profile.hz
        rows.append({
            "test": f.name, "status": f.status, "calls": found.calls,
            "self_seconds": found.self_samples / hz if hz else None,
            "total_seconds": found.total_samples / hz if hz else None,
            "total_error_seconds": found.total_samples**0.5 / hz if hz else None,
            "samples": found.total_samples,
        })  # fmt: skip
    rows.sort(key=lambda x: (-(x["total_seconds"] or 0.0), -x["calls"], x["test"]))
    out = {"routine": r.display_name, "binary": view.rel(view.loaded.binary), "tests": len(figures),
           "reached": len(rows), "reaching": rows[:limit]}  # fmt: skip
    text = f"{r.display_name}: reached by {len(rows)} of {len(figures)} tests"
    if rows:
        top = rows[0]
        time = f"{top['total_seconds']:.2f} s, " if top["total_seconds"] is not None else ""
        text += f"; costliest: {top['test']} ({time}{top['calls']:,} calls)"
    return ToolResult(out, text)


def tests(view: View, args: dict[str, Any]) -> ToolResult:
    """The `tests` tool (module docstring)."""
    if "routine" not in args:
        return _suite_tests(view)
    from .lookup import find

    return _reaching(view, find(view, args["routine"], args.get("file")), args["limit"])


TESTS_TITLE = "Tests"
TESTS_DESCRIPTION = (
    "The workspace's `gmonlens test` folder (a gprof profile per test): without `routine`, its tests "
    "with their own verdict, wall time and profiled seconds; with `routine`, which tests reach it "
    "(called it, were called by it or sampled in it), each with its exact calls in that test and its "
    "self and total seconds (± one standard error), costliest first. Other tools take `test` to "
    "answer from one test's profile."
)
ROUTINE_DESCRIPTION = "The routine whose tests to list; omit to list the suite's tests"


def view_for(workspace: Workspace, views: TestViews, args: dict[str, Any]) -> View:
    """The view a tool answers from: the test's when `args` names one (taken out of `args`)."""
    test = args.pop("test", None)
    return views.view(test) if isinstance(test, str) else workspace.view()
