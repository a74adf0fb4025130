"""The language server's long GIL holds, step by step, on a scale program (issue 17).

Runs the server's load and its background steps (first lenses of a middle file, the profile's
cache write, the certainty, the line heat, the index's last pass, the inlined copies) in this
process, one after another, under a profile hook that times every call into C made from Python
with the thread's CPU clock (`time.thread_time`, so other processes on the machine do not count),
and every garbage-collection pass. A C call during which no Python code ran holds the GIL for its
whole duration (unless it lets go itself: file I/O, hashlib, zlib); Python code lets other threads
in every `sys.getswitchinterval()` (5 ms). Prints, per step, its CPU seconds and the C calls and
GC passes over `--over` ms, longest first, with where they were made.

The hook slows the Python code between C calls (its own overhead is not in a C call's time).
Usage: `.venv/bin/python bench/gilholds.py [--size 100000] [--warm] [--over 20]`.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scale_bench  # noqa: E402


class Holds:
    """C calls (no Python code inside them) and GC passes over `over_ms`, per step."""

    def __init__(self, over_ms: float) -> None:
        self.over = over_ms / 1000
        self.found: list[tuple[float, str, str]] = []  # (ms, what, where)
        self._stack: list[list[Any]] = []  # [start, name, where, pure]
        self._gc = 0.0

    def hook(self, frame: Any, event: str, arg: Any) -> None:
        if event == "c_call":
            where = f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}"
            self._stack.append([time.thread_time(), getattr(arg, "__qualname__", repr(arg)), where, True])
        elif event in ("c_return", "c_exception"):
            if self._stack:
                start, name, where, pure = self._stack.pop()
                took = time.thread_time() - start
                if pure and took > self.over:
                    self.found.append((took * 1000, name, where))
        elif event == "call":
            for entry in self._stack:  # Python code ran inside: those calls let other threads in
                entry[3] = False

    def gc_pass(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc = time.thread_time()
            return
        took = time.thread_time() - self._gc
        if took > self.over:
            self.found.append((took * 1000, f"gc generation {info.get('generation')}", ""))

    def run(self, name: str, fn: Callable[..., Any], *args: Any) -> Any:
        self.found = []
        gc.callbacks.append(self.gc_pass)
        start = time.thread_time()
        sys.setprofile(self.hook)
        try:
            return fn(*args)
        finally:
            sys.setprofile(None)
            gc.callbacks.remove(self.gc_pass)
            cpu = time.thread_time() - start
            print(f"{name}: {cpu:.2f} s CPU (hooked), {len(self.found)} holds over {self.over * 1000:.0f} ms")
            for ms, what, where in sorted(self.found, reverse=True)[:8]:
                print(f"    {ms:8.1f} ms  {what}  <- {where}")


def session(src: Path, holds: Holds) -> None:
    from gmonlens_ide import cache_entries
    from gmonlens_ide.session import finish_index, line_heat, load_folder
    from gmonlens_ide.settings import effective_settings
    from gmonlens_lsp import gcpause
    from gmonlens_lsp.features.code_lens import lenses_for

    settings, _ = effective_settings(str(src), None)
    outcome = holds.run("load", gcpause.run_paused, load_folder, str(src), settings, 1)
    loaded = outcome.loaded
    assert loaded is not None, outcome.blocking
    path = str(src / f"m{len(list(src.glob('m*.c'))) // 2}.c")
    lenses = holds.run("first lenses", gcpause.run_paused, lenses_for, loaded, path)
    print(f"  ({len(lenses)} lenses)")
    if not loaded.profile_cached:
        holds.run(
            "profile write",
            gcpause.run_paused,
            cache_entries.write_profile,
            loaded.profile_key,
            loaded.profile,
        )
    holds.run("certainty", gcpause.run_paused, getattr, loaded, "certainty")
    holds.run("line heat", gcpause.run_paused, line_heat, loaded)
    holds.run("finish index", finish_index, loaded)
    cache = cache_entries.cache_dir() is None
    holds.run("inlined copies", loaded.heat.inlined, loaded.program, loaded.profile, cache)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--over", type=float, default=20.0, help="report holds longer than this, ms")
    ap.add_argument("--warm", action="store_true", help="fill the cache first (the warm-up), then run")
    args = ap.parse_args(argv)
    exe, _ = scale_bench.build(args.size)
    # a second thread, as the server has (its event loop): steps that hand the GIL over only
    # where another thread could take it (slicesort) then do so
    threading.Thread(target=threading.Event().wait, daemon=True).start()
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="gmonlens-gilholds-")
    if args.warm:  # what a first start leaves: the warm-up's entries and the server's profile
        from gmonlens_ide import cache_entries, warmup
        from gmonlens_ide.session import load_folder
        from gmonlens_ide.settings import effective_settings

        warmup.main([str(exe), str(exe.parent / "gmon.out")])
        first = load_folder(str(exe.parent), effective_settings(str(exe.parent), None)[0], 1).loaded
        assert first is not None
        cache_entries.write_profile(first.profile_key, first.profile)
        del first
        gc.collect()
    session(exe.parent, Holds(args.over))
    return 0


if __name__ == "__main__":
    sys.exit(main())
