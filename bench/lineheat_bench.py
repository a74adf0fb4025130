"""Line-heat benchmark (issue 10, "Speed"): on SQLite's 9 MB sqlite3.c (bench/sqlite_prog.py, -O2),
once the profile is loaded (first code lenses answered, then `--settle` seconds for the heat the
server computes in the background after each load; `--settle 0` measures a request racing it):

- `gmonlens/lineHeat` of the whole file: the first request (which may compute the heat of every
  line, unless the server already did after the load) and later ones. Target: < 200 ms.
- `textDocument/inlayHint` for a visible range (60 lines around the hottest line): first (which
  splits the open 9 MB document into lines once per version) and later. Target: < 50 ms.
- In-process: the engine's `compute_line_heat` alone (histogram -> line spans -> per-line sums).

Every figure is the median (max for the targets) over `--repeat` server starts, cold cache.
Usage: `.venv/bin/python bench/lineheat_bench.py [--repeat N] [--json OUT]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from server_bench import start_server  # noqa: E402


async def one_run(
    folder: Path, source: Path, settings: dict[str, Any], cache: Path, later: int, settle: float
) -> dict[str, Any]:
    client = await start_server(folder, settings, cache)
    uri = source.as_uri()
    text = source.read_text(errors="replace")
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}}
    )
    doc = {"textDocument": {"uri": uri}}
    await client.request("textDocument/codeLens", doc)  # loaded
    await asyncio.sleep(settle)  # the server computes the heat in the background after a load

    async def timed(method: str, params: Any) -> tuple[float, Any]:
        t = time.perf_counter()
        result = await client.request(method, params)
        return time.perf_counter() - t, result

    first_heat, heat = await timed("gmonlens/lineHeat", doc)
    later_heat = [(await timed("gmonlens/lineHeat", doc))[0] for _ in range(later)]
    lines = heat["lines"] if heat else []
    hottest = max(lines, key=lambda e: e["seconds"])["line"] if lines else 0
    rng = {
        "start": {"line": max(hottest - 30, 0), "character": 0},
        "end": {"line": hottest + 30, "character": 0},
    }
    first_hints, hints = await timed("textDocument/inlayHint", {**doc, "range": rng})
    later_hints = [(await timed("textDocument/inlayHint", {**doc, "range": rng}))[0] for _ in range(later)]
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": len(text.splitlines()), "character": 0}}
    whole_hints, all_hints = await timed("textDocument/inlayHint", {**doc, "range": whole})
    await client.request("shutdown", None)
    client.notify("exit", None)
    await client.proc.wait()
    return {
        "first_heat": first_heat,
        "later_heat": later_heat,
        "first_hints": first_hints,
        "later_hints": later_hints,
        "whole_file_hints": whole_hints,
        "heat_lines": len(lines),
        "hints_in_range": len(hints or []),
        "hints_in_file": len(all_hints or []),
    }


def engine_time(exe: Path, gmon: Path, repeat: int) -> float:
    from gmonlens.lineheat import compute_line_heat
    from gmonlens.linetable import LineTable
    from gmonlens.loader import load

    loaded = load(str(exe), [str(gmon)])
    table = LineTable.from_elf(str(exe))
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        compute_line_heat(loaded.profile, loaded.gmon.histograms, table)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    import sqlite_prog

    ap = argparse.ArgumentParser(description="gmonlens line-heat benchmark (SQLite)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--later", type=int, default=10)
    ap.add_argument("--settle", type=float, default=2.0, help="seconds to wait after the first lenses")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    src = sqlite_prog.fetch()
    exe = sqlite_prog.build(src, opt="-O2")
    gmon = sqlite_prog.run_workload(exe)
    settings = {"binary": str(exe), "profiles": [str(gmon)]}
    runs = []
    for _ in range(args.repeat):
        cache = Path(tempfile.mkdtemp(prefix="gmonlens-bench-"))
        try:
            runs.append(
                asyncio.run(one_run(src.parent, src / "sqlite3.c", settings, cache, args.later, args.settle))
            )
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        r = runs[-1]
        print(
            f"lineHeat first {1000 * r['first_heat']:.1f} ms, later max {1000 * max(r['later_heat']):.1f} ms; "
            f"inlayHint first {1000 * r['first_hints']:.1f} ms, later max {1000 * max(r['later_hints']):.1f} ms",
            file=sys.stderr,
        )
    ms = lambda v: round(1000 * v, 1)  # noqa: E731
    first_heat = max(r["first_heat"] for r in runs)
    later_heat = max(max(r["later_heat"]) for r in runs)
    first_hints = max(r["first_hints"] for r in runs)
    later_hints = max(max(r["later_hints"]) for r in runs)
    result = {
        "program": "SQLite amalgamation (sqlite3.c), -O2",
        "settle_s": args.settle,
        "engine_compute_line_heat_ms": ms(engine_time(exe, gmon, 5)),
        "line_heat_first_ms_max": ms(first_heat),
        "line_heat_later_ms_max": ms(later_heat),
        "line_heat_later_ms_median": ms(statistics.median(t for r in runs for t in r["later_heat"])),
        "inlay_hints_range_first_ms_max": ms(first_hints),
        "inlay_hints_range_later_ms_max": ms(later_hints),
        "inlay_hints_range_later_ms_median": ms(statistics.median(t for r in runs for t in r["later_hints"])),
        "inlay_hints_whole_file_ms_max": ms(max(r["whole_file_hints"] for r in runs)),
        "heat_lines": runs[0]["heat_lines"],
        "hints_in_range": runs[0]["hints_in_range"],
        "hints_in_file": runs[0]["hints_in_file"],
        "targets": "whole-file heat < 200 ms, inlay hints for a visible range < 50 ms (once loaded)",
        "pass": max(first_heat, later_heat) < 0.2 and max(first_hints, later_hints) < 0.05,
    }
    print(json.dumps(result, indent=2), flush=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
