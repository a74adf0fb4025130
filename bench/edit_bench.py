"""Typing in a large file (issue 33): what each `textDocument/didChange` edit costs the language
server, on SQLite's 9.5 MB sqlite3.c (`sqlite_prog.fetch()`, or `$GMONLENS_SQLITE_DIR`).

Two measures, each for this tree's server and, with `--against DIR`, another checkout's (its
`analysis/` and `server/` put first on the path):

- in-process: 500 edits of a typing burst (one character at a time, a newline every 40, at
  places spread over the file) applied to the workspace's document as the server applies them
  (`Workspace.update_text_document`), each timed with the thread's CPU clock: median, 95th
  percentile, max, and the total;
- over the protocol: `gmonlens serve` with the file open (no profile: only the text sync works),
  500 didChange notifications sent back to back with a `textDocument/hover` after every 50th, and
  the wall time from the burst's first byte to the last hover's answer, the hovers' latencies
  (max), and the server's CPU seconds for the burst.

`.venv/bin/python bench/edit_bench.py [--edits N] [--against /path/to/other/checkout]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

IN_PROCESS = r"""
import json, sys, time
from lsprotocol import types
from pygls.workspace import Workspace
from gmonlens_lsp import textsync

text = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
edits = json.loads(sys.argv[2])
ws = Workspace("file:///w")
textsync.install(ws)
uri = "file:///w/sqlite3.c"
ws.put_text_document(types.TextDocumentItem(uri, "c", 1, text))
times = []
for i, (line, col, new) in enumerate(edits):
    at = types.Position(line, col)
    change = types.TextDocumentContentChangePartial(types.Range(at, at), new)
    ident = types.VersionedTextDocumentIdentifier(i + 2, uri)
    t = time.thread_time()
    ws.update_text_document(ident, change)
    times.append(time.thread_time() - t)
print(json.dumps(times))
"""


def burst(text: str, n: int) -> list[tuple[int, int, str]]:
    """A typing burst: characters typed at 10 places spread over the file, a newline every 40."""
    lines = text.count("\n") + 1
    out: list[tuple[int, int, str]] = []
    places = [lines * k // 11 for k in range(1, 11)]
    per = max(1, n // len(places))
    for p in places:
        col = 0
        for i in range(per):
            if len(out) == n:
                return out
            if i and i % 40 == 0:
                out.append((p, col, "\n"))
                p, col = p + 1, 0
            else:
                out.append((p, col, "x"))
                col += 1
    return out


def env_for(tree: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = f"{tree / 'analysis'}{os.pathsep}{tree / 'server'}"
    return env


def in_process(path: Path, edits: list[tuple[int, int, str]], tree: Path | None) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(path), json.dumps(edits)],
        env=env_for(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    times = sorted(json.loads(out.stdout))
    return {
        "median_ms": statistics.median(times) * 1e3,
        "p95_ms": times[int(len(times) * 0.95)] * 1e3,
        "max_ms": times[-1] * 1e3,
        "total_s": sum(times),
    }


def over_protocol(path: Path, edits: list[tuple[int, int, str]], tree: Path | None) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    from rawlsp import RawServer, uri  # type: ignore[import-not-found]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ws"
        folder.mkdir()
        doc = folder / "sqlite3.c"
        doc.write_bytes(path.read_bytes())
        env = {**env_for(tree), "XDG_CACHE_HOME": str(Path(tmp) / "cache"), "HOME": tmp}
        server = RawServer(Path(tmp) / "cache", env=env)
        try:
            server.initialize(folder)
            u = uri(doc)
            text = doc.read_text(encoding="utf-8", errors="surrogateescape")
            server.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": u, "languageId": "c", "version": 1, "text": text}},
            )
            server.request(
                "textDocument/hover",
                {"textDocument": {"uri": u}, "position": {"line": 0, "character": 0}},
                timeout=120,
            )
            cpu0 = _cpu(server.proc.pid)
            start = time.perf_counter()
            latencies = []
            for i, (line, col, new) in enumerate(edits):
                at = {"line": line, "character": col}
                server.notify(
                    "textDocument/didChange",
                    {
                        "textDocument": {"uri": u, "version": i + 2},
                        "contentChanges": [{"range": {"start": at, "end": at}, "text": new}],
                    },
                )
                if (i + 1) % 50 == 0:
                    t = time.perf_counter()
                    server.request(
                        "textDocument/hover", {"textDocument": {"uri": u}, "position": at}, timeout=120
                    )
                    latencies.append(time.perf_counter() - t)
            wall = time.perf_counter() - start
            cpu = _cpu(server.proc.pid) - cpu0
        finally:
            server.shutdown_and_exit()
    return {"burst_wall_s": wall, "hover_max_ms": max(latencies) * 1e3, "server_cpu_s": cpu}


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=500)
    parser.add_argument("--against", type=Path, help="another checkout to measure beside this tree")
    args = parser.parse_args()
    import sqlite_prog

    path = sqlite_prog.fetch() / "sqlite3.c"
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    edits = burst(text, args.edits)
    print(f"{path}: {len(text.encode()) / 1e6:.1f} MB, {text.count(chr(10)) + 1} lines; {len(edits)} edits")
    for label, tree in (("this tree", None), (str(args.against), args.against)):
        if label != "this tree" and tree is None:
            continue
        ip = in_process(path, edits, tree)
        op = over_protocol(path, edits, tree)
        print(
            f"{label}: per edit median {ip['median_ms']:.3f} ms, p95 {ip['p95_ms']:.3f} ms, max {ip['max_ms']:.2f} ms, "
            f"total {ip['total_s']:.2f} s CPU; over the protocol: burst {op['burst_wall_s']:.2f} s wall, "
            f"hover max {op['hover_max_ms']:.0f} ms, server {op['server_cpu_s']:.2f} s CPU"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
