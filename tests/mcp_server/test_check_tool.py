"""The MCP `check` tool (issue 30): the workspace's budget file checked as `gmonlens check --json`
checks it, driven by the official MCP SDK's client (dev extra), which also holds each result to the
tool's `outputSchema`: the budget file found with no argument, verdicts equal to the command's, a
budget file (or a path it names) outside the workspace refused unless `--trust-workspace`, one test
of a `gmonlens test` folder checked alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from suite_builds import build_suite_workspace
from workspace_builds import build_workspace

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"

SDK_SESSION = """
import asyncio, json, sys
from mcp import Client
from mcp.client.stdio import StdioServerParameters
async def main():
    ws, env, calls, extra = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4]), json.loads(sys.argv[5])
    params = StdioServerParameters(command=sys.argv[1], args=["mcp", "--workspace", ws, *extra], cwd="/", env=env)
    async with Client(params) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        check = tools["check"]
        out = {"input": check.input_schema, "output": check.output_schema,
               "read_only": check.annotations.read_only_hint, "calls": []}
        for args in calls:  # the SDK validates each structured result against the outputSchema
            r = await c.call_tool("check", args)
            out["calls"].append([r.is_error, r.structured_content, [x.text for x in r.content]])
        print(json.dumps(out))
asyncio.run(main())
"""


def sdk_session(ws: Path, calls: list[dict[str, Any]], *extra: str) -> dict[str, Any]:
    pytest.importorskip("mcp.client.stdio", reason="the MCP SDK (dev extra) is not installed")
    if not GMONLENS.exists():
        pytest.skip("run `make install` first")
    env = {**os.environ, "XDG_CACHE_HOME": str(ws.parent / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", SDK_SESSION, str(GMONLENS), str(ws), json.dumps(env), json.dumps(calls), json.dumps(extra)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def cli_json(budgets: Path, *argv: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(GMONLENS), "check", "--json", *argv, str(budgets)], capture_output=True, text=True
    )
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.fixture(scope="module")
def c_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cproject run for 400 rounds: work and util_sum called 400 times each."""
    ws = build_workspace("cproject", tmp_path_factory.mktemp("check") / "cproject")
    (ws / "gmonlens-budgets.yaml").write_text(
        "binary: build/app\nprofiles: [build/gmon.out]\nrules:\n"
        "  - {calls: work, max: 400}\n"
        "  - {calls: util_sum, max: 399, name: util_sum's budget}\n"
        "  - {arc: work -> util_sum, equal: 400}\n"
        "  - {calls: nope, max: 1}\n"
    )
    return ws


def test_the_workspaces_budgets(c_ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(
        f"binary: {c_ws / 'build/app'}\nprofiles: [{c_ws / 'build/gmon.out'}]\nrules:\n  - {{calls: work, max: 1}}\n"
    )
    (c_ws / "far.yaml").write_text(f"binary: {c_ws / 'build/app'}\nprofiles: [{tmp_path / 'gmon.out'}]\nrules:\n  - {{calls: work, max: 1}}\n")  # fmt: skip
    out = sdk_session(c_ws, [{}, {"budgets": str(outside)}, {"budgets": "far.yaml"}, {"budgets": "nope.yaml"},
                             {"test": "t1"}])  # fmt: skip
    assert set(out["input"]["properties"]) == {"budgets", "test", "threshold"} and out["read_only"] is True
    assert out["output"]["properties"]["schema"] == {"const": "gmonlens-check/1"}
    (is_error, found, texts), refused, far, missing, not_per_test = out["calls"]
    assert not is_error
    assert found == cli_json(c_ws / "gmonlens-budgets.yaml")  # the command's verdicts, exactly
    assert [(r["index"], r["verdict"], r["measured"]) for r in found["rules"]] == [
        (1, "pass", 400), (2, "fail", 400), (3, "pass", 400), (4, "undecided", None)]  # fmt: skip
    assert found["rules"][3]["errors"] == ["no routine 'nope' in " + str(c_ws / "build" / "app")]
    assert (
        texts[0].splitlines()[0]
        == f"gmonlens check gmonlens-budgets.yaml: {c_ws / 'build/app'}, {c_ws / 'build/gmon.out'}"
    )
    assert "FAIL       util_sum's budget: 400 (calls 400, allowed <= 399)" in texts[0]
    assert texts[0].splitlines()[-1] == "4 rules: 2 passed, 1 failed, 0 undecided, 1 not checked"
    assert (
        refused[0]
        and "outside the workspace folder" in refused[2][0]
        and "--trust-workspace" in refused[2][0]
    )
    assert far[0] and f"names {tmp_path / 'gmon.out'}, outside the workspace folder" in far[2][0]
    assert missing[0] and "nope.yaml" in missing[2][0]
    assert not_per_test[0] and "the profiles are not per test" in not_per_test[2][0]
    (trusted,) = sdk_session(c_ws, [{"budgets": str(outside)}], "--trust-workspace")["calls"]
    assert not trusted[0] and trusted[1]["verdict"] == "fail" and trusted[1]["rules"][0]["measured"] == 400


@pytest.fixture(scope="module")
def suite_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `gmonlens test` fixture: alpha called 1, 10, 100, 7, 5, 3, 11, 2, 4 times by its tests."""
    ws = build_suite_workspace(tmp_path_factory.mktemp("check-suite") / "ws")
    (ws / "perf").mkdir()
    (ws / "perf" / "budgets.yaml").write_text(
        "binary: ../build/prog\nprofiles: ../gmonlens-test\nrules:\n"
        "  - {calls: alpha, max: 50}\n"
        "  - {calls: beta, max: 5, tests: [small]}\n"
    )
    return ws


def test_one_test_of_a_suite(suite_ws: Path) -> None:
    out = sdk_session(suite_ws, [{}, {"test": "big"}, {"test": "mid"}, {"test": "nope"}])
    whole, big, mid, nope = out["calls"]
    assert not whole[0] and whole[1] == cli_json(suite_ws / "perf" / "budgets.yaml")
    alpha = whole[1]["rules"][0]
    assert alpha["verdict"] == "fail" and alpha["test"] == "big" and alpha["measured"] == 100
    assert [t["test"] for t in alpha["tests"] if t["verdict"] == "fail"] == ["big"]
    assert not big[0] and big[1]["tests"] == ["big"]
    assert [(r["index"], r["verdict"], r["measured"]) for r in big[1]["rules"]] == [
        (1, "fail", 100)
    ]  # beta's is small's
    assert big[1] == cli_json(suite_ws / "perf" / "budgets.yaml", "--test", "big")
    assert not mid[0] and mid[1]["verdict"] == "pass" and mid[1]["rules"][0]["measured"] == 10
    assert nope[0] and "no test named 'nope'" in nope[2][0]
