"""One session with a real server on the example program (`example_program.py`): a client that
initializes with every setting, waits for the load, then sends each custom request and command the
way the VS Code extension does; every message of gmonlens's own contract is kept, under its
example file's name (protocol/README.md), with this machine's paths made the documented ones.
"""

from __future__ import annotations

import asyncio
import gc
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from gmonlens.runs import recording
from gmonlens.runs.launch import RunOutcome, RunSetup
from gmonlens.runs.preload import Preload
from gmonlens_ide import pinstore
from gmonlens_lsp import reload
from gmonlens_lsp.factory import create_server

from .example_program import LAUNCHER, SOURCE, line_of, write_workspace
from .wire_client import WireClient

HOME = "/home/user"
FOLDER = f"{HOME}/example"  # the workspace folder the examples show
CACHE = f"{HOME}/.cache"  # their $XDG_CACHE_HOME
DATA = f"{HOME}/.local/share"  # their $XDG_DATA_HOME (pinned baselines)
PIN = "pin-0123456789abcdef"  # a pin's folder (its name is random)

# initializationOptions: every setting of the `gmonlens` section, as a person may set them
SETTINGS: dict[str, Any] = {
    "binary": "prog",
    "profiles": ["gmon.out"],
    "staticCallGraph": False,
    "clones": "gprof",
    "sourceMap": {"/build/example": "."},
    "lensTitle": "{percent}% · self {self} s · total {total} s{few} · {calls} calls{cycle}",
    "baseline": {"profiles": ["old/gmon.out"]},
    "pinFolder": ".gmonlens/pins",  # unset: $XDG_DATA_HOME/gmonlens/baselines/<folder hash>
    "lineHeatLabel": "{seconds} s · {percent}%{few}",
    "lineHeatMinPercent": 1.0,
    "budgets": "perf/budgets.yaml",  # unset: gmonlens-budgets.yaml or budgets.yaml found by name
    "trustedWorkspace": True,
}


def _pin_dirs(ws: Path) -> tuple[str, str]:
    """The folder's pinned-baseline directory here and as the examples show it (`pin_dir` of the
    documented folder, under the documented data folder)."""
    here = pinstore.pin_dir(str(ws.resolve()))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_DATA_HOME", DATA)
        shown = pinstore.pin_dir(FOLDER)
    assert here is not None and shown is not None
    return here, shown


def normaliser(ws: Path, cache: Path) -> Callable[[Any], Any]:
    """Rewrites this run's paths (tmp folders) as the documented ones, in every string of a value
    (called while $XDG_CACHE_HOME is `cache` and $XDG_DATA_HOME its sibling `data`)."""
    import re

    real = str(ws.resolve())
    pairs = [
        _pin_dirs(ws),
        (str(cache.resolve()), CACHE),
        (str((cache.parent / "data").resolve()), DATA),
        (quote(ws.resolve().as_uri(), safe=""), quote(f"file://{FOLDER}", safe="")),
        (ws.resolve().as_uri(), f"file://{FOLDER}"),
        (real, FOLDER),
        (str(ws), FOLDER),
    ]  # fmt: skip

    def fix(v: Any) -> Any:
        if isinstance(v, str):
            for old, new in pairs:
                v = v.replace(old, new)
            return re.sub(r"/pin-[0-9a-f]{16}/", f"/{PIN}/", v)
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, dict):
            return {fix(k): fix(x) for k, x in v.items()}
        return v

    return fix


async def _session(c: WireClient, ws: Path) -> dict[str, Any]:
    """The messages, in the order a session makes them (the files' names: protocol/README.md)."""
    folder = ws.as_uri()
    main_c = (ws / SOURCE).as_uri()
    text = (ws / SOURCE).read_text()
    out: dict[str, Any] = {"initialize.initializationOptions": SETTINGS}
    await c.request(
        "initialize",
        {
            "processId": None,
            "rootUri": folder,
            "capabilities": {},
            "workspaceFolders": [{"uri": folder, "name": "example"}],
            "initializationOptions": SETTINGS,
        },
    )
    c.notify("initialized", {})
    out["gmonlens.status.params"] = await c.notification("gmonlens/status", lambda p: p["state"] == "loaded")

    lenses = await c.request("textDocument/codeLens", {"textDocument": {"uri": main_c}})
    by_symbol = {lens["command"]["arguments"][2]: lens["command"]["arguments"] for lens in lenses}
    work_at = {"line": line_of(text, "long work(int n)") - 1, "character": 5}
    main_at = {"line": line_of(text, "int main(void)") - 1, "character": 4}
    items = await c.request(
        "textDocument/prepareCallHierarchy", {"textDocument": {"uri": main_c}, "position": work_at}
    )
    out["callHierarchyItem.data"] = items[0]["data"]

    requests: list[tuple[str, str, Any]] = [
        ("gmonlens.lineHeat", "", {"textDocument": {"uri": main_c}}),
        ("gmonlens.callGraph", "", {"textDocument": {"uri": main_c}, "position": main_at, "depth": 2}),
        ("gmonlens.flameGraph", "", {"folder": folder}),
        ("gmonlens.disassembly", "",
         {"textDocument": {"uri": main_c}, "position": work_at, "compact": True, "symbol": "work"}),
    ]  # fmt: skip
    for name, variant, params in requests:
        out[f"{name}.params{variant}"] = params
        out[f"{name}.result{variant}"] = await c.request(name.replace(".", "/", 1), params)
    graph = out["gmonlens.callGraph.result"]
    centre = next(n for n in graph["nodes"] if n["id"] == graph["center"])
    out["gmonlens.callGraph.params.routine"] = {
        "folder": folder, "routine": centre["id"], "generation": graph["generation"], "name": centre["name"],
        "depth": 1,
    }  # fmt: skip
    out["gmonlens.callGraph.params.whole"] = {"whole": True, "folder": folder}
    out["gmonlens.callGraph.params.options"] = {  # every option (VS Code sends none of these)
        "textDocument": {"uri": main_c}, "position": work_at, "depth": 3, "maxNodes": 50,
        "nodeThreshold": 1.0, "edgeThreshold": 0.5,
    }  # fmt: skip
    for variant in ("routine", "whole", "options"):
        assert await c.request("gmonlens/callGraph", out[f"gmonlens.callGraph.params.{variant}"])
    out["gmonlens.flameGraph.params.options"] = {"folder": folder, "minPercent": 1.0}
    assert await c.request("gmonlens/flameGraph", out["gmonlens.flameGraph.params.options"])
    out["gmonlens.disassembly.params.uri"] = {"uri": out["gmonlens.disassembly.result"]["uri"]}
    assert await c.request("gmonlens/disassembly", out["gmonlens.disassembly.params.uri"])
    out["gmonlens.disassembly.params.name"] = {"name": "leaf", "folder": folder, "syntax": "intel"}
    with pytest.MonkeyPatch.context() as mp:  # a Python without capstone (the platform-neutral package)
        mp.setitem(sys.modules, "capstone", None)
        out["gmonlens.disassembly.result.error"] = await c.request(
            "gmonlens/disassembly", out["gmonlens.disassembly.params.name"]
        )

    commands: list[tuple[str, list[Any]]] = [
        ("gmonlens.report", [folder]),
        ("gmonlens.hottest", ["self", 100]),
        ("gmonlens.showCallers", by_symbol["work"]),  # a lens's command and arguments
        ("gmonlens.showDisassembly", by_symbol["leaf"]),  # the client's lens beside it: the same arguments
        ("gmonlens.changes", [folder]),
        ("gmonlens.reload", [folder]),
        ("gmonlens.pinBaseline", [folder]),
        ("gmonlens.clearBaseline", [folder]),
        ("gmonlens.tests", [folder]),
        ("gmonlens.selectTest", [folder, {"test": "work.large"}]),  # its profile loaded instead
    ]
    for name, arguments in commands:
        out[f"command.{name}.arguments"] = arguments
        out[f"command.{name}.result"] = await c.command(name, arguments)
    for variant, choice in (("suite", {"test": None}), ("auto", None)):  # the whole suite; discovery's again
        out[f"command.gmonlens.selectTest.arguments.{variant}"] = [folder, choice]
        out[f"command.gmonlens.selectTest.result.{variant}"] = await c.command(
            "gmonlens.selectTest", [folder, choice]
        )
    # last: a recording reloads the folder (here the `profiles` setting keeps gmon.out shown)
    out["gmonlens.record.params"] = {
        "folder": folder, "argv": [f"./{LAUNCHER}", "--quick"], "cwd": ".",
        "options": {"runs": 2, "precision": 2.5, "onSignalExit": True, "arcs": "auto", "binaries": ["prog"],
                    "preload": True, "env": {"TEST_SEED": "7"}},
        "workDoneToken": "record-1",
    }  # fmt: skip
    out["gmonlens.record.result"] = await c.request("gmonlens/record", out["gmonlens.record.params"])
    await c.request("shutdown", None)
    return out


class ExampleRuns:
    """`gmonlens/record`'s runs of `./run-tests`, made here (the fast tier starts no process),
    as the helper library and glibc would leave them: run-tests (pid 4242, 4252, ...) forks a
    child that execs `prog`, which writes the example's profile (gmon.out) where GMON_OUT_PREFIX
    says and exits after 4.5 s of CPU time (more than its samples cover: time in libraries)."""

    def __init__(self, ws: Path, cache: Path) -> None:
        self.ws = ws
        self.helper = str(cache / "gmonlens" / "preload" / "libgmonlens-record.so")
        self.runs = 0

    def preload(self, env: Any, cwd: str) -> Preload:
        return Preload(self.helper, ("cc",), cached=True, machine=62, wide=True)

    def run(self, setup: RunSetup) -> RunOutcome:
        pid = 4242 + 10 * self.runs
        self.runs += 1
        child, launcher, prog = pid + 1, str(self.ws / LAUNCHER), str(self.ws / "prog")
        shutil.copyfile(self.ws / "gmon.out", f"{setup.env['GMON_OUT_PREFIX']}.{child}")
        records = [(pid, 1, "start", 0, 0, launcher), (child, pid, "fork", 0, 0, launcher),
                   (child, pid, "start", 0, 0, prog), (child, pid, "exit", 4_480_000, 20_000, prog),
                   (pid, 1, "exit", 1_000, 2_000, launcher)]  # fmt: skip
        with open(setup.env["GMONLENS_RECORD_LOG"], "a", encoding="utf-8") as log:
            log.write("".join("\t".join(map(str, r)) + "\0" for r in records))
        return RunOutcome(pid, 0, None, 4.481, 0.022, 4.6)


def run_session(ws: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Writes the example program into `ws` (an empty folder that does not exist yet) and runs the
    session with `cache` as $XDG_CACHE_HOME; the messages, normalised, by example name."""
    write_workspace(ws)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("XDG_DATA_HOME", str(cache.parent / "data"))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)

    async def no_warm_up(ls: Any, args: list[str]) -> None:  # no subprocess in the fast tier
        return None

    monkeypatch.setattr(reload, "_warm", no_warm_up)
    runs = ExampleRuns(ws, cache)
    monkeypatch.setattr(recording, "run_once", runs.run)
    monkeypatch.setattr(recording, "build_preload", runs.preload)
    monkeypatch.setattr(gc, "freeze", lambda: None)  # the load freezes its objects: not the test run's
    client = WireClient(create_server())
    messages = asyncio.run(asyncio.wait_for(_session(client, ws), 120))
    fix = normaliser(ws, cache)
    return {name: fix(json.loads(json.dumps(value))) for name, value in messages.items()}
