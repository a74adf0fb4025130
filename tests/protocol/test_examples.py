"""The wire contract pinned by data (protocol/README.md): one session with a real server on the
example program (`scenario.py`, no compiler) gives every custom message; each must fit its payload
type (`gmonlens_lsp.wire`), every payload type must have an example, and the committed files
in `protocol/examples/` must be what the session gives now. `GMONLENS_WRITE_EXAMPLES=1` rewrites
them instead (a deliberate change of the contract: review the diff, then PROTOCOL.md and the
extension's `src/protocol.ts`, whose unit tests read the same files)."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from gmonlens_lsp import wire

from .scenario import run_session
from .typed_json import Checker, is_typeddict

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "protocol" / "examples"
WRITE = os.environ.get("GMONLENS_WRITE_EXAMPLES") == "1"

LensArguments = tuple[str, wire.LinePosition, str]  # `wire.lens_arguments`
# example -> the payload type of what the server sends (None: null); the examples not listed are
# what a client sends (settings, params, arguments), checked by the server answering them
SERVER_SENDS: dict[str, Any] = {
    "gmonlens.status.params": wire.Status,
    "gmonlens.lineHeat.result": wire.LineHeat,
    "gmonlens.callGraph.result": wire.CallGraphResult,
    "gmonlens.flameGraph.result": wire.FlameGraphResult,
    "gmonlens.disassembly.result": wire.Disassembly,
    "gmonlens.disassembly.result.error": wire.DisasmError,
    "callHierarchyItem.data": wire.ItemData,
    "command.gmonlens.reload.result": None,
    "command.gmonlens.report.result": str,
    "command.gmonlens.hottest.result": list[wire.Hottest],
    "command.gmonlens.showCallers.arguments": LensArguments,  # a lens's, from textDocument/codeLens
    "command.gmonlens.showCallers.result": list[wire.Caller],
    "command.gmonlens.showDisassembly.result": wire.Disassembly,
    "command.gmonlens.changes.result": list[wire.ChangeEntry],
    "command.gmonlens.pinBaseline.result": list[wire.Pinned],
    "command.gmonlens.clearBaseline.result": None,
    "command.gmonlens.tests.result": list[wire.TestsList],
    "command.gmonlens.selectTest.result": wire.TestsList,
    "command.gmonlens.selectTest.result.suite": wire.TestsList,
    "command.gmonlens.selectTest.result.auto": wire.TestsList,
    "gmonlens.record.result": wire.Recording,
}


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("protocol")
    with pytest.MonkeyPatch.context() as mp:
        return run_session(base / "example", base / "cache", mp)


def text_of(value: Any) -> str:
    """An example file's text: the message as JSON, two-space indented, keys in the server's order."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def test_every_message_fits_its_payload_type(examples: dict[str, Any]) -> None:
    checker = Checker()
    problems = []
    for name, tp in SERVER_SENDS.items():
        assert name in examples, f"the session made no {name}"
        problems += checker.errors(examples[name], type(None) if tp is None else tp, name)
    assert not problems, "\n".join(problems)
    declared = {  # a private TypedDict is a part of a payload type (its total=True base), checked with it
        v
        for name, v in vars(wire).items()
        if is_typeddict(v) and v.__module__ == wire.__name__ and not name.startswith("_")
    }
    missing = sorted(t.__name__ for t in declared - checker.seen)
    assert not missing, f"payload types without an example (add one to tests/protocol/scenario.py): {missing}"


def test_the_session_shows_what_the_messages_can_carry(examples: dict[str, Any]) -> None:
    """The examples are worth reading: nothing empty where the program has something to show."""
    status = examples["gmonlens.status.params"]
    assert status["baseline"] and status["health"], "a baseline and a health item"
    assert examples["gmonlens.lineHeat.result"]["lines"]
    graph = examples["gmonlens.callGraph.result"]
    assert graph["cycles"] and any(e["estimated"] for e in graph["edges"])
    whole_flame = examples["gmonlens.flameGraph.result"]["frames"]
    assert any(f["cycle"] for f in whole_flame) and any(f["estimated"] for f in whole_flame)
    listing = examples["gmonlens.disassembly.result"]
    assert listing["sources"] and any(i["calls"] for i in listing["instructions"])
    kinds = {c["kind"] for c in examples["command.gmonlens.changes.result"]}
    assert {"regression", "improvement"} <= kinds
    for name in SERVER_SENDS:
        if name.endswith(".result") and SERVER_SENDS[name] is not None:
            assert examples[name], f"{name} is empty"


def test_committed_examples_are_the_session_s(examples: dict[str, Any]) -> None:
    wanted = {f"{name}.json": text_of(value) for name, value in examples.items()}
    if WRITE:
        EXAMPLES.mkdir(parents=True, exist_ok=True)
        for old in EXAMPLES.glob("*.json"):
            if old.name not in wanted:
                old.unlink()
        for file, text in wanted.items():
            (EXAMPLES / file).write_text(text, encoding="utf-8")
    have = {p.name: p.read_text(encoding="utf-8") for p in EXAMPLES.glob("*.json")}
    stale = sorted(set(have) - set(wanted))
    absent = sorted(set(wanted) - set(have))
    changed = sorted(f for f in set(wanted) & set(have) if wanted[f] != have[f])
    if stale or absent or changed:
        diff = ""
        if changed:
            first = changed[0]
            lines = difflib.unified_diff(
                have[first].splitlines(),
                wanted[first].splitlines(),
                f"committed {first}",
                "now",
                lineterm="",
                n=2,
            )
            diff = "\n".join(list(lines)[:40])
        pytest.fail(
            f"protocol/examples differs from what the server sends now: changed {changed}, "
            f"not made any more {stale}, new {absent}.\n{diff}\nIf the change is meant: "
            "GMONLENS_WRITE_EXAMPLES=1 .venv/bin/pytest tests/protocol, then update PROTOCOL.md and "
            "vscode-extension/src/protocol.ts (see protocol/README.md)."
        )
