"""Real third-party programs for the real-program tier, fetched from registry packages and built
with `gcc -pg -g -O2` (PIE, the compiler's default) at test time; builds are cached by their inputs
under `$GMONLENS_REALPROGS_WORK` (default bench/work/realprogs, git-ignored).

- SQLite: the amalgamation from the npm package better-sqlite3 (bench/sqlite_prog.py; set
  `$GMONLENS_SQLITE_DIR` to a directory holding sqlite3.c to skip the fetch), driver
  bench/sqlite_workload.c. About 1,950 routines.
- QuickJS + zstd: the JavaScript interpreter vendored by the PyPI sdist `quickjs` and the
  compression library vendored by the PyPI sdist `zstandard` (fetched with `pip download`), linked
  into one program with the driver qjs_workload.c. About 1,860 routines.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = Path(os.environ.get("GMONLENS_REALPROGS_WORK") or ROOT / "bench" / "work" / "realprogs")
QUICKJS = "quickjs==1.19.4"  # vendors QuickJS 2021-03-27 in upstream-quickjs/
ZSTANDARD = "zstandard==0.25.0"  # vendors the zstd amalgamation in zstd/
TIMEOUT = 1200


@dataclass(frozen=True)
class RealProgram:
    name: str
    binary: Path  # built in build/ of `root`
    gmon: Path
    sources: tuple[Path, ...]  # the files whose routines get lenses


def _run(argv: list[str], **kw: object) -> None:
    subprocess.run(argv, check=True, timeout=TIMEOUT, **kw)  # type: ignore[call-overload]


def _sdist(spec: str, dest: Path) -> Path:
    """Unpack the sdist of `spec` (pip download) under dest; returns its top directory."""
    name, version = spec.split("==")
    top = dest / f"{name}-{version}"
    if top.is_dir():
        return top
    dest.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", name, spec, "-d", str(dest)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    tgz = dest / f"{name}-{version}.tar.gz"
    if r.returncode != 0 or not tgz.exists():
        pytest.skip(f"cannot fetch the sdist {spec} with pip: {r.stderr.strip().splitlines()[-1:]}")
    with tarfile.open(tgz) as tar:
        tar.extractall(dest, filter="data")
    tgz.unlink()
    return top


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.hexdigest()[:16]


def _compile_all(jobs: list[list[str]]) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda argv: _run(argv, stdout=subprocess.DEVNULL), jobs))


def _run_workload(exe: Path, *args: str, env: dict[str, str] | None = None) -> Path:
    gmon = exe.parent / "gmon.out"
    if gmon.exists() and gmon.stat().st_mtime >= exe.stat().st_mtime:
        return gmon
    gmon.unlink(missing_ok=True)
    _run([str(exe), *args], cwd=exe.parent, stdout=subprocess.DEVNULL, env=env)
    assert gmon.exists(), f"{exe} wrote no gmon.out"
    return gmon


def sqlite() -> RealProgram:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import sqlite_prog  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    try:
        src = sqlite_prog.fetch(WORK / "sqlite")
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot fetch SQLite's amalgamation: {exc}")
    exe = sqlite_prog.build(src, opt="-O2", work=WORK / "sqlite")
    gmon = sqlite_prog.run_workload(exe, 1)
    return RealProgram("sqlite", exe, gmon, (src / "sqlite3.c", sqlite_prog.DRIVER))


QJS_FILES = ("quickjs", "libregexp", "libunicode", "cutils", "libbf")


def quickjs_zstd() -> RealProgram:
    srcdir = WORK / "qjs-src"
    qjs = _sdist(QUICKJS, srcdir) / "upstream-quickjs"
    zstd = _sdist(ZSTANDARD, srcdir) / "zstd"
    driver = HERE / "qjs_workload.c"
    bdir = WORK / "qjs" / "build"
    exe = bdir / "qjs_workload"
    version = (qjs / "VERSION").read_text().strip()
    flags = ["-pg", "-g", "-O2"]
    defines = [f'-DCONFIG_VERSION="{version}"', "-DCONFIG_BIGNUM"]
    sources = [qjs / f"{f}.c" for f in QJS_FILES] + [zstd / "zstd.c", driver]
    digest = _digest(" ".join(flags + defines).encode(), *(s.read_bytes() for s in sources))
    stamp = bdir / "digest"
    if not (exe.exists() and stamp.exists() and stamp.read_text() == digest):
        bdir.mkdir(parents=True, exist_ok=True)
        jobs = [["gcc", *flags, *defines, f"-I{qjs}", "-c", str(qjs / f"{f}.c"), "-o", str(bdir / f"{f}.o")]
                for f in QJS_FILES]  # fmt: skip
        jobs.append(["gcc", *flags, f"-I{zstd}", "-c", str(zstd / "zstd.c"),
                     "-o", str(bdir / "zstd.o")])  # fmt: skip
        jobs.append(["gcc", *flags, f"-I{qjs}", f"-I{zstd}", "-c", str(driver), "-o", str(bdir / "driver.o")])
        _compile_all(jobs)
        objs = [str(bdir / f"{f}.o") for f in (*QJS_FILES, "zstd", "driver")]
        _run(["gcc", *flags, "-o", str(exe), *objs, "-lm", "-lpthread"])
        stamp.write_text(digest)
        (bdir / "gmon.out").unlink(missing_ok=True)
    gmon = _run_workload(exe, "2")
    return RealProgram("quickjs+zstd", exe, gmon, tuple(sources))


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
