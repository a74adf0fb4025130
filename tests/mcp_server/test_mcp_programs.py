"""`gmonlens mcp` driven by an independent MCP client (tests/mcp/mcpclient.py) on programs built
with gcc/g++ -pg -g: every tool, figures equal to `gprof -b`'s, errors for bad arguments and
unknown or ambiguous routines, a profile rewritten while the server runs, a client that goes away
in the middle of a call; and the official SDK's client when it is installed (dev extra)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from routine_keys import named
from workspace_builds import build_workspace

from .mcpclient import McpClient, facts

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"
DASHES = "-" * 47 + "\n"
TOOLS = {"profile_summary", "top_routines", "routine_entry", "callers", "callees", "hot_lines",
         "disassembly", "compare_with_baseline", "tests", "check"}  # fmt: skip


def gprof(binary: Path, profile: Path) -> str:
    if shutil.which("gprof") is None:
        pytest.skip("gprof is not installed")
    return subprocess.run(["gprof", "-b", str(binary), str(profile)], capture_output=True, text=True,
                          check=True, cwd=binary.parent).stdout  # fmt: skip


def flat_lines(text: str) -> list[str]:
    """The rows of gprof's flat profile."""
    flat = text.split("\f")[0] if "\f" in text else text.split("\t\t\tCall graph")[0]
    rows = flat.splitlines()[5:]
    return [r for r in rows if r.strip()]


def graph_blocks(text: str) -> dict[int, str]:
    """call-graph index -> the entry's lines, as gprof prints them."""
    graph = text.split("\t\t\tCall graph")[1].split("Index by function name")[0]
    graph = graph.split("index % time    self  children    called     name\n", 1)[1]
    out = {}
    for block in graph.split(DASHES):
        m = re.search(r"^\[(\d+)\]", block, re.M)
        if m:
            out[int(m.group(1))] = block
    return out


def primary(block: str) -> str:
    return next(x for x in block.splitlines() if x.startswith("["))


def client(cwd: Path, *args: str) -> McpClient:
    if not GMONLENS.exists():
        pytest.skip("run `make install` first")
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / ".cache")}
    return McpClient([str(GMONLENS), "mcp", *args], cwd=str(cwd), env=env)


@pytest.fixture(scope="module")
def c_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace("cproject", tmp_path_factory.mktemp("mcp") / "cproject")


@pytest.fixture(scope="module")
def cpp_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace("cppproject", tmp_path_factory.mktemp("mcp") / "cppproject")


@pytest.fixture
def c_client(c_ws: Path) -> Iterator[McpClient]:
    with client(c_ws) as c:  # no arguments, no configuration: found as the language server finds it
        c.initialize()
        yield c


def check_figures(c: McpClient, binary: Path, profile: Path) -> None:
    """Every routine of the flat profile and every call-graph entry, against gprof -b."""
    text = gprof(binary, profile)
    flat = flat_lines(text)
    top = c.call("top_routines", limit=500)["structuredContent"]
    assert [r["gprof_flat_line"] for r in top["routines"]] == flat
    summary = c.call("profile_summary")["structuredContent"]
    assert f"{summary['total_seconds']:.2f}" == flat[-1].split()[1]  # the last cumulative seconds
    for r in top["routines"]:
        cols = r["gprof_flat_line"].split()
        assert f"{r['self_percent']:.2f}" == cols[0] and f"{r['self_seconds']:.2f}" == cols[2]
        if r["calls"]:
            assert int(cols[3]) == r["calls"]
        assert math.isclose(
            r["self_error_seconds"], math.sqrt(r["self_seconds"] * summary["hz"]) / summary["hz"]
        )
    blocks = graph_blocks(text)
    by_total = c.call("top_routines", by="total", limit=500)["structuredContent"]["routines"]
    routine_blocks = [i for i, b in blocks.items() if "as a whole" not in primary(b)]
    assert [r["index"] for r in by_total] == routine_blocks
    for r in by_total:
        entry = c.call("routine_entry", routine=r["symbol"], file=r["file"])["structuredContent"]
        assert entry["gprof_text"] == blocks[entry["index"]], entry["name"]
        if entry["cycle"]:
            assert entry["cycle_gprof_text"] in blocks.values()
        main_line = primary(entry["gprof_text"])
        assert f"{entry['total_percent']:.1f}" == main_line.split()[1]
        assert f"{entry['self_seconds']:.2f}" == main_line.split()[2]
        assert f"{entry['children_seconds']:.2f}" == main_line.split()[3]
        lines = entry["gprof_text"].splitlines()
        assert len(entry["parents"]) == sum(
            1 for x in lines[: lines.index(main_line)] if "<spontaneous>" not in x
        )
        assert len(entry["children"]) == len(lines) - lines.index(main_line) - 1
        at = lines.index(main_line)
        rows = [*zip(entry["parents"], [x for x in lines[:at] if "<spontaneous>" not in x], strict=True),
                *zip(entry["children"], lines[at + 1 :], strict=True)]  # fmt: skip
        for arc, row in rows:
            assert re.search(rf"\s{re.escape(arc['name'])}( <cycle \d+>)? [\[(]{arc['index']}[\])]$", row), (
                row
            )
            if arc["in_cycle"]:
                assert row.split()[0] == str(arc["calls"]) and arc["self_seconds"] is None
            else:
                assert row.split()[2] == f"{arc['calls']}/{arc['of_calls']}"
                assert row.split()[:2] == [f"{arc['self_seconds']:.2f}", f"{arc['children_seconds']:.2f}"]
                assert arc["estimated"] is True


def test_tools_listed(c_client: McpClient) -> None:
    tools = c_client.request("tools/list")["result"]["tools"]
    assert {t["name"] for t in tools} == TOOLS
    for t in tools:
        assert t["inputSchema"]["type"] == "object" and t["annotations"]["readOnlyHint"] is True


def test_c_figures_equal_gprof(c_ws: Path, c_client: McpClient) -> None:
    check_figures(c_client, c_ws / "build" / "app", c_ws / "build" / "gmon.out")


def test_cpp_figures_equal_gprof(cpp_ws: Path) -> None:
    binary, profile = cpp_ws / "build" / "shapes", cpp_ws / "build" / "gmon.out"
    with client(cpp_ws, str(binary), str(profile)) as c:  # named on the command line
        c.initialize()
        check_figures(c, binary, profile)
        names = [r["name"] for r in c.call("top_routines", limit=50)["structuredContent"]["routines"]]
        assert any("::" in n for n in names)  # demangled as gprof prints them
        amb = c.call("routine_entry", routine="area")  # Circle's and Square's
        names = sorted(x["name"] for x in facts(amb)["candidates"])
        assert amb["isError"] is True and names == ["geo::Circle::area() const", "geo::Square::area() const"]
        one = c.call("callers", routine="Circle::area")["structuredContent"]  # the end of a qualified name
        assert one["routine"] == "geo::Circle::area() const" and one["callers"][0]["name"] == "main"
        lines = c.call("hot_lines", routine="accumulate<int>")["structuredContent"]
        assert lines["routine"].startswith("int geo::accumulate<int>(")
        assert all(x["file"] is not None for x in lines["lines"])


def test_summary(c_ws: Path, c_client: McpClient) -> None:
    s = c_client.call("profile_summary")
    out = s["structuredContent"]
    assert s["isError"] is False and out["program"] == str(c_ws / "build" / "app")
    assert out["profiles"] == [str(c_ws / "build" / "gmon.out")]
    assert out["sample_period_seconds"] == 0.01 and out["cycles"][0]["members"] == ["is_even", "is_odd"]
    assert "app:" in s["content"][0]["text"]


def test_ambiguous_unknown_and_bad_arguments(c_client: McpClient) -> None:
    amb = c_client.call("routine_entry", routine="helper")
    assert amb["isError"] is True
    files = sorted(c["file"] for c in facts(amb)["candidates"])
    assert files == ["src/main.c", "src/util.c"] and "ambiguous" in amb["content"][0]["text"]
    for how in ({"routine": "helper", "file": "util.c"}, {"routine": "util.c:helper"}):
        one = c_client.call("routine_entry", **how)["structuredContent"]
        assert one["file"] == "src/util.c" and one["parents"][0]["name"] == "util_sum"
    unknown = c_client.call("callers", routine="helpr")
    assert unknown["isError"] is True and "helpr" in unknown["content"][0]["text"]
    assert "helper" in facts(unknown)["nearest"]
    for args in ({"routine": 3}, {}, {"routine": "main", "limit": 0}, {"routine": "main", "extra": 1}):
        answer = c_client.request("tools/call", {"name": "callees", "arguments": args})
        assert answer["error"]["code"] == -32602, answer
    assert c_client.request("tools/call", {"name": "hot_lines", "arguments": {}})["error"]["code"] == -32602
    assert (
        c_client.request("tools/call", {"name": "no_such_tool", "arguments": {}})["error"]["code"] == -32602
    )


def source_line(ws: Path, file: str, line: int) -> str:
    return (ws / file).read_text().splitlines()[line - 1]


def test_callers_and_callees(c_ws: Path, c_client: McpClient) -> None:
    callees = c_client.call("callees", routine="work")["structuredContent"]["callees"]
    assert sorted((c["name"], c["calls"]) for c in callees) == [
        ("clamp", 400),
        ("helper", 400),
        ("util_sum", 400),
    ]
    for c in callees:
        (site,) = c["call_sites"]
        assert site["calls"] == 400 and c["name"] in source_line(c_ws, site["file"], site["line"])
        assert c["estimated"] is True and c["propagated_seconds"] == c["self_seconds"] + c["children_seconds"]
    assert next(c["name"] for c in callees) == "util_sum"  # the most time first
    first = c_client.call("callees", routine="work", limit=1)["structuredContent"]
    assert [c["name"] for c in first["callees"]] == ["util_sum"] and first["more"] == 2
    callers = c_client.call("callers", routine="is_even")["structuredContent"]["callers"]
    by_name = named(callers, "name")
    assert by_name["main"]["calls"] == 400 and by_name["main"]["of_calls"] == 400
    assert by_name["is_odd"]["in_cycle"] is True and "propagated_seconds" not in by_name["is_odd"]
    assert by_name["is_odd"]["calls"] == 4800 and by_name["is_odd"]["self_seconds"] is None
    assert by_name["main"]["share_of_calls"] == 1.0 and by_name["is_odd"]["share_of_calls"] is None
    entry = c_client.call("routine_entry", routine="is_even")["structuredContent"]
    assert entry["cycle"] == 1 and "<cycle 1 as a whole>" in entry["cycle_gprof_text"]
    site = by_name["main"]["call_sites"][0]
    assert "is_even" in source_line(c_ws, site["file"], site["line"])
    none = c_client.call("callers", routine="main")
    assert facts(none)["callers"] == [] and "no recorded callers" in none["content"][0]["text"]


def test_hot_lines(c_ws: Path, c_client: McpClient) -> None:
    entry = c_client.call("routine_entry", routine="util.c:helper")["structuredContent"]
    lines = c_client.call("hot_lines", routine="helper", file="util.c", limit=1000)["structuredContent"]
    assert math.isclose(sum(x["seconds"] for x in lines["lines"]), entry["self_seconds"], rel_tol=1e-9)
    assert all(x["file"] == "src/util.c" for x in lines["lines"])
    hottest = lines["lines"][0]
    assert hottest["source"] == source_line(c_ws, "src/util.c", hottest["line"]).strip()
    per_file = c_client.call("hot_lines", file="src/util.c")["structuredContent"]
    assert per_file["file"] == "src/util.c" and per_file["lines"][0]["routine"] == "helper"
    missing = c_client.call("hot_lines", file="nowhere.c")
    assert missing["isError"] is True and "src/util.c" in missing["content"][0]["text"]


def test_disassembly(c_client: McpClient) -> None:
    """The `gmonlens disasm` listing where this build has it (and capstone), else a tool error."""
    out = c_client.call("disassembly", routine="util.c:helper", limit=5)
    if importlib.util.find_spec("gmonlens.disasm.session") is None:
        assert out["isError"] is True and "not available" in out["content"][0]["text"]
        return
    assert out["isError"] is False, out["content"][0]["text"]
    doc = out["structuredContent"]
    entry = c_client.call("routine_entry", routine="util.c:helper")["structuredContent"]
    assert doc["routine"] == "helper" and doc["self_seconds"] == pytest.approx(entry["self_seconds"])
    assert len(doc["instructions"]) == 5 and doc["omitted"]["instructions"] > 0 and doc["truncated"]
    addresses = [i["address"] for i in doc["instructions"]]
    assert addresses == sorted(addresses)
    assert "util.c:" in out["content"][0]["text"]


def rerun(ws: Path, rounds: int) -> None:
    subprocess.run(["./app", str(rounds)], cwd=ws / "build", check=True, capture_output=True, timeout=120)


def test_reload_and_compare(tmp_path: Path, c_ws: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(c_ws, ws, ignore=shutil.ignore_patterns(".cache"))
    shutil.copy(ws / "build" / "gmon.out", ws / "base.gmon")
    with client(ws) as c:
        c.initialize()
        before = c.call("profile_summary")["structuredContent"]
        none = c.call("compare_with_baseline")
        assert none["isError"] is True and "baseline_profiles" in none["content"][0]["text"]
        same = c.call("compare_with_baseline", baseline_profiles=["base.gmon"])["structuredContent"]
        assert same["total"]["delta"] == 0 and same["slower"] == same["faster"] == 0
        rerun(ws, 1200)  # the profile rewritten while the server runs
        after = c.call("profile_summary")["structuredContent"]
        assert after["total_samples"] > before["total_samples"]
        assert after["total_seconds"] == pytest.approx(
            float(flat_lines(gprof(ws / "build" / "app", ws / "build" / "gmon.out"))[-1].split()[1]),
            abs=0.005,
        )
        cmp = c.call("compare_with_baseline", baseline_profiles=["base.gmon"], limit=3)
        out = cmp["structuredContent"]
        assert out["total"]["verdict"] == "up" and out["total"]["after"] == pytest.approx(
            after["total_seconds"]
        )
        deltas = [abs(r["self"]["delta"]) for r in out["routines"]]
        assert deltas == sorted(deltas, reverse=True) and out["routines"][0]["name"] == "helper"
        assert out["routines"][0]["calls_after"] == 3 * out["routines"][0]["calls_before"]
        bad = c.call("compare_with_baseline", baseline_profiles=["no/such*.gmon"])
        assert bad["isError"] is True


def test_disconnect_in_the_middle_of_a_call(tmp_path: Path, c_ws: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(c_ws, ws, ignore=shutil.ignore_patterns(".cache"))
    c = client(ws)
    c.initialize()
    c.send(
        {
            "jsonrpc": "2.0",
            "id": 50,
            "method": "tools/call",
            "params": {"name": "hot_lines", "arguments": {"file": "src/main.c"}},
        }
    )
    c.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 50}})
    c.send(
        {
            "jsonrpc": "2.0",
            "id": 51,
            "method": "tools/call",
            "params": {"name": "top_routines", "arguments": {}},
        }
    )
    assert c.close() == 0  # exits although calls were running or queued


def test_older_revision(c_ws: Path) -> None:
    with client(c_ws) as c:
        assert c.initialize("2024-11-05")["protocolVersion"] == "2024-11-05"
        out = c.call("top_routines", limit=1)
        assert "structuredContent" not in out
        assert '"gprof_flat_line"' in out["content"][1]["text"]


SDK_SESSION = """
import asyncio, json, sys
from mcp import Client
from mcp.client.stdio import StdioServerParameters
CALLS = [("profile_summary", {}), ("top_routines", {"by": "total"}), ("routine_entry", {"routine": "work"}),
         ("callers", {"routine": "util_sum"}), ("callees", {"routine": "work"}), ("hot_lines", {"file": "util.c"}),
         ("disassembly", {"routine": "work"}), ("compare_with_baseline", {"baseline_profiles": ["build/gmon.out"]}),
         ("routine_entry", {"routine": "helpr"})]
async def main():
    env = json.loads(sys.argv[3])  # the test's environment (the SDK passes only a few variables)
    async with Client(StdioServerParameters(command=sys.argv[1], args=["mcp"], cwd=sys.argv[2], env=env)) as c:
        out = {"tools": sorted(t.name for t in (await c.list_tools()).tools), "calls": []}
        for name, args in CALLS:
            r = await c.call_tool(name, args)
            out["calls"].append([name, r.is_error, r.structured_content])
        try:
            await c.call_tool("top_routines", {"limit": "ten"})
            out["bad"] = None
        except Exception as e:  # the SDK raises the JSON-RPC error
            out["bad"] = [type(e).__name__, str(e)]
        print(json.dumps(out))
asyncio.run(main())
"""


def test_official_sdk_client(c_ws: Path) -> None:
    """The official SDK's client (dev extra) negotiates with the server and calls every tool."""
    pytest.importorskip("mcp.client.stdio", reason="the MCP SDK (dev extra) is not installed")
    if not GMONLENS.exists():
        pytest.skip("run `make install` first")
    env = {**os.environ, "XDG_CACHE_HOME": str(c_ws / ".cache")}
    done = subprocess.run([sys.executable, "-c", SDK_SESSION, str(GMONLENS), str(c_ws), json.dumps(env)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["tools"] == sorted(TOOLS)
    failed = [name for name, is_error, _ in out["calls"] if is_error]
    no_listing = importlib.util.find_spec("gmonlens.disasm.session") is None
    assert failed == ["disassembly", "routine_entry"][0 if no_listing else 1 :]  # and the unknown `helpr`
    entry = next(sc for name, e, sc in out["calls"] if name == "routine_entry" and not e)
    assert entry["gprof_text"] == graph_blocks(gprof(c_ws / "build" / "app", c_ws / "build" / "gmon.out"))[1]
    assert "limit" in out["bad"][1]


def test_a_profile_being_written_is_never_answered(tmp_path: Path, c_ws: Path) -> None:
    """Issue 33 (5): `gmonlens mcp` had no guard: 0 to 1,688 of 1,721 arcs during a write, no
    error. The test writes the new gmon.out in chunks and holds it open between them (as a program
    stalled in its exit does): every call answers the last complete profile and says a new one is
    being written; the new one once the file is closed."""
    ws = tmp_path / "ws"
    shutil.copytree(c_ws, ws, ignore=shutil.ignore_patterns(".cache"))
    gmon = ws / "build" / "gmon.out"
    old = gmon.read_bytes()
    rerun(ws, 1200)
    new = gmon.read_bytes()
    gmon.write_bytes(old)
    with client(ws) as c:
        c.initialize()
        before = c.call("profile_summary")["structuredContent"]
        fd = os.open(gmon, os.O_WRONLY | os.O_TRUNC)
        try:
            for cut in (20, 100, len(new) // 2, len(new) - 7, len(new)):
                os.lseek(fd, 0, os.SEEK_SET)
                os.write(fd, new[:cut])
                during = c.call("profile_summary")["structuredContent"]
                assert during["total_samples"] == before["total_samples"] and during["arcs"] == before["arcs"]
                assert any("a new profile is being written" in h for h in during["health"]), during["health"]
                entry = c.call("routine_entry", routine="helper", file="src/util.c")["structuredContent"]
                assert "800/800" in entry["gprof_text"]  # the old run's calls
        finally:
            os.close(fd)
        after = c.call("profile_summary")["structuredContent"]
        assert after["total_samples"] > before["total_samples"]
        assert not any("being written" in h for h in after["health"])
        entry = c.call("routine_entry", routine="helper", file="src/util.c")["structuredContent"]
        assert "2400/2400" in entry["gprof_text"]
