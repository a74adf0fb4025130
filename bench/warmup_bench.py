"""The warm-up subprocess alone (`python -m gmonlens_ide.warmup`): CPU seconds and peak
RSS, on a cache left as the server's load leaves it, and on an empty cache.

    python bench/warmup_bench.py [--python PY] BINARY GMON...

`--python`: the interpreter of the gmonlens to measure (default: this one). "after a load": a
process first does what the server's load does (`Program`, `load_profile`, and the profile's
cache write where that gmonlens's server writes it: `reload._finish`), then the warm-up runs
alone; "empty": the warm-up on an empty cache (it computes the profile too). Each in a fresh
XDG_CACHE_HOME under a temporary directory."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

_LOAD = """
import sys
from gmonlens.load.loader import load_profile
from gmonlens.common.options import AnalysisOptions
from gmonlens.load.program import Program
from gmonlens_lsp import reload
from gmonlens_ide import cache_entries
import inspect
program = Program(sys.argv[1], sys.argv[2:])
options = AnalysisOptions()
key = cache_entries.profile_key(program, options)
profile = load_profile(program, options=options)
if "write_profile" in inspect.getsource(reload._finish):  # this server writes what it computed
    cache_entries.write_profile(key, profile)
"""


def run(cmd: list[str], cache: str) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of `cmd` run with XDG_CACHE_HOME=cache."""
    env = {**os.environ, "XDG_CACHE_HOME": cache}
    proc = subprocess.Popen(cmd, env=env, cwd="/", stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"{cmd[:3]} failed ({status})")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("binary")
    ap.add_argument("gmon", nargs="+")
    a = ap.parse_args()
    warm = [a.python, "-m", "gmonlens_ide.warmup", a.binary, *a.gmon]
    with tempfile.TemporaryDirectory() as tmp:
        loaded, empty = os.path.join(tmp, "loaded"), os.path.join(tmp, "empty")
        cpu, mb = run([a.python, "-c", _LOAD, a.binary, *a.gmon], loaded)
        print(f"the load (server's part): {cpu:.2f} s CPU, {mb:.0f} MB")
        cpu, mb = run(warm, loaded)
        print(f"warm-up after a load: {cpu:.2f} s CPU, {mb:.0f} MB")
        cpu, mb = run(warm, empty)
        print(f"warm-up, empty cache: {cpu:.2f} s CPU, {mb:.0f} MB")


if __name__ == "__main__":
    main()
