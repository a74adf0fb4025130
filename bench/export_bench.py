"""Exports and the call-graph request's engine work on a large program, stage by stage (in-process
wall seconds, median of --reps).

Usage: ``.venv/bin/python bench/export_bench.py [--reps N] [BINARY GMON]`` (default: the generated
20,000-routine program of gen_program.py, built and run on first use, about 1 to 4 minutes).

Stages: load (the Profile), line table, call-site finder, line data (per-line self time + call-site
lines), each format's encoder, and the graphs behind `gmonlens/callGraph`: the whole program with the
dot thresholds (0.5%/0.1%) and unpruned, and the neighbourhood of main and of the hottest routine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _line_table(binary: str) -> Any:
    from gmonlens.dwarf.line_table import LineTable
    from gmonlens.load.program import open_elf

    with open_elf(binary) as elf:
        return LineTable.from_elf(elf)


def timed(label: str, reps: int, fn: Callable[[], Any]) -> Any:
    times = []
    result = None
    for _ in range(reps):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    print(f"{label:<44} {statistics.median(times):8.3f} s")
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.files:
        binary, gmon = a.files
    else:
        import gen_program

        _, exe, gmon_path = gen_program.default_program()
        binary, gmon = str(exe), str(gmon_path)
    from gmonlens.load.loader import load
    from gmonlens.output.callgrind import to_callgrind
    from gmonlens.output.dot import to_dot
    from gmonlens.output.export_common import line_data
    from gmonlens.output.graph import graph_around, whole_graph
    from gmonlens.output.pprof import to_pprof
    from gmonlens.profile.call_sites import CallFinder

    reps = a.reps
    loaded = timed("load", reps, lambda: load(binary, [gmon]))
    p, image = loaded.profile, loaded.image
    print(f"  {len(p.routines)} routines, {len(p.arcs)} arcs, {len(p.cycles)} cycles")
    table = timed("line table", reps, lambda: _line_table(binary))
    code = [(c.address, c.data) for c in image.code_sections]
    finder = timed("call finder", reps, lambda: CallFinder(image.machine, image.address_size, code))
    lines = timed(
        "line data (fresh call finder each time)",
        reps,
        lambda: line_data(
            p, loaded.gmon.histograms, table, CallFinder(image.machine, image.address_size, code)
        ),
    )
    del finder
    timed("callgrind encode", reps, lambda: to_callgrind(p, lines))
    timed("pprof encode", reps, lambda: to_pprof(p, lines))
    g = timed("whole graph 0.5%/0.1%", reps, lambda: whole_graph(p))
    print(f"  {len(g.nodes)} nodes, {len(g.edges)} edges")
    timed("dot encode (pruned)", reps, lambda: to_dot(g))
    g = timed("whole graph unpruned", reps, lambda: whole_graph(p, 0.0, 0.0))
    print(f"  {len(g.nodes)} nodes, {len(g.edges)} edges")
    main_r = p.routine_named("main")
    if main_r is not None:
        g = timed("graph around main, depth 2", reps, lambda: graph_around(p, main_r.id, 2))
        print(f"  {len(g.nodes)} nodes, {len(g.edges)} edges")
    hot = max(p.routines, key=lambda r: (r.name != "main", r.total_ticks))
    g = timed(f"graph around {hot.display_name[:20]}, depth 3", reps, lambda: graph_around(p, hot.id, 3))
    print(f"  {len(g.nodes)} nodes, {len(g.edges)} edges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
