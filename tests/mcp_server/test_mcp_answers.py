"""What `gmonlens mcp` answers, on programs built at test time (issue 27, items 14-19): relative
files on the command line, the listing's size and truncation, results as JSON in the text too and
described by output schemas (checked by the official SDK's client), paging, baselines fenced to
the workspace, and the wording of paths, recursion and normalised comparisons."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workspace_builds import build_workspace

from .mcpclient import McpClient, facts
from .test_mcp_programs import GMONLENS, client, gprof

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def names_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workspace("namesproject", tmp_path_factory.mktemp("mcp") / "namesproject")


@pytest.fixture(scope="module")
def moved_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """namesproject built in one folder and moved to another: the DWARF names files that do not
    exist any more (a build on another machine, a CI artefact)."""
    built = build_workspace("namesproject", tmp_path_factory.mktemp("built") / "namesproject")
    moved = tmp_path_factory.mktemp("moved") / "project"
    shutil.move(str(built), str(moved))
    assert not built.exists()
    return moved


@pytest.fixture
def names(names_ws: Path) -> Iterator[McpClient]:
    with client(names_ws) as c:
        c.initialize()
        yield c


def text_of(result: dict[str, Any]) -> str:
    text: str = result["content"][0]["text"]
    return text


def test_relative_files_resolve_in_the_workspace(names_ws: Path, tmp_path: Path) -> None:
    """`gmonlens mcp --workspace DIR build/app build/gmon.out` started elsewhere (clients start
    servers in a folder of their own) reads DIR's files (item 14)."""
    elsewhere = tmp_path / "client-cwd"
    elsewhere.mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = [str(GMONLENS), "mcp", "--workspace", str(names_ws), "build/app", "build/gmon.out"]
    with McpClient(argv, cwd=str(elsewhere), env=env) as c:
        c.initialize()
        out = c.call("profile_summary")
        assert out["isError"] is False, text_of(out)
        assert out["structuredContent"]["program"] == str(names_ws / "build" / "app")
        assert out["structuredContent"]["profiles"] == [str(names_ws / "build" / "gmon.out")]


def test_top_routines_pages(names: McpClient) -> None:
    """`offset` pages through every row; each page says how many remain and how to get them (item 17)."""
    whole = names.call("top_routines", limit=500)["structuredContent"]
    rows = whole["routines"]
    assert whole["more"] == 0 and whole["total"] == len(rows) and len(rows) > 6
    seen: list[str] = []
    offset = 0
    while True:
        page = names.call("top_routines", limit=4, offset=offset)
        sc = page["structuredContent"]
        assert sc["offset"] == offset and sc["total"] == len(rows)
        seen += [r["ref"] for r in sc["routines"]]
        assert sc["more"] == len(rows) - len(seen)
        if sc["more"]:
            assert f"{sc['more']} more" in text_of(page) and f"offset={offset + 4}" in text_of(page)
            offset += 4
        else:
            break
    assert seen == [r["ref"] for r in rows]
    ranks = re.findall(r"^(\d+)\. ", text_of(names.call("top_routines", limit=2, offset=4)), re.M)
    assert ranks == ["5", "6"]  # ranks in the whole list
    past = names.call("top_routines", offset=1000)["structuredContent"]
    assert past["routines"] == [] and past["more"] == 0


@pytest.mark.parametrize("digits", ["1" + "0" * 5000, "-" + "9" * 5001, "4" * 20000])
def test_a_huge_integer_is_answered(names: McpClient, digits: str) -> None:
    """A `limit` written with thousands of digits (past Python's 4,300-digit conversion limit) is
    answered with invalid params, under the request's id (item 17)."""
    line = (
        '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"top_routines",'
        f'"arguments":{{"limit":{digits}}}}}}}\n'
    )
    names.send_raw(line.encode())
    answer = names.receive()
    assert answer["id"] == 77 and answer["error"]["code"] == -32602, answer
    assert "limit" in answer["error"]["message"]
    assert names.request("ping")["result"] == {}


def test_baselines_stay_in_the_workspace(names_ws: Path, tmp_path: Path) -> None:
    """Baseline paths leading outside the workspace are refused unless the server is trusted
    (item 18); inside, they are read."""
    outside = tmp_path / "other"
    outside.mkdir()
    shutil.copy(names_ws / "build" / "gmon.out", outside / "gmon.out")
    rel = os.path.relpath(outside, names_ws)
    with client(names_ws) as c:
        c.initialize()
        for args in (
            {"baseline_profiles": ["/etc/passwd"]},
            {"baseline_profiles": [f"{rel}/gmon.out"]},
            {"baseline_profiles": ["../*/gmon.out"]},
            {"baseline_profiles": [str(outside / "*")]},
            {"baseline_profiles": ["build/gmon.out"], "baseline_binary": "/bin/ls"},
        ):
            out = c.call("compare_with_baseline", **args)
            assert out["isError"] is True, args
            assert "outside the workspace" in text_of(out) and "--trust-workspace" in text_of(out), text_of(
                out
            )
            assert "VS Code" not in text_of(out) and "client setting" not in text_of(out)
        inside = c.call("compare_with_baseline", baseline_profiles=["build/gmon.out"])
        assert inside["isError"] is False
    with client(names_ws, "--trust-workspace") as c:
        c.initialize()
        out = c.call("compare_with_baseline", baseline_profiles=[str(outside / "gmon.out")])
        assert out["isError"] is False, text_of(out)
        etc = c.call("compare_with_baseline", baseline_profiles=["/etc/passwd"])
        assert etc["isError"] is True and "outside the workspace" not in text_of(etc)


def test_lines_without_line_information(names: McpClient) -> None:
    """A routine built without -g has no file or line: said so, never `None:None:` (item 19)."""
    lines = names.call("hot_lines", routine="nodebug_work")
    assert lines["isError"] is False
    assert "None" not in text_of(lines) and "no line information" in text_of(lines)
    for tool in ("top_routines", "callers", "callees", "routine_entry"):
        args = {} if tool == "top_routines" else {"routine": "nodebug_work"}
        assert "None" not in text_of(names.call(tool, **args)), tool


def test_recursion_is_not_a_cycle(names: McpClient) -> None:
    """Direct recursion is said as such, not `in its cycle` (item 19)."""
    out = names.call("callers", routine="fact")
    rows = {r["ref"]: r for r in out["structuredContent"]["callers"]}
    assert rows["fact"]["recursive"] is True and rows["fact"]["cycle"] is None
    assert "cycle" not in text_of(out) and "recursive" in text_of(out)


def test_normalized_comparison_says_the_scale(tmp_path: Path, names_ws: Path) -> None:
    """`normalize` compares shares of the runs: the text says the base is scaled, and by how much
    (as `gmonlens diff --normalize` does), and the result carries the factor (item 19)."""
    ws = tmp_path / "ws"
    shutil.copytree(names_ws, ws, ignore=shutil.ignore_patterns(".cache"))
    shutil.copy(ws / "build" / "gmon.out", ws / "base.gmon")
    subprocess.run(["./app", "9000"], cwd=ws / "build", check=True, capture_output=True, timeout=120)
    cli = subprocess.run([str(GMONLENS), "diff", "--normalize", "build/app", "base.gmon", "build/gmon.out"],
                         cwd=ws, capture_output=True, text=True)  # fmt: skip
    scale = re.search(r"base scaled by (\d+\.\d+)", cli.stdout)
    assert scale, cli.stdout + cli.stderr
    with client(ws) as c:
        c.initialize()
        out = c.call("compare_with_baseline", baseline_profiles=["base.gmon"], normalize=True)
        assert out["isError"] is False
        assert f"base scaled by {scale.group(1)}" in text_of(out)
        assert f"{out['structuredContent']['scale']:.3f}" == scale.group(1)
        plain = c.call("compare_with_baseline", baseline_profiles=["base.gmon"])
        assert "scaled" not in text_of(plain) and plain["structuredContent"]["scale"] == 1.0


def test_errors_name_the_command_line_not_client_settings(tmp_path: Path) -> None:
    """A fix offered by `gmonlens mcp` is one it has: gmonlens.yaml or its command line (item 19)."""
    (tmp_path / "gmon.out").write_bytes(b"")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with McpClient([str(GMONLENS), "mcp", "--workspace", str(tmp_path)], env=env) as c:
        c.initialize()
        out = c.call("profile_summary")
        assert out["isError"] is True
        assert "client setting" not in text_of(out) and "gmonlens.yaml" in text_of(out)
        assert "gmonlens mcp" in text_of(out)


def test_disassembly_of_the_hot_region(moved_ws: Path) -> None:
    """The listing's default is the hot region, at most `limit` instructions in the text and the
    JSON alike, with what was left out said; its files are the workspace's (the build's folder is
    gone) and its source lines are shown (item 15)."""
    with client(moved_ws) as c:
        c.initialize()
        hottest = facts(c.call("routine_entry", routine="match"))["candidates"][0][
            "name"
        ]  # match (match.c) [N]
        full = c.call("disassembly", routine=hottest, limit=5000)
        assert full["isError"] is False, text_of(full)
        every = full["structuredContent"]
        n = every["instructions_total"]
        assert every["truncated"] is False and len(every["instructions"]) == n
        for limit in (None, 12):
            args: dict[str, Any] = {"routine": hottest}
            if limit:
                args["limit"] = limit
            out = c.call("disassembly", **args)
            doc, text = out["structuredContent"], text_of(out)
            shown = len(doc["instructions"])
            assert shown <= (limit or 40) < n and doc["truncated"] is True
            listed = re.findall(r"^.{30} ([ 0-9a-f]{10}):  .{21} \S", text, re.M)  # not bytes continued
            assert [int(a, 16) for a in listed] == [i["address"] for i in doc["instructions"]]
            assert doc["omitted"]["instructions"] == n - shown
            hot = sum(i["samples"] for i in doc["instructions"])
            assert doc["omitted"]["samples"] == pytest.approx(every["samples"] - hot)
            peak = max(i["samples"] for i in every["instructions"])
            assert peak > 0 and peak == max(i["samples"] for i in doc["instructions"])
            assert "omitted" in text
            assert len(text.encode()) < 8000 and len(json.dumps(doc).encode()) < 16000
        for i in every["instructions"]:
            if i.get("file"):
                assert (moved_ws / i["file"]).is_file(), i["file"]
        sources = {(s["file"], s["line"]): s["source"] for s in every["sources"]}
        assert any("400 * WIDTH" in (s or "") for s in sources.values())
        assert "400 * WIDTH" in text_of(full)
        assert every["file"] == "src/match.c" and text_of(full).startswith("match (src/match.c:")


SDK_SESSION = """
import asyncio, json, sys
from mcp import Client
from mcp.client.stdio import StdioServerParameters
CALLS = json.loads(sys.argv[4])
async def main():
    env = json.loads(sys.argv[3])
    async with Client(StdioServerParameters(command=sys.argv[1], args=["mcp"], cwd=sys.argv[2], env=env)) as c:
        tools = (await c.list_tools()).tools
        out = {"schemas": {t.name: t.output_schema for t in tools}, "calls": []}
        for name, args in CALLS:
            r = await c.call_tool(name, args)  # the SDK checks structured content against outputSchema
            out["calls"].append([name, r.is_error, r.structured_content, [x.text for x in r.content]])
        print(json.dumps(out))
asyncio.run(main())
"""


def test_results_match_their_output_schemas(names_ws: Path) -> None:
    """Every tool declares an outputSchema; the official SDK's client validates each result against
    it; the text content holds the same JSON as `structuredContent` (item 16)."""
    pytest.importorskip("mcp.client.stdio", reason="the MCP SDK (dev extra) is not installed")
    calls = [("profile_summary", {}), ("top_routines", {"by": "total"}), ("top_routines", {"offset": 3}),
             ("routine_entry", {"routine": "render"}), ("routine_entry", {"routine": "never"}),
             ("routine_entry", {"routine": "[2]"}), ("callers", {"routine": "clamp (render.c)"}),
             ("callees", {"routine": "main"}), ("hot_lines", {"routine": "match_32"}),
             ("hot_lines", {"file": "match.c"}), ("hot_lines", {"routine": "nodebug_work"}),
             ("disassembly", {"routine": "match_16"}),
             ("compare_with_baseline", {"baseline_profiles": ["build/gmon.out"], "normalize": True}),
             ("routine_entry", {"routine": "match"})]  # fmt: skip
    env = {**os.environ, "XDG_CACHE_HOME": str(names_ws / ".cache")}
    done = subprocess.run([sys.executable, "-c", SDK_SESSION, str(GMONLENS), str(names_ws), json.dumps(env),
                           json.dumps(calls)], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(isinstance(s, dict) and s.get("type") == "object" for s in out["schemas"].values()), out[
        "schemas"
    ]
    for name, is_error, structured, texts in out["calls"]:
        if is_error:
            assert name == "routine_entry" and "ambiguous" in texts[0]
            assert json.loads(texts[-1])["candidates"]
            continue
        assert json.loads(texts[-1]) == structured, name


def test_gprof_agrees_on_the_names_program(names_ws: Path, names: McpClient) -> None:
    """The figures stay gprof's (a guard for the changes above)."""
    text = gprof(names_ws / "build" / "app", names_ws / "build" / "gmon.out")
    rows = names.call("top_routines", limit=500)["structuredContent"]["routines"]
    flat = [r["gprof_flat_line"] for r in rows]
    assert all(line in text for line in flat)
