"""First lenses as an editor gets them (issue 27, "Scale"): from the server's start, cold (empty
cache) and warm (a second session after the first went idle: its background work and warm-up
done), with the lens request sent at once (as `scale_bench.py` does) or the way an editor sends it
(`--delay S`: the file opened S seconds after the server said the profile is loaded, when the
background work after a load has started).

Figures: the server's CPU seconds (user + system, from /proc: what the machine's load does not
change) and wall seconds at the first lenses; the server's CPU when it went idle (its background
work included; the warm-up subprocess not counted). Sessions of several programs can be interleaved
(`--programs A,B`) so that both see the same load.

Usage: `.venv/bin/python bench/editor_start.py --program DIR[,DIR] [--file REL] [--delay 1.0]
[--repeat 2]`; DIR holds the program and gmon.out (zero configuration). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_bench import RawClient, start_server


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _until_loaded(client: RawClient, limit: float = 600.0) -> None:
    """Read messages until the server's `gmonlens/status` says loaded (answering its requests)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        msg = await asyncio.wait_for(client.read(), timeout=limit)
        if "id" in msg and "method" in msg:
            client.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif msg.get("method") == "gmonlens/status" and (msg.get("params") or {}).get("state") == "loaded":
            return
    raise TimeoutError("no loaded status")


def _children(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return fh.read().split()
    except OSError:
        return []


async def _idle(pid: int, quiet: float = 3.0, limit: float = 900.0) -> float:
    """Wait until the server used (almost) no CPU for `quiet` seconds and its warm-up subprocess
    ended; the server's CPU then."""
    deadline, last, still = time.monotonic() + limit, _cpu(pid), 0.0
    while time.monotonic() < deadline and (still < quiet or _children(pid)):
        await asyncio.sleep(0.5)
        now = _cpu(pid)
        still = still + 0.5 if now - last < 0.03 else 0.0
        last = now
    return last


async def session(folder: Path, source: Path, cache: Path, delay: float | None) -> dict[str, Any]:
    start = time.perf_counter()
    client = await start_server(folder, {}, cache)
    pid = client.proc.pid
    if delay is not None:
        await _until_loaded(client)
        await asyncio.sleep(delay)
    uri = source.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "c", "version": 1,
                                                            "text": source.read_text(errors="replace")}})  # fmt: skip
    sent = time.perf_counter()
    lenses = await client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    wall, cpu = time.perf_counter() - start, _cpu(pid)
    wait = time.perf_counter() - sent
    idle_cpu = await _idle(pid)
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()
    return {"first_lenses_wall_s": round(wall, 2), "first_lenses_cpu_s": round(cpu, 2),
            "lens_request_s": round(wait, 2), "lenses": len(lenses or []), "idle_cpu_s": round(idle_cpu, 2)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--programs", required=True, help="folders holding a program and its gmon.out, comma-separated"
    )
    ap.add_argument(
        "--file", default=None, help="the source to open, relative to each folder (default: the middle m*.c)"
    )
    ap.add_argument(
        "--delay", type=float, default=None, help="open the file this long after `loaded` (editor-like)"
    )
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--warm", type=int, default=1, help="warm sessions after each cold one")
    ap.add_argument(
        "--modes", default=None, help="alternate lens-request delays per warm session, e.g. 'none,1.0'"
    )
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    folders = [Path(p).resolve() for p in args.programs.split(",")]
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {str(f): {"cold": [], "warm": []} for f in folders}
    for _ in range(args.repeat):
        for folder in folders:  # interleaved: each program sees the same load
            if args.file:
                source = folder / args.file
            else:
                sources = sorted(folder.glob("m*.c")) or sorted(folder.rglob("*.c"))
                source = sources[len(sources) // 2]
            cache = Path(tempfile.mkdtemp(prefix="gmonlens-start-"))
            modes = (
                [None if m == "none" else float(m) for m in args.modes.split(",")]
                if args.modes
                else [args.delay]
            )
            try:
                out = asyncio.run(session(folder, source, cache, args.delay))
                rows[str(folder)]["cold"].append(out)
                print(f"{folder.name} cold: {json.dumps(out)}", flush=True)
                for k in range(args.warm):
                    delay = modes[k % len(modes)]
                    out = asyncio.run(session(folder, source, cache, delay))
                    kind = "warm" if delay is None else f"warm+{delay:g}s"
                    rows[str(folder)].setdefault(kind, []).append(out)
                    print(f"{folder.name} {kind}: {json.dumps(out)}", flush=True)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
    for folder, kinds in rows.items():
        for kind, runs in kinds.items():
            cpu = [r["first_lenses_cpu_s"] for r in runs]
            wall = [r["first_lenses_wall_s"] for r in runs]
            print(f"{Path(folder).name} {kind}: first lenses CPU {min(cpu)}-{max(cpu)} s "
                  f"(median {statistics.median(cpu)}), wall {min(wall)}-{max(wall)} s")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
