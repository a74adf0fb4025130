"""The longest event-loop stall and GIL hold of the language server on a scale program (issue 17).

Runs `scale_bench`'s server session (first lenses of a middle file, then hovers) with
`bench/loopwatch/sitecustomize.py` loaded into the server: a watchdog thread that wakes every
10 ms and posts a callback to the event loop. Prints the session's figures, then the longest
loop stalls and GIL holds (over 50 ms) with the server's threads' innermost frames at the time.

Usage: `.venv/bin/python bench/loopwatch.py [--size 25000] [--hovers 40] [--warm] [--stacks]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scale_bench  # noqa: E402


def _where(stack: str) -> str:
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', stack)
    mine = [f"{Path(f).name}:{n} {fn}" for f, n, fn in frames if "gmonlens" in f]
    return " < ".join(reversed(mine[-3:])) or (
        f"{Path(frames[-1][0]).name}:{frames[-1][1]}" if frames else "?"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=25000)
    ap.add_argument("--hovers", type=int, default=40)
    ap.add_argument("--warm", action="store_true", help="also a second (warm-cache) session")
    ap.add_argument("--stacks", action="store_true", help="print every stall's frames")
    args = ap.parse_args(argv)
    exe, gmon = scale_bench.build(args.size)
    cache = Path(tempfile.mkdtemp(prefix="gmonlens-loopwatch-"))
    log = cache / "stalls.jsonl"
    os.environ["GMONLENS_LOOPWATCH"] = str(log)
    os.environ["PYTHONPATH"] = str(HERE / "loopwatch")
    try:
        for run in ("cold", "warm") if args.warm else ("cold",):
            log.write_text("")
            start = time.time()
            row = asyncio.run(scale_bench._session(exe.parent, exe, gmon, cache / "xdg", args.hovers))
            print(f"{run}: {json.dumps(row)}")
            stalls = [json.loads(line) for line in log.read_text().splitlines() if line]
            for kind in ("loop", "gil"):
                mine = sorted(
                    (s for s in stalls if s["kind"] in (kind, kind + "-done")), key=lambda s: -s["ms"]
                )
                print(f"  {kind}: {len(mine)} over 50 ms, longest {mine[0]['ms'] if mine else 0} ms")
                for s in mine[:8]:
                    where = {n: _where(st) for n, st in s.get("stacks", {}).items()}
                    busy = {n: w for n, w in where.items() if "select" not in w and "wait" not in w}
                    print(
                        f"    {s['ms']:7.1f} ms at +{s['t'] - start:5.2f} s  {where if args.stacks else list(busy.values())[:3]}"
                    )
            if run == "cold":  # fill the cache as the (killed) warm-up would have: a true second start
                env = {**os.environ, "XDG_CACHE_HOME": str(cache / "xdg")}
                env.pop("GMONLENS_LOOPWATCH")
                warmup = [sys.executable, "-m", "gmonlens_ide.warmup", str(exe), str(gmon)]
                scale_bench.measured(warmup, env)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
