"""The VS Code panels' requests at scale while the server's background work runs (issue 17): a cold
server (empty cache) on the scale program, the first lenses of a middle file, then from 0.6 s after
them rounds 0.3 s apart of `gmonlens/callGraph` (around a routine of that file, depth 2) and
`gmonlens/flameGraph` (the same parameters each time, as a zoom or re-open asks). Prints each
request's wall time and whether the call graph came with its estimate marks (`certaintyPending`).

Usage: ``.venv/bin/python bench/panel_requests_bench.py [--rounds N] SRC_DIR`` (SRC_DIR: a built
scale program, e.g. ~/.cache/gmonlens-bench/scale-100000/src, with `prog` and `gmon.out`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server_bench import start_server


async def _timed(client: Any, method: str, params: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    answer = await client.request(method, params)
    return 1000 * (time.perf_counter() - t), answer


async def run(src: Path, rounds: int) -> None:
    source = src / f"m{len(list(src.glob('m*.c'))) // 2}.c"
    start = time.perf_counter()
    client = await start_server(src, {}, tempfile.mkdtemp(prefix="gmonlens-panels-"))
    uri, text = source.as_uri(), source.read_text()
    doc = {"uri": uri, "languageId": "c", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": doc})
    await client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    print(f"first lenses of {source.name}: {time.perf_counter() - start:.2f} s")
    lines = [i for i, line in enumerate(text.splitlines()) if line.startswith("void r")]
    await asyncio.sleep(0.6)
    for k in range(rounds):
        at = {"textDocument": {"uri": uri}, "position": {"line": lines[k % len(lines)], "character": 6}}
        graph_ms, g = await _timed(client, "gmonlens/callGraph", {**at, "depth": 2})
        flame_ms, f = await _timed(client, "gmonlens/flameGraph", {})
        pending = g.get("certaintyPending") if isinstance(g, dict) else None
        marked = sum(1 for e in (g or {}).get("edges", []) if isinstance(e.get("estimated"), bool))
        frames = len((f or {}).get("frames", []))
        print(
            f"round {k}: callGraph {graph_ms:7.1f} ms (certaintyPending {pending}, {marked} edges marked)"
            f"  flameGraph {flame_ms:7.1f} ms ({frames} frames)"
        )
        await asyncio.sleep(0.3)
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("src", type=Path)
    a = ap.parse_args()
    asyncio.run(run(a.src.resolve(), a.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
