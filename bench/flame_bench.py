"""The VS Code call graph panel's flame graph on a large program, end to end minus the browser: the
server's `gmonlens/flameGraph` request over stdio (the engine's flame tree, 0.1% folding), then in node
the panel's own code (vscode-extension/src/flameGraph.ts and protocol.ts's reader, compiled): the
answer checked, laid out at 1,500 px and turned into the frames' views, at the whole program and
zoomed into the widest frame below the root. The webview then creates one div per frame (not timed
here; the e2e records its own `data-render-ms`). Target: request + layout + views under 1 s.

Usage: ``.venv/bin/python bench/flame_bench.py [--reps N] [BINARY GMON]`` (default: the generated
20,000-routine program of gen_program.py, built and run on first use). Needs node and
``npm ci`` in vscode-extension.
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

DRAW_JS = r"""
const fs = require("fs");
const path = require("path");
const { layout, frameViews, search } = require(process.argv[1]);
const { parseFlameGraph } = require(path.join(path.dirname(process.argv[1]), "protocol.js"));
const raw = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const reps = Number(process.argv[3]);
const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
const times = { whole: [], zoomed: [] };
let drawn = {};
for (let i = 0; i < reps; i++) {
  for (const kind of ["whole", "zoomed"]) {
    const t = performance.now();
    const g = parseFlameGraph(raw);
    let focus = -1;
    if (kind === "zoomed") {
      focus = g.frames.findIndex((f) => f.depth === 1);
    }
    const placed = layout(g, focus, 1 / 1500);
    const views = frameViews(g, placed, search(g, "r1"));
    times[kind].push(performance.now() - t);
    drawn[kind] = { frames: placed.length, title_bytes: views.reduce((a, v) => a + v.title.length, 0) };
  }
}
console.log(JSON.stringify({ whole_ms: med(times.whole), zoomed_ms: med(times.zoomed), drawn }));
"""


async def flame_requests(folder: Path, binary: str, gmon: str, reps: int) -> tuple[list[float], Any]:
    cache = tempfile.mkdtemp(prefix="gmonlens-flame-bench-")
    client = await start_server(folder, {"binary": binary, "profiles": [gmon]}, cache)
    answer = None
    deadline = time.monotonic() + 300
    while answer is None and time.monotonic() < deadline:  # the first answer waits for the load
        answer = await client.request("gmonlens/flameGraph", {})
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        answer = await client.request("gmonlens/flameGraph", {"folder": folder.as_uri()})
        times.append(time.perf_counter() - t)
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()
    return times, answer


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
    compiled = EXT / "out" / "src" / "flameGraph.js"
    if not compiled.exists():
        subprocess.run(["npx", "tsc", "-p", "tsconfig.test.json"], cwd=EXT, check=True)
    times, answer = asyncio.run(flame_requests(folder, binary, gmon, a.reps))
    if not answer:
        print("the server answered no flame graph", file=sys.stderr)
        return 1
    request = statistics.median(times)
    frames = answer["frames"]
    print(
        f"flame graph of {binary}: {len(frames)} frames "
        f"({sum(1 for f in frames if f['parent'] < 0)} roots, {sum(1 for f in frames if f['estimated'])} estimated), "
        f"total {answer['totalSeconds']:.2f} s, folding under {answer['minPercent']}%"
    )
    print(f"  {'server request gmonlens/flameGraph':<44} {request:8.3f} s")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(answer, f)
    out = subprocess.run(
        ["node", "-e", DRAW_JS, str(compiled), f.name, str(a.reps)],
        cwd=EXT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    os.unlink(f.name)
    r = json.loads(out.strip().splitlines()[-1])
    for kind in ("whole", "zoomed"):
        d = r["drawn"][kind]
        print(
            f"  {'layout + views, ' + kind:<44} {r[kind + '_ms'] / 1000:8.3f} s"
            f"  ({d['frames']} frames drawn, {d['title_bytes'] / 1e6:.2f} MB of tooltips)"
        )
    total = request + r["whole_ms"] / 1000
    print(f"  {'request + layout + views':<44} {total:8.3f} s  (target < 1 s)")
    return 0 if total < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
