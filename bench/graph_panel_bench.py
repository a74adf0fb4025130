"""The VS Code call graph panel's whole-program view on a large program, end to end minus the browser:
the server's `gmonlens/callGraph` request (`{"whole": true}`, the dot export's 0.5%/0.1% pruning) over
stdio, then in node the extension's DOT generation (vscode-extension/src/callGraphDot.ts, compiled)
and the Graphviz layout by the library the panel bundles (@viz-js/viz, WebAssembly), SVG out.
The webview also parses the SVG into its DOM (not timed here). Target: under 2 s in all.

Usage: ``.venv/bin/python bench/graph_panel_bench.py [--reps N] [BINARY GMON]`` (default: the generated
20,000-routine program of gen_program.py, built and run on first use). Needs node and
``make -C vscode-extension unit`` (or ``npm ci`` there) to have been run once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
EXT = BENCH.parent / "vscode-extension"
sys.path.insert(0, str(BENCH))

from server_bench import start_server  # noqa: E402

LAYOUT_JS = r"""
const fs = require("fs");
const path = require("path");
const { toDot } = require(process.argv[1]);
const { parseCallGraph } = require(path.join(path.dirname(process.argv[1]), "protocol.js"));
(async () => {
  const { instance } = await import("@viz-js/viz");
  const graph = parseCallGraph(JSON.parse(fs.readFileSync(process.argv[2], "utf8")));
  const reps = Number(process.argv[3]);
  let t = performance.now();
  const viz = await instance();
  const init = performance.now() - t;
  const dots = [], layouts = [];
  let svg = "";
  for (let i = 0; i < reps; i++) {
    t = performance.now();
    const dot = toDot(graph);
    dots.push(performance.now() - t);
    t = performance.now();
    svg = viz.renderString(dot, { format: "svg" });
    layouts.push(performance.now() - t);
  }
  const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(JSON.stringify({ init_ms: init, dot_ms: med(dots), layout_ms: med(layouts), svg_bytes: svg.length }));
})();
"""


async def whole_request(
    folder: Path, binary: str, gmon: str, reps: int, thresholds: list[dict[str, Any]]
) -> list[tuple[list[float], Any]]:
    """For each thresholds setting: seconds of each whole-program request once the profile is loaded,
    and the last answer."""
    cache = tempfile.mkdtemp(prefix="gmonlens-graph-bench-")
    client = await start_server(folder, {"binary": binary, "profiles": [gmon]}, cache)
    answer = None
    deadline = time.monotonic() + 300
    while answer is None and time.monotonic() < deadline:  # the first answer waits for the load
        answer = await client.request("gmonlens/callGraph", {"whole": True})
    out = []
    first = answer or {"nodes": []}
    hottest = max(first["nodes"], key=lambda n: n["selfSeconds"], default=None)
    for extra in thresholds:
        if extra.get("around") and hottest is not None:  # the default panel view around a routine
            extra = {"routine": hottest["id"], "generation": first["generation"], "name": hottest["name"]}
            params = {"folder": folder.as_uri(), **extra}
        else:
            params = {"whole": True, "folder": folder.as_uri(), **extra}
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            answer = await client.request("gmonlens/callGraph", params)
            times.append(time.perf_counter() - t)
        out.append((times, answer))
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.files:
        binary, gmon = a.files
    else:
        import gen_program

        _, exe, gmon_path = gen_program.default_program()
        binary, gmon = str(exe), str(gmon_path)
    folder = Path(binary).resolve().parent
    compiled = EXT / "out" / "src" / "callGraphDot.js"
    if not compiled.exists():
        subprocess.run(["npx", "tsc", "-p", "tsconfig.test.json"], cwd=EXT, check=True)
    settings: list[dict[str, Any]] = [
        {},
        {"nodeThreshold": 0.05, "edgeThreshold": 0.01},
        {"around": True},
    ]
    ok = True
    for i, (times, answer) in enumerate(asyncio.run(whole_request(folder, binary, gmon, a.reps, settings))):
        if not answer:
            print("the server answered no graph", file=sys.stderr)
            return 1
        request = statistics.median(times)
        centre = next((n["displayName"] for n in answer["nodes"] if n["id"] == answer["center"]), None)
        what = (
            f"around the hottest routine {centre}, depth {answer['depth']} (the panel's default view)"
            if centre
            else f"whole program, thresholds {answer['nodeThreshold']}% / {answer['edgeThreshold']}%"
            + (" (the dot export defaults, the panel view)" if i == 0 else " (finer, for scale)")
        )
        print(
            f"{what}: "
            f"{len(answer['nodes'])} nodes, {len(answer['edges'])} edges shown; "
            f"{answer['prunedNodes']} nodes, {answer['prunedEdges']} edges pruned"
        )
        print(f"  {'server request gmonlens/callGraph':<44} {request:8.3f} s")
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(answer, f)
        out = subprocess.run(
            ["node", "-e", LAYOUT_JS, str(compiled), f.name, str(a.reps)],
            cwd=EXT, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        os.unlink(f.name)
        r = json.loads(out.strip().splitlines()[-1])
        print(f"  {'viz.js instance (wasm compile, once)':<44} {r['init_ms'] / 1000:8.3f} s")
        print(f"  {'DOT generation (callGraphDot.ts)':<44} {r['dot_ms'] / 1000:8.3f} s")
        print(f"  {'Graphviz layout to SVG (@viz-js/viz)':<44} {r['layout_ms'] / 1000:8.3f} s")
        total = request + (r["dot_ms"] + r["layout_ms"]) / 1000
        print(f"  {'request + DOT + layout':<44} {total:8.3f} s{'  (target < 2 s)' if i == 0 else ''}")
        ok = ok and (i != 0 or total < 2.0)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
