"""`gmonlens mcp` start-up and first answers (issue 20).

    .venv/bin/python bench/mcp_bench.py [--reps N] [BINARY PROFILE]

Measured from process start, median of N runs (after one warm-up):
- start-up: the `initialize` answer, and the first `tools/list` answer after it (what an agent
  waits for before it sees the tools);
- for comparison, a bare Python stdio loop answering both (the interpreter's own start-up), and,
  when the official MCP SDK is importable (the dev extra), a one-tool server built on it
  (`mcp.server.mcpserver.MCPServer`): the cost of the SDK for a server started per session;
- the first `tools/call` (`top_routines`) with a cold and a warm disk cache, on BINARY PROFILE or
  on the bundled example (examples/calc built with gcc -pg -g into bench/work/mcp-calc).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "bench" / "work" / "mcp-calc"
GMONLENS = ROOT / ".venv" / "bin" / "gmonlens"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}  # fmt: skip
BARE = """import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" in m:
        r = {"tools": []} if m["method"] == "tools/list" else {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "bare", "version": "0"}}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\\n"); sys.stdout.flush()
"""
SDK = """from mcp.server.mcpserver import MCPServer
app = MCPServer("probe")
@app.tool()
def top_routines(limit: int) -> int:
    return limit
app.run()
"""


def _line(proc: subprocess.Popen[bytes], message: dict[str, object]) -> dict[str, object]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    answer: dict[str, object] = json.loads(proc.stdout.readline())
    return answer


def session(
    argv: list[str], cwd: str, env: dict[str, str], call: str | None = None
) -> tuple[float, float, float]:
    """Seconds from start to the initialize answer, to the tools/list answer, to the call's."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert "result" in _line(proc, INIT)
    t1 = time.perf_counter()
    assert proc.stdin is not None
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    assert "result" in _line(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    t2 = time.perf_counter()
    t3 = t2
    if call:
        answer = _line(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                              "params": {"name": call, "arguments": {}}})  # fmt: skip
        result = answer.get("result")
        assert isinstance(result, dict) and not result["isError"], answer
        t3 = time.perf_counter()
    proc.stdin.close()
    proc.wait(60)
    return t1 - t0, t2 - t0, t3 - t0


def median(argv: list[str], cwd: str, env: dict[str, str], reps: int, call: str | None = None,
           fresh_cache: bool = False) -> tuple[float, float, float]:  # fmt: skip
    runs = []
    for i in range(reps + 1):
        run_env = dict(env)
        if fresh_cache:
            run_env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="gmonlens-bench-")
        result = session(argv, cwd, run_env, call)
        if fresh_cache:
            shutil.rmtree(run_env["XDG_CACHE_HOME"], ignore_errors=True)
        if i:  # the first run warms the page cache and bytecode
            runs.append(result)
    return tuple(statistics.median(r[k] for r in runs) for k in range(3))  # type: ignore[return-value]


def calc() -> tuple[Path, Path]:
    exe = WORK / "calc"
    if not (WORK / "gmon.out").exists():
        WORK.mkdir(parents=True, exist_ok=True)
        for src in (ROOT / "examples" / "calc").glob("*.[ch]"):
            shutil.copy(src, WORK)
        sources = sorted(str(p.name) for p in WORK.glob("*.c"))
        subprocess.run(["gcc", "-g", "-pg", "-O0", "-o", "calc", *sources], cwd=WORK, check=True)
        subprocess.run(["./calc", "2000"], cwd=WORK, check=True, stdout=subprocess.DEVNULL)
    return exe, WORK / "gmon.out"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("files", nargs="*", metavar="BINARY PROFILE")
    args = parser.parse_args()
    env = dict(os.environ)
    empty = tempfile.mkdtemp(prefix="gmonlens-mcp-empty-")
    rows: list[tuple[str, float, float, str]] = []
    i, t, _ = median([str(GMONLENS), "mcp"], empty, env, args.reps)
    rows.append(("`gmonlens mcp`", i, t, "lazy: the profile loads after initialized"))
    i, t, _ = median([sys.executable, "-c", BARE], empty, env, args.reps)
    rows.append(("bare Python stdio loop (floor)", i, t, "json + sys only"))
    sdk = subprocess.run([sys.executable, "-c", "import mcp.server.mcpserver"], capture_output=True)
    if sdk.returncode == 0:
        i, t, _ = median([sys.executable, "-c", SDK], empty, env, args.reps)
        rows.append(("MCP SDK server, one tool", i, t, "mcp.server.mcpserver.MCPServer"))
    print(f"start-up, median of {args.reps} (ms from process start)\n")
    print("| server | initialize answered | first tools/list answered | note |\n| --- | ---: | ---: | --- |")
    for name, a, b, note in rows:
        print(f"| {name} | {a * 1000:.0f} | {b * 1000:.0f} | {note} |")
    binary, profile = (Path(args.files[0]), Path(args.files[1])) if len(args.files) == 2 else calc()
    argv = [str(GMONLENS), "mcp", str(binary.resolve()), str(profile.resolve())]
    print(
        f"\nfirst tools/call top_routines on {binary.name}, median of {args.reps} (ms from process start)\n"
    )
    print("| disk cache | initialize | tools/list | top_routines answered |\n| --- | ---: | ---: | ---: |")
    for label, fresh in (("cold (empty XDG_CACHE_HOME)", True), ("warm", False)):
        a, b, c = median(argv, empty, env, args.reps, "top_routines", fresh_cache=fresh)
        print(f"| {label} | {a * 1000:.0f} | {b * 1000:.0f} | {c * 1000:.0f} |")
    shutil.rmtree(empty, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
