"""A `gmonlens test` folder seen from the editor, without a toolchain: the discovery rule, the
untrusted workspace's fence, what a choice loads, which tests reach a routine and how the hover
says it (names made inert)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gmonlens.common.errors import GmonlensError
from gmonlens.suites.model import BinaryProfile, RoutineCalls
from gmonlens_ide.settings import Settings
from gmonlens_ide.suite_views import TestsListing
from gmonlens_ide.suites import (
    Choice,
    TestFigures,
    chosen,
    discover_folder,
    find_suite,
    hover_section,
    reach,
    read_suite,
)
from gmonlens_lsp import wire
from gmonlens_lsp.features.tests import choice_of


def suite(at: Path, tests: list[dict[str, Any]], schema: bool = True) -> Path:
    at.mkdir(parents=True, exist_ok=True)
    doc: dict[str, Any] = {"schema": "gmonlens-test/1"} if schema else {}
    doc["tests"] = tests
    for t in tests:
        for part in (t, *t.get("other_binaries", [])):
            for p in part.get("profiles", []):
                (at / p).parent.mkdir(parents=True, exist_ok=True)
                (at / p).write_bytes(b"")
    (at / "index.json").write_text(json.dumps(doc, indent=1))
    return at


def t(name: str, binary: str | None = "../build/prog", status: str = "passed", **kw: Any) -> dict[str, Any]:
    profiles = [f"{name}/gmon.out.1"] if binary else []
    return {
        "name": name,
        "status": status,
        "duration": 0.5,
        "binary": binary,
        "profiles": profiles,
        "seconds": 0.25,
        **kw,
    }


def test_the_discovery_rule(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "build").mkdir(parents=True)
    assert find_suite(str(ws)) is None
    suite(ws / "build" / "perf-runs", [t("a")])  # any folder with the index, in a build folder
    assert find_suite(str(ws)) == str(ws / "build" / "perf-runs")
    suite(ws / "build" / "gmonlens-test", [t("a")])  # the default name first
    assert find_suite(str(ws)) == str(ws / "build" / "gmonlens-test")
    suite(ws / "gmonlens-test", [t("a")])
    os.utime(ws / "gmonlens-test" / "index.json", (1, 1))  # older: the newest index wins
    assert find_suite(str(ws)) == str(ws / "build" / "gmonlens-test")
    suite(ws / "elsewhere", [t("a")])
    assert find_suite(str(ws), ("elsewhere",)) == str(ws / "elsewhere")  # profiles: FOLDER
    (ws / "plain").mkdir()
    (ws / "plain" / "index.json").write_text('{"tests": []}')  # not gmonlens test's
    assert find_suite(str(ws), ("plain",)) == str(ws / "build" / "gmonlens-test")


def test_an_untrusted_workspace_keeps_inside(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    outside = suite(tmp_path / "outside", [t("a")])
    ws.mkdir()
    os.symlink(outside, ws / "gmonlens-test")
    assert find_suite(str(ws), (), trusted=True) == str(ws / "gmonlens-test")
    assert find_suite(str(ws), (), trusted=False) is None
    inner = suite(
        ws / "build" / "gmonlens-test", [t("in", "prog"), t("out", "/usr/bin/x"), t("rel", "../../../x")]
    )
    (ws / "build" / "gmonlens-test" / "prog").write_bytes(b"")
    os.symlink("/etc", inner / "escape")
    read = read_suite(str(inner), str(ws), trusted=False)
    assert [x.name for x in read.tests] == ["in"]
    assert [x.name for x in read_suite(str(inner), str(ws), trusted=True).tests] == ["in", "out", "rel"]


def test_what_a_choice_loads(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    two = {"name": "both", "status": "failed", "binary": "../build/prog", "profiles": ["both/gmon.out.1", "both/gmon.out.2"],
           "other_binaries": [{"binary": "../build/helper", "profiles": ["both/gmon.out.3"]}]}  # fmt: skip
    path = suite(ws / "gmonlens-test", [t("a"), two, t("helper-only", "../build/helper"), t("crashed", None)])
    s = read_suite(str(path), str(ws))
    prog = str(ws / "build" / "prog")
    assert chosen(s, Choice("both")) == (prog, (str(path / "both/gmon.out.1"), str(path / "both/gmon.out.2")))
    assert chosen(s, Choice(None)) == (
        prog,
        (str(path / "a/gmon.out.1"), str(path / "both/gmon.out.1"), str(path / "both/gmon.out.2")),
    )
    with pytest.raises(GmonlensError, match="no test named 'nope'"):
        chosen(s, Choice("nope"))
    with pytest.raises(GmonlensError, match="no test named 'crashed'"):  # no profile: not a run
        chosen(s, Choice("crashed"))
    found = discover_folder(str(ws), Settings(), Choice("both"))
    assert found.binary == prog and len(found.profiles) == 2 and found.choice == "test both of gmonlens-test"
    auto = discover_folder(str(ws), Settings())  # no gmon.out anywhere: the whole suite
    assert (
        auto.binary == prog
        and len(auto.profiles) == 3
        and "the whole suite of gmonlens-test" in (auto.choice or "")
    )
    (ws / "gmon.out").write_bytes(b"")  # discovery's own profile first (its binary then fails to be found)
    assert discover_folder(str(ws), Settings()).binary != prog
    missing = discover_folder(str(tmp_path / "none"), Settings(), Choice(None))
    assert missing.binary is None and "no `gmonlens test` folder" in (missing.problem or "")


def figures(name: str, calls: int, samples: float, hz: int = 100, status: str = "passed") -> TestFigures:
    routines = (
        RoutineCalls("parse", 0x400, calls, samples / 2, samples),
        RoutineCalls("main", 0x300, 1, 0.0, samples),
    )
    return TestFigures(
        name, status, BinaryProfile("/b/prog", ("x",), (1,), samples, hz, routines if calls else routines[1:])
    )


def test_reach_and_the_hover_line() -> None:
    figs = [figures("Parser.Small", 10, 4.0), figures("Parser`Big*", 120_000, 81.0, status="failed"),
            figures("Other", 0, 10.0), figures("Parser.Mid", 500, 20.0)]  # fmt: skip
    r = reach(figs, 0x400)
    assert (r.reached, r.tests) == (3, 4)
    assert [c.test for c in r.costliest] == ["Parser`Big*", "Parser.Mid", "Parser.Small"]
    big = r.costliest[0]
    assert (big.calls, big.seconds, big.error) == (120_000, 0.81, 0.09)
    text = hover_section(r)
    assert text.splitlines() == [
        "**Tests**: reached by 3 of 4 tests; costliest: `Parser'Big*` (failed) 0.81 ± 0.09 s, 120,000 calls",
        "- `Parser.Mid` 0.20 ± 0.04 s, 500 calls",
        "- `Parser.Small` 0.04 ± 0.02 s, 10 calls",
    ]
    no_time = reach([figures("a", 3, 0.0, hz=0), figures("b", 7, 0.0, hz=0)], 0x400)
    assert hover_section(no_time).startswith("**Tests**: reached by 2 of 2 tests; costliest: `b` 7 calls")
    assert hover_section(reach(figs, 0x999)) == "**Tests**: reached by none of 4 tests"


def test_wire_and_arguments(tmp_path: Path) -> None:
    path = suite(tmp_path / "ws" / "gmonlens-test", [t("a"), t("b", status="failed")])
    s = read_suite(str(path), str(tmp_path / "ws"))
    listed = wire.tests_list("file:///ws", TestsListing(s, Choice("b")))
    assert listed["mode"] == "test" and listed["selected"] == "b"
    assert listed["tests"][1] == {"name": "b", "status": "failed", "duration": 0.5, "seconds": 0.25,
                                  "binary": str(tmp_path / "ws" / "build" / "prog")}  # fmt: skip
    assert wire.tests_list("f", TestsListing(None, None, "none"))["mode"] == "auto"
    assert choice_of({"test": "a"}) == Choice("a") and choice_of({"test": None}) == Choice(None)
    assert choice_of(None) is None and choice_of("a") is None and choice_of({"test": ""}) == Choice(None)
