"""`gmonlens mcp`'s `record` tool: offered only with `--allow-run`; with it, driven by the official
MCP SDK's client, it records a command and the other tools then answer from the recording; bad
arguments are named, a cancelled call and `timeout_seconds` stop the command's process group. The
commands are /bin/sh scripts that leave the protocol examples' profile where gprof would (no
compiler); one test records a real `gcc -pg` program (integration)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from processes import alive, wait_ended
from protocol.example_program import MAIN_C, SOURCE, assemble, elf, gmon

from .mcpclient import McpClient, facts

ROOT = Path(__file__).resolve().parents[2]
GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"
LIMIT = 60.0


def _server(ws: Path, *args: str) -> McpClient:
    if not GMONLENS.exists():
        pytest.skip("run `make install` first")
    env = {**os.environ, "XDG_CACHE_HOME": str(ws.parent / "cache")}
    return McpClient([str(GMONLENS), "mcp", "--workspace", str(ws), *args], cwd="/", env=env)


def _workspace(tmp_path: Path) -> Path:
    """A folder with the examples' program (bin/prog) and source, no profile yet; `run.gmon` beside
    it: the profile a run leaves."""
    ws = tmp_path / "ws"
    (ws / "bin").mkdir(parents=True)
    (ws / "src").mkdir()
    (ws / SOURCE).write_text(MAIN_C)
    a = assemble()
    (ws / "bin" / "prog").write_bytes(elf(a))
    os.chmod(ws / "bin" / "prog", 0o755)
    (tmp_path / "run.gmon").write_bytes(gmon(a, baseline=False))
    return ws


def test_no_record_tool_without_allow_run(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    with _server(ws) as c:
        c.initialize()
        names = {t["name"] for t in c.request("tools/list")["result"]["tools"]}
        assert "record" not in names and "profile_summary" in names
        answer = c.request("tools/call", {"name": "record", "arguments": {"command": ["/bin/true"]}})
        assert answer["error"]["code"] == -32602 and "unknown tool" in answer["error"]["message"]


SDK_SESSION = """
import asyncio, json, sys
from mcp import Client
from mcp.client.stdio import StdioServerParameters
async def main():
    ws, env, command = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
    params = StdioServerParameters(command=sys.argv[1], args=["mcp", "--allow-run", "--workspace", ws], cwd="/", env=env)
    async with Client(params) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        out = {"tools": sorted(tools), "annotations": tools["record"].annotations.model_dump(by_alias=True, exclude_none=True)}
        before = await c.call_tool("profile_summary", {})
        out["before"] = before.is_error
        r = await c.call_tool("record", {"command": command, "binaries": ["bin/prog"], "preload": False})
        out["record"] = [r.is_error, r.structured_content, r.content[0].text]
        after = await c.call_tool("top_routines", {"limit": 3})
        out["after"] = [after.is_error, after.structured_content]
        try:
            await c.call_tool("record", {"command": []})
            out["bad"] = None
        except Exception as e:  # the SDK raises the JSON-RPC error
            out["bad"] = str(e)
        print(json.dumps(out))
asyncio.run(main())
"""


def test_record_with_the_sdk_client(tmp_path: Path) -> None:
    pytest.importorskip("mcp.client.stdio", reason="the MCP SDK (dev extra) is not installed")
    if not GMONLENS.exists():
        pytest.skip("run `make install` first")
    ws = _workspace(tmp_path)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = ["/bin/sh", "-c", f'echo working; cp {tmp_path / "run.gmon"} "$GMON_OUT_PREFIX.$$"']
    done = subprocess.run(
        [sys.executable, "-c", SDK_SESSION, str(GMONLENS), str(ws), json.dumps(env), json.dumps(command)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "record" in out["tools"]
    assert out["annotations"]["readOnlyHint"] is False and out["annotations"]["openWorldHint"] is True
    assert out["before"] is True  # no profile yet: a tool error
    is_error, structured, text = out["record"]
    assert not is_error and structured["recording"]["usable"], text
    assert structured["recording"]["schema"] == "gmonlens-record/1"
    assert structured["recording"]["binaries"][0]["binary"] == str(ws / "bin" / "prog")
    assert structured["output_tail"] == ["working"] and structured["timed_out"] is False
    assert "gmonlens record:" in text  # the text the command line prints
    is_error, top = out["after"]
    assert not is_error and top["routines"][0]["name"] == "leaf"  # answered from the recording
    assert out["bad"] and "command" in out["bad"]


def _pids(path: Path) -> list[int]:
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        if path.exists():
            return [int(p) for p in path.read_text().split()]
        time.sleep(0.02)
    raise TimeoutError("the command did not start")


def _sleeper(tmp_path: Path) -> tuple[list[str], Path]:
    pids = tmp_path / "pids"
    script = f"sleep 120 & echo $! > {pids}.tmp; echo $$ >> {pids}.tmp; mv {pids}.tmp {pids}; wait"
    return ["/bin/sh", "-c", script], pids


def test_timeout_stops_the_command(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    command, pids = _sleeper(tmp_path)
    with _server(ws, "--allow-run") as c:
        c.initialize()
        result: dict[str, Any] = c.call("record", command=command, preload=False, timeout_seconds=1)
        assert result["isError"] is True  # no usable profile
        sc = facts(result)  # a tool error's facts: the JSON text after its message
        assert sc["timed_out"] is True and sc["recording"]["runs"][0]["signal"] == "SIGTERM"
        assert "killed_by_signal" in [d["code"] for d in sc["recording"]["diagnosis"]]
        assert "timeout_seconds" in result["content"][0]["text"]
        for pid in _pids(pids):
            wait_ended(pid)  # stopped (a pytest-timeout if never)
            assert not alive(pid)


def test_a_cancelled_call_stops_the_command(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    command, pids = _sleeper(tmp_path)
    with _server(ws, "--allow-run") as c:
        c.initialize()
        args = {"command": command, "preload": False}
        c.send(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "record", "arguments": args},
            }
        )
        started = _pids(pids)
        c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        for pid in started:
            wait_ended(pid)
            assert not alive(pid), f"{pid} still runs"
        assert c.request("ping")["result"] == {}  # no answer to 7 came first (the cancelled call's)


@pytest.mark.integration
def test_record_a_program_built_with_pg(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "spin.c").write_text(
        "volatile unsigned long sink;\n"
        "__attribute__((noinline)) void spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }\n"
        "int main(void) { for (int k = 0; k < 20; k++) spin(3000000); return 0; }\n"
    )
    subprocess.run(["gcc", "-pg", "-g", "-O0", "-o", "spin", "spin.c"], cwd=ws, check=True, timeout=120)
    with _server(ws, "--allow-run") as c:
        c.initialize()
        result = c.call("record", command=["./spin"])
        assert result["isError"] is False, result["content"][0]["text"]
        rec = result["structuredContent"]["recording"]
        assert rec["usable"] and rec["binaries"][0]["binary"] == str(ws / "spin")
        top = c.call("top_routines", limit=2)["structuredContent"]["routines"]
        assert top[0]["name"] == "spin" and top[0]["calls"] == 20
