"""The `check` tool: `gmonlens check` for agents. Every rule of a budget file checked on the
profiles it names (exact call counts, arcs, callers against a baseline, time against sampling
noise, scaling), answered as `gmonlens check --json` prints it (schema `gmonlens-check/1`: one
object per rule with its `verdict`, `measured` and `limit`), with the command's text.

The budget file: the `budgets` argument (relative to the workspace folder), else the workspace's
(`gmonlens_ide.budgets.find_budgets`: the `budgets` setting of gmonlens.yaml, else
`gmonlens-budgets.yaml` or `budgets.yaml` in the folder, its `perf/` or a build folder, about the
loaded program). A budget file is the workspace's: it and every path it names (programs, profiles,
test folders, baselines) must lie inside the workspace folder unless the server was started with
`--trust-workspace`. `test` checks one test of per-test profiles (a `gmonlens test` folder): the
rules that apply to it, on its profiles alone. The profiles are read on the worker thread; a
cancelled call stops before the next profile set.
"""

from __future__ import annotations

import os
import re
from typing import Any

from .rpc import ToolResult, cancel_event
from .workspace import ToolFailure, Workspace

TRUST = "read only when the server is started with --trust-workspace"

PROPERTIES: dict[str, Any] = {
    "budgets": {"type": "string", "minLength": 1, "maxLength": 4096,
                "description": "The budget file (YAML, `gmonlens check`'s), relative to the workspace folder. "
                "Default: the workspace's: gmonlens.yaml's `budgets`, else gmonlens-budgets.yaml or budgets.yaml "
                "in the folder, perf/ or a build folder, about the profiled program"},
    "test": {"type": "string", "minLength": 1, "maxLength": 4096,
             "description": "Check one test of the budget file's per-test profiles (a `gmonlens test` "
             "folder, as the `tests` tool lists them): the rules that apply to it, on its profiles alone"},
    "threshold": {"type": "number", "minimum": 0.1, "maximum": 100,
                  "description": "Time rules: noise bounds in standard errors (default: the file's, else 3)"},
}  # fmt: skip
TITLE = "Check budgets"
DESCRIPTION = (
    "gmonlens check: the workspace's performance budgets checked on gprof profiles, as CI checks "
    "them: exact call-count limits (calls of a routine, of an arc; no new callers or arcs against "
    "a baseline; routines reached), time shares and seconds decided against sampling noise "
    "('undecided' rather than a guess), and scaling orders fitted over input sizes. One result "
    "per rule, in the file's order: `verdict` (pass, fail or undecided), `measured`, `limit`, the "
    "arcs that carry a change; per test for a `gmonlens test` folder; `errors` for rules that "
    "could not be checked."
)

# ---- outputSchema: `gmonlens-check/1` (gmonlens.check.render_json) -------------------------------

_STR, _INT, _NUM = {"type": "string"}, {"type": "integer"}, {"type": "number"}
_VERDICT = {"enum": ["pass", "fail", "undecided"]}
_MEASURED = {
    "description": "a count, a percent, seconds, a list of names, or (scaling) a list of {size, value}"
}


def _maybe(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def _obj(props: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": [k for k in props if k not in optional]}


_ARC = _obj({"caller": _STR, "callee": _STR, "count": _INT, "baseline": _maybe(_INT),
             "seconds": _maybe(_NUM), "baseline_seconds": _maybe(_NUM)})  # fmt: skip
_FIGURES = {"low": _NUM, "high": _NUM, "z": _NUM, "exponent": _NUM, "exponent_error": _NUM,
            "order_exponent": _NUM, "like": _STR}  # fmt: skip
_OUTCOME = {"verdict": _VERDICT, "measured": _MEASURED, "shown": _STR, "reason": _STR, "arcs": _array(_ARC)}
_TEST = _obj({"test": _STR, **_OUTCOME, **_FIGURES}, tuple(_FIGURES))
_RULE = _obj(
    {
        "index": {**_INT, "description": "1-based position in the file"},
        "line": {**_maybe(_INT), "description": "the rule's line in the file"},
        "kind": _STR,
        "rule": {**_STR, "description": "the rule in words"},
        "name": _maybe(_STR),
        "routines": _array(_STR),
        "limit": {"type": "object"},
        **_OUTCOME,
        "test": {
            **_maybe(_STR),
            "description": "the test whose figures decided the verdict (per-test profiles)",
        },
        **_FIGURES,
        "tests": _array(_TEST),
        "errors": {**_array(_STR), "description": "why the rule could not be checked"},
    },
    (*_FIGURES, "tests", "errors"),
)
OUTPUT = _obj(
    {
        "schema": {"const": "gmonlens-check/1"},
        "budgets": _STR,
        "threshold": _NUM,
        "verdict": _VERDICT,
        "summary": _obj({"pass": _INT, "fail": _INT, "undecided": _INT, "not_checked": _INT}),
        "rules": _array(_RULE),
        "errors": {**_array(_STR), "description": "what kept rules from being checked (a routine that does not exist, an unreadable profile)"},
        "warnings": _array(_STR),
        "tests": {**_array(_STR), "description": "the tests checked (per-test profiles)"},
    }
)  # fmt: skip


class _Cancelled(Exception):
    pass


def _profiles() -> Any:
    """The engine's profile reader, stopping before each profile set once the call is cancelled."""
    from gmonlens.check.profiles import Profiles

    class Cancellable(Profiles):
        def load(self, binary: str, files: Any) -> Any:
            event = cancel_event()
            if event is not None and event.is_set():
                raise _Cancelled
            return super().load(binary, files)

    return Cancellable()


def _rel(folder: str, path: str) -> str:
    rel = os.path.relpath(path, folder)
    return path if rel.startswith("..") else rel


def _budget_file(workspace: Workspace, named: str | None) -> str:
    """The budget file to check (module doc); ToolFailure when there is none or it is fenced."""
    from gmonlens_ide.budgets import find_budgets
    from gmonlens_ide.settings import outside

    folder = workspace.folder
    if named is not None:
        path = os.path.normpath(os.path.join(folder, os.path.expanduser(named)))
        if not workspace.trusted and outside(folder, path):
            raise ToolFailure(f"{path}: leads outside the workspace folder: {TRUST}", {"budgets": path})
        return path
    settings, _ = workspace.settings()
    try:
        binary: str | None = workspace.view().loaded.binary  # the program the file must be about
    except ToolFailure:
        binary = None
    found = find_budgets(folder, settings, binary)
    if found.path is None:
        why = f" ({'; '.join(found.problems)})" if found.problems else ""
        raise ToolFailure(
            f"{folder}: no budget file{why}: name one (`budgets`), set `budgets` in gmonlens.yaml, or "
            "write gmonlens-budgets.yaml (`gmonlens check --suggest BINARY PROFILES -o gmonlens-budgets.yaml`)",
            {"problems": list(found.problems)},
        )
    return found.path


def check(workspace: Workspace, args: dict[str, Any]) -> ToolResult:
    """The `check` tool (module doc)."""
    from gmonlens.check.budget_file import load_budgets
    from gmonlens.check.render_json import to_json
    from gmonlens.check.render_text import render_text
    from gmonlens.check.run import run_check
    from gmonlens.common.errors import GmonlensError
    from gmonlens.common.safe_yaml import YamlFileError
    from gmonlens_ide.budgets import outside_paths

    path = _budget_file(workspace, args.get("budgets"))
    try:
        budgets = load_budgets(path)
    except YamlFileError as e:
        head = (
            e.lines[0] if len(e.lines) == 1 else f"{path}: {len(e.lines)} problems; the first: {e.lines[0]}"
        )
        raise ToolFailure(head, {"budgets": path, "errors": e.lines}) from None
    far = outside_paths(workspace.folder, budgets, workspace.trusted)
    if far:
        raise ToolFailure(
            f"{path}: names {far[0]}, outside the workspace folder: {TRUST}",
            {"budgets": path, "outside": far},
        )
    try:
        report = run_check(
            budgets, threshold=args.get("threshold"), test=args.get("test"), profiles=_profiles()
        )
    except GmonlensError as e:  # `test` names no test of the file's profiles
        raise ToolFailure(str(e), {"budgets": path}) from None
    except _Cancelled:
        raise ToolFailure("cancelled", {"budgets": path}) from None
    text = render_text(report).replace(
        f"gmonlens check {path}", f"gmonlens check {_rel(workspace.folder, path)}", 1
    )
    rule_error = re.compile(re.escape(path) + r"(:\d+)?: rule \d+ ")  # shown on its rule's line already
    more = [e for e in report.errors if not rule_error.match(e)]
    if more:
        text += "errors:\n" + "\n".join(more) + "\n"
    return ToolResult(to_json(report), text.rstrip("\n"))
