"""The disk cache never crashes, never lies, stays bounded and stays out of workspaces (issue 9).

Entries are checksummed before decoding (marshal crashes the interpreter on crafted bytes: those
cases run in a subprocess, where a crash is an exit by signal), shape-checked after, keyed by
identity that `cp -p` cannot fake, evicted least-recently-used past the size limit.
"""

from __future__ import annotations

import marshal
import os
import shutil
import struct
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from gmonlens.binary.elffile import ElfFile
from gmonlens.common.errors import ElfError
from gmonlens.dwarf.declarations import EXPORT_FORMAT, DwarfIndex, SourceDecl
from gmonlens.dwarf.line_table import LineTable
from gmonlens.load import diskcache
from gmonlens.load.loader import _static_calls_entry
from gmonlens.load.program import _lines_entry

KEY = "ab" * 32


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("GMONLENS_CACHE", raising=False)
    monkeypatch.delenv("GMONLENS_CACHE_MAX_MB", raising=False)
    return home / "gmonlens"


def entry(cache: Path, kind: str = "lines", key: str = KEY) -> Path:
    return cache / f"{kind}-{key}{diskcache.SUFFIX}"


def identity(value: object) -> object:
    return value


def test_round_trip_and_shape_check(cache_home: Path) -> None:
    lines = {0x1000: ("a.c", 3), 0x1010: ("b.c", 7)}
    assert diskcache.store("lines", KEY, lines)
    assert diskcache.load("lines", KEY, _lines_entry) == lines
    assert oct(cache_home.stat().st_mode & 0o777) == "0o700"


def _no_file() -> ElfFile:
    raise ElfError("x", "no such file (the index is read from the cache only)")


@pytest.mark.parametrize(
    ("kind", "value", "convert"),
    [
        ("lines", {0x1000: 5}, _lines_entry),  # the CLI traceback of issue 9
        ("lines", {"x": ("a.c", 1)}, _lines_entry),
        ("lines", [1, 2], _lines_entry),
        ("staticcalls", [(1, "x")], _static_calls_entry),
        (
            "dwarf",
            {"units": [], "decls": []},
            lambda d: DwarfIndex.from_export("x", d, _no_file),
        ),  # broke a folder
        (
            "dwarf",
            {"units": [[0, "a", "b", [5]]], "decls": {}},
            lambda d: DwarfIndex.from_export("x", d, _no_file),
        ),
        ("linetable", ((0,), (([0, 4], [9], [1]),), ("a.c",)), LineTable.from_plain),  # lists: old form
        (
            "linetable",
            LineTable((0,), (([0, 4], [0, 1], [1, 2]),), ("a.c",)).to_plain(),
            LineTable.from_plain,
        ),
        ("linetable", ((0,), ((b"\0" * 8, b"\0" * 4, b"\0" * 7),), ("a.c",)), LineTable.from_plain),
        ("linetable", ((4,), ((b"\0" * 8, b"\0" * 4, b"\0" * 8),), ("a.c",)), LineTable.from_plain),
    ],
)
def test_wrong_shape_is_dropped(cache_home: Path, kind: str, value: object, convert: object) -> None:
    assert diskcache.store(kind, KEY, value)
    assert diskcache.load(kind, KEY, convert) is None  # type: ignore[arg-type]
    assert not entry(cache_home, kind).exists(), "a wrongly shaped entry must be deleted"


def test_good_line_table_and_dwarf_export_accepted() -> None:
    seqs = (([0, 4, 8], [0, 1, 0], [1, 2, 3]), ([0x100, 0x108], [1, 1], [9, 9]))
    table = LineTable((0, 0x100), seqs, ("a.c", "b.c"))
    assert diskcache.store("linetable", KEY, table.to_plain())
    got = diskcache.load("linetable", KEY, LineTable.from_plain)
    assert got is not None and got.lookup(5) == ("b.c", 2)
    export = {
        "format": EXPORT_FORMAT,
        "units": [[0, "a.c", "/w", ["a.c"]]],
        "decls": {"0": marshal.dumps([("f", None, "a.c", 3, 5, ((0, 8),))])},
    }
    assert diskcache.store("dwarf", KEY, {**export, "unit_ranges": [[0, 8, 0]]})
    index = diskcache.load("dwarf", KEY, lambda d: DwarfIndex.from_export("x", d, _no_file))
    assert index is not None and index.decl_at(4) == SourceDecl("f", None, "a.c", 3, 5, ((0, 8),), 0)
    # a unit packed with the wrong shape (checked when the unit is first asked for): no
    # declarations there (no file to read them from), no error
    bad = {**export, "decls": {"0": marshal.dumps([("f", None, "a.c", "3", 5, ((0, 8),))])}}
    index = DwarfIndex.from_export("x", {**bad, "unit_ranges": [[0, 8, 0]]}, _no_file)
    assert index.decl_at(4) is None and index.decls_of_unit(0) == ()


def _planted(cache: Path, payload: bytes, digest: bytes | None = None, length: int | None = None) -> Path:
    import hashlib

    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    head = struct.pack(
        "<4sIQ32s64s",
        diskcache.MAGIC,
        diskcache.FORMAT,
        len(payload) if length is None else length,
        hashlib.sha256(payload).digest() if digest is None else digest,
        KEY.encode(),
    )
    p = entry(cache)
    p.write_bytes(head + payload)
    return p


CRASH = (
    "import sys\n"
    "from gmonlens.load import diskcache\n"
    "from gmonlens.load.program import _lines_entry\n"
    "convert = _lines_entry if sys.argv[2] == 'shape' else lambda v: (hash(v), v)[1]  # hash: segfault\n"
    "print(diskcache.load('lines', sys.argv[1], convert))\n"
)


def _load_in_subprocess(cache_home: Path, convert: str = "shape") -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home.parent)}
    return subprocess.run(
        [sys.executable, "-c", CRASH, KEY, convert], env=env, capture_output=True, timeout=60
    )


def test_crafted_self_containing_tuple_does_not_crash(cache_home: Path) -> None:
    """10 bytes that make marshal build a tuple containing itself (a segfault on use): a planted
    entry whose checksum does not match is dropped before decoding."""
    evil = b"\xa9\x01r\x00\x00\x00\x00N"  # FLAG_REF tuple of 1 whose item refers to itself
    _planted(cache_home, evil, digest=b"\0" * 32)  # torn/corrupt: checksum mismatch
    r = _load_in_subprocess(cache_home, "hash")
    assert r.returncode == 0, f"crashed: {r.returncode} {r.stderr.decode()[-300:]}"
    assert r.stdout.strip() == b"None"
    _planted(cache_home, evil)  # planted with a valid checksum: the shape check refuses it
    r = _load_in_subprocess(cache_home, "shape")
    assert r.returncode == 0, f"crashed: {r.returncode} {r.stderr.decode()[-300:]}"
    assert r.stdout.strip() == b"None"


def test_flipped_bytes_in_a_real_entry(cache_home: Path) -> None:
    value = {a: (f"/src/file{a % 7}.c", a) for a in range(0, 40000, 16)}
    assert diskcache.store("lines", KEY, value)
    good = entry(cache_home).read_bytes()
    for pos in range(0, len(good), max(1, len(good) // 12)):
        bad = bytearray(good)
        bad[pos] ^= 0x5A
        entry(cache_home).write_bytes(bytes(bad))
        r = _load_in_subprocess(cache_home)
        assert r.returncode == 0, f"flip at {pos}: exit {r.returncode}"
        assert r.stdout.strip() == b"None", f"flip at {pos} was trusted"


def test_claimed_length_of_2_28_allocates_nothing(cache_home: Path) -> None:
    _planted(cache_home, b"\0" * 64, length=1 << 28)
    tracemalloc.start()
    assert diskcache.load("lines", KEY, identity) is None
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20, f"peak {peak} bytes"
    assert not entry(cache_home).exists()


def test_truncated_and_foreign_entries(cache_home: Path) -> None:
    assert diskcache.store("lines", KEY, {1: ("a", 1)})
    good = entry(cache_home).read_bytes()
    for data in (
        good[:10],
        good[:-1],
        b"",
        b"GMLC" + (diskcache.FORMAT - 1).to_bytes(4, "little") + good[8:],
        good + b"x",
    ):
        entry(cache_home).write_bytes(data)
        assert diskcache.load("lines", KEY, _lines_entry) is None
    os.mkfifo(entry(cache_home))  # never blocks
    assert diskcache.load("lines", KEY, _lines_entry) is None


def test_relative_xdg_cache_home_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "workspace-cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert diskcache.cache_dir() == str(tmp_path / "home" / ".cache" / "gmonlens")
    assert diskcache.store("lines", KEY, {1: ("a", 1)})
    assert not (tmp_path / "workspace-cache").exists()


def test_cache_off_and_unsafe_directory(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GMONLENS_CACHE", "off")
    assert diskcache.cache_dir() is None and not diskcache.store("lines", KEY, {})
    monkeypatch.delenv("GMONLENS_CACHE")
    cache_home.mkdir(parents=True)
    cache_home.chmod(0o777)  # writable by others: anyone could plant entries
    assert not diskcache.store("lines", KEY, {})
    cache_home.chmod(0o700)
    assert diskcache.store("lines", KEY, {})


def test_size_limit_evicts_least_recently_used(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GMONLENS_CACHE_MAX_MB", "0.1")  # 104,857 bytes
    blob = list(range(4000))  # ~20 KB marshalled
    keys = [f"{i:064x}" for i in range(4)]
    for i, k in enumerate(keys):
        assert diskcache.store("staticcalls", k, blob)
        os.utime(entry(cache_home, "staticcalls", k), ns=(i * 10**9, i * 10**9))
    assert diskcache.load("staticcalls", keys[0], identity) == blob  # used: now the newest
    for k in ("a" * 64, "b" * 64):
        assert diskcache.store("staticcalls", k, blob)
    left = {p.name.split("-")[1].split(".")[0] for p in cache_home.iterdir()}
    total = sum(p.stat().st_size for p in cache_home.iterdir())
    assert total <= 0.1 * 1024 * 1024
    assert keys[0] in left and keys[1] not in left, left


def test_binary_key_sees_cp_p_and_touch_r(tmp_path: Path) -> None:
    """Same size, same mtime, other content: the key must change (ctime, inode)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"1" * 100)
    b.write_bytes(b"2" * 100)
    k1 = diskcache.binary_key(str(a), None)
    st = a.stat()
    shutil.copyfile(b, a)
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert a.stat().st_mtime_ns == st.st_mtime_ns and a.stat().st_size == st.st_size
    assert diskcache.binary_key(str(a), None) != k1
    assert diskcache.content_key(a.read_bytes()) != diskcache.content_key(b"1" * 100)
    assert diskcache.binary_key("/dev/zero", None) is None


def test_an_entry_planted_as_a_link_is_replaced_not_written_through(cache_home: Path, tmp_path: Path) -> None:
    """Issue 22: cache entries are written to a new file and renamed over the name, so a link
    planted where an entry goes is replaced by the entry; what it pointed at is untouched."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    assert diskcache.store("lines", KEY, {1: ("a.c", 2)})  # creates the directory
    path = entry(cache_home)
    path.unlink()
    path.symlink_to(victim)
    assert diskcache.store("lines", KEY, {1: ("a.c", 2)})
    assert victim.read_bytes() == b"precious"
    assert not path.is_symlink() and diskcache.load("lines", KEY, _lines_entry) == {1: ("a.c", 2)}


def test_large_entry_in_pieces_round_trip(cache_home: Path) -> None:
    """A value whose top-level containers exceed CHUNK_ITEMS is stored in marshal pieces (read one
    by one: the GIL is let go between them) and read back equal, types included; a damaged piece
    (valid checksum, wrong shape) drops the entry."""
    n = diskcache.CHUNK_ITEMS * 3 + 5
    value = {
        "units": [[i, f"u{i}", None, (f"a{i}.c",)] for i in range(n)],
        "decls": {str(i): [[f"f{i}", i, (1, 2)]] for i in range(n)},
        "ranges": tuple((i, i + 1) for i in range(n)),
        "small": [1, 2.5, "x", b"y"],
    }
    assert diskcache.store("dwarf", KEY, value)
    stored = marshal.loads(entry(cache_home, "dwarf").read_bytes()[diskcache._HEADER.size :])
    assert [k for k, v in stored.items() if type(v) is tuple and v[0] == diskcache._CHUNK] == [
        "units", "decls", "ranges"
    ]  # fmt: skip
    got = diskcache.load("dwarf", KEY, identity)
    assert got == value and type(got["ranges"]) is tuple and type(got["units"][0][3]) is tuple
    bad = (diskcache._CHUNK, "l", [b"not marshal"])
    assert diskcache.store("dwarf", KEY, {"units": bad})  # stored as given (small): a forged piece
    assert diskcache.load("dwarf", KEY, identity) is None
    assert not entry(cache_home, "dwarf").exists()


def _largest_whole(value: object) -> int:
    """The most items any container not in pieces holds, at any depth."""
    if type(value) is tuple and len(value) == 3 and value[0] == diskcache._CHUNK:
        return 0
    if isinstance(value, dict):
        return max([len(value), *(_largest_whole(v) for v in value.values())])
    if isinstance(value, (list, tuple)):
        return max([len(value), *(_largest_whole(v) for v in value)])
    return 0


def test_nested_large_containers_in_pieces(cache_home: Path) -> None:
    """Large containers below the top level (a profile's name column: ("Routine", n, ((kind,
    names), ...))) are in pieces too: no marshal call of the write or the read handles more than
    CHUNK_ITEMS items of them at once. Entries with only the top levels in pieces (written
    before) read back the same."""
    n = diskcache.CHUNK_ITEMS * 40 + 3
    names = tuple(f"routine_{i}" for i in range(n))
    value = {"routines": ("Routine", n, (("s", names), ("q", b"\0" * 8 * n))), "small": (1, 2)}
    assert diskcache.store("profile", KEY, value)
    stored = marshal.loads(entry(cache_home, "profile").read_bytes()[diskcache._HEADER.size :])
    assert _largest_whole(stored) <= diskcache.CHUNK_ITEMS
    got = diskcache.load("profile", KEY, identity)
    assert got == value and type(got["routines"][2][0][1]) is tuple
    older = {"routines": ("Routine", n, (("s", names), ("q", b"\0" * 8 * n))), "small": (1, 2)}
    assert diskcache._join(marshal.loads(marshal.dumps(older))) == value
    deep: object = names
    for _ in range(diskcache.MAX_DEPTH + 3):  # deeper than MAX_DEPTH: whole, and read back equal
        deep = (deep,)
    assert diskcache.store("profile", KEY, {"deep": deep})
    assert diskcache.load("profile", KEY, identity) == {"deep": deep}


def test_pieces_hold_at_most_chunk_items_and_chunk_bytes() -> None:
    """Small items go CHUNK_ITEMS to a piece (one marshal.dumps a piece); where those would pass
    CHUNK_BYTES, pieces are cut by the items' sizes (an item larger than CHUNK_BYTES alone); read
    back in order."""
    small = list(range(diskcache.CHUNK_ITEMS * 5 + 3))
    big = ["x" * (diskcache.CHUNK_BYTES // 10)] * 40 + ["y" * (diskcache.CHUNK_BYTES * 2)] + list(range(300))
    for value in (small, big, tuple(big), {i: v for i, v in enumerate(big)}):
        chunked = diskcache._pieces(value)
        assert chunked[0] == diskcache._CHUNK
        parts = [marshal.loads(p) for p in chunked[2]]
        assert all(len(p) <= diskcache.CHUNK_ITEMS for p in parts)
        assert all(
            len(b) <= diskcache.CHUNK_BYTES + 64 or len(p) == 1
            for b, p in zip(chunked[2], parts, strict=True)
        )
        assert diskcache._whole(chunked) == value
    assert len(diskcache._pieces(small)[2]) == 6


def test_temporary_files_of_killed_writers_are_cleaned_and_counted(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33 (9): a writer killed before its rename leaves `.KIND-PID-RANDOM` behind: it was
    never removed, not counted by the size limit and survived eviction. Now the first process to
    open the cache removes those older than a minute whose writer holds no lock; a writer's own
    file (locked) or a young one stays; eviction counts them."""
    import fcntl

    cache_home.mkdir(parents=True, mode=0o700)
    old = (1_000_000_000, 1_000_000_000)
    dead = cache_home / ".profile-4242-0123456789ab"
    dead.write_bytes(b"x" * 5000)
    os.utime(dead, ns=old)
    young = cache_home / ".lines-4243-0123456789ab"
    young.write_bytes(b"y")
    working = cache_home / ".dwarf-4244-0123456789ab"
    working.write_bytes(b"z")
    os.utime(working, ns=old)
    held = os.open(working, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)  # as a writer at work holds its file
    other = cache_home / ".not-ours"
    other.write_bytes(b"")
    os.utime(other, ns=old)
    try:
        getattr(diskcache, "_SWEPT", set()).discard(str(cache_home))  # as a new process
        assert diskcache.load("lines", KEY, identity) is None  # the cache opened
        left = sorted(p.name for p in cache_home.iterdir())
        assert left == sorted([young.name, working.name, other.name]), left
        # counted by the limit: a dead writer's large file is evicted like an entry
        monkeypatch.setenv("GMONLENS_CACHE_MAX_MB", "0.01")  # 10,485 bytes
        dead.write_bytes(b"x" * 9000)
        os.utime(dead, ns=old)
        assert diskcache.store("staticcalls", KEY, list(range(500)))
        assert not dead.exists() and working.exists() and entry(cache_home, "staticcalls").exists()
    finally:
        os.close(held)


def test_a_writer_locks_its_temporary_file(cache_home: Path) -> None:
    import fcntl

    cache_home.mkdir(parents=True, mode=0o700)
    fd, path = diskcache._new_file(str(cache_home), "lines")
    try:
        probe = os.open(path, os.O_RDONLY)
        with pytest.raises(BlockingIOError):
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(probe)
    finally:
        os.close(fd)
