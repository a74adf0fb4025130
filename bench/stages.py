"""Where `gmonlens report` spends its time: wall and CPU seconds per stage, in one process.

Usage: ``.venv/bin/python bench/stages.py [--reps N] [--cold] [-- gprof-options] BINARY GMON``

Wraps the functions that ``gmonlens.load.loader.load`` calls (read_elf, build_symbol_table, read_profiles,
routine_lines, demangle_all, resolve_tables, find_static_calls, compute_profile, ...) and
``render_text`` with timers, runs the report ``--reps`` times in-process (the first run also pays
the lazy imports) and prints the median per stage. ``--cold`` turns the on-disk cache off
(GMONLENS_CACHE=off). Import time of the CLI is measured separately, before anything else.
"""

from __future__ import annotations

import argparse
import functools
import gc
import io
import os
import resource
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

TIMES: dict[str, list[tuple[float, float]]] = defaultdict(list)
PEAK_MB: dict[str, float] = {}  # peak RSS of the process when the stage first ended
_DEPTH = [0]


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _DEPTH[0] += 1
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMES[name].append((time.perf_counter() - w0, time.process_time() - c0))
            PEAK_MB.setdefault(name, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
            _DEPTH[0] -= 1

    return wrapper


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="time gmonlens report by stage")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="GMONLENS_CACHE=off")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="report arguments (gprof options, BINARY GMON)")
    a = ap.parse_args(argv)
    if a.cold:
        os.environ["GMONLENS_CACHE"] = "off"
    report_args = [x for x in a.args if x != "--"]

    w0, c0 = time.perf_counter(), time.process_time()
    import gmonlens_cli.main as cli

    import_times = (time.perf_counter() - w0, time.process_time() - c0)
    import gmonlens.load.loader as loader
    import gmonlens.output.report as report

    for name in dir(loader):
        obj = getattr(loader, name)
        if callable(obj) and not isinstance(obj, type) and name not in ("load", "load_profile"):
            setattr(loader, name, _timed(name, obj))
    try:
        import gmonlens.profile.static_calls as sc

        sc.find_static_calls = _timed("find_static_calls", sc.find_static_calls)
    except ImportError:
        pass
    cli_render = _timed("render_text", report.render_text)
    report.render_text = cli_render
    loader.load = _timed("load (total)", loader.load)

    for _ in range(a.reps):
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # the CLI writes to .buffer too
        real = sys.stdout
        sys.stdout = out
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            cli.main(["report", *report_args])
        finally:
            sys.stdout = real
        TIMES["report (total, in-process)"].append((time.perf_counter() - w0, time.process_time() - c0))
        PEAK_MB.setdefault(
            "report (total, in-process)", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        )
        gc.enable()
        gc.collect()
    print(
        f"import gmonlens_cli.main: wall {import_times[0] * 1000:.0f} ms, CPU {import_times[1] * 1000:.0f} ms"
    )
    print(
        f"{'stage':36s} {'calls/run':>9s} {'wall ms':>9s} {'CPU ms':>9s} {'peak MB':>8s}"
        f"  (median over {a.reps} runs; peak RSS when the stage first ended)"
    )
    for name, vals in sorted(TIMES.items(), key=lambda kv: -sum(v[1] for v in kv[1])):
        per_run = len(vals) / a.reps
        k = max(1, int(per_run))
        runs = [vals[i : i + k] for i in range(0, len(vals), k)]
        wall = statistics.median(sum(v[0] for v in r) for r in runs)
        cpu = statistics.median(sum(v[1] for v in r) for r in runs)
        print(f"{name:36s} {per_run:9.1f} {wall * 1000:9.0f} {cpu * 1000:9.0f} {PEAK_MB.get(name, 0):8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
