"""Language-server benchmark (issue 4, "Speed").

1. Generated program (bench/gen_program.py: 20,000 routines in 200 files, -O0): time from process
   start to the first code lenses of one file, cold (empty cache) and warm (second start, cache
   filled), against the C pipeline an editor plugin would otherwise run: `gprof -b` plus
   `nm | addr2line` for all routines. Targets: cold <= 1.5x, warm <= 0.5x the C pipeline.
2. SQLite amalgamation (bench/sqlite_prog.py, sqlite3.c ~9 MB, -O2): first lenses of sqlite3.c
   within 4 s (cold cache), and each later lens request under 100 ms.

Every figure is the median of `--repeat` runs (C pipeline and server runs interleaved).
Usage: `.venv/bin/python bench/server_bench.py [--repeat N] [--skip-sqlite] [--json OUT]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))


def c_pipeline(exe: Path, gmon: Path) -> float:
    """Seconds for `gprof -b` plus `nm | addr2line` over every text symbol."""
    start = time.perf_counter()
    subprocess.run(["gprof", "-b", str(exe), str(gmon)], check=True, stdout=subprocess.DEVNULL)
    nm = subprocess.run(["nm", "--defined-only", str(exe)], check=True, capture_output=True, text=True).stdout
    addrs = "\n".join(
        line.split()[0] for line in nm.splitlines() if len(line.split()) == 3 and line.split()[1] in "tTW"
    )
    subprocess.run(
        ["addr2line", "-f", "-e", str(exe)], input=addrs, check=True, text=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - start


class RawClient:
    """A minimal JSON-RPC client over the server's stdio: plain JSON in and out (no structuring
    into lsprotocol objects, as an editor written in another language would do)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0
        self.server_requests: list[str] = []  # methods of the server's requests, in order

    def send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                raise EOFError("server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(await self.proc.stdout.readexactly(length))

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        my_id = self.next_id
        self.send({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params})
        while True:
            msg = await self.read()
            if msg.get("id") == my_id and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg.get("result")
            if "method" in msg and "id" in msg:  # a request from the server: answer null
                self.server_requests.append(msg["method"])
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})


async def start_server(
    folder: Path,
    settings: dict[str, Any],
    cache: Path | str,
    capabilities: dict[str, Any] | None = None,
    prefix: tuple[str, ...] = (),
) -> RawClient:
    """`gmonlens serve` with its cache in `cache`, initialized on `folder` with `settings` (and the
    client `capabilities`, none by default); `prefix` runs it under another command (strace)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    proc = await asyncio.create_subprocess_exec(
        *prefix, sys.executable, "-m", "gmonlens_lsp", "serve", "--stdio", env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        limit=1 << 26,
    )  # fmt: skip
    client = RawClient(proc)
    await client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "capabilities": capabilities or {},
            "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}],
            "initializationOptions": {"gmonlens": settings},
        },
    )
    client.notify("initialized", {})
    return client


LAST_CPU = [0.0]  # the server's CPU seconds (user + system) at the last `first_lenses`


async def first_lenses(
    folder: Path,
    source: Path,
    settings: dict[str, Any],
    cache: Path,
    later: int = 0,
    prefix: tuple[str, ...] = (),
    kinds: tuple[str, ...] = ("dwarf-*.gmc", "linetable-*.gmc", "profile-*.gmc"),
) -> tuple[float, int, list[float]]:
    """(seconds from process start to the first lenses of `source`, lens count, later request
    times); then waits for the cache entries `kinds` (the warm-up's) before stopping the server."""
    start = time.perf_counter()
    client = await start_server(folder, settings, cache, prefix=prefix)
    uri = source.as_uri()
    text = source.read_text(errors="replace")
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}
    )
    params = {"textDocument": {"uri": uri}}
    lenses = await client.request("textDocument/codeLens", params)
    elapsed = time.perf_counter() - start
    with open(f"/proc/{client.proc.pid}/stat") as fh:  # the server's CPU seconds so far
        ticks = fh.read().rsplit(")", 1)[1].split()
    LAST_CPU[0] = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
    later_times = []
    for _ in range(later):
        t = time.perf_counter()
        await client.request("textDocument/codeLens", params)
        later_times.append(time.perf_counter() - t)
    # let the background indexing finish and fill the cache before stopping
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not all(any(cache.glob(f"gmonlens/{k}")) for k in kinds):
        await asyncio.sleep(0.2)
    await asyncio.sleep(0.5)
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()
    return elapsed, len(lenses or []), later_times


def bench_generated(repeat: int) -> dict[str, Any]:
    import gen_program

    src, exe, gmon = gen_program.default_program()
    source = src / "mod_100.c"
    settings = {"binary": str(exe), "profiles": [str(gmon)]}
    c_times, cold, warm, counts = [], [], [], []
    for _ in range(repeat):
        c_times.append(c_pipeline(exe, gmon))
        cache = Path(tempfile.mkdtemp(prefix="gmonlens-bench-"))
        try:
            t, n, _ = asyncio.run(first_lenses(src, source, settings, cache))
            cold.append(t)
            counts.append(n)
            t, n, _ = asyncio.run(first_lenses(src, source, settings, cache))
            warm.append(t)
            print(
                f"generated: C {c_times[-1]:.2f} s, cold {cold[-1]:.2f} s, warm {warm[-1]:.2f} s",
                file=sys.stderr,
            )
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    c, co, wa = statistics.median(c_times), statistics.median(cold), statistics.median(warm)
    return {
        "program": "generated 20,000 routines / 200 files, -O0",
        "c_pipeline_s": round(c, 3),
        "cold_first_lenses_s": round(co, 3),
        "warm_first_lenses_s": round(wa, 3),
        "cold_ratio": round(co / c, 3),
        "warm_ratio": round(wa / c, 3),
        "lenses": counts[0],
        "targets": "cold <= 1.5, warm <= 0.5",
        "pass": co / c <= 1.5 and wa / c <= 0.5,
    }


def bench_sqlite(repeat: int) -> dict[str, Any]:
    import sqlite_prog

    src = sqlite_prog.fetch()
    exe = sqlite_prog.build(src, opt="-O2")
    sqlite_prog.run_workload(exe)  # gmon.out next to the binary: discovery finds both
    source = src / "sqlite3.c"
    folder = src.parent
    firsts, laters, counts, warms, cpu, warm_cpu = [], [], [], [], [], []
    for _ in range(repeat):
        cache = Path(tempfile.mkdtemp(prefix="gmonlens-bench-"))
        try:  # zero configuration: discovery finds the binary and its gmon.out
            t, n, later = asyncio.run(first_lenses(folder, source, {}, cache, later=10))
            firsts.append(t)
            cpu.append(LAST_CPU[0])
            laters += later
            counts.append(n)
            w, _, _ = asyncio.run(first_lenses(folder, source, {}, cache))  # second start
            warms.append(w)
            warm_cpu.append(LAST_CPU[0])
            each = ", ".join(f"{1000 * x:.0f}" for x in later)
            print(
                f"sqlite: cold {t:.2f} s ({cpu[-1]:.2f} CPU), warm {w:.2f} s ({warm_cpu[-1]:.2f} CPU), "
                f"later max {1000 * max(later):.0f} ms ({each})",
                file=sys.stderr,
            )
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    first, warm = statistics.median(firsts), statistics.median(warms)
    return {
        "program": "SQLite amalgamation (sqlite3.c), -O2",
        "first_lenses_s": round(first, 3),
        "first_lenses_cpu_s": round(statistics.median(cpu), 2),
        "warm_first_lenses_s": round(warm, 3),
        "warm_first_lenses_cpu_s": round(statistics.median(warm_cpu), 2),
        "later_lens_max_ms": round(1000 * max(laters), 1),
        "later_lens_median_ms": round(1000 * statistics.median(laters), 1),
        "lenses": counts[0],
        "targets": "first <= 4 s, warm <= 1 s, later < 100 ms",
        "pass": first <= 4.0 and warm <= 1.0 and max(laters) < 0.1,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="gmonlens language-server benchmark")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-sqlite", action="store_true")
    ap.add_argument("--skip-generated", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    results = []
    if not args.skip_generated:
        results.append(bench_generated(args.repeat))
        print(json.dumps(results[-1], indent=2), flush=True)
    if not args.skip_sqlite:
        results.append(bench_sqlite(args.repeat))
        print(json.dumps(results[-1], indent=2), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if all(r["pass"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
