"""Fetch the SQLite amalgamation, build it with -pg and run a realistic workload (benchmark (a)).

The amalgamation (sqlite3.c, about 9 MB, SQLite 3.53) is not in the repository: it is taken at run
time from the npm package better-sqlite3 (pinned below), which vendors it under deps/sqlite3/, with
``npm pack`` into bench/work/sqlite/. ``$GMONLENS_SQLITE_DIR`` may point at a directory that already
holds sqlite3.c and sqlite3.h instead.

The driver is bench/sqlite_workload.c (tables, prepared inserts in transactions, indexes, joins,
GROUP BY/ORDER BY sorts, window functions, JSON, FTS5, R*Tree, VACUUM). Built with
``gcc -pg -g -O2`` the program has about 1,950 routines (the real-program tier, which
adds optional features with ``build(defines=...)``, over 2,000), about 900 of them in the call graph.

Library use::

    src = fetch()                     # bench/work/sqlite/src with sqlite3.c, sqlite3.h
    exe = build(src, opt="-O2")       # bench/work/sqlite/build-O2/sqlite_workload, cached
    gmon = run_workload(exe)          # gmon.out next to it, cached
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
WORK_DIR = BENCH_DIR / "work" / "sqlite"
NPM_PACKAGE = "better-sqlite3@12.11.1"  # vendors SQLite 3.53.2's amalgamation in deps/sqlite3/
DRIVER = BENCH_DIR / "sqlite_workload.c"
DEFINES = [
    "-DSQLITE_THREADSAFE=0",
    "-DSQLITE_ENABLE_FTS5",
    "-DSQLITE_ENABLE_RTREE",
    "-DSQLITE_ENABLE_MATH_FUNCTIONS",
]
DEFAULT_SCALE = 2  # about 3.5 s at -O2 under -pg on the reference machine


def fetch(work: Path = WORK_DIR) -> Path:
    """Return a directory holding sqlite3.c and sqlite3.h, fetching them once if needed."""
    env_dir = os.environ.get("GMONLENS_SQLITE_DIR")
    if env_dir:
        src = Path(env_dir)
        if not (src / "sqlite3.c").is_file():
            raise RuntimeError(f"{src}: no sqlite3.c ($GMONLENS_SQLITE_DIR)")
        return src
    src = work / "src"
    if (src / "sqlite3.c").is_file() and (src / "sqlite3.h").is_file():
        return src
    if shutil.which("npm") is None:
        raise RuntimeError("npm is needed to fetch the SQLite amalgamation (or set $GMONLENS_SQLITE_DIR)")
    work.mkdir(parents=True, exist_ok=True)
    out = subprocess.run(
        ["npm", "pack", "--silent", NPM_PACKAGE], cwd=work, check=True, capture_output=True, text=True
    )
    tgz = work / out.stdout.strip().splitlines()[-1]
    src.mkdir(exist_ok=True)
    with tarfile.open(tgz) as tar:
        for name in ("sqlite3.c", "sqlite3.h"):
            member = tar.getmember(f"package/deps/sqlite3/{name}")
            fobj = tar.extractfile(member)
            if fobj is None:
                raise RuntimeError(f"{tgz}: {member.name} is not a file")
            (src / name).write_bytes(fobj.read())
    tgz.unlink()
    return src


def build(
    src: Path,
    *,
    opt: str = "-O2",
    work: Path = WORK_DIR,
    cc: str = "gcc",
    defines: list[str] | None = None,
    driver: Path = DRIVER,
) -> Path:
    """Compile the amalgamation and the driver (default DRIVER, this checkout's) with
    ``-pg -g opt`` and ``defines`` (default DEFINES, which the benchmark figures rest on); cached
    by inputs' digest."""
    defines = DEFINES if defines is None else defines
    bdir = work / f"build{opt}"
    exe = bdir / "sqlite_workload"
    h = hashlib.sha256(" ".join([cc, opt, *defines]).encode())
    for f in (src / "sqlite3.c", src / "sqlite3.h", driver):
        h.update(f.read_bytes())
    digest = h.hexdigest()[:16]
    stamp = bdir / "digest"
    if exe.exists() and stamp.exists() and stamp.read_text() == digest:
        return exe
    bdir.mkdir(parents=True, exist_ok=True)
    flags = ["-pg", "-g", opt, *defines, f"-I{src}"]
    # sqlite3.c keeps its name so the DWARF and the server benchmark see a 9 MB source file
    subprocess.run([cc, *flags, "-c", str(src / "sqlite3.c"), "-o", str(bdir / "sqlite3.o")], check=True)
    subprocess.run([cc, *flags, "-c", str(driver), "-o", str(bdir / "sqlite_workload.o")], check=True)
    subprocess.run(
        [
            cc,
            "-pg",
            "-g",
            opt,
            "-o",
            str(exe),
            str(bdir / "sqlite_workload.o"),
            str(bdir / "sqlite3.o"),
            "-lm",
        ],
        check=True,
    )
    stamp.write_text(digest)
    (bdir / "gmon.out").unlink(missing_ok=True)
    return exe


def run_workload(exe: Path, scale: int = DEFAULT_SCALE) -> Path:
    """Run the workload in ``exe``'s directory (once; cached) and return its gmon.out."""
    gmon = exe.parent / "gmon.out"
    if gmon.exists() and gmon.stat().st_mtime >= exe.stat().st_mtime:
        return gmon
    gmon.unlink(missing_ok=True)
    subprocess.run([str(exe.resolve()), str(scale)], cwd=exe.parent, check=True, stdout=subprocess.DEVNULL)
    if not gmon.exists():
        raise RuntimeError(f"{exe} wrote no gmon.out")
    return gmon


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Fetch, build and run the SQLite benchmark program.")
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--scale", type=int, default=DEFAULT_SCALE)
    a = ap.parse_args(argv)
    exe = build(fetch(), opt=a.opt)
    print(exe)
    print(run_workload(exe, a.scale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
