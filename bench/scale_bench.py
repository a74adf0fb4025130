"""How gmonlens grows with the program (issue 17): generated C programs of 25k to 200k routines,
`gmonlens report -b` and GNU gprof side by side (wall time, peak memory, output identity), and the
language server on them (first lenses cold and warm, hover latencies, peak memory).

The program (as the issue describes it): FILES files of 100 routines; each routine burns a little
time and calls two later routines, one in twenty also an earlier one (so there are cycles; a depth
guard keeps the run short); `main` calls every routine through a table; `gcc -pg -g -O1`. Builds
are cached outside the repository, in `$XDG_CACHE_HOME/gmonlens-bench/scale-N` (minutes each).

Usage: `.venv/bin/python bench/scale_bench.py [--sizes 25000,50000,100000,200000] [--skip-server]
[--skip-report] [--hovers N] [--json OUT]`. Prints one table; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_bench import start_server

ROOT = Path(__file__).resolve().parent.parent
PER_FILE = 100
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gmonlens-bench"


def _routine(i: int, n: int, rng: random.Random) -> str:
    later = [rng.randrange(i + 1, n) for _ in range(2)] if i + 1 < n else []
    earlier = [rng.randrange(0, i)] if i > 0 and rng.randrange(20) == 0 else []
    calls = "".join(f" r{j}();" for j in later + earlier)
    return (
        f"void r{i}(void) {{\n"
        f"  for (volatile int k = 0; k < {50 + i % 150}; k++) sink += k;\n"
        f"  if (depth < 2) {{ depth++;{calls} depth--; }}\n"
        "}\n"
    )


def generate(n: int) -> Path:
    """Sources of the n-routine program (cached); returns its directory."""
    src = CACHE / f"scale-{n}" / "src"
    if (src / "main.c").exists():
        return src
    src.mkdir(parents=True, exist_ok=True)
    rng = random.Random(n)
    decls = "".join(f"void r{i}(void);\n" for i in range(n))
    (src / "decls.h").write_text("extern volatile long sink;\nextern int depth;\n" + decls)
    for f in range(n // PER_FILE):
        body = "".join(_routine(i, n, rng) for i in range(f * PER_FILE, (f + 1) * PER_FILE))
        (src / f"m{f}.c").write_text('#include "decls.h"\n' + body)
    table = ",".join(f"r{i}" for i in range(n))
    (src / "main.c").write_text(
        '#include "decls.h"\nvolatile long sink;\nint depth;\n'
        f"static void (*const table[])(void) = {{{table}}};\n"
        "int main(void) {\n"
        f"  for (int i = 0; i < {n}; i++) table[i]();\n"
        "  return 0;\n}\n"
    )
    return src


def build(n: int) -> tuple[Path, Path]:
    """(executable, gmon.out) of the n-routine program, built and run once (cached)."""
    src = generate(n)
    exe, gmon = src / "prog", src / "gmon.out"
    if gmon.exists():
        return exe, gmon
    objs = []
    procs: list[subprocess.Popen[bytes]] = []
    for c in sorted(src.glob("*.c")):
        o = c.with_suffix(".o")
        objs.append(str(o))
        if not o.exists():
            while len(procs) >= 2:
                procs.pop(0).wait()
            procs.append(subprocess.Popen(["gcc", "-pg", "-g", "-O1", "-c", "-o", str(o), str(c)]))
    for p in procs:
        p.wait()
    subprocess.run(["gcc", "-pg", "-g", "-O1", "-o", str(exe), *objs], check=True)
    subprocess.run([str(exe)], cwd=src, check=True)
    return exe, gmon


LAST_CPU = [0.0]  # CPU seconds (user + system) of the last `measured` run


def measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, int, bytes]:
    """(wall seconds, peak RSS in MB, stdout) of one run of `cmd`; its CPU seconds in LAST_CPU."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _, _, usage = os.wait4(proc.pid, 0)
    LAST_CPU[0] = round(usage.ru_utime + usage.ru_stime, 2)
    return time.perf_counter() - start, usage.ru_maxrss // 1024, out


def bench_report(exe: Path, gmon: Path) -> dict[str, Any]:
    gt, gm, gout = measured(["gprof", "-b", str(exe), str(gmon)])
    gcpu = LAST_CPU[0]
    cache = tempfile.mkdtemp(prefix="gmonlens-scale-")
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    gmonlens = str(ROOT / ".venv" / "bin" / "gmonlens")
    try:
        ct, cm, cout = measured([gmonlens, "report", "-b", str(exe), str(gmon)], env)
        ccpu = LAST_CPU[0]
        wt, wm, _ = measured([gmonlens, "report", "-b", str(exe), str(gmon)], env)
        wcpu = LAST_CPU[0]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return {
        "gprof_s": round(gt, 2), "gprof_cpu_s": gcpu, "gprof_mb": gm,
        "report_cold_s": round(ct, 2), "report_cold_cpu_s": ccpu,
        "report_warm_s": round(wt, 2), "report_warm_cpu_s": wcpu, "report_mb": max(cm, wm),
        "identical": gout == cout, "lines": gout.count(b"\n"),
    }  # fmt: skip


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by a live process (the machine's load does not
    change it, unlike wall time)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)


def _vmhwm(pid: int, field: str = "VmHWM") -> int:
    """Peak RSS (VmHWM) of a live process, MB (or another /proc status field in kB: `RssFile`,
    the file pages mapped in, such as the binary's sections read through mmap)."""
    with open(f"/proc/{pid}/status") as fh:
        m = re.search(field + r":\s+(\d+) kB", fh.read())
    return int(m.group(1)) // 1024 if m else 0


async def _session(src: Path, exe: Path, gmon: Path, cache: Path, hovers: int) -> dict[str, Any]:
    """One server run: first lenses of a middle file, then `hovers` requests on routine names
    there, a hover and a call hierarchy (prepare, then incoming and outgoing calls of the item) in
    turn (`hover_*`: every request; `calls_*`: the call hierarchy's alone), then the same every
    0.3 s while the background work runs (`during_*`)."""
    source = src / f"m{len(list(src.glob('m*.c'))) // 2}.c"
    start = time.perf_counter()
    client = await start_server(src, {}, cache)  # zero configuration: discovery finds prog
    uri, text = source.as_uri(), source.read_text()
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}
    )
    lenses = await client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    first = time.perf_counter() - start
    first_cpu = _cpu(client.proc.pid)
    lines = [i for i, line in enumerate(text.splitlines()) if line.startswith("void r")]
    times: list[float] = []  # every request's latency, ms
    calls: list[float] = []  # the call hierarchy's: prepare, incoming, outgoing
    for k in range(hovers):
        times += await _ask(client, uri, lines[k % len(lines)], k % 2 == 1, calls)
        await asyncio.sleep(0.05)
    at_hovers = _vmhwm(client.proc.pid)
    # the background work after the first lenses (certainty, line heat, warm-up) starts once the
    # requests pause: ask on, every 0.3 s, until the server has used (almost) no CPU for 2 s (at
    # most 120 s), so that `during_*` are requests answered beside it and the peak includes it
    during: list[float] = []
    deadline, last, still, k = time.monotonic() + 120, _cpu(client.proc.pid), 0.0, 0
    while time.monotonic() < deadline and still < 2.0:
        for _ in range(2):
            await asyncio.sleep(0.25)
            during += await _ask(client, uri, lines[k % len(lines)], k % 2 == 1, [])
            k += 1
        now = _cpu(client.proc.pid)
        still = still + 0.5 if now - last < 0.05 else 0.0  # the requests' own CPU: a few ms
        last = now
    peak = _vmhwm(client.proc.pid)
    anon, files = _vmhwm(client.proc.pid, "RssAnon"), _vmhwm(client.proc.pid, "RssFile")
    cpu = _cpu(client.proc.pid)
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()
    return {"first_lenses_s": round(first, 2), "first_lenses_cpu_s": first_cpu, "lenses": len(lenses or []),
            "hover_first_ms": round(times[0], 1),
            "hover_median_ms": round(statistics.median(times), 1), "hover_max_ms": round(max(times), 1),
            "calls_first_ms": round(calls[0], 1) if calls else None,
            "calls_median_ms": round(statistics.median(calls), 1) if calls else None,
            "calls_max_ms": round(max(calls), 1) if calls else None, "call_requests": len(calls),
            "during_requests": len(during), "during_median_ms": round(statistics.median(during), 1),
            "during_max_ms": round(max(during), 1),
            "server_mb_at_hovers": at_hovers, "server_mb": peak,
            "server_rss_anon_mb_after": anon, "server_rss_file_mb_after": files, "server_cpu_s": cpu}  # fmt: skip


async def _ask(client: Any, uri: str, line: int, hierarchy: bool, calls: list[float]) -> list[float]:
    """A hover on routine name at `line`, or (`hierarchy`) its call hierarchy: prepare, then the
    incoming and outgoing calls of the item; returns each request's latency in ms (the call
    hierarchy's also appended to `calls`)."""
    pos = {"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}}
    if not hierarchy:
        t = time.perf_counter()
        await client.request("textDocument/hover", pos)
        return [1000 * (time.perf_counter() - t)]
    t = time.perf_counter()
    items = await client.request("textDocument/prepareCallHierarchy", pos)
    out = [1000 * (time.perf_counter() - t)]
    for method in ("callHierarchy/incomingCalls", "callHierarchy/outgoingCalls"):
        if items:
            t = time.perf_counter()
            await client.request(method, {"item": items[0]})
            out.append(1000 * (time.perf_counter() - t))
    calls += out
    return out


def bench_server(exe: Path, gmon: Path, hovers: int) -> dict[str, Any]:
    cache = Path(tempfile.mkdtemp(prefix="gmonlens-scale-"))
    try:
        cold = asyncio.run(_session(exe.parent, exe, gmon, cache, hovers))
        # the cold session's warm-up subprocess dies with the server: fill the cache as it would
        # have (second start = cache complete), and time it
        env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        wt, wm, _ = measured([sys.executable, "-m", "gmonlens_ide.warmup", str(exe), str(gmon)], env)
        warm = asyncio.run(_session(exe.parent, exe, gmon, cache, hovers))
        warm["warmup_s"], warm["warmup_cpu_s"], warm["warmup_mb"] = round(wt, 1), LAST_CPU[0], wm
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return {"cold": cold, "warm": warm}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="25000,50000,100000,200000")
    ap.add_argument("--skip-server", action="store_true")
    ap.add_argument("--skip-report", action="store_true")
    ap.add_argument("--hovers", type=int, default=40)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    results = {}
    for n in (int(s) for s in args.sizes.split(",")):
        exe, gmon = build(n)
        row: dict[str, Any] = {
            "binary_mb": exe.stat().st_size >> 20,
            "gmon_mb": round(gmon.stat().st_size / 2**20, 1),
        }
        if not args.skip_report:
            row["report"] = bench_report(exe, gmon)
        if not args.skip_server:
            row["server"] = bench_server(exe, gmon, args.hovers)
        results[n] = row
        print(f"{n:>7} routines: {json.dumps(row)}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
