"""How many times one cold load in the language server opens the binary and each profile file,
counted with strace over every process (the server and the cache warm-up subprocess it starts).

Issue 16's bound: the binary at most 3 times, each profile at most twice. The server is started
under `strace -f -e trace=openat,open` with an empty cache, asked for the first code lenses of a
source file, and stopped once the warm-up has filled the cache (scopes included).

Usage: `.venv/bin/python bench/server_opens.py [--source FILE BINARY PROFILE...]` (default: SQLite,
bench/sqlite_prog.py). `tests/e2e/test_open_counts.py` holds the bound on a small program.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

_CALL = re.compile(r'^(\d+)\s+(?:openat\(\w+, |open\()"((?:[^"\\]|\\.)*)"(.*)$')
_RESUMED = re.compile(r"^(\d+)\s+<\.\.\. open(?:at)? resumed>(.*)$")
WARMED = ("dwarf-*.gmc", "linetable-*.gmc", "profile-*.gmc", "scopes-*.gmc")


def opens(trace: str, paths: list[str]) -> dict[str, int]:
    """Successful opens of each of `paths` (compared by real path) in an `strace -f` log."""
    real = {os.path.realpath(p): p for p in paths}
    counts = dict.fromkeys(paths, 0)
    pending: dict[str, str] = {}  # pid -> path of an unfinished open
    for line in trace.splitlines():
        m = _CALL.match(line)
        if m:
            pid, path, rest = m.groups()
            if "<unfinished ...>" in rest:
                pending[pid] = path
                continue
        else:
            r = _RESUMED.match(line)
            if not r or r.group(1) not in pending:
                continue
            pid, rest = r.group(1), r.group(2)
            path = pending.pop(pid)
        hit = real.get(os.path.realpath(path))
        if hit is not None and not re.search(r"= -1\b", rest):
            counts[hit] += 1
    return counts


async def cold_load(folder: Path, source: Path, binary: Path, profiles: list[Path], log: Path) -> None:
    import server_bench

    cache = Path(tempfile.mkdtemp(prefix="gmonlens-opens-"))
    try:
        prefix = ("strace", "-f", "-qq", "-e", "trace=openat,open", "-o", str(log))
        settings = {"binary": str(binary), "profiles": [str(p) for p in profiles]}
        await server_bench.first_lenses(folder, source, settings, cache, prefix=prefix, kinds=WARMED)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, help="source file to ask lenses for (with BINARY PROFILE...)")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    if shutil.which("strace") is None:
        print("strace is not installed", file=sys.stderr)
        return 2
    if args.source is None:
        import sqlite_prog

        src = sqlite_prog.fetch()
        exe = sqlite_prog.build(src, opt="-O2")
        source, binary, profiles = src / "sqlite3.c", exe, [sqlite_prog.run_workload(exe)]
    else:
        source, binary, profiles = args.source, args.files[0], args.files[1:]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "trace"
        asyncio.run(cold_load(source.parent, source, binary, profiles, log))
        counts = opens(log.read_text(errors="replace"), [str(binary), *map(str, profiles)])
    for path, n in counts.items():
        print(f"{n:3d}  {path}")
    ok = counts[str(binary)] <= 3 and all(counts[str(p)] <= 2 for p in profiles)
    print("within the bound (binary <= 3, each profile <= 2)" if ok else "OVER the bound")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
