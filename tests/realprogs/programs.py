"""Real third-party programs for the real-program tier, fetched from registry packages and built
with `gcc -pg -g -O2` (PIE, the compiler's default) at test time.

Caching: the fetched sources and the builds are kept under `$GMONLENS_TEST_CACHE` (default
`$XDG_CACHE_HOME/gmonlens-tests`, else ~/.cache/gmonlens-tests), shared by every clone on the
machine: a build is reused when its key (the sources' and driver's bytes, the flags, and the
versions of gcc, g++ and ld) is the one it was made with; other clones and concurrent sessions wait
on a lock file while one builds. The runs (gmon.out) stay in the clone, under
`$GMONLENS_REALPROGS_WORK` (default bench/work/realprogs, git-ignored): run 0 once per build, and
runs 1.. (`--profile-runs N`) each in a directory of its own.

- SQLite: the amalgamation from the npm package better-sqlite3 (bench/sqlite_prog.py; set
  `$GMONLENS_SQLITE_DIR` to a directory holding sqlite3.c to skip the fetch), driver
  bench/sqlite_workload.c. About 1,950 routines.
- QuickJS + zstd + LZ4: the JavaScript interpreter vendored by the PyPI sdist `quickjs` and the
  compression libraries vendored by the PyPI sdists `zstandard` and `lz4` (fetched with
  `pip download`), linked into one program with the driver qjs_workload.c.
- LevelDB + snappy (C++): LevelDB 1.20 and snappy as vendored by the npm package classic-level
  (`npm pack`), built with `g++` and the driver leveldb_workload.cc. About 840 routines (classes,
  virtual iterators, libstdc++ template instances), so it has its own minimum, LEVELDB_MIN_ROUTINES;
  also built at -O0, where gprof's `-l` gets through (at -O2 it stops: README).

- libsass (C++): the Sass compiler vendored by the PyPI sdist `libsass` (all of libsass/src, 62
  .cpp and 2 .c files), built with `g++` and the driver libsass_workload.cc (the C API on a
  generated stylesheet). About 3,200 routines.

- tree-sitter + its JSON grammar (C): the runtime vendored by the PyPI sdist `tree-sitter` 0.24
  (its `lib.c`, a unity build of the runtime's sources) and the generated parser of the sdist
  `tree_sitter_json`, with the driver ts_workload.c (issue 27's layouts).

- jq (C): the JSON processor vendored by the PyPI sdist `jq` (jq 1.8.2's release tarball in deps/,
  with oniguruma and decNumber), configured `--disable-shared --with-oniguruma=builtin` and built
  with its own Makefile (autotools' configure, libtool, a flex scanner with the jq_yy prefix) and the
  workload jq_workload.jq on a generated document. Routines whose names macros make: X-macro lists
  (BINOPS: f_plus, f_minus...), LIBM_DD(floor)-style wrappers, `#define yylex jq_yylex`, oniguruma's
  `#define st_lookup onig_st_lookup`. About 1,100 routines (JQ_MIN_ROUTINES).

Each program has at least MIN_ROUTINES routines (`routines()`: the T/t symbols nm lists in .text,
which are the routines gprof sees; LevelDB's own minimum below); the tier asserts it so the programs
cannot silently shrink.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = Path(os.environ.get("GMONLENS_REALPROGS_WORK") or ROOT / "bench" / "work" / "realprogs")
CACHE = Path(
    os.environ.get("GMONLENS_TEST_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gmonlens-tests"
)
KEEP_BUILDS = 3  # builds kept per program (other keys: other branches, older sources), newest first
QUICKJS = "quickjs==1.19.4"  # vendors QuickJS 2021-03-27 in upstream-quickjs/
ZSTANDARD = "zstandard==0.25.0"  # vendors the zstd amalgamation in zstd/
LZ4 = "lz4==4.4.5"  # vendors LZ4 1.10 (lz4, lz4hc, lz4frame, xxhash) in lz4libs/
MIN_ROUTINES = 2000
CLASSIC_LEVEL = "classic-level@3.0.0"  # vendors LevelDB 1.20 and snappy in deps/
LEVELDB_MIN_ROUTINES = 800
LIBSASS = "libsass==0.23.0"  # vendors libsass 3.6.6 in libsass/
LIBSASS_MIN_ROUTINES = 3000
JQ = "jq==1.13.0"  # vendors jq 1.8.2 (deps/jq-1.8.2.tar.gz: jq, oniguruma, decNumber)
TREE_SITTER = "tree-sitter==0.24.0"  # vendors the tree-sitter runtime 0.24 (core/lib/src/lib.c)
TREE_SITTER_JSON = "tree_sitter_json==0.24.8"  # the JSON grammar's generated src/parser.c
JQ_MIN_ROUTINES = 1000
# SQLite features the tier enables on top of bench/sqlite_prog.py's DEFINES (which the benchmark
# figures rest on, so they stay as they are): more of the amalgamation compiled in and exercised.
SQLITE_EXTRA_DEFINES = (
    "-DSQLITE_ENABLE_GEOPOLY",
    "-DSQLITE_ENABLE_SESSION",
    "-DSQLITE_ENABLE_PREUPDATE_HOOK",
    "-DSQLITE_ENABLE_DBSTAT_VTAB",
    "-DSQLITE_ENABLE_STAT4",
    "-DSQLITE_ENABLE_COLUMN_METADATA",
    "-DSQLITE_ENABLE_BYTECODE_VTAB",
    "-DSQLITE_ENABLE_STMTVTAB",
    "-DSQLITE_ENABLE_OFFSET_SQL_FUNC",
    "-DSQLITE_ENABLE_FTS4",
    "-DSQLITE_ENABLE_FTS3_PARENTHESIS",
    "-DSQLITE_ENABLE_DBPAGE_VTAB",
    "-DSQLITE_ENABLE_CARRAY",
    "-DSQLITE_ENABLE_PERCENTILE",
    "-DSQLITE_ENABLE_UNKNOWN_SQL_FUNCTION",
    "-DSQLITE_ENABLE_EXPLAIN_COMMENTS",
    "-DSQLITE_ENABLE_SNAPSHOT",
    "-DSQLITE_ENABLE_UPDATE_DELETE_LIMIT",
    "-DSQLITE_ENABLE_NORMALIZE",
    "-DSQLITE_ENABLE_API_ARMOR",
)
TIMEOUT = 1200


@dataclass(frozen=True)
class RealProgram:
    name: str
    binary: Path  # in the build cache (CACHE/build/<program>/<key>/)
    gmon: Path  # this run's, in WORK
    sources: tuple[Path, ...]  # the files whose routines get lenses
    include_dirs: tuple[Path, ...] = ()  # headers there (and beside the sources) hold routines too


def _run(argv: list[str], **kw: object) -> None:
    subprocess.run(argv, check=True, timeout=TIMEOUT, **kw)  # type: ignore[call-overload]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file `path` (other processes, other clones, wait)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@functools.cache
def toolchain() -> bytes:
    """The versions of the tools a build's bytes depend on (part of every build key)."""
    out = []
    for tool in ("gcc", "g++", "ld"):
        try:
            r = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60)
            out.append(r.stdout.splitlines()[0] if r.stdout else f"{tool}: none")
        except OSError:
            out.append(f"{tool}: none")
    return "\n".join(out).encode()


@contextlib.contextmanager
def cached_build(program: str, key: str) -> Iterator[tuple[Path, bool]]:
    """The build directory of `program` for `key`, locked while in the block: (directory, done).
    Not done: the block builds into the (emptied) directory; it is marked done when the block ends
    without an exception. Older keys of the program beyond KEEP_BUILDS are removed."""
    base = CACHE / "build" / program
    bdir, stamp = base / key, base / key / ".done"
    with _locked(base.with_suffix(".lock")):
        if stamp.exists():
            os.utime(stamp)  # recently used: kept
            yield bdir, True
            return
        shutil.rmtree(bdir, ignore_errors=True)
        bdir.mkdir(parents=True)
        yield bdir, False
        stamp.write_text(key)
        done = sorted(base.glob("*/.done"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in done[KEEP_BUILDS:]:
            shutil.rmtree(old.parent, ignore_errors=True)


def _sdist(spec: str, dest: Path | None = None) -> Path:
    """Unpack the sdist of `spec` (pip download) once under dest (default: the cache's src/);
    returns its top directory."""
    name, version = spec.split("==")
    dest = dest or CACHE / "src"
    top = dest / f"{name}-{version}"
    with _locked(dest / f"{name}-{version}.lock"):
        if not (top / ".done").exists():
            shutil.rmtree(top, ignore_errors=True)
            _fetch_sdist(spec, dest)
            (top / ".done").write_text(spec)
    return top


def _fetch_sdist(spec: str, dest: Path) -> None:
    name, version = spec.split("==")
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


# part of every build key: how a build is laid out (a change here is a new key, built anew)
BUILD_LAYOUT = b"drivers compiled from their copy in the build directory\n"


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256(BUILD_LAYOUT)
    for p in parts:
        h.update(p)
    return h.hexdigest()[:16]


def _compile_all(jobs: list[list[str]]) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda argv: _run(argv, stdout=subprocess.DEVNULL), jobs))


def _run_workload(exe: Path, *args: str, cwd: Path) -> Path:
    """Run `exe` in `cwd` once per build: its gmon.out there (kept while newer than `exe`)."""
    gmon = cwd / "gmon.out"
    if gmon.exists() and gmon.stat().st_mtime >= exe.stat().st_mtime:
        return gmon
    gmon.unlink(missing_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    _run([str(exe), *args], cwd=cwd, stdout=subprocess.DEVNULL)
    assert gmon.exists(), f"{exe} wrote no gmon.out"
    return gmon


def run_dir(program: str, key: str, run: int) -> Path:
    """Where run `run` of the build `key` of `program` writes its profile (in this clone)."""
    return WORK / "runs" / program / key / f"run{run}"


def _driver_copy(driver: Path, bdir: Path) -> Path:
    """`driver` (a workload source of this clone) as the build compiles it: a copy in the build
    directory, so that the binary's DWARF names a file that exists for every clone sharing the
    build (a clone's own path would exist only in the clone that built it). Called with the
    build's lock held; the key covers the driver's bytes, so an existing copy is the same file."""
    copy = bdir / "driver" / driver.name
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(driver, copy)
    return copy


def _drop_objects(bdir: Path) -> None:
    """The objects once linked (nothing reads them: a changed input is a new key, built anew)."""
    for o in bdir.glob("*.o"):
        o.unlink()


def routines(exe: Path) -> int:
    """How many routines `exe` has: its function symbols (nm types T and t) in .text."""
    out = subprocess.run(["nm", "--defined-only", str(exe)], check=True, capture_output=True, text=True)
    return sum(1 for line in out.stdout.splitlines() if line.split()[1:2] in (["T"], ["t"]))


def sqlite(run: int = 0) -> RealProgram:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import sqlite_prog  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    try:
        with _locked(CACHE / "src" / "sqlite.lock"):
            src = sqlite_prog.fetch(CACHE / "src" / "sqlite")
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot fetch SQLite's amalgamation: {exc}")
    defines = [*sqlite_prog.DEFINES, *SQLITE_EXTRA_DEFINES]
    inputs = (src / "sqlite3.c", src / "sqlite3.h", sqlite_prog.DRIVER)
    key = _digest(toolchain(), " ".join(["-O2", *defines]).encode(), *(f.read_bytes() for f in inputs))
    with cached_build("sqlite", key) as (bdir, _done):
        driver = _driver_copy(sqlite_prog.DRIVER, bdir)
        exe = sqlite_prog.build(src, opt="-O2", work=bdir, defines=defines, driver=driver)
    gmon = _run_workload(exe, "1", cwd=run_dir("sqlite", key, run))
    return RealProgram("sqlite", exe, gmon, (src / "sqlite3.c", driver))


QJS_FILES = ("quickjs", "libregexp", "libunicode", "cutils", "libbf")
LZ4_FILES = ("lz4", "lz4hc", "lz4frame", "xxhash")


def quickjs_zstd_lz4(run: int = 0) -> RealProgram:
    qjs = _sdist(QUICKJS) / "upstream-quickjs"
    zstd = _sdist(ZSTANDARD) / "zstd"
    lz4 = _sdist(LZ4) / "lz4libs"
    driver = HERE / "qjs_workload.c"
    version = (qjs / "VERSION").read_text().strip()
    flags = ["-pg", "-g", "-O2"]
    defines = [f'-DCONFIG_VERSION="{version}"', "-DCONFIG_BIGNUM"]
    libs = [qjs / f"{f}.c" for f in QJS_FILES] + [zstd / "zstd.c"] + [lz4 / f"{f}.c" for f in LZ4_FILES]
    sources = [*libs, driver]
    key = _digest(toolchain(), " ".join(flags + defines).encode(), *(s.read_bytes() for s in sources))
    with cached_build("qjs", key) as (bdir, done):
        driver = sources[-1] = _driver_copy(driver, bdir)
        exe = bdir / "qjs_workload"
        if not done:
            jobs = [["gcc", *flags, *defines, "-c", str(c), "-o", str(bdir / f"{c.stem}.o")] for c in libs]
            jobs.append(["gcc", *flags, f"-I{qjs}", f"-I{zstd}", f"-I{lz4}", "-c", str(driver),
                         "-o", str(bdir / "driver.o")])  # fmt: skip
            _compile_all(jobs)
            objs = [str(bdir / f"{c.stem}.o") for c in libs] + [str(bdir / "driver.o")]
            _run(["gcc", *flags, "-o", str(exe), *objs, "-lm", "-lpthread"])
            _drop_objects(bdir)
    gmon = _run_workload(exe, "2", cwd=run_dir("qjs", key, run))
    return RealProgram("quickjs+zstd+lz4", exe, gmon, tuple(sources))


LEVELDB_FILES = (
    *(f"db/{f}" for f in ("builder", "db_impl", "db_iter", "filename", "dbformat", "log_reader",
                          "log_writer", "memtable", "repair", "table_cache", "version_edit",
                          "version_set", "write_batch")),
    "helpers/memenv/memenv", "port/port_posix", "port/port_posix_sse",
    *(f"table/{f}" for f in ("block", "block_builder", "filter_block", "format", "iterator", "merger",
                             "table", "table_builder", "two_level_iterator")),
    *(f"util/{f}" for f in ("arena", "bloom", "cache", "coding", "comparator", "crc32c", "env",
                            "env_posix", "filter_policy", "hash", "histogram", "logging", "options",
                            "status")),
)  # fmt: skip
SNAPPY_FILES = ("snappy", "snappy-sinksource", "snappy-stubs-internal", "snappy-c")


def _npm_deps(spec: str, dest: Path | None = None) -> Path:
    """The deps/ directory of the npm package `spec` (npm pack), unpacked once under dest (default:
    the cache's src/)."""
    top = (dest or CACHE / "src") / spec.replace("@", "-")
    with _locked(top.with_suffix(".lock")):
        if not (top / ".done").exists():
            shutil.rmtree(top, ignore_errors=True)
            _fetch_npm_deps(spec, top)
            (top / ".done").write_text(spec)
    return top / "package" / "deps"


def _fetch_npm_deps(spec: str, top: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip(f"npm is needed to fetch {spec}")
    top.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["npm", "pack", "--silent", spec], cwd=top, capture_output=True, text=True,
                       timeout=TIMEOUT)  # fmt: skip
    if r.returncode != 0 or not r.stdout.strip():
        pytest.skip(f"cannot fetch {spec} with npm: {r.stderr.strip().splitlines()[-1:]}")
    tgz = top / r.stdout.strip().splitlines()[-1]
    with tarfile.open(tgz) as tar:
        tar.extractall(top, members=[m for m in tar.getmembers() if m.name.startswith("package/deps/")],
                       filter="data")  # fmt: skip
    tgz.unlink()


def leveldb_snappy(opt: str = "-O2", run: int = 0) -> RealProgram:
    deps = _npm_deps(CLASSIC_LEVEL)
    ldb, snappy = deps / "leveldb" / "leveldb-1.20", deps / "snappy"
    driver = HERE / "leveldb_workload.cc"
    flags = ["-pg", "-g", opt]
    defines = ["-DLEVELDB_PLATFORM_POSIX=1", "-DOS_LINUX", "-DSNAPPY=1", "-DHAVE_CONFIG_H=1"]
    includes = [f"-I{ldb}", f"-I{ldb / 'include'}", f"-I{snappy / 'linux'}", f"-I{snappy / 'snappy'}"]
    libs = [ldb / f"{f}.cc" for f in LEVELDB_FILES] + [snappy / "snappy" / f"{f}.cc" for f in SNAPPY_FILES]
    sources = [*libs, driver]
    key = _digest(toolchain(), " ".join(flags + defines).encode(), *(s.read_bytes() for s in sources))
    with cached_build(f"leveldb{opt}", key) as (bdir, done):
        sources[-1] = _driver_copy(driver, bdir)
        exe = bdir / "leveldb_workload"
        if not done:
            objs = [bdir / f"{c.stem}.o" for c in sources]
            _compile_all([["g++", *flags, *defines, *includes, "-w", "-c", str(c), "-o", str(o)]
                          for c, o in zip(sources, objs, strict=True)])  # fmt: skip
            # linked in name order (as `*.o`), where a libstdc++ inline's line rows end exactly at
            # log::Reader::Reporter's destructor (the `-A -C` case of test_real_cxx.py)
            _run(["g++", *flags, "-o", str(exe), *sorted(map(str, objs)), "-lpthread"])
            _drop_objects(bdir)
    rundir = run_dir(f"leveldb{opt}", key, run)
    gmon = _run_workload(exe, "2", str(rundir / "db"), cwd=rundir)
    return RealProgram(f"leveldb+snappy{opt}", exe, gmon, tuple(sources), (ldb / "include" / "leveldb",))


def libsass(opt: str = "-O2", run: int = 0) -> RealProgram:
    top = _sdist(LIBSASS)
    src, include = top / "libsass" / "src", top / "libsass" / "include"
    version = (top / ".libsass-upstream-version").read_text().strip()
    driver = HERE / "libsass_workload.cc"
    flags = ["-pg", "-g", opt]
    defines = [f'-DLIBSASS_VERSION="{version}"', f"-I{include}"]
    sources = [*sorted(src.glob("*.cpp")), *sorted(src.glob("*.c")), driver]
    key = _digest(toolchain(), " ".join(flags + defines).encode(), *(s.read_bytes() for s in sources))
    with cached_build(f"libsass{opt}", key) as (bdir, done):
        sources[-1] = _driver_copy(driver, bdir)
        exe = bdir / "libsass_workload"
        if not done:
            objs = [bdir / f"{c.name}.o" for c in sources]
            _compile_all([["gcc" if c.suffix == ".c" else "g++", *flags, *defines, "-w", "-c", str(c), "-o", str(o)]
                          for c, o in zip(sources, objs, strict=True)])  # fmt: skip
            _run(["g++", *flags, "-o", str(exe), *sorted(map(str, objs))])
            _drop_objects(bdir)
    gmon = _run_workload(exe, "2", cwd=run_dir(f"libsass{opt}", key, run))
    return RealProgram(f"libsass{opt}", exe, gmon, tuple(sources), (include, include / "sass", src / "b64",
                                                                     src / "utf8"))  # fmt: skip


def jq_document(path: Path, n: int = 20000) -> Path:
    """The workload's input: n records (id, name, score, tags), generated deterministically."""
    import json
    import random

    if path.exists():
        return path
    rng = random.Random(1)
    rows = [
        {
            "id": i,
            "name": f"user{rng.randrange(10**6)}",
            "score": rng.random() * 100,
            "tags": [rng.choice(["a", "bb", "ccc", "dd5"]) for _ in range(rng.randrange(5))],
        }
        for i in range(n)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows))
    return path


def jq(run: int = 0) -> RealProgram:
    top = _sdist(JQ)
    tarball = next(top.glob("deps/jq-*.tar.gz"))
    flags = "-pg -g -O2"
    configure = [
        "--disable-shared",
        "--with-oniguruma=builtin",
        "--disable-docs",
        "--disable-maintainer-mode",
    ]
    key = _digest(toolchain(), flags.encode(), " ".join(configure).encode(), tarball.read_bytes())
    with cached_build("jq", key) as (bdir, done):
        # built where it stays: make compiles with relative paths, so the DWARF names this tree
        tree = bdir / "tree"
        exe = tree / "jq"
        if not done:
            unpack = bdir / "unpack"
            with tarfile.open(tarball) as tar:
                tar.extractall(unpack, filter="data")  # keeps the release's mtimes: no bison/flex run
            next(unpack.iterdir()).rename(tree)
            env = {**os.environ, "CFLAGS": flags}
            _run(["./configure", *configure], cwd=tree, env=env, stdout=subprocess.DEVNULL)
            _run(["make", "-j2"], cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rundir = run_dir("jq", key, run)
    jq_document(rundir / "input.json")
    shutil.copy2(HERE / "jq_workload.jq", rundir / "prog.jq")
    gmon = _run_workload(exe, "-f", "prog.jq", "input.json", cwd=rundir)
    # the compiled sources, and the grammar and scanner that parser.c and lexer.c place routines in
    dirs = (tree / "src", tree / "vendor" / "oniguruma" / "src", tree / "vendor" / "decNumber")
    sources = sorted(p for d in dirs for p in d.glob("*.c") if p.with_suffix(".o").exists())
    sources += [tree / "src" / "parser.y", tree / "src" / "lexer.l"]
    return RealProgram("jq", exe, gmon, tuple(sources))


def tree_sitter_json(run: int = 0) -> RealProgram:
    """The tree-sitter runtime as its own unity build (`lib.c` #includes `./alloc.c`, `./parser.c`,
    ...) with the JSON grammar's generated `parser.c` (two `parser.c` in different directories) and
    the driver ts_workload.c, gcc -pg -g -O2: the layout of issue 27 items 1-3. The grammar includes
    `tree_sitter/parser.h`, which is the runtime's `lib/src/parser.h` (copied into build/inc)."""
    lib = _sdist(TREE_SITTER) / "tree_sitter" / "core" / "lib"
    grammar = _sdist(TREE_SITTER_JSON) / "src"
    driver = HERE / "ts_workload.c"
    sources = [lib / "src" / "lib.c", grammar / "parser.c", driver]
    flags = ["-pg", "-g", "-O2"]
    key = _digest(toolchain(), " ".join(flags).encode(), *(s.read_bytes() for s in sources))
    with cached_build("tree-sitter", key) as (bdir, done):
        sources[-1] = _driver_copy(driver, bdir)
        exe = bdir / "ts_workload"
        if not done:
            inc = bdir / "inc" / "tree_sitter"
            inc.mkdir(parents=True, exist_ok=True)
            (inc / "parser.h").write_bytes((lib / "src" / "parser.h").read_bytes())
            includes = [f"-I{lib / 'include'}", f"-I{lib / 'src'}", f"-I{bdir / 'inc'}"]
            _run(["gcc", *flags, *includes, "-o", str(exe), *map(str, sources)], cwd=bdir)
    gmon = _run_workload(exe, "40", cwd=run_dir("tree-sitter", key, run))
    return RealProgram("tree-sitter+json", exe, gmon, tuple(sources))


def second_profile(prog: RealProgram, *args: str) -> Path:
    """Another run of `prog` (with `args`, in second/ beside its run): a profile to sum with its own."""
    return _run_workload(prog.binary, *args, cwd=prog.gmon.parent / "second")


_gprof_jobs: dict[tuple[str, ...], tuple[subprocess.Popen[bytes], IO[bytes]]] = {}
GPROF_LINES = ("-l", "-p")  # test_real_disasm's line-by-line oracle, the slow one


def gprof_later(prog: RealProgram, *opts: str) -> None:
    """Start `gprof -b OPTS` on `prog` in the background, once (`gprof_text` collects it): gprof's
    `-l` takes 56-89 s of CPU on QuickJS and SQLite, which the tier's other tests, on the other core,
    need not wait for."""
    argv = ("gprof", "-b", *opts, str(prog.binary), str(prog.gmon))
    if argv not in _gprof_jobs:
        out = tempfile.TemporaryFile()  # noqa: SIM115 (closed by gprof_text, or at exit)
        _gprof_jobs[argv] = (subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL), out)
        if len(_gprof_jobs) == 1:
            atexit.register(_stop_gprof_jobs)


def _stop_gprof_jobs() -> None:
    """Background runs nobody collected (their test deselected or failed first) end with the session."""
    for proc, out in _gprof_jobs.values():
        proc.kill()
        proc.wait()
        out.close()
    _gprof_jobs.clear()


def gprof_text(prog: RealProgram, *opts: str) -> str | None:
    """`gprof -b OPTS`'s output on `prog` (None when gprof fails or prints nothing)."""
    argv = ("gprof", "-b", *opts, str(prog.binary), str(prog.gmon))
    gprof_later(prog, *opts)
    proc, out = _gprof_jobs.pop(argv)
    with out:
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
        out.seek(0)
        text = out.read().decode(errors="replace")
    return text if proc.returncode == 0 and text.strip() else None


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
