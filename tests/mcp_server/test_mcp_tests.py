"""`gmonlens mcp` on a workspace with a `gmonlens test` folder (tests/suite_builds.py): the `tests`
tool lists the suite and says which tests reach a routine with exact calls; the other tools take
`test` and answer from that test's profile alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from routine_keys import named
from suite_builds import build_suite_workspace

from .test_mcp_programs import client

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def suite_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_suite_workspace(tmp_path_factory.mktemp("mcp-suite") / "ws")


def test_tests_tool_and_test_selection(suite_ws: Path) -> None:
    with client(suite_ws) as c:
        c.initialize()
        listed = c.call("tests")["structuredContent"]
        assert listed["suite"] == "gmonlens-test" and len(listed["tests"]) == 11
        failing = next(t for t in listed["tests"] if t["name"] == "failing")
        assert failing["status"] == "failed" and failing["binary"] == "build/prog"
        alpha = c.call("tests", routine="alpha")["structuredContent"]
        assert (alpha["reached"], alpha["tests"]) == (9, 11)
        calls = {r["test"]: r["calls"] for r in alpha["reaching"]}
        assert calls == {"small": 1, "mid": 10, "big": 100, "only_alpha": 7, "failing": 5,
                         "expected_failure": 3, "forking": 11, "child_programs": 2, "labelled": 4}  # fmt: skip
        assert alpha["reaching"][0]["test"] == "big"  # no samples: the most calls first
        mid = c.call("top_routines", test="mid", limit=5)["structuredContent"]
        top = mid["routines"]
        assert {n: r["calls"] for n, r in named(top, "name").items()} == {
            "alpha": 10,
            "beta": 20,
            "work": 1,
        }, top
        whole = c.call("routine_entry", routine="alpha")["structuredContent"]
        assert whole["calls"] == sum(calls.values()), whole  # the workspace itself: the whole suite
        summary = c.call("profile_summary", test="forking")["structuredContent"]
        assert len(summary["profiles"]) == 2  # a fork: two processes summed into the test
        unknown = c.call("top_routines", test="nope")
        assert unknown["isError"] is True and "no test named 'nope'" in unknown["content"][0]["text"]
        jsonschema = pytest.importorskip("jsonschema", reason="the MCP SDK's jsonschema (dev extra)")
        schemas = {t["name"]: t["outputSchema"] for t in c.request("tools/list")["result"]["tools"]}
        for tool, result in (("tests", listed), ("tests", alpha), ("top_routines", mid),
                             ("profile_summary", summary), ("routine_entry", whole)):  # fmt: skip
            jsonschema.validate(result, schemas[tool])  # each tool's outputSchema (issue 27 item 16)
