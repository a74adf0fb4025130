"""What the server's discovery costs on a folder: wall and CPU seconds of `discover()` (the fit rule
applied to every candidate executable: ELF headers, symbols and code read, the profiles parsed once
per word size), median of --reps runs, and the fit check alone per candidate.

Usage: ``.venv/bin/python bench/discovery_bench.py [--reps N] FOLDER``
e.g. on the 20,000-routine program: ``python bench/gen_program.py --opt=-O2`` then
``python bench/discovery_bench.py bench/work/gen20000x200``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("folder")
    a = ap.parse_args(argv)
    from gmonlens.common.errors import GmonlensError
    from gmonlens.load.program import ProfileFiles, Program
    from gmonlens_ide.discovery import candidate_binaries, discover
    from gmonlens_ide.settings import Settings

    runs: list[tuple[float, float]] = []
    found = None
    for _ in range(a.reps):
        w0, c0 = time.perf_counter(), time.process_time()
        found = discover(a.folder, Settings())
        runs.append((time.perf_counter() - w0, time.process_time() - c0))
    assert found is not None
    print(f"discover({a.folder}): binary {found.binary} problem {found.problem}")
    print(f"  wall {statistics.median(r[0] for r in runs):.3f} s, cpu {statistics.median(r[1] for r in runs):.3f} s "
          f"(median of {a.reps})")  # fmt: skip
    import os

    dirs = sorted({os.path.dirname(p) for p in found.profiles})
    files = ProfileFiles(found.profiles)  # read once for all candidates, as discovery does
    for c in candidate_binaries(a.folder, dirs):
        w0 = time.perf_counter()
        try:
            verdict = "exact" if Program(c, files).fit().exact else "no"
        except GmonlensError as exc:
            verdict = f"refused ({exc.message})"
        print(f"  fit {c}: {verdict}, {time.perf_counter() - w0:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
